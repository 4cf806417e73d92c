"""The new-player audit of the console, typed into the process's own `Console` in memory:
lines a newcomer types at moments the earlier audits did not try (a command card named
after the end, `new` with options typed once), and what each is answered."""

from __future__ import annotations

import asyncio
import json
import random
import re

import pytest
from test_console_play import Table

from console.app import CHANNEL
from console.options import parse_command_line
from console.run import main
from engine import Game
from engine.cards import DATA_FILE
from store import Store


async def answers(lines: list[str], lang: str = "en", *, resigned: bool = False) -> list[str]:
    """What Ann's console answers to each of `lines`, in a solo game of her own (`resigned`:
    typed after she resigned it)."""
    store = await Store(":memory:").open()
    try:
        t = Table(store, ["--names", "Ann", "--seed", "3"], lang)
        t.con.auto_board = False
        await t.start()
        if resigned:
            await t.type("resign")
            await t.type("resign")
            assert (await t.game()).over
        return [await t.type(line) for line in lines]
    finally:
        await store.close()


def _typed_after_resigning(lines: list[str], lang: str = "en") -> str:
    """What a solo game answers to `lines` typed after its player resigned."""
    return "".join(asyncio.run(answers(lines, lang, resigned=True)))


def test_a_command_card_named_after_the_end_is_told_the_game_is_over() -> None:
    """`advance` alone chooses the card while a card is asked (the prompt lists them by
    name); typed after the end it was "'advance' is neither a console command nor an
    action", though `pick advance` was told the game is over. Both are told so now."""
    out = _typed_after_resigning(["advance", "pick advance"])
    assert "neither" not in out, out
    assert "! The game is over: 'advance' was not played." in out, out
    assert "! The game is over: 'pick advance' was not played." in out, out
    ja = _typed_after_resigning(["進撃"], "ja")
    assert "! ゲームは終了しています。「進撃」は行われませんでした。" in ja, ja


def test_new_with_options_asks_for_the_same_line_again() -> None:
    """`new --players 2` over a game in progress said "Type new again to confirm", and a
    bare `new` typed as told asked again (another table) and would deal the old seats: the
    confirmation names the line to type again, options and all."""

    async def run(lang: str, line: str) -> tuple[str, list[str]]:
        store = await Store(":memory:").open()
        try:
            t = Table(store, ["--names", "Ann", "--seed", "3"], lang)
            t.con.auto_board = False
            await t.start()
            asked = await t.type(line)
            await t.type(line)
            return asked, (await t.game()).setup["players"]
        finally:
            await store.close()

    asked, players = asyncio.run(run("en", "new --names Cy Dee"))
    assert "Type 'new --names Cy Dee' again to confirm" in asked, asked
    assert players == ["Cy", "Dee"]
    asked, _ = asyncio.run(run("en", "new"))
    assert "Type 'new' again to confirm" in asked, asked
    asked, players = asyncio.run(run("ja", "新規 --players 2"))
    assert "よければもう一度「新規 --players 2」と入力してください。" in asked, asked
    assert players == ["P1", "P2"]


def test_board_off_in_japanese_words_and_a_mistyped_board_word() -> None:
    """`盤面 オフ` (the Japanese help's words for on/off, as 自動レベルアップ オン|オフ) printed
    the board and left the board after each phase on; `board of` (a typo) did the same
    without a word. オン/オフ are on/off now, and another word is refused, saying both."""

    async def run(lang: str, lines: list[str]) -> tuple[str, bool]:
        store = await Store(":memory:").open()
        try:
            t = Table(store, ["--names", "Ann", "--seed", "3"], lang)
            await t.start()
            out = "".join([await t.type(line) for line in lines])
            return out, t.con.auto_board
        finally:
            await store.close()

    out, boards = asyncio.run(run("ja", ["盤面 オフ"]))
    assert "フェイズごとの盤面表示: オフ" in out and not boards, out
    out, boards = asyncio.run(run("ja", ["盤面 ｏｆｆ", "盤面 オン"]))
    assert "フェイズごとの盤面表示: オン" in out and boards, out
    out, boards = asyncio.run(run("en", ["board of"]))
    assert out == ("! 'of' is neither on nor off: board shows the table now; board on / "
                   "board off turn the board after each phase on or off.\n"), out
    assert boards
    out, _ = asyncio.run(run("ja", ["盤面 おふ"]))
    assert out.startswith("! 「おふ」はオンでもオフでもありません。"), out


