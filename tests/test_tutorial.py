"""The tutorial you play (issue 23, "A tutorial you play"): every lesson of the data file is
played through with the engine; a step accepts only the action it teaches and answers
anything else — legal or not — with its explanation, changing nothing; progress survives a
restart on both store backends; skip and restart; both languages, in the rulebook's order."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

import i18n
import render
from engine import Game
from engine.cards import default_version
from render.focus import FOCUS, focus_image
from render.layout import BOARD_SQUARE, board_geom
from service import ServiceError
from service import tutorial as tut
from service.refusals import words
from service.tutorial import SEAT, Tutorial, judge, lesson_index, lessons, screen
from store import tutorial_store

ROOT = Path(__file__).resolve().parent.parent
LESSONS = lessons()
STEPS = [(i, k) for i, lesson in enumerate(LESSONS) for k in range(len(lesson.steps))]
SQUARE = re.compile(r"^[1-6][ABC]$")


def _rule_ids() -> set[str]:
    text = (ROOT.parent / "shared" / "RULES.md").read_text(encoding="utf-8") \
        if (ROOT.parent / "shared" / "RULES.md").exists() else ""
    return set(re.findall(r"^#+ (R\d+(?:\.\d+)?)\b", text, re.M))


def test_lessons_follow_the_rulebooks_order() -> None:
    """Issue 23: placement; command cards and leaders; unit actions and ranges; dice and DEF;
    the Enemy phase and invasions; recruiting and mercenaries; level-up and honor marks; the
    Summon and the castle; winning and losing."""
    assert [lesson.id for lesson in LESSONS] == [
        "placement", "commands", "actions", "dice", "enemy", "recruit", "boons", "summon",
        "winning"]
    known = _rule_ids()
    for lesson in LESSONS:
        assert lesson.rules, lesson.id
        if known:  # the rulebook's ids the lesson cites exist (R1 … R15 and their sections)
            assert set(lesson.rules) <= known, (lesson.id, set(lesson.rules) - known)


@pytest.mark.parametrize("index", range(len(LESSONS)), ids=[x.id for x in LESSONS])
def test_every_lesson_plays_through_with_the_engine(index: int) -> None:
    """Each step's accepted action is legal where it is asked and leads to the next step's
    position (the position rebuilt from the start is the one the answer left)."""
    lesson = LESSONS[index]
    g = lesson.start()
    for k, step in enumerate(lesson.steps):
        assert g.decision(SEAT) is not None, f"{lesson.id} step {k + 1}: nothing is asked"
        assert step.accept in step.buttons
        assert all(SQUARE.match(q) for q in step.highlight), step.highlight
        g.apply(SEAT, step.accept)
        for action in step.then:
            g.apply(SEAT, action)
        assert g.to_json() == lesson.game_at(k + 1).to_json()
        answered = judge(index, k, step.accept, "en")
        assert answered.accepted and answered.screen.step == k + 1
    assert screen(index, len(lesson.steps), "en").finished


@pytest.mark.parametrize("index,step", STEPS)
def test_any_other_answer_gets_its_explanation_and_changes_nothing(index: int, step: int) -> None:
    """Every other button, a legal move not taught, an illegal one and nonsense: the step's
    own explanation (never an engine refusal), and the position stays as it was."""
    lesson = LESSONS[index]
    s = lesson.steps[step]
    before = lesson.game_at(step).to_json()
    others = [b for b in s.buttons if b != s.accept] + ["levelup 9Z", "banana", ""]
    legal = [str(a) for a in lesson.game_at(step).legal_actions(SEAT)]
    others += [a for a in legal if tut.canonical(lesson.game_at(step), a)
               != tut.canonical(lesson.game_at(step), s.accept)][:3]
    for answer in others:
        out = judge(index, step, answer, "en")
        assert not out.accepted, answer
        want = s.explain.get(answer, s.other) if answer in s.buttons else None
        if want is not None:
            assert out.explanation == i18n.t("en", want)
        assert out.explanation and "{" not in out.explanation
        assert (out.screen.lesson, out.screen.step) == (index, step)
        assert lesson.game_at(step).to_json() == before


def test_the_taught_action_is_not_always_the_first_choice() -> None:
    """A learner who finds the answer always in one place learns where to click, not the
    rule the step teaches (issue 23: each step says what to do and WHY)."""
    places = {step.buttons.index(step.accept) for lesson in LESSONS for step in lesson.steps}
    assert len(places) >= 3, places


def test_an_answer_the_engine_refuses_says_which_rule_it_breaks() -> None:
    """The learning audit: an answer the lesson has no words for got only the step's
    generic text. One the engine refuses now also carries the engine's reason (R2: units
    are placed on the home area); one the step explains, or a legal one, does not."""
    first = lesson_index("placement")
    assert first is not None
    out = judge(first, 0, "place thief 5B", "en")
    assert not out.accepted and out.refusal is not None
    assert "not 5B" in words(out.refusal, "en")
    assert judge(first, 0, "place thief 3B", "en").refusal is None  # its own words say why
    assert judge(first, 0, "place warrior 2A", "en").refusal is None  # legal, another lesson


def test_a_wrong_placement_is_explained_in_rulebook_terms() -> None:
    """R2: a unit placed outside the home area is explained (columns 1–2), in both languages."""
    out = judge(0, 0, "place thief 3B", "en")
    assert not out.accepted and "columns 1–2" in out.explanation and "(R2)" in out.explanation
    ja = judge(0, 0, "place シーフ 3B", "ja")
    assert not ja.accepted and "自軍エリア" in ja.explanation
    # the same answer typed another way is the same answer
    assert judge(0, 0, "PLACE Thief★ 2b", "en").accepted


def test_every_text_exists_in_english_and_japanese() -> None:
    keys = {f"tutorial.title.{x.id}" for x in LESSONS}
    for lesson in LESSONS:
        for s in lesson.steps:
            keys |= {s.say, s.other, *s.explain.values()}
    for key in sorted(keys):
        for lang in ("en", "ja"):
            assert i18n.template(lang, key) != key, (lang, key)
        assert i18n.template("ja", key) != i18n.template("en", key), key


def test_screens_in_japanese_name_cards_in_japanese() -> None:
    sc = screen(0, 0, "ja")
    assert ("place thief 2B", "配置 シーフ★ 2B") in sc.buttons
    assert sc.title == "初期配置" and "自軍エリア" in sc.text
    assert dict(screen(1, 0, "ja").buttons)["pick advance"] == "選択 進撃"


def test_the_last_lesson_ends_the_game_won() -> None:
    """R13.1: the monster deck empty and the last monster defeated: the solo game is won."""
    g = LESSONS[-1].game_at(len(LESSONS[-1].steps))
    assert g.over and g.result is not None and g.result["code"] == "end.all_defeated"
    assert screen(len(LESSONS) - 1, 1, "en").all_done


def test_a_lesson_game_is_a_puzzle_that_replays() -> None:
    """R15: the position is its start plus the accepted actions, so a stored place (lesson,
    step) always rebuilds the same position."""
    lesson = LESSONS[3]
    g = lesson.game_at(2)
    assert Game.replay(g.setup, g.log).to_json() == g.to_json()


# ---- hosting: progress per user, on both store backends -------------------------------------------

def test_leave_and_resume_across_a_restart_skip_and_restart(db) -> None:
    async def main() -> None:
        s1 = await db.open()
        t1 = Tutorial(tutorial_store(s1))
        first, resumed = await t1.current(7, "en")
        assert (first.lesson, first.step, resumed) == (0, 0, False)
        out = await t1.answer(7, "placement", 0, "place warrior 2B", "en")
        assert out is not None and not out.accepted
        out = await t1.answer(7, "placement", 0, "place thief 2B", "en")
        assert out is not None and out.accepted and out.screen.finished
        nxt = await t1.next_lesson(7, "en")
        assert (nxt.lesson, nxt.step) == (1, 0)
        out = await t1.answer(7, "commands", 0, "pick advance", "en")
        assert out is not None and out.accepted
        await s1.close()  # the learner leaves; the bot restarts
        s2 = await db.open()
        t2 = Tutorial(tutorial_store(s2))
        back, resumed = await t2.current(7, "en")
        assert (back.lesson, back.step, resumed) == (1, 1, True)
        # a button of an older step answers nothing
        assert await t2.answer(7, "commands", 0, "pick advance", "en") is None
        again = await t2.restart(7, "en")
        assert (again.lesson, again.step) == (1, 0)
        skipped = await t2.next_lesson(7, "en")
        assert (skipped.lesson, skipped.step) == (2, 0)
        other, resumed = await t2.current(8, "en")  # progress is per user
        assert (other.lesson, other.step, resumed) == (0, 0, False)
        last = await t2.goto(7, len(LESSONS) - 1, "en")
        end = await t2.next_lesson(7, "en")  # past the last lesson: its finished screen
        assert last.lesson == end.lesson == len(LESSONS) - 1 and end.all_done
        await s2.close()
    asyncio.run(main())


def test_a_place_in_a_lesson_no_longer_in_the_file_starts_over(db) -> None:
    async def main() -> None:
        s = await db.open()
        store = tutorial_store(s)
        await store.save(9, "a-lesson-removed-since", 3)
        sc, resumed = await Tutorial(store).current(9, "en")
        assert (sc.lesson, sc.step, resumed) == (0, 0, False)
        await store.save(9, "placement", 99)  # a lesson shortened since: its end
        sc, _ = await Tutorial(store).current(9, "en")
        assert sc.finished
        if not db.pg:  # an unreadable step (SQLite keeps any text): that lesson from its start
            await store.save(9, "commands", 2)
            await db.sql("UPDATE tutorial_progress SET step='two' WHERE user_id=9")
            sc, resumed = await Tutorial(store).current(9, "en")
            assert (sc.lesson, sc.step, resumed) == (1, 0, True)
            # an infinite REAL failed every tutorial command (the fault-injection audit)
            await db.sql("UPDATE tutorial_progress SET step=9e999 WHERE user_id=9")
            sc, _ = await Tutorial(store).current(9, "en")
            assert (sc.lesson, sc.step) == (1, 0)
        # a step below the first (-1) showed step 1, and no right answer moved it on: it
        # is stored as shown, and the answer steps on (the fault-injection audit)
        await store.save(9, "commands", -1)
        t = Tutorial(store)
        sc, _ = await t.current(9, "en")
        assert (sc.lesson, sc.step) == (1, 0)
        out = await t.answer(9, "commands", 0, LESSONS[1].steps[0].accept, "en")
        assert out is not None and out.accepted and out.screen.step == 1
        await s.close()
    asyncio.run(main())


@pytest.mark.parametrize("db", ["sqlite"], indirect=True)
@pytest.mark.parametrize("damage", ["'two'", "9e999", "1.5"])
def test_an_unreadable_step_is_stored_as_shown_and_the_right_answer_steps_on(db,
                                                                            damage) -> None:
    """The fault-injection audit: a step SQLite kept as text, infinity or a fraction showed
    the lesson's first step (or the one below the fraction), but no answer moved it on: the
    advance compares with the stored step, which was still the damaged value, so the
    learner was shown the same step after every right answer, for good. (PostgreSQL's
    INTEGER column keeps no such value.)"""
    async def main() -> None:
        s = await db.open()
        store = tutorial_store(s)
        await store.save(9, "commands", 2)
        await db.sql(f"UPDATE tutorial_progress SET step={damage} WHERE user_id=9")
        t = Tutorial(store)
        sc, _ = await t.current(9, "en")
        out = await t.answer(9, "commands", sc.step, LESSONS[1].steps[sc.step].accept, "en")
        assert out is not None and out.accepted and out.screen.step == sc.step + 1
        assert (await t.current(9, "en"))[0].step == sc.step + 1
        await s.close()
    asyncio.run(main())


def test_the_image_frames_the_steps_squares_and_nothing_else() -> None:
    """Issue 23: the image with the squares that matter highlighted (render.focus_png)."""
    sc = screen(3, 1, "en")  # dice, step 2: 5A, 5B, 6B
    framed = focus_image(sc.view, SEAT, sc.highlight).convert("RGB")
    plain = focus_image(sc.view, SEAT, ()).convert("RGB")
    g = board_geom(BOARD_SQUARE, False)

    def edge(im: Image.Image, square: str, inside: int) -> tuple[int, int, int]:
        """The pixel `inside` pixels in from the square's left edge, half way down."""
        b = g.box_of(square)
        assert b is not None
        px = im.getpixel((int(b[0]) + inside, int((b[1] + b[3]) / 2)))
        assert isinstance(px, tuple)
        return (int(px[0]), int(px[1]), int(px[2]))

    def near(a: tuple[int, int, int], b: tuple[int, ...]) -> bool:
        return sum(abs(x - y) for x, y in zip(a, b, strict=False)) < 60

    for q in sc.highlight:  # framed on its edge, its inside left to its piece's numbers
        assert near(edge(framed, q, 0), FOCUS) and not near(edge(plain, q, 0), FOCUS), q
        assert not near(edge(framed, q, 8), FOCUS), q
    for q in ("1A", "3C", "4B"):  # 4B beside the framed 5B: its piece untouched too
        assert edge(framed, q, 5) == edge(plain, q, 5), q
    png = render.focus_png(sc.view, SEAT, sc.highlight, lang="ja")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_of_two_racing_answers_one_moves_on_and_a_skip_is_never_undone(db) -> None:
    """Two clicks of the taught button at once (or in two processes): the learner moves one
    step, not two; an answer that was judged before a skip landed does not bring them back."""
    async def main() -> None:
        a, b = await db.open(), await db.open()
        ta, tb = Tutorial(tutorial_store(a)), Tutorial(tutorial_store(b))
        await ta.goto(5, 1, "en")  # commands, step 0
        got = await asyncio.gather(ta.answer(5, "commands", 0, "pick advance", "en"),
                                   tb.answer(5, "commands", 0, "pick advance", "en"))
        assert sum(x is not None and x.accepted for x in got) == 1
        assert (await tb.current(5, "en"))[0].step == 1
        await tb.next_lesson(5, "en")  # skipped to lesson 3 meanwhile
        assert not await tutorial_store(a).advance(5, "commands", 1)
        sc, _ = await ta.current(5, "en")
        assert (sc.lesson, sc.step) == (2, 0)
        for s in (a, b):
            await s.close()
    asyncio.run(main())


