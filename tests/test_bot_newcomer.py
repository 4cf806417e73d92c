"""A newcomer's first hour in Discord (the new-player audit): what a player who has never
played reads when they come back to a game, make a mistake, or look for what to do next."""

from __future__ import annotations

import asyncio
import random
import re

from bot_driver import Clock, Table, make_bot
from harness import Harness
from test_bot_refusals import place_both

from engine import IllegalAction, default_cards
from engine.decisions import match_card


async def placed_two_player(h: Harness, locale: str = "en-US") -> tuple[Table, object, object]:
    """A 2-player game in #general past placement: the start player is asked to pick."""
    h.server.guild_locale = locale
    ann, bob = h.user("ann", locale=locale), h.user("bob", locale=locale)
    table = Table(h)
    await table.open(ann, [bob], players=2)
    await place_both(table, ann, bob)
    return table, ann, bob


def test_status_tells_the_asker_their_own_question_with_its_buttons(tmp_path):
    """Coming back the next day (or sent there by an out-of-date button), `/rr status` told
    a player only 'Waiting for Ann (choosing a command card)': not what they are asked nor
    how to answer, and the ping with the buttons had scrolled away. The asker waited for
    reads their question, as the ping says it, with its buttons; the others read none."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            table, ann, bob = await placed_two_player(h)
            row, g = await table.game()
            seat = g.waiting_for()[0]
            owner, other = (ann, bob) if table.user(row, seat) is ann else (bob, ann)
            res = await table.slash(other, "rr status")
            assert res.ephemeral and "Your turn" not in res.text and not res.message.buttons
            assert "Waiting for" in res.text
            res = await table.slash(owner, "rr status")
            assert res.ephemeral
            assert "Now: Your turn: choose a command card." in res.text, res.text
            picks = [c.custom_id for c in res.message.buttons
                     if c.custom_id and c.custom_id.startswith("rr:pick:")]
            assert len(picks) == len(g.decision(seat)["options"])
            answered = await h.click(owner, picks[0], message=res.message)
            assert answered.text.startswith("✅"), answered.text
    asyncio.run(scenario())


def test_status_tells_a_japanese_asker_their_question(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            table, ann, bob = await placed_two_player(h, "ja")
            row, g = await table.game()
            owner = table.user(row, g.waiting_for()[0])
            res = await table.slash(owner, "rr status")
            assert "次: あなたの手番です: コマンドカードを選んでください。" in res.text, res.text
            assert any(c.custom_id and c.custom_id.startswith("rr:pick:")
                       for c in res.message.buttons)
    asyncio.run(scenario())


def test_a_play_command_in_an_open_lobby_says_how_the_game_starts(tmp_path):
    """A newcomer who joined and typed `/rr place` before the host started read 'There is no
    game in progress in this channel. The lobby is still open.': a state, not what to do.
    The refusal says how the game begins: Join seats you, the host starts it with Start."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            for locale, words in (("en-US", ("**Join**", "**Start**")),
                                  ("ja", ("**参加**", "**開始**"))):
                user = h.user(f"new-{locale}", locale=locale)
                host = h.user(f"host-{locale}", locale=locale)
                channel = h.server.add_channel(f"lobby-{locale}")
                res = await h.slash(host, "rr new", channel=channel, players=2)
                assert res.ephemeral
                res = await h.slash(user, "rr place", channel=channel, card="thief",
                                    square="2B")
                assert res.ephemeral and res.text.startswith("⛔"), res.text
                for word in words:
                    assert word in res.text, res.text
    asyncio.run(scenario())


def test_acting_with_a_unit_that_is_not_there_names_the_units_that_can_act(tmp_path):
    """`/rr act unit:3B` where nothing of yours stands read 'There is no unit on 3B: name one
    of your units.' — and which are they? A newcomer reads the units ready to act and
    where they stand, in both languages."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            for locale, want in (("en-US", "(ready to act: Thief★ on 2B)"),
                                 ("ja", "（行動できるユニット: 2Bのシーフ★）")):
                channel = h.server.add_channel(f"act-{locale}")
                h.server.guild_locale = locale
                user = h.user(f"solo-{locale}", locale=locale)
                table = Table(h, channel)
                await table.open(user, players=1, difficulty="easy")
                res = await table.slash(user, "rr place", card="thief", square="2B")
                assert res.text.startswith("✅"), res.text
                row, g = await table.game()
                dec = g.decision(0)
                assert dec["kind"] == "pick", dec
                found = table.find_button(user, row.id, 0, dec["id"], "pick")
                assert found is not None
                await table.click(user, (found[0], next(
                    c.custom_id for c in found[0].buttons
                    if c.custom_id and c.custom_id.endswith(":raid"))))
                _row, g = await table.game()
                assert g.decision(0)["kind"] == "actions"
                res = await table.slash(user, "rr act", unit="1C")
                assert res.ephemeral and res.text.startswith("⛔"), res.text
                assert want in res.text, res.text
    asyncio.run(scenario())


def test_the_game_over_post_says_what_to_do_next(tmp_path):
    """A newcomer's game ended on 'Game over: …' and its recap, and nothing said what now:
    the post names the expert's review of this game and how to open another."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3)) as h:
            for locale, words in (("en-US", ("What next:", "/rr-learn review game:", "/rr new")),
                                  ("ja", ("次は:", "/rr-学ぶ", "/rr 新規"))):
                channel = h.server.add_channel(f"end-{locale}")
                h.server.guild_locale = locale
                table = Table(h, channel)
                await table.open(h.user(f"u-{locale}", locale=locale), players=1,
                                 difficulty="easy")
                await table.play(random.Random(1))
                row, _g = await table.game()
                over = next(m for m in reversed(h.messages(channel)) if not m.ephemeral
                            and ("Game over" in m.text or "ゲーム終了" in m.text))
                for word in (*words, f"game:{row.id}" if locale == "en-US" else str(row.id)):
                    assert word in over.text, over.text
    asyncio.run(scenario())


