"""Issue 18 through Discord interactions only, with a frozen clock: one score with its
breakdown, rank and percentile after finishing, a truthful par, a resign ranked last and
said so, streaks and stats, boards that show stored names (never `<@id>`), list a server's
members and always the caller's own row, with pages past the top 10."""

from __future__ import annotations

import asyncio
import datetime as dt
import random

from bot_driver import Clock, Table, make_bot
from harness import Harness

from service.daily_score import Score
from service.daily_slots import slot

NOON = dt.datetime(2026, 11, 23, 12, tzinfo=dt.UTC).timestamp()
DAY = "2026-11-23"


def v1(won: bool, rounds: int, marks: int = 0) -> dict:
    """A score row as stored before issue 18 (still read): these tests run unchanged on the
    code before it, and fail there on behaviour, not on a missing name."""
    return {"won": won, "rounds": rounds, "fainted": 0, "marks": marks}


BOT_LOST = {"greedy": {"score": v1(False, 10, 3), "trace": []}}


def run(coro_fn, *args):
    return asyncio.run(coro_fn(*args))


async def finished(h: Harness, user_id: int, name: str, score: dict,
                   guild: int | None = None) -> None:
    """A ranked attempt finished with `score`, as the host stores one (the games behind
    other players' rows are not what these tests are about). Rows are written in the order
    they finished: the store stamps the finish time."""
    store = h.bot.daily.store
    assert await store.claim(user_id, DAY, True, name, guild) is not None
    assert await store.finish(user_id, DAY, True, "finished", score, None)


def test_a_finished_attempt_tells_its_score_breakdown_rank_and_the_bots_true_result(tmp_path):
    """Issue 18: the share line carries the score; the breakdown is shown; '#k of n — top
    p %'; the par says the bot lost in round 10 and its score, not '(bot: 10)'."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            ann = h.user("ann")
            await h.bot.daily.store.set_par(DAY, BOT_LOST)
            others = [v1(True, 9, 12), v1(False, 9), v1(False, 9)]
            for k, other in enumerate(others):  # three finished earlier, one far ahead
                await finished(h, 900 + k, f"p{k}", other)
            start = await h.slash(ann, "rr daily play")
            assert "the bot lost in round 10 (" in start.text, start.text
            bot_points = f"{Score.from_json(BOT_LOST['greedy']['score']).points:,}"
            assert f"the bot lost in round 10 ({bot_points} points)" in start.text
            # the par's number is explained term by term, as a player's own score is
            assert f"\nScore {bot_points} = lost 1,000,000 + 10 rounds fought 100,000" \
                in start.text, start.text
            dm = h.dm_channel(ann)
            table = Table(h, dm)
            row = await h.bot.store.open_game(slot(ann.id, True))
            assert row is not None
            table.game_id = row.id
            await table.play(random.Random(2))
            result = next(m.text for m in reversed(h.messages(dm)) if "```" in m.text)
            share = next(line for line in result.splitlines() if line.startswith("Rook"))
            assert "(bot: 10)" not in share and "(bot: lost in round 10 · " in share, share
            bot_points = f"{Score.from_json(BOT_LOST['greedy']['score']).points:,}"
            assert f"(bot: lost in round 10 · {bot_points})" in share, share
            att = await h.bot.daily.store.attempt(ann.id, DAY, True)
            assert att is not None and att.score is not None
            score = Score.from_json(att.score)
            assert f"· {score.points:,} pts" in share, share
            assert f"Score {score.points:,} = " in result  # the breakdown, term by term
            assert "rounds fought" in result or "rounds to spare" in result
            rank = 1 + sum(Score.from_json(o).points >= score.points  # a tie: they were
                           for o in others)  # first
            assert f"🏅 #{rank} of 4 — top {round(100 * rank / 4)}%" in result, result
    run(scenario)


def test_a_resign_at_round_0_ranks_below_a_loss_in_round_1_and_says_so(tmp_path):
    """Issue 18: a resign right after starting showed 'lost in round 0' and ranked first
    among losses; it now ranks below a loss in round 1, and its share line says resigned."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            ann, bob = h.user("ann"), h.user("bob")
            await h.bot.daily.store.set_par(DAY, BOT_LOST)
            await finished(h, bob.id, "Bob", v1(False, 1), h.guild_id)
            await h.slash(ann, "rr daily play")
            res = await h.slash(ann, "rr daily resign", confirm=True)
            assert "resigned in round 0" in res.text and "🏳️" in res.text, res.text
            assert "lost in round 0" not in res.text
            assert "🏅 #2 of 2" in res.text
            board = await h.slash(ann, "rr daily leaderboard", scope="everyone")
            lines = board.text.splitlines()
            assert lines[1].startswith("🥇 Bob — lost in round 1"), board.text
            assert lines[2].startswith("**🥈 Ann — resigned in round 0"), board.text
            stats = await h.slash(ann, "rr daily stats")
            assert "win streak 0" in stats.text and "in a row 0" in stats.text, stats.text
    run(scenario)