def _events(lesson_id: str, step: int) -> list[dict[str, object]]:
    index = tut.lesson_index(lesson_id)
    assert index is not None
    out = judge(index, step, LESSONS[index].steps[step].accept, "en")
    assert out.accepted
    return [dict(e) for e in out.screen.events]


def test_what_the_lessons_say_happens_is_what_the_engine_does() -> None:
    """The words promise rolls, moves and summons (and card values): a balance change to
    engine/data/cards.json that makes a lesson's words untrue fails here, not in front of a
    learner (R8.2 dice and DEF, R9 Invasion, R10.2 adjacent summon, R12.1 Level Up)."""
    cs = LESSONS[0].start().cards
    assert (cs.monsters["goblin"].defense, cs.monsters["skeleton"].defense) == (6, 7)
    assert (cs.monsters["goblin"].hp, cs.monsters["skeleton"].hp) == (1, 3)
    assert (cs.units["thief_star"].mov, cs.units["sorcerer_star"].mov) == (2, 1)
    assert (cs.units["archer"].cost, cs.units["knight"].cost) == (3, 5)
    assert (cs.units["warrior_star"].skill.mod, cs.units["warrior"].skill.mod) == (1, 2)
    assert cs.monsters["skeleton"].range == ((1, 0), (2, 0), (3, 0))
    assert cs.monsters["skeleton"].atk == 2 and cs.units["warrior_star"].hp == 4

    def rolled(evs: list[dict[str, object]]) -> list[tuple[object, object]]:
        return [(e["total"], e["result"]) for e in evs if e["type"] == "rolled"]

    # "The Goblin had 1 HP and is defeated; the Skeleton took 1 damage: 2 HP left"
    area = _events("actions", 0)
    assert [e["square"] for e in area if e["type"] == "defeated"] == ["6A"]
    assert {e["square"]: e["hp_left"] for e in area if e["type"] == "damaged"} == {"6A": 0, "6B": 2}
    dice1 = _events("dice", 0)  # "below DEF 7: only 1 damage, the Skeleton has 2 HP left"
    assert rolled(dice1) == [(4, "miss")]
    assert [(e["card"], e["hp_left"]) for e in dice1 if e["type"] == "damaged"] == [("skeleton", 2)]
    dice2 = _events("dice", 1)  # "7 reaches DEF 7: 2 damage, the Skeleton is defeated"
    assert rolled(dice2) == [(7, "hit")] and any(e["type"] == "defeated" for e in dice2)
    assert rolled(_events("boons", 0)) == [(6, "miss")]  # "5 + 1 = 6: below DEF 7"
    assert rolled(_events("boons", 1)) == [(7, "hit")]  # "the same dice make 7 — a hit"
    enemy = _events("enemy", 0)  # "the Skeleton moved 1 square, to 4B"; two summoned
    assert [e["to"] for e in enemy if e["type"] == "monster_moved"] == ["4B"]
    assert len([e for e in enemy if e["type"] == "summoned"]) == 2
    summon = _events("summon", 0)  # the Goblin attacks the Thief★; 6B, then past 5B to 4B
    assert [e["square"] for e in summon if e["type"] == "damaged"] == ["1C"]
    assert [e["square"] for e in summon if e["type"] == "summoned"] == ["6B", "4B"]
    assert not any(e["type"] == "invaded" for e in summon)


