"""`python -m sim`: play N games of one setting with AI players and print the balance figures.

Example (the figures of docs/balance.md):
    python -m sim --players 1 --ai greedy --difficulty normal --games 1000 --seed 1 \
        --json out.json --png out.png

The same command with the same seeds prints the same numbers, whatever --workers is and
however loaded the machine (the expert spends a count budget, `--budget`, never a clock).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ai import LEVELS
from engine import DIFFICULTY_DISCARDS, Game
from engine.cards import parse_cardset

from .chart import draw_chart
from .runner import (
    EXPERT_BUDGET,
    NAMES,
    Config,
    StderrProgress,
    card_identity,
    cards_in_use,
    run,
)
from .stats import summarize


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m sim", description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=1, choices=[1, 2, 3, 4])
    ap.add_argument("--ai", default="greedy",
                    help="AI level for every seat, or one per seat separated by commas "
                         f"(levels: {', '.join(LEVELS)})")
    ap.add_argument("--difficulty", choices=list(DIFFICULTY_DISCARDS),
                    help="solo option rule (R13.2); omit for the standard game")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a setup variant (the daily modifiers' options, e.g. "
                         "opening_monster=golem, start_gold=0, omit_commands=[\"rest\"]); "
                         "VALUE is JSON, or a bare word; repeat for several")
    ap.add_argument("--cards", help="card data file (default: engine/data/cards.json)")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1, help="first game seed; games use seed, seed+1, …")
    ap.add_argument("--round-cap", type=int, default=30, help="R15 round cap (at least 1)")
    ap.add_argument("--budget", type=int, default=EXPERT_BUDGET,
                    help="expert: simulated answers per searched decision (a count, no "
                         "wall-clock cap, so a run reproduces on any machine; default "
                         f"{EXPERT_BUDGET})")
    ap.add_argument("--workers", type=int, default=0, help="processes (0: one per core)")
    ap.add_argument("--json", help="write the summary (and per-game records) here")
    ap.add_argument("--png", help="write a chart (win rates, rounds) here")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    return ap.parse_args(argv)


def config_from(ns: argparse.Namespace) -> Config:
    levels = tuple(x.strip() for x in ns.ai.split(",") if x.strip())
    unknown = [lv for lv in levels if lv not in LEVELS]
    if unknown or not levels:
        raise SystemExit(f"unknown AI level {', '.join(unknown) or '(none)'}: "
                         f"choose from {', '.join(LEVELS)}")
    if len(levels) not in (1, ns.players):
        raise SystemExit(f"--ai names {len(levels)} levels for {ns.players} seats: "
                         "give one level, or one per seat")
    if ns.difficulty and ns.players != 1:
        raise SystemExit("--difficulty is the solo option rule (R13.2): only with --players 1")
    if ns.cards:
        check_cards(ns.cards)
    if ns.games < 1:
        raise SystemExit("--games must be at least 1")
    if ns.round_cap < 1:
        raise SystemExit(f"--round-cap must be at least 1 (R15), not {ns.round_cap}")
    if ns.budget < 1:
        raise SystemExit(f"--budget must be at least 1 simulated answer, not {ns.budget}")
    cfg = Config(players=ns.players, ai=levels, difficulty=ns.difficulty,
                 cards=str(Path(ns.cards).resolve()) if ns.cards else None,
                 round_cap=ns.round_cap, budget=ns.budget, variants=parse_options(ns.option))
    check_options(cfg)
    return cfg


def parse_options(pairs: list[str]) -> tuple[tuple[str, Any], ...]:
    """`KEY=VALUE` pairs as setup options: JSON values, so a list or a number reads as one,
    and a bare word (a monster's key) needs no quotes on a shell line."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise SystemExit(f"--option {pair!r}: write KEY=VALUE, e.g. opening_monster=golem")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        out[key.strip()] = value
    return tuple(out.items())


def check_options(cfg: Config) -> None:
    """Refuse a misspelt variant before any game runs: the engine would refuse it in every
    worker, and a silent standard game would measure the wrong thing."""
    try:
        with cards_in_use(cfg.cards):
            Game.new(list(NAMES[:cfg.players]), seed=0, options=cfg.options())
    except ValueError as e:
        raise SystemExit(f"--option: {e}") from None


def check_cards(path: str) -> None:
    """Refuse, in one line, a card data file that cannot be read as a card set: found out
    here, before any game, rather than as a traceback from every worker."""
    p = Path(path)
    if not p.is_file():
        raise SystemExit(f"card data file not found: {path}")
    try:
        parse_cardset(json.loads(p.read_text(encoding="utf-8")))
    except (OSError, ValueError) as e:  # unreadable, not UTF-8, not JSON, a bad number
        raise SystemExit(f"card data file {path} is not a card set: {e}") from None
    except KeyError as e:
        raise SystemExit(f"card data file {path} is not a card set: missing {e}") from None
    except (TypeError, AttributeError, IndexError) as e:
        raise SystemExit(f"card data file {path} is not a card set: a value of the wrong "
                         f"kind ({e})") from None


def describe(cfg: Config) -> str:
    ai = ",".join(cfg.ai)
    mode = f"solo {cfg.difficulty}" if cfg.difficulty else (
        "solo standard" if cfg.players == 1 else f"{cfg.players} players")
    if cfg.variants:
        mode += " + " + ", ".join(f"{k}={json.dumps(v)}" for k, v in cfg.variants)
    return f"{mode}, AI {ai}, cards {Path(cfg.cards).name if cfg.cards else 'default'}"


def pct(x: float) -> str:
    return f"{100 * x:5.1f} %"


def report(cfg: Config, s: dict[str, Any]) -> str:
    """The summary as text a person reads at a glance."""
    lines = [f"{describe(cfg)}: {s['games']} games"]

    def ci(r: dict[str, Any]) -> str:
        return f"{pct(r['rate'])}  (95 % CI {pct(r['ci95'][0])} – {pct(r['ci95'][1])})"

    if "win_rate" in s:
        lines.append(f"win rate            {ci(s['win_rate'])}")
    rd = s["rounds"]
    lines.append(f"rounds              median {rd['median']}, mean {rd['mean']}, "
                 f"10–90 % {rd['p10']}–{rd['p90']}, range {rd['min']}–{rd['max']}")
    ends = ", ".join(f"{k} {v}" for k, v in s["ended_by"].items() if v)
    lines.append(f"ended by            {ends}")
    lines.append(f"round cap share     {pct(s['round_cap_share'])}")
    for k in ("invasions", "eliminations"):
        v = s[k]
        lines.append(f"{k:<20}{v['total']} ({v['per_game']:.3f} per game, "
                     f"{v['games_with_any']} games with any)")
    if "win_by_seat" in s:
        lines.append(f"draws               {s['draws']}   (fair share {pct(s['fair_share'])})")
        for i, r in enumerate(s["win_by_seat"]):
            lines.append(f"  seat {i + 1}            {ci(r)}")
        for i, r in enumerate(s["win_by_turn_position"]):
            lines.append(f"  turn position {i + 1}   {ci(r)}")
        lines.append(f"best position above fair share: {100 * s['max_position_excess']:+.1f} points")
    lines.append("recruitment (offered & affordable → taken; win rate taken / not; phi)")
    for key, c in s["cards"].items():
        wt = "  –  " if c["win_rate_taken"] is None else pct(c["win_rate_taken"])
        wn = "  –  " if c["win_rate_not_taken"] is None else pct(c["win_rate_not_taken"])
        lines.append(f"  {key:<20}{c['taken']:>6}/{c['offered']:<6} {pct(c['take_rate'])}   "
                     f"{wt} / {wn}   {c['win_correlation']:+.3f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ns = parse_args(argv)
    cfg = config_from(ns)
    seeds = range(ns.seed, ns.seed + ns.games)
    progress = None if ns.quiet else StderrProgress(describe(cfg) + " ")
    records = run(cfg, seeds, ns.workers or None, progress)
    summary = summarize(records, cfg.players)
    print(report(cfg, summary))
    if ns.json:
        config: dict[str, Any] = {
            "players": cfg.players, "ai": list(cfg.ai), "difficulty": cfg.difficulty,
            "options": dict(cfg.variants), "cards": card_identity(cfg.cards), "round_cap": cfg.round_cap,
            "seeds": [seeds.start, seeds.stop - 1]}
        if "expert" in cfg.ai:
            config["budget"] = cfg.budget
        doc = {"config": config, "summary": summary, "records": records}
        Path(ns.json).write_text(json.dumps(doc, sort_keys=True, indent=1) + "\n",
                                 encoding="utf-8")
    if ns.png:
        draw_chart([(describe(cfg), summary)], cfg.round_cap).save(ns.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
