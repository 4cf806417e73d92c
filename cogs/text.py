"""Narration lines (`service/lines.py`) as Discord shows them: markdown.

The service writes what happened in plain terms; here a mark becomes Discord's: emphasis in
bold, a command verb as the slash command to type, named as the reader's client lists it
(`` `/rr place` ``, `` `/rr 配置` `` in Japanese: `i18n.slash`). The words themselves are not
escaped here: names were defused once, where they enter a story (`mentions.safe`).
"""

from __future__ import annotations

import re
from itertools import accumulate

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
_PAIR = re.compile(r"\*\*\*|\*\*|__|~~|\|\||\*|_")
_WORD = re.compile(r"[0-9A-Za-z_]")  # a word's character, as Discord's `_` rule reads one


def _word_at(text: str, i: int) -> bool:
    return 0 <= i < len(text) and _WORD.match(text[i]) is not None


def _can_open(text: str, start: int, end: int) -> bool:
    """Whether the mark at `start:end` may begin a pair, as Discord reads it: `_` and `__`
    only at a word's start (`snake_case` is plain), `*` only before a non-space."""
    if text[start] == "_":
        return not _word_at(text, start - 1)
    if text[start:end] == "*":
        return end < len(text) and not text[end].isspace()
    return True


def _can_close(text: str, start: int, end: int) -> bool:
    """… and may end one: `_` and `__` only at a word's end, `*` only after a non-space."""
    if text[start] == "_":
        return not _word_at(text, end)
    if text[start:end] == "*":
        return start > 0 and not text[start - 1].isspace()
    return True


def _paired(text: str, start: int, end: int, open_: list[tuple[str, int]],
            pairs: list[tuple[int, int]]) -> None:
    """The mark at `start:end` closes the nearest open one like it (those opened since
    are left as plain text) or opens a pair; a mark that can do neither is plain text."""
    mark = text[start:end]
    at = next((k for k in range(len(open_) - 1, -1, -1) if open_[k][0] == mark), None)
    if at is not None and _can_close(text, start, end):
        pairs.append((open_[at][1], end))
        del open_[at:]
    elif _can_open(text, start, end):
        open_.append((mark, start))


def _marks(text: str) -> tuple[list[int], list[tuple[int, int]]]:
    """The offsets a cut may fall on (outside every tag, escape and code span; none after
    a code span that does not close), and the markdown pairs as (first, past-last)."""
    steps: list[int] = [0]
    open_: list[tuple[str, int]] = []
    pairs: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        if atom := _ATOM.match(text, i):
            i = atom.end()
        elif pair := _PAIR.match(text, i):
            _paired(text, i, pair.end(), open_, pairs)
            i = pair.end()
        elif text[i] == "`":  # a code span that does not close here: nothing after is safe
            break
        else:
            i += 1
        steps.append(i)
    return steps, pairs


def _safe_ends(text: str) -> list[int]:
    """The offsets where `text` may be cut: outside every tag, escape and code span, and
    inside no markdown pair (`***`, `**`, `__`, `~~`, `||`, `*`, `_`) Discord would read as
    one; a mark nothing closes is shown as itself, so cutting after it is safe."""
    steps, pairs = _marks(text)
    change = [0] * (len(text) + 2)  # +1 where a pair's inside begins, -1 past its end
    for first, last in pairs:
        change[first + 1] += 1
        change[last] -= 1
    held = list(accumulate(change))  # how many pairs hold each offset
    return [e for e in steps if held[e] == 0]


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
    ends = [e for e in _safe_ends(text) if e <= room]
    lines = [e for e in ends if text[e : e + 1] == "\n"]
    spaced = [e for e in ends if text[e : e + 1].isspace()]
    for choice in (lines, spaced, ends):
        if choice and choice[-1] >= room // 2:
            return text[: choice[-1]].rstrip() + "…"
    head = text[:room]
    if head.endswith("\\"):
        head = head[:-1]
    return head + "…"