def test_the_tutorial_plays_the_card_set_new_games_are_dealt() -> None:
    """Issue 23 (new-player polish): the lessons play the default card set
    (engine.cards.default_version), so the numbers a learner is taught — a Goblin's 1 HP, a
    Skeleton's DEF 7 — are those of their first game; the next card set cannot leave the
    tutorial behind silently. No lesson starts with a monster wounded past its HP."""
    want = default_version()
    assert want is not None
    for lesson in LESSONS:
        assert lesson.cards_version == want, lesson.id
        g = lesson.start()
        assert g.setup["cards_version"] == want, lesson.id
        for square, piece in lesson.position.get("board", {}).items():
            monster = g.cards.monsters.get(piece["card"])
            if monster is not None:
                assert piece.get("dmg", 0) < monster.hp, (lesson.id, square)


def _a_real_fatigue_choice(index: int, lone: str) -> Callable[[str], list[str]]:
    """What every lesson's fatigue step must hold (R11.2): more units acted than may be
    readied, so the game asks (`trivial_action` is None); the step says the rule, that 2 or
    fewer are readied without asking, in both languages; `lone` (one unit) is explained, not
    taken. Returns the next round's legal answers after a given `ready`, to check what the
    step says of the choice."""
    lesson = LESSONS[index]
    g = lesson.game_at(1)
    dec = g.decision(SEAT)
    assert dec is not None and dec["kind"] == "ready" and dec["card"] == "fatigue"
    acted = [u for u in g.view(SEAT)["players"][SEAT]["board"] if u and u.get("acted")]
    assert len(acted) > dec["n"] == 2
    assert g.trivial_action(SEAT) is None  # the game asks: the choice is real
    for lang, expected in (("en", ("(R11.2)", "up to 2", "2 or fewer", "readied for you")),
                           ("ja", ("（R11.2）", "2体まで", "2体以下", "自動で"))):
        said = screen(index, 1, lang).text
        assert all(w in said for w in expected), (lang, said)
    assert not judge(index, 1, lone, "en").accepted
    assert "up to 2" in judge(index, 1, lone, "en").explanation

    def next_round(ready: str) -> list[str]:
        after = lesson.game_at(1)
        after.apply(SEAT, ready)
        after.apply(SEAT, "pick advance")
        return [str(a) for a in after.legal_actions(SEAT)]
    return next_round


