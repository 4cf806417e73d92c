"""Start-up options: who sits at the table, and what a start-up line may not combine.

The same parser reads the command line and the `new` command's options, so both refuse the
same mistakes with the same one line. A table is a list of `Seat`s, each with room for an
AI level, so AI seats can be added without touching the console loop's setup code.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import re
import time
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypedDict

import ai
import i18n
from engine import ActionError
from service import daily
from service.levels import SOLO_LEVELS

from .text import has_control, name_key, normalise

MAX_NAME = 24
DIFFICULTIES = tuple(SOLO_LEVELS)  # R13.2 and the top level, service/levels.py


class UsageError(ActionError):
    """A start-up option mistake, told in one line (never argparse's usage block): a
    catalogue entry `usage.<code>` with its parameters, worded in the reader's language when
    told; or argparse's own message, which comes in the language it was parsed in (see
    `argparse_speaks`) and is told under the catalogue's `usage.prefix`. A refusal like any
    other (issue 21: one root), worded by `text`."""

    code = "usage"

    def __init__(self, message: str, msgid: str | None = None,
                 params: dict[str, Any] | None = None) -> None:
        super().__init__("", message)
        self.msgid, self.params = msgid, params or {}

    @classmethod
    def of(cls, code: str, /, **params: Any) -> UsageError:
        """A mistake the console names itself: `usage.<code>`."""
        mid = f"usage.{code}"
        return cls(_usage(i18n.DEFAULT, mid, params), mid, params)

    def text(self, lang: str) -> str:
        if self.msgid is None:
            return i18n.t(lang, "usage.prefix", message=self.message)
        return _usage(lang, self.msgid, self.params)


def _usage(lang: str, mid: str, params: dict[str, Any]) -> str:
    if "n" in params and i18n.is_plural(mid):
        rest = {k: v for k, v in params.items() if k != "n"}
        return i18n.tn(lang, mid, params["n"], **rest)
    return i18n.t(lang, mid, **params)


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
    daily: daily.Challenge | None = None  # a past daily challenge, from its published key

    @property
    def names(self) -> list[str]:
        """The people at this terminal (AI seats are named by the service when seated)."""
        return [s.name for s in self.seats if s.ai is None]

    @property
    def bots(self) -> list[str]:
        """The AI seats' levels, in seat order after the people."""
        return [s.ai for s in self.seats if s.ai is not None]


# argparse's own messages (Python 3.11's wording, asked of gettext) → the catalogue's ids.
ARGPARSE_WORDS = {
    "unrecognized arguments: %s": "argparse.unrecognized",
    "argument %(argument_name)s: %(message)s": "argparse.argument",
    "expected one argument": "argparse.one",
    "expected at most one argument": "argparse.at_most_one",
    "expected at least one argument": "argparse.at_least_one",
    "expected %s argument": "argparse.n",
    "expected %s arguments": "argparse.n",
    "invalid choice: %(value)r (choose from %(choices)s)": "argparse.choice",
    "invalid %(type)s value: %(value)r": "argparse.value",
    "the following arguments are required: %s": "argparse.required",
    "ambiguous option: %(option)s could match %(matches)s": "argparse.ambiguous",
    "ignored explicit argument %r": "argparse.explicit",
    "unexpected option string: %s": "argparse.unexpected",
    "usage: ": "argparse.usage",
    "options": "argparse.options",
    "show this help message and exit": "argparse.help",
}


@contextlib.contextmanager
def argparse_speaks(lang: str) -> Iterator[None]:
    """argparse's own words (its errors, its help's headings) in `lang`. argparse asks
    gettext for each message through its module's `_` and `ngettext`, the hook Python
    documents for translating it; those two are pointed at the catalogue while a command
    line is parsed, then put back. English needs nothing."""
    if lang == i18n.DEFAULT:  # argparse speaks it already
        yield
        return
    names = ("_", "ngettext")
    saved = [getattr(argparse, name) for name in names]

    def gettext(message: str) -> str:
        key = ARGPARSE_WORDS.get(message)
        return i18n.template(lang, key) if key else message

    def ngettext(singular: str, plural: str, n: int) -> str:
        return gettext(singular if n == 1 else plural)

    for name, hook in zip(names, (gettext, ngettext), strict=True):
        setattr(argparse, name, hook)
    try:
        yield
    finally:
        for name, old in zip(names, saved, strict=True):
            setattr(argparse, name, old)


