"""Issue 24 through the harness, on both backends: a game of people is said to be rated
when it starts and its game-over post shows each rating before → after with the change
(provisional "?"), applied once even when a second process settles the same game;
`/rr-stats profile|leaderboard|history|privacy|server` in English and Japanese; a hidden
profile is refused to others with a clear private answer; any listed game opens in the
step-through viewer; AI seats and a server with ratings off make a game unrated (said at
its start)."""

from __future__ import annotations

import asyncio
import random
from types import SimpleNamespace

import discord
from bot_driver import Clock, Table, damage_a_move, finished_solo, long_named_game, make_bot
from harness import Harness

from cogs.i18n import t
from cogs.stats import history_page
from service.ratings import FRESH, PROVISIONAL_GAMES, Ratings, rate_by
from service.replay import replay
from store.ratings import EVERYWHERE, Finished, Played, SeatResult

PNG = b"\x89PNG"


def public(h):
    return [m for m in h.messages() if not m.ephemeral and m.dm_user_id is None]


def test_rated_game_profile_board_history_privacy(db):
    async def scenario():
        async with Harness(lambda: make_bot(db.url, Clock(), seed=11), settle_timeout=60) as h:
            ann, bob = h.user("ann"), h.user("bob")
            yui = h.user("yui", locale="ja")
            guild = h.channel.guild_id
            before = await h.slash(ann, "rr-stats profile")
            assert before.ephemeral and "Rating on this server: none yet" in before.text
            assert not before.files

            table = Table(h)
            await table.open(ann, [bob], players=2)
            start = next(m for m in public(h) if "This game is rated" in m.text)
            assert "every seat is a person's" in start.text
            await table.play(random.Random(5))
            row, g = await table.game()
            assert g.over
            post = "\n".join(m.text for m in public(h)[-3:])
            assert "📈 Ratings on this server (before → after):" in post, post
            # a first game's ratings are provisional ("25.0?"): the post says what "?" means
            assert "?" in post and "? = provisional: fewer than 5 rated games." in post, post
            store = table.bot.store
            ratings = Ratings(store)
            for scope in (EVERYWHERE, guild):
                for user in (ann, bob):
                    r = await ratings.tables.rating(scope, user.id)
                    assert r is not None and r.games == 1, (scope, user.name, r)
            a = await ratings.tables.rating(guild, ann.id)
            assert a is not None
            sign = "+" if a.mu >= FRESH.mu else "−"
            assert f"Ann: {FRESH.mu:.1f}? → {a.mu:.1f}? ({sign}" in post, post

            # a second process seeing the same game end: nothing moves again, same answer
            # (even after the server turned ratings off meanwhile: the game was rated)
            await ratings.tables.set_ratings_off(guild, True)
            other = await db.open()
            try:
                again = await Ratings(other).settle(row, g, await other.log(row.id), 1.0)
            finally:
                await other.close()
            await ratings.tables.set_ratings_off(guild, False)
            assert again[0] is None and sorted(again[1], key=repr) == sorted(
                await ratings.tables.changes(row.id), key=repr)
            assert (await ratings.tables.rating(guild, ann.id)) == a

            # profile: counts, win % by player count, provisional rating, chart
            won = g.state["result"]["winners"] == [row.seat_of(ann.id)]
            prof = await h.slash(bob, "rr-stats profile", player=ann)
            assert prof.ephemeral, prof.text
            assert f"Finished games: 1 · wins: {int(won)} ({100 * int(won)}%)" in prof.text
            assert f"· 2-player games: 1, wins: {int(won)}" in prof.text
            assert f"Rating on this server: **{a.mu:.1f}?** (provisional: 1 of 5" in prof.text
            assert "Favourite units:" in prof.text and "Daily streak: 0 days" in prof.text
            assert prof.files[0].filename == "rating.png"
            assert prof.files[0].data.startswith(PNG)
            ja = await h.slash(yui, "rr-stats profile", player=ann)
            assert "暫定" in ja.text and "終了したゲーム: 1" in ja.text, ja.text

            # leaderboard: both, by the names they played under (never a mention: issue 24),
            # provisional marked and explained
            board = await h.slash(yui, "rr-stats leaderboard")
            assert "🏆" in board.text and "<@" not in board.text, board.text
            assert ". Ann **" in board.text and ". Bob **" in board.text, board.text
            assert "暫定" in board.text
            board_en = await h.slash(ann, "rr-stats leaderboard")
            assert "? = provisional: fewer than 5 rated games" in board_en.text

            # history: the game with players, result and rating change; it opens in the viewer
            hist = await h.slash(ann, "rr-stats history")
            assert f"**#{row.id}**" in hist.text and f"{FRESH.mu:.1f}? →" in hist.text
            assert "Ann (" in hist.text and "Bob (" in hist.text
            msg = hist.last
            assert msg is not None
            opened = await h.click(ann, message=msg, label=f"🎬 #{row.id}")
            assert opened.errors == []
            frames = replay(row.setup, await store.log(row.id)).frames
            assert f"Game {row.id} — step 1 of {len(frames)}" in msg.text, msg.text
            assert msg.files and msg.files[0].data.startswith(PNG)
            ch = await h.slash(yui, "rr-stats history", options={"channel": h.channel})
            assert f"**#{row.id}**" in ch.text and "終了したゲーム" in ch.text
            assert "終了したゲーム（1/1ページ）" in ch.text, ch.text  # no half-width space
            # the players and their places as Japanese writes a list (i18n, issue 21)
            assert "位）、" in ch.text and "Ann（" in ch.text and ", " not in ch.text, ch.text
            # a channel's history has no one's rating change to show: no dangling separator
            assert not [x for x in ch.text.splitlines() if x.rstrip().endswith("·")], ch.text
            # a player and a channel: their games in it (the player was ignored before)
            both = await h.slash(ann, "rr-stats history", player=bob,
                                 options={"channel": h.channel})
            assert f"**#{row.id}**" in both.text and "Finished games of Bob in" in both.text
            other = h.text_channel("other")
            elsewhere = await h.slash(ann, "rr-stats history", player=bob,
                                      options={"channel": other})
            assert f"#{row.id}" not in elsewhere.text, elsewhere.text
            # a page past the last shows the last (it said "There are only 1 pages")
            far = await h.slash(ann, "rr-stats history", page=99)
            assert f"**#{row.id}**" in far.text and "1/1" in far.text, far.text

            # outside a server: one's own games only (another's span servers not shared)
            dm = await h.slash(ann, "rr-stats history", channel=h.dm_channel(ann))
            assert f"**#{row.id}**" in dm.text, dm.text
            dm = await h.slash(ann, "rr-stats history", player=bob, channel=h.dm_channel(ann))
            assert "Outside a server you can list only your own games" in dm.text, dm.text

            # privacy: hidden from others (clear, private), still visible to oneself
            hid = await h.slash(bob, "rr-stats privacy", hidden=True)
            assert "🔒 Your profile and history are hidden" in hid.text
            posts = len(public(h))
            for command, options in (("rr-stats profile", {"player": bob}),
                                     ("rr-stats history", {"player": bob})):
                res = await h.slash(ann, command, **options)
                assert res.ephemeral and not res.files
                assert "🔒 Bob has hidden their profile and history" in res.text, res.text
            res = await h.slash(yui, "rr-stats profile", player=bob)
            assert "非公開" in res.text
            assert len(public(h)) == posts
            own = await h.slash(bob, "rr-stats profile")
            assert "Finished games: 1" in own.text
            board = await h.slash(ann, "rr-stats leaderboard")
            assert ". Bob **" not in board.text and ". Ann **" in board.text, board.text
    asyncio.run(scenario())