def test_the_fatigue_step_asks_only_when_a_real_game_would() -> None:
    """R11.2: fatigue recovery readies up to 2 acted units; a real game readies 2 or fewer
    without asking (engine `trivial_action`), so a lesson that asked about one unit taught a
    choice the player never meets. The enemy lesson's fatigue step now has 3 acted units
    (the game asks), the player is told when it does not ask, and what the step says of the
    choice is what the next round allows: the Cleric★ heals 2A, the Thief★ shoots 6C, the
    Warrior★ on 2A reaches no monster."""
    index = lesson_index("enemy")
    assert index is not None
    next_round = _a_real_fatigue_choice(index, "ready 2A")
    taught = next_round(LESSONS[index].steps[1].accept)
    assert "act 1A heal 2A" in taught and "act 1C to 3C attack 6C" in taught
    other = next_round("ready 1A 2A")
    assert not [a for a in other if a.startswith("act 2A") and " attack " in a]


def test_an_answer_that_works_too_is_not_told_not_this_time() -> None:
    """The new-player audit read "💡 Not this time: That works too: …" for the dice lesson's
    shorter move (R8.2: from 3B the Skeleton on 6B is in the Thief★'s range): an answer a
    step lists as working as well (`also`) is led by "good idea, but", in both languages;
    a wrong one still by "not this time". Every `also` answer is legal, not the taught one,
    and has words of its own."""
    index = lesson_index("dice")
    assert index is not None
    for lang, lead in (("en", "💡 Good idea, but this step teaches another move:"),
                       ("ja", "💡 良い手ですが、このステップで学ぶのは別の手です:")):
        out = judge(index, 0, "act 2B to 3B attack 6B", lang)
        assert not out.accepted and out.lead == tut.ALSO_WORKS
        assert i18n.t(lang, out.lead) == lead
        assert out.explanation.startswith(("From 3B", "3Bからでも"))
        wrong = judge(index, 0, "act 5A attack 6B", lang)
        assert wrong.lead == tut.NOT_THIS and wrong.explanation.startswith(("From 5A", "5Aの"))
    assert "That works too:" not in i18n.t("en", "tutorial.dice.1.near")
    for i, lesson in enumerate(LESSONS):
        for k, s in enumerate(lesson.steps):
            g = lesson.game_at(k)
            for action in s.also:
                assert tut.canonical(g, action) not in (None, tut.canonical(g, s.accept))
                assert action in s.explain, (lesson.id, k, action)
                assert judge(i, k, action, "en").lead == tut.ALSO_WORKS


