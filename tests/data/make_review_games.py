"""Writes tests/data/review_games.json: solo games (played by greedy) with one planted
blunder each, for tests/test_review.py (issue 23, the game review).

A blunder is planted by the game's own rules, not by the reviewer's estimate: at one of
the player's decisions, an answer is put in the log instead of greedy's after which the
castle falls in that same round's Invasion (R9, R13.1: the solo game is lost), where
greedy's own answer kept the castle standing that round. Two kinds:
- `card`: a command card choice (R6, R7) that lets the castle fall;
- `lane`: a unit action that walks a unit into a lane (a move, no skill) after which the
  castle falls.
The rest of the log is greedy's play until the game ends.

    .venv/bin/python tests/data/make_review_games.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ai import make_player  # noqa: E402
from engine import Game, parse  # noqa: E402

OUT = Path(__file__).with_name("review_games.json")
STEPS = 5000


def finish(g: Game, seed: int, until_round: int | None = None) -> Game:
    bot = make_player("greedy", seed)
    for _ in range(STEPS):
        if g.over or (until_round is not None and g.round > until_round):
            break
        s = g.waiting_for()[0]
        g.apply(s, bot.choose(g.view(s), s))
    return g


def copy(g: Game) -> Game:
    return Game(json.loads(json.dumps(g.state)), g.cards)


def plant(kind: str) -> dict[str, Any]:
    for seed in range(1, 40):
        g = finish(Game.new(["Ann"], seed=seed, options={"difficulty": "easy"}), seed)
        setup, log = dict(g.setup), [list(e) for e in g.state["log"]]
        lasted = g.round
        before = Game.start(setup)
        for k in range(len(log)):
            dec = before.decision(0)
            rnd = before.round
            wanted = "pick" if kind == "card" else "actions"
            if dec is not None and dec["kind"] == wanted and 2 <= rnd < lasted:
                given = str(parse(log[k][1]))
                for alt in (str(a) for a in before.legal_actions(0)):
                    a = parse(alt)
                    if alt == given or (kind == "lane" and (
                            a.verb != "act" or a.skill is not None or a.to is None)):
                        continue
                    g2 = copy(before)
                    g2.apply(0, alt)
                    finish(g2, seed + 1, until_round=rnd + 1)
                    res = g2.result
                    if res is not None and res["code"] == "end.castle_invaded" \
                            and g2.round <= rnd + 1 < lasted - 1:
                        return {"kind": kind, "seed": seed, "setup": setup,
                                "log": [list(e) for e in g2.state["log"]], "blunder": k,
                                "played": alt, "greedy": given}
            before.apply(int(log[k][0]), str(log[k][1]))
    raise SystemExit(f"no {kind} blunder found")


def main() -> None:
    kinds = sys.argv[1:] or ["card", "lane"]
    games = [plant(kind) for kind in kinds]
    out = OUT if len(kinds) == 2 else OUT.with_suffix(f".{kinds[0]}.json")
    out.write_text(json.dumps(games, separators=(",", ":")) + "\n")
    for x in games:
        print(x["kind"], "seed", x["seed"], "answer", x["blunder"], x["played"], "instead of",
              x["greedy"], "log", len(x["log"]))


if __name__ == "__main__":
    main()