def test_a_mistyped_card_name_is_answered_with_the_name_meant(tmp_path):
    """A newcomer who typed `/rr place theif` read only 'There is no 'theif' in your hand
    (you have: …)' and had to spot the typo in the list; a Japanese player who typed the
    name in hiragana (しーふ) the same. The refusal now names the card meant, in the reader's
    language, and the placement is still open (R4: nothing was placed)."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            for locale, typed, meant in (("en-US", "theif", ": did you mean Thief★?"),
                                         ("ja", "しーふ", "。シーフ★のことですか？")):
                h.server.guild_locale = locale
                ann, bob = (h.user(f"ann-{locale}", locale=locale),
                            h.user(f"bob-{locale}", locale=locale))
                table = Table(h, h.server.add_channel(f"typo-{locale}"))
                await table.open(ann, [bob], players=2)
                res = await table.slash(ann, "rr place", card=typed, square="2B")
                assert res.ephemeral and res.text.startswith("⛔"), res.text
                assert meant in res.text, res.text
                far = await table.slash(ann, "rr place", card="dragon", square="2B")
                assert "did you mean" not in far.text and "のことですか" not in far.text, far.text
                row, g = await table.game()
                assert len(g.waiting_for()) == 2  # both placements still open
    asyncio.run(scenario())


def test_the_first_pick_says_where_the_cards_effects_are_told(tmp_path):
    """A newcomer's first question was 'choose a command card. (Rest, Reward, Recruit,
    Advance, Raid)' with five buttons they had never seen, and nothing said what each does
    (R7) nor where to read it. Round 1's pick names the rules topic, as the reader's client
    lists the command, and in their language (the new-player audit read `項目:commands`, an
    English key, in Japanese); and that topic, so typed, does tell each card's effects."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            for locale, topic, pointer, effect in (
                    ("en-US", "commands", "What each card does: `/rr rules topic:commands`.",
                     "Reward"),
                    ("ja", "コマンドカード", "各カードの効果は`/rr ルール 項目:コマンドカード`で読めます。",
                     "報酬")):
                channel = h.server.add_channel(f"first-{locale}")
                h.server.guild_locale = locale
                ann, bob = (h.user(f"a-{locale}", locale=locale),
                            h.user(f"b-{locale}", locale=locale))
                table = Table(h, channel)
                await table.open(ann, [bob], players=2)
                await place_both(table, ann, bob)
                row, g = await table.game()
                owner = table.user(row, g.waiting_for()[0])
                res = await table.slash(owner, "rr status")
                assert pointer in res.text, res.text
                rules = await table.slash(owner, "rr rules", topic=topic)
                assert effect in rules.embeds[0]["description"], rules.embeds
    asyncio.run(scenario())


