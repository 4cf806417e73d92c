"""Words for what happened and what to do now, in English or Japanese.

Both interfaces tell a game with these words, so they are written once in plain terms: a
`Line` of pieces with marks (`service/lines.py`), which Discord formats as markdown and the
console as plain text.

Events come from the engine already filtered for the reader (`engine.visible`), so a line
written here can never carry someone else's secret. Messages are short: a Discord post after
each phase shows a handful of them under the board image.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import i18n
from engine import Game
from engine.cards import CardSet

from . import refusals
from .lines import Line, parse, text

Event = Mapping[str, Any]
"""Read loosely on purpose: stories are also told from stored logs whose events may predate
today's shapes (engine.types.Event), e.g. a `damaged` event without `hp`."""

# How a list of names reads: Japanese separates with the ideographic comma (、).
def sep(lang: str) -> str:
    """How a list of names reads: Japanese separates with the ideographic comma (、)."""
    return i18n.t(lang, "story.list_sep")


def reason(result: Event, lang: str) -> str:
    """Why a game ended, in `lang`: from its code (older logs: its English)."""
    return refusals.reason(result, lang)


def t(key: str, lang: str, **kw: Any) -> Line:
    """The story line `story.<key>` (i18n/*.po), its marks kept."""
    return parse(i18n.template(lang, f"story.{key}"), **kw)


def result(res: str, lang: str) -> str:
    """A roll's result as it is told: "hit (2)" (R8.2)."""
    return i18n.t(lang, f"roll.{res}")


def s(key: str, lang: str, **kw: Any) -> str:
    """A piece of a line (no marks of its own) as words, to go into another line."""
    return str(t(key, lang, **kw))


def s_hp(e: Event, lang: str) -> str:
    """" (HP 4/6)" after a healed unit, when the event reports its HP (newer logs do)."""
    return i18n.t(lang, "story.hp_suffix", left=e["hp_left"], hp=e["hp"]) if "hp" in e else ""


def _mod(mod: int) -> str:
    """A roll's modifier as it is added: "+1", "+0", "−1" (R8.2)."""
    return f"+{mod}" if mod >= 0 else f"−{-mod}"


def _hp(e: Event, cs: CardSet, lang: str) -> str:
    """"Knight on 3A: 1 damage (HP 3/6)" for a `damaged` event."""
    card = e["card"]
    name = cs.name(card, lang) if card else "?"
    hp = e.get("hp")
    if hp is None:  # an event recorded before the engine reported HP (old logs)
        return s("damage", lang, card=name, square=e["square"], amount=e["amount"],
                 left="?", hp="?")
    return s("damage", lang, card=name, square=e["square"], amount=e["amount"],
             left=e["hp_left"], hp=hp)