def test_a_number_typed_in_a_game_says_numbers_choose_only_in_the_tutorial() -> None:
    """The tutorial answers every step by its number; in a game a newcomer fresh from it
    typed `1` (or `１`) and read "'1' is neither a console command nor an action". It is
    told now that numbers choose only in the tutorial, with an action to type instead;
    nothing is played."""

    async def run(lang: str, lines: list[str]) -> tuple[str, int]:
        store = await Store(":memory:").open()
        try:
            t = Table(store, ["--names", "Ann", "--seed", "3"], lang)
            t.con.auto_board = False
            await t.start()
            moves = len((await t.game()).log)
            out = "".join([await t.type(line) for line in lines])
            return out, len((await t.game()).log) - moves
        finally:
            await store.close()

    out, played = asyncio.run(run("en", ["1", "１"]))
    assert played == 0 and "neither" not in out, out
    assert out.count("! '1' chooses nothing here: numbers answer only the tutorial's steps. "
                     "Type the action itself, e.g. 'place Cleric★ 1A' (legal lists them).") == 2
    out, played = asyncio.run(run("ja", ["２"]))
    assert played == 0
    assert out.startswith("! 番号で選べるのはチュートリアルの中だけです（「2」）。行動そのものを"
                          "入力してください。例:「配置 クレリック★ 1A」（一覧は legal）"), out


def test_tutorial_with_a_lesson_number_opens_that_lesson() -> None:
    """`tutorial 3` (as `lesson 3` inside it, and `review 1` / `recap 1` elsewhere) opened
    lesson 1 in a game and reprinted the step inside the tutorial, the number unread. It
    opens lesson 3 now, from a game and inside the tutorial; a number out of range is
    refused, saying the range, and the tutorial shows where the learner stands."""

    async def run(lines: list[str]) -> list[str]:
        store = await Store(":memory:").open()
        try:
            t = Table(store, ["--names", "Ann", "--seed", "3"])
            t.con.auto_board = False
            await t.start()
            return [await t.type(line) for line in lines]
        finally:
            await store.close()

    opened, inside, wrong = asyncio.run(run(["tutorial 3", "tutorial ５", "tutorial 12"]))
    assert "lesson 3/9" in opened and "lesson 1/9" not in opened, opened
    assert "lesson 5/9" in inside and "lesson 3/9" not in inside, inside
    assert wrong.startswith("! Give a lesson number from 1 to 9, e.g. lesson 3."), wrong
    (later,) = asyncio.run(run(["tutorial 0"]))
    assert later.count("! Give a lesson number from 1 to 9") == 1
    assert "lesson 1/9" in later, later  # where the learner stands


def test_the_language_option_takes_any_case_and_width(capsys: pytest.CaptureFixture[str]) -> None:
    """`--difficulty HARD` and `--ai GREEDY` were read in any case, but `--lang JA` stopped
    the console: "invalid choice: 'JA'". `JA`, `Ja` and full-width `ｊａ` are Japanese now,
    and a later mistake on the same line is told in Japanese."""
    for typed in ("JA", "Ja", "ｊａ", " ja "):
        ns, _ = parse_command_line(["--lang", typed])
        assert ns.lang == "ja", typed
    assert main(["--lang", "JA", "--players", "9"]) == 2
    assert "ゲームは1〜4人です" in capsys.readouterr().err


def test_ratings_asked_for_is_told_the_console_rates_no_game() -> None:
    """The bot has ratings; a newcomer typing `ratings` (レーティング) in the console read
    "neither a console command nor an action". It is told why there are none (one
    terminal plays every seat, as history's heading says) and where the results are."""

    async def run(lang: str, line: str) -> str:
        store = await Store(":memory:").open()
        try:
            t = Table(store, ["--names", "Ann", "--seed", "3"], lang)
            t.con.auto_board = False
            await t.start()
            return await t.type(line)
        finally:
            await store.close()

    for line in ("ratings", "Rating", "stats"):
        out = asyncio.run(run("en", line))
        assert out == ("! The console rates no game: one terminal plays every seat. history "
                       "lists the finished games and their results.\n"), out
    out = asyncio.run(run("ja", "レーティング"))
    assert out == ("! コンソールのゲームはレーティングの対象外です（1台の端末で全員を操作するため）。"
                   "終了したゲームと結果は historyで見られます。\n"), out


