"""Where the first-round turn-position bias of 2–4 player games comes from (issue 9).

    python bench/positions.py --players 2 --games 300 [--cards FILE] [--set a.b=v ...]

Plays all-greedy games (seeds 1…N, like bench/balance.py) and, for the game's end, records
what could favour one turn position: who declared (R14.3), whether the win was decided
among several declarers by honor marks or by gold (R14.4), which first-round position was
start player in the round the game ended (R11.5 passes it on every round), and the end
round. Prints win share by first-round position overall and split by those facts, so the
cause of a bias can be read off rather than guessed.
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ai import make_player  # noqa: E402
from engine import Game, view  # noqa: E402
from engine.state import marks  # noqa: E402
from sim.runner import NAMES, use_cards  # noqa: E402

_spec = importlib.util.spec_from_file_location("balance", Path(__file__).with_name("balance.py"))
_balance = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(_balance)  # type: ignore[union-attr]
with_changes = _balance.with_changes


def one(args: tuple[int, int]) -> dict[str, Any]:
    """One all-greedy game; every seat expressed as its first-round turn position."""
    players, seed = args
    g = Game.new(list(NAMES[:players]), seed=seed, options={"round_cap": 30})
    bots = [make_player("greedy", seed * 8 + s) for s in range(players)]
    s0 = g.state["start_player"]
    declared: list[int] = []
    phase_at_end = ""
    for _ in range(20_000):
        if g.over:
            break
        seat = g.waiting_for()[0]
        phase_at_end = g.state["phase"]
        for e in g.apply(seat, bots[seat].choose(view(g.state, seat), seat)):
            if e["type"] == "declared":
                declared = list(e["players"])
    st = g.state

    def pos(s: int) -> int:
        return (s - s0) % players

    res = st["result"]
    ps = st["players"]
    by = "alone"
    if len(declared) > 1:
        mk = {s: marks(ps[s]) for s in declared}
        by = "marks" if len(set(mk.values())) > 1 and max(mk.values()) == marks(
            ps[res["winners"][0]]) and sum(v == max(mk.values()) for v in mk.values()) == 1 \
            else "gold/draw"
    return {"winners": [pos(s) for s in res["winners"]], "declared": [pos(s) for s in declared],
            "round": st["round"], "start_at_end": pos(st["start_player"]), "by": by,
            "phase": phase_at_end, "draw": bool(res["draw"])}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--cards")
    ap.add_argument("--set", action="append", default=[])
    ns = ap.parse_args(argv)
    cards = ns.cards
    if ns.set:
        cards = str(with_changes(cards, ns.set, Path(f"/tmp/positions-{ns.players}.json")))
    use_cards(cards)
    tasks = [(ns.players, s) for s in range(1, ns.games + 1)]
    if ns.workers > 1:
        with multiprocessing.get_context("fork").Pool(ns.workers, use_cards, (cards,)) as pool:
            recs = pool.map(one, tasks, chunksize=8)
    else:
        recs = [one(t) for t in tasks]
    n, p = len(recs), ns.players

    def share(rs: list[dict[str, Any]]) -> str:
        wins = Counter()
        for r in rs:
            for w in r["winners"]:
                wins[w] += 1 / len(r["winners"])
        return " / ".join(f"{100 * wins[k] / max(1, len(rs)):5.1f}" for k in range(p)) + \
            f"  ({len(rs)} games)"

    print(f"{p} players, {n} games — win share by first-round position 1…{p}")
    print(f"all                       {share(recs)}")
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in recs:
        groups[f"decided by {r['by']}"].append(r)
        groups[f"start player at end = pos {r['start_at_end'] + 1}"].append(r)
        groups[f"ended in round {r['round']}"].append(r)
        groups[f"{len(r['declared'])} declarer(s)"].append(r)
    for k in sorted(groups):
        print(f"{k:26s}{share(groups[k])}")
    decl = Counter(d for r in recs for d in r["declared"])
    print("declared at all by position: " + " / ".join(
        f"{100 * decl[k] / n:.1f}" for k in range(p)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
