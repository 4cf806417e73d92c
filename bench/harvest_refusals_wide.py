"""Harvest the engine's refusals from random games, to prove a rewrite of refusals changes no word.

Random legal play, interleaved with probes: a legal action with one token changed, random
verbs and words, garbage text, and legal text from the wrong seat. Every refusal a probe
gets is recorded with its English text and its Japanese rendering as the interfaces show it.
The walk is deterministic per seed and independent of the refusals' wording, so a later
checkout replays the same probes (`walk`) and `tests/test_refusal_corpus_wide.py` compares.

The corpus keeps the first few refusals of each message *shape* (squares, numbers and quoted
text blanked) so it stays small: `python bench/harvest_refusals_wide.py [games]` (run on a checkout from before
the typed refusals, e.g. aa00221, where the Japanese came from service/refusals_ja.py) writes
`tests/data/refusals_wide.jsonl` (one JSON object per line: seed, step, probe, seat, text, en, ja).
"""

from __future__ import annotations

import json
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine import ActionError, Game  # noqa: E402
from engine.board import NAMES  # noqa: E402

OUT = ROOT / "tests" / "data" / "refusals_wide.jsonl"
STEPS = 300  # legal actions per game at most
PROBES = 3  # probes before each legal action
PER_SHAPE = 1  # refusals kept per message shape

VERBS = ["pick", "place", "act", "recruit", "ready", "support", "levelup", "reroll", "keep",
         "done", "undo", "rolls", "autosave", "fly", "", "command", "attack"]
WORDS = ["advance", "raid", "thief", "archer", "warrior", "dragon", "merc", "to", "attack",
         "area", "heal", "command", "fullmove", "9Z", "on", ",", "2B,2B", "miss", "always",
         "sometimes", "Knight", "knight★", "priest", "0", "7", "-1", "x" * 40, "「」", "all"]


def probe(rng: random.Random, g: Game, seat: int) -> str:
    """One answer that is probably wrong, in one of several ways a player gets it wrong."""
    legal = [str(a) for a in g.legal_actions(seat)] or ["done"]
    kind = rng.random()
    if kind < 0.35:  # a legal action with one token changed
        toks = rng.choice(legal).split()
        toks[rng.randrange(len(toks))] = rng.choice(NAMES + WORDS)
        return " ".join(toks)
    if kind < 0.5:  # a legal action with one token dropped or doubled
        toks = rng.choice(legal).split()
        i = rng.randrange(len(toks))
        toks = toks[:i] + toks[i + 1:] if rng.random() < 0.5 else toks[:i + 1] + toks[i:]
        return " ".join(toks)
    if kind < 0.75:
        return " ".join([rng.choice(VERBS)] + [rng.choice(NAMES + WORDS)
                                               for _ in range(rng.randrange(5))])
    if kind < 0.8:  # garbage characters
        return "".join(rng.choice("aZ9 ,.-★「」\t") for _ in range(rng.randrange(12)))
    return rng.choice(legal)  # right text, possibly the wrong player


def walk(seed: int, steps: int = STEPS, only: set[tuple[int, int]] | None = None,
         ) -> Iterator[tuple[int, int, int, str, ActionError]]:
    """(step, probe, seat, text, refusal) for each refused probe of game `seed`; with `only`,
    just those (step, probe) pairs are tried (the walk itself is the same)."""
    rng = random.Random(seed)
    # rules=1: the readings of the rules at the harvest (engine/flow.py RULES_VERSION)
    g = Game.new([f"P{i}" for i in range(1 + seed % 4)], seed=seed,
                 options={"difficulty": ["easy", "normal", "hard"][seed % 3]} if seed % 8 == 0
                 else None, rules=1)
    for step in range(steps):
        if g.over:
            # Probes against a finished game (the game-over refusal and its reason).
            for k in range(PROBES):
                seat = rng.randrange(len(g.state["players"]))
                text = probe(rng, g, seat) if g.legal_actions(seat) else rng.choice(VERBS)
                if only is not None and (step, k) not in only:
                    continue
                try:
                    g.apply(seat, text)
                except ActionError as e:
                    yield step, k, seat, text, e
            return
        for k in range(PROBES):
            seat = rng.randrange(len(g.state["players"]))
            text = probe(rng, g, seat)
            if only is not None and (step, k) not in only:
                continue
            try:
                Game.from_json(g.to_json()).apply(seat, text)
            except ActionError as e:
                yield step, k, seat, text, e
        seat = rng.choice(g.waiting_for())
        g.apply(seat, rng.choice(g.legal_actions(seat)))


def shape(message: str) -> str:
    """The message with what varies blanked: quoted text, squares, numbers, names."""
    s = re.sub(r"'[^']*'", "'_'", message)
    s = re.sub(r"\b[1-6][A-Ca-c]\b", "SQ", s)
    s = re.sub(r"\d+", "N", s)
    return re.sub(r"\bP\d\b", "P", s)


def japanese(e: ActionError) -> str:
    """How a Japanese player reads the refusal (whatever the current checkout does: the
    regular-expression translation before the change, the catalogue after)."""
    try:
        from service.refusals import words
    except ImportError:  # a checkout from before the typed refusals
        from service.refusals_ja import localize  # type: ignore[import-not-found]

        return str(localize(e.message, "ja"))
    return words(e, "ja")


def main(games: int) -> None:
    kept: dict[str, int] = {}
    rows = []
    for seed in range(games):
        for step, k, seat, text, e in walk(seed):
            key = shape(e.message)
            if kept.get(key, 0) >= PER_SHAPE:
                continue
            kept[key] = kept.get(key, 0) + 1
            rows.append({"seed": seed, "step": step, "probe": k, "seat": seat, "text": text,
                         "en": e.message, "ja": japanese(e),
                         "type": type(e).__name__})
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    untranslated = sum(1 for r in rows if r["ja"] == r["en"])
    print(f"{games} games: {len(rows)} refusals kept, {len(kept)} shapes, "
          f"{untranslated} without Japanese -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