def test_japanese_rules_summary_names_commands_and_actions_in_japanese_words() -> None:
    """`ルール コマンド` and `ルール ユニット行動` told a Japanese player to type `pick カード`
    and `act マス [to マス] [attack マス …]`, English words the prompts never show (they
    say 「選択 カード」 and 「行動 マス [→ マス] …」); the other sections had been given the
    notation's Japanese words already. What they name is typed as it stands."""

    cards, acts, placed, picked, listed = asyncio.run(answers(
        ["ルール commands", "ルール actions", "配置 シーフ 2B", "選択 進撃", "合法手 行動 2B"], "ja"))
    for said in (cards, acts):  # English is named only as also accepted
        assert "（英語の" in said, said
        said = re.sub(r"（英語の[^）]*）", "", said)
        assert not re.search(r"\b(pick|act|to|attack|area|heal|done|legal)\b", said), said
    assert "選択 カード" in cards and "選択 進撃" in cards, cards
    assert "行動 マス [→ マス]" in acts and "合法手 行動 2B" in acts and "完了" in acts, acts
    assert "シーフ★を2Bに配置" in placed and "進撃を選択" in picked, placed + picked
    assert "行動 2B →" in listed, listed


def test_leader_in_katakana_opens_the_rules_that_explain_it() -> None:
    """`rules leader` opens Command cards; the Japanese texts write the rulebook's LEADER
    and FOLLOWER in Latin letters, as the rulebook does, so `ルール リーダー` / `ルール フォロワー`, as a
    Japanese player says them, found no topic. They open the same section now."""

    for said in asyncio.run(answers(["ルール リーダー", "ルール フォロワー", "ルール ＬＥＡＤＥＲ"], "ja")):
        assert said.startswith("コマンドカード\n"), said


def test_the_japanese_bare_undo_question_is_japanese() -> None:
    """A bare `取消` asked 「誰の行動を取り消しますか? undo 名前と…」: a half-width question
    mark and the English verb (the help names 取消, and takes it), with the example
    「undo Bob」. The question, the verb and the example are Japanese now; three-player
    games are played at random until two players' moves can go back."""
    names = ["Ann", "Bob", "Cy"]

    async def run() -> tuple[str, str]:
        for seed in range(8):
            store = await Store(":memory:").open()
            try:
                t = Table(store, ["--names", *names, "--seed", str(seed)], "ja")
                t.con.auto_board = False
                await t.start()
                who = await t.type("取消")
                rng = random.Random(seed)
                for _ in range(200):
                    g = await t.game()
                    if g.over:
                        break
                    if sum(g.can_undo(s) for s in range(3)) > 1:
                        return who, await t.type("取消")
                    await t.random_answer(g, names, rng)
            finally:
                await store.close()
        raise AssertionError("no moment in 8 games where two players could undo")

    who, which = asyncio.run(run())
    assert who == "! 誰の行動を取り消しますか？「取消 名前」と入力してください（Ann、Bob、Cy）。\n", who
    assert re.fullmatch(r"! 誰の行動を取り消しますか？取り消せる行動が複数あります（\w+、\w+）。"
                        r"「取消 名前」と入力してください（例:「取消 \w+」）。\n", which), which


def test_a_command_card_named_after_a_players_name_is_chosen() -> None:
    """`advance` alone chooses the card (help: "pick advance or just advance"), but at a
    shared keyboard `Bob: advance` read "Unknown action 'advance'", and `Bob: 1` (a number,
    as the tutorial answers) the same. The card is chosen now, a number gets the
    tutorial-only answer, and a card named by someone not choosing is told what they are
    asked instead."""

    async def run() -> tuple[list[str], str, str]:
        store = await Store(":memory:").open()
        try:
            t = Table(store, ["--names", "Ann", "Bob", "--seed", "3"])
            t.con.auto_board = False
            await t.start()
            await t.type("Ann: place thief 2B")
            await t.type("Bob: place thief 2B")
            g = await t.game()
            (seat,) = g.waiting_for()
            me, other = ["Ann", "Bob"][seat], ["Ann", "Bob"][1 - seat]
            said = [await t.type(f"{me}: 1"), await t.type(f"{other}: advance"),
                    await t.type(f"{me}: advance")]
            g = await t.game()
            return said, me, str(g.log[-1]) if g.log else ""
        finally:
            await store.close()

    (number, others, mine), me, _ = asyncio.run(run())
    assert number.startswith("! '1' chooses nothing here: numbers answer only the tutorial's "
                             "steps. Type the action itself, e.g. 'pick "), number
    assert "Unknown action" not in others and others.startswith("! "), others
    assert f"{me} chose Advance" in mine, mine