def narrate(events: Sequence[Event], names: list[str], cs: CardSet, lang: str = "en",
            limit: int = 25) -> list[Line]:
    """Readable lines for already-filtered events; long stories end with a count.

    A monster's attack is told with the damage it did and the HP left ("Lich on 6A attacks
    Knight on 3A: 1 damage (HP 3/6)"), so the `damaged` events it caused are folded into
    its line; consecutive monster moves on one board share a line ("Goblin 5B → 3B, …").
    """
    def n(key: str | None) -> str:
        return cs.name(key, lang) if key else "?"

    lines: list[Line] = []
    summons: tuple[int, str, str, list[str]] | None = None  # last line: a summon, its boards
    used: set[int] = set()  # damaged events already told inside an attack's line
    moves: tuple[int, list[str]] | None = None  # the board whose monster moves are pending

    def flush_moves() -> None:
        nonlocal moves
        if moves is not None:
            lines.append(t("monster_moves", lang, p=names[moves[0]],
                           moves=sep(lang).join(moves[1])))
            moves = None

    for k, e in enumerate(events):
        kind = e["type"]
        if kind == "monster_moved":
            seat = e["player"]
            if moves is not None and moves[0] != seat:
                flush_moves()
            step = s("monster_move", lang, card=n(e["card"]), to=e["to"], **{"from": e["from"]})
            step += s("bonus", lang) if e.get("bonus") else ""
            moves = moves or (seat, [])
            moves[1].append(step)
            continue
        if kind in ("chip", "done", "autosave", "merc_claimed", "resolved"):
            continue  # silent: no line, and a pending moves line may go on after them
        flush_moves()
        if k in used:
            continue
        p = names[e["player"]] if "player" in e and e["player"] is not None else ""
        kw: dict[str, Any] = {"p": p}
        if kind == "phase":
            ph = e["phase"]
            if ph == "main":
                lines.append(t("phase_main", lang, round=e["round"],
                               start=names[e["start_player"]]))
            else:
                lines.append(t(f"phase_{ph}", lang))
        elif kind == "card":
            if e["auto"]:
                lines.append(t("card_auto", lang, card=n(e["card"])))
        elif kind == "picked":
            lines.append(t("picked", lang, p=p, card=n(e["card"])))
        elif kind == "rolled":
            res = result(e["result"], lang)
            mod = e.get("mod", e["total"] - sum(e["dice"]))
            lines.append(t("rolled", lang, p=p, d1=e["dice"][0], d2=e["dice"][1],
                           mod=_mod(mod), total=e["total"], result=res, target=e["target"],
                           attacker=n(e.get("attacker")), card=n(e.get("card")),
                           again=s("rerolled", lang) if e.get("rerolled") else "",
                           **{"from": e["from"], "def": e.get("def", "?")}))
        elif kind == "damaged":
            if e.get("by"):  # an allocated attack: its line names the attacker
                lines.append(t("damaged_by", lang, p=p, attacker=n(e["by"]), hit=_hp(e, cs, lang),
                               **{"from": e.get("from", "?")}))
            else:
                lines.append(t("damaged", lang, p=p, hit=_hp(e, cs, lang)))
        elif kind == "moved":
            lines.append(t("moved", lang, p=p, card=n(e["card"]), path="→".join(e["path"])))
        elif kind == "monster_attacked":
            hits = []
            for j in range(k + 1, len(events)):
                d = events[j]
                if d["type"] in ("monster_attacked", "monster_moved", "phase", "resolved"):
                    break
                if (d["type"] == "damaged" and d.get("player") == e["player"]
                        and d["square"] in e["targets"] and j not in used):
                    used.add(j)
                    hits.append(_hp(d, cs, lang))
            hits_sep = i18n.t(lang, "story.hits_sep")
            lines.append(t(kind, lang, p=p, card=n(e["card"]),
                           targets=hits_sep.join(hits) or sep(lang).join(e["targets"]),
                           **{"from": e["from"]}))
        elif kind == "summoned":
            card, square = n(e["card"]), e["square"]
            if (summons is not None and summons[0] == len(lines) - 1
                    and summons[1:3] == (card, square)):  # the same summon on every board
                summons[3].append(p)
                lines[-1] = t(kind, lang, p=i18n.join(lang, summons[3]), card=card, square=square)
            else:
                summons = (len(lines), card, square, [p])
                lines.append(t(kind, lang, p=p, card=card, square=square))
        elif kind in ("defeated", "fainted", "recruited", "placed"):
            lines.append(t(kind, lang, p=p, card=n(e["card"]), square=e["square"]))
        elif kind == "queued":
            lines.append(t(kind, lang, p=p, card=n(e["card"]), lane=e["lane"]))
        elif kind == "invaded":
            lines.append(t(kind, lang, p=p, card=n(e["card"])))
            if e.get("first"):  # a new player must learn the cost before the second one
                lines.append(t("invaded_first", lang, p=p))
        elif kind == "levelup":
            lines.append(t(kind, lang, p=p, square=e["square"], card=n(e["card"]),
                           price=e["price"]))
        elif kind == "command":
            lines.append(t(kind, lang, p=p, target=e["target"], **{"from": e["from"]}))
        elif kind == "area":
            lines.append(t(kind, lang, p=p, squares=sep(lang).join(e["squares"]) or "—",
                           **{"from": e["from"]}))
        elif kind == "fullmove":
            lines.append(t(kind, lang, p=p, square=e["square"]))
        elif kind == "declared":
            lines.append(t(kind, lang, players=sep(lang).join(names[s] for s in e["players"])))
        elif kind == "readied":
            lines.append(t(kind, lang, p=p, squares=sep(lang).join(e["squares"])))
        elif kind == "healed":
            hp = s_hp(e, lang)
            key = ("healed_support" if e.get("support") else
                   "healed_by" if e.get("by") else kind)  # older logs do not name the healer
            lines.append(t(key, lang, p=p, square=e["square"], card=n(e.get("card")), hp=hp,
                           healer=n(e.get("by")), **{"from": e.get("from", "?")}))
        elif kind == "gold" and e["amount"]:
            lines.append(t(kind, lang, p=p, amount=e["amount"], total=e["total"]))
        elif kind == "mercenaries":
            lines.append(t(kind, lang, cards=sep(lang).join(n(c) if c else "—" for c in e["cards"])))
        elif kind == "rolls" and e.get("mode") in ("miss", "always"):
            lines.append(t(f"rolls_{e['mode']}", lang, p=p))  # what the setting now changes
        elif kind == "medal_value":
            lines.append(t(kind, lang, value=e["value"]))
        elif kind == "final_round":
            lines.append(t(kind, lang, round=e["round"]))
        elif kind == "game_over":
            who = sep(lang).join(names[s] for s in e["winners"])
            key = ("game_over_loss" if not e["winners"] else
                   "game_over_draw" if e["draw"] else "game_over_win")
            lines.append(t(key, lang, winners=who, reason=reason(e, lang)))
        elif kind in ("honor", "eliminated", "medal", "merc_taken", "willpower", "timeout",
                      "undo", "passed"):
            kw.update({k2: v for k2, v in e.items() if k2 not in ("type", "player")})
            lines.append(t(kind, lang, **kw))
    flush_moves()
    if len(lines) > limit:
        lines = lines[:limit - 1] + [text(f"… (+{len(lines) - limit + 1})")]
    return lines


