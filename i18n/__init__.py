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


def params(lang: str, params: Mapping[str, Any], /) -> dict[str, Any]:
    """`params` with each `Msg` put in `lang`, ready to fill a template (`t` does this; an
    interface that splits a template into marked pieces first fills them with these)."""
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


def t(lang: str, msgid: str, /, **kw: Any) -> str:
    """The message `msgid` in `lang` (unknown languages get English), filled in."""
    return template(lang, msgid).format(**params(lang_or_default(lang), kw))


def tn(lang: str, msgid: str, n: int, /, **kw: Any) -> str:
    """A counted message: the plural form `n` takes in `lang`; `{n}` is filled with n."""
    lang = lang_or_default(lang)
    return plural_template(lang, msgid, n).format(**params(lang, {"n": n, **kw}))


def join(lang: str, items: Iterable[object], /) -> str:
    """A list as the reader's language writes one (`Ann, Bob` / `Ann、Bob`): the separator
    is the catalogue's `story.list_sep`."""
    return template(lang, "story.list_sep").join(str(x) for x in items)


def sentences(lang: str, *parts: str) -> str:
    """Sentences one after the other as the language writes them (`story.sentences`: a space
    in English, none in Japanese after 。 or before （); empty parts are left out."""
    said = [p for p in parts if p]
    if not said:
        return ""
    out = said[0]
    for part in said[1:]:
        out = template(lang, "story.sentences").format(first=out, then=part)
    return out


def named(lang: str, names: Mapping[str, str], /) -> str:
    """A name kept with its data (a card, a daily modifier: `{"en": …, "ja": …}`) in the
    reader's language, English where the data has none for it."""
    return names.get(lang_or_default(lang)) or names[DEFAULT]


def slash(lang: str, command: str, /) -> str:
    """A Discord command as a reader of `lang` finds it in their client: `daily play` →
    `/rr デイリー プレイ`, `settings hints:` → `/rr 設定 ヒント許可:`, `rr-learn tutorial` →
    `/rr-学ぶ チュートリアル`. Discord shows each client the names uploaded for its locale
    (`command.*`, cogs/i18n.RookTranslator), so a text that named the English command would
    send a Japanese player looking for a name their list does not show.

    `command` is the path after `/rr ` (or a whole path from an `rr-…` group) with any
    `option:` or `option:value`; a word the catalogue does not name stays as it is."""
    words = command.split()
    root = words.pop(0) if words and words[0].startswith("rr-") else "rr"
    scope = [] if root == "rr" else [root]
    out = [_command_word(lang, [], root)]
    for word in words:
        name, colon, value = word.partition(":")
        out.append(_command_word(lang, scope, name) + colon + value)
        if not colon:
            scope.append(name)
    return "/" + " ".join(out)


def _command_word(lang: str, scope: list[str], word: str) -> str:
    """One command or option name in `lang`, found as the Translator finds it: the id its
    group gives it (`command.bot.remove`), else the word's own (`command.remove`), else the
    first command entry whose English is the word; else the word."""
    singular = CATALOGUES[lang_or_default(lang)].singular
    for mid in (".".join(["command", *scope, word]), f"command.{word}", command_id(word)):
        if mid and mid in singular:
            return singular[mid] or word
    return word


def command_id(english: str, /) -> str | None:
    """The catalogue id of a command name, option or choice by its English text (the first
    such `command.*` entry): discord.py hands the Translator the English each decorator was
    given, and where one English word needs two translations the decorator names its id."""
    return _COMMAND_IDS.get(english)


_COMMAND_IDS = {text: mid for mid, text in reversed(list(CATALOGUES[DEFAULT].singular.items()))
                if mid.startswith("command.")}
