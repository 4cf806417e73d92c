"""Every setting issue 9's balance targets name, measured in one go, as a markdown table.

    python bench/balance.py --games 1000 --ai greedy --out bench/out/after [--cards FILE]

Writes one `python -m sim`-style JSON per setting into --out (plus a chart comparing them)
and prints the table docs/balance.md quotes: solo win rates by difficulty, the standard solo
game, and for 2–4 players the best first-round turn position above its fair share, median
rounds and the round-cap share; then each mercenary's take rate when offered and affordable.
Same arguments, same numbers (seeds --seed … --seed+games-1 for every setting).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sim.__main__ import describe  # noqa: E402
from sim.chart import draw_chart  # noqa: E402
from sim.runner import Config, StderrProgress, run  # noqa: E402
from sim.stats import summarize  # noqa: E402

SETTINGS = {
    "solo-easy": (1, "easy"), "solo-normal": (1, "normal"), "solo-hard": (1, "hard"),
    "solo-standard": (1, None), "2p": (2, None), "3p": (3, None), "4p": (4, None),
}
TARGET = {"solo-easy": 0.75, "solo-normal": 0.50, "solo-hard": 0.25}


def with_changes(base: str | None, changes: list[str], dest: Path) -> Path:
    """A copy of the card file `base` (default: the engine's) with `a.b.c=value` changes."""
    src = Path(base) if base else Path(__file__).resolve().parent.parent / "engine/data/cards.json"
    data = json.loads(src.read_text(encoding="utf-8"))
    for change in changes:
        path, _, value = change.partition("=")
        *parents, leaf = path.split(".")
        node = data
        for k in parents:
            node = node[k]
        if leaf not in node:
            raise SystemExit(f"--set {change}: no such value in the card data")
        node[leaf] = json.loads(value)
    dest.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return dest


# A second reasonable policy for robustness checks (issue 9: "a balance tuned to one AI's
# quirks fails"): greedy that prizes keeping its units whole and reaches less for damage.
PRESETS = {"cautious": ["unit_hp=1.6", "faint=6.0", "potential=0.8", "near=0.8",
                        "gold_cap=5"]}


def register_variant(specs: list[str]) -> str:
    """Register `greedy` with changed evaluation weights as an AI level of this process only
    (forked workers inherit it; the bot and console never see it) and return its name."""
    from dataclasses import fields, replace

    from ai.base import LEVELS
    from ai.evaluate import W
    from ai.greedy import GreedyPlayer

    changes: dict[str, float] = {}
    types = {f.name: f.type for f in fields(W)}
    for spec in [x for s in specs for x in PRESETS.get(s, [s])]:
        key, _, value = spec.partition("=")
        if key not in types:
            raise SystemExit(f"--weights {spec}: no such weight (see ai/evaluate.py Weights)")
        changes[key] = int(value) if types[key] in (int, "int") else float(value)
    weights = replace(W, **changes)
    name = "greedy[" + ",".join(specs) + "]"
    LEVELS[name] = lambda seed: GreedyPlayer(seed, weights)
    return name


def table(out: Path, names: list[str]) -> str:
    """The markdown tables (targets, then mercenaries) from the JSON files present in `out`:
    also usable on a run that was cut short, setting by setting."""
    rows, panels, mercs = [], [], {}
    for name in names:
        f = out / f"{name}.json"
        if not f.is_file():
            continue
        doc = json.loads(f.read_text())
        s, players = doc["summary"], doc["config"]["players"]
        panels.append((name, s))
        rd = s["rounds"]
        if players == 1:
            w = s["win_rate"]
            res = (f"{100 * w['rate']:.1f} % [{100 * w['ci95'][0]:.1f}–"
                   f"{100 * w['ci95'][1]:.1f}]")
            goal = f"{100 * TARGET[name]:.0f} ± 5" if name in TARGET else "85–95"
        else:
            pos = " / ".join(f"{100 * p['rate']:.1f}" for p in s["win_by_turn_position"])
            res = f"positions {pos} (best {100 * s['max_position_excess']:+.1f} pts)"
            goal = f"≤ {100 / players:.0f} + 5 each"
        ends = ", ".join(f"{k} {v}" for k, v in s["ended_by"].items() if v)
        rows.append(f"| {name} | {s['games']} | {res} | {goal} | {rd['median']} "
                    f"[{rd['p10']}–{rd['p90']}] | {100 * s['round_cap_share']:.1f} % | {ends} |")
        for key, c in s["cards"].items():
            if key.startswith("merc:"):
                m = mercs.setdefault(key[5:], [0, 0])
                m[0] += c["offered"]
                m[1] += c["taken"]
    if panels:
        draw_chart(panels).save(out / "chart.png")
    lines = ["| setting | games | result | target | rounds median [p10–p90] | round cap | ended by |",
             "|---|---|---|---|---|---|---|", *rows, "",
             "| mercenary | offered & affordable | taken | take rate |", "|---|---|---|---|"]
    lines += [f"| {key} | {off} | {took} | {100 * took / off if off else 0:.1f} % |"
              for key, (off, took) in sorted(mercs.items())]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ai", default="greedy")
    ap.add_argument("--cards")
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                    help="try a change without editing any file, e.g. monsters.wraith.atk=3 "
                         "(repeatable); the card file played is saved as OUT/cards.json")
    ap.add_argument("--weights", action="append", default=[], metavar="NAME=VALUE",
                    help="play a second policy: greedy with other evaluation weights "
                         "(ai/evaluate.py Weights, e.g. unit_hp=1.6; repeatable); "
                         "--weights cautious is a preset")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--only", help="comma-separated subset of: " + ", ".join(SETTINGS))
    ap.add_argument("--table", action="store_true", help="only print the tables of --out")
    ap.add_argument("--out", required=True)
    ns = ap.parse_args(argv)
    out = Path(ns.out)
    if ns.weights:
        ns.ai = register_variant(ns.weights)
    names = ns.only.split(",") if ns.only else list(SETTINGS)
    if not ns.table:
        out.mkdir(parents=True, exist_ok=True)
        if ns.set:
            ns.cards = str(with_changes(ns.cards, ns.set, out / "cards.json"))
        for name in names:
            players, diff = SETTINGS[name]
            cfg = Config(players=players, ai=(ns.ai,), difficulty=diff,
                         cards=str(Path(ns.cards).resolve()) if ns.cards else None)
            seeds = range(ns.seed, ns.seed + ns.games)
            s = summarize(run(cfg, seeds, ns.workers, StderrProgress(f"{name} ")), players)
            doc = {"config": {"players": players, "ai": [ns.ai], "difficulty": diff,
                              "cards": Path(ns.cards).name if ns.cards else None,
                              "round_cap": 30, "seeds": [seeds.start, seeds.stop - 1]},
                   "summary": s, "describe": describe(cfg)}
            (out / f"{name}.json").write_text(json.dumps(doc, sort_keys=True, indent=1) + "\n")
    print(table(out, names))
    return 0

if __name__ == "__main__":
    sys.exit(main())
