"""Issue 18, looking back: `/rr daily review [date]` steps through the caller's game and the
par games phase by phase (⏮ ◀ ▶ ⏭, a button per game, the table image after each phase)
with the day's score distribution as a chart — only once the day has closed; `/rr daily
history` lists the caller's past days (result, score, rank) and opens a review or a
practice of any of them. Through Discord interactions only, with a frozen clock."""

from __future__ import annotations

import asyncio
import datetime as dt
import random

from bot_driver import Clock, Table, make_bot
from harness import FakeUser, Harness, RecordedMessage

from service.daily_par import ai_play
from service.daily_score import Score
from service.daily_slots import slot
from service.replay import replay

DAY = dt.date(2026, 11, 23)
NOON = dt.datetime(2026, 11, 23, 12, tzinfo=dt.UTC).timestamp()
NEXT_NOON = NOON + 24 * 3600
PNG = b"\x89PNG"


def run(coro_fn, *args):
    return asyncio.run(coro_fn(*args))


async def play_ranked(h: Harness, user: FakeUser) -> None:
    """The user's ranked attempt of the clock's day, played to its end through the DM."""
    res = await h.slash(user, "rr daily play")
    assert "started" in res.text, res.text
    table = Table(h, h.dm_channel(user))
    row = await h.bot.store.open_game(slot(user.id, True))
    assert row is not None
    table.game_id = row.id
    await table.play(random.Random(3))


def head(m: RecordedMessage) -> str:
    return m.text.splitlines()[0]


def button(m: RecordedMessage, label: str):
    return next(b for b in m.buttons if b.label == label)


def test_review_steps_through_your_game_and_the_bots_phase_by_phase(tmp_path):
    """Issue 18: after the day closes, the review shows the caller's result, rank and the
    bots', the day's score chart, then the caller's game phase by phase: ▶ and ◀ a phase,
    ⏭ ⏮ a round, the table image after each phase, and a button per game (you, the bot)."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann = h.user("ann")
            await play_ranked(h, ann)
            att = await h.bot.daily.store.attempt(ann.id, DAY.isoformat(), True)
            assert att is not None and att.score is not None and att.game_id is not None
            mine = Score.from_json(att.score)
            clock.now = NEXT_NOON  # the day has closed
            res = await h.slash(ann, "rr daily review", date=DAY.isoformat())
            summary, view = res.replies()
            assert summary.ephemeral and view.ephemeral
            assert "**Daily #23** (2026-11-23) — review · 1 finished" in summary.text
            # alone on the day: not "#1 of 1 — top 100%", which read like last
            assert f"{mine.points:,} points — 🏅 #1 — the only finisher of the day" \
                in summary.text, summary.text
            assert "top 100%" not in summary.text
            assert "🤖 random: " in summary.text  # the par's result (tests: the random AI)
            chart = summary.files[0]
            assert chart.filename == "scores.png" and chart.data.startswith(PNG)
            assert "Scores of daily #23" in (chart.description or "")
            # the viewer: the caller's own game, every phase of it
            row = await h.bot.store.get(att.game_id)
            frames = replay(row.setup, await h.bot.store.log(row.id)).frames
            total = len(frames)
            assert head(view).startswith("**Daily #23** (2026-11-23) · your game — "
                                         f"step 1 of {total} · round 0 · Setup"), view.text
            assert "Setup: two monsters are summoned" in view.text
            assert [b.label for b in view.buttons] == ["⏮", "◀", "▶", "⏭", "You",
                                                       "🤖 random"]
            assert button(view, "◀").disabled and button(view, "You").disabled
            assert view.files[0].data.startswith(PNG)
            first_image = view.files[0].data
            step = await h.click(ann, message=view, label="▶")
            assert step.kind == "deferred_update" and step.message is view
            assert f"step 2 of {total} · round 1" in head(view), view.text
            assert view.files[0].data.startswith(PNG) and view.files[0].data != first_image
            step = await h.click(ann, message=view, label="⏭")  # the next round's start
            nxt = next(k for k, f in enumerate(frames) if f.round == 2)
            assert f"step {nxt + 1} of {total} · round 2" in head(view), view.text
            step = await h.click(ann, message=view, label="⏮")  # back to round 1's start
            assert f"step 2 of {total} · round 1" in head(view), view.text
            for _ in range(total + 2):  # to the end: the game's end is told, ▶ stops there
                if button(view, "⏭").disabled:
                    break
                await h.click(ann, message=view, label="⏭")
            assert f"step {total} of {total}" in head(view), view.text
            assert "Game over" in view.text and button(view, "▶").disabled
            # the bot's game, from its first phase
            await h.click(ann, message=view, label="🤖 random")
            assert "· the random bot — step 1 of" in head(view), view.text
            # its summons, told as a solo game's: no "(🤖 random)" after each (one board)
            assert "summoned on 6" in view.text and "(🤖 random)" not in view.text
            assert button(view, "🤖 random").disabled
            par = await h.bot.daily.store.par(DAY.isoformat())
            assert par is not None
            points = Score.from_json(par["random"]["score"]).points
            assert "Result: lost in round" in view.text or "Result: won in" in view.text
            assert f"{points:,} points" in view.text
    run(scenario)


def test_no_review_of_a_day_still_open(tmp_path):
    """Issue 18: the review is only for closed days — today's would leak the day (the bots'
    games, everyone's scores); a day not begun and a date that is no date are refused too,
    and nothing is shown."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann = h.user("ann")
            await play_ranked(h, ann)  # even once the player has finished it
            # a later day (the calendar's last one too, which has no next day to end at)
            for date in (None, DAY.isoformat(), "2026-12-01", "9999-12-31"):
                res = await h.slash(ann, "rr daily review",
                                    **({"date": date} if date is not None else {}))
                if date is None:  # yesterday: closed, no ranked attempt, a bot's game
                    assert "You did not play this day's ranked challenge." in res.text
                    continue
                assert len(res.replies()) == 1 and not res.files and not res.buttons
                assert ("is still open: its review and recap open when it closes" if date ==
                        DAY.isoformat() else "has not begun yet") in res.text, res.text
            today = await h.slash(ann, "rr daily review", date=DAY.isoformat())
            assert "Daily #23 is still open" in today.text
            assert f"<t:{int(NOON + 12 * 3600)}:R>" in today.text
            bad = await h.slash(ann, "rr daily review", date="yesterday")
            assert "is not a date" in bad.text and not bad.files
    run(scenario)


