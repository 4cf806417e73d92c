"""A post's lines as Discord messages: clipped, or packed into pages between whole lines."""

from __future__ import annotations

from collections.abc import Sequence

from .text import cut

MAX_CONTENT = 1900


def clip(lines: list[str], limit: int = MAX_CONTENT) -> str:
    """Join lines into one message body under Discord's 2000-character limit, shortened
    where a player can still read it (`text.cut`: at a line's end, never inside a mention
    or a markdown pair)."""
    return cut("\n".join(lines), limit)


def pages(lines: list[str], limit: int = MAX_CONTENT) -> list[str]:
    """Lines packed in order into as few message bodies under `limit` as they fit in, each
    line whole (one longer than a whole message is clipped alone).

    Why: a channel post is the table's record of what happened; clipping one would lose
    the last knock-outs of a busy Invasion for every player (4 players, long names). The
    split depends on the lines only, so a retried notice numbers its messages the same."""
    out: list[str] = []
    body: list[str] = []
    size = -1
    for line in lines:
        line = clip([line], limit)
        if body and size + 1 + len(line) > limit:
            out.append("\n".join(body))
            body, size = [], -1
        body.append(line)
        size += 1 + len(line)
    if body:
        out.append("\n".join(body))
    return out


def page_ends(stories: Sequence[list[str]], limit: int = MAX_CONTENT) -> list[int]:
    """For each story of a burst told together: how many of the burst's messages must have
    gone out for all of it to be posted. `pages` packs greedily, so the pages of a prefix of
    the lines are the first pages of the whole."""
    ends: list[int] = []
    lines: list[str] = []
    for story in stories:
        lines.extend(story)
        ends.append(len(pages(lines, limit)))
    return ends
