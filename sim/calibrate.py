"""`python -m sim.calibrate`: fit the hints' and the review's chance to win (ai/chance.py).

    python -m sim.calibrate [--games 120] [--seed 1] [--workers 2] [--points FILE]  # ai/chance.json
    python -m sim.calibrate --check [--games 100] [--seed 5001]      # fitted against raw

Greedy plays whole games of every setting (solo standard, Easy, Normal, Hard; 2, 3 and 4
players). At each command-card decision of each seat, the position is sampled from that
seat's view and played on exactly as a hint plays it (ai/advise.py: the hidden parts
guessed, greedy for everyone, `HORIZON` rounds), scored by the evaluation if still running —
and then played on by greedy to the end. A logistic of the evaluation and the game's time
is fitted per setting to those ends: the chance that the game, played on, is won.
`--check` plays other seeds and prints, per setting, the Brier score and the mean chance
against the share won, by the game's time, for the old squash and the fitted one.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections import defaultdict
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, cast

from ai.advise import HORIZON, play_on, share_won
from ai.chance import DATA_FILE, SCALE, fitted, scaled, time_of
from ai.determinize import determinize
from ai.evaluate import evaluate
from ai.greedy import GreedyPlayer
from ai.model import cards_of
from engine import Game, State, view

SETTINGS: dict[str, tuple[int, dict[str, Any]]] = {
    "solo-standard": (1, {}),
    "solo-easy": (1, {"difficulty": "easy"}),
    "solo-normal": (1, {"difficulty": "normal"}),
    "solo-hard": (1, {"difficulty": "hard"}),
    "2p": (2, {}),
    "3p": (3, {}),
    "4p": (4, {}),
}
NAMES = ["Ann", "Bob", "Cid", "Dee"]
MAX_ANSWERS = 5000  # a bound on one game's answers (greedy ends a game in a few hundred)

Point = tuple[float, float, float]  # time, evaluation / SCALE, the share of the game won


def points(setting: str, seeds: range) -> list[Point]:
    """The calibration points of greedy games of `setting` with `seeds`."""
    players, options = SETTINGS[setting]
    out: list[Point] = []
    for seed in seeds:
        g = Game.new(NAMES[:players], seed=seed, options=options)
        bots = [GreedyPlayer(seed * 10 + s) for s in range(players)]
        rng = random.Random(seed)
        for _ in range(MAX_ANSWERS):
            if g.over:
                break
            seat = g.waiting_for()[0]
            v = view(g.state, seat)
            text = bots[seat].choose(v, seat)
            if text.startswith("pick"):
                cs = cards_of(v)
                sample = Game(cast(State, determinize(cs, v, seat, rng)), cs)
                policy = GreedyPlayer(rng.getrandbits(32))
                sample.apply(seat, text)
                play_on(sample, policy, sample.state["round"] + HORIZON)
                if not sample.over:
                    z = scaled(evaluate(cs, sample.state, seat))
                    play_on(sample, policy, None, MAX_ANSWERS)
                    if sample.over:
                        out.append((time_of(v), z, share_won(sample, seat)))
            g.apply(seat, text)
    return out


def _features(t: float, z: float) -> list[float]:
    return [1.0, z, t, t * t]


def fit(data: list[Point], l2: float = 1e-2, steps: int = 100) -> list[float]:
    """Logistic regression of the share won on `_features`: Newton's method with a small
    ridge on every weight (a setting nearly always won would otherwise drive the intercept
    to infinity) and steps of at most 1 in any weight."""
    w = [0.0, 1.0, 0.0, 0.0]
    k = len(w)
    for _ in range(steps):
        grad = [0.0] * k
        hess = [[0.0] * k for _ in range(k)]
        for t, z, y in data:
            x = _features(t, z)
            p = 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, sum(a * b for a, b in zip(w, x, strict=True))))))
            for i in range(k):
                grad[i] += (p - y) * x[i]
                for j in range(k):
                    hess[i][j] += p * (1 - p) * x[i] * x[j]
        for i in range(k):
            grad[i] += l2 * w[i]
            hess[i][i] += l2
        step = _solve(hess, grad)
        largest = max(abs(s) for s in step)
        if largest > 1.0:
            step = [s / largest for s in step]
        w = [a - b for a, b in zip(w, step, strict=True)]
        if max(abs(s) for s in step) < 1e-9:
            break
    return w


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """`a x = b` by Gaussian elimination with partial pivoting (a is small and positive
    definite)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for j in range(c, n + 1):
                m[r][j] -= f * m[c][j]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][j] * x[j] for j in range(r + 1, n))) / m[r][r]
    return x