def test_a_refused_line_cancels_a_pending_resign_or_new() -> None:
    """`resign` asks again: "Type the same resign again to confirm (any other line
    cancels)". A line refused unread (an arrow key's escape code, a pasted 10,000
    characters) did not cancel it, so the next `resign` ended the game. Any line cancels."""

    async def run(between: str, again: str) -> tuple[bool, int]:
        store = await Store(":memory:").open()
        try:
            t = Table(store, ["--names", "Ann", "--seed", "3"])
            t.con.auto_board = False
            await t.start()
            await t.type(again)
            await t.type(between)
            await t.type(again)
            g = await t.game()
            row = await t.con.store.open_game(CHANNEL)
            return g.over, -1 if row is None else row.id
        finally:
            await store.close()

    for between in ("\x1b[A", "x" * 10_000):
        over, _ = asyncio.run(run(between, "resign"))
        assert not over, repr(between[:5])
        _, first = asyncio.run(run("x", "new"))
        _, game = asyncio.run(run(between, "new"))
        assert game == first, repr(between[:5])  # no new game was dealt


def test_words_after_history_review_or_recap_are_not_dropped() -> None:
    """`history 5` listed the games as if `5` were not there, and `review 1 2` reviewed
    game 1: the extra words were dropped unread. `history 5` now says history takes
    nothing and how to open a game; `review 1 2` is no game's number."""

    listed, extra, two = asyncio.run(answers(["history", "history 5", "review 1 2"], resigned=True))
    assert "#1" in listed, listed
    assert extra == ("! history lists every finished game and takes nothing after it ('5'); "
                     "review N or recap N opens game N.\n"), extra
    assert two == ("! There is no game '1 2' in this database: history lists the finished "
                   "ones with their numbers.\n"), two
    (ja,) = asyncio.run(answers(["履歴 5"], "ja", resigned=True))
    assert ja == ("! historyは終了したゲームの一覧で、後ろには何も付けません（「5」）。ゲームNを"
                  "開くには review N か recap Nと入力してください。\n"), ja


def test_pass_or_a_number_while_two_players_decide_gets_its_reading() -> None:
    """`パス` or `１` typed while two players take unit actions at once read "neither a
    console command nor an action": the readings (完了 ends the step; numbers only in the
    tutorial) were given only while one player decided. Both get them now."""

    async def run() -> list[str]:
        store = await Store(":memory:").open()
        try:
            t = Table(store, ["--names", "Ann", "Bob", "--seed", "3"], "ja")
            t.con.auto_board = False
            await t.start()
            await t.type("Ann: 配置 シーフ 2B")
            await t.type("Bob: 配置 シーフ 2B")
            seat = (await t.game()).waiting_for()[0]
            await t.type(f"{['Ann', 'Bob'][seat]}: 進撃")
            assert len((await t.game()).waiting_for()) == 2
            return [await t.type("パス"), await t.type("１")]
        finally:
            await store.close()

    done, number = asyncio.run(run())
    assert done.startswith("! 「パス」ではなく") and "「完了」" in done, done
    assert number.startswith("! 番号で選べるのはチュートリアルの中だけです（「1」）。"), number


def test_a_negative_number_in_the_tutorial_is_told_the_range() -> None:
    """In the tutorial `0` or `4` (three choices) is told "Choose a number from 1 to 3",
    but `-1` was judged a wrong answer ("Not this time: there is no action '-1'"), as if
    an action had been tried. It is told the range too."""

    async def run() -> str:
        store = await Store(":memory:").open()
        try:
            t = Table(store, ["--names", "Ann", "--seed", "3"])
            t.con.auto_board = False
            await t.start()
            await t.type("tutorial")
            return await t.type("-1") + await t.type("-12")
        finally:
            await store.close()

    out = asyncio.run(run())
    assert out == "! Choose a number from 1 to 3, or type the action.\n" * 2, out


def test_a_difficulty_is_typed_by_the_name_the_console_shows() -> None:
    """The Japanese console names a solo game's level むずかしい (「ソロ、難易度むずかしい」),
    but `new --difficulty むずかしい` was refused: only easy, normal, hard, nightmare.
    The names it shows are read as the levels."""
    for typed, level in (("むずかしい", "hard"), ("やさしい", "easy"), ("悪夢", "nightmare"),
                         ("ふつう", "normal"), ("HARD", "hard")):
        _, table = parse_command_line(["--difficulty", typed])
        assert table.difficulty == level, typed


