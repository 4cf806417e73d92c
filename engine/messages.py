"""The engine's refusals and game-end reasons as codes + parameters, and their English.

A refusal is `IllegalAction("out_of_range", target="3B", card=Name(...), square="2B", gap="")`:
the code says *which* refusal, the parameters its particulars. Interfaces translate it by
code through the catalogue (`i18n/*.po`, id `refusal.<code>`); the engine only renders the
English (its `str()`), from `ENGLISH` below, which `tests/test_refusal_corpus.py` keeps equal
to en.po. Nothing ever parses the English back.

Parameters are plain values (squares, numbers, what the user typed), or one of three small
types that the translating layer renders in the reader's language: `Name` (a card's name in
both languages — a card set may be custom, so the names travel with it), `Phrase` (a piece
that is itself a message: a reason, a prompt, an optional remark) and `Items` (a list).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .types import Termination


class Name(NamedTuple):
    """A card's printed name in both languages."""

    en: str
    ja: str


class Phrase(NamedTuple):
    """A translatable piece inside a message: `refusal.<code>` with its own parameters."""

    code: str
    params: dict[str, Any]


class Items(NamedTuple):
    """A list of parameters; English joins with `sep`, Japanese with the ideographic comma."""

    items: tuple[Any, ...]
    sep: str = ", "


class Commands(NamedTuple):
    """Command verbs inside a message ("use place / done"): each is marked, so an interface
    shows it as its players type it (`/rr place` in Discord); English joins them with
    `sep`."""

    verbs: tuple[str, ...]
    sep: str = " / "


def phrase(code: str, /, **params: Any) -> Phrase:
    return Phrase(code, params)


def english(code: str, params: dict[str, Any]) -> str:
    """The English text of a refusal or one of its phrases."""
    return ENGLISH[code].format(**{k: _en(v) for k, v in params.items()})


def _en(value: Any) -> Any:
    if isinstance(value, Name):
        return value.en
    if isinstance(value, Phrase):
        return english(value.code, value.params)
    if isinstance(value, Items):
        return value.sep.join(str(_en(v)) for v in value.items)
    if isinstance(value, Commands):
        return value.sep.join(value.verbs)
    return value


# Game-end reasons (state["result"]["code"]; "reason" keeps the English for old readers).
REASONS: dict[Termination, str] = {
    "end.final_round": "the final round ended with monsters left (R13.2)",
    "end.castle_invaded": "a monster invaded the castle (R13.1)",
    "end.last_standing": "last player standing (R9.3)",
    "end.all_eliminated": "everyone left was eliminated at once (R9.3)",
    "end.all_defeated": "every monster defeated (R13.1)",
    "end.threat_low": "threat 8 or less with the deck empty (R14.3)",
    "end.round_cap": "round cap reached (R15)",
    "end.resigned": "the player resigned",
}

