"""What one player (or a spectator) may see (R3 hidden information).

Secrets are removed, never blurred: deck orders, face-down chips and medal pools become
counts, other players' medal values become a count, and the RNG state is dropped, so no
interface built on a view can leak them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from .cards import CardSet
from .state import State, monster_threat
from .types import View

E = TypeVar("E", bound=Mapping[str, Any])  # an engine Event, or one read back from a store


def view(cs: CardSet, st: State, seat: int | None) -> View:
    v: Any = json.loads(json.dumps({k: val for k, val in st.items()
                               if k not in ("rng", "monster_deck", "unit_deck", "medal_pool",
                                            "undo", "claims")}))
    pending = {c[0] for c in st["claims"]}  # mercenary choices not yet granted (R7.1)
    if pending:
        for k in range(len(v["log"]) - 1, -1, -1):
            who, text = v["log"][k]
            if who in pending and who != seat and text.startswith("recruit merc"):
                v["log"][k] = [who, "recruit (hidden until everyone has chosen)"]
                pending.discard(who)
    v["monster_deck_size"] = len(st["monster_deck"])
    v["unit_deck_size"] = len(st["unit_deck"])
    v["medal_pool_size"] = len(st["medal_pool"])
    v["chips"] = {"down": len(st["chips"]["down"]), "up": list(st["chips"]["up"])}
    v["viewer"] = seat
    # Card data is public (printed on the cards), so a custom set stays in the view: an AI or
    # a renderer given only a view must play with the same cards the engine judges with.
    v["setup"] = {k: st["setup"][k] for k in ("players", "options", "cards", "cards_version",
                                                "rules")
                  if k in st["setup"]}
    for i, p in enumerate(v["players"]):
        real = st["players"][i]
        p["medal_count"] = len(real["medals"])
        p["threat_public"] = monster_threat(cs, real)
        p["honor_marks"] = real["honor"] + len(real["defeated"])
        if i == seat:
            p["threat"] = p["threat_public"] + sum(real["medals"])
        else:
            del p["medals"]
    out: View = v  # built from the State's own keys above: the View shape by construction
    return out


def visible(events: Iterable[E], seat: int | None) -> list[E]:
    """The events `seat` may see: public ones, plus its own private ones (medal values)."""
    return [e for e in events
            if (vis := e.get("vis")) is None or (seat is not None and seat in vis)]
