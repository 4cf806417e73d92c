"""Start-up options: who sits at the table, and what a start-up line may not combine.

The same parser reads the command line and the `new` command's options, so both refuse the
same mistakes with the same one line. A table is a list of `Seat`s, each with room for an
AI level, so AI seats can be added without touching the console loop's setup code.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

import ai

from .text import has_control, name_key, normalise

MAX_NAME = 24
DIFFICULTIES = ("easy", "normal", "hard")


class UsageError(Exception):
    """A start-up option mistake, told in one line (never argparse's usage block); `ja` is
    the Japanese for it when the console has one (argparse's own messages stay English)."""

    def __init__(self, message: str, ja: str | None = None) -> None:
        super().__init__(message)
        self.message, self.ja = message, ja

    def text(self, lang: str) -> str:
        if lang != "ja":
            return self.message
        return self.ja or f"起動オプションの誤り: {self.message}"


@dataclass(frozen=True, slots=True)
class Seat:
    name: str
    ai: str | None = None  # an AI level for `ai.make_player`; None: a person at this terminal


@dataclass(frozen=True, slots=True)
class Table:
    """What a new game is started with."""

    seats: tuple[Seat, ...]
    difficulty: str | None = None  # solo option rule (R13.2)
    seed: int | None = None

    @property
    def names(self) -> list[str]:
        """The people at this terminal (AI seats are named by the service when seated)."""
        return [s.name for s in self.seats if s.ai is None]

    @property
    def bots(self) -> list[str]:
        """The AI seats' levels, in seat order after the people."""
        return [s.ai for s in self.seats if s.ai is not None]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        raise UsageError(message or "")


def _count(text: str) -> int:
    try:
        n = int(normalise(text))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"a count (1 to 4), not {text[:20]!r}; give names with --names") from None
    if not 1 <= n <= 4:
        raise argparse.ArgumentTypeError(f"a game has 1 to 4 players (R1), not {n}")
    return n


def _seed(text: str) -> int:
    try:
        return int(normalise(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number, not {text[:20]!r}") from None


def table_parser(prog: str = "bot.py --console") -> argparse.ArgumentParser:
    """The table options shared by the command line and the `new` command."""
    ap = _Parser(prog=prog, add_help=False, allow_abbrev=False)
    ap.add_argument("--players", type=_count, help="number of players, 1 to 4 (default 1)")
    ap.add_argument("--names", nargs="+", metavar="NAME",
                    help="player names (sets the player count; default P1, P2, …)")
    ap.add_argument("--difficulty", type=lambda s: normalise(s).lower(),
                    help="solo only: easy, normal or hard (R13.2)")
    ap.add_argument("--ai", nargs="+", metavar="LEVEL", type=lambda s: normalise(s).lower(),
                    choices=list(ai.LEVELS),
                    help="AI players, one per level given, e.g. --ai greedy random "
                         f"(levels: {', '.join(ai.LEVELS)})")
    ap.add_argument("--seed", type=_seed, help="seed for a reproducible game")
    return ap


def check_name(name: str) -> str:
    """A player name, or a UsageError saying why it cannot be one."""
    if has_control(name) or not normalise(name):
        raise UsageError(f"a player name cannot be empty or hold control characters: "
                         f"{name[:20]!r}",
                         f"プレイヤー名は空にできず、制御文字も使えません: {name[:20]!r}")
    clean = normalise(name)
    if re.fullmatch(r"[+-]?\d+(?:[.,]\d+)?", clean):
        raise UsageError(f"{clean!r} looks like a number, not a name: --players takes the "
                         f"count, --names the names (e.g. --names Ann Bob)",
                         f"{clean!r} は名前ではなく数に見えます: 人数は --players、名前は "
                         f"--names で指定します（例: --names Ann Bob）")
    if ":" in clean:
        raise UsageError(f"a player name cannot contain ':' ({clean[:20]!r}): the console "
                         f"reads 'NAME: ACTION'",
                         f"プレイヤー名に ':' は使えません（{clean[:20]!r}）: "
                         f"コンソールは「名前: 行動」と読みます")
    if len(clean) > MAX_NAME:
        raise UsageError(f"a player name has at most {MAX_NAME} characters: {clean[:20]!r}…",
                         f"プレイヤー名は{MAX_NAME}文字までです: {clean[:20]!r}…")
    return clean


def table_from(ns: argparse.Namespace) -> Table:
    """Check the combination of table options; the defaults fill what was not given."""
    if ns.difficulty is not None and ns.difficulty not in DIFFICULTIES:
        raise UsageError(f"--difficulty is easy, normal or hard, not {ns.difficulty[:20]!r}",
                         f"--difficulty は easy・normal・hard のどれかです"
                         f"（{ns.difficulty[:20]!r} は使えません）")
    if ns.names:
        names = [check_name(n) for n in ns.names]
        if not 1 <= len(names) <= 4:
            raise UsageError(f"a game has 1 to 4 players (R1); --names gave {len(names)}",
                             f"プレイ人数は1〜4人です（R1）。--names に{len(names)}人あります")
        keys = [name_key(n) for n in names]
        if len(set(keys)) != len(keys):
            raise UsageError("player names must differ (case and width are ignored)",
                             "プレイヤー名は重複できません（大文字・小文字、全角・半角は区別しません）")
        if ns.players is not None and ns.players != len(names):
            raise UsageError(f"--players {ns.players} but {len(names)} name(s) in --names: "
                             f"give one or make them agree",
                             f"--players {ns.players} と --names の{len(names)}人が"
                             f"合いません: どちらか一方にするか、そろえてください")
    else:
        names = [f"P{k + 1}" for k in range(ns.players or 1)]
    bots = list(ns.ai or [])
    if bots and len(names) + len(bots) > 4:
        raise UsageError(f"a game has at most 4 players (R1): {len(names)} + {len(bots)} AI "
                         f"players is too many",
                         f"プレイ人数は4人までです（R1）: {len(names)}人＋AI{len(bots)}人は"
                         f"多すぎます")
    if bots and ns.difficulty is not None:
        raise UsageError("--difficulty is the solo option rule (R13.2): not with AI players",
                         "--difficulty はソロ用のルールです（R13.2）: AIプレイヤーとは"
                         "使えません")
    if ns.difficulty is not None and len(names) != 1:
        raise UsageError(f"--difficulty is the solo option rule (R13.2): use it with one "
                         f"player, not {len(names)}",
                         f"--difficulty はソロ用のルールです（R13.2）: 1人のときだけ使えます"
                         f"（{len(names)}人では使えません）")
    return Table(tuple([Seat(n) for n in names] + [Seat(f"AI {k + 1}", lv)
                                                   for k, lv in enumerate(bots)]),
                 ns.difficulty, ns.seed)


def given(ns: argparse.Namespace) -> list[str]:
    """The table options the user actually typed, as they would retype them."""
    out = []
    if ns.players is not None:
        out.append(f"--players {ns.players}")
    if ns.names:
        out.append("--names " + " ".join(ns.names))
    if ns.ai:
        out.append("--ai " + " ".join(ns.ai))
    if ns.difficulty is not None:
        out.append(f"--difficulty {ns.difficulty}")
    if ns.seed is not None:
        out.append(f"--seed {ns.seed}")
    return out


def parse_command_line(argv: list[str]) -> tuple[argparse.Namespace, Table]:
    """The console's whole command line; raises UsageError (one line) on any mistake."""
    ap = argparse.ArgumentParser(prog="bot.py --console", parents=[table_parser()],
                                 description="Play Rook & Raiders offline in the terminal.")
    ap.error = _Parser.error.__get__(ap)  # type: ignore[method-assign]
    ap.add_argument("--new", action="store_true",
                    help="abandon an unfinished game in --db and start a new one")
    ap.add_argument("--db", default="rr-console.db",
                    help="SQLite file (default rr-console.db) or a postgresql:// URL; an unfinished "
                    "game resumes")
    ap.add_argument("--out", default="console-out", help="folder for table images")
    ap.add_argument("--lang", default="en", choices=["en", "ja"])
    ns = ap.parse_args(argv)
    return ns, table_from(ns)


def parse_new(words: list[str]) -> Table | None:
    """The options of a typed `new` command; None: no options (keep the current table)."""
    if not words:
        return None
    return table_from(table_parser("new").parse_args(words))