def test_par_games_are_kept_with_their_logs_and_older_ones_replayed_or_said_unavailable(db):
    """Issue 18 notes: the par games' action logs are stored with the par (both backends),
    so their phases can be rebuilt (R15). A day whose par was stored without logs gets them
    recomputed on the first review, used (and kept) only when the replay reaches the stored
    result; otherwise the review says that game was not kept and shows the others."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(db.url, clock)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            store = h.bot.daily.store
            await play_ranked(h, ann)
            par = await store.par(DAY.isoformat())
            assert par is not None and par["random"]["log"], par  # kept with the par
            # an older day: its par stored before logs were kept
            old = DAY - dt.timedelta(days=1)
            # as that release played it: with the public par seed of then
            played = ai_play(h.bot.daily.days.challenge(old), "random", secret=False)
            await store.set_par(old.isoformat(), {"random": {
                "score": played["score"], "trace": played["trace"]}})
            clock.now = NEXT_NOON
            res = await h.slash(bob, "rr daily review", date=old.isoformat())
            viewer = res.replies()[-1]
            assert "· the random bot — step 1 of" in head(viewer), viewer.text
            assert "not kept" not in viewer.text
            kept = await store.par(old.isoformat())
            assert kept is not None and kept["random"]["log"] == played["log"]
            # a stored par the replay does not reach: not shown as what the par never was
            wrong = dict(played["score"], rounds=played["score"]["rounds"] + 1)
            await store.set_par(DAY.isoformat(), {"random": {"score": wrong,
                                                              "trace": played["trace"]}})
            res = await h.slash(ann, "rr daily review", date=DAY.isoformat())
            viewer = res.replies()[-1]
            assert "(The random bot's game of this day was not kept" in viewer.text
            assert [b.label for b in viewer.buttons] == ["⏮", "◀", "▶", "⏭"]
            assert "your game" in head(viewer)
            stored = await store.par(DAY.isoformat())  # remembered: not played at each look
            assert stored is not None and stored["random"].get("replay") == "differs"
            assert "log" not in stored["random"]
    run(scenario)


def test_a_stored_game_that_no_longer_replays_is_said_unavailable(db):
    """A damaged log (cogs/README.md, "One broken game") gets a clear answer, never a
    traceback, and the rest of the review is still shown (both backends)."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(db.url, clock)) as h:
            ann = h.user("ann")
            await play_ranked(h, ann)
            att = await h.bot.daily.store.attempt(ann.id, DAY.isoformat(), True)
            assert att is not None and att.game_id is not None
            await db.sql("UPDATE actions SET text='pick nonsense' WHERE game_id=? AND seq=2",
                         att.game_id)  # the damage: another program, behind the store
            clock.now = NEXT_NOON
            res = await h.slash(ann, "rr daily review", date=DAY.isoformat())
            summary, viewer = res.replies()
            assert summary.files and "You: " in summary.text
            assert "That game of this day is not available." in viewer.text
            assert "· the random bot — step 1 of" in head(viewer) and not res.errors
            mine = await h.click(ann, message=viewer, label="You")
            told = mine.followups[-1]
            assert told.ephemeral and "That game of this day is not available." in told.text
            assert "· the random bot — step 1 of" in head(viewer)  # the viewer unchanged
            assert not mine.errors
    run(scenario)


