"""A refusal in the reader's language, from its code and parameters.

The engine's refusals (`engine/messages.py`) and the service's own (`ServiceError.of`) are a
code plus parameters; this turns one into words through the catalogue (`refusal.<code>` in
i18n/*.po). Card names come in both languages with the refusal (`Name`), nested pieces
(`Phrase`) are translated the same way, lists (`Items`) are joined as the language joins
them (the catalogue's separators). Nothing here reads the English back.

A refusal that names a command marks it as narration does (`<cmd>abandon</cmd>`), so each
interface words it its own way: `line` gives the marked pieces (the console shows its own
command), `words` the text with `/rr` commands as Discord shows them (`i18n.slash`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import i18n
from engine import ActionError
from engine.messages import REASONS, Commands, Items, Name, Phrase

from .lines import COMMAND, Line, Piece, parse
from .notation import NOTATION_WORDS, PARTICLES, shown

PREFIX = "refusal."
NOTATION_PARAMS = ("verb", "word")  # parameters that quote a word of the notation
NOTATION_TEXT = ("syntax.after_move", "syntax.after_move_meant", "syntax.trailing")  # their `text` is the notation's
LITERAL_PARAMS = ("name", "text")  # a display name, or what a player typed
SEPARATORS = {" or ": "story.or_sep"}  # an `Items` separator → its catalogue entry


def say_line(lang: str, key: str, params: dict[str, Any]) -> Line:
    """The refusal `key` with `params`, in `lang` (English when the language lacks it);
    `Commands` parameters come out as marked commands, as the catalogue's own `<cmd>`s, and
    a nested `Phrase` keeps its own marks (" (or <cmd>levelup</cmd> SQUARE)")."""
    slots = {k: f"\x00{k}\x00" for k, v in params.items() if isinstance(v, Commands | Phrase)}
    line = parse(i18n.template(lang, PREFIX + key),
                 **{k: slots.get(k) or _param(lang, _word(key, k, v, lang))
                    for k, v in params.items()})
    if not slots:
        return line
    return _expand(line, {slots[k]: _pieces(lang, params[k]) for k in slots})


def _word(refusal: str, key: str, value: Any, lang: str) -> Any:
    """The notation's words a refusal quotes in the reader's words, as the notation is
    shown to them (service/notation.py): a `verb` or `word` ("use `support` and a square"),
    those inside the `text` of a refusal that quotes the notation (`NOTATION_TEXT`: what
    was typed reaches the engine in the notation's own words, and 「全力移動」 was quoted back
    as 'fullmove', the verification audit — a card name typed as `attack` stays as typed),
    and the list of `actions`."""
    if not isinstance(value, str):
        return value
    if key in NOTATION_PARAMS and value in NOTATION_WORDS:
        return shown(value, lang)
    if key == "text" and refusal in NOTATION_TEXT:
        # only the words after a verb: a verb there was typed as it stands (`act 2B done`)
        return " ".join(shown(w, lang) if w in PARTICLES else w for w in value.split(" "))
    if key == "actions":
        return i18n.join(lang, (shown(w, lang) for w in value.split(", ")))
    return value


def _pieces(lang: str, value: Commands | Phrase) -> list[Piece]:
    """What a slot stands for: a phrase's own line, or each verb a marked command."""
    if isinstance(value, Phrase):
        return list(say_line(lang, value.code, value.params))
    pieces: list[Piece] = []
    for i, verb in enumerate(value.verbs):
        pieces += [Piece(value.sep)] if i else []
        pieces.append(Piece(verb, COMMAND))
    return pieces


def _expand(line: Line, at: dict[str, list[Piece]]) -> Line:
    """`line` with each slot of `at` replaced by its pieces (plain ones take the mark of the
    text they stand in)."""
    slot = re.compile("|".join(re.escape(s) for s in at))
    pieces: list[Piece] = []
    for p in line:
        k = 0
        for m in slot.finditer(p.text):
            pieces.append(Piece(p.text[k:m.start()], p.mark))
            pieces += [Piece(q.text, q.mark or p.mark) for q in at[m.group()]]
            k = m.end()
        pieces.append(Piece(p.text[k:], p.mark))
    return Line(q for q in pieces if q.text)


def say(lang: str, key: str, params: dict[str, Any]) -> str:
    return str(say_line(lang, key, params))


def _param(lang: str, value: Any) -> Any:
    if isinstance(value, Name):
        return i18n.named(lang, value._asdict())
    if isinstance(value, Phrase):
        return say(lang, value.code, value.params)
    if isinstance(value, Items):
        sep = i18n.template(lang, SEPARATORS.get(value.sep, "story.list_sep"))
        return sep.join(str(_param(lang, v)) for v in value.items)
    if isinstance(value, Commands):  # inside a phrase: plain words
        return value.sep.join(value.verbs)
    return value


def line(e: ActionError, lang: str) -> Line:
    """What a refusal says to a reader of `lang`, its commands marked (one with no catalogue
    key, only in English: its message)."""
    if not e.key:
        return Line((Piece(e.message),))
    return say_line(lang, e.key, e.params)


def words(e: ActionError, lang: str, literal: Callable[[str], str] | None = None) -> str:
    """What a refusal says to a reader of `lang`, commands as Discord shows them; a
    person's display name and what a player typed (`LITERAL_PARAMS`, in nested phrases too)
    through `literal`, the interface's way to print typed text as it is (Discord: markdown
    and mentions defused)."""
    said = say_line(lang, e.key, _literal(e.params, literal)) if literal is not None and e.key \
        else line(e, lang)
    # cogs/text.markdown's form: the command as the reader's client lists it
    return "".join(f"`{i18n.slash(lang, p.text)}`" if p.mark == COMMAND else p.text
                   for p in said)


def _literal(params: dict[str, Any], literal: Callable[[str], str]) -> dict[str, Any]:
    """`params` with each typed text (`LITERAL_PARAMS`) through `literal`, nested phrases'
    too: a quoted `<@1>` or `**x**` is shown as typed, not as a mention pill or bold."""
    return {k: literal(v) if k in LITERAL_PARAMS and isinstance(v, str) else
            Phrase(v.code, _literal(v.params, literal)) if isinstance(v, Phrase) else v
            for k, v in params.items()}


# Reasons shown in other words than the engine's English, which stays as stored games hold
# it (a stored state replays to it exactly): the solo final round is lost at the end of its
# Main phase, not of the round (R13.2; the console audit read "the final round ended"
# though ⑤–⑦ never ran).
SHOWN = {"end.final_round": "end.final_round_main"}


def end_phrase(result: Mapping[str, Any]) -> Phrase | str:
    """Why a game ended, as a phrase (its `code`; states from before codes carry only the
    English, which is looked up whole — a state from a custom build is shown as it is)."""
    code = result.get("code") or _CODE_OF.get(result.get("reason", ""))
    return Phrase(SHOWN.get(code, code), {}) if code else str(result.get("reason", ""))


def reason(result: Mapping[str, Any], lang: str) -> str:
    """Why a game ended, in `lang`."""
    return str(_param(lang, end_phrase(result)))


def _codes() -> dict[str, str]:
    return {en: code for code, en in REASONS.items()}


_CODE_OF = _codes()
