"""`/rr rules topic:` text: the product's own short summaries (cogs/data/rules_*.md).

RULES.md is the engine's specification and is never read at run time; these files are
written for players, one section per topic, and are read once at import so a missing or
malformed file fails at startup rather than on a user's command.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

DATA = Path(__file__).with_name("data")


@cache
def sections(lang: str) -> dict[str, tuple[str, str]]:
    """key → (title, body) in file order."""
    text = (DATA / f"rules_{'ja' if lang == 'ja' else 'en'}.md").read_text(encoding="utf-8")
    out: dict[str, tuple[str, str]] = {}
    key = title = None
    body: list[str] = []
    for line in text.splitlines():
        if line.startswith("## "):
            if key:
                out[key] = (title or key, "\n".join(body).strip())
            key, _, title = (part.strip() for part in line[3:].partition("|"))
            body = []
        elif key:
            body.append(line)
    if key:
        out[key] = (title or key, "\n".join(body).strip())
    return out


def topic(key: str, lang: str) -> tuple[str, str] | None:
    return sections(lang).get(key) or sections("en").get(key)