def test_unrated_games_are_said_so_at_start(tmp_path):
    """AI seats and a server that turned ratings off: said when the game starts; only a
    server manager may turn them off."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "u.db", Clock(), seed=3)) as h:
            ann, bob = h.user("ann"), h.user("bob")
            mod = h.user("mod", permissions=discord.Permissions(manage_guild=True))
            res = await h.slash(ann, "rr new", players=2, bots=1)
            assert res.ephemeral, res.text
            started = await h.slash(ann, "rr start")
            assert started.ephemeral, started.text
            assert any("This game is not rated: it has AI players." in m.text
                       for m in public(h)), [m.text for m in public(h)]
            await h.slash(ann, "rr abandon", confirm=True)

            # a solo game is never rated, and its posts do not go on about it
            solo = h.text_channel("solo")
            await Table(h, solo).open(bob, players=1, difficulty="easy")
            posts = [m.text for m in h.messages(solo) if not m.ephemeral]
            assert posts and not any("rated" in p for p in posts), posts

            refused = await h.slash(ann, "rr-stats server", ratings=False)
            assert "Only members who can manage the server" in refused.text
            yui = h.user("yui", locale="ja")
            ja = await h.slash(yui, "rr-stats server", ratings=False)
            assert "サーバーの管理権限" in ja.text
            ok = await h.slash(mod, "rr-stats server", ratings=False)
            assert "Ratings are off" in ok.text
            table = Table(h)
            await table.open(ann, [bob], players=2)
            assert any("This game is not rated: this server has turned ratings off." in m.text
                       for m in public(h))
            board = await h.slash(ann, "rr-stats leaderboard")
            assert "Ratings are turned off on this server." in board.text
            # turned on again before that game ends: it stays unrated, as its start said
            # (the community audit: it was rated at its end after all)
            await h.slash(mod, "rr-stats server", ratings=True)
            await table.play(random.Random(2))
            row, g = await table.game()
            assert g.over
            over = "\n".join(m.text for m in public(h)[-4:])
            assert "not rated: this server has turned ratings off" in over, over
            kept = await Ratings(h.bot.store).tables.finished(row.id)
            assert kept is not None and kept.unrated == "off"
            assert await Ratings(h.bot.store).tables.rating(h.channel.guild_id, ann.id) is None
    asyncio.run(scenario())


def test_leaderboard_pages_and_lists_provisional_ratings_last(tmp_path):
    """Ten a page with ◀ ▶; an established rating (5 rated games) ranks above provisional
    ones even when a newcomer's single win put them higher."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "b.db", Clock(), seed=3)) as h:
            people = [h.user(f"p{k}") for k in range(12)]
            guild = h.channel.guild_id
            tables = Ratings(h.bot.store).tables
            pairs = [(0, 1)] * PROVISIONAL_GAMES + [(k, k + 1) for k in range(2, 12, 2)]
            for n, (w, lo) in enumerate(pairs):
                lobby = await h.bot.store.create_lobby(guild, 900 + n, people[w].id, "x", {})
                game = Finished(lobby.id, guild, 900 + n, None, 1.0 + n, (
                    SeatResult(0, people[w].id, 1, True, {}, f"P{w}"),
                    SeatResult(1, people[lo].id, 2, False, {}, f"P{lo}")))
                await tables.settle(game, [EVERYWHERE, guild], FRESH, rate_by(game))
            res = await h.slash(people[5], "rr-stats leaderboard")
            lines = res.text.splitlines()
            assert lines[0] == "🏆 Ratings on this server (page 1/2):", res.text
            assert lines[1].startswith("1. P0 **") and "?" not in lines[1]
            assert lines[2].startswith("2. P1 **") and "?" not in lines[2]
            assert "?**" in lines[3]  # the provisional ones after them
            msg = res.last
            assert msg is not None
            await h.click(people[5], message=msg, label="▶")
            assert "(page 2/2)" in msg.text and "11. P" in msg.text, msg.text
            await h.click(people[5], message=msg, label="◀")
            assert "(page 1/2)" in msg.text
    asyncio.run(scenario())


