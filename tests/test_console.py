"""The offline console as a player meets it: a real `bot.py --console` process over pipes.

Each test starts the process with a temporary --db and image folder, types lines on its
stdin and reads what a terminal would show. What is checked is what a console player
notices: which game they are in, that every line they type gets a short answer, that the
board and their hand can be seen, that leaving (quit, Ctrl-D, Ctrl-C) says where the game
is saved, and that Japanese players read Japanese.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine import Game

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 90


def console(tmp: Path, *args: str, lines: list[str | bytes] = (), db: str = "c.db",
            ) -> subprocess.CompletedProcess[str]:
    """Run the console to the end of `lines` (then end of input); bounded."""
    data = b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x in lines)
    r = subprocess.run([sys.executable, str(ROOT / "bot.py"), "--console", "--db",
                        str(tmp / db), "--out", str(tmp / "out"), *args],
                       input=data, capture_output=True, timeout=TIMEOUT, cwd=tmp)
    out = subprocess.CompletedProcess(r.args, r.returncode, r.stdout.decode(),
                                      r.stderr.decode())
    assert "Traceback" not in out.stdout + out.stderr, out.stdout[-3000:] + out.stderr
    return out


def two_player_start(seed: int) -> tuple[Game, list[str]]:
    """The lines that place both first units (seat order), and the game after them."""
    g = Game.new(["Ann", "Bob"], seed=seed)
    lines = []
    for seat, name in enumerate(["Ann", "Bob"]):
        act = str(g.legal_actions(seat)[0])
        g.apply(seat, act)
        lines.append(f"{name}: {act}")
    return g, lines


# ---- which game: new, resume, --new ----------------------------------------------------------

@pytest.mark.process
def test_resume_says_what_is_resumed_and_how_to_start_anew(tmp_path: Path) -> None:
    first = console(tmp_path, "--names", "Ann", "Bob", "--seed", "3",
                    lines=["Ann: place thief 2B"])
    assert "New game: Ann, Bob" in first.stdout
    # Ctrl-D: one line saying where the game is and how to come back
    assert first.stdout.rstrip().splitlines()[-1] == (
        f"End of input. Saved in {tmp_path / 'c.db'}. Run the console again with --db "
        f"{tmp_path / 'c.db'} to resume.")

    # other options do not silently give the old game back: it says which game and why
    again = console(tmp_path, "--players", "1", lines=["status"])
    assert "Resuming the unfinished game" in again.stdout and "Ann, Bob, round 0" in again.stdout
    assert "Your options (--players 1) were not used" in again.stdout
    assert "type new (or run again with --new)" in again.stdout
    assert "> Bob: Place one unit" in again.stdout  # Ann's placement was kept

    plain = console(tmp_path, lines=[])
    assert "To abandon it and start anew, type new (or run with --new)." in plain.stdout

    fresh = console(tmp_path, "--new", "--names", "Cy", lines=["status"])
    assert "Abandoned the unfinished game (Ann, Bob, round 0)." in fresh.stdout
    assert "New game: Cy." in fresh.stdout and "> Cy: Place one unit" in fresh.stdout


@pytest.mark.process
def test_new_command_asks_before_abandoning_and_takes_options(tmp_path: Path) -> None:
    out = console(tmp_path, "--names", "Ann", "Bob", lines=[
        "new", "status",  # anything else in between cancels
        "new --names Cy Dee --difficulty hard",  # refused whole: one line
        "new --names Cy", "new --names Cy",
    ]).stdout
    assert "This abandons the game in progress (Ann, Bob, round 0). Type 'new' again to " \
           "confirm." in out
    assert "Type 'new --names Cy' again to confirm." in out
    assert ("! --difficulty is the solo option rule (R13.2): use it with one player, not 2"
            in out)
    assert out.count("New game:") == 2 and "New game: Cy." in out
    assert out.rstrip().endswith("to resume.")
    after = console(tmp_path, lines=["status"]).stdout
    assert "Resuming the unfinished game" in after and ": Cy, round 0" in after


@pytest.mark.process
def test_a_finished_game_is_not_resumed(tmp_path: Path) -> None:
    out = console(tmp_path, "--names", "Ann", lines=["resign", "resign", "quit"]).stdout
    assert "resigned" in out  # the story of the end (service/narrate.py's words)
    assert "Type review for the expert's review of your decisions, recap for the " \
           "whole game as an animation, new for another game, or quit." in out
    assert out.count("Game over") == 1  # the result once, then what to do next
    assert out.rstrip().splitlines()[-1] == (f"Bye. The finished game stays in "
                                             f"{tmp_path / 'c.db'}; next time a new game "
                                             f"starts.")
    again = console(tmp_path, lines=[]).stdout
    assert "New game: P1." in again
    # the finished game is named, not passed over in silence (the second new-player audit)
    assert "Game 1 of this database has ended: review 1 and recap 1 show it" in again


@pytest.mark.process
def test_resign_is_asked_again_before_it_ends_a_seat(tmp_path: Path) -> None:
    """The second new-player audit: `Bob: resign` at a shared keyboard ended Bob's game at
    once, with no undo; `new` already asked twice. Any other line between cancels it."""
    out = console(tmp_path, "--names", "Ann", "Bob", lines=[
        "Bob: resign", "status", "Bob: resign", "Bob: resign", "quit"]).stdout
    assert out.count("Type the same resign again to confirm") == 2, out
    assert out.count("Bob has left the game") == 1
    first = out.index("Type the same resign again")
    assert out.index("Bob has left the game") > out.index("Type the same resign again", first + 1)


@pytest.mark.process
def test_a_move_after_the_end_is_said_not_played(tmp_path: Path) -> None:
    """The new-player audit: a move typed after the game ended only printed the ending
    again, never saying the move was not played."""
    out = console(tmp_path, "--names", "Ann", lines=["resign", "resign", "done", "quit"]).stdout
    assert "! The game is over: 'done' was not played." in out, out


# ---- leaving ------------------------------------------------------------------------------

@pytest.mark.process
def test_quit_says_saved(tmp_path: Path) -> None:
    r = console(tmp_path, lines=["quit", "status"])
    assert r.returncode == 0
    last = r.stdout.rstrip().splitlines()[-1]
    assert last.startswith("Saved in ") and last.endswith("to resume.")
    assert "> P1" not in r.stdout.split("Saved in")[1]  # nothing read after quit


@pytest.mark.process
def test_ctrl_c_exits_at_once_and_cleanly(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, str(ROOT / "bot.py"), "--console", "--db",
                             str(tmp_path / "c.db"), "--out", str(tmp_path / "out")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert proc.stdout is not None
        for _ in range(200):  # wait for the first prompt: the console is reading
            line = proc.stdout.readline()
            if not line or line.startswith("> P1"):
                break
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        proc.wait(timeout=30)  # stdin stays open: no line and no end of input ever come
        took = time.monotonic() - sent
        assert proc.stderr is not None
        out, err = line + proc.stdout.read(), proc.stderr.read()
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130
    assert took < 10
    assert "Traceback" not in err and err == ""
    assert out.strip().splitlines()[-1].startswith("Interrupted. Saved in ")
    again = console(tmp_path, lines=[])
    assert "Resuming the unfinished game" in again.stdout


@pytest.mark.parametrize(("args", "words"), [
    (["--players", "2", "--difficulty", "hard"], "solo option rule (R13.2)"),
    (["--names", "2"], "'2' looks like a number, not a name"),
    (["--names", "Ann", "３"], "'3' looks like a number"),
    (["--players", "Ann"], "--players: a count (1 to 4), not 'Ann'; give names with --names"),
    (["--players", "5"], "1 to 4 players (R1)"),
    (["--names", "Ann", "ANN"], "player names must differ"),
    (["--names", "Ann:x"], "cannot contain ':'"),
    (["--players", "3", "--names", "A", "B"], "--players 3 but 2 names"),
    (["--difficulty", "extreme"], "easy, normal, hard or nightmare, not 'extreme'"),
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["--lang", "ja", "--players", "2", "--difficulty", "hard"], "ソロ用のルール"),
])
@pytest.mark.process
def test_impossible_options_are_one_line(tmp_path: Path, args: list[str], words: str) -> None:
    r = console(tmp_path, *args)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and words in r.stderr, r.stderr
    assert not (tmp_path / "c.db").exists()  # nothing was started


@pytest.mark.process
def test_an_unusable_game_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "junk.db").write_text("not a database")
    (tmp_path / "folder.db").mkdir()
    for db in ("junk.db", "folder.db", "missing/c.db"):
        r = console(tmp_path, db=db, lines=["quit"])
        assert r.returncode == 2 and r.stdout == "", r.stdout
        assert len(r.stderr.splitlines()) == 1 and "cannot open the game file" in r.stderr


# ---- seeing the table -------------------------------------------------------------------------

@pytest.mark.process
def test_board_hand_and_a_board_after_each_phase(tmp_path: Path) -> None:
    out = console(tmp_path, "--names", "Ann", "--seed", "4", lines=[
        "hand", "place thief 2B", "board", "hand Ann", "board off", "pick rest", "board on",
    ]).stdout
    before, after = out.split("── Round 1 · after the placement ──", 1)
    # the hand at placement: all four starting units with their cost
    assert re.search(r"Ann's hand: Warrior★ \(2g\), Cleric★ \(1g\), Sorcerer★ \(3g\), "
                     r"Thief★ \(2g\) · gold 2", before)
    # R2: the compact board after the placement phase, columns 6 → 1, the Thief on 2B
    lane_b = next(x for x in after.splitlines() if x.strip().startswith("B "))
    cells = lane_b.split("|")[1]
    assert cells[4 * 8:5 * 8].strip() == "Thi*"  # the fifth column from the left is 2
    assert "queue | 6 magic 5" in after.split("row: ")[0]
    board = after[after.index("row: "):]
    assert "legend: " in board and "Thi=Thief" in board and "mercenaries: " in board
    assert "Ann's hand: Warrior★ (2g), Cleric★ (1g), Sorcerer★ (3g) · gold 2" in after
    # board off: the Rest card resolves without a board (its story is still told)
    rest = after[after.index("Ann's hand: Warrior★ (2g), Cleric★ (1g), Sorcerer★"):]
    assert "A board after each phase: off" in rest and "A board after each phase: on." in rest
    assert "Rest" in rest and "── Round" not in rest
    assert "**" not in out and "`" not in out and "/rr" not in out  # plain text only


@pytest.mark.process
def test_image_numbers_continue_after_a_resume(tmp_path: Path) -> None:
    console(tmp_path, "--seed", "5", lines=["place thief 2B"])
    first = sorted(p.name for p in (tmp_path / "out").glob("table-*.png"))
    assert first == ["table-0001.png", "table-0002.png"]
    old = (tmp_path / "out" / "table-0002.png").read_bytes()
    out = console(tmp_path, lines=["pick rest", "image"]).stdout
    names = sorted(p.name for p in (tmp_path / "out").glob("table-*.png"))
    assert names[:2] == first and len(names) > 2 and "table-0003.png" in out
    assert (tmp_path / "out" / "table-0002.png").read_bytes() == old


# ---- every input gets an answer -------------------------------------------------------------

ODD_INPUTS: list[str | bytes] = [
    "",  # the prompt again
    "autosave on",
    "autosave off",
    "x" * 400,
    "🙂" * 5000,
    "🙂" * 50,
    "pick " + "🙂" * 200,
    b"\x1b[A",
    b"\x00\x7f",
    b"\xff\xfe not utf-8",
    "Zed: pick rest",
    ":",
    "P1:",
    "P1: " + "🙂" * 100,
    "P1:P1:",
    "undo",
    "legal P1",
    "\u200bstatus\ufeff",  # a copy and paste's invisible characters
    "ｓｔａｔｕｓ",
    "\t",
    "place thief 9Z",
    "dance",
    "pick",
]


@pytest.mark.process
def test_every_input_gets_a_short_answer(tmp_path: Path) -> None:
    lines: list[str | bytes] = []
    for k, text in enumerate(ODD_INPUTS):
        lines += [text, f"hand Zed{k}"]  # a marker whose answer names k
    out = console(tmp_path, "--seed", "6", lines=lines).stdout
    assert max(len(x) for x in out.splitlines()) < 400  # nothing typed is echoed whole
    chunks = re.split(r"! No player called 'Zed\d+'\. Players: P1\.\n", out)
    answers = dict(zip(ODD_INPUTS, chunks[:-1][:len(ODD_INPUTS)], strict=True))
    for text, answer in answers.items():
        assert answer.strip(), f"no answer to {text!r}"
    start = chunks[0].split("> P1")[0]
    assert "New game" in start
    assert "P1: autosave is on — in the Enemy phase" in answers["autosave on"]
    assert "P1: autosave is off." in answers["autosave off"]
    assert "too long (400 characters, at most 300)" in answers["x" * 400]
    assert "too long (5,000 characters" in answers["🙂" * 5000]
    assert "is neither a console command nor an action" in answers["🙂" * 50]
    assert "(50 characters)" in answers["🙂" * 50]
    assert "is not a command card" in answers["pick " + "🙂" * 200]
    # zero-width characters are not part of a command (the new-player audit: '?status')
    assert answers["\u200bstatus\ufeff"] == answers["ｓｔａｔｕｓ"]
    assert "control characters" in answers[b"\x1b[A"] and "control" in answers[b"\x00\x7f"]
    assert "neither a console command nor an action" in answers[b"\xff\xfe not utf-8"]
    assert "No player called 'Zed'. Players: P1." in answers["Zed: pick rest"]
    assert "Write a player's name before the colon" in answers[":"]
    assert "Write an action after P1:, e.g. 'P1: place" in answers["P1:"]
    assert "(100 characters)" in answers["P1: " + "🙂" * 100]
    assert answers["undo"].startswith("! ")  # the engine says why nothing can be undone
    assert "P1 may:" in answers["legal P1"] and "place Thief★ 1A/1B/1C/2A/2B/2C" in \
        answers["legal P1"]
    assert "> P1: Place one unit" in answers["ｓｔａｔｕｓ"] and "> P1" in answers[""]
    assert answers["place thief 9Z"].startswith("! ") and "9Z" in answers["place thief 9Z"]
    assert "'dance' is neither" in answers["dance"]


@pytest.mark.process
def test_pick_banana_is_not_a_command_card(tmp_path: Path) -> None:
    out = console(tmp_path, "--seed", "7", lines=["place thief 2B", "pick banana",
                                                  "pick rest"]).stdout
    line = next(x for x in out.splitlines() if x.startswith("!"))
    assert line.startswith("! 'banana' is not a command card. Choose one of: ")
    assert "Rest" in line
    assert "── Round 1 · after Rest ──" in out  # the refusal changed nothing


@pytest.mark.process
def test_a_command_card_named_alone_is_chosen(tmp_path: Path) -> None:
    """R6: the prompt lists the command cards by name, and a newcomer answers with one: a
    card alone, when it is the one thing asked, is the choice (it was "neither a console
    command nor an action"); `recruit` alone too, though it is also a verb."""
    out = console(tmp_path, "--seed", "7", lines=["place thief 2B", "Rest"]).stdout
    assert "neither" not in out and "── Round 1 · after Rest ──" in out
    out = console(tmp_path, "--seed", "7", "--lang", "ja", "--new",
                  lines=["配置 シーフ 2B", "募兵"]).stdout
    assert "P1が募兵を選択" in out and "!" not in out
    # a card named while something else is asked: what is asked now, not "neither …"
    out = console(tmp_path, "--seed", "7", "--new", lines=["Rest"]).stdout
    assert "! Now you place a unit from your hand on your home area" in out


@pytest.mark.process
def test_a_word_of_a_units_action_typed_first_is_shown_where_it_goes(tmp_path: Path) -> None:
    """R8: `attack 6A` (or `攻撃 6A`, `move 2B 3A`) begins no action; the answer shows a unit
    action the player could type now that uses the word, and `act 2B 4B` how a move is
    written, where they read "neither a console command nor an action". Nothing is played."""
    out = console(tmp_path, "--seed", "5", lines=[
        "place thief 2B", "advance", "attack 6A", "move 2B 3A", "act 2B 4B", "status"]).stdout
    told = [x for x in out.splitlines() if x.startswith("! ")]
    assert told[0].startswith("! 'attack' goes inside a unit's action, after its square: "
                              "e.g. 'act 2B to "), told
    assert " attack 6" in told[0] and "neither" not in out
    assert told[1].startswith("! 'move' goes inside a unit's action") and "'act 2B to " in told[1]
    assert told[2] == "! A move is written with 'to': 'act 2B to 4B'."
    assert "Advance: 2 unit actions left" in out.split(told[2])[1]  # nothing was played
    out = console(tmp_path, "--seed", "5", "--lang", "ja", "--new",
                  lines=["配置 シーフ 2B", "進撃", "攻撃 6A", "パス"]).stdout
    assert "! 「攻撃」はユニットの行動の中で、マスの後に書きます（例: 「行動 2B → " in out
    # another game's word for ending one's turn: the notation's, and nothing is played
    assert "! 「パス」ではなく、この場面（ユニットの行動、募兵、選択）を終えるには「完了」と" in out


@pytest.mark.process
def test_an_answer_kept_secret_until_the_others_answer_is_acknowledged(tmp_path: Path) -> None:
    """R7.1: mercenary choices are granted only when every player has chosen; the console
    still answers the first one at once."""
    for seed in range(30):
        g, lines = two_player_start(seed)
        leader = g.waiting_for()[0]
        g.apply(leader, "pick recruit")
        other = 1 - leader
        merc = [str(a) for a in g.legal_actions(other) if str(a).startswith("recruit merc")]
        if merc and g.decision(leader) is not None:
            break
    else:
        raise AssertionError("no seed in 0..29 gives a hidden mercenary choice")
    names = ["Ann", "Bob"]
    out = console(tmp_path, "--names", *names, "--seed", str(seed), lines=[
        *lines, f"{names[leader]}: pick recruit", f"{names[other]}: {merc[0]}"]).stdout
    answer = out.rstrip().splitlines()[-2]  # the last line is the goodbye
    assert answer == f"  {names[other]}: answer recorded. Still deciding: {names[leader]}."


# ---- Japanese -------------------------------------------------------------------------------

@pytest.mark.process
def test_japanese_throughout_with_full_width_input(tmp_path: Path) -> None:
    g, _ = two_player_start(8)
    out = console(tmp_path, "--names", "Ann", "Bob", "--seed", "8", "--lang", "ja", lines=[
        "ヘルプ",
        "place thief 2B",  # two players deciding: say so, in Japanese
        "Ａｎｎ：ｐｌａｃｅ　シーフ　２Ｂ",  # typed with a Japanese IME
        "ｂｏｂ： 配置 ｸﾚﾘｯｸ １ａ",  # the notation's Japanese verb (as shown to a Japanese reader)
        "合法手",
        "盤面",
        "手札 Ａｎｎ",
        "Bob: resign", "Bob: resign",
    ]).stdout
    assert out.startswith("新しいゲーム: Ann、Bob。")
    assert "コンソールのコマンド" in out
    assert "複数のプレイヤーが決定中です（Ann、Bob）" in out
    placed = out.split("── ラウンド1 · 初期配置の後 ──")[1]  # both full-width lines worked
    assert "Thi*" in placed.split("Bob:")[0] and "Cle*" in placed.split("Bob:")[1]
    assert "ができること:" in out and "選択 進撃/" in out
    assert "凡例: " in out and "コマンド列: " in out
    assert "Annの手札: ウォーリア★（2金）、クレリック★（1金）、ソーサラー★（3金）" in out
    assert "熟練AIの講評は review、ゲーム全体のアニメーションは recap、もう一度遊ぶには new" in out
    assert "入力が終わりました。" in out.splitlines()[-1] or "終わったゲーム" in out
    for english in ("Several players", " may:", "Game over", "New game", "Resuming",
                    "Images go", "[image]", "Round ", "hand:", "**", "`"):
        assert english not in out, english


@pytest.mark.process
def test_japanese_resume_and_goodbye(tmp_path: Path) -> None:
    console(tmp_path, "--lang", "ja", lines=["place thief 2B"])
    out = console(tmp_path, "--lang", "ja", "--names", "Ann", lines=["終了"]).stdout
    assert "の途中のゲームを再開します: P1、ラウンド1。" in out
    assert "指定したオプション（--names Ann）は使っていません" in out
    assert out.rstrip().splitlines()[-1].endswith("起動すると続きから再開します。")


@pytest.mark.process
def test_a_whole_japanese_two_player_game(tmp_path: Path) -> None:
    """A full game typed as `名前：行動` in full-width, to the end (R13 ends it)."""
    import random

    g = Game.new(["Ann", "Bob"], seed=31)
    rng = random.Random(31)
    lines = []
    for _ in range(3000):
        _auto(g)
        if g.over:
            break
        seat = rng.choice(g.waiting_for())
        act = str(rng.choice(g.legal_actions(seat)))
        name = ["Ａｎｎ", "ＢＯＢ"][seat]
        lines.append(f"{name}：{act.upper() if rng.random() < 0.3 else act}")
        g.apply(seat, act)
    assert g.over
    out = console(tmp_path, "--names", "Ann", "Bob", "--seed", "31", "--lang", "ja",
                  lines=[*lines, "終了"]).stdout
    assert "! " not in out, [x for x in out.splitlines() if x.startswith("!")][:3]
    assert "ゲーム終了" in out and "終わったゲームは" in out.splitlines()[-1]


def _auto(g: Game) -> None:
    """The service's trivial answers (it applies them itself; the script must not)."""
    for _ in range(200):
        trivial = [(s, a) for s in g.waiting_for() if (a := g.trivial_action(s)) is not None]
        if g.over or not trivial:
            return
        g.apply(*trivial[0])


def test_console_package_stands_beside_cogs() -> None:
    """Issue 11: the console is an interface (console/ beside cogs/); the service never
    imports it."""
    assert (ROOT / "console" / "__init__.py").exists()
    assert not (ROOT / "service" / "console.py").exists()
    for path in (ROOT / "service").glob("*.py"):
        assert not re.search(r"^\s*(from|import) console", path.read_text(), re.M), path
    assert os.path.exists(ROOT / "bot.py")


def test_a_failure_inside_the_game_is_one_line_and_the_console_goes_on(tmp_path: Path,
                                                                       monkeypatch) -> None:
    """An unexpected exception in the engine mid-answer: one line, the game as it was
    (stored and in memory), and the next line is played normally."""
    import asyncio
    import io

    from console.app import Console
    from console.options import Seat, Table
    from store import Store

    async def main() -> str:
        store = await Store(str(tmp_path / "c.db")).open()
        out = io.StringIO()
        try:
            con = Console(store, tmp_path / "out", "en", out, "c.db",
                          Table((Seat("Ann"),), None, 9))
            (tmp_path / "out").mkdir()
            await con.start(con.table)
            before = (await store.open_game(1)).state
            real = Game.apply

            def broken(self: Game, seat: int, action: object, *a: object, **k: object):
                self.state["players"][0]["gold"] = 99  # half-applied, then a bug
                raise KeyError("boom")

            monkeypatch.setattr(Game, "apply", broken)
            assert await con.handle("place thief 2B")
            monkeypatch.setattr(Game, "apply", real)
            assert (await store.open_game(1)).state == before
            assert await con.handle("hand")
            assert await con.handle("place thief 2B")
        finally:
            await store.close()
        return out.getvalue()

    text = asyncio.run(main())
    line = next(x for x in text.splitlines() if "went wrong" in x)
    assert line.startswith("! Something went wrong inside the game (KeyError: 'boom'); the "
                           "game is as it was before this line.")
    assert "Ann's hand: Warrior★ (2g), Cleric★ (1g), Sorcerer★ (3g), Thief★ (2g) · gold 2" \
        in text  # not the 99 gold the failure left in memory
    assert "── Round 1 · after the placement ──" in text


@pytest.mark.process
def test_board_off_is_kept_when_the_game_is_resumed(tmp_path: Path) -> None:
    """The fresh-machine audit: `board off` was forgotten on resume, and the compact board
    came back after every phase. The choice is kept with the game; `board on` brings it back
    the same way."""
    console(tmp_path, "--names", "Ann", "--seed", "1", lines=["board off"])
    quiet = console(tmp_path, lines=["status"]).stdout
    assert "Resuming the unfinished game" in quiet and "── Round" not in quiet, quiet
    console(tmp_path, lines=["new", "new"])  # a new game keeps the choice too
    quiet = console(tmp_path, lines=["status"]).stdout
    assert "── Round" not in quiet, quiet
    console(tmp_path, lines=["board on"])
    shown = console(tmp_path, lines=["status"]).stdout
    assert "── Round 0 · placement phase ──" in shown, shown


@pytest.mark.process
def test_board_off_is_kept_for_the_next_game_and_past_the_tutorial(tmp_path: Path) -> None:
    """The new-player audit: `board off` was kept only by the game it was typed in, while
    the language is kept for the next game too: after that game ended, the next run's new
    game (and `--new`) printed the board after every phase again, and so did a game
    returned to from `--tutorial`. The choice goes on like the language."""
    console(tmp_path, "--names", "Ann", "--seed", "1",
            lines=["board off", "Ann: resign", "Ann: resign"])  # solo: the game ends
    after_end = console(tmp_path, lines=["status"]).stdout
    assert "A new game starts." in after_end and "── Round" not in after_end, after_end
    anew = console(tmp_path, "--new", "--names", "Cy", lines=["status"]).stdout
    assert "New game: Cy." in anew and "── Round" not in anew, anew
    back = console(tmp_path, "--tutorial", lines=["leave", "Cy: place thief 2B"]).stdout
    back = back[back.index("You left the tutorial"):]
    assert "Cy placed Thief★ on 2B" in back and "── Round" not in back, back
