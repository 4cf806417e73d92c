"""Play whole games with AI players and record what a balance study needs, one game at a time.

A game is fully determined by its seed and the configuration (R15 determinism; each AI seat
gets its own seed derived from the game's), so `run` gives the same records for the same
command whatever the number of worker processes: games are handed out in seed order and the
results are collected back in that order. That holds for the `expert` too: here it thinks
with a count budget (`Config.budget`, simulated answers per decision) and no wall-clock cap,
so a loaded machine plays the same games as a quiet one, only slower (issue 19).
"""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import engine.cards
from ai import Player, make_player
from ai.expert import ExpertPlayer
from engine import Event, Game, parse, view

NAMES = ("P1", "P2", "P3", "P4")
# Why a game ended, classified from the events rather than the result's wording (which may
# change): the sim's own vocabulary.
REASONS = ("declaration", "all_defeated", "invasion", "elimination", "final_round",
           "round_cap", "other")
DEFAULT_CARDS = Path(engine.cards.__file__).with_name("data") / "cards.json"
MAX_ANSWERS = 20_000  # a game needs a few hundred answers; this bound only stops a runaway
EXPERT_BUDGET = ExpertPlayer().work  # the expert's own default count budget


@dataclass(frozen=True)
class Config:
    """One setting to measure: who plays, how, under which cards."""

    players: int = 1
    ai: tuple[str, ...] = ("greedy",)  # one level for every seat, or one per seat
    difficulty: str | None = None  # R13.2 solo option rule: easy | normal | hard
    cards: str | None = None  # a card data file; None = engine/data/cards.json
    round_cap: int = 30  # R15
    budget: int = EXPERT_BUDGET  # the expert's simulated answers per decision (no wall cap)
    variants: tuple[tuple[str, Any], ...] = ()  # setup variants (engine setup_variants)

    def level(self, seat: int) -> str:
        return self.ai[seat] if len(self.ai) > 1 else self.ai[0]

    def options(self) -> dict[str, Any]:
        opts: dict[str, Any] = {"round_cap": self.round_cap}
        if self.difficulty:
            opts["difficulty"] = self.difficulty
        opts.update(self.variants)
        return opts


@dataclass
class GameRecord:
    """What one finished game tells the statistics (plain data, JSON-ready)."""

    seed: int
    winners: list[int]
    draw: bool
    reason: str  # one of REASONS
    result_text: str  # the engine's own wording, for anything classified "other"
    rounds: int
    invasions: int
    eliminations: int
    start_player: int  # seat that took the first turn of round 1 (R4.2)
    # per seat: card key -> [times offered and affordable, times chosen], split by source
    offers: list[dict[str, list[int]]] = field(default_factory=list)
    recruited: list[list[str]] = field(default_factory=list)  # per seat, "merc:key"/"hand:key"


def use_cards(path: str | None) -> None:
    """Make `path` the card set of every game in this process, AI views included.

    The AI rebuilds a Game from a view, which carries no card data, so it would read the
    default file; pointing the engine's default at the file under study keeps the engine and
    every AI on the same values without touching the AI."""
    target = Path(path) if path else DEFAULT_CARDS
    if engine.cards.DATA_FILE != target:
        engine.cards.DATA_FILE = target
        engine.cards.default_cards.cache_clear()


@contextmanager
def cards_in_use(path: str | None) -> Iterator[None]:
    """`use_cards` for the length of a block, in this process (then the default again)."""
    use_cards(path)
    try:
        yield
    finally:
        use_cards(None)


def card_identity(path: str | None) -> dict[str, Any]:
    """Which card values a run plays with, for its JSON: the file's name, the SHA-256 of its
    values (sorted keys, so formatting does not matter) and the released version they are
    (engine/data/cards/vN.json; None for an unreleased draft). The name alone says nothing
    once the file is edited; the hash and the version do."""
    target = Path(path) if path else DEFAULT_CARDS
    data = json.loads(target.read_text(encoding="utf-8"))
    canon = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    with cards_in_use(path):
        version = engine.cards.default_version()
    return {"file": target.name, "sha256": hashlib.sha256(canon.encode()).hexdigest(),
            "version": version}


def make_bot(level: str, seed: int, budget: int = EXPERT_BUDGET) -> Player:
    """The AI of one seat; an expert searches `budget` simulated answers per decision with no
    wall-clock cap, so its choices depend on the seed alone, never on the machine's load."""
    if level == "expert":
        return ExpertPlayer(seed, budget=math.inf, work=budget)
    return make_player(level, seed)


def _offered(g: Game, seat: int) -> dict[str, int]:
    """Cards `seat` could recruit now (affordable, a free home square): 'merc:key'/'hand:key'."""
    out: dict[str, int] = {}
    for a in g.legal_actions(seat):
        if a.verb == "recruit" and a.card:
            out[("merc:" if a.merc else "hand:") + a.card] = 1
    return out


