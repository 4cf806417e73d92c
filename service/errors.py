"""The service's refusal type, in its own module so every service module can raise it."""

from __future__ import annotations


class ServiceError(Exception):
    """A refusal with a message the user should see (ephemeral in Discord)."""

    def __init__(self, message: str, code: str = "refused") -> None:
        super().__init__(message)
        self.message = message
        self.code = code
