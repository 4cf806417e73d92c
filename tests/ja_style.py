"""The Japanese house style (i18n/README.md, "Japanese glossary and style"), as tests check it.

`GLOSSARY` maps each forbidden variant to the rulebook's own term (read from the table in
i18n/README.md); `SPACE_AT_PARTICLE` finds
a space before or after a particle (`{p} が {card} を` → `{p}が{card}を`). `restyle` turns a
text written before the style was fixed into the house style, so the refusal corpora
(harvested earlier) can be compared with today's texts: the change they allow is exactly this.
"""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "i18n" / "README.md"


def _glossary() -> dict[str, str]:
    """forbidden → the rulebook's word, from the glossary table in i18n/README.md (the one
    glossary: this reads it rather than keeping a second copy)."""
    text = README.read_text(encoding="utf-8")
    table = text[text.index("## Japanese glossary"):]
    out: dict[str, str] = {}
    for row in table.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) == 3 and row.startswith("|") and not set(cells[0]) <= set("-"):
            use = cells[0].split(" (")[0]
            for never in cells[2].split(","):
                if never.strip() and never.strip() != "never":
                    out[never.strip()] = use
    return out


GLOSSARY = _glossary()
"""forbidden → the rulebook's word (e.g. メダル → 勲章)."""
PARTICLES = "がをにのはでとへも"
_JA = "\u3040-\u30ff\u4e00-\u9fff"
_LEFT = r"[\w}」）>`'*]"  # the end of a word, a placeholder, a mark, a quotation
_RIGHT = r"[\w{「（<`'*]"
SPACE_AT_PARTICLE = re.compile(
    rf"(?<={_LEFT}) ([{PARTICLES}]) (?={_RIGHT})"  # {p} が {card}: a particle on its own
    rf"|(?<={_LEFT}) ([{PARTICLES}])(?=\S)"  # {p} がメダル
    rf"|(?<=[{_JA}]) (?=[{{「])|(?<=[}}」]) (?=[{_JA}])")  # 金 {gold}, {hours} 時間, に 「:」
"""A space around a particle or between Japanese words and a placeholder."""
JAPANESE = re.compile(rf"[{_JA}]")
HALF_PARENS = re.compile(r"\(([^()`\n]*)\)")
"""Half-width parentheses (full-width in Japanese sentences)."""
QUOTED = re.compile(r"'([^'\n]+)'")
"""Single-quoted words: 「」 in Japanese sentences."""


def _joined(m: re.Match[str]) -> str:
    return next((g for g in m.groups() if g is not None), "")


def restyle(text: str) -> str:
    """An older Japanese text in today's house style."""
    for old, new in GLOSSARY.items():
        text = text.replace(old, new)
    if JAPANESE.search(text):
        text = QUOTED.sub(r"「\1」", text)
        text = HALF_PARENS.sub(r"（\1）", text)
    return SPACE_AT_PARTICLE.sub(_joined, text)