def _classify(g: Game, final: list[Event]) -> str:
    """Why the game ended, from the events of the answer that ended it and the round."""
    st = g.state
    res = g.result
    assert res is not None  # only asked about a finished game
    kinds = {e["type"] for e in final}
    solo = len(st["players"]) == 1
    if "declared" in kinds:
        return "declaration"
    if solo and res["winners"]:
        return "all_defeated"
    if solo and "invaded" in kinds:
        return "invasion"
    if any(e["type"] == "eliminated" and not e.get("resigned") for e in final):
        return "elimination"
    if solo and st["final_round"] is not None and st["round"] >= st["final_round"]:
        return "final_round"
    if st["round"] >= st["options"].get("round_cap", 30):
        return "round_cap"
    return "other"


def play_game(cfg: Config, seed: int) -> GameRecord:
    """One whole game; every seat answered by its AI from its own view only (R3). Plays with
    the card set in use in this process (see `use_cards`; `run` sets it from `cfg.cards`)."""
    n = cfg.players
    g = Game.new(list(NAMES[:n]), seed=seed, options=cfg.options())
    bots = [make_bot(cfg.level(s), seed * 8 + s, cfg.budget) for s in range(n)]
    offers: list[dict[str, list[int]]] = [{} for _ in range(n)]
    recruited: list[list[str]] = [[] for _ in range(n)]
    invasions = eliminations = 0
    start = g.state["start_player"]
    final: list[Event] = []
    for _ in range(MAX_ANSWERS):
        if g.over:
            break
        seat = g.waiting_for()[0]
        dec = g.decision(seat)
        offered = _offered(g, seat) if dec and dec["kind"] == "recruit" else {}
        text = bots[seat].choose(view(g.state, seat), seat)
        final = g.apply(seat, text)
        for key in offered:
            offers[seat].setdefault(key, [0, 0])[0] += 1
        if offered:
            a = parse(g.state["log"][-1][1])  # canonical text: card keys, not names
            if a.verb == "recruit" and a.card:
                key = ("merc:" if a.merc else "hand:") + a.card
                offers[seat].setdefault(key, [0, 0])[1] += 1
                recruited[seat].append(key)
        for e in final:
            invasions += e["type"] == "invaded"
            eliminations += e["type"] == "eliminated" and not e.get("resigned")
    else:
        raise RuntimeError(f"game {seed} did not end within {MAX_ANSWERS} answers")
    res = g.result
    assert res is not None  # the loop above ends only with the game
    return GameRecord(seed=seed, winners=list(res["winners"]), draw=bool(res["draw"]),
                      reason=_classify(g, final), result_text=res["reason"],
                      rounds=g.state["round"], invasions=invasions, eliminations=eliminations,
                      start_player=start, offers=offers, recruited=recruited)


def _play(args: tuple[Config, int]) -> dict[str, Any]:
    return asdict(play_game(*args))


def run(cfg: Config, seeds: range, workers: int | None = None,
        progress: Callable[[int, int], None] | None = None) -> list[dict[str, Any]]:
    """Records of every game in `seeds`, in seed order, spread over `workers` processes."""
    workers = max(1, workers or os.cpu_count() or 1)
    tasks = [(cfg, s) for s in seeds]
    out: list[dict[str, Any]] = []

    def collect(results: Iterator[dict[str, Any]]) -> None:
        for rec in results:
            out.append(rec)
            if progress:
                progress(len(out), len(tasks))

    if workers == 1 or len(tasks) < 2:
        with cards_in_use(cfg.cards):
            collect(map(_play, tasks))
    else:
        chunk = max(1, min(16, len(tasks) // (workers * 8)))
        with multiprocessing.get_context("fork").Pool(workers, use_cards, (cfg.cards,)) as pool:
            collect(pool.imap(_play, tasks, chunksize=chunk))
    return out


class StderrProgress:
    """A one-line progress bar on stderr (no dependency): done/total, rate, time left.

    Only on a terminal: redrawn into a log file it would be thousands of carriage-return
    updates, so there it writes one line at the end instead."""

    def __init__(self, label: str = "") -> None:
        self.label, self.t0, self.last = label, time.monotonic(), 0.0
        self.tty = sys.stderr.isatty()

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if not self.tty:
            if done == total:
                sys.stderr.write(f"{self.label}{done} games in {now - self.t0:.0f} s\n")
                sys.stderr.flush()
            return
        if done < total and now - self.last < 0.2:
            return
        self.last = now
        el = now - self.t0
        left = el / done * (total - done) if done else 0.0
        width = 30
        fill = width * done // max(total, 1)
        sys.stderr.write(f"\r{self.label}[{'#' * fill}{'.' * (width - fill)}] {done}/{total} "
                         f"{done / el if el else 0:.1f} games/s, {left:.0f} s left ")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()

