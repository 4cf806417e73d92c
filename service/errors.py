"""The service's refusal type, in its own module so every service module can raise it."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """A refusal with a message the user should see (ephemeral in Discord).

    `key` and `params` (when set) say which refusal it is, so each interface can put it in
    its reader's language (`service.refusals.words`); `message` is its English."""

    def __init__(self, message: str, code: str = "refused", key: str | None = None,
                 params: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.key = key
        self.params = params or {}

    @classmethod
    def of(cls, key: str, /, code: str = "refused", **params: Any) -> ServiceError:
        """The service's own refusal `refusal.<key>` (i18n/*.po), its English as message."""
        from .refusals import say
        return cls(say("en", key, params), code=code, key=key, params=params)
