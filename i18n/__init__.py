"""Every word a person reads, from one gettext catalogue per language (`en.po`, `ja.po`).

Messages have symbolic ids (`story.picked`, `phase.invasion`, `console.help`) so an English
wording can change without touching code or the Japanese; the English text lives in en.po
like any other language. Placeholders are python-brace fields (`{card}`); counts take the
language's plural forms (`tn`; Japanese has one). The catalogues are read once, at import,
into plain dicts: a lookup is a dict access and a `str.format`. A language is a catalogue
file: every `*.po` here is one, found at import; what differs between languages (how a list is
joined, how a typed word is quoted, which language a card face names second) is a catalogue
entry, never a branch in code.

Narration templates may carry two marks, `<b>…</b>` and `<cmd>…</cmd>`, which
`service/lines.py` turns into marked pieces for each interface to format. How to add a
message or a language: i18n/README.md.

Depends on nothing but Babel (to read .po); the engine never imports it (its texts are codes
and parameters that the layers above translate).
"""

from __future__ import annotations

import gettext
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from babel.messages.pofile import read_po

HERE = Path(__file__).parent
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


def _load(path: Path) -> _Catalogue:
    with path.open("rb") as f:
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


CATALOGUES: dict[str, _Catalogue] = {
    p.stem: _load(p) for p in sorted(HERE.glob("*.po"), key=lambda p: (p.stem != DEFAULT, p.stem))}
LANGS = tuple(CATALOGUES)  # English first, then every other catalogue file here


def install(lang: str, path: Path, /) -> None:
    """Read one more catalogue (a translator's draft, a test's pseudo-language); the files
    in this folder are installed at import."""
    CATALOGUES[lang] = _load(path)


def lang_of_locale(locale: str | None, /) -> str:
    """The catalogue for a client's locale (`ja`, `pt-BR`): the locale itself, else its
    language (`pt`), else English."""
    code = str(locale or "").replace("_", "-")
    for cand in (code, code.split("-")[0]):
        if cand in CATALOGUES:
            return cand
    return DEFAULT


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


def join(lang: str, items: Iterable[object], /) -> str:
    """A list as the reader's language writes one (`Ann, Bob` / `Ann、Bob`): the separator
    is the catalogue's `story.list_sep`."""
    return template(lang, "story.list_sep").join(str(x) for x in items)


def named(lang: str, names: Mapping[str, str], /) -> str:
    """A name kept with its data (a card, a daily modifier: `{"en": …, "ja": …}`) in the
    reader's language, English where the data has none for it."""
    return names.get(lang_or_default(lang)) or names[DEFAULT]