def _width(text: str) -> int:
    """Columns a terminal gives `text` (a CJK character takes two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def fold(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` columns, broken at a space or between two
    characters of a language written without spaces — never inside a Latin word (the
    Japanese audit: `--help` printed "nightma" / "re"); argparse's own wrapping counts
    characters, not columns, and breaks a run without spaces wherever the width falls."""
    lines: list[str] = []
    line, used = "", 0
    for token in re.findall(r"[!-~]+|\s+|.", text):
        if token.isspace():
            token = " "
        size = _width(token)
        if used + size > width and line.strip():
            lines.append(line.rstrip())
            line, used = "", 0
            if token == " ":
                continue
        line += token
        used += size
    if line.strip():
        lines.append(line.rstrip())
    return lines


class _Folding(argparse.HelpFormatter):
    """argparse's help, folded by `fold`."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        return fold(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in fold(text, width - len(indent)))


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Folding)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        # parsed under `argparse_speaks`: the message is in the reader's language already
        raise UsageError(message)

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        if status == 0 and not message:  # after --help: a normal exit
            super().exit()
        raise UsageError(message or "")


def _count(text: str) -> int:
    try:
        n = int(normalise(text))
    except ValueError:
        raise UsageError.of("players_count", given=repr(text[:20])) from None
    if not 1 <= n <= 4:
        raise UsageError.of("players_range", n=n)
    return n


def _seed(text: str) -> int:
    try:
        return int(normalise(text))
    except ValueError:
        raise UsageError.of("seed", given=repr(text[:20])) from None


class _Help(TypedDict, total=False):
    help: str
    metavar: str


def _help(key: str, lang: str, **params: Any) -> _Help:
    """An option's help text and value name in the reader's language (`console.opt.*`)."""
    out: _Help = {"help": i18n.t(lang, f"console.opt.{key}", **params)}
    metavar = i18n.template(lang, f"console.metavar.{key}")
    if metavar != f"console.metavar.{key}":  # (a flag, or argparse's {en,ja} for choices)
        out["metavar"] = metavar
    return out


def table_parser(prog: str = "bot.py --console", lang: str = "en") -> argparse.ArgumentParser:
    """The table options shared by the command line and the `new` command."""
    ap = _Parser(prog=prog, add_help=False, allow_abbrev=False)
    ap.add_argument("--players", type=_count, **_help("players", lang))
    ap.add_argument("--names", nargs="+", **_help("names", lang))
    ap.add_argument("--difficulty", type=difficulty_word, **_help("difficulty", lang))
    ap.add_argument("--ai", nargs="+", type=lambda s: normalise(s).lower(),
                    choices=list(ai.LEVELS), **_help("ai", lang, levels=", ".join(ai.LEVELS)))
    ap.add_argument("--seed", type=_seed, **_help("seed", lang))
    ap.add_argument("--daily-key", **_help("daily_key", lang))
    ap.add_argument("--date", **_help("date", lang))
    return ap


def _daily(ns: argparse.Namespace) -> daily.Challenge | None:
    """The past day a published key and its date rebuild (service/daily.py), or None. The
    key alone deals the game; the date only numbers it, so a wrong date plays the right
    game under another number."""
    if ns.daily_key is None and ns.date is None:
        return None
    if ns.daily_key is None or ns.date is None:
        raise UsageError.of("daily_pair")
    if ns.players not in (None, 1) or ns.ai or ns.difficulty is not None or ns.seed is not None \
            or len(ns.names or ()) > 1:
        raise UsageError.of("daily_alone")
    try:
        key = bytes.fromhex(normalise(ns.daily_key))
    except ValueError:
        key = b""
    if len(key) != 32:
        raise UsageError.of("daily_key", given=repr(ns.daily_key[:20]))
    try:
        day = dt.date.fromisoformat(normalise(ns.date))
    except ValueError:
        day = None
    if day is None or day < daily.EPOCH:
        raise UsageError.of("daily_date", given=repr(ns.date[:20]), epoch=daily.EPOCH.isoformat())
    if time.time() < daily.day_end(day):  # no key of an open day has been published
        raise UsageError.of("daily_open", day=day.isoformat())
    return daily.challenge_from_key(day, key)


def check_name(name: str) -> str:
    """A player name, or a UsageError saying why it cannot be one."""
    if has_control(name) or not normalise(name):
        raise UsageError.of("name_empty", name=repr(name[:20]))
    clean = normalise(name)
    if re.fullmatch(r"[+-]?\d+(?:[.,]\d+)?", clean):
        raise UsageError.of("name_number", name=repr(clean))
    if ":" in clean:
        raise UsageError.of("name_colon", name=repr(clean[:20]))
    if len(clean) > MAX_NAME:
        raise UsageError.of("name_long", max=MAX_NAME, name=repr(clean[:20]))
    return clean


def _names(ns: argparse.Namespace) -> list[str]:
    """The people's names (`--names`, each a name, 1 to 4, told apart however typed, as many
    as `--players`), else P1, P2… for `--players`."""
    if not ns.names:
        return [f"P{k + 1}" for k in range(ns.players or 1)]
    names = [check_name(n) for n in ns.names]
    if not 1 <= len(names) <= 4:
        raise UsageError.of("names_count", n=len(names))
    keys = [name_key(n) for n in names]
    if len(set(keys)) != len(keys):
        raise UsageError.of("names_differ")
    if ns.players is not None and ns.players != len(names):
        raise UsageError.of("players_names", players=ns.players, n=len(names))
    return names


def table_from(ns: argparse.Namespace) -> Table:
    """Check the combination of table options; the defaults fill what was not given."""
    challenge = _daily(ns)
    if ns.difficulty is not None and ns.difficulty not in DIFFICULTIES:
        raise UsageError.of("difficulty", given=repr(ns.difficulty[:20]))
    names = _names(ns)
    bots = list(ns.ai or [])
    if bots and len(names) + len(bots) > 4:
        raise UsageError.of("too_many", n=len(names), bots=len(bots))
    if bots and ns.difficulty is not None:
        raise UsageError.of("difficulty_ai")
    if ns.difficulty is not None and len(names) != 1:
        raise UsageError.of("difficulty_solo", n=len(names))
    return Table(tuple([Seat(n) for n in names] + [Seat(f"AI {k + 1}", lv)
                                                   for k, lv in enumerate(bots)]),
                 challenge.difficulty if challenge else ns.difficulty, ns.seed, challenge)


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
    if ns.daily_key is not None:
        out.append(f"--daily-key {ns.daily_key}")
    if ns.date is not None:
        out.append(f"--date {ns.date}")
    return out


def difficulty_word(typed: str) -> str:
    """A typed solo level as the options name it: any case and width, or by the name the
    console shows it under in either language (`むずかしい` is `hard`: the Japanese game
    is headed 「ソロ、難易度むずかしい」, and that word was refused)."""
    word = re.sub(r"[\s-]+", "_", normalise(typed).lower())
    shown = {normalise(i18n.t(lang, f"command.{level}")).lower(): level
             for lang in i18n.CATALOGUES for level in DIFFICULTIES}
    return shown.get(word, word)


def lang_word(typed: str) -> str:
    """A typed language code as the catalogues name it: `JA`, `ｊａ` are `ja`, in any case
    and width, as --difficulty and --ai are read (`--lang JA` stopped the console)."""
    return normalise(typed).lower()


def parse_command_line(argv: list[str], lang: str = "en") -> tuple[argparse.Namespace, Table]:
    """The console's whole command line; raises UsageError (one line, argparse's own words
    in `lang` too) on any mistake."""
    with argparse_speaks(lang):
        return _parse_command_line(argv, lang)


def _parse_command_line(argv: list[str], lang: str) -> tuple[argparse.Namespace, Table]:
    ap = _Parser(prog="bot.py --console", parents=[table_parser(lang=lang)],
                 description=i18n.t(lang, "console.opt.description"))
    ap.add_argument("--new", action="store_true", **_help("new", lang))
    ap.add_argument("--tutorial", action="store_true", **_help("tutorial", lang))
    ap.add_argument("--db", default="rr-console.db", **_help("db", lang))
    ap.add_argument("--out", default="console-out", **_help("out", lang))
    ap.add_argument("--lang", type=lang_word, choices=list(i18n.CATALOGUES), **_help("lang", lang))
    ns = ap.parse_args(argv)
    return ns, table_from(ns)


def parse_new(words: list[str], lang: str = "en") -> Table | None:
    """The options of a typed `new` command; None: no options (keep the current table)."""
    if not words:
        return None
    with argparse_speaks(lang):
        return table_from(table_parser("new", lang).parse_args(words))
