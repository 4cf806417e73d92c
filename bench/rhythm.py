"""The daily challenge's weekly rhythm, measured: how often an AI wins each weekday (issue 19).

    .venv/bin/python bench/rhythm.py --ai greedy --weeks 50 [--workers 2] [--secret TEXT]
    .venv/bin/python bench/rhythm.py --ai expert --weeks 25 --budget 200

Plays the days from `service.daily_schedule.RHYTHM_FROM` on, one game a day, as the par plays them
(`service.daily_play.par_seed`'s first run), under one secret (a test secret, never a live
one: the days differ per secret, the bands do not). The expert spends a count budget, not the
par's clock, so a run gives the same counts on a loaded machine. Prints, per weekday, its band
and wins out of weeks with a 95 % interval: the table in docs/daily.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import multiprocessing
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.daily import challenge_from_key, day_key  # noqa: E402
from service.daily_par import par_seed, play_out  # noqa: E402
from service.daily_schedule import RHYTHM, RHYTHM_FROM  # noqa: E402
from sim.runner import EXPERT_BUDGET, make_bot  # noqa: E402
from sim.stats import wilson  # noqa: E402

DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def play_day(args: tuple[bytes, int, str, int]) -> dict[str, Any]:
    """One day's game by one AI: whether it won, and the day's band as dealt."""
    secret, offset, level, budget = args
    day = RHYTHM_FROM + dt.timedelta(days=offset)
    challenge = challenge_from_key(day, day_key(secret, day))
    g = play_out(challenge, level, make_bot(level, par_seed(challenge, 0), budget))
    assert g.result is not None, f"{day} did not end"
    return {"day": day.isoformat(), "weekday": day.weekday(),
            "difficulty": challenge.difficulty,
            "modifiers": [m.id for m in challenge.modifiers],
            "won": bool(g.result["winners"]), "round": g.state["round"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ai", default="greedy", choices=("greedy", "expert"))
    ap.add_argument("--weeks", type=int, default=25)
    ap.add_argument("--secret", default="rhythm-bench", help="the test secret the days are dealt with")
    ap.add_argument("--budget", type=int, default=EXPERT_BUDGET, help="expert: simulated answers a decision")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--weekdays", default="0123456",
                    help="which weekdays to play (Monday 0 … Sunday 6), e.g. 45")
    ap.add_argument("--json", help="write every day's record here")
    ns = ap.parse_args(argv)
    if ns.weeks < 1 or ns.workers < 1:
        raise SystemExit("--weeks and --workers are at least 1")
    days = {int(c) for c in ns.weekdays if c.isdigit() and int(c) < 7}
    tasks = [(ns.secret.encode(), off, ns.ai, ns.budget) for off in range(7 * ns.weeks)
             if off % 7 in days]  # RHYTHM_FROM is a Monday
    if ns.workers == 1:
        records = list(map(play_day, tasks))
    else:
        with multiprocessing.get_context("fork").Pool(ns.workers) as pool:
            records = pool.map(play_day, tasks, chunksize=1)
    print(f"{ns.ai}, {ns.weeks} weeks from {RHYTHM_FROM}, secret {ns.secret!r}")
    for wd, name in enumerate(DAYS):
        recs = [r for r in records if r["weekday"] == wd]
        if not recs:
            continue
        wins = sum(r["won"] for r in recs)
        lo, hi = wilson(wins, len(recs))
        mods = Counter("+".join(r["modifiers"]) for r in recs)
        print(f"{name:9s} {RHYTHM[wd].difficulty:6s} {wins:3d} of {len(recs):3d} "
              f"({100 * wins / len(recs):4.0f} %, 95 % {100 * lo:.0f}–{100 * hi:.0f} %)  "
              f"{dict(mods.most_common(4))}")
    by_mod: dict[str, list[int]] = {}
    for r in records:
        for m in r["modifiers"] or ["(none)"]:
            by_mod.setdefault(f"{r['difficulty']}:{m}", []).append(r["won"])
    print("by difficulty and modifier:",
          ", ".join(f"{k} {sum(v)}/{len(v)}" for k, v in sorted(by_mod.items())))
    if ns.json:
        Path(ns.json).write_text(json.dumps({"ai": ns.ai, "weeks": ns.weeks, "secret": ns.secret,
                                             "records": records}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
