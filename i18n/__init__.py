"""Every word a person reads, from one gettext catalogue per language (`en.po`, `ja.po`).

Messages have symbolic ids (`story.picked`, `phase.invasion`, `console.help`) so an English
wording can change without touching code or the Japanese; the English text lives in en.po
like any other language. Placeholders are python-brace fields (`{card}`); counts take the
language's plural forms (`tn`; Japanese has one). The catalogues are read once, at import,
into plain dicts: a lookup is a dict access and a `str.format`.

Narration templates may carry two marks, `<b>…</b>` and `<cmd>…</cmd>`, which
`service/lines.py` turns into marked pieces for each interface to format. How to add a
message or a language: i18n/README.md.

Depends on nothing but Babel (to read .po); the engine never imports it (its texts are codes
and parameters that the layers above translate).
"""

from __future__ import annotations

import gettext
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from babel.messages.pofile import read_po

HERE = Path(__file__).parent
LANGS = ("en", "ja")
DEFAULT = "en"


class Msg(NamedTuple):
    """A parameter that is itself a message: translated, in the reader's language, when the
    message around it is (`t("ja", "bot.over", result=Msg("phase.over", {}))`)."""

    msgid: str
    params: dict[str, Any]


class _Catalogue(NamedTuple):
    singular: dict[str, str]
    plural: dict[str, tuple[str, ...]]
    plural_of: Callable[[int], int]


def _load(lang: str) -> _Catalogue:
    with (HERE / f"{lang}.po").open("rb") as f:
        cat = read_po(f, locale=None)
    singular: dict[str, str] = {}
    plural: dict[str, tuple[str, ...]] = {}
    for m in cat:
        if not m.id:
            continue  # the header
        strings = m.string if isinstance(m.string, (tuple, list)) else (m.string or "",)
        if isinstance(m.id, (tuple, list)):
            plural[str(m.id[0])] = tuple(str(s) for s in strings)
        else:
            singular[str(m.id)] = str(strings[0])
    expr = cat.plural_expr or "(n != 1)"
    return _Catalogue(singular, plural, gettext.c2py(expr))


CATALOGUES: dict[str, _Catalogue] = {lang: _load(lang) for lang in LANGS}


def is_plural(msgid: str, /) -> bool:
    """Whether `msgid` is a counted message (use `tn`)."""
    return msgid in CATALOGUES[DEFAULT].plural


def lang_or_default(lang: str | None) -> str:
    return lang if lang in CATALOGUES else DEFAULT


def _params(lang: str, params: dict[str, Any]) -> dict[str, Any]:
    return {k: t(lang, v.msgid, **v.params) if isinstance(v, Msg) else v
            for k, v in params.items()}


def template(lang: str, msgid: str, /) -> str:
    """The raw text of a message (placeholders unfilled): English when the language lacks
    it, the id itself when nobody has it (a test keeps that from ever shipping)."""
    lang = lang_or_default(lang)
    text = CATALOGUES[lang].singular.get(msgid) or CATALOGUES[DEFAULT].singular.get(msgid)
    return text if text else msgid


def plural_template(lang: str, msgid: str, n: int, /) -> str:
    """The raw text of a counted message in the form `n` takes in `lang`."""
    lang = lang_or_default(lang)
    for code in (lang, DEFAULT):
        cat = CATALOGUES[code]
        forms = cat.plural.get(msgid)
        if forms:
            form = forms[min(cat.plural_of(abs(int(n))), len(forms) - 1)]
            if form:
                return form
    return msgid


def t(lang: str, msgid: str, /, **params: Any) -> str:
    """The message `msgid` in `lang` (unknown languages get English), filled in."""
    return template(lang, msgid).format(**_params(lang_or_default(lang), params))


def tn(lang: str, msgid: str, n: int, /, **params: Any) -> str:
    """A counted message: the plural form `n` takes in `lang`; `{n}` is filled with n."""
    lang = lang_or_default(lang)
    return plural_template(lang, msgid, n).format(**_params(lang, {"n": n, **params}))


def pair(msgid: str, /, **params: Any) -> tuple[str, str]:
    """(English, Japanese) of one message: for the few places that need both at once."""
    return t("en", msgid, **params), t("ja", msgid, **params)
