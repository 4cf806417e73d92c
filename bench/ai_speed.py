"""The AIs' thinking time on two versions of the code, and proof that both decide alike.

    .venv/bin/python bench/ai_speed.py ab --old DIR [--new DIR] [--rounds 3] [--only NAME ...]
    .venv/bin/python bench/ai_speed.py record --code DIR --out X.jsonl [--only NAME ...]
    .venv/bin/python bench/ai_speed.py compare OLD.jsonl NEW.jsonl
    .venv/bin/python bench/ai_speed.py same-sim OLD.json NEW.json ...

A speed-up of the AI must not change a single decision (issue 19: the expert's strength and
every balance figure were measured with today's choices). `record` plays each setting's
seeded games with the code found in DIR (another worktree, e.g. `git worktree add --detach
/tmp/old main`), the way `python -m sim` plays them (sim.runner.make_bot: the expert's count
budget, no wall-clock cap), and writes one line per game: a digest of the whole game log
(every answer of every seat, in order), the result, the CPU seconds of the game and of each
searched expert decision. `compare` fails unless both recordings have the same digests game
by game, then prints the medians and the ratios. `ab` records old and new alternately
(`--rounds` times each, the old first) in one session, because a shared machine's load
drifts and a comparison of runs made an hour apart measures the drift; CPU time (the
process's own) is what is compared, since the wall time is mostly other processes.
`same-sim` compares `python -m sim --json` files game by game, timing fields stripped.

Settings (NAME): greedy-hard (solo Hard, 40 games), greedy-4p (4 greedy seats, 10 games),
expert-hard (solo Hard, 4 games), expert-2p / expert-3p / expert-4p (the expert against one,
two or three greedy seats, 2 games each; its rollouts play every seat's board, so a searched
decision costs more the more players there are).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]

# name: (levels per seat, solo difficulty, games)
SETTINGS: dict[str, tuple[tuple[str, ...], str | None, int]] = {
    "greedy-hard": (("greedy",), "hard", 40),
    "greedy-4p": (("greedy",) * 4, None, 10),
    "expert-hard": (("expert",), "hard", 4),
    "expert-2p": (("expert", "greedy"), None, 2),
    "expert-3p": (("expert", "greedy", "greedy"), None, 2),
    "expert-4p": (("expert", "greedy", "greedy", "greedy"), None, 2),
}


def record(names: list[str], out: Path, games: int | None) -> None:
    """Play the settings with the code on sys.path (set by `main` from --code)."""
    from ai.expert import ExpertPlayer
    from engine import Game, view
    from sim.runner import NAMES, Config, make_bot

    with out.open("w") as f:
        for name in names:
            levels, difficulty, n = SETTINGS[name]
            cfg = Config(players=len(levels), ai=levels, difficulty=difficulty)
            for seed in range(1, (games or n) + 1):
                g = Game.new(list(NAMES[:cfg.players]), seed=seed, options=cfg.options())
                bots = [make_bot(cfg.level(s), seed * 8 + s, cfg.budget)
                        for s in range(cfg.players)]
                searched: list[float] = []
                start = time.process_time()
                while not g.over:
                    seat = g.waiting_for()[0]
                    v = view(g.state, seat)
                    bot = bots[seat]
                    t = time.process_time()
                    text = bot.choose(v, seat)
                    if isinstance(bot, ExpertPlayer) and bot.searched(
                            v, v["decisions"][str(seat)]["kind"]):
                        searched.append(time.process_time() - t)
                    g.apply(seat, text)
                cpu = time.process_time() - start
                log = json.dumps(g.state["log"], sort_keys=True).encode()
                res = g.result or {}
                f.write(json.dumps({"setting": name, "seed": seed,
                                    "log": hashlib.sha256(log).hexdigest(),
                                    "winners": res.get("winners"), "rounds": g.state["round"],
                                    "cpu": cpu, "searched": searched}) + "\n")
                f.flush()


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def compare(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> bool:
    """Same decisions game by game (a missing game counts as a difference), then speed."""
    same = True
    by_old = {(r["setting"], r["seed"]): r for r in old}
    for r in new:
        o = by_old.get((r["setting"], r["seed"]))
        if o is None or o["log"] != r["log"]:
            same = False
            print(f"DIFFERENT: {r['setting']} seed {r['seed']}")
    if len(by_old) != len({(r["setting"], r["seed"]) for r in new}):
        same = False
        print("DIFFERENT: the recordings hold other games")
    print(f"{'setting':12} {'games':>5} {'CPU s/game old':>15} {'new':>7} {'ratio':>6}  "
          f"searched decision CPU ms p50/p99/max  old → new")
    for name in dict.fromkeys(r["setting"] for r in new):
        o = [r for r in old if r["setting"] == name]
        n = [r for r in new if r["setting"] == name]
        oc = statistics.median(r["cpu"] for r in o)
        nc = statistics.median(r["cpu"] for r in n)
        line = f"{name:12} {len(n):5} {oc:15.3f} {nc:7.3f} {oc / nc:6.2f}"
        os_ = [x for r in o for x in r["searched"]]
        ns = [x for r in n for x in r["searched"]]
        if ns:
            line += ("  " + "/".join(f"{1000 * pct(os_, q):.0f}" for q in (0.5, 0.99, 1.0))
                     + " → " + "/".join(f"{1000 * pct(ns, q):.0f}" for q in (0.5, 0.99, 1.0))
                     + f"  ({len(ns)} decisions)")
        print(line)
    print("same decisions in every game" if same else "THE DECISIONS DIFFER")
    return same


def ab(old_dir: Path, new_dir: Path, names: list[str], rounds: int, games: int | None) -> bool:
    """Alternate old and new recordings; each side's per-game CPU is its runs' minimum (the
    least disturbed by other processes), and every run must decide alike."""
    tmp = Path(tempfile.mkdtemp(prefix="ai_speed."))
    runs: dict[str, list[list[dict[str, Any]]]] = {"old": [], "new": []}
    for k in range(rounds):
        for side, code in (("old", old_dir), ("new", new_dir)):
            out = tmp / f"{side}{k}.jsonl"
            cmd = [sys.executable, __file__, "record", "--code", str(code), "--out", str(out),
                   "--only", *names] + (["--games", str(games)] if games else [])
            subprocess.run(cmd, check=True, env={**os.environ, "PYTHONHASHSEED": "0"})
            runs[side].append(load(out))
            print(f"round {k + 1}/{rounds} {side} done", file=sys.stderr)
    merged = {}
    for side, rs in runs.items():
        first = rs[0]
        for r in first:
            r["cpu"] = min(x["cpu"] for x in (
                next(y for y in run if (y["setting"], y["seed"]) == (r["setting"], r["seed"]))
                for run in rs))
            r["searched"] = [x for run in rs for y in run
                             if (y["setting"], y["seed"]) == (r["setting"], r["seed"])
                             for x in y["searched"]]
        merged[side] = first
    same = all(compare(runs["old"][0], rs) for rs in runs["new"][1:] + runs["old"][1:])
    return compare(merged["old"], merged["new"]) and same


STRIP = ("cpu", "seconds", "time", "wall")  # a record's timing fields, if it ever has any


def clean(rs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in STRIP} for r in rs]


def same_sim(pairs: list[str]) -> bool:
    """`python -m sim --json` files, pairwise (old new old new …): equal per-game records."""
    ok = True
    for a, b in zip(pairs[::2], pairs[1::2], strict=True):
        ra = json.loads(Path(a).read_text())["records"]
        rb = json.loads(Path(b).read_text())["records"]
        same = clean(ra) == clean(rb)
        ok &= same
        print(f"{'same' if same else 'DIFFERENT'}: {a} vs {b} ({len(ra)} games)")
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--code", type=Path, default=HERE)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--only", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    r.add_argument("--games", type=int)
    c = sub.add_parser("compare")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    a = sub.add_parser("ab")
    a.add_argument("--old", type=Path, required=True)
    a.add_argument("--new", type=Path, default=HERE)
    a.add_argument("--rounds", type=int, default=3)
    a.add_argument("--only", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    a.add_argument("--games", type=int)
    s = sub.add_parser("same-sim")
    s.add_argument("files", nargs="+")
    ns = ap.parse_args(argv)
    if ns.cmd == "record":
        out = ns.out.resolve()
        sys.path.insert(0, str(ns.code.resolve()))
        os.chdir(ns.code)
        record(ns.only, out, ns.games)
        return 0
    if ns.cmd == "compare":
        return 0 if compare(load(ns.old), load(ns.new)) else 1
    if ns.cmd == "ab":
        return 0 if ab(ns.old.resolve(), ns.new.resolve(), ns.only, ns.rounds, ns.games) else 1
    return 0 if same_sim(ns.files) else 1


if __name__ == "__main__":
    sys.exit(main())
