"""A plain-text picture of a game, drawn from a view (never from the full state).

Used by `python -m engine show`: because it only ever receives `Game.view(seat)`, it cannot
print a secret (deck orders, face-down chips, other players' medal values, R3). Each board
is drawn as on the table (R2): columns 6 → 1 from left to right, so the magic circles are on
the left, the waiting queues beyond them, and the castle on the right.
"""

from __future__ import annotations

import re

from .board import COLUMNS, LANES
from .cards import CardSet
from .types import Card, Decision, Piece, PlayerView, View

CELL = 8  # characters per square: the longest piece text is 7 (`[Dul:2]`, `War*:3'`)

LEGEND = ("legend: War* = a ★ unit (no * = levelled up), [Gob] = monster, :N = damage, "
          "' = acted (action marker), . = empty square")

_PROMPTS = {
    "place": "place a unit from hand on the home area (1A-2C)",
    "pick": "choose a command card",
    "actions": "take unit actions",
    "ready": "ready acted units",
    "recruit": "may recruit a unit",
    "support": "may heal 1 damage (support)",
    "roll": "decide about a roll",
}


def abbreviations(cs: CardSet) -> dict[str, str]:
    """Three letters per card name, unique within the set (★ and level-up share them)."""
    out: dict[str, str] = {}
    taken: dict[str, str] = {}
    names = [(k, c.en) for k, c in cs.units.items()] + [(k, m.en) for k, m in cs.monsters.items()]
    for key, en in names:
        base = re.sub(r"[^A-Za-z]", "", en) or key
        abbr = base[:3].capitalize()
        k = 3
        while taken.get(abbr, base.lower()) != base.lower() and k < len(base):
            abbr = (base[:2] + base[k]).capitalize()
            k += 1
        taken[abbr] = base.lower()
        out[key] = abbr
    return out


def piece_text(cs: CardSet, abbr: dict[str, str], piece: Piece | None) -> str:
    """One square: `.`, a unit `War*:1'`, or a monster `[Gob:1]`."""
    if piece is None:
        return "."
    dmg = f":{piece['dmg']}" if piece.get("dmg") else ""
    if "owner" in piece:
        star = "*" if cs.units[piece["card"]].star else ""
        acted = "'" if piece.get("acted") else ""
        return f"{abbr[piece['card']]}{star}{dmg}{acted}"
    return f"[{abbr[piece['card']]}{dmg}]"


def _names(cs: CardSet, cards: list[Card], cost: bool = False) -> str:
    parts = []
    for c in cards:
        name = cs.name(c["card"])
        parts.append(f"{name} ({cs.units[c['card']].cost}g)" if cost else name)
    return ", ".join(parts) or "-"


def _grid(cs: CardSet, abbr: dict[str, str], p: PlayerView) -> list[str]:
    queues = {ln: " ".join(abbr[m["card"]] for m in p["queues"][ln]) for ln in LANES}
    qw = max([5, *(len(q) for q in queues.values())])
    head = "".join(f"{c}{' magic' if c == COLUMNS else ' home' if c <= 2 else ''}".ljust(CELL)
                   for c in range(COLUMNS, 0, -1))
    lines = [f"    {'queue'.rjust(qw)} | {head}| castle"]
    castle = " ".join(f"[{abbr[m['card']]}]" for m in p["castle"]) or "-"
    for k, ln in enumerate(LANES):
        cells = "".join(piece_text(cs, abbr, p["board"][(c - 1) * 3 + k]).ljust(CELL)
                        for c in range(COLUMNS, 0, -1))
        right = castle if k == 1 else ""
        lines.append(f"  {ln} {queues[ln].rjust(qw)} | {cells}| {right}".rstrip())
    return lines


def _player(cs: CardSet, abbr: dict[str, str], v: View, seat: int) -> list[str]:
    p = v["players"][seat]
    tags = []
    if seat == v.get("start_player"):
        tags.append("start player")
    if p["eliminated"]:
        tags.append("ELIMINATED")
    if seat == v.get("viewer"):
        tags.append("you")
    marks = p.get("honor_marks", p["honor"] + len(p["defeated"]))
    if "medals" in p:  # the viewer's own tokens: values are theirs to see (R14.1)
        medals = f"medals {p['medals']}" if p["medals"] else "no medals"
        threat = f"threat {p.get('threat', p.get('threat_public'))}"
    else:
        medals = f"{p['medal_count']} hidden medal(s)" if p["medal_count"] else "no medals"
        threat = f"threat {p.get('threat_public')}" + (" + medals" if p["medal_count"] else "")
    head = (f"{p['name']} (seat {seat}){' [' + ', '.join(tags) + ']' if tags else ''}: "
            f"gold {p['gold']}, honor {p['honor']} + {len(p['defeated'])} defeated = {marks} "
            f"marks, level-ups {p['levelups']}, {threat}, {medals}"
            f"{', autosave on' if p.get('autosave') else ''}")
    return [head, *_grid(cs, abbr, p), f"  hand: {_names(cs, p['hand'], cost=True)}"]


