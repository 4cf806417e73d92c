"""The service's refusal type, in its own module so every service module can raise it."""

from __future__ import annotations

from typing import Any

from engine.errors import ActionError, Code

from .refusals import say


class ServiceError(ActionError):
    """A refusal with a message the user should see (ephemeral in Discord).

    An `ActionError` (the one root, issue 21): `key` and `params` say which refusal it is,
    so each interface can put it in its reader's language (`service.refusals.words`);
    `message` is its English, `code` the kind of answer interfaces branch on."""

    def __init__(self, message: str, code: Code = "refused", key: str | None = None,
                 params: dict[str, Any] | None = None) -> None:
        super().__init__(key or "", message, **(params or {}))
        self.code = code

    @classmethod
    def of(cls, key: str, /, code: Code = "refused", **params: Any) -> ServiceError:
        """The service's own refusal `refusal.<key>` (i18n/*.po), its English as message."""
        return cls(say("en", key, params), code=code, key=key, params=params)
