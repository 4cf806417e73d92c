"""Turn game records into the balance figures of issue 9: plain, ordered, JSON-ready data.

Only arithmetic on the records happens here, so the same records always give the same
summary (the reproducibility the sim promises).
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from .runner import REASONS

Z95 = 1.959963984540054  # two-sided 95 % normal quantile


def wilson(wins: float, n: int) -> tuple[float, float]:
    """95 % Wilson score interval for a proportion: sound near 0 % and 100 % and for small n,
    where the plain normal interval leaves [0, 1]."""
    if n == 0:
        return (0.0, 0.0)
    p = wins / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def rate(wins: float, n: int) -> dict[str, Any]:
    lo, hi = wilson(wins, n)
    return {"wins": round(wins, 6), "games": n, "rate": round(wins / n, 6) if n else 0.0,
            "ci95": [round(lo, 6), round(hi, 6)]}


def share(rec: dict[str, Any], seat: int) -> float:
    """A seat's share of one game's win: 1, a fraction of a shared win (draw), or 0."""
    w = rec["winners"]
    return 1 / len(w) if seat in w else 0.0


def phi(a: int, b: int, c: int, d: int) -> float:
    """Correlation of two yes/no facts from a 2×2 table (a both, b first only, c second only,
    d neither); 0 when a margin is empty (no information)."""
    den = math.sqrt((a + b) * (c + d) * (a + c) * (b + d))
    return (a * d - b * c) / den if den else 0.0


def summarize(records: list[dict[str, Any]], players: int) -> dict[str, Any]:
    n = len(records)
    out: dict[str, Any] = {"games": n}
    if players == 1:
        out["win_rate"] = rate(sum(1 for r in records if r["winners"]), n)
    else:
        out["draws"] = sum(1 for r in records if r["draw"])
    out["rounds"] = _rounds(sorted(r["rounds"] for r in records))
    out["ended_by"] = {k: sum(1 for r in records if r["reason"] == k) for k in REASONS}
    out["round_cap_share"] = round(out["ended_by"]["round_cap"] / n, 6) if n else 0.0
    out["invasions"] = _per_game([r["invasions"] for r in records])
    out["eliminations"] = _per_game([r["eliminations"] for r in records])
    if players > 1:
        out.update(_fairness(records, players))
    out["cards"] = card_stats(records, players)
    return out


def _rounds(rounds: list[int]) -> dict[str, Any]:
    """How long the games (`rounds`, sorted) lasted: middle, spread, and every length."""
    q = statistics.quantiles(rounds, n=10, method="inclusive") if len(rounds) > 1 else rounds * 9
    return {
        "median": statistics.median(rounds) if rounds else 0,
        "mean": round(statistics.fmean(rounds), 3) if rounds else 0,
        "p10": q[0], "p90": q[-1], "min": rounds[0] if rounds else 0,
        "max": rounds[-1] if rounds else 0,
        "histogram": {str(k): rounds.count(k) for k in sorted(set(rounds))},
    }


def _fairness(records: list[dict[str, Any]], players: int) -> dict[str, Any]:
    """Wins by seat and by turn position against the fair share (1 / players): the first
    player's advantage is the largest excess."""
    n, fair = len(records), 1 / players
    by_pos = [rate(sum(share(r, (r["start_player"] + k) % players) for r in records), n)
              for k in range(players)]
    return {"fair_share": round(fair, 6),
            "win_by_seat": [rate(sum(share(r, s) for r in records), n) for s in range(players)],
            "win_by_turn_position": by_pos,
            "max_position_excess": round(max(p["rate"] for p in by_pos) - fair, 6)}


def _per_game(values: list[int]) -> dict[str, Any]:
    n = len(values)
    return {"total": sum(values), "per_game": round(sum(values) / n, 6) if n else 0.0,
            "games_with_any": sum(1 for v in values if v)}


def card_stats(records: list[dict[str, Any]], players: int) -> dict[str, Any]:
    """Per card and source (merc / hand): how often it was taken when offered and
    affordable, and how taking it (at least once in a game) goes with winning that game."""
    totals: dict[str, list[int]] = {}
    # per card: 2×2 over (player, game) pairs where it was offered: took it × won
    table: dict[str, list[int]] = {}
    for r in records:
        for seat in range(players):
            won = share(r, seat) > 0
            taken = set(r["recruited"][seat])
            for key, (offered, chosen) in r["offers"][seat].items():
                t = totals.setdefault(key, [0, 0])
                t[0] += offered
                t[1] += chosen
                cell = table.setdefault(key, [0, 0, 0, 0])
                took = key in taken
                cell[(0 if won else 2) if took else (1 if won else 3)] += 1
    out: dict[str, Any] = {}
    for key in sorted(totals):
        offered, chosen = totals[key]
        a, b, c, d = table[key]  # took&won, not&won, took&lost, not&lost
        took_games, not_games = a + c, b + d
        out[key] = {
            "offered": offered, "taken": chosen,
            "take_rate": round(chosen / offered, 6) if offered else 0.0,
            "win_rate_taken": round(a / took_games, 6) if took_games else None,
            "win_rate_not_taken": round(b / not_games, 6) if not_games else None,
            "win_correlation": round(phi(a, c, b, d), 6),
        }
    return out
