"""Narration lines (`service/lines.py`) as Discord shows them: markdown.

The service writes what happened in plain terms; here a mark becomes Discord's: emphasis in
bold, a command verb as the slash command to type, named as the reader's client lists it
(`` `/rr place` ``, `` `/rr 配置` `` in Japanese: `i18n.slash`). The words themselves are not
escaped here: names were defused once, where they enter a story (`mentions.safe`).
"""

from __future__ import annotations

import re

import i18n
from service.lines import ANSWER, COMMAND, STRONG, Line


def markdown(line: Line | None, lang: str) -> str:
    """A line as a Discord message shows it to a reader of `lang` ("" for no line)."""
    out: list[str] = []
    for piece in line or ():
        if piece.mark == STRONG:
            out.append(f"**{piece.text}**")
        elif piece.mark == COMMAND:
            out.append(f"`{i18n.slash(lang, piece.text)}`")
        elif piece.mark == ANSWER:
            out.append(f"`{piece.text}`")
        else:
            out.append(piece.text)
    return "".join(out)


def markdowns(lines: list[Line], lang: str) -> list[str]:
    return [markdown(line, lang) for line in lines]


EMBED_TITLE = 256  # Discord's limits on an embed's title and description
EMBED_DESCRIPTION = 4096

# What may not be cut in half: a backslash escape, a `<…>` tag (a mention, a channel, a
# timestamp, a custom emoji), a code span; and the markdown pairs a cut would leave open.
_ATOM = re.compile(r"\\.|<[^<>\s]{1,100}>|(`+).*?(?<!`)\1(?!`)", re.DOTALL)
_PAIR = re.compile(r"\*\*|__|~~|\|\||\*|_")


def _safe_ends(text: str) -> list[int]:
    """The offsets where `text` may be cut: outside every tag, escape and code span, with
    no markdown pair open (`**`, `__`, `~~`, `||`, `*`, `_`)."""
    ends: list[int] = [0]
    open_: list[str] = []
    i = 0
    while i < len(text):
        if atom := _ATOM.match(text, i):
            i = atom.end()
        elif pair := _PAIR.match(text, i):
            mark = pair.group(0)
            if open_ and open_[-1] == mark:
                open_.pop()
            else:
                open_.append(mark)
            i = pair.end()
        elif text[i] == "`":  # a code span that does not close here: nothing after is safe
            break
        else:
            i += 1
        if not open_:
            ends.append(i)
    return ends


def cut(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, ending "…" when it had to be cut: at a line's
    end when one fits, else at a space, never inside a mention, an escape, a code span or
    an open markdown pair — a player reads a shortened message, not `**Mar` or `<@12`.

    Why: Discord refuses a whole message over its limit (2000 content, 4096 an embed's
    description...), and a plain slice left half a tag or an unclosed `**` that turns the
    rest of the message bold."""
    if len(text) <= limit:
        return text
    room = limit - 1  # for the "…"
    ends = [e for e in _safe_ends(text[: room + 1]) if e <= room]
    lines = [e for e in ends if text[e : e + 1] == "\n"]
    spaced = [e for e in ends if text[e : e + 1].isspace()]
    for choice in (lines, spaced, ends):
        if choice and choice[-1] >= room // 2:
            return text[: choice[-1]].rstrip() + "…"
    head = text[:room]
    if head.endswith("\\"):
        head = head[:-1]
    return head + "…"