def test_every_step_image_has_a_description_of_its_own() -> None:
    """The image of each step is described as that lesson and step (its alt text on
    Discord, at most 1024 characters), in both languages: the framed squares and the pieces
    on the board (R2: a unit on 2B, the Goblin on its magic circle), never one text for all."""
    for lang in ("en", "ja"):
        seen: set[str] = set()
        for i, lesson in enumerate(LESSONS):
            for k in range(len(lesson.steps) + 1):
                sc = screen(i, k, lang)
                alt = sc.image_text(lang)
                assert alt not in seen and "{" not in alt and len(alt) <= 1024, alt
                assert sc.title in alt and f"{i + 1}/{len(LESSONS)}" in alt
                seen.add(alt)
    assert screen(0, 0, "en").image_text("en") == (
        "Tutorial lesson 1/9, Placement, step 1/1: the board with 1A, 1B, 1C, 2A, 2B, 2C, 6B "
        "framed in yellow. "
        "On it: Goblin on 6B, Skeleton on 6C.")
    assert screen(0, 1, "ja").image_text("ja") == (
        "チュートリアル — レッスン1/9「初期配置」完了: 最後の手の後の盤面。"
        "盤上: 2Bにシーフ★、6Bにゴブリン、6Cにスケルトン。")


def test_no_step_asks_what_a_real_game_answers_by_itself() -> None:
    """R7 (Rest: ready up to 2 units), R11.2 (fatigue recovery: up to 2): a real game readies
    2 or fewer acted units without asking (engine `trivial_action`, applied by
    service/outcomes.py), so a step that waits for such an answer teaches a question the
    player never meets. The commands lesson asked `ready 4B` during Rest and the summon
    lesson `ready 1C` in fatigue recovery: at every step the game now really asks, and what
    it would answer itself the lesson answers too (`then`)."""
    for lesson in LESSONS:
        g = lesson.start()
        for k, step in enumerate(lesson.steps):
            assert g.trivial_action(SEAT) is None, (lesson.id, k + 1, step.accept)
            g.apply(SEAT, step.accept)
            for action in step.then:
                assert str(g.trivial_action(SEAT)) == action, (lesson.id, k + 1, action)
                g.apply(SEAT, action)


