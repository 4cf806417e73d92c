"""The round (R5): main phase and command cards (R6, R7), Enemy phase (R9, R10), End phase
(R11), and the checks that end a game (R9.3, R13, R14, R15).

`run` advances everything automatic until some player must decide or the game is over;
it is the only place phases change, so every interface sees the same sequence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from . import board, rng
from .cards import CardSet
from .combat import damage_unit
from .messages import REASONS
from .state import (
    Board,
    Card,
    Event,
    Piece,
    Player,
    Result,
    State,
    active,
    clockwise_from,
    is_monster,
    is_unit,
    marks,
    monsters_left,
    occupant,
    open_decision,
    sq,
    threat,
)
from .types import Claim, InvadedEvent, Termination

SOLO_FINAL = REASONS["end.final_round"]
# The readings of the rules a new game is played under, kept in its setup (`setup.rules`):
# 2 rebuilds the unit deck as soon as a reveal empties it (R11.3); 3 records the phase a game
# ended in (`result.ended_in`), keeps an answer given while others still answer the same
# step undoable (engine/game.py) and logs a `ready` in board order (engine/decisions.py); 4
# rebuilds a solo option game's unit deck from its discards too (R11.3, R13.2: the rulebook's
# option rule names the last round, it does not stop the reshuffle; the rules audit); 5 grants
# a claim on a mercenary taken first another copy of the same card still in the row (R7.1:
# a card is chosen by what it is, and two players naming the one card of which two were on
# offer both get one; the console audit). A game stored without the key (1), or with an
# older one, keeps what it was played with, so its log replays to the very state it stored
# (R15).
RULES_VERSION = 5


class UnknownRulesVersion(ValueError):
    """A setup names readings of the rules this release does not have: a newer release
    started the game. Refused, as an unknown card set is (engine/cards.py): played on under
    this release's readings, its next move would be judged and stored by other rules than
    the ones it was started under (the upgrade audit)."""

    def __init__(self, version: object) -> None:
        super().__init__(f"rules version {version!r} is not known to this release (it knows "
                         f"1 to {RULES_VERSION}): the game was started by a newer release")
        self.version = version


def check_rules(setup: Mapping[str, Any]) -> None:
    """Refuse a setup whose `rules` this release cannot play (see `UnknownRulesVersion`);
    a setup without the key was stored before it existed (readings 1)."""
    version = setup.get("rules", 1)
    if type(version) is not int or not 1 <= version <= RULES_VERSION:
        raise UnknownRulesVersion(version)


def run(cs: CardSet, st: State, ev: list[Event],
        on_resolved: Callable[[str, int], None] | None = None) -> None:
    """Advance automatic steps until a decision is pending or the game has ended.

    `on_resolved(what, n)` is called as each card or phase ends, with the state exactly as it
    stands then and `n` events emitted so far, so an interface can show every phase even when
    one answer sets several in motion.
    """
    seen = len(ev)
    for _ in range(10_000):  # bounded: each pass makes progress; a bug must not hang a bot
        if on_resolved is not None:
            _tell_resolved(ev, seen, on_resolved)
            seen = len(ev)
        if st["result"] is not None or st["decisions"]:
            return
        step = _STEPS.get(st["phase"])
        if step is None:
            return
        step(cs, st, ev)
    raise RuntimeError("engine flow did not settle")  # pragma: no cover


def _tell_resolved(ev: list[Event], seen: int, on_resolved: Callable[[str, int], None]) -> None:
    for k in range(seen, len(ev)):
        e = ev[k]
        if e["type"] == "resolved":
            on_resolved(e["what"], k + 1)


def _placement_step(cs: CardSet, st: State, ev: list[Event]) -> None:
    if st["step"] is None:
        _round_zero(cs, st, ev)
    else:
        _begin_round(st, ev)


def _main_step(cs: CardSet, st: State, ev: list[Event]) -> None:
    """The Main phase (R6) and its AUTO cards: one card resolved, chosen or executed."""
    if st["current"] is not None:
        _finish_card(cs, st, ev)
    elif st["phase"] == "main":
        _next_chooser(st)
    elif st["auto_left"]:
        execute(cs, st, st["auto_left"].pop(0), None, ev)
    else:
        _end_main(cs, st, ev)


def _next_chooser(st: State) -> None:
    """R6.1: the next player in turn order chooses a card; after the last, AUTO (R6.4)."""
    if st["turn"] >= len(st["turn_order"]):
        st["phase"] = "auto"
        unchosen = [c for c in st["row"] if c not in st["chosen"]]
        st["auto_left"] = unchosen[:-1]  # R6.5: the last card is never executed
        return
    seat = st["turn_order"][st["turn"]]
    if st["players"][seat]["eliminated"]:  # resigned this round
        st["turn"] += 1
        return
    opts = [c for c in st["row"] if c not in st["chosen"]]
    open_decision(st, seat, "pick", options=opts)


def _round_zero(cs: CardSet, st: State, ev: list[Event]) -> None:
    """R4.3–4.4: two summons, mercenaries revealed, then simultaneous initial placement."""
    st["step"] = "placing"
    ev.append({"type": "phase", "phase": "setup", "round": 0})
    if _reveal_mercenaries(st, ev) and st["setup"].get("rules", 1) >= 4 and _solo_option(st):
        # R13.2 [decision]: a run-out counts at a round's reset, round 1's the first; rules 4
        # rebuilt the deck at once, so round 1's could not see it (a custom set whose deck the
        # first reveal empties; rules 1–3 found it empty there: the final round 2 either way)
        st["final_round"] = 2
        ev.append({"type": "final_round", "round": 2})
    for _ in range(2):
        summon_procedure(cs, st, ev)
    for seat in active(st):
        open_decision(st, seat, "place")


def _begin_round(st: State, ev: list[Event]) -> None:
    if st["round"] == 0:
        ev.append({"type": "resolved", "what": "placement"})
    st["round"] += 1
    st.update({"phase": "main", "step": None, "chosen": [], "executed": [], "current": None,
               "leader": None, "turn": 0, "auto_left": []})
    st["turn_order"] = clockwise_from(st, st["start_player"])
    ev.append({"type": "phase", "phase": "main", "round": st["round"],
               "start_player": st["start_player"]})


# ---- command cards (R6, R7) -------------------------------------------------------------------

def pick(cs: CardSet, st: State, seat: int, card: str, ev: list[Event]) -> None:
    """R6.2: the chosen card moves to the front, after those already chosen; executed at once."""
    st["row"].remove(card)
    st["row"].insert(len(st["chosen"]), card)
    st["chosen"].append(card)
    ev.append({"type": "picked", "player": seat, "card": card})
    execute(cs, st, card, seat, ev)


def skip_turn(st: State, seat: int, ev: list[Event]) -> None:
    """A chooser who timed out passes: no card is chosen (R15 default answer)."""
    ev.append({"type": "passed", "player": seat})
    st["turn"] += 1


def execute(cs: CardSet, st: State, card: str, leader: int | None, ev: list[Event]) -> None:
    """R6.3/R7: the LEADER's large effect, everyone else's small one (AUTO: all small)."""
    st["current"], st["leader"] = card, leader
    ev.append({"type": "card", "card": card, "leader": leader, "auto": leader is None})
    first = leader if leader is not None else st["start_player"]
    for seat in clockwise_from(st, first):
        p = st["players"][seat]
        lead = seat == leader
        if card in ("advance", "recruit") and lead:
            _gold(p, seat, 1, ev)
        if card == "reward":
            _gold(p, seat, 4 if lead else 2, ev)
        elif card == "rest":
            if lead:
                p["honor"] += 1
                ev.append({"type": "honor", "player": seat, "amount": 1})
            if any(is_unit(u) and u["acted"] for u in p["board"]):
                open_decision(st, seat, "ready", card="rest", n=2)
        elif card in ("advance", "raid"):
            n = 2 if card == "advance" or lead else 1
            if any(is_unit(u) and not u["acted"] for u in p["board"]):
                open_decision(st, seat, "actions", card=card, left=n, acted_now=[])
        elif card == "recruit":
            mercs = leader is not None  # R7.1: no mercenaries under AUTO
            if can_recruit(cs, st, seat, mercs):
                open_decision(st, seat, "recruit", card="recruit", mercenaries=mercs, again=False)


def resign(cs: CardSet, st: State, seat: int, ev: list[Event]) -> None:
    """A player leaves (or is removed by the others for absence): eliminated as in R9.3."""
    p = st["players"][seat]
    p["eliminated"] = True
    st["decisions"].pop(str(seat), None)
    st["claims"] = [c for c in st["claims"] if c[0] != seat]
    ev.append({"type": "eliminated", "player": seat, "resigned": True})
    if len(st["players"]) == 1:
        _finish(st, ev, winners=[], code="end.resigned")
        return
    _check_elimination(st, active(st) + [seat], ev)


def _gold(p: Player, seat: int, n: int, ev: list[Event]) -> None:
    p["gold"] += n
    ev.append({"type": "gold", "player": seat, "amount": n, "total": p["gold"]})


def can_recruit(cs: CardSet, st: State, seat: int, mercs: bool) -> bool:
    """R7.1: an empty home-area square and a card (hand, or mercenary) the gold can pay."""
    p = st["players"][seat]
    if not any(p["board"][i] is None for i in range(6)):
        return False
    cards = list(p["hand"]) + ([m for m in st["mercenaries"] if m] if mercs else [])
    return any(cs.units[c["card"]].cost <= p["gold"] for c in cards)


def _finish_card(cs: CardSet, st: State, ev: list[Event]) -> None:
    """All answers are in: grant mercenary claims in seat order from the LEADER (R7.1), then
    end the card and look for a winner (R14.3: checked at the end of every card)."""
    if st["claims"]:
        _grant_claims(cs, st, ev)
        if st["decisions"]:
            return
    card = st["current"]
    assert card is not None  # run() comes here only while a card is being resolved
    st["executed"].append(card)
    st["current"], st["leader"] = None, None
    ev.append({"type": "resolved", "what": card})
    if st["phase"] == "main":
        st["turn"] += 1
    check_victory(cs, st, ev)


def _grant_claims(cs: CardSet, st: State, ev: list[Event]) -> None:
    """Grant mercenary claims strictly in order from the LEADER, clockwise (R7.1, p.16: 'first
    come, processed in order from the player who chose the command'). A player whose
    mercenary was taken chooses again before anyone after them is granted anything: the
    later claims wait in `claims` until that choice is in, so no later player can take what
    the earlier one now chooses."""
    n = len(st["players"])
    lead = st["leader"] if st["leader"] is not None else st["start_player"]
    claims = sorted(st["claims"], key=lambda c: (c[0] - lead) % n)
    while claims:
        seat, merc_id, square = claims.pop(0)
        slot = _claimed_slot(st, merc_id, claims)
        if slot is None:
            ev.append({"type": "merc_taken", "player": seat})
            if can_recruit(cs, st, seat, True):
                open_decision(st, seat, "recruit", card="recruit", mercenaries=True, again=True)
                break
            continue
        card = st["mercenaries"][slot]
        assert card is not None  # slot was found holding it
        st["mercenaries"][slot] = None
        place_unit(cs, st, seat, card, board.square(square), ev, paid=True, mercenary=True)
    st["claims"] = claims


def _claimed_slot(st: State, merc_id: str, waiting: list[Claim]) -> int | None:
    """The row's slot a claim is granted from: the copy it named; once that was taken
    first, from rules 5 another copy of the same card that no claim still waiting names
    (R7.1: both players who named a card of which two were on offer get one)."""
    row = st["mercenaries"]
    slot = next((k for k, m in enumerate(row) if m and m["id"] == merc_id), None)
    if slot is not None or st["setup"].get("rules", 1) < 5:
        return slot
    # the copy named went to an earlier claimant's board in this same grant
    named = next((u["card"] for p in st["players"] for u in p["board"]
                  if u is not None and "owner" in u and u["id"] == merc_id), None)
    held = {str(c[1]) for c in waiting}
    return next((k for k, m in enumerate(row)
                 if m and m["card"] == named and m["id"] not in held), None)


def place_unit(cs: CardSet, st: State, seat: int, card: Card, i: int,
               ev: list[Event], paid: bool, mercenary: bool = False) -> None:
    p = st["players"][seat]
    if paid:
        p["gold"] -= cs.units[card["card"]].cost
    p["board"][i] = {"id": card["id"], "card": card["card"], "owner": seat, "dmg": 0,
                     "acted": False}
    ev.append({"type": "recruited" if paid else "placed", "player": seat, "card": card["card"],
               "square": sq(i), "mercenary": mercenary})


def _end_main(cs: CardSet, st: State, ev: list[Event]) -> None:
    """End of the Main phase: the solo final-round check (R13.2), then the Enemy phase."""
    if (len(st["players"]) == 1 and st["final_round"] is not None
            and st["round"] >= st["final_round"] and not _all_defeated(st)):
        _finish(st, ev, winners=[], code="end.final_round")
        return
    st["phase"] = "invasion"


# ---- Enemy phase: Invasion (R9) ---------------------------------------------------------------

def invasion(cs: CardSet, st: State, ev: list[Event]) -> None:
    st["current"] = "invasion"
    ev.append({"type": "phase", "phase": "invasion", "round": st["round"]})
    before = active(st)
    for seat in before:
        _invade_board(cs, st, seat, ev)
        if st["result"] is not None:
            return
    st["current"] = None
    ev.append({"type": "resolved", "what": "invasion"})
    if not _check_elimination(st, before, ev):
        check_victory(cs, st, ev)
    st["phase"] = "summon" if st["result"] is None else "over"


def _invade_board(cs: CardSet, st: State, seat: int, ev: list[Event]) -> None:
    """R9: scan 1A, 1B, …, 6C; each monster attacks or moves, at most once. The scan stops
    when its player is eliminated (R9.3) or the game ends (R13.1: a solo game is lost at the
    first invasion of the castle; nothing happens after it)."""
    p = st["players"][seat]
    b: Board = p["board"]
    done: set[str] = set()
    for i in range(board.SIZE):
        if p["eliminated"] or st["result"] is not None:
            return
        m = b[i]
        if not is_monster(m) or m["id"] in done:
            continue
        done.add(m["id"])
        mc = cs.monsters[m["card"]]
        squares = [board.monster_offset(i, off) for off in mc.range]
        in_range = [j for j in squares if j is not None and is_unit(b[j])]
        if not in_range:
            _monster_move(cs, st, seat, i, ev)
            continue
        targets = in_range if mc.area else in_range[:1]  # R9.1 numbered: lowest number
        ev.append({"type": "monster_attacked", "player": seat, "from": sq(i), "card": m["card"],
                   "targets": [sq(j) for j in targets]})
        fainted = False
        for j in targets:
            fainted |= not damage_unit(cs, st, seat, j, mc.atk, ev, enemy_phase=True)
        if fainted and b[i] is m:
            _monster_move(cs, st, seat, i, ev, bonus=True)  # R9 step 2: one bonus move


def _monster_move(cs: CardSet, st: State, seat: int, i: int, ev: list[Event],
                  bonus: bool = False) -> None:
    """R9.2: forward as far as MOV allows, jumping monsters, stopped short of units."""
    p = st["players"][seat]
    b: Board = p["board"]
    m = occupant(b, i)
    c, ln = board.col(i), board.lane(i)
    target = c - cs.monsters[m["card"]].mov
    while target >= 1 and is_monster(b[board.on(target, ln)]):
        target -= 1
    dest: int | None = None
    for k in range(c - 1, max(target, 1) - 1, -1):
        if is_unit(b[board.on(k, ln)]):
            for near in range(k + 1, c):  # nearest free square on the monster's side
                if b[board.on(near, ln)] is None:
                    dest = board.on(near, ln)
                    break
            if dest is None:
                return
            break
    else:
        if target < 1:
            b[i] = None
            _castle(cs, st, seat, m, ev)
            return
        dest = board.on(target, ln)
    b[i], b[dest] = None, m
    ev.append({"type": "monster_moved", "player": seat, "card": m["card"], "from": sq(i),
               "to": sq(dest), "bonus": bonus})


def _castle(cs: CardSet, st: State, seat: int, m: Piece, ev: list[Event]) -> None:
    """R9.2 invading the castle: solo loses; a boss, or a second blue, eliminates."""
    p = st["players"][seat]
    mc = cs.monsters[m["card"]]
    inv: InvadedEvent = {"type": "invaded", "player": seat, "card": m["card"]}
    if len(st["players"]) > 1 and not mc.red and not p["castle"]:
        inv["first"] = True  # the player survives this one: the story warns of the next
    ev.append(inv)
    card: Card = {"id": m["id"], "card": m["card"]}
    if len(st["players"]) == 1:
        p["castle"].append(card)
        _finish(st, ev, winners=[], code="end.castle_invaded")
        return
    if mc.red or p["castle"]:
        p["castle"].append(card)
        p["eliminated"] = True
        st["decisions"].pop(str(seat), None)
        ev.append({"type": "eliminated", "player": seat})
    else:
        p["castle"].append(card)


def _check_elimination(st: State, before: list[int], ev: list[Event]) -> bool:
    """R9.3: the last player standing wins; all out in one phase is a draw among them."""
    if len(st["players"]) == 1:
        return False
    alive = active(st)
    if len(alive) == 1:
        _finish(st, ev, winners=alive, code="end.last_standing")
        return True
    if not alive:
        _finish(st, ev, winners=before, code="end.all_eliminated",
                draw=len(before) > 1)
        return True
    return False


# ---- Enemy phase: Summon (R10) ------------------------------------------------------------------

def summon_phase(cs: CardSet, st: State, ev: list[Event]) -> None:
    st["current"] = "summon"
    ev.append({"type": "phase", "phase": "summon", "round": st["round"]})
    for seat in active(st):
        p = st["players"][seat]
        for ln in "ABC":  # R10.4: oldest first, until one cannot be placed
            q = p["queues"][ln]
            while q and _place_monster(p, seat, {"id": q[0]["id"], "card": q[0]["card"], "dmg": 0}, "ABC".index(ln), ev, True):
                q.pop(0)
    for _ in range(2):
        if st["monster_deck"]:
            summon_procedure(cs, st, ev)
    st["current"] = None
    ev.append({"type": "resolved", "what": "summon"})
    check_victory(cs, st, ev)
    if st["result"] is None:
        st["phase"], st["step"] = "end", "support"


def summon_procedure(cs: CardSet, st: State, ev: list[Event]) -> None:
    """R10.3: reveal a chip (reshuffle when all are up), draw, place on every board."""
    chips = st["chips"]
    if not chips["down"]:
        chips["down"], chips["up"] = sorted(chips["up"]), []
        ev.append({"type": "chips_reshuffled"})
    ln = chips["down"].pop(rng.randbelow(st["rng"], "chips", len(chips["down"])))
    chips["up"].append(ln)
    card = st["monster_deck"].pop(0)
    ev.append({"type": "chip", "lane": ln, "card": card["card"]})
    for seat in active(st):
        _place_monster(st["players"][seat], seat, {"id": card["id"], "card": card["card"],
                                                   "dmg": 0}, "ABC".index(ln), ev, False)


def _place_monster(p: Player, seat: int, m: Piece, ln: int, ev: list[Event],
                   from_queue: bool) -> bool:
    """R10.2: magic circle, else the next square forward past monsters; a unit in the way
    (or no free square) sends it to the back of the lane's waiting queue."""
    b: Board = p["board"]
    for c in range(board.COLUMNS, 0, -1):
        i = board.on(c, ln)
        if b[i] is None:
            b[i] = m
            ev.append({"type": "summoned", "player": seat, "square": sq(i), "card": m["card"],
                       "from_queue": from_queue})
            return True
        if is_unit(b[i]):
            break
    if not from_queue:
        p["queues"]["ABC"[ln]].append({"id": m["id"], "card": m["card"]})
        ev.append({"type": "queued", "player": seat, "lane": "ABC"[ln], "card": m["card"]})
    return False


# ---- End phase (R11) ----------------------------------------------------------------------------

def end_phase(cs: CardSet, st: State, ev: list[Event]) -> None:
    """The End phase (R11), one step at a time: support, fatigue recovery, the resets."""
    _END_STEPS.get(st["step"] or "", _end_resets)(cs, st, ev)


def _end_support(cs: CardSet, st: State, ev: list[Event]) -> None:
    """R11.1: the players with most monsters may heal 1 damage."""
    st["current"] = "end"
    ev.append({"type": "phase", "phase": "end", "round": st["round"]})
    st["step"] = "fatigue"
    for seat in supported(st):
        if any(is_unit(u) and u["dmg"] > 0 for u in st["players"][seat]["board"]):
            open_decision(st, seat, "support")


def _end_fatigue(cs: CardSet, st: State, ev: list[Event]) -> None:
    """R11.2: fatigue recovery readies up to 2 acted units."""
    st["step"] = "reset"
    for seat in active(st):
        if any(is_unit(u) and u.get("acted") for u in st["players"][seat]["board"]):
            open_decision(st, seat, "ready", card="fatigue", n=2)


def _end_resets(cs: CardSet, st: State, ev: list[Event]) -> None:
    """Mercenary reset, command reset, start player (R11.3–5), then the next round."""
    st["discard"] += [m for m in st["mercenaries"] if m]
    st["mercenaries"] = [None, None, None]
    ran_out = _reveal_mercenaries(st, ev)
    if _solo_option(st) and (ran_out or not st["unit_deck"]) and st["final_round"] is None:
        st["final_round"] = st["round"] + 1  # R13.2
        ev.append({"type": "final_round", "round": st["final_round"]})
    if len(active(st)) != 4:
        rng.shuffle(st["rng"], "table", st["row"])
    if len(st["players"]) > 1:
        st["start_player"] = clockwise_from(st, (st["start_player"] + 1) % len(st["players"]))[0]
    st["current"] = None
    ev.append({"type": "resolved", "what": "end"})
    if st["round"] >= st["options"].get("round_cap", 30):
        _round_cap(cs, st, ev)
        return
    st["step"] = "next"  # run() begins the next round at once


_END_STEPS: dict[str, Callable[[CardSet, State, list[Event]], None]] = {
    "next": lambda cs, st, ev: _begin_round(st, ev),
    "support": _end_support, "fatigue": _end_fatigue,
}


def _reveal_mercenaries(st: State, ev: list[Event]) -> bool:
    """R11.3: fill the row from the unit deck; returns whether the deck ran out meanwhile
    (R13.2: the round after that is a solo option game's last)."""
    rules = st["setup"].get("rules", 1)
    # The solo option (p.27) names the round after the deck runs out the last; it does not
    # stop the reshuffle of p.23, so from rules 4 its deck is rebuilt like any other and the
    # last round's row is full. Games of rules 1–3 kept the deck empty and the row short.
    reshuffles = not _solo_option(st) or rules >= 4
    ran_out = not st["unit_deck"]
    for k in range(3):
        if st["mercenaries"][k] is not None:
            continue
        if not st["unit_deck"] and reshuffles and st["discard"]:
            _reshuffle_units(st, ev)
        if st["unit_deck"]:
            st["mercenaries"][k] = st["unit_deck"].pop(0)
            ran_out = ran_out or not st["unit_deck"]
    # R11.3 (p.23: 「山札がなくなった場合、捨て札をシャッフルして新たな山札に」): a deck
    # the reveal has just emptied is rebuilt at once, from the discards as they are now.
    # Games of rules 1 waited for the next reveal, whose discards had grown by then.
    if rules >= 2 and not st["unit_deck"] and reshuffles and st["discard"]:
        _reshuffle_units(st, ev)
    ev.append({"type": "mercenaries", "cards": [m["card"] if m else None
                                               for m in st["mercenaries"]]})
    return ran_out


def _solo_option(st: State) -> bool:
    """A solo game under the option rule (R13.2): a difficulty, a final round."""
    return len(st["players"]) == 1 and st["options"].get("difficulty") is not None


def _reshuffle_units(st: State, ev: list[Event]) -> None:
    st["unit_deck"], st["discard"] = st["discard"], []
    rng.shuffle(st["rng"], "units", st["unit_deck"])
    ev.append({"type": "unit_deck_reshuffled"})


def supported(st: State) -> list[int]:
    """R11.1: top k by monsters on board + queues; a tie that overflows k leaves that rank out."""
    seats = active(st)
    if len(seats) < 2:
        return []
    k = 2 if len(seats) == 4 else 1
    counts = sorted(((monsters_left(st["players"][s]), s) for s in seats), reverse=True)
    chosen: list[int] = []
    idx = 0
    while idx < len(counts) and len(chosen) < k:
        rank = [s for c, s in counts if c == counts[idx][0]]
        if len(chosen) + len(rank) > k:
            break
        chosen += rank
        idx += len(rank)
    return sorted(chosen)


# ---- the end of the game -------------------------------------------------------------------------

def _all_defeated(st: State) -> bool:
    return not st["monster_deck"] and monsters_left(st["players"][0]) == 0


def check_victory(cs: CardSet, st: State, ev: list[Event]) -> None:
    """R13.1 solo: every monster defeated. R14.3: deck empty and threat ≤ 8 declares."""
    if st["result"] is not None:
        return
    if len(st["players"]) == 1:
        if _all_defeated(st):
            _finish(st, ev, winners=[0], code="end.all_defeated")
        return
    if st["monster_deck"]:
        return
    declarers = [s for s in active(st) if threat(cs, st["players"][s]) <= 8]
    if not declarers:
        return
    best = max((marks(st["players"][s]), st["players"][s]["gold"]) for s in declarers)
    winners = [s for s in declarers
               if (marks(st["players"][s]), st["players"][s]["gold"]) == best]
    # a declarer reveals its medal tokens (p.26): the threat it declares with, and what
    # decides between several (R14.4), told to everyone
    ps = [st["players"][s] for s in declarers]
    ev.append({"type": "declared", "players": declarers,
               "threat": [threat(cs, p) for p in ps], "medals": [sum(p["medals"]) for p in ps],
               "marks": [marks(p) for p in ps], "gold": [p["gold"] for p in ps]})
    _finish(st, ev, winners=winners, code="end.threat_low",
            draw=len(winners) > 1, cs=cs)


def _round_cap(cs: CardSet, st: State, ev: list[Event]) -> None:
    """R15: at the cap, lowest threat wins, then R14.4; solo has not won."""
    if len(st["players"]) == 1:
        _finish(st, ev, winners=[], code="end.round_cap")
        return
    seats = active(st)
    key = {s: (threat(cs, st["players"][s]), -marks(st["players"][s]), -st["players"][s]["gold"])
           for s in seats}
    best = min(key.values())
    winners = [s for s in seats if key[s] == best]
    _finish(st, ev, winners=winners, code="end.round_cap", draw=len(winners) > 1,
            cs=cs)


def _finish(st: State, ev: list[Event], winners: list[int], code: Termination, draw: bool = False,
            cs: CardSet | None = None) -> None:
    """End the game. `code` says why (engine/messages.py REASONS); "reason" keeps its English
    for readers of older states and logs."""
    seats = list(range(len(st["players"])))
    if cs is not None:
        seats.sort(key=lambda s: (st["players"][s]["eliminated"], s not in winners,
                                  threat(cs, st["players"][s]), -marks(st["players"][s]),
                                  -st["players"][s]["gold"]))
    else:
        seats.sort(key=lambda s: (s not in winners, st["players"][s]["eliminated"]))
    result: Result = {"winners": sorted(winners), "draw": draw, "reason": REASONS[code],
                      "code": code, "ranking": seats}
    if st["setup"].get("rules", 1) >= 3:
        result["ended_in"] = st["phase"]
    st["result"] = result
    st["phase"], st["decisions"] = "over", {}
    ev.append({"type": "game_over", "winners": result["winners"], "draw": draw,
               "reason": result["reason"], "code": code, "ranking": seats})


_STEPS: dict[str, Callable[[CardSet, State, list[Event]], None]] = {
    "placement": _placement_step, "main": _main_step, "auto": _main_step,
    "invasion": invasion, "summon": summon_phase, "end": end_phase,
}
"""What the flow does next in each phase (`over`: nothing)."""