def test_stats_show_wins_win_percent_best_score_and_both_streaks(tmp_path):
    """Issue 18: wins, win %, best score, the win streak and the played streak, and the
    chart; a loss ends the win streak only."""
    async def scenario():
        clock = Clock(NOON)
        async with Harness(lambda: make_bot(tmp_path / "d.db", clock)) as h:
            ann = h.user("ann")
            store = h.bot.daily.store
            days = [(-3, v1(True, 9, 5)), (-2, v1(True, 8, 5)), (-1, v1(False, 6, 3)),
                    (0, v1(True, 10, 5))]
            for back, score in days:
                day = (dt.date(2026, 11, 23) + dt.timedelta(days=back)).isoformat()
                await store.claim(ann.id, day, True, "Ann", None)
                await store.finish(ann.id, day, True, "finished", score, None)
            res = await h.slash(ann, "rr daily stats")
            assert "4 played, 3 won (75%)" in res.text, res.text
            assert "win streak 1 (best 2)" in res.text
            assert "days played in a row 4 (best 4)" in res.text
            best = max(Score.from_json(s).points for _, s in days)
            assert f"best score: won in 8 rounds · {best:,} points" in res.text
            assert res.files and res.files[0].filename == "daily.png"
    run(scenario)


def test_boards_show_stored_names_escaped_never_mentions(tmp_path):
    """Issue 18: `<@id>` shows as an unknown user outside shared servers: the board prints
    the display name stored with the attempt, escaped."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            ann = h.user("ann")
            await finished(h, 4242, "**Eve** <@1> @everyone", v1(True, 9))
            await finished(h, ann.id, "Ann", v1(False, 3), h.guild_id)
            board = await h.slash(ann, "rr daily leaderboard", scope="everyone")
            assert "<@4242>" not in board.text and f"<@{ann.id}>" not in board.text
            first = board.text.splitlines()[1]
            assert first.startswith("🥇 \\*\\*Eve\\*\\* <\u200b@1>"), first
            assert "@everyone" not in board.text
    run(scenario)


def test_a_servers_board_lists_its_members_wherever_they_played(tmp_path):
    """Issue 18: the server board listed only players who once ran the command there; a
    member who played from their DMs is listed now, a stranger is not."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            ann, cat = h.user("ann"), h.user("cat")  # cat: a member, played from a DM
            dan = h.user("dan", in_guild=False)  # not in this server
            await finished(h, cat.id, "Cat", v1(True, 9), None)
            await finished(h, dan.id, "Dan", v1(True, 8), 555)
            await finished(h, ann.id, "Ann", v1(False, 3), h.guild_id)
            board = await h.slash(ann, "rr daily leaderboard", scope="server")
            assert "this server" in board.text
            assert "🥇 Cat" in board.text and "Dan" not in board.text, board.text
            assert "**🥈 Ann" in board.text
            everyone = await h.slash(ann, "rr daily leaderboard", scope="everyone")
            assert "🥇 Dan" in everyone.text and "🥈 Cat" in everyone.text
    run(scenario)


def test_the_callers_own_row_is_always_shown_and_pages_turn_past_the_top_10(tmp_path):
    """Issue 18: the caller's row under the top 10 with '#k of n'; ▶ turns to the next
    page (the caller's row bold there); ◀ back; none without a second page."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "d.db", Clock(NOON))) as h:
            ann, zoe = h.user("ann"), h.user("zoe")
            for k in range(24):
                await finished(h, 7000 + k, f"P{k:02d}", v1(False, 30 - k),
                               h.guild_id)
            # Ann ties P16 (14 rounds) and finished later: #18
            await finished(h, ann.id, "Ann", v1(False, 14), h.guild_id)
            board = await h.slash(ann, "rr daily leaderboard", scope="everyone")
            lines = board.text.splitlines()
            assert "page 1/3" in lines[0] and len(lines) == 12, board.text
            assert lines[-1].startswith("… you: 18. Ann — lost in round 14"), lines[-1]
            assert "#18 of 25 — top 72%" in lines[-1]
            labels = {b.label: b for b in board.buttons}
            assert set(labels) == {"◀", "▶"} and labels["◀"].disabled
            nxt = await h.click(ann, labels["▶"].custom_id, message=board.message)
            page2 = nxt.message.text if nxt.message else ""
            assert "page 2/3" in page2 and "**18. Ann — lost in round 14" in page2, page2
            assert "… you:" not in page2
            # the same buttons for someone who has not played: their own row says so
            none = await h.slash(zoe, "rr daily leaderboard", scope="everyone")
            assert none.text.splitlines()[-1].startswith("… you: no finished"), none.text
            small = await h.slash(ann, "rr daily leaderboard", scope="everyone",
                                  date="2026-11-22")
            assert not small.buttons and "Nobody has finished" in small.text
    run(scenario)
