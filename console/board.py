"""The table as plain text for a terminal: a compact board after each phase, the `board`
and `hand` commands, and `legal` grouped so a screenful answers "what may I type?".

Drawn from views only (`Game.view`), like `engine/textboard.py` whose piece codes it
reuses (`War*:1'`, `[Gob]`), so a line here can never carry a secret the view does not
hold. Squares are laid out as on the table (R2): columns 6 → 1, magic circles on the left,
the waiting queues beyond them, the castle on the right. Piece codes stay Latin in
Japanese too (they keep the columns aligned); the legend names them in the reader's
language.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import i18n
from engine import Action, Game, View
from engine.board import COLUMNS, LANES
from engine.cards import CardSet
from engine.textboard import abbreviations, piece_text
from service.notation import action_words, words_typed

CELL = 8

def w(key: str, lang: str, **kw: Any) -> str:
    """The text board's word `board.<key>` (counted when the catalogue has plural forms)."""
    mid = f"board.{key}"
    if "n" in kw and i18n.is_plural(mid):
        return i18n.tn(lang, mid, kw.pop("n"), **kw)
    return i18n.t(lang, mid, **kw)


def width(text: str) -> int:
    """Terminal columns: East Asian wide and full-width characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def pad(text: str, cols: int) -> str:
    return text + " " * max(0, cols - width(text))


def _head(lang: str) -> str:
    cells = []
    for c in range(COLUMNS, 0, -1):
        tag = w("magic", lang) if c == COLUMNS else w("home", lang) if c <= 2 else ""
        cells.append(pad(f"{c}{tag}", CELL))
    return "".join(cells)


def _player_line(cs: CardSet, v: View, seat: int, lang: str) -> str:
    p = v["players"][seat]
    tags = (w("start", lang) if seat == v.get("start_player") else "") + (
        w("out", lang) if p["eliminated"] else "")
    threat = str(p.get("threat", p["threat_public"]))
    if "threat" not in p and p["medal_count"]:
        threat += w("hidden_medals", lang, n=p["medal_count"])
    return w("player", lang, p=p["name"], gold=p["gold"], marks=p["honor_marks"],
             threat=threat, tags=tags)


def title(cs: CardSet, v: View, what: str | None, lang: str) -> str:
    """`Round 2 · after Advance` — which moment a compact board shows."""
    parts = [w("round", lang, n=v["round"])]
    if what in ("placement", "invasion", "summon", "end"):
        parts.append(w("after", lang, what=w(what, lang)))
    elif what is not None:
        parts.append(w("after", lang, what=cs.name(what, lang)))
    elif v["phase"] == "over":
        parts.append(w("ph_over", lang))
    else:
        if v["phase"] != "auto":  # (the AUTO card's name says it)
            parts.append(w("phase", lang, p=w(f"ph_{v['phase']}", lang)))
        cur = v.get("current")
        if cur in cs.commands:
            lead = v.get("leader")
            parts.append(w("leader", lang, card=cs.name(cur, lang),
                           p=v["players"][lead]["name"]) if lead is not None
                         else w("auto", lang, card=cs.name(cur, lang)))
    if v.get("final_round") == v["round"]:
        parts[0] = w("final_now", lang, n=v["round"])
    elif v.get("final_round"):
        parts.append(w("final", lang, n=v["final_round"]))
    return " · ".join(parts)


def compact(cs: CardSet, v: View, lang: str, what: str | None = None,
            every_board: bool = False) -> list[str]:
    """Every player's board in four lines each, under one column header; an eliminated
    player's board (R9.3: out of the game, it never changes again) only in its one line,
    unless `every_board`."""
    abbr = abbreviations(cs)
    queues = [{ln: " ".join(abbr[m["card"]] for m in p["queues"][ln]) for ln in LANES}
              for p in v["players"]]
    qw = max([width(w("queue", lang)), *(len(q) for qs in queues for q in qs.values())])
    lines = [f"── {title(cs, v, what, lang)} ──",
             f"    {pad('', qw - width(w('queue', lang)))}{w('queue', lang)} | {_head(lang)}| "
             f"{w('castle', lang)}"]
    for seat, p in enumerate(v["players"]):
        lines.append(_player_line(cs, v, seat, lang))
        if p["eliminated"] and not every_board:
            continue
        castle = " ".join(f"[{abbr[m['card']]}]" for m in p["castle"]) or "-"
        for k, ln in enumerate(LANES):
            cells = "".join(pad(piece_text(cs, abbr, p["board"][(c - 1) * 3 + k]), CELL)
                            for c in range(COLUMNS, 0, -1))
            right = castle if k == 1 else ""
            lines.append(f"  {ln} {queues[seat][ln].rjust(qw)} | {cells}| {right}".rstrip())
    if own_names(cs, lang):  # the Latin codes are English words: a reader whose card names
        lines.append(_legend(cs, v, lang))  # differ gets their names with every board (issue 20)
    return lines


def own_names(cs: CardSet, lang: str) -> bool:
    """Whether `lang` names the cards in words of its own (the card data's), not English."""
    return any(cs.name(k, lang) != cs.name(k) for k in cs.units)


def _legend(cs: CardSet, v: View, lang: str) -> str:
    """"Gob=ゴブリン, …" for the pieces on the table, and what the marks mean."""
    abbr = abbreviations(cs)
    shown: dict[str, str] = {}
    for p in v["players"]:
        for piece in [*p["board"], *p["castle"], *(m for q in p["queues"].values() for m in q)]:
            if piece is not None:
                shown.setdefault(abbr[piece["card"]], cs.name(piece["card"], lang).rstrip("★"))
    codes = _list([f"{k}={n}" for k, n in sorted(shown.items())], lang)
    return w("legend", lang, codes=codes or "-")


def _row(cs: CardSet, v: View, lang: str) -> str:
    out = []
    for card in v["row"]:
        name = cs.name(card, lang)
        if card == v.get("current"):
            name = f">{name}<"
        elif card in v["executed"]:
            name += w("done", lang)
        out.append(name)
    return w("row", lang, cards=" | ".join(out))


def full(cs: CardSet, v: View, lang: str) -> list[str]:
    """The `board` command: the compact board, the shared table, and a legend."""
    mercs = _list([_priced(cs, m["card"], lang) if m else w("taken", lang)
                   for m in v["mercenaries"]], lang)
    board = compact(cs, v, lang, every_board=True)
    if own_names(cs, lang):
        board = board[:-1]  # its legend is said once, last
    return [*board, _row(cs, v, lang), w("mercs", lang, cards=mercs),
            w("decks", lang, m=v["monster_deck_size"], u=v["unit_deck_size"],
              c=v["chips"]["down"]),
            _legend(cs, v, lang)]


def _list(items: list[str], lang: str) -> str:
    return w("list_sep", lang).join(items)


def _priced(cs: CardSet, key: str, lang: str) -> str:
    cost = cs.units[key].cost
    return w("card_cost", lang, card=cs.name(key, lang), cost=cost)


def hand(cs: CardSet, v: View, seat: int, lang: str) -> dict[str, str]:
    """The parts of one player's `hand` line (their own view: medal values included)."""
    p = v["players"][seat]
    cards = _list([_priced(cs, c["card"], lang) for c in p["hand"]], lang)
    medals = ""
    if p.get("medals"):
        medals = _list([str(m) for m in p["medals"]], lang)
    return {"p": p["name"], "cards": cards, "gold": str(p["gold"]), "medals": medals,
            "threat": str(p.get("threat", p["threat_public"]))}


def _begins(a: Action, shown: str, start: str, game: Game) -> bool:
    """Whether answer `a` begins with `start` (its verb already the notation's own,
    `words_typed`): as the log writes it (`place thief_star`), as the list shows it
    (`配置 シーフ★`), or with its cards' English names (`place Thief★`)."""
    want = start.casefold() + " "
    forms = (str(a), words_typed(shown), words_typed(action_words(str(a), game.cards, "en")))
    return any((f + " ").casefold().startswith(want) for f in forms)


def legal_lines(game: Game, seat: int, lang: str, start: str = "",
                limit: int = 40) -> tuple[list[str], int]:
    """The seat's legal actions that begin with `start`, those differing only in their last
    word on one line (`place Thief★ 1A/1B/2C`); returns (lines, how many were left out)."""
    groups: dict[str, list[str]] = {}
    acts: list[Action] = game.legal_actions(seat)
    for a in acts:
        shown = action_words(str(a), game.cards, lang)
        if start and not _begins(a, shown, start, game):
            continue
        words = shown.split(" ")
        head = " ".join(words[:-1]) if len(words) > 1 else words[0]
        tail = words[-1] if len(words) > 1 else ""
        groups.setdefault(head, [])
        if tail:
            groups[head].append(tail)
    lines = [f"{head} {'/'.join(tails)}".rstrip() for head, tails in groups.items()]
    return lines[:limit], max(0, len(lines) - limit)
