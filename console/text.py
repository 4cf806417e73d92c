"""The console's own words (English and Japanese) and its plain-text hygiene.

The story and the questions come from the service as marked lines (`service/lines.py`);
`plain` formats them for a terminal: emphasis is dropped, a command verb becomes the console
command to type ('place CARD SQUARE'), an answer in the notation is quoted as typed. Refusals mark their commands the same way
(`service.refusals.line`), so they are told through `plain` too.
Everything a user typed and the console quotes back goes through `excerpt`, so a 5,000-emoji
token or an escape code can never flood or garble the terminal. Input is folded with NFKC
(`normalise`) so full-width text typed with a Japanese IME (`Ａｎｎ：ａｃｔ　２Ｂ`) means the
same as ASCII.
"""

from __future__ import annotations

import re
import unicodedata
import urllib.parse
from typing import Any

import i18n
from engine.notation import unformatted
from service.lines import ANSWER, COMMAND, Line
from service.notation import shown

MAX_LINE = 300  # the longest real action (a Bard chain) is ~60 characters
EXCERPT = 20  # characters of a bad token quoted back

def t(key: str, lang: str, **kw: Any) -> str:
    """The console's message `console.<key>` (counted when the catalogue has plural forms)."""
    mid = f"console.{key}"
    if "n" in kw and i18n.is_plural(mid):
        return i18n.tn(lang, mid, kw.pop("n"), **kw)
    return i18n.t(lang, mid, **kw)


def quote(text: str, lang: str) -> str:
    """`text` in the language's quotation marks (the catalogue's `console.quote`)."""
    return i18n.template(lang, "console.quote").replace("{text}", text)


def spaced_quotes(lang: str) -> bool:
    """Whether words around a quote keep their spaces: full-width quotation marks (「…」)
    carry their own, so the spaces a Discord-style sentence has around a command go."""
    mark = i18n.template(lang, "console.quote")[:1]
    return unicodedata.east_asian_width(mark) not in ("W", "F")


def command(verb: str, lang: str) -> str:
    """What the console types where Discord has `/rr VERB …` (its first word), quoted."""
    words = verb.split() or [verb]
    verb = words[0]
    hint = i18n.t(lang, f"console.hint.{verb}")
    if hint != f"console.hint.{verb}":
        return quote(hint, lang)
    # An option's value is typed after the verb here: `rules topic:commands` → `rules commands`.
    values = [value for word in words[1:] for value in [word.partition(":")[2]] if value]
    return quote(" ".join([shown(verb, lang), *values]), lang)


def plain(line: Line | None, lang: str) -> str:
    """A marked line as a terminal shows it: words only, console commands for commands.
    Full-width brackets need no spaces around them, so those are dropped."""
    out = ""
    glue = False  # the last piece was a command in full-width brackets
    tight = not spaced_quotes(lang)
    for piece in line or ():
        if piece.mark in (COMMAND, ANSWER):
            text = command(piece.text, lang) if piece.mark == COMMAND else quote(piece.text, lang)
            if tight and out.rstrip(" "):
                out = out.rstrip(" ")
            glue = tight
        else:
            text = piece.text.lstrip(" ") if glue and piece.text.strip() else piece.text
            glue = False
        out += text
    return out


def excerpt(text: str, lang: str, limit: int = EXCERPT) -> str:
    """A typed token quoted back safely: at most `limit` printable characters, and how long
    it really was when cut (`'abc…' (62 characters)` / `「abc…」（62文字）`)."""
    shown = "".join(c if c.isprintable() else "?" for c in text[:limit])
    if len(text) > limit:
        return quote(f"{shown}…", lang) + t("length", lang, n=len(text))
    return quote(shown, lang)


def plain_markdown(text: str) -> str:
    """Discord markdown (the rules summaries) as a terminal shows it: no `**`, `*`, backticks."""
    return re.sub(r"\*\*(.+?)\*\*|\*(\S.*?)\*|`([^`]*)`",
                  lambda m: next(g for g in m.groups() if g is not None), text)


def tidy_message(message: str, typed: str = "", lang: str = "en") -> str:
    """A refusal from the service or the engine, safe for a terminal. Only what the user
    typed is cut short (a quoted piece of `typed`): the game's own words, such as a usage
    line, are never truncated."""
    folded = typed.casefold()

    def cut(m: re.Match[str]) -> str:
        inner = m.group(1) if m.group(1) is not None else m.group(2)
        if not folded or inner.casefold() not in folded:
            return m.group(0)
        return excerpt(inner, lang)

    long = "{" + str(EXCERPT + 1) + ",}"  # quoted as '…' (English) or 「…」 (Japanese)
    out = re.sub(f"'([^'\n]{long})'|「([^」\n]{long})」", cut, message)
    out = "".join(c if c.isprintable() else "?" for c in out)
    return out if len(out) <= 2 * MAX_LINE else out[: 2 * MAX_LINE] + "…"


def whole_tokens(message: str, typed: str) -> str:
    """The engine quotes at most 24 characters of a bad token (`'abc…'`, engine/errors.py);
    put the typed token back whole, so `tidy_message` can say how long it really was."""
    tokens = typed.split()

    def whole(m: re.Match[str]) -> str:
        start = m.group(1) if m.group(1) is not None else m.group(2)
        tok = next((x for x in tokens if len(x) > len(start) and x.startswith(start)), None)
        if tok is None:
            return m.group(0)
        return f"'{tok}'" if m.group(1) is not None else f"「{tok}」"

    return re.sub("'([^'\n]+)…'|「([^」\n]+)…」", whole, message)


def has_control(line: str) -> bool:
    """Control characters other than tab (escape codes, NUL, DEL) — never part of input."""
    return any(unicodedata.category(c) == "Cc" and c != "\t" for c in line)


def normalise(line: str) -> str:
    """NFKC (full-width letters, digits, colon and space become ASCII), one space between
    words, no space at the ends."""
    return " ".join(unicodedata.normalize("NFKC", line).split())


def name_key(name: str) -> str:
    """How player names compare: `Ａｎｎ`, `ann` and `Ann` are one name (and a name typed
    with a zero-width character is the same name: engine.notation `unformatted`)."""
    return normalise(unformatted(name)).casefold()


def shown_db(db: str) -> str:
    """--db as the console may print it: a `postgresql://` URL with its password replaced by
    `***` (a terminal is read over shoulders and kept in logs); a file name as it is."""
    try:
        url = urllib.parse.urlsplit(db)
    except ValueError:
        return db
    if not url.scheme.startswith("postgres") or url.password is None:
        return db
    host = url.netloc.rpartition("@")[2]
    user = urllib.parse.quote(url.username or "", safe="")
    return urllib.parse.urlunsplit(url._replace(netloc=f"{user}:***@{host}"))


def hide_password(text: str, db: str) -> str:
    """An error message about `db` with its password, wherever it is repeated, as `***`."""
    try:
        password = urllib.parse.urlsplit(db).password
    except ValueError:
        password = None
    if not password:
        return text
    for form in {password, urllib.parse.unquote(password), urllib.parse.quote(password)}:
        text = text.replace(form, "***")
    return text.replace(db, shown_db(db))
