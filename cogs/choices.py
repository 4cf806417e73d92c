"""Autocomplete suggestions, computed from the engine's own list of legal answers.

Nothing here knows a rule: every suggestion is (part of) an action `Game.legal_actions`
returns, so a suggestion is legal by construction and the engine stays the one judge of
anything typed by hand. Functions are pure (game in, `(label, value)` pairs out) so they are
cheap to test and cannot touch Discord; the cog wraps them and turns any surprise into [].
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

import i18n
from engine import Action, Game, default_cards
from engine.board import NAMES, index
from engine.notation import Verb
from engine.types import Board

from .i18n import join, t

Pair = tuple[str, str]
LIMIT = 25  # Discord shows at most 25 choices
CHOICE_MAX = 100  # … and takes a choice's name and value up to 100 characters each


def _board(g: Game, seat: int) -> Board:
    return g.player(seat)["board"]


def _piece_label(g: Game, seat: int, square: str, lang: str) -> str:
    i = index(square)
    piece = _board(g, seat)[i] if i is not None else None
    if piece is None:
        return square
    name = g.cards.name(piece["card"], lang)
    if piece.get("dmg"):
        return i18n.t(lang, "choice.piece_damaged", square=square, name=name, n=piece["dmg"])
    return f"{square} {name}"


def _legal(g: Game, seat: int, verb: Verb) -> list[Action]:
    """The legal answers that begin with `verb` (a word of the notation mypy checks)."""
    return [a for a in g.legal_actions(seat) if a.verb == verb]


def narrow(pairs: Iterable[Pair], typed: str | None) -> list[Pair]:
    """Keep suggestions matching what the user typed (case- and width-insensitive: a
    Japanese IME types `２Ｂ`), at most 25. A name over Discord's 100 characters is
    shortened; a value over them is left out, never cut: a cut one would send the command
    something else than the suggestion named (the player can still type it whole)."""
    want = unicodedata.normalize("NFKC", typed or "").strip().casefold()
    out: list[Pair] = []
    seen: set[str] = set()
    for label, value in pairs:
        if value in seen or len(value) > CHOICE_MAX or (
                want and want not in label.casefold() and want not in value.casefold()):
            continue
        seen.add(value)
        out.append((label[:CHOICE_MAX], value))
        if len(out) >= LIMIT:
            break
    return out


def _sq(text: str | None) -> str | None:
    """A square as the engine names it, or None."""
    if not text:
        return None
    i = index(text.strip())
    return None if i is None else NAMES[i]


# ---- /rr act ----------------------------------------------------------------------------------

def act_units(g: Game, seat: int, lang: str) -> list[Pair]:
    squares = sorted({a.square for a in _legal(g, seat, "act") if a.square})
    return [(_piece_label(g, seat, s, lang), s) for s in squares]


def act_destinations(g: Game, seat: int, unit: str | None, fullmove: bool, lang: str) -> list[Pair]:
    sq = _sq(unit)
    if sq is None:
        return []
    acts = [a for a in _legal(g, seat, "act") if a.square == sq and a.fullmove == bool(fullmove)]
    stay = t("stay", lang)
    out: list[Pair] = []
    if any(a.to is None for a in acts):
        out.append((i18n.t(lang, "choice.stay", square=sq, stay=stay), sq))
    out += [(d, d) for d in sorted({a.to for a in acts if a.to})]
    return out


def act_targets(g: Game, seat: int, unit: str | None, to: str | None, fullmove: bool,
                lang: str) -> list[Pair]:
    sq = _sq(unit)
    if sq is None:
        return []
    dest = _sq(to)
    if dest == sq:
        dest = None
    acts = [a for a in _legal(g, seat, "act")
            if a.square == sq and a.to == dest and a.fullmove == bool(fullmove) and a.skill]
    out: list[Pair] = []
    for a in acts:
        text = str(a.skill)
        out.append((_describe_skill(g, seat, text, lang), text))
    return out


def _describe_skill(g: Game, seat: int, text: str, lang: str) -> str:
    """`attack 5B` → `attack 5B (Goblin)`, `攻撃 5B（ゴブリン）`: the skill in the reader's
    words (a Japanese player was offered "area") and the target's name; the value the
    client sends stays notation."""
    names = []
    for tok in text.replace(",", " ").split():
        i = index(tok)
        if i is not None:
            piece = _board(g, seat)[i]
            if piece is not None:
                names.append(g.cards.name(piece["card"], lang))
    verb, _, rest = text.partition(" ")
    said = i18n.t(lang, f"choice.skill.{verb}")
    skill = " ".join(w for w in ((verb if said == f"choice.skill.{verb}" else said), rest) if w)
    return i18n.t(lang, "choice.skill_target", skill=skill,
                  names=i18n.join(lang, dict.fromkeys(names))) if names else skill


# ---- placement, recruit, ready, support, level up ------------------------------------------------

def place_cards(g: Game, seat: int, lang: str) -> list[Pair]:
    keys = sorted({a.card for a in _legal(g, seat, "place") if a.card})
    return [(g.cards.name(k, lang), k) for k in keys]


def place_squares(g: Game, seat: int, card: str | None) -> list[Pair]:
    acts = _legal(g, seat, "place")
    key = g.cards.resolve(card or "")
    squares = sorted({a.square for a in acts if a.square and (key is None or a.card == key)})
    return [(s, s) for s in squares]


def recruit_cards(g: Game, seat: int, lang: str) -> list[Pair]:
    out: list[Pair] = []
    for a in _legal(g, seat, "recruit"):
        assert a.card is not None
        cost = g.cards.units[a.card].cost
        if a.merc:
            out.append((t("recruit_merc", lang, card=g.cards.name(a.card, lang), cost=cost),
                        f"merc {a.card}"))
        else:
            out.append((t("recruit_hand", lang, card=g.cards.name(a.card, lang), cost=cost),
                        a.card))
    return out


def recruit_squares(g: Game, seat: int) -> list[Pair]:
    squares = sorted({a.square for a in _legal(g, seat, "recruit") if a.square})
    return [(s, s) for s in squares]


def ready_sets(g: Game, seat: int, lang: str) -> list[Pair]:
    acts = sorted(_legal(g, seat, "ready"), key=lambda a: -len(a.squares))
    return [(join((_piece_label(g, seat, s, lang) for s in a.squares), lang), " ".join(a.squares))
            for a in acts]


def support_units(g: Game, seat: int, lang: str) -> list[Pair]:
    return [(_piece_label(g, seat, a.square, lang), a.square)
            for a in _legal(g, seat, "support") if a.square]


def levelup_units(g: Game, seat: int, lang: str) -> list[Pair]:
    """Also while others are asked: Level Up may be declared at any time (R12.1)."""
    return [(_piece_label(g, seat, a.square, lang), a.square)
            for a in g.levelups(seat) if a.square]


def own_units(g: Game, seat: int, lang: str) -> list[Pair]:
    """Every unit on the player's board (for `/rr reach`, which also works out of turn)."""
    b = _board(g, seat)
    return [(_piece_label(g, seat, NAMES[i], lang), NAMES[i])
            for i, p in enumerate(b) if p is not None and "owner" in p]


def card_names(g: Game | None, lang: str) -> list[Pair]:
    """Unit and monster cards, by printed name in the reader's language."""
    cs = g.cards if g is not None else default_cards()
    keys = list(cs.units) + list(cs.monsters)
    return [(cs.name(k, lang), k) for k in keys]