def test_review_in_japanese(tmp_path):
    """Issue 18: both languages — the review's words and the chart's."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann = h.user("ann")
            aki = h.user("aki", locale="ja")
            await play_ranked(h, ann)
            clock.now = NEXT_NOON
            en = await h.slash(ann, "rr daily review", date=DAY.isoformat())
            ja = await h.slash(aki, "rr daily review", date=DAY.isoformat())
            summary, viewer = ja.replies()
            assert "— 振り返り・完走1人" in summary.text, summary.text
            assert "この日のランク戦はプレイしていません。" in summary.text
            assert "スコア分布" in (summary.files[0].description or "")
            assert summary.files[0].data != en.replies()[0].files[0].data
            assert "・気まぐれボット — " in head(viewer) and " — 1/" in head(viewer) and "・ラウンド0・準備" in head(viewer)
    run(scenario)


async def finished(h: Harness, user_id: int, day: dt.date, name: str, score: dict) -> None:
    store = h.bot.daily.store
    assert await store.claim(user_id, day.isoformat(), True, name, None) is not None
    assert await store.finish(user_id, day.isoformat(), True, "finished", score, None)


def v1(won: bool, rounds: int) -> dict:
    return {"won": won, "rounds": rounds, "fainted": 0, "marks": 0}


def test_history_lists_past_days_with_result_score_rank_and_opens_practice_and_review(
        tmp_path):
    """Issue 18: `/rr daily history` lists the caller's days, newest first, with the result,
    the score and the rank among that day's finishers (an unfinished day says so), ten a
    page; its menus open the review of a closed day and a practice of any day."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann = h.user("ann")
            store = h.bot.daily.store
            for back in range(1, 13):  # twelve past days: won in 9, or lost in round 4
                day = DAY - dt.timedelta(days=back)
                await finished(h, 900, day, "Rival", v1(True, 8))  # finished first, better
                if back == 2:
                    await store.claim(ann.id, day.isoformat(), True, "Ann", None)
                    await store.finish(ann.id, day.isoformat(), True, "unfinished", None,
                                       None)
                else:
                    await finished(h, ann.id, day, "Ann", v1(back % 2 == 1, 9 if back % 2
                                                              else 4))
            res = await h.slash(ann, "rr daily history")
            lines = res.text.splitlines()
            assert lines[0] == "**Your daily challenges** · page 1/2", res.text
            won = Score.from_json(v1(True, 9)).points
            assert lines[1] == f"#22 (2026-11-22) — won in 9 rounds · {won:,} points · #2 of 2"
            assert lines[2] == "#21 (2026-11-21) — unfinished", res.text
            assert lines[4].startswith("#19 (2026-11-19) — lost in round 4 · ")
            assert len(lines) == 11
            page2 = await h.click(ann, message=res.message, label="▶")
            assert page2.message is res.message
            assert res.message.text.splitlines()[0].endswith("page 2/2")
            assert len(res.message.text.splitlines()) == 3  # the two oldest days
            # practice of a listed day: the game starts in the DMs, unranked
            await h.click(ann, message=res.message, label="◀")
            pick = await h.select(ann, "rr:dhist:practice", ["20261120"], message=res.message)
            assert "(practice: unranked)" in pick.text, pick.text
            att = await store.attempt(ann.id, "2026-11-20", False)
            assert att is not None and att.status == "playing"
            # the review of a listed day
            pick = await h.select(ann, "rr:dhist:review", ["20261122"], message=res.message)
            assert "**Daily #22** (2026-11-22) — review · 2 finished" in pick.text, pick.text
            assert f"You: won in 9 rounds · {won:,} points — 🏅 #2 of 2" in pick.text
    run(scenario)