ENGLISH: dict[str, str] = {
    # notation (docs/notation.md)
    "syntax.bad_square": "'{text}' is not a square ({what}): squares are 1A … 6C.",
    "syntax.needs_target": "'{word}' needs a target square, e.g. '{word} 5B'.",
    "syntax.command_one": "'command' names exactly one unit, e.g. 'command 2B attack 5B'.",
    "syntax.nested_max": "Too many nested commands: at most {n} 'command' in one action.",
    "syntax.empty": "Empty action. Try 'pick advance', 'act 2B to 3B attack 5B', 'done'.",
    "syntax.unknown": "Unknown action '{text}'. Actions: {actions}.",
    "syntax.no_args": "'{verb}' takes nothing after it.",
    "syntax.use_pick": "Use 'pick CARD', e.g. 'pick advance'.",
    "syntax.use_place": "Use 'place CARD SQUARE', e.g. 'place thief 2B'.",
    "syntax.use_recruit": "Use 'recruit CARD SQUARE', e.g. 'recruit archer 1C'.",
    "syntax.use_square": "Use '{verb} SQUARE', e.g. '{verb} 2A'.",
    "syntax.use_autosave": "Use 'autosave on' or 'autosave off'.",
    "syntax.use_rolls": "Use 'rolls miss' (be asked about a roll only when it misses) or "
                        "'rolls always' (whenever a boon could raise the damage).",
    "syntax.use_rolls_short": "Use 'rolls miss' or 'rolls always'.",
    "syntax.use_act": "Use 'act SQUARE [fullmove] [to SQUARE] [attack|area|heal|command …]'.",
    "syntax.to_square": "'to' needs a square, e.g. 'act 2B to 3B'.",
    "syntax.after_move": "Unexpected '{text}': after the unit's square and any move comes a "
                         "skill (attack, area, heal, command).",
    "syntax.after_move_meant": "Unexpected '{text}': did you mean '{word}'? After the unit's "
                               "square and any move comes a skill (attack, area, heal, command).",
    "syntax.move_to": "A move is written with 'to': 'act {unit} to {text}'.",
    "syntax.trailing": "Unexpected '{text}' at the end of the action.",
    "syntax.fullmove_to": "Full Move adds a step to a move: give 'to SQUARE'.",
    "what.place": "where to place", "what.recruit": "where to recruit",
    "what.attack": "attack target", "what.area": "area target", "what.heal": "heal target",
    "what.command": "command target", "what.actor": "the unit that acts",
    "what.destination": "destination", "what.ready": "unit to ready", "what.unit": "unit",
    # answers (engine/game.py)
    "not_a_square": "'{text}' is not a square.",
    "actor_is_card": "'{text}' is a card, not a square: a unit acts by its square — your "
                     "{card} is on {squares}.",
    "actor_card_absent": "'{text}' is a card, not a square, and you have no {card} on your "
                         "board: a unit acts by its square.",
    "game_over": "The game is over.",
    "not_playing": "You are not playing in this game (or were eliminated).",
    "stale": "This prompt is out of date: the game has moved on.",
    "nothing_to_undo": "Nothing to undo: only your last action can be undone, while it "
                       "revealed nothing random and the game has not moved past it (its "
                       "question still open, or the others still answering the same step).",
    "not_your_decision": "You have nothing to decide right now; waiting for {names}.",
    "nobody": "nobody",
    "wrong_verb": "Now you {prompt}: use {verbs}{levelup}.",
    "or_levelup": " (or levelup SQUARE)",
    "prompt.pick": "choose a command card",
    "prompt.place": "place a unit from your hand on your home area",
    "prompt.actions": "take unit actions", "prompt.ready": "ready acted units",
    "prompt.recruit": "may recruit a unit", "prompt.support": "may heal 1 damage (support)",
    "prompt.roll": "decide about a dice roll",
    "cannot_pick": "You cannot pick {card} now (each command card is executed at most once a "
                   "round, R6.1); choose one of: {names}.",
    "quoted": "'{text}'",
    "ready_once": "Name each unit once.",
    "ready_max": "You may ready at most {n} units (R7, R11.2).",
    "ready_not_acted": "{square} holds no acted unit of yours to ready.",
    "no_mercs_auto": "No mercenaries may be taken when Recruit is executed AUTO (R7.1): "
                     "recruit a unit from your hand.",
    "too_expensive": "{card} costs {cost} gold and you have {gold} (R7.1).",
    "support_none": "{square} holds no damaged unit of yours to heal (R11.1).",
    "no_willpower": "Willpower cannot be used here: a reroll cannot be rerolled and costs 1 "
                    "honor mark (R12.3).",
    "ambiguous": "'{text}' could be {keys}: use that name.",
    "not_found": "There is no '{text}' {where}{why}{close} (you have: {have}).",
    "close": ": did you mean {card}?",
    "where.hand": "in your hand", "where.mercs": "among your hand or the mercenaries",
    "why.auto": "; no mercenaries may be taken when Recruit is executed AUTO (R7.1)",
    "why.nor": "; nor among what you may recruit",
    "have.nothing": "nothing",
    "home_only": "Units are placed only on your home area, columns 1–2 (1A–2C), not {text} "
                 "(R2, R7.1).",
    "taken": "{square} is taken: a {card} stands there.",
    # unit actions and skills (engine/combat.py, R8)
    "skill_word": "{card} on {square} uses '{hint}', not '{used}'.",
    "no_monster_in_range": "No monster is in range of {card} on {square}.",
    "attacks_one": "{card} attacks exactly one monster.",
    "out_of_range": "{target} is not in range of {card} on {square}{gap}.",
    "gap": " (a gap square: it cannot be targeted)",
    "no_monster_to_attack": "There is no monster to attack: {at}.",
    "stands_on": "a {card} stands on {square}",
    "empty": "{square} is empty",
    "blocked_front": "{card} on {square} cannot reach past the piece in front of it: only "
                     "long-range attacks can (R8.2).",
    "no_monster_at": "{target} holds no monster in range of {card} on {square}.",
    "defeated_before": "The {card} on {target} is defeated before that point: give the point "
                       "to another monster.",
    "allocate": "{card} deals {n} points of damage: name {need} target squares, "
                "e.g. 'attack 5B,5C'.",
    "heal_count": "{card} heals up to {n} damage: name 1 to {n} squares, one per damage "
                  "removed.",
    "heal_none": "{target} holds no unit of yours in range of {card}.",
    "heal_too_much": "The {card} on {target} has only {n} damage to heal.",
    "command_other": "The {card} commands another unit of yours: {at}.",
    "command_faints": "The {card} on {target} faints from the command's 1 damage and cannot "
                      "use its skill.",
    "nested": "Too many nested commands.",
    "no_unit_at": "There is no unit on {text}: name one of your units (ready to act: {yours}).",
    "unit_on": "{card} on {square}",
    "not_your_unit": "You have no unit on {square}: a {card} stands there.",
    "acted": "The {card} on {square} has already acted (it carries an action marker until it "
             "is readied).",
    "fullmove_mark": "Full Move costs 1 honor mark and you have none (R12.4).",
    "unreachable": "{card} on {square} cannot reach {target}: {why}.",
    "why.circle": "units never enter a magic circle (R2)",
    "why.there": "it is already there",
    "why.monsters": "monsters block the way",
    "why.mov": "it moves at most {n} squares (MOV {n})",
    "why.mov_one": "it moves at most {n} square (MOV {n})",
    "does_nothing": "That action does nothing: move the unit, use its skill, or 'done'.",
    "no_unit": "You have no unit on {square}.",
    "not_star": "Only ★ units level up; the {card} on {square} is not one (R12.2).",
    "pile_empty": "The {job} level-up pile is empty (R12.2).",
    "job.warrior": "warrior", "job.cleric": "cleric", "job.sorcerer": "sorcerer",
    "job.thief": "thief",
    "levelup_cost": "Level Up costs {price} honor marks and you have {marks} (R12.2).",
    **{code: text for code, text in REASONS.items()},  # keys widened to str
}
