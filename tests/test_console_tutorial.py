"""The tutorial in the console (issue 23): `--tutorial` and the `tutorial` command, through a
real `bot.py --console` process over pipes — a step's words, board, numbered choices and
image; a wrong answer explained; the place kept in --db across a quit; leaving back to the
game; Japanese."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_console import console

import i18n
from cogs.tutorial import screen_text
from service.tutorial import judge, lesson_index

pytestmark = pytest.mark.process  # each test starts the console or CLI as a process


def test_tutorial_flag_plays_explains_and_resumes_after_a_restart(tmp_path: Path) -> None:
    first = console(tmp_path, "--tutorial", lines=["place warrior 2B", "place thief 5B", "3",
                                                   "1"])
    out = first.stdout
    assert "lesson 1/9: Placement (R2, R4) · step 1/1" in out
    assert "  1. place Thief★ 2B" in out and "  3. place Thief★ 3B" in out
    # any other answer gets its short explanation, not a refusal, and the step stays
    assert "💡 Not this time: The Warrior★ moves only 1 square" in out
    assert "💡 Not this time: 3B is outside your home area: units are placed only on " \
           "columns 1–2 (R2)." in out
    # an answer the step has no words for: the rule it breaks, then what the step asks
    assert "💡 Not this time: Units are placed only on your home area, columns 1–2 (1A–2C), " \
           "not 5B (R2, R7.1). Here the lesson asks for one placement" in out
    assert out.count("✅ Well done.") == 1 and "Lesson complete: Placement" in out
    assert (tmp_path / "out" / "tutorial-1-1.png").read_bytes()[:4] == b"\x89PNG"
    # end of input inside the tutorial: where the place is kept
    assert out.rstrip().splitlines()[-1].endswith("--tutorial resumes it.")
    again = console(tmp_path, "--tutorial", lines=["skip", "pick reward", "pick advance"])
    assert "Welcome back" in again.stdout
    assert "lesson 1/9: Placement (R2, R4) · done" in again.stdout  # where it was left
    assert "lesson 2/9: Command cards and the LEADER (R5, R6, R7) · step 1/3" in again.stdout
    assert "💡 Not this time: Reward gives its LEADER 4 gold" in again.stdout
    assert "· step 2/3" in again.stdout
    # the learner is "You": the narration reads in any person (the second learning audit:
    # "You chose Advance and leads it.")
    assert "You chose Advance (LEADER: its large effect)." in again.stdout, again.stdout


def test_a_named_answer_is_the_learners_in_the_tutorial(tmp_path: Path) -> None:
    """The second new-player audit: in a 2-player game's tutorial, `Ann: place thief 2B` (the
    form the game had taught) was an unknown action 'Ann:' and a wrong answer."""
    out = console(tmp_path, "--names", "Ann", "Bob",
                  lines=["tutorial", "Ann: place thief 2B", "leave"]).stdout
    assert "✅ Well done." in out and "Not this time" not in out, out


def test_tutorial_command_leaves_a_game_waiting_and_leave_comes_back(tmp_path: Path) -> None:
    r = console(tmp_path, "--names", "Ann", "Bob", "--seed", "3",
                lines=["tutorial", "help", "restart", "lesson 12", "lesson 9", "2", "leave",
                       "status", "help"])
    out = r.stdout
    assert "Welcome to Rook & Raiders! Nine short lessons" in out
    # help in the tutorial lists the tutorial's own moves, not the game's commands
    learning = out[out.index("In the tutorial:"):out.index("You left the tutorial")]
    assert "lesson N" in learning and "leave" in learning and "undo NAME" not in learning
    assert "skip or next" in learning  # the word a finished lesson offers ("Type next")
    # and the line under every step names it too (it said only skip: the new-player audit)
    assert "Type a number or the action; next or skip (the next lesson), restart, lesson N, " \
        "leave." in out
    assert "undo NAME" in out[out.index("You left the tutorial"):]  # back in the game
    assert "Give a lesson number from 1 to 9, e.g. lesson 3." in out
    assert "lesson 9/9: Winning and losing" in out and "You finished the last lesson" in out
    # the ending says how a game starts HERE, not with a Discord command, and offers no
    # next lesson after the last
    ending = out[out.index("You finished the last lesson"):out.index("You left the tutorial")]
    assert "/rr" not in ending and "then new for a solo game" in ending
    assert "Type next" not in ending
    tail = out[out.index("You left the tutorial"):]
    assert "Ann" in tail and "Bob" in tail  # back in the game, which waited
    assert "No game in progress" not in tail


def test_tutorial_flag_over_a_waiting_game_leaves_back_to_it(tmp_path: Path) -> None:
    """`--tutorial` on a database whose game waits: `leave` shows that game, its players
    named (it used to fail with an internal error, the players never read)."""
    console(tmp_path, "--names", "Ann", "Bob", "--seed", "3", lines=["quit"])
    r = console(tmp_path, "--tutorial", lines=["leave", "status"])
    tail = r.stdout[r.stdout.index("You left the tutorial"):]
    assert "Ann" in tail and "Bob" in tail, tail
    assert "went wrong" not in r.stdout and "Error" not in r.stdout


def test_tutorial_alone_then_no_game_says_how_to_start_one(tmp_path: Path) -> None:
    """Leaving the tutorial on a fresh database: a game command says how a game starts
    here (not "in this channel"), and the goodbye mentions no finished game."""
    out = console(tmp_path, "--tutorial", lines=["leave", "board", "quit"]).stdout
    assert "! There is no game here. Start one with 'new'." in out
    assert "channel" not in out and "finished game" not in out
    assert out.rstrip().splitlines()[-1].startswith("Bye. No game was started in ")


def test_game_commands_and_numbers_out_of_range_are_not_wrong_answers(tmp_path: Path) -> None:
    """A console command about a game, typed in a lesson, is told it belongs to a game (not
    judged a wrong move), and a choice number that is not on the list asks for one that is."""
    out = console(tmp_path, "--tutorial", lines=["board", "hint", "new", "4", "0"]).stdout
    assert out.count("is for a game, not the tutorial") == 3, out
    assert out.count("! Choose a number from 1 to 3, or type the action.") == 2
    assert "Not this time" not in out


def test_game_options_with_the_tutorial_wait_for_new(tmp_path: Path) -> None:
    """`--tutorial --names Zed --difficulty hard`: said to be kept, and `new` after the
    tutorial uses them (they were dropped without a word)."""
    out = console(tmp_path, "--tutorial", "--names", "Zed", "--difficulty", "hard",
                  lines=["leave", "new"]).stdout
    assert "The tutorial comes first; --names Zed --difficulty hard will be used by new" in out
    assert "New game: Zed (solo, hard)" in out


def test_an_accepted_answer_is_told_as_a_games_story(tmp_path: Path) -> None:
    """A lesson's outcome in words, not only in the image: the roll that missed (R8.2), the
    Skeleton defeated and the honor mark it gave (R12) — in the console and in Discord."""
    out = console(tmp_path, "--tutorial", lines=["lesson 4", "act 2B to 4B attack 6B",
                                                 "act 5A to 5B attack 6B"]).stdout
    assert "  You: Thief★ on 4B attacks Skeleton on 6B: 2+2+0 = 4 vs DEF 7: below DEF, 1 damage." in out
    assert "  You defeated the Skeleton on 6B (+1 honor mark)." in out
    lesson = lesson_index("dice")
    done = judge(lesson, 1, "act 5A to 5B attack 6B", "en")
    assert done.accepted
    text = screen_text(done.screen, "en", "✅ Well done.")
    assert "You defeated the Skeleton on 6B (+1 honor mark)." in text
    assert text.index("✅ Well done.") < text.index("defeated") < text.index(done.screen.text)


def test_tutorial_in_japanese(tmp_path: Path) -> None:
    r = console(tmp_path, "--tutorial", "--lang", "ja", lines=["2", "place シーフ 2B"])
    out = r.stdout
    assert "レッスン1/9: 初期配置（R2、R4）" in out
    assert "  1. 配置 シーフ★ 2B" in out
    assert "💡 今回は違います: " + i18n.t("ja", "tutorial.placement.1.warrior") in out
    assert "✅ よくできました。" in out
    assert "  あなた: 金2" in out and "You" not in out  # the learner's seat, in Japanese
    assert out.rstrip().splitlines()[-1].endswith("--tutorialで再開できます。")
    assert "next / skip（次のレッスン）" in out  # the word a finished lesson offers (next)


def test_a_japanese_explanation_joins_its_sentences_as_japanese_does(tmp_path: Path) -> None:
    """The console audit: a refusal and the step's explanation were joined by an ASCII
    space after 。 (「…降参。 このレッスンは…」)."""
    out = console(tmp_path, "--names", "花子", "--lang", "ja",
                  lines=["tutorial", "lesson 2", "ほげ"]).stdout
    line = next(x for x in out.splitlines() if "「ほげ」" in x)
    assert "。このレッスンは" in line and "。 " not in line, line
