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

from typing import Any, Literal

from .messages import english

# The kinds of refusal, one vocabulary for every layer (mypy checks each comparison against
# it): the engine raises the first six; the service, the store faults a player can meet, the
# bot and the console raise the rest through their subclasses of `ActionError`.
Code = Literal[
    "error", "syntax", "illegal", "not_your_decision", "stale", "game_over",
    # service/*.py (`ServiceError`)
    "refused", "busy", "uncertain", "over", "quarantined", "not_player", "not_owner", "vote",
    "wrong_game", "not_yours",
    "hints", "ai_seat", "daily_closed", "daily_done", "daily_future", "daily_none",
    "daily_past", "daily_practice_early", "daily_resign_moved", "daily_review_none",
    "daily_review_open", "daily_starting",
    # console/options.py `UsageError`, engine/__main__.py `CliError`: a start-up mistake
    "usage",
]

EXCERPT = 24  # characters of a bad token quoted back at most


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """At most `limit` characters of something a user typed, for quoting it in a message.

    Quoting a bad token helps; echoing 5,000 emoji back as a 20 KB line does not, and no
    interface should have to trim the engine's messages."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


class ActionError(Exception):
    """The root of every refusal (issue 21): the service's, the bot's, the console's and the
    CLI's derive from it, so each interface answers all of them in one handler.

    `key` names the refusal in the catalogue (the engine's: `engine/messages.py`); a layer
    above passes the English of its own keys as `english_text`, and a refusal that is only
    English (a CLI message, a legacy one every interface words by its `code`) has key "".
    """

    code: Code = "error"

    def __init__(self, key: str, english_text: str | None = None, /, **params: Any) -> None:
        message = english(key, params) if english_text is None else english_text
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
