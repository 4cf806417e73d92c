"""A refusal in the reader's language, from its code and parameters.

The engine's refusals (`engine/messages.py`) and the service's own (`ServiceError.of`) are a
code plus parameters; this turns one into words through the catalogue (`refusal.<code>` in
i18n/*.po). Card names come in both languages with the refusal (`Name`), nested pieces
(`Phrase`) are translated the same way, lists (`Items`) are joined as the language joins
them. Nothing here reads the English back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import i18n
from engine import ActionError
from engine.messages import REASONS, Items, Name, Phrase

PREFIX = "refusal."


def say(lang: str, key: str, params: dict[str, Any]) -> str:
    """The refusal `key` with `params`, in `lang` (English when the language lacks it)."""
    return i18n.t(lang, PREFIX + key, **{k: _param(lang, v) for k, v in params.items()})


def _param(lang: str, value: Any) -> Any:
    if isinstance(value, Name):
        return value.ja if lang == "ja" else value.en
    if isinstance(value, Phrase):
        return say(lang, value.code, value.params)
    if isinstance(value, Items):
        sep = value.sep if lang == "en" else i18n.t(lang, "story.list_sep")
        return sep.join(str(_param(lang, v)) for v in value.items)
    return value


def words(e: ActionError, lang: str) -> str:
    """What a refusal says to a reader of `lang` (one only in English: its message)."""
    if not e.key:
        return e.message
    return say(lang, e.key, e.params)


def end_phrase(result: Mapping[str, Any]) -> Phrase | str:
    """Why a game ended, as a phrase (its `code`; states from before codes carry only the
    English, which is looked up whole — a state from a custom build is shown as it is)."""
    code = result.get("code") or _CODE_OF.get(result.get("reason", ""))
    return Phrase(code, {}) if code else str(result.get("reason", ""))


def reason(result: Mapping[str, Any], lang: str) -> str:
    """Why a game ended, in `lang`."""
    return str(_param(lang, end_phrase(result)))


def _codes() -> dict[str, str]:
    return {en: code for code, en in REASONS.items()}


_CODE_OF = _codes()
