"""One refusal root, one handler per interface (issue 21).

Every refusal a person can meet — the engine's, the service's, the bot's own, the console's
and the CLI's usage mistakes — is an `engine.errors.ActionError` (a code, a catalogue key
and its parameters), so each interface answers all of them in one handler: the command
tree's `on_error` and `guarded` for Discord's clicks (cogs/actions.py), `Console.handle` for
the console. A command never catches a refusal just to word it.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
from mypy import api as mypy_api

from cogs.actions import AnsweringTree, Refusal
from cogs.bot import RookBot
from cogs.config import Config
from cogs.daily_words import DmUnreachable
from console.options import UsageError
from engine.__main__ import CliError
from engine.errors import ActionError
from service import GameOver, Quarantined, ServiceError
from service.shards import NotOwner

ROOT = Path(__file__).resolve().parent.parent
REFUSALS = {"ActionError", "ServiceError", "Refusal", "UsageError", "CliError", "GameOver",
            "Quarantined", "NotOwner", "DmUnreachable", "IllegalAction", "NotationError"}


@pytest.mark.parametrize("kind", [ServiceError, Quarantined, GameOver, NotOwner, Refusal,
                                  DmUnreachable, UsageError, CliError])
def test_every_refusal_is_an_action_error(kind: type[Exception]) -> None:
    """Issue 21: "one refusal root (engine's typed error with code + params as the base)"."""
    assert issubclass(kind, ActionError)


def test_a_refusal_keeps_its_key_params_and_english() -> None:
    e = ServiceError.of("svc.full", n=4)
    assert (e.key, e.params, e.code) == ("svc.full", {"n": 4}, "refused")
    assert str(e) == e.message and "4" in e.message
    usage = UsageError("bad option", "悪い")
    assert (usage.code, usage.key, usage.message, usage.text("ja")) == \
        ("usage", "", "bad option", "悪い")


def test_the_bot_answers_every_command_in_one_tree() -> None:
    """Issue 21: refusals "handled by one handler per interface" — the tree's `on_error`."""
    assert RookBot(Config(token=None), sync_commands=False, start_ticker=False).tree.__class__ \
        is AnsweringTree


def _handlers(path: Path) -> list[tuple[int, str, str]]:
    """(line, caught names, the line) of every `except` that catches a refusal type."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ExceptHandler) or node.type is None:
            continue
        caught = {n.id for n in ast.walk(node.type) if isinstance(n, ast.Name)} | \
            {n.attr for n in ast.walk(node.type) if isinstance(n, ast.Attribute)}
        if caught & REFUSALS:
            found.append((node.lineno, ",".join(sorted(caught & REFUSALS)),
                          lines[node.lineno - 1]))
    return found


def test_no_command_catches_a_refusal_to_word_it() -> None:
    """Issue 21: the ~32 `try/except ServiceError` blocks of cogs/ and console/ are gone. An
    `except` of a refusal left is the console's one handler, or does something other than
    wording it and says so on its line: `(not wording: …)` / `(not only wording: …)`."""
    stray = []
    for folder in ("cogs", "console"):
        for path in sorted((ROOT / folder).glob("*.py")):
            for line, caught, text in _handlers(path):
                if "(not wording" in text or "(not only wording" in text \
                        or "one refusal handler" in text:
                    continue
                stray.append(f"{folder}/{path.name}:{line} catches {caught}")
    assert not stray, "refusals caught to be worded outside the one handler:\n" + \
        "\n".join(stray)


def test_refusal_codes_are_checked_by_mypy(tmp_path: Path) -> None:
    """Issue 21: "codes as Literals … that mypy checks (no free strings the cogs compare)":
    a misspelt code is an error, a real one is not."""
    probe = tmp_path / "probe.py"
    probe.write_text(textwrap.dedent("""
        from engine.errors import ActionError

        def stale(e: ActionError) -> bool:
            return e.code == "stale"

        def typo(e: ActionError) -> bool:
            return e.code == "stael"
    """))
    # A cache of its own: mypy's cache holds one set of options, and sharing the one
    # `bash rr test` keeps made each of them check everything again (issue 21).
    out, err, status = mypy_api.run([
        "--strict-equality", "--follow-imports=silent", "--no-error-summary",
        "--cache-dir", str(ROOT / ".mypy_cache" / "probe-refusal-codes"), str(probe)])
    assert status == 1, (out, err)
    assert out.count("error:") == 1 and "Non-overlapping equality check" in out, out
    assert "probe.py:8" in out, out