def _row(cs: CardSet, v: View) -> str:
    out = []
    for card in v["row"]:
        name = cs.name(card)
        if card == v.get("current"):
            name = f">{name}<"
        elif card in v["executed"]:
            name = f"{name} (done)"
        elif card in v["chosen"]:
            name = f"{name} (chosen)"
        out.append(name)
    return " | ".join(out)


def _decision(cs: CardSet, v: View, seat: int, d: Decision) -> str:
    who = v["players"][seat]["name"]
    kind = d["kind"]
    text = f"{who}: {_PROMPTS.get(kind, kind)}"
    if d["kind"] == "pick":
        text += ": " + ", ".join(cs.name(c) for c in d["options"])
    elif d["kind"] == "actions":
        text += f" for {cs.name(d['card'])}, {d['left']} left"
    elif d["kind"] == "ready":
        text += f" ({d['card']}, up to {d['n']})"
    elif d["kind"] == "recruit":
        text += " (hand or mercenaries)" if d.get("mercenaries") else " (hand only)"
        if d.get("again"):
            text += ", your mercenary was taken: choose again"
    elif d["kind"] == "roll":
        a, b = d["dice"]
        boons = [w for w, ok in (("reroll", d.get("can_reroll")), ("levelup",
                                 d.get("can_levelup"))) if ok]
        text += (f": {d['unit']} -> {d['target']} rolled {a}+{b} = {d['total']} vs DEF "
                 f"{d.get('def', '?')}: {d.get('result')}; keep or {' / '.join(boons)}")
    return text + f" [decision {d['id']}]"


def render(cs: CardSet, v: View) -> str:
    """The whole table as text, from `view` (any seat or a spectator)."""
    abbr = abbreviations(cs)
    chips_up = ",".join(v["chips"]["up"]) or "-"
    lines = [
        _heading(cs, v),
        f"row: {_row(cs, v)}",
        f"monster deck {v['monster_deck_size']}, unit deck {v['unit_deck_size']}, "
        f"discard {len(v['discard'])}, medals face down {v['medal_pool_size']}, "
        f"summon chips face down {v['chips']['down']} / up {chips_up}",
        "mercenaries: " + " | ".join(
            f"{cs.name(m['card'])} ({cs.units[m['card']].cost}g)" if m else "(taken)"
            for m in v["mercenaries"]),
        "level-up piles: " + ", ".join(f"{job} {len(pile)}"
                                       for job, pile in v["levelup_piles"].items()),
    ]
    if v.get("removed"):
        lines.append(f"spent honor marks (out of the game): {len(v['removed'])}")
    for seat in range(len(v["players"])):
        lines.append("")
        lines += _player(cs, abbr, v, seat)
    lines.append("")
    lines += _outcome(cs, v)
    lines.append(LEGEND)
    return "\n".join(lines) + "\n"


def _heading(cs: CardSet, v: View) -> str:
    """Round, phase, the card being resolved, who is looking, and the options in play."""
    names = [p["name"] for p in v["players"]]
    phase = v["phase"]
    cur = v.get("current")
    head = f"Round {v['round']}, " + ("game over" if phase == "over" else f"{phase} phase")
    if cur:
        lead = v.get("leader")
        head += f", resolving {cs.name(cur)}"
        if lead is not None:
            head += f" (LEADER {names[lead]})"
        elif cur in v["row"]:
            head += " (AUTO)"
    viewer = v.get("viewer")
    head += f"; viewed by {names[viewer] if viewer is not None else 'a spectator'}"
    opts = v.get("options", {})
    extra = [f"round cap {opts.get('round_cap', 30)}"]
    if opts.get("difficulty"):
        extra.append(f"solo difficulty {opts['difficulty']}")
    if v.get("final_round"):
        extra.append(f"final round {v['final_round']}")
    return head + f" ({', '.join(extra)})"


def _outcome(cs: CardSet, v: View) -> list[str]:
    """The result once the game is over, else who must decide what."""
    names = [p["name"] for p in v["players"]]
    res = v.get("result")
    if res is not None:
        win = ", ".join(names[s] for s in res["winners"]) or "nobody"
        return [f"GAME OVER: {'draw between ' if res['draw'] else 'winner: '}{win} "
                f"({res['reason']}); ranking: {', '.join(names[s] for s in res['ranking'])}"]
    if v["decisions"]:
        return ["waiting for:"] + [f"  {_decision(cs, v, int(s), d)}"
                                   for s, d in sorted(v["decisions"].items())]
    return []