def test_a_history_page_of_long_names_fits_one_message_whole():
    """A page of five 4-player games whose players chose 32-character names of markdown
    characters (64 once escaped), each game unrated, would pass Discord's limit: the names are
    shortened, every game keeps its line, and the page still ends by saying how to open one."""
    name = "_*~|`>" * 5 + "__"

    class Tables:  # the page's two reads of the store
        async def history(self, **_kw: object) -> tuple[list[Played], int]:
            return [Played(g, 1, 2, "zombie", 1_700_000_000.0 + g, [f"{name[:31]}{s}" for s in range(4)],
                           tuple(SeatResult(s, 100 + s, s + 1, s == 0, {}) for s in range(4)))
                    for g in range(9, 4, -1)], 9

        async def changes(self, _game: int) -> list[object]:
            return []

    class Stand:
        tables = Tables()

    for lang in ("en", "ja"):
        for target in (None, SimpleNamespace(id=100, display_name=name)):
            text, view = asyncio.run(history_page(Stand(), 1, 1, target, 2, lang))  # type: ignore[arg-type]
            assert len(text) <= 1900, (lang, len(text))
            assert all(f"#{g}" in text for g in range(5, 10)), text
            assert text.endswith(t("stats_history_open", lang))
            assert view is not None and len(view.children) == 5
    whole, _ = asyncio.run(history_page(Stand(), 1, 1, None, 2, "en"))  # type: ignore[arg-type]
    assert "\\_\\*" in whole  # still escaped