def test_the_first_pick_names_the_rules_topic_as_the_console_types_it() -> None:
    """Round 1's pick says where the command cards' effects are told (R7); the console
    writes that as a line to type (`rules commands`), not Discord's `topic:` option, and a
    mistyped card name is answered with the card meant."""
    for lang, placed, told, typo, meant in (
            ("en", "place thief 2B", "What each card does: 'rules commands'.",
             "place theif 2B", "did you mean Thief★?"),
            ("ja", "配置 シーフ 2B", "各カードの効果は「rules コマンドカード」で読めます。",
             "配置 しーふ 2B", "シーフ★のことですか？")):
        typed, first = asyncio.run(answers([typo, placed], lang))
        assert meant in typed, typed
        assert told in first, first
        assert "topic:" not in first and "<cmd>" not in first, first


def test_a_mistyped_command_card_is_answered_with_the_card_meant() -> None:
    """`pick advanc` read only "'advanc' is not a command card. Choose one of: …"; the
    answer now names the card meant, in the reader's language, and nothing is chosen. A
    word close to no card keeps the plain answer."""
    for lang, placed, typo, meant in (("en", "place thief 2B", "pick advanc",
                                       "is not a command card. Did you mean Advance? Choose"),
                                      ("ja", "配置 シーフ 2B", "選択 rewrd",
                                       "ではありません。報酬のことですか？選べるカード")):
        _placed, typed, far, status = asyncio.run(answers([placed, typo, "pick banana",
                                                           "status"], lang))
        assert meant in typed, typed
        assert "Did you mean" not in far and "のことですか" not in far, far
        assert "pick CARD" in status or "選択 カード" in status, status  # still asked


def test_the_japanese_text_board_names_the_home_area_as_the_rulebook_does() -> None:
    """The Japanese board's column header said 自陣 where the prompts, the refusals and the
    rulebook say 自軍エリア (R2: columns 1–2): a newcomer told to place on 自軍エリア looked
    for it in vain. The header now reads 2自軍 / 1自軍."""
    board, = asyncio.run(answers(["盤面"], "ja"))
    header = next(line for line in board.splitlines() if "魔法陣" in line)
    assert "2自軍" in header and "1自軍" in header and "自陣" not in header, header


def test_the_rules_topics_are_listed_and_opened_in_japanese() -> None:
    """The new-player audit: the Japanese console listed its rules topics by English key
    (`commands`). Japanese lists them by their Japanese names and opens one so typed; the
    English key still opens it (the console accepts both)."""
    listed, by_name, by_key = asyncio.run(answers(["rules", "rules コマンドカード",
                                                   "rules commands"], "ja"))
    assert "  コマンドカード（R7）" in listed and "commands" not in listed, listed
    assert by_name.startswith("コマンドカード") and by_name == by_key, by_name
    listed_en = asyncio.run(answers(["rules"], "en"))[0]
    assert "  commands  Command cards (R7)" in listed_en, listed_en


def test_a_card_of_the_set_that_is_not_a_command_card_is_no_typo_of_one() -> None:
    """R7: the command cards are picked, a unit card is not. In a card set whose Knight is
    named Raider (奇襲兵), `pick raider` was answered "Did you mean Raid?" — a real card
    "corrected" to another, as the unit-card refusal no longer does (engine/decisions.py
    `_close_card`). A card the set has gets the plain answer and the list; a typo of a
    command card is still answered with the card meant."""
    data = json.loads(DATA_FILE.read_text(encoding="utf-8"))
    data["units"]["knight"].update(en="Raider", ja="奇襲兵")
    g = Game.new(["Ann"], seed=3, cards_data=data)
    g.apply(0, str(g.legal_actions(0)[0]))
    assert g.decision(0) is not None and g.decision(0)["kind"] == "pick"

    async def run(lang: str, typed: str) -> str:
        store = await Store(":memory:").open()
        try:
            t = Table(store, ["--names", "Ann", "--seed", "3"], lang)
            start = len(t.out.getvalue())
            assert t.con.not_a_command_card(g, 0, typed)
            return t.out.getvalue()[start:]
        finally:
            await store.close()

    for lang, typed in (("en", "pick raider"), ("en", "pick 奇襲兵"), ("ja", "pick 奇襲兵")):
        said = asyncio.run(run(lang, typed))
        assert "Did you mean" not in said and "のことですか" not in said, said
        assert "Choose one of:" in said or "選べるカード" in said, said
    assert "Did you mean Raid?" in asyncio.run(run("en", "pick raidd"))
    assert "奇襲のことですか" in asyncio.run(run("ja", "pick 奇襲し"))
