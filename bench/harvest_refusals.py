"""Harvest a corpus of engine refusals and game-end reasons from random games.

    git archive 08eabf4 | tar -x -C /tmp/old      # the code before refusals had codes
    cd /tmp/old && python bench/harvest_refusals.py [--games 1500] [--out refusals.json]

It needs that code (it imports `service/refusals_ja.py`, since deleted): its point is to record
what players read *before* the change. The committed corpus came from `--games 1500 --seed 11`.

Why: the refusal texts moved from English sentences (translated back by regular expressions)
to codes + parameters rendered from a catalogue. This corpus, harvested from the code as it
was, pins what a player read in both languages; `tests/test_refusal_corpus.py` replays every
input and checks the English is identical and the Japanese at least as good.

Each game is random legal play; before each legal answer a few wrong ones are tried: a legal
action mutated (square, card, verb swapped, tokens dropped or added), junk text, an answer
from a seat that is not asked, a stale decision id, an undo. Entries are deduplicated by the
message's *shape* (digits, squares and quoted text folded), so the corpus stays small while
covering every message the engine can give. Each entry records how to reach the refusal
again: the game (players, seed), the log before it, the seat, the input and the decision id.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import ActionError, Game, default_cards  # noqa: E402

_CARDS: re.Pattern[str]

SQUARES = [f"{c}{r}" for c in "123456" for r in "ABC"]
WORDS = ["pick", "place", "recruit", "act", "done", "ready", "support", "reroll", "keep",
         "levelup", "to", "attack", "area", "heal", "command", "fullmove", "rolls", "autosave",
         "advance", "raid", "knight", "thief", "archer", "cleric", "mage", "7Z", "0A", "xyz",
         "on", "off", "miss", "always", "sorcerer", "warrior", "fighter", "", "2B", "5B"]


def _card_names() -> re.Pattern[str]:
    cs = default_cards()
    names = [c.en for c in list(cs.units.values()) + list(cs.monsters.values())]
    names += [en for en, _ja in cs.commands.values()]
    return re.compile("|".join(re.escape(n) for n in sorted(set(names), key=len, reverse=True)))


def shape(text: str) -> str:
    """A message with its particulars folded, so two instances of one message dedupe."""
    t = re.sub(r"'[^']*'", "'*'", text)
    t = _CARDS.sub("CARD", t)
    t = re.sub(r"\b[1-6][A-C]\b", "SQ", t)
    return re.sub(r"\d+", "N", t)


def mutate(rng: random.Random, text: str) -> str:
    toks = text.split()
    r = rng.random()
    if r < 0.25 and toks:
        toks[rng.randrange(len(toks))] = rng.choice(SQUARES + WORDS)
    elif r < 0.4 and toks:
        del toks[rng.randrange(len(toks))]
    elif r < 0.55:
        toks.insert(rng.randrange(len(toks) + 1), rng.choice(SQUARES + WORDS))
    elif r < 0.7:
        toks = [rng.choice(WORDS)] + [rng.choice(SQUARES + WORDS) for _ in range(rng.randrange(4))]
    elif r < 0.85 and toks:
        toks[0] = rng.choice(WORDS)
    else:
        toks = [rng.choice(SQUARES) if rng.random() < 0.5 else t for t in toks]
    return " ".join(toks)


def harvest(games: int, seed: int) -> list[dict[str, Any]]:
    from service.refusals_ja import localize  # today's translation, before the change
    global _CARDS
    _CARDS = _card_names()
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[dict[str, Any]] = []

    def record(g: Game, players: int, gseed: int, log: list[list[Any]], seat: int, text: str,
               did: int | None, undo: bool = False) -> None:
        try:
            if undo:
                g.undo(seat)
            else:
                g.apply(seat, text, did)
        except ActionError as e:
            key = type(e).__name__ + ":" + shape(e.message)
            if key in seen:
                return
            seen.add(key)
            out.append({"players": players, "seed": gseed, "log": [list(x) for x in log],
                        "seat": seat, "input": text, "decision": did, "undo": undo,
                        "error": type(e).__name__, "en": e.message,
                        "ja": localize(e.message, "ja")})
            return
        raise AssertionError("a wrong answer was accepted")  # pragma: no cover

    for n in range(games):
        players, gseed = rng.choice([1, 2, 3, 4]), rng.randrange(10**6)
        g = Game.new([f"P{k}" for k in range(players)], seed=gseed)
        for _ in range(400):  # bounded: random games end well before
            if g.over:
                break
            log = [list(x) for x in g.state["log"]]
            seat = rng.choice(g.waiting_for())
            legal = g.legal_actions(seat)
            for _ in range(3):
                probe = Game.from_json(g.to_json())
                text = mutate(rng, str(rng.choice(legal)))
                try:
                    probe.apply(seat, text)
                except ActionError:
                    record(probe, players, gseed, log, seat, text, None)
            if rng.random() < 0.05:
                others = [s for s in range(players) if s not in g.waiting_for()]
                if others:
                    record(Game.from_json(g.to_json()), players, gseed, log, rng.choice(others),
                           str(legal[0]), None)
                dec = g.decision(seat)
                record(Game.from_json(g.to_json()), players, gseed, log, seat, str(legal[0]),
                       (dec or {}).get("id", 0) + 1000)
                probe = Game.from_json(g.to_json())
                if not probe.can_undo(seat):
                    record(probe, players, gseed, log, seat, "", None, undo=True)
            g.apply(seat, rng.choice(legal))
        if g.over:
            res = g.state["result"]
            key = "result:" + res["reason"]
            if key not in seen:
                seen.add(key)
                out.append({"players": players, "seed": gseed, "result": True,
                            "en": res["reason"], "ja": _reason_ja(res["reason"])})
            record(g, players, gseed, [list(x) for x in g.state["log"]], 0, "done", None)
        if n % 500 == 0:
            print(f"{n} games, {len(out)} entries", file=sys.stderr)
    return out


def _reason_ja(text: str) -> str:
    from service.narrate import REASONS_JA
    return REASONS_JA.get(text, text)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", default="tests/data/refusals.json")
    ns = ap.parse_args()
    corpus = harvest(ns.games, ns.seed)
    Path(ns.out).parent.mkdir(parents=True, exist_ok=True)
    Path(ns.out).write_text("[\n" + ",\n".join(json.dumps(e, ensure_ascii=False) for e in corpus) + "\n]\n")
    print(f"{len(corpus)} entries -> {ns.out}")


if __name__ == "__main__":
    main()