def test_a_private_channels_games_stay_in_it(db):
    """A game played in a channel most members cannot see is listed to its players and to
    those who can see that channel — not to the rest of the server, by a player's history
    or by naming the channel."""
    async def scenario():
        async with Harness(lambda: make_bot(db.url, Clock(), seed=11), settle_timeout=60) as h:
            ann, bob, cat = h.user("ann"), h.user("bob"), h.user("cat")
            secret = h.text_channel("secret", hidden_from_all_but=(ann.id, bob.id,
                                                                     h.bot.user.id))
            table = Table(h, secret)
            await table.open(ann, [bob], players=2)
            await table.play(random.Random(5))
            row, g = await table.game()
            assert g.over
            mine = await h.slash(ann, "rr-stats history")
            assert f"**#{row.id}**" in mine.text
            theirs = await h.slash(cat, "rr-stats history", player=ann)
            assert f"#{row.id}" not in theirs.text and not theirs.buttons, theirs.text
            named = await h.slash(cat, "rr-stats history", options={"channel": secret})
            assert f"#{row.id}" not in named.text and not named.buttons, named.text
            inside = await h.slash(bob, "rr-stats history", options={"channel": secret},
                                   channel=secret)
            assert f"**#{row.id}**" in inside.text
    asyncio.run(scenario())


def test_a_lost_solo_game_is_not_listed_as_won():
    """R13.1: a solo game the monsters won reads so in the player's own history — a lone
    player is first by place even when they lost, which listed it as "won"."""
    def page(won: bool, lang: str) -> str:
        class Tables:
            async def history(self, **_kw: object) -> tuple[list[Played], int]:
                return [Played(1, 1, 2, "solo", 1_700_000_000.0, ["Ann"],
                               (SeatResult(0, 100, 1, won, {}),))], 1

            async def changes(self, _game: int) -> list[object]:
                return []

        class Stand:
            tables = Tables()

        me = SimpleNamespace(id=100, display_name="Ann")
        return asyncio.run(history_page(Stand(), 1, 1, me, 2, lang))[0]  # type: ignore[arg-type]

    assert " · won · " not in page(False, "en") and "the monsters won" in page(False, "en")
    assert " · won · " in page(True, "en")
    assert "Ann · モンスターの勝利 ·" in page(False, "ja") and "Ann · 勝利 ·" in page(True, "ja")


