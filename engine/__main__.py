"""Command line for the engine: play, inspect and replay games stored as JSON files.

    python -m engine new --players 2 [--names Ann Bob] --seed 7 [--difficulty normal]
                         [--round-cap 30] > g.json
    python -m engine show g.json [--seat 0]
    python -m engine legal g.json --seat 0
    python -m engine apply g.json --seat 0 "pick advance" ["act 2B to 4B attack 6B" ...]
                           [-o out.json | --in-place] [--decision ID]
    python -m engine replay setup.json log.json      # or: replay g.json [--check] (a puzzle too)

States are docs/state.md JSON, actions are docs/notation.md text. Scripts rely on the exit
codes: 0 ok, 1 `replay --check` found a difference, 2 a refused action or an unusable file
or argument (one line on stderr, never a traceback). A refused action leaves every file as
it was: nothing is written until all the given actions have been accepted.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import tempfile
from pathlib import Path
from typing import Any

from .errors import ActionError, excerpt
from .game import Game
from .state import DIFFICULTY_DISCARDS
from .textboard import render


class CliError(ActionError):
    """A problem the user can fix: printed as one line, exit status 2 (English only)."""

    code = "usage"

    def __init__(self, message: str) -> None:
        super().__init__("", message)


# ---- files --------------------------------------------------------------------------------------

def _read_json(path: str) -> Any:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise CliError(f"{path}: cannot read ({e.strerror or e})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise CliError(f"{path}: not JSON ({e.msg} at line {e.lineno})") from None
    except RecursionError:  # `[[[[…` nested deeper than Python recurses
        raise CliError(f"{path}: JSON nested too deeply to be a game file") from None


def _load(path: str) -> Game:
    data = _read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("players"), list):
        raise CliError(f"{path}: not a game state (docs/state.md): no 'players' list")
    try:
        g = Game.from_json(data)
        g.to_json()
        g.waiting_for()
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as e:
        raise CliError(f"{path}: not a valid game state ({_why(e)})") from None
    return g


def _why(e: Exception) -> str:
    """An exception in a few words: its type and the start of its text (a hand-edited file
    can put anything in a key that ends up in the message)."""
    return f"{type(e).__name__}: {excerpt(str(e), 80)}"


def _write(path: str, text: str) -> None:
    """Write atomically: a reader (or a crash) never sees half a file."""
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.",
                                   suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except OSError as e:
        raise CliError(f"{path}: cannot write ({e.strerror or e})") from None


def _emit(g: Game, out: str | None) -> None:
    text = g.to_json() + "\n"
    if out:
        _write(out, text)
    else:
        sys.stdout.write(text)


def _seat(g: Game, seat: int | None, required: bool = True) -> int | None:
    if seat is None:
        if required:
            raise CliError("give --seat N (0 = first player)")
        return None
    n = len(g.state["players"])
    if not 0 <= seat < n:
        raise CliError(f"--seat {seat}: this game has seats 0..{n - 1}")
    return seat


def _names(g: Game, seats: list[int]) -> str:
    return ", ".join(f"{g.state['players'][s]['name']} (seat {s})" for s in seats) or "nobody"


# ---- subcommands ------------------------------------------------------------------------------

DEFAULT_NAMES = ("P1", "P2", "P3", "P4")  # what the console calls players it was not told


def _players(a: argparse.Namespace) -> list[str]:
    """`--players N` is a count, as in the console; `--names` gives the names (and, alone,
    the count). A name made of digits is refused: `--names 2` almost surely meant a count,
    and a player called '2' makes seats and names impossible to tell apart."""
    count: int | None = None
    if a.players is not None:
        if len(a.players) != 1 or not a.players[0].isdecimal():
            raise CliError("--players takes a count (1 to 4); give names with --names, e.g. "
                           f"--names {' '.join(excerpt(x, 20) for x in a.players[:4])}")
        count = int(a.players[0])
        if not 1 <= count <= 4:
            raise CliError(f"--players {count}: Rook & Raiders is for 1 to 4 players (R1)")
    names = a.names
    if names is None:
        return list(DEFAULT_NAMES[:count or 1])
    for name in names:
        if name.strip().isdecimal():
            raise CliError(f"--names {excerpt(name, 20)}: a name, not a number (for a count "
                           "of players use --players N)")
        if not name.strip():
            raise CliError("--names: a name cannot be empty")
    if not 1 <= len(names) <= 4:
        raise CliError(f"--names: Rook & Raiders is for 1 to 4 players (R1), not {len(names)}")
    if count is not None and count != len(names):
        raise CliError(f"--players {count} but {len(names)} names: give one name per player")
    return list(names)


def cmd_new(a: argparse.Namespace) -> int:
    players = _players(a)
    options: dict[str, Any] = {"round_cap": a.round_cap}
    if a.difficulty:
        options["difficulty"] = a.difficulty
    cards = _read_json(a.cards) if a.cards else None
    seed = a.seed if a.seed is not None else secrets.randbits(31)
    try:
        g = Game.new(players, seed=seed, options=options, cards_data=cards)
    except (ValueError, KeyError, TypeError) as e:
        raise CliError(str(e) if isinstance(e, ValueError) else
                       f"{a.cards}: not a card set ({_why(e)})") from None
    _emit(g, a.output)
    return 0


def cmd_show(a: argparse.Namespace) -> int:
    g = _load(a.state)
    seat = _seat(g, a.seat, required=False)
    sys.stdout.write(render(g.cards, g.view(seat)))
    return 0


def cmd_legal(a: argparse.Namespace) -> int:
    g = _load(a.state)
    seat = _seat(g, a.seat)
    assert seat is not None
    if g.over:
        print("The game is over.", file=sys.stderr)
        return 0
    if g.decision(seat) is None:
        print(f"{_names(g, [seat])} has nothing to decide now; waiting for "
              f"{_names(g, g.waiting_for())}.", file=sys.stderr)
        return 0
    for action in g.legal_actions(seat):
        print(action)
    return 0


def cmd_apply(a: argparse.Namespace) -> int:
    if a.output and a.in_place:
        raise CliError("use either -o FILE or --in-place, not both")
    g = _load(a.state)
    seat = _seat(g, a.seat)
    assert seat is not None
    if not a.actions:
        raise CliError("give at least one action, e.g. \"pick advance\"")
    for k, text in enumerate(a.actions):
        try:
            g.apply(seat, text, a.decision if k == 0 else None)
        except ActionError as e:
            where = f" (action {k + 1} of {len(a.actions)}, nothing saved)" if k else ""
            raise CliError(f"{excerpt(text, 60)}: {e.message}{where}") from None
    _emit(g, a.state if a.in_place else a.output)
    if a.in_place or a.output:
        state = "game over" if g.over else f"waiting for {_names(g, g.waiting_for())}"
        print(f"applied {len(a.actions)} action(s); {state}", file=sys.stderr)
    return 0


def cmd_replay(a: argparse.Namespace) -> int:
    setup, log = _setup_and_log(a)
    g = _replay(a, setup, log)
    check = a.check
    if check is True:
        if a.log is not None:
            raise CliError("with a separate log file, give the state to compare: --check FILE")
        check = a.setup
    if check:
        expected = _load(check).to_json()
        if expected != g.to_json():
            print(f"replay differs from {check}", file=sys.stderr)
            return 1
        print(f"replay matches {check} ({len(log)} actions)", file=sys.stderr)
        return 0
    _emit(g, a.output)
    return 0


def _setup_and_log(a: argparse.Namespace) -> tuple[dict[str, Any], list[list[Any]]]:
    """The setup and log to replay: from a whole state, or a setup file plus a log file."""
    first = _read_json(a.setup)
    if not isinstance(first, dict):
        raise CliError(f"{a.setup}: expected a setup object or a game state")
    players = first.get("players")
    if "setup" in first or (isinstance(players, list)
                            and any(isinstance(p, dict) for p in players)):
        # A whole state, a puzzle included: its setup and log as loading completes them (a
        # puzzle's starting position and cards, the card set version of a game saved before
        # versions), so it replays exactly as it loads (R15).
        whole = _load(a.setup)
        setup: Any = whole.setup
        log: Any = whole.log
    elif a.log is None:
        raise CliError(f"{a.setup}: a game state with a 'log' (or give setup and log)")
    else:
        setup = first
    if a.log is not None:
        log = _read_json(a.log)
        if isinstance(log, dict):
            log = log.get("log")
    if not isinstance(setup, dict) or not isinstance(setup.get("players"), list):
        raise CliError(f"{a.setup}: no setup with a 'players' list")
    if not isinstance(log, list) or not all(
            isinstance(e, list) and len(e) == 2 and isinstance(e[1], str) for e in log):
        raise CliError(f"{a.log or a.setup}: the log must be a list of [seat, \"action\"]")
    return setup, log


def _replay(a: argparse.Namespace, setup: dict[str, Any], log: list[list[Any]]) -> Game:
    """Setup plus log, each refusal named with the log entry it comes from (R15)."""
    try:
        g = Game.start(setup)  # a puzzle from its own position, with its own cards (R15)
    except (ValueError, KeyError, TypeError) as e:
        raise CliError(f"{a.setup}: bad setup ({excerpt(str(e), 80)})") from None
    for k, (seat, text) in enumerate(log):
        try:
            g.apply(int(seat), text)
        except ActionError as e:
            raise CliError(f"log entry {k} (seat {seat}: {excerpt(text, 60)!r}): "
                           f"{e.message}") from None
        except (ValueError, TypeError):
            raise CliError(f"log entry {k}: bad seat {excerpt(repr(seat), 20)}") from None
    return g


# ---- arguments -------------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m engine",
                                description="Rook & Raiders rules engine (docs/notation.md).")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("new", help="start a game: state JSON on stdout")
    s.add_argument("--players", nargs="+", metavar="N",
                   help="how many players, 1 to 4 (default: as many as --names, else 1)")
    s.add_argument("--names", nargs="+", metavar="NAME",
                   help="the players' names in seat order (default: P1, P2, …)")
    s.add_argument("--seed", type=int, help="seed of every random draw (default: random)")
    s.add_argument("--difficulty", choices=tuple(DIFFICULTY_DISCARDS),
                   help="solo option rule (R13.2), 1 player only")
    s.add_argument("--round-cap", type=int, default=30, help="rounds before the game ends (R15)")
    s.add_argument("--cards", metavar="FILE", help="card set JSON (engine/data/cards.json form)")
    s.add_argument("-o", "--output", metavar="FILE", help="write the state here")
    s.set_defaults(func=cmd_new)

    s = sub.add_parser("show", help="the table as text (a player's or a spectator's view)")
    s.add_argument("state")
    s.add_argument("--seat", type=int, help="whose view (default: a spectator's)")
    s.set_defaults(func=cmd_show)

    s = sub.add_parser("legal", help="every answer SEAT may give now, one per line")
    s.add_argument("state")
    s.add_argument("--seat", type=int, required=True)
    s.set_defaults(func=cmd_legal)

    s = sub.add_parser("apply", help="apply actions of one seat; exit 2 if one is refused")
    s.add_argument("state")
    s.add_argument("actions", nargs="*", metavar="ACTION")
    s.add_argument("--seat", type=int, required=True)
    s.add_argument("--decision", type=int, metavar="ID",
                   help="the decision id the first action answers (refused if stale)")
    s.add_argument("-o", "--output", metavar="FILE", help="write the new state here")
    s.add_argument("--in-place", action="store_true", help="overwrite the state file")
    s.set_defaults(func=cmd_apply)

    s = sub.add_parser("replay", help="setup + log -> final state (R15)")
    s.add_argument("setup", help="setup JSON, or a game state (its setup and log are used)")
    s.add_argument("log", nargs="?", help="log JSON: [[seat, \"action\"], ...]")
    s.add_argument("--check", nargs="?", const=True, metavar="FILE",
                   help="compare with the state file instead of printing; exit 1 if different")
    s.add_argument("-o", "--output", metavar="FILE", help="write the final state here")
    s.set_defaults(func=cmd_replay)
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    # Actions may come after options (`apply g.json --seat 0 "pick advance"`), which plain
    # argparse cannot take for a `*` positional: collect the leftovers as actions, in order.
    args, extra = p.parse_known_args(argv)
    if extra:
        if args.command != "apply" or any(x.startswith("-") for x in extra):
            p.error(f"unrecognized arguments: {' '.join(extra)}")
        args.actions = [*args.actions, *extra]
    try:
        return int(args.func(args))
    except CliError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, RecursionError) as e:
        # A hand-edited state can pass loading and still name a card or square that does
        # not exist; the user gets one line, not a traceback.
        print(f"error: the game state is inconsistent ({_why(e)})", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `... | head`: not an error worth a traceback
        return 0


if __name__ == "__main__":
    sys.exit(main())