def test_start_pressed_by_a_guest_names_the_host_to_ask(tmp_path):
    """A newcomer who joined and pressed Start read 'Only the host can start the game.', not
    who the host is nor what happens next. The refusal names the host and says they press
    Start; the lobby stays open (nothing started)."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            for locale, words in (("en-US", ("Only the host, Ann", "**Start**")),
                                  ("ja", ("ホストのAnnさんだけ", "**開始**"))):
                h.server.guild_locale = locale
                channel = h.server.add_channel(f"start-{locale}")
                ann, bob = (h.user("Ann", locale=locale), h.user("Bob", locale=locale))
                table = Table(h, channel)
                await h.slash(ann, "rr new", channel=channel, players=2)
                lobby = table.lobby_message()
                await h.click(bob, table.lobby_button(lobby, "join"), message=lobby)
                res = await h.click(bob, table.lobby_button(lobby, "start"), message=lobby)
                assert res.ephemeral and res.text.startswith("⛔"), res.text
                for word in words:
                    assert word in res.text, res.text
                assert await h.bot.service.tables.lobby(channel.id)  # still a lobby
    asyncio.run(scenario())


def test_a_card_the_set_has_but_not_here_is_no_typo() -> None:
    """A loose match read 'archer' (an Archer not on offer) as a typo of the Lancer that
    was, and 'advance' (a command card) the same: "did you mean Lancer?" sent a newcomer
    after the wrong card. A real card's name gets the list of what there is, not a guess;
    a typo and a name written in hiragana still get the name meant (R7.1 recruiting)."""
    cs = default_cards()
    offer = [{"id": 1, "card": "lancer"}, {"id": 2, "card": "bard"}]

    def refusal(typed: str) -> str:
        try:
            match_card(cs, offer, typed, "where.mercs")
        except IllegalAction as e:
            return str(e)
        raise AssertionError(f"{typed!r} was found")

    for typed in ("archer", "advance", "アーチャー"):
        assert "did you mean" not in refusal(typed), refusal(typed)
    assert "did you mean Lancer?" in refusal("lancr")
    assert "did you mean Bard?" in refusal("ばーど")


def test_rules_without_a_topic_is_the_newcomers_overview(tmp_path):
    """A newcomer's first guess, `/rr rules` with nothing after it (Discord has no `/rr help`:
    the /rr group holds Discord's maximum of 25), found nothing: the topic was required. It
    now tells the game in short (R1), the commands to play it, and where to learn more —
    the tutorial and the topics — in the reader's language, as their client names them."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            for locale, expect in (
                    ("en-US", ("Rook & Raiders — start here", "Competitive castle defence",
                               "`/rr new`", "`/rr act`", "`/rr status`",
                               "`/rr-learn tutorial`", "`/rr rules topic:`", "Command cards")),
                    ("ja", ("Rook & Raiders — はじめに", "城防衛ゲーム", "`/rr 新規`",
                            "`/rr 行動`", "`/rr 状況`", "`/rr-学ぶ チュートリアル`",
                            "`/rr ルール 項目:`", "コマンドカード"))):
                res = await h.slash(h.user("new" + locale[:2], locale=locale), "rr rules")
                assert res.ephemeral and res.embed, res.text
                shown = res.embed["title"] + "\n" + res.embed["description"]
                for words in expect:
                    assert words in shown, (locale, words, shown)
    asyncio.run(scenario())


def test_the_question_and_status_say_where_the_hint_is(tmp_path):
    """Issue 23's hint is `/rr bot hint` (the /rr group holds Discord's maximum of 25, no
    room for `/rr hint`), which the new-player audit found nobody guesses. Where a player
    is stuck — the ping with their question in the first two rounds, `/rr status` — a game
    that allows hints names it, as the reader's client lists it; once the host turns hints
    off, it is not named."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=4)) as h:
            for locale, hint in (("en-US", "`/rr bot hint`"), ("ja", "`/rr ai ヒント`")):
                h.server.guild_locale = locale
                host = h.user(f"host-{locale}", locale=locale)
                guest = h.user(f"guest-{locale}", locale=locale)
                table = Table(h, h.server.add_channel(f"hints-{locale}"))
                await table.open(host, [guest], players=2)
                await place_both(table, host, guest)
                row, g = await table.game()
                owner = table.user(row, g.waiting_for()[0])
                pings = [m.content for m in h.messages(table.channel)
                         if f"<@{owner.id}>" in m.content]
                assert pings and hint in pings[-1], pings
                res = await table.slash(owner, "rr status")
                assert hint in res.text, res.text
                # from round 3 a question's ping no longer says it (the player has read it
                # at every question of two rounds): no line more at every question
                rng = random.Random(5)
                for _ in range(300):
                    row, g = await table.game()
                    if g.round >= 3 or g.over:
                        break
                    await table.step(rng)
                assert g.round >= 3, g.round
                mark = len(h.messages(table.channel))
                for _ in range(40):
                    if any("<@" in m.content for m in h.messages(table.channel)[mark:]):
                        break
                    await table.step(rng)
                later = [m.content for m in h.messages(table.channel)[mark:] if "<@" in m.content]
                assert later and all(hint not in p for p in later), later
                await table.slash(host, "rr settings", hints=False)
                res = await table.slash(owner, "rr status")
                assert hint not in res.text, res.text
    asyncio.run(scenario())


def test_the_board_caption_names_the_rule_that_says_what_threat_is(tmp_path):
    """The new-player audit: `/rr board` read "threat 2" and nothing said what threat is.
    The caption names its rule (R14.2), which `/rr rules` opens, in both languages."""
    async def scenario(locale: str, words: str):
        async with Harness(lambda: make_bot(tmp_path / f"{locale}.db", Clock(), seed=4)) as h:
            table, ann, _bob = await placed_two_player(h, locale)
            res = await table.slash(ann, "rr board")
            assert re.search(words, res.text), res.text
            res = await table.slash(ann, "rr rules", topic="R14.2")
            assert res.embed and "R14" in res.embed["description"], res.embed
    asyncio.run(scenario("en-US", r", threat \d+ \(R14\.2\); hand:"))
    asyncio.run(scenario("ja", r"、脅威\d+（R14\.2）、手札:"))