def test_rest_readies_the_thief_for_you_and_raid_lets_it_act_again() -> None:
    """R7: Rest's small effect readies up to 2 acted units; with the Thief★ the one acted unit
    there is nothing to choose, so the lesson says it is readied for you (as the game does)
    and the step asks what the game asks next: Raid's 1 unit action (R7), the readied Thief★
    shooting the Goblin 2 squares ahead (R8.2)."""
    index = lesson_index("commands")
    assert index is not None
    lesson = LESSONS[index]
    before = lesson.game_at(1)
    before.apply(SEAT, lesson.steps[1].accept)
    dec = before.decision(SEAT)
    assert dec is not None and dec["kind"] == "ready" and dec["card"] == "rest"
    assert str(before.trivial_action(SEAT)) == "ready 4B"  # the game would not ask
    g = lesson.game_at(2)
    dec = g.decision(SEAT)
    assert dec is not None and dec["kind"] == "actions" and dec["card"] == "raid" \
        and dec["left"] == 1
    for lang, expected in (("en", ("(R7)", "2 or fewer", "readied for you", "Raid")),
                           ("ja", ("（R7）", "2体以下", "自動で", "奇襲"))):
        said = screen(index, 2, lang).text
        assert all(w in said for w in expected), (lang, said)
    assert judge(index, 2, "act 4B attack 6B", "en").accepted
    assert "2–3 squares" in judge(index, 2, "act 4B to 5B", "en").explanation
    g.apply(SEAT, "act 4B attack 6B")
    assert [d["card"] for d in g.view(SEAT)["players"][SEAT]["defeated"]] == ["goblin"]