def test_a_damaged_history_row_still_reads_and_the_others_with_it():
    """The fault-injection audit: one `finished_seats.seat` of 99 or an `ended_at` of 1e300
    failed `/rr-stats history` ("Something went wrong") for every player of that game, for
    good. The line now reads with "?" where the row is damaged, and the page with it."""
    class Tables:
        async def history(self, **_kw: object) -> tuple[list[Played], int]:
            return [Played(2, 1, 2, "", 1e300, ["Ann", "Bob"],
                           (SeatResult(0, 100, 1, True, {}), SeatResult(99, 101, 2, False, {}))),
                    Played(1, 1, 2, "", -1e18, ["Ann", "Bob"],
                           (SeatResult(0, 100, 1, True, {}), SeatResult(1, 101, 2, False, {})))], 2

        async def changes(self, _game: int) -> list[object]:
            return []

    class Stand:
        tables = Tables()

    for lang in ("en", "ja"):
        text, _view = asyncio.run(history_page(Stand(), 1, 1, None, 2, lang))  # type: ignore[arg-type]
        assert "#2" in text and "#1" in text and "?" in text, text


def test_a_busy_phase_of_four_long_names_is_shown_whole_in_the_viewer(tmp_path, monkeypatch):
    """A finished 4-player game opened from `/rr-stats history`, stepped through phase by
    phase: a busy phase narrates more than one message holds (four long names; the live
    post took two messages), and the viewer shows every line of it — the narration in an
    embed then — where it used to clip the message and lose the phase's last lines.
    Only words are looked at: the tables and the recap are stand-in images (drawing them
    was a quarter of the test; the viewer's images: tests/test_bot_payload_limits.py)."""
    import cogs.posts
    import cogs.viewer
    import render
    from cogs.announce import MAX_CONTENT
    from cogs.mentions import safe
    from cogs.text import markdowns

    for module, name in ((render, "table_png"), (cogs.viewer, "table_png"),
                         (cogs.posts, "recap_gif_of")):
        monkeypatch.setattr(module, name, lambda *args, **kwargs: PNG)

    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=11),
                           settle_timeout=600) as h:
            users, row, g = await long_named_game(h, 0)
            rp = replay(row.setup, await h.bot.store.log(row.id),
                        [safe(str(s["name"])) for s in row.seats])
            said = [markdowns(f.lines(rp.names, rp.cards, "en"), "en") for f in rp.frames]
            assert max(len("\n".join(lines)) for lines in said) > MAX_CONTENT  # a busy one
            hist = await h.slash(users[1], "rr-stats history")
            msg = hist.last
            assert msg is not None
            await h.click(users[1], message=msg, label=f"🎬 #{row.id}")
            for k, lines in enumerate(said):
                assert f"step {k + 1} of {len(rp.frames)}" in msg.text, msg.text
                assert len(msg.content or "") <= MAX_CONTENT
                for line in lines:
                    assert line in msg.text, (k, line)
                if len("\n".join(lines)) < MAX_CONTENT // 2:  # an earlier frame's embed goes
                    assert not msg.embeds and "\n".join(lines) in (msg.content or ""), k
                if k + 1 < len(said):
                    await h.click(users[1], message=msg, label="▶")
    asyncio.run(scenario())


def test_a_history_game_whose_log_was_damaged_since_it_was_verified_opens(tmp_path):
    """The fault-injection audit: a finished game's log damaged while the bot had the game
    verified in memory (as /rr-recap's and the review's tests damage it) opened in the
    history's viewer from the stored rows, and the player read the engine's refusal of the
    damaged row ("You cannot pick 'nonsense' now") at every click until a restart. The viewer
    now replays the log as verified, as the recap does (a restart reports the damage)."""
    db = tmp_path / "g.db"

    async def scenario():
        async with Harness(lambda: make_bot(db, Clock(), seed=3), settle_timeout=60) as h:
            ann = h.user("ann")
            _table, row, g = await finished_solo(h, ann)
            damage_a_move(db, row.id)
            hist = await h.slash(ann, "rr-stats history")
            msg = hist.last
            assert msg is not None and f"**#{row.id}**" in hist.text, hist.text
            opened = await h.click(ann, message=msg, label=f"🎬 #{row.id}")
            said = [m.text for m in opened.messages] + [msg.text]
            assert not [x for x in said if "nonsense" in x or "cannot" in x], said
            frames = replay(row.setup, g.log).frames
            assert f"Game {row.id} — step 1 of {len(frames)}" in msg.text, said
    asyncio.run(scenario())
