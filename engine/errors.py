"""Typed action errors: every interface maps each type to its own kind of answer.

Each carries a message a player understands; the bot shows it ephemerally, the CLI prints it
and exits 2. Raising one never leaves a state half-changed: validation precedes mutation.
"""

from __future__ import annotations

EXCERPT = 24  # characters of a bad token quoted back at most


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """At most `limit` characters of something a user typed, for quoting it in a message.

    Quoting a bad token helps; echoing 5,000 emoji back as a 20 KB line does not, and no
    interface should have to trim the engine's messages."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


class ActionError(Exception):
    code = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
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


class GameOver(ActionError):
    code = "game_over"
