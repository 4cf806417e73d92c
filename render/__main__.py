"""`python -m render SAMPLES_DIR`: write a gallery of sample images for review;
`python -m render --palette`: learn the fixed palette (render/palette.py) from that gallery.

Every player count, a busy late-game board, waiting queues, a castle with an invaded
monster, an eliminated board, highlights, a reach overlay, every card; English and
Japanese; plus an index.html that also shows each image at a phone's preview width.
"""

from __future__ import annotations

import argparse
import html
from collections.abc import Callable
from functools import partial
from pathlib import Path

from PIL import Image

import i18n
from render import palette
from render import samples as S
from render.api import board_image, encode
from render.card import card_image
from render.reach import reach_image
from render.table import table_image
from render.view import cards


def gallery() -> list[tuple[str, str, Callable[[], Image.Image]]]:
    """(file name, caption, drawer) for every sample image."""
    busy = S.one_board_view(S.busy_player(0, "Alice"))
    early = S.one_board_view(S.early_player(0, "たろう"))
    out: list[tuple[str, str, Callable[[], Image.Image]]] = []
    for lang in i18n.LANGS:
        for n in (1, 2, 3, 4):
            out.append((f"table_{n}p_{lang}.png", f"table, {n} player(s), late game ({lang})",
                        partial(table_image, S.table_view(n, True), lang=lang)))
        out.append((f"board_busy_{lang}.png",
                    f"busy late-game board: queues, castle, damage, acted, Lv2 ({lang})",
                    partial(board_image, busy, 0, lang=lang)))
        out.append((f"board_highlights_{lang}.png", f"last phase's events ({lang})",
                    partial(board_image, busy, 0, lang=lang, highlights=S.SAMPLE_EVENTS)))
        out.append((f"reach_{lang}.png", f"reach of the Thief★ on 4B ({lang})",
                    partial(reach_image, busy, 0, "4B", ["3B", "5C", "3C"], ["6B", "5B"],
                            lang=lang)))
    out.append(("board_raid.png", "a Raid: every roll result, an area attack, a level-up",
                lambda: board_image(busy, 0, highlights=S.RAID_EVENTS)))
    out.append(("table_2p_early.png", "table, 2 players, round 1",
                lambda: table_image(S.table_view(2))))
    out.append(("board_early.png", "early board, Japanese name",
                lambda: board_image(early, 0)))
    queues = S.one_board_view(S.queues_player(0, "Queue Keeper"))
    out.append(("board_queues_castle.png", "long waiting queues (one overflowing), castle",
                lambda: board_image(queues, 0)))
    elim = S.table_view(4, True)
    out.append(("board_eliminated.png", "an eliminated player's board",
                lambda: board_image(elim, 3)))
    cs = cards()
    for key in [*cs.units, *cs.monsters, *cs.commands]:
        for lang in i18n.LANGS:
            out.append((f"card_{key}_{lang}.png", f"card {key} ({lang})",
                        partial(card_image, key, lang=lang)))
    return out


def write(dest: Path) -> list[Path]:
    dest.mkdir(parents=True, exist_ok=True)
    written = []
    rows = []
    for name, caption, draw in gallery():
        path = dest / name
        path.write_bytes(encode(draw()))
        written.append(path)
        rows.append(f'<figure><img src="{name}" width="400"><figcaption>{html.escape(caption)}'
                    f' — <a href="{name}">full size</a></figcaption></figure>')
    (dest / "index.html").write_text(
        "<!doctype html><meta charset=utf-8><title>Rook &amp; Raiders renders</title>"
        "<style>body{font-family:sans-serif;background:#333;color:#eee}"
        "figure{display:inline-block;margin:8px}a{color:#9cf}</style>"
        "<p>Each image at 400 px wide, the widest a phone shows it (issue 20).</p>"
        + "\n".join(rows), encoding="utf-8")
    return written


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m render", description=__doc__.splitlines()[0])
    ap.add_argument("samples_dir", type=Path, nargs="?")
    ap.add_argument("--palette", action="store_true",
                    help=f"learn the fixed palette from the gallery into {palette.PALETTE_FILE}")
    args = ap.parse_args()
    if args.palette:
        palette.PALETTE_FILE.write_bytes(palette.learn([draw() for _, _, draw in gallery()]))
        print(f"wrote {palette.PALETTE_FILE}")
    if args.samples_dir is not None:
        paths = write(args.samples_dir)
        print(f"wrote {len(paths)} images and index.html to {args.samples_dir}")
    if not args.palette and args.samples_dir is None:
        ap.error("give SAMPLES_DIR, --palette, or both")


if __name__ == "__main__":
    main()