def test_history_of_a_new_player(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            res = await h.slash(h.user("zed"), "rr daily history")
            assert "You have not played a daily challenge yet" in res.text
            assert not res.components
    run(scenario)


def test_the_viewer_and_history_buttons_work_after_a_restart(tmp_path):
    """Issue 18 notes: the viewer's and the history's custom ids carry all a click needs
    (no view kept in memory), so a message from before a restart still steps on."""
    kept: dict = {}

    async def first_life():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann = h.user("ann")
            await play_ranked(h, ann)
            clock.now = NEXT_NOON
            res = await h.slash(ann, "rr daily review", date=DAY.isoformat())
            await h.click(ann, message=res.replies()[-1], label="▶")
            kept.update(server=h.server, ann=ann, viewer=res.replies()[-1].id,
                        history=(await h.slash(ann, "rr daily history")).message.id)

    async def second_life():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NEXT_NOON)),
                           server=kept["server"]) as h:
            ann = kept["ann"]
            viewer = h.server.messages[kept["viewer"]]
            assert " — step 2 of " in head(viewer)
            res = await h.click(ann, message=viewer, label="▶")
            assert res.kind == "deferred_update" and " — step 3 of " in head(viewer), \
                viewer.text
            pick = await h.select(ann, "rr:dhist:review", ["20261123"],
                                  message=kept["history"])
            assert "**Daily #23** (2026-11-23) — review · 1 finished" in pick.text

    asyncio.run(first_life())
    asyncio.run(second_life())


def test_an_unfinished_day_is_reviewed_up_to_where_it_stopped(tmp_path):
    """Issue 18 (docs/daily.md, streaks): an attempt cut off by 00:00 UTC is unfinished —
    the review says so and its game steps to where it stopped, not to a "game over"."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann = h.user("ann")
            await h.slash(ann, "rr daily play")
            table = Table(h, h.dm_channel(ann))
            row = await h.bot.store.open_game(slot(ann.id, True))
            assert row is not None
            table.game_id = row.id
            rng = random.Random(5)
            for _ in range(6):
                await table.step(rng)
            clock.now = NEXT_NOON
            res = await h.slash(ann, "rr daily review", date=DAY.isoformat())
            summary, viewer = res.replies()
            assert "You: unfinished (00:00 UTC came first)" in summary.text, summary.text
            assert "your game" in head(viewer)
            for _ in range(40):
                if button(viewer, "⏭").disabled:
                    break
                await h.click(ann, message=viewer, label="⏭")
            assert head(viewer).endswith("· where it stopped"), viewer.text
            assert "Game over" not in viewer.text
    run(scenario)


def test_a_typed_date_that_is_no_date_is_quoted_back_as_typed(tmp_path):
    """A date that is none is quoted back as it was typed, in both languages and by every
    command with a date: it sat in a code span, where Discord shows escapes as they are, so
    `-1` read `\\-1` and `**x**` read `\\*\\*x\\*\\*`; and /rr daily review cut it after
    escaping, leaving half an escape (the Discord-limits audit)."""
    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock())) as h:
            ann, ken = h.user("ann"), h.user("ken", locale="ja")
            for user in (ann, ken):
                for command in ("rr daily review", "rr daily practice", "rr daily leaderboard"):
                    for typed, shown in (("-1", "\\-1"), ("**x**", "\\*\\*x\\*\\*"),
                                         ("`" * 60, "\\`…")):  # cut before escaping
                        res = await h.slash(user, command, date=typed)
                        assert res.ephemeral and "⛔" in res.text, res.text
                        # no code span: its escapes would show as they are
                        assert "`" not in res.text.replace("\\`", ""), (command, res.text)
                        assert shown in res.text, (command, res.text)
    asyncio.run(scenario())
