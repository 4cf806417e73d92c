"""Typed action errors: every interface maps each type to its own kind of answer.

Like python-chess's exceptions, each error is data: `e.key` names the refusal (a code in
`engine/messages.py`, `refusal.<key>` in the catalogue) and `e.params` its particulars (unit,
square, numbers). `e.message` / `str(e)` is the English, rendered from them; interfaces
translate by key and parameters, never by parsing the English. The class's `code` is the
kind of answer (syntax, illegal, stale…) interfaces branch on. The bot shows the text
ephemerally, the CLI prints it and exits 2. Raising one never leaves a state half-changed:
validation precedes mutation.
"""

from __future__ import annotations

from typing import Any

from .messages import english

EXCERPT = 24  # characters of a bad token quoted back at most


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """At most `limit` characters of something a user typed, for quoting it in a message.

    Quoting a bad token helps; echoing 5,000 emoji back as a 20 KB line does not, and no
    interface should have to trim the engine's messages."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


class ActionError(Exception):
    code = "error"

    def __init__(self, key: str, /, **params: Any) -> None:
        message = english(key, params)
        super().__init__(message)
        self.key = key
        self.params = params
        self.message = message


class NotationError(ActionError):
    """The text is not an action at all (R-independent grammar, docs/notation.md)."""

    code = "syntax"


class IllegalAction(ActionError):
    """Well-formed, but the rules forbid it here; the message says which rule and why."""

    code = "illegal"


class NotYourDecision(ActionError):
    code = "not_your_decision"


class StaleDecision(ActionError):
    """Answer given to a prompt that has since changed (its decision id is old)."""

    code = "stale"


class GameFinished(ActionError):
    """An answer after the game ended (R13, R14). Not `service.GameOver`, which carries a
    finished game's row to an interface: this one is only a refusal."""

    code = "game_over"