# ---- prompts: what a player can do now ------------------------------------------------------

def _mercenaries(game: Game, lang: str) -> str:
    """" or a mercenary: Knight (3 gold), …": what is on offer and what it costs, so a new
    player need not open the table image to choose (R7.1)."""
    cs = game.cards
    offer = [i18n.t(lang, "prompt.mercenary_cost", card=cs.name(m["card"], lang),
                    cost=cs.units[m["card"]].cost)
             for m in game.state["mercenaries"] if m is not None]
    if not offer:
        return ""
    return i18n.t(lang, "prompt.or_mercenary", offer=sep(lang).join(offer))


def prompt(game: Game, seat: int, lang: str = "en") -> Line | None:
    """What `seat` is asked now, or None when nothing is asked."""
    dec = game.decision(seat)
    if dec is None:
        return None
    kind = dec["kind"]
    mid = f"prompt.{kind}"
    cs = game.cards
    if dec["kind"] == "actions" or dec["kind"] == "ready":
        card = cs.name(dec["card"], lang) if dec["card"] in cs.commands else (
            i18n.t(lang, "prompt.fatigue"))
        n = dec["left"] if dec["kind"] == "actions" else dec["n"]
        return parse(i18n.plural_template(lang, mid, n), card=card, n=n)
    template = i18n.template(lang, mid)
    if dec["kind"] == "recruit":
        return parse(template, mercs=_mercenaries(game, lang) if dec["mercenaries"] else "")
    if dec["kind"] == "roll":
        res = result(dec["result"], lang)
        # offer only the boons that could raise the damage (engine/combat.py roll_options)
        boons = "both" if dec["can_reroll"] and dec["can_levelup"] else (
            "reroll" if dec["can_reroll"] else "levelup")
        return parse(template, d1=dec["dice"][0], d2=dec["dice"][1], total=dec["total"], result=res,
                     mod=_mod(dec["total"] - sum(dec["dice"])), **{"def": dec.get("def", "?")},
                     choices=i18n.t(lang, f"prompt.roll_{boons}"))
    if dec["kind"] == "pick":
        opts = sep(lang).join(cs.name(c, lang) for c in dec["options"])
        return parse(template) + i18n.t(lang, "prompt.pick_options", options=opts)
    return parse(template)
