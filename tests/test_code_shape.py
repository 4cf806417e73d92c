"""The engine's shape as a maintainer meets it (issue 21, "decisions declared once").

Each check is one the issue measured by hand, kept from drifting back: no function of the
rules or of the story is too tangled to read in one sitting (radon grade D or worse), every
decision kind is declared in one place that the engine and the interfaces read, a board and
a game-end reason are types mypy checks (a rule reading a square it has not checked, or a
result with an unknown reason, is a type error), and each error name means one thing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import get_args

import pytest
from radon.complexity import cc_rank, cc_visit

import engine
from engine import Game, GameFinished, decisions
from engine.messages import REASONS
from engine.notation import VERBS
from engine.types import DecisionKind, Termination
from service.refusals import words

ROOT = Path(__file__).resolve().parents[1]
SHAPED = sorted((ROOT / "engine").glob("*.py")) + [ROOT / "service" / "narrate.py"]
PRODUCT = ("engine", "render", "service", "cogs", "console", "ai", "sim", "store", "i18n",
           "bot.py")


def graded_d_or_worse(paths: Iterable[Path]) -> list[str]:
    """Every function of `paths` that radon grades D or worse, as `file:line name grade`."""
    return [f"{path.relative_to(ROOT)}:{block.lineno} {block.fullname} "
            f"{cc_rank(block.complexity)} ({block.complexity})"
            for path in paths
            for block in cc_visit(path.read_text(encoding="utf-8"))
            if cc_rank(block.complexity) >= "D"]


def test_no_function_in_the_rules_or_the_story_is_graded_d_or_worse() -> None:
    """Issue 21: `legal_actions` (E), `parse` (E), `check_skill` (E) and `narrate` (F) were
    each one long branch per kind; radon grades every function of engine/ and
    service/narrate.py C or better (cyclomatic complexity 20 at most)."""
    assert graded_d_or_worse(SHAPED) == []


def test_no_product_function_is_graded_d_or_worse() -> None:
    """Issue 21, "rooms a newcomer can live in": beyond the rules and the story, 13 functions
    of the product were graded D or worse (a console line's handling, the console's loop, a
    tag's placement on the table image, the AI's potential, a move's announcement, …).
    Each is split where its parts have names of their own; every function of every product
    package (cogs, console, service, store, render, ai, sim, i18n, bot.py) is C or better."""
    paths = [p for name in PRODUCT for p in
             ([ROOT / name] if name.endswith(".py") else sorted((ROOT / name).rglob("*.py")))]
    assert graded_d_or_worse(paths) == []


def test_every_decision_kind_is_declared_once() -> None:
    """Issue 21: a decision kind's verbs, legality, answer, timeout, trivial answer and
    prompt live in one `DecisionRule` (engine/decisions.py), as boardgame.io declares
    moves; no table of verbs or per-kind branch is repeated in the engine or the story."""
    assert set(decisions.RULES) == set(get_args(DecisionKind))
    for kind, rule in decisions.RULES.items():
        assert rule.kind == kind and rule.verbs and set(rule.verbs) <= set(VERBS)
        assert rule.prompt_key == f"prompt.{kind}"
    sources = {p.name: p.read_text(encoding="utf-8")
               for p in [*(ROOT / "engine").glob("*.py"), ROOT / "service" / "narrate.py",
                         ROOT / "cogs" / "choices.py"]}
    assert not [name for name, text in sources.items()
                if "_ALLOWED" in text or 'getattr(self, f"_' in text]
    narrate = sources["narrate.py"]  # reads `Game.prompt`, branches on no kind
    assert 'dec["kind"]' not in narrate and "prompt.roll_" not in narrate


def test_a_wrong_verb_is_refused_with_the_declared_verbs() -> None:
    """R6.1 and docs/notation.md: answering a pick with `done` names what answers a pick,
    from the declaration (the game is left as it was)."""
    g = Game.new(["Ann", "Bob"], seed=3)
    seat = g.waiting_for()[0]
    for _ in range(10):  # the other placements, then the first pick (R4.4, R6.1)
        seat = g.waiting_for()[0]
        if g.decision_kind(seat) == "pick":
            break
        g.apply(seat, g.legal_actions(seat)[0])
    before = g.to_json()
    with pytest.raises(engine.IllegalAction) as refused:
        g.apply(seat, "done")
    assert refused.value.key == "wrong_verb"
    assert refused.value.params["verbs"].verbs == decisions.RULES["pick"].verbs
    assert "use `/rr pick`" in words(refused.value, "en")  # Discord: the command as typed there
    assert g.to_json() == before


def test_each_error_name_means_one_thing() -> None:
    """Issue 21: two classes were named `GameOver` (the engine's refusal, the service's
    finished game). The engine's refusal is `GameFinished`; `GameOver` is the service's."""
    assert not hasattr(engine, "GameOver")
    g = Game.new(["Ann"], seed=1)
    g.apply(0, "resign")
    with pytest.raises(GameFinished):
        g.apply(0, "done")


def test_every_end_reason_is_a_termination_with_english() -> None:
    """R9.3, R13, R14.3, R15: a stored result's `code` is one of the declared reasons, each
    worded (the English `reason` old readers keep)."""
    assert set(get_args(Termination)) == set(REASONS)
    g = Game.new(["Ann"], seed=1)
    g.apply(0, "resign")
    assert g.result is not None and g.result.get("code") == "end.resigned"


_UNCHECKED = """\
from engine.state import Board, Result  # the board the rule modules read

def card_on(b: Board) -> str:
    return b[0]["card"]  # a square read before anyone checked a piece stands there

def ended() -> Result:
    return {"winners": [], "draw": False, "reason": "?", "code": "end.bored", "ranking": []}
"""


@pytest.mark.process
def test_mypy_rejects_an_unchecked_square_and_an_unknown_end_reason(tmp_path: Path) -> None:
    """Issue 21: `Board = list[Any]` let about 20 rule functions read a square without the
    check that says what stands there, and a result's `code` was any string. Under
    `mypy --strict` both are now type errors."""
    probe = tmp_path / "probe.py"
    probe.write_text(textwrap.dedent(_UNCHECKED), encoding="utf-8")
    # no cache written: it would replace what `bash rr test`'s mypy keeps (issue 21)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent",
         "--config-file=", "--cache-dir", os.devnull, str(probe)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    out = done.stdout
    assert 'probe.py:4: error: Value of type "Piece | None" is not indexable' in out, out
    assert "probe.py:7: error:" in out and "end.bored" in out, out




@pytest.mark.process
def test_mypy_checks_the_whole_product_strict() -> None:
    """Issue 21, "`mypy --strict` on the whole product code, in `bash rr test`": the one
    mypy configuration (pyproject.toml, which `bash rr test` and CI run) is strict and
    covers every product package, so an untyped function or an `Any` returned as a real
    type anywhere in the product fails the suite's first step."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config.get("strict") is True
    assert set(config["files"]) == set(PRODUCT)
    assert "overrides" not in config  # nothing relaxed for one module
    assert '-m mypy &&' in (ROOT / "rr").read_text(encoding="utf-8")