def _chunks(games: int, seed: int, size: int = 25) -> Iterator[range]:
    for start in range(seed, seed + games, size):
        yield range(start, min(seed + games, start + size))


def collect(games: int, seed: int, workers: int) -> dict[str, list[Point]]:
    jobs = [(s, r) for s in SETTINGS for r in _chunks(games, seed)]
    data: dict[str, list[Point]] = defaultdict(list)
    with ProcessPoolExecutor(workers) as pool:
        for (s, _), pts in zip(jobs, pool.map(points, *zip(*jobs, strict=True)), strict=True):
            data[s].extend(pts)
    return data


def check(data: dict[str, list[Point]]) -> None:
    """The old squash and the fitted chance against the share won, by setting and time."""
    for s, pts in data.items():
        rows: dict[int, list[tuple[float, float, float]]] = defaultdict(list)
        brier_old = brier_new = 0.0
        for t, z, y in pts:
            old = 1.0 / (1.0 + math.exp(-z))
            new = fitted(s, t, z * SCALE)
            brier_old += (old - y) ** 2
            brier_new += (new - y) ** 2
            rows[round(t * 10)].append((old, new, y))
        n = len(pts)
        print(f"{s}: {n} points, Brier {brier_old / n:.3f} (the squash) → {brier_new / n:.3f} "
              f"(fitted)")
        print("   time     n  squash  fitted    won")
        for k, r in sorted(rows.items()):
            m = len(r)
            print(f"   {k:4d} {m:5d}  {sum(x[0] for x in r) / m:6.2f}  "
                  f"{sum(x[1] for x in r) / m:6.2f}  {sum(x[2] for x in r) / m:5.2f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sim.calibrate",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=120, help="games per setting")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--check", action="store_true",
                    help="measure the fitted chance on these games instead of fitting")
    ap.add_argument("--points", type=Path,
                    help="keep the collected points in this JSON file, or read them from it "
                         "if it exists (fit again without playing again)")
    args = ap.parse_args(argv)
    if args.games < 1 or args.workers < 1:
        print("--games and --workers must be at least 1", file=sys.stderr)
        return 2
    if args.points is not None and args.points.exists():
        try:
            data = {s: [(float(t), float(z), float(y)) for t, z, y in pts]
                    for s, pts in json.loads(args.points.read_text(encoding="utf-8")).items()
                    if s in SETTINGS}
        except (OSError, ValueError, TypeError, AttributeError) as e:
            print(f"{args.points} holds no calibration points: {e}", file=sys.stderr)
            return 2
    else:
        data = collect(args.games, args.seed, args.workers)
        if args.points is not None:
            args.points.write_text(json.dumps(data), encoding="utf-8")
    if args.check:
        check(data)
        return 0
    missing = sorted(set(SETTINGS) - {s for s, pts in data.items() if pts})
    if missing:
        print(f"no calibration points for {', '.join(missing)}: nothing written",
              file=sys.stderr)
        return 1
    fits = {s: [round(w, 4) for w in fit(pts)] for s, pts in data.items()}
    if any(w[1] <= 0 for w in fits.values()):
        print(f"a fit falls with the evaluation, not written: {fits}", file=sys.stderr)
        return 1
    DATA_FILE.write_text(json.dumps({
        "about": "ai/chance.py: per setting, the logistic weights of [1, evaluation / "
                 f"{SCALE:g}, time, time²] (time: rounds left to the solo deadline, else the "
                 "round, in tens). Written by `python -m sim.calibrate`.",
        "games_per_setting": args.games, "seed": args.seed,
        "points": {s: len(p) for s, p in data.items()},
        "fits": fits}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {DATA_FILE}: " + ", ".join(f"{s} {len(p)} points" for s, p in data.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
