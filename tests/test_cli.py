"""The engine's command line (`python -m engine`), driven as a user would: in a subprocess.

Exit codes are the contract scripts rely on: 0 ok, 1 `replay --check` mismatch, 2 a refused
action or an unusable file, always with one line on stderr and never a traceback; a refused
action leaves the state file byte-identical.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Game, parse
from engine.cards import default_version
from engine.flow import RULES_VERSION
from engine.notation import MAX_COMMANDS

pytestmark = pytest.mark.process  # each test starts the console or CLI as a process

ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=60,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def refused(r: subprocess.CompletedProcess[str]) -> str:
    """An error exit: status 2, one line on stderr, no traceback. Returns the line."""
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    return lines[0]


@pytest.fixture
def game(tmp_path: Path) -> Path:
    r = cli("new", "--names", "Ann", "Bob", "--seed", "7", "-o", "g.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    return tmp_path / "g.json"


def test_new_writes_a_state(tmp_path: Path) -> None:
    r = cli("new", "--names", "Solo", "--seed", "3", "--difficulty", "hard", "--round-cap",
            "12", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    state = json.loads(r.stdout)
    assert state["setup"] == {"players": ["Solo"], "seed": 3,
                              "options": {"difficulty": "hard", "round_cap": 12},
                              "cards_version": default_version(),  # issue 17
                              "rules": RULES_VERSION}  # the rules' readings it is played under
    assert state["options"] == {"difficulty": "hard", "round_cap": 12}
    assert len(state["discard"]) == 6  # R13.2: hard discards 6 before the first reveal
    assert state["decisions"]["0"]["kind"] == "place"
    assert r.stdout == Game.new(["Solo"], 3, {"difficulty": "hard", "round_cap": 12}).to_json() \
        + "\n"


def test_new_refuses_bad_setups(tmp_path: Path) -> None:
    assert "1 to 4 players" in refused(cli("new", "--names", "A", "B", "C", "D", "E",
                                           cwd=tmp_path))
    assert "1 to 4 players" in refused(cli("new", "--players", "5", cwd=tmp_path))
    assert "R13.2" in refused(cli("new", "--names", "A", "B", "--difficulty", "easy",
                                  cwd=tmp_path))


def test_new_players_is_a_count_as_in_the_console(tmp_path: Path) -> None:
    """`--players N` is a count (the console's meaning), with default names P1…; `--names`
    gives names and, alone, the count."""
    r = cli("new", "--players", "2", "--seed", "4", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["setup"]["players"] == ["P1", "P2"]
    r = cli("new", "--players", "3", "--names", "Ann", "Bob", "Cid", "--seed", "4", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["setup"]["players"] == ["Ann", "Bob", "Cid"]
    r = cli("new", "--seed", "4", cwd=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)["setup"]["players"] == ["P1"]


def test_new_refuses_names_that_look_like_a_count(tmp_path: Path) -> None:
    """`--names 2` (or the old `--players Ann Bob`) is refused with one line saying what to
    type instead; nothing is written."""
    assert "not a number" in refused(cli("new", "--names", "2", cwd=tmp_path))
    assert "not a number" in refused(cli("new", "--names", "Ann", "２", cwd=tmp_path))
    assert "--names Ann Bob" in refused(cli("new", "--players", "Ann", "Bob", cwd=tmp_path))
    assert "one name per player" in refused(cli("new", "--players", "3", "--names", "A", "B",
                                                "-o", "g.json", cwd=tmp_path))
    assert not (tmp_path / "g.json").exists()


def test_show_draws_the_board_from_a_view(game: Path) -> None:
    state = json.loads(game.read_text())
    r = cli("show", str(game), cwd=game.parent)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    # R2: columns 6 (magic circles) .. 1 left to right, castle on the right
    assert "| 6 magic 5       4       3       2 home  1 home  | castle" in out
    assert "Ann (seat 0)" in out and "Bob (seat 1)" in out
    assert "viewed by a spectator" in out
    for c in state["unit_deck"] + state["monster_deck"]:  # secrets never printed
        assert c["id"] not in out
    mine = cli("show", str(game), "--seat", "1", cwd=game.parent)
    assert mine.returncode == 0, mine.stderr
    bob = next(line for line in mine.stdout.splitlines() if line.startswith("Bob (seat 1)"))
    assert "you]" in bob and "medals" in bob
    assert "place a unit" in mine.stdout


def test_legal_lists_parseable_answers(game: Path) -> None:
    r = cli("legal", str(game), "--seat", "0", cwd=game.parent)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "place thief_star 2B" in lines
    assert all(str(parse(line)) == line for line in lines)
    assert len(lines) == len(Game.from_json(game.read_text()).legal_actions(0))


def test_apply_then_legal_for_the_next_seat(game: Path) -> None:
    d = game.parent
    r = cli("apply", str(game), "--seat", "0", "place thief 2B", "--in-place", cwd=d)
    assert r.returncode == 0, r.stderr
    r = cli("apply", str(game), "--seat", "1", "place ウォーリア★ 2a", "-o", "g2.json", cwd=d)
    assert r.returncode == 0, r.stderr
    state = json.loads((d / "g2.json").read_text())
    assert state["log"] == [[0, "place thief_star 2B"], [1, "place warrior_star 2A"]]
    start = state["start_player"]
    r = cli("legal", "g2.json", "--seat", str(start), cwd=d)
    assert r.stdout.split("\n")[0].startswith("pick ")
    other = cli("legal", "g2.json", "--seat", str(1 - start), cwd=d)
    assert other.returncode == 0 and other.stdout == "" and "nothing to decide" in other.stderr
    # several answers at once, state on stdout
    r = cli("apply", "g2.json", "--seat", str(start), "pick reward", cwd=d)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["log"][-1] == [start, "pick reward"]


def test_apply_refuses_an_illegal_action_and_keeps_the_file(game: Path) -> None:
    d = game.parent
    before = game.read_bytes()
    line = refused(cli("apply", str(game), "--seat", "0", "place thief 2B", "place thief 6A",
                       "--in-place", cwd=d))
    assert "nothing to decide" in line or "place thief 6A" in line
    assert game.read_bytes() == before
    line = refused(cli("apply", str(game), "--seat", "0", "place thief 3B", "-o", "out.json",
                       cwd=d))
    assert "home area" in line and "R2" in line
    assert not (d / "out.json").exists() and game.read_bytes() == before
    assert "not a square" in refused(cli("apply", str(game), "--seat", "0", "place thief 9Z",
                                         cwd=d))
    assert "Unknown action" in refused(cli("apply", str(game), "--seat", "0", "dance",
                                           cwd=d))
    assert "out of date" in refused(cli("apply", str(game), "--seat", "0", "--decision", "0",
                                        "place thief 2B", cwd=d))
    assert "seats 0..1" in refused(cli("apply", str(game), "--seat", "5", "done", cwd=d))
    assert game.read_bytes() == before


def test_apply_stale_decision(game: Path) -> None:
    line = refused(cli("apply", str(game), "--seat", "1", "--decision", "1", "place thief 2B",
                       cwd=game.parent))
    assert "out of date" in line  # seat 1's decision has id 2: id 1 is another prompt


def test_replay_reproduces_a_random_game(tmp_path: Path) -> None:
    rng = random.Random(4)
    g = Game.new(["Ann", "Bob", "Cid"], seed=21)
    while not g.over:
        seat = rng.choice(g.waiting_for())
        g.apply(seat, rng.choice(g.legal_actions(seat)))
    (tmp_path / "g.json").write_text(g.to_json())
    (tmp_path / "setup.json").write_text(json.dumps(g.state["setup"]))
    (tmp_path / "log.json").write_text(json.dumps(g.state["log"]))
    r = cli("replay", "setup.json", "log.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == g.to_json() + "\n"
    r = cli("replay", "g.json", "--check", cwd=tmp_path)
    assert r.returncode == 0 and "matches" in r.stderr
    # a different final state: exit 1
    g.state["players"][0]["gold"] += 1
    (tmp_path / "other.json").write_text(g.to_json())
    r = cli("replay", "setup.json", "log.json", "--check", "other.json", cwd=tmp_path)
    assert r.returncode == 1 and "differs" in r.stderr


def test_replay_reports_a_bad_log_entry(tmp_path: Path) -> None:
    (tmp_path / "setup.json").write_text(json.dumps({"players": ["A", "B"], "seed": 1}))
    (tmp_path / "log.json").write_text(json.dumps([[0, "place thief 2B"], [1, "pick raid"]]))
    line = refused(cli("replay", "setup.json", "log.json", cwd=tmp_path))
    assert "log entry 1" in line


def test_bad_files_are_one_line_errors(tmp_path: Path) -> None:
    (tmp_path / "text.json").write_text("not json")
    (tmp_path / "obj.json").write_text('{"hello": 1}')
    (tmp_path / "broken.json").write_text('{"players": [1, 2]}')
    assert "cannot read" in refused(cli("show", "missing.json", cwd=tmp_path))
    assert "not JSON" in refused(cli("legal", "text.json", "--seat", "0", cwd=tmp_path))
    assert "not a game state" in refused(cli("apply", "obj.json", "--seat", "0", "done",
                                             cwd=tmp_path))
    assert "not a valid game state" in refused(cli("show", "broken.json", cwd=tmp_path))
    assert "log" in refused(cli("replay", "obj.json", cwd=tmp_path))
    weird = json.loads(Game.new(["A", "B"], seed=2).to_json())
    weird["players"][0]["board"][3] = {"id": "u0", "card": "nope", "owner": 0, "dmg": 0,
                                       "acted": False}
    (tmp_path / "weird.json").write_text(json.dumps(weird))
    assert "inconsistent" in refused(cli("show", "weird.json", cwd=tmp_path))


def test_deep_and_huge_input_are_one_line_errors(game: Path) -> None:
    """Issue 8: a `command` chain a thousand levels deep used to raise RecursionError (exit 1,
    a traceback); issue 7: a bad token of 5,000 emoji was quoted whole (a 20 KB line). Now
    both are a short line and exit 2, and the file is untouched."""
    d = game.parent
    before = game.read_bytes()
    deep = "act 2B " + "command 2A " * 1000 + "attack 5B"
    line = refused(cli("apply", str(game), "--seat", "0", deep, cwd=d))
    assert "nested commands" in line and f"at most {MAX_COMMANDS}" in line
    assert len(line) < 300
    emoji = "🐉" * 5000
    for text in (emoji, f"place thief {emoji}", f"place {emoji} 2B", f"act 2B to 3B {emoji}",
                 f"act 2B to 3B attack 5B {emoji}"):
        line = refused(cli("apply", str(game), "--seat", "0", text, cwd=d))
        assert "🐉" in line and len(line) < 300, (text[:20], len(line))
    assert game.read_bytes() == before


def test_deeply_nested_json_files_are_one_line_errors(tmp_path: Path) -> None:
    """A file nested deeper than Python recurses (as JSON, or inside a state's values) is
    refused with one line, never a RecursionError traceback."""
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    assert "nested too deeply" in refused(cli("show", "deep.json", cwd=tmp_path))
    name = "[" * 900 + "]" * 900  # JSON decodes it; copying it into a game does not
    (tmp_path / "nested.json").write_text('{"players": [{"name": ' + name + "}]}")
    line = refused(cli("show", "nested.json", cwd=tmp_path))
    assert "not a valid game state" in line and len(line) < 300
