"""Game images for the bot: from an engine *view* to PNG bytes.

Input is always `engine.view(state, seat)` output (docs/state.md), never the raw state, so
a secret the view does not carry cannot be drawn; on top of that the renderer never draws
medal values nor the viewer's private `threat` (R14.1), because images are posted publicly.

Public API (all pure functions, safe to call from a worker thread; the only shared state is
caches of fonts, static layers and sprites):

- `board_png(view, seat, *, lang, highlights)`: one player's board.
- `table_png(view, *, lang, highlights)`: every board plus the central row.
- `reach_png(view, seat, square, move, skill, *, lang)`: a unit's movement and skill squares.
- `focus_png(view, seat, squares, *, lang, highlights)`: a board with squares framed (a
  tutorial step's, issue 23).
- `card_png(card_key, *, lang)`: one card with its stats and range diagram.

`lang` is "en" or "ja". `highlights` is a list of engine events of the last phase (moved,
rolled, damaged, defeated, summoned, queued, monster_moved, monster_attacked, fainted,
invaded, eliminated); unknown types are ignored. `python -m render DIR` writes a gallery.
"""

from __future__ import annotations

from render.api import board_png, card_png, focus_png, reach_png, table_png

__all__ = ["board_png", "card_png", "focus_png", "reach_png", "table_png"]
