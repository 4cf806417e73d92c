"""Narration lines (`service/lines.py`) as Discord shows them: markdown.

The service writes what happened in plain terms; here a mark becomes Discord's: emphasis in
bold, a command verb as the slash command to type, named as the reader's client lists it
(`` `/rr place` ``, `` `/rr 配置` `` in Japanese: `i18n.slash`). The words themselves are not
escaped here: names were defused once, where they enter a story (`mentions.safe`).
"""

from __future__ import annotations

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
