"""The tutorial you play (issue 23): short lessons on prepared positions, in the rulebook's order.

Why a module of its own: a lesson is not a game a channel hosts. It has no seats to time,
no announcements, no log anyone replays later; it is one person's private walk through a
prepared position, where every step accepts exactly one action and answers anything else
with an explanation instead of a refusal. So it is hosted here, beside the games, and shared
by every interface (the `/rr-learn tutorial` cog and the console's `tutorial` command).

The lessons are data (`service/data/tutorial.json`, edited by a designer without code): a
one-player puzzle state (docs/state.md) with a fixed dice stream, and per step the text key,
the one action accepted, the squares to highlight, the buttons offered and the explanations.
The engine judges every answer — the tutorial only compares what it accepted with what the
step teaches — so a lesson can never teach a move the rules refuse (tests/test_tutorial.py
plays each through).

Progress is one row per user (lesson, step) in the game store (`store/tutorial.py`,
migration 11). The position of a step is rebuilt from the lesson's start by replaying the
accepted actions before it (R15: a state is its start plus its actions), so the row stays
two numbers, a resumed lesson is exactly where it was left, and a changed lesson file
never meets a stale stored state.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import i18n
from engine import ActionError, CardSet, Game, View, visible
from engine.board import NAMES

from .errors import ServiceError
from .lines import Line
from .narrate import narrate
from .notation import action_words, words_typed

if TYPE_CHECKING:
    from store import Progress, TutorialStore

log = logging.getLogger("rr.tutorial")
DATA_FILE = Path(__file__).with_name("data") / "tutorial.json"
SEAT = 0  # a lesson is a one-player puzzle: the learner is seat 0
STORY = 12  # the lines of an answer's story shown with the next step (then "… n more")
# Player keys a lesson's position may give directly (the rest are top-level state keys).
PLAYER_KEYS = ("board", "gold", "honor", "hand", "defeated", "medals", "castle", "levelups",
               "queues", "rolls", "autosave")
CARD_LISTS = ("hand", "defeated", "castle")  # card keys, given ids when a lesson is built
JOBS = ("warrior", "cleric", "sorcerer", "thief")
MERCENARIES = ("archer", "lancer", "knight")  # on offer unless a lesson says otherwise (R3)
NOT_THIS = "tutorial.not_this"  # the lead of an explanation: another answer is wanted
ALSO_WORKS = "tutorial.also_works"  # … an answer that works as well, but teaches less


@dataclass(frozen=True, slots=True)
class Step:
    """One thing the learner is asked to do (see the data file's `about`)."""

    say: str
    accept: str
    highlight: tuple[str, ...]
    buttons: tuple[str, ...]
    explain: Mapping[str, str]
    other: str
    then: tuple[str, ...] = ()
    # other answers that work as well (`also`): explained under a "good idea" lead, not
    # "not this time" (the new-player audit read "Not this time: That works too")
    also: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Lesson:
    id: str
    rules: tuple[str, ...]
    position: Mapping[str, Any]
    steps: tuple[Step, ...]
    # the released card set (engine/data/cards/vN.json) the lessons' positions and words are
    # written for (the data file's `cards_version`): named, not taken from the default, so a
    # new default set never changes a lesson's numbers under its words; tests/test_tutorial.py
    # fails until the lessons are re-authored for it (a learner is taught the game they play)
    cards_version: int

    def title(self, lang: str) -> str:
        return i18n.t(lang, f"tutorial.title.{self.id}")

    def start(self, name: str = "") -> Game:
        """The lesson's prepared position as a fresh puzzle game (the same every time)."""
        return Game.from_json(json.dumps(puzzle_state(self.position, self.cards_version,
                                                      name)))

    def game_at(self, step: int, name: str = "") -> Game:
        """The position at `step` (0-based): the start with the steps before it answered."""
        g = self.start(name)
        for s in self.steps[:step]:
            for action in (s.accept, *s.then):
                g.apply(SEAT, action)
        return g


def _cards(keys: Sequence[Any], prefix: str) -> list[Any]:
    """Card keys (a designer's shorthand) as card instances with ids unique in the lesson."""
    return [dict(k) if isinstance(k, Mapping) else {"id": f"{prefix}{i}", "card": str(k)}
            for i, k in enumerate(keys)]


def puzzle_state(position: Mapping[str, Any], cards_version: int, name: str = ""
                 ) -> dict[str, Any]:
    """A lesson's `position` as a puzzle state for `Game.from_json` (docs/state.md).

    Conveniences for the designer: player keys at the top level, card lists as plain keys,
    `decision` for the learner's one open question; unless given, full level-up piles, three
    mercenaries on offer and a monster deck of two Goblins (so that no victory check ends a
    lesson by accident, R13.1)."""
    pos = copy.deepcopy(dict(position))
    player: dict[str, Any] = {"name": name or "You"}
    for k in PLAYER_KEYS:
        if k in pos:
            player[k] = pos.pop(k)
    for k in CARD_LISTS:
        if k in player:
            player[k] = _cards(player[k], f"t{k[0]}")
    decision = pos.pop("decision", None)
    state: dict[str, Any] = {
        "setup": {"players": [player["name"]], "seed": int(pos.pop("seed", 23)),
                  "cards_version": cards_version},
        "round": 1, "phase": "main", "players": [player],
        "levelup_piles": {j: [{"id": f"l{j}{k}", "card": j} for k in range(4)] for j in JOBS},
        "monster_deck": ["goblin", "goblin"],
    }
    state.update(pos)
    state["monster_deck"] = _cards(state["monster_deck"], "tm")
    mercs = state.get("mercenaries", MERCENARIES)
    state["mercenaries"] = _cards(mercs, "tr") + [None] * max(0, 3 - len(mercs))
    if "unit_deck" in state:
        state["unit_deck"] = _cards(state["unit_deck"], "tu")
    state["decisions"] = {str(SEAT): {"id": 1, "opened": 1, **decision}} if decision else {}
    state["next_id"] = 2
    return state


@cache
def lessons() -> tuple[Lesson, ...]:
    """Every lesson, in the rulebook's order (read once per process)."""
    return load(json.loads(DATA_FILE.read_text(encoding="utf-8")))


def load(data: Mapping[str, Any]) -> tuple[Lesson, ...]:
    """The lessons of the data file that can be played; a damaged one (a step without its
    words or answer, an answer the engine refuses where the step stands) is logged and left
    out, and the others are taught. Before, a key missing in one lesson failed every
    tutorial command, and a refused answer failed that lesson's every step with an internal
    error (the fault-injection audit; tests/test_tutorial.py keeps a release's file whole)."""
    out = []
    cards_version = int(data["cards_version"])
    for k, d in enumerate(data["lessons"], 1):
        try:
            out.append(playable(lesson_of(d, cards_version)))
        except (KeyError, TypeError, ValueError, AttributeError, ActionError) as e:
            log.error("tutorial lesson %s of %s: damaged, left out (%s: %s)", k,
                      DATA_FILE.name, type(e).__name__, e)
    return tuple(out)


def lesson_of(d: Mapping[str, Any], cards_version: int) -> Lesson:
    """One lesson of the data file as it is written (see its `about`)."""
    steps = tuple(Step(str(s["say"]), str(s["accept"]), tuple(s.get("highlight", ())),
                       tuple(s.get("buttons", (s["accept"],))),
                       dict(s.get("explain", {})), str(s["other"]),
                       tuple(s.get("then", ())), tuple(s.get("also", ())))
                  for s in d["steps"])
    return Lesson(str(d["id"]), tuple(d.get("rules", ())), d["position"], steps,
                  cards_version)


def playable(lesson: Lesson) -> Lesson:
    """`lesson`, once each step's answer is one the engine takes where the step stands
    (ValueError, or the engine's error, if not)."""
    g = lesson.start()
    for k, s in enumerate(lesson.steps, 1):
        if canonical(g, s.accept) is None:
            raise ValueError(f"step {k}: {s.accept!r} is not legal there")
        for action in (s.accept, *s.then):
            g.apply(SEAT, action)
    return lesson


def lesson_index(lesson_id: str) -> int | None:
    for i, lesson in enumerate(lessons()):
        if lesson.id == lesson_id:
            return i
    return None


# ---- judging an answer ---------------------------------------------------------------------------

def canonical(g: Game, action: str) -> str | None:
    """The action as the engine logs it when it is legal here (so '2b' and '2B', 'thief' and
    'Thief★' compare equal), else None. The game is not changed."""
    trial = Game.from_json(g.to_json())
    try:
        trial.apply(SEAT, action)
    except (ActionError, ValueError):
        return None
    return str(trial.log[-1][1])


def refused(g: Game, action: str) -> ActionError | None:
    """Why the engine refuses `action` here (None when it takes it). The game is not
    changed."""
    trial = Game.from_json(g.to_json())
    try:
        trial.apply(SEAT, action)
    except ActionError as e:
        return e
    except ValueError:
        return None
    return None


def keyed(action: str, cards: CardSet) -> str:
    """An action as written (by a designer or a learner) with each card name in either
    language as its key: 'place シーフ 3B' is 'place thief_star 3B'."""
    return " ".join(cards.resolve(w) or w for w in action.split())


def button_words(action: str, cards: CardSet, lang: str) -> str:
    """A button's words: the lesson's action as a designer wrote it (`place thief 2B`, a
    name meaning the card in the hand) with its cards named in the reader's language. A lone
    `done` is a button's word beside Skip lesson / Restart lesson / Leave, capitalised as
    they are ('Done', as a game's own Done button): the notation's lower-case `done` read as
    a typo there (the new-player audit); typed back, it is the same answer."""
    if action.strip().casefold() == "done":
        return i18n.t(lang, "tutorial.button.done")
    return action_words(keyed(action, cards), cards, lang)


def written(action: str, cards: CardSet) -> str:
    """An answer the engine refuses, folded for comparison: card names as `keyed`, then
    case (keys are lower case already)."""
    return keyed(action, cards).casefold()


def explanation_key(step: Step, g: Game, answer: str) -> str:
    """The short explanation for an answer other than the one the step teaches."""
    mine = canonical(g, answer)
    for action, key in step.explain.items():
        if mine is not None and canonical(g, action) == mine:
            return key
        if mine is None and written(action, g.cards) == written(answer, g.cards):
            return key
    return step.other


def lead_key(step: Step, g: Game, answer: str) -> str:
    """The words an explanation is led by: an answer the step lists as working too (`also`)
    is a good idea the step does not teach; any other is not this time."""
    mine = canonical(g, answer)
    if mine is not None and any(canonical(g, a) == mine for a in step.also):
        return ALSO_WORKS
    return NOT_THIS


# ---- what an interface shows ---------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Screen:
    """What an interface shows for the learner's current place: the lesson and step (0-based;
    `step` = len(steps) once a lesson is finished), the words, the squares to highlight and
    the buttons. `view` is the learner's view of the position, for the image."""

    lesson: int
    step: int
    total: int
    steps: int
    title: str
    rules: tuple[str, ...]
    text: str
    highlight: tuple[str, ...]
    buttons: tuple[tuple[str, str], ...]  # (action, label)
    view: View
    cards: CardSet
    finished: bool = False  # the lesson is done (its last step answered)
    all_done: bool = False  # every lesson is done
    events: list[Any] = field(default_factory=list)  # what the last accepted answer caused

    def story(self, lang: str) -> list[Line]:
        """What the last accepted answer did, as a game's story tells it (the Skeleton
        defeated, the roll a hit): a lesson's outcome in words, not only in the image."""
        names = [str(p.get("name", "")) for p in self.view.get("players", [])]
        return narrate(visible(self.events, SEAT), names, self.cards, lang, limit=STORY)

    def image_text(self, lang: str) -> str:
        """The image's description (its alt text): which lesson and step it is, the squares
        framed and the pieces on the board. One text for every image told a screen reader
        nothing of what this step's picture shows (the new-player audit)."""
        pieces = [i18n.t(lang, "tutorial.image_piece_acted" if piece.get("acted")
                         else "tutorial.image_piece",
                         card=self.cards.name(str(piece["card"]), lang), square=NAMES[i])
                  for i, piece in enumerate(self.board()) if piece]
        key = ("tutorial.image_done" if self.finished else
               "tutorial.image" if self.highlight else "tutorial.image_plain")
        framed: list[str] = sorted(self.highlight, key=_board_order)
        said = i18n.t(lang, key, n=self.lesson + 1, total=self.total, title=self.title,
                      step=min(self.step + 1, self.steps), steps=self.steps,
                      squares=i18n.join(lang, framed))
        return i18n.t(lang, "tutorial.image_board", image=said,
                      pieces=i18n.join(lang, pieces) if pieces
                      else i18n.t(lang, "tutorial.image_empty"))

    def board(self) -> list[Mapping[str, Any] | None]:
        """The learner's board as the view shows it, square 1A first (docs/state.md)."""
        players = self.view.get("players", [])
        return list(players[SEAT].get("board", [])) if players else []


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer judged: accepted (and the next screen), or the explanation (nothing moved)."""

    accepted: bool
    explanation: str
    screen: Screen
    # why the engine refuses the answer, when the step has no explanation of its own for
    # it (a learner typing freely): the rule it breaks, then what the step asks for
    refusal: ActionError | None = None
    # the key of the words before the explanation (`lead_key`): "not this time", or "good
    # idea, but" for an answer that works as well
    lead: str = NOT_THIS


def screen(index: int, step: int, lang: str, name: str = "",
           events: list[Any] | None = None) -> Screen:
    """The learner's screen at (lesson `index`, `step`)."""
    all_lessons = lessons()
    lesson = all_lessons[index]
    name = name or i18n.t(lang, "tutorial.learner")
    g = lesson.game_at(min(step, len(lesson.steps)), name)
    finished = step >= len(lesson.steps)
    rules = i18n.join(lang, lesson.rules)
    if finished:
        last = index + 1 >= len(all_lessons)
        text = i18n.t(lang, "tutorial.all_done" if last else "tutorial.lesson_done",
                      title=lesson.title(lang), rules=rules)
        highlight: tuple[str, ...] = ()
        buttons: tuple[tuple[str, str], ...] = ()
    else:
        s = lesson.steps[step]
        text = i18n.t(lang, s.say)
        highlight = s.highlight
        buttons = tuple((a, button_words(a, g.cards, lang)) for a in s.buttons)
    return Screen(index, step, len(all_lessons), len(lesson.steps), lesson.title(lang),
                  lesson.rules, text, highlight, buttons, g.view(SEAT), g.cards, finished,
                  finished and index + 1 >= len(all_lessons), list(events or []))


def judge(index: int, step: int, answer: str, lang: str, name: str = "") -> Answer:
    """Judge `answer` at (lesson, step): the taught action moves on to the next step; any
    other answer, legal or not, gets the step's explanation and changes nothing."""
    lesson = lessons()[index]
    name = name or i18n.t(lang, "tutorial.learner")
    if step >= len(lesson.steps):
        return Answer(False, i18n.t(lang, "tutorial.nothing_open"), screen(index, step, lang, name))
    s = lesson.steps[step]
    g = lesson.game_at(step, name)
    want = canonical(g, s.accept)
    got = canonical(g, answer)
    if want is None:  # a lesson the engine refuses: tests/test_tutorial.py keeps this from shipping
        raise ValueError(f"lesson {lesson.id} step {step + 1}: {s.accept!r} is not legal")
    if got != want:
        key = explanation_key(s, g, answer)
        refusal = refused(g, answer) if got is None and key == s.other else None
        return Answer(False, i18n.t(lang, key), screen(index, step, lang, name), refusal,
                      lead_key(s, g, answer))
    events = g.apply(SEAT, s.accept)
    for action in s.then:
        events += g.apply(SEAT, action)
    return Answer(True, "", screen(index, step + 1, lang, name, events))


# ---- hosting: progress per user -------------------------------------------------------------------

class Tutorial:
    """The tutorial as an interface uses it: where a user stands, answers, skip, restart,
    leave. Progress is kept in the store after every change, so a learner who leaves (or a
    bot that restarts) resumes at the same step."""

    def __init__(self, store: TutorialStore) -> None:
        self.store = store

    async def place(self, user: int) -> tuple[int, int, bool]:
        """(lesson, step, resumed): where the user stands; a newcomer starts at the first."""
        taught()
        p = await self.store.progress(user)
        at = _at(p)
        if at is None:
            await self.store.save(user, lessons()[0].id, 0)
            return 0, 0, False
        if p is not None and (p.damaged or at[1] != p.step):  # a damaged step (-1, text):
            await self.store.save(user, p.lesson, at[1])  # stored as shown, or no answer
            # could move it on (the advance compares with the stored step)
        return at[0], at[1], True

    async def current(self, user: int, lang: str, name: str = "") -> tuple[Screen, bool]:
        """The screen to show on start or resume, and whether it is a resumed lesson."""
        index, step, resumed = await self.place(user)
        return screen(index, step, lang, name), resumed

    async def answer(self, user: int, lesson_id: str, step: int, action: str, lang: str,
                     name: str = "") -> Answer | None:
        """Judge an answer given for (lesson, step); None when the user stands elsewhere now
        (a button of an older step): the interface then shows where they stand."""
        index, now, _ = await self.place(user)
        if lessons()[index].id != lesson_id or now != step:
            return None
        out = judge(index, step, words_typed(action), lang, name)
        if out.accepted and not await self.store.advance(user, lesson_id, step):
            return None  # a skip, a restart or another answer landed first
        return out

    async def next_lesson(self, user: int, lang: str, name: str = "") -> Screen:
        """Skip the current lesson (or move on from a finished one) to the next; after the
        last one, the user stays on its finished screen."""
        index, _, _ = await self.place(user)
        if index + 1 >= len(lessons()):
            await self.store.save(user, lessons()[index].id, len(lessons()[index].steps))
            return screen(index, len(lessons()[index].steps), lang, name)
        await self.store.save(user, lessons()[index + 1].id, 0)
        return screen(index + 1, 0, lang, name)

    async def restart(self, user: int, lang: str, name: str = "") -> Screen:
        """The current lesson from its first step again."""
        index, _, _ = await self.place(user)
        await self.store.save(user, lessons()[index].id, 0)
        return screen(index, 0, lang, name)

    async def goto(self, user: int, index: int, lang: str, name: str = "") -> Screen:
        """A lesson chosen by number (0-based), from its first step."""
        index = max(0, min(index, len(taught()) - 1))
        await self.store.save(user, lessons()[index].id, 0)
        return screen(index, 0, lang, name)


def taught() -> tuple[Lesson, ...]:
    """Every lesson; none at all (each one damaged in the data file, `load`) is a refusal in
    words: the first lesson's place raised IndexError, and every tutorial command of every
    learner read an internal error (the fault-injection audit)."""
    out = lessons()
    if not out:
        raise ServiceError.of("svc.tutorial_none")
    return out


def _board_order(square: str) -> int:
    """A square's place in the board's order (1A, 1B, … 6C): a description names the framed
    squares in the order a reader scans the board; an unknown name last."""
    return NAMES.index(square) if square in NAMES else len(NAMES)


def _at(p: Progress | None) -> tuple[int, int] | None:
    """A stored place that still names a lesson of today's file (a removed lesson: None,
    the user starts over; a step past a shortened lesson: its finished screen)."""
    if p is None:
        return None
    index = lesson_index(p.lesson)
    if index is None:
        return None
    return index, max(0, min(p.step, len(lessons()[index].steps)))