def test_the_summon_lessons_fatigue_step_is_a_real_choice() -> None:
    """R11.2: fatigue recovery readies up to 2 acted units, and the game asks only when more
    have acted. The summon lesson's last step asked to ready its one acted Thief★; now the
    Cleric★ and Warrior★ acted too, the game asks, the step says when it does not, and what
    it says of the choice is what the next round allows: the Thief★ on 1C and the Warrior★ on
    3A strike the Goblin summoned on 4B (R10), the Cleric★ on 2A reaches no wounded unit."""
    index = lesson_index("summon")
    assert index is not None
    next_round = _a_real_fatigue_choice(index, "ready 1C")
    taught = next_round(LESSONS[index].steps[1].accept)
    assert "act 1C to 2B attack 4B" in taught and "act 3A to 3B attack 4B" in taught
    other = next_round("ready 1C 2A")
    assert not [a for a in other if a.startswith("act 2A") and " heal " in a]


def test_a_damaged_lesson_is_left_out_and_the_others_are_taught() -> None:
    """The fault-injection audit: the lessons are a designer's data file. A step without
    its answer in one lesson failed reading the file, and with it every tutorial command
    of every learner; an answer the engine refuses where its step stands failed that step
    with an internal error. Such a lesson is left out (logged), the others load whole."""
    data = json.loads(tut.DATA_FILE.read_text(encoding="utf-8"))
    ids = [d["id"] for d in data["lessons"]]
    del data["lessons"][1]["steps"][0]["accept"]  # a step missing its answer
    data["lessons"][2]["steps"][-1]["accept"] = "pick nonsense"  # one the engine refuses
    data["lessons"][3]["steps"] = 7  # no steps at all
    kept = tut.load(data)
    assert [x.id for x in kept] == [ids[0], *ids[4:]]
    assert [x.steps for x in kept] == [x.steps for x in lessons() if x.id in set(ids) - set(
        ids[1:4])]


def test_a_lesson_asked_for_by_number_with_every_lesson_damaged_is_refused_in_words(
        db, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fault-injection audit: with no lesson left to teach (each damaged, `load`), a
    lesson asked for by its number raised IndexError; it is a refusal in words."""
    monkeypatch.setattr(tut, "lessons", lambda: ())

    async def main() -> None:
        s = await db.open()
        try:
            with pytest.raises(ServiceError) as e:
                await Tutorial(tutorial_store(s)).goto(7, 2, "en")
            assert "none of its lessons could be read" in words(e.value, "en")
            assert "レッスンをどれも読み込めませんでした" in words(e.value, "ja")
        finally:
            await s.close()
    asyncio.run(main())
