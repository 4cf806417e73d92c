"""`/rr-learn tutorial` through the Discord harness (issue 23, "A tutorial you play"): one
private (ephemeral) message per learner, the step's words with the board image (squares
framed) attached, the taught action and its alternatives as buttons, an explanation for a
wrong button that changes nothing, Skip / Restart / Leave, resuming after a bot restart,
old buttons, Japanese, and the command itself beside `/rr` (which has Discord's 25)."""

from __future__ import annotations

import asyncio

from bot_driver import Clock, make_bot
from harness import Harness, RecordedMessage

import i18n
import service.tutorial
from cogs.tutorial import LearnButton, action_mark
from service.tutorial import Tutorial, lessons, screen
from store import Store, tutorial_store

PNG = b"\x89PNG"


def labels(msg: RecordedMessage) -> list[str]:
    return [b.label for b in msg.buttons]


async def open_lesson(h: Harness, user: object, n: int) -> RecordedMessage:
    """`/rr-learn tutorial lesson:n`: the lesson's message, whose buttons the test clicks."""
    msg = (await h.slash(user, "rr-learn tutorial", lesson=n)).message
    assert msg is not None
    return msg


def test_tutorial_buttons_explain_move_on_skip_restart_leave_and_resume(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock()),
                           settle_timeout=60) as h:
            ann = h.user("ann")
            res = await h.slash(ann, "rr-learn tutorial")
            msg = res.message
            assert res.ephemeral and msg is not None, res.text
            assert "Welcome to Rook & Raiders!" in res.text
            assert "lesson 1/9: **Placement** (R2, R4) · step 1/1" in res.text
            assert "Place your Thief★ on **2B**" in res.text
            assert labels(msg) == ["place Thief★ 2B", "place Warrior★ 2B", "place Thief★ 3B",
                                   "Skip lesson", "Restart lesson", "Leave"]
            first_image = msg.files[0].data
            assert msg.files[0].filename == "tutorial.png" and first_image.startswith(PNG)
            # a wrong answer: the explanation, the same step, nothing stored moved
            wrong = await h.click(ann, message=msg, label="place Thief★ 3B")
            assert wrong.kind == "deferred_update" and wrong.message is msg
            assert "💡 Not this time: 3B is outside your home area" in msg.text, msg.text
            assert "step 1/1" in msg.text and msg.files[0].data == first_image
            kept = await tutorial_store(h.bot.store).progress(ann.id)
            assert kept is not None and (kept.lesson, kept.step) == ("placement", 0)
            # the taught one: well done, the lesson is complete, the image shows the move
            await h.click(ann, message=msg, label="place Thief★ 2B")
            assert "✅ Well done." in msg.text and "Lesson complete: **Placement**" in msg.text
            assert labels(msg) == ["Next lesson", "Restart lesson", "Leave"]
            assert msg.files[0].data.startswith(PNG) and msg.files[0].data != first_image
            await h.click(ann, message=msg, label="Next lesson")
            assert "lesson 2/9: **Command cards and the LEADER**" in msg.text
            await h.click(ann, message=msg, label="pick Advance")
            assert "step 2/3" in msg.text, msg.text
            await h.click(ann, message=msg, label="Restart lesson")
            assert "step 1/3" in msg.text
            await h.click(ann, message=msg, label="Skip lesson")
            assert "lesson 3/9: **Unit actions and ranges**" in msg.text
            await h.click(ann, message=msg, label="Leave")
            assert "You left the tutorial" in msg.text and msg.buttons == [] and not msg.files
            server = h.server
        # the bot restarts (the same Discord): the learner resumes where they left
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock()),
                           settle_timeout=60, server=server) as h:
            res = await h.slash(ann, "rr-learn tutorial")
            assert "Welcome back" in res.text and "lesson 3/9" in res.text, res.text
            assert res.message is not None and res.files[0].data.startswith(PNG)
    asyncio.run(scenario())


def test_an_old_button_shows_where_the_learner_stands(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock()),
                           settle_timeout=60) as h:
            ann = h.user("ann")
            old = (await h.slash(ann, "rr-learn tutorial")).message
            new = (await h.slash(ann, "rr-learn tutorial")).message
            assert old is not None and new is not None
            await h.click(ann, message=new, label="place Thief★ 2B")
            await h.click(ann, message=old, label="place Warrior★ 2B")  # lesson 1 is done
            assert "That button belongs to an earlier step" in old.text, old.text
            assert "Lesson complete" in old.text
    asyncio.run(scenario())


def test_tutorial_in_japanese(tmp_path):
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock()),
                           settle_timeout=60) as h:
            yui = h.user("yui", locale="ja")
            res = await h.slash(yui, "rr-learn tutorial")
            msg = res.message
            assert msg is not None and res.ephemeral
            assert "レッスン1/9: **初期配置**（R2、R4）" in res.text, res.text
            assert labels(msg)[:3] == ["配置 シーフ★ 2B", "配置 ウォーリア★ 2B",
                                       "配置 シーフ★ 3B"]
            assert labels(msg)[3:] == ["レッスンを飛ばす", "レッスンをやり直す", "中断する"]
            await h.click(yui, message=msg, label="配置 ウォーリア★ 2B")
            assert i18n.t("ja", "tutorial.placement.1.warrior") in msg.text
            alt = msg.files[0].description
            assert alt == screen(0, 0, "ja").image_text("ja")
            assert alt.startswith("チュートリアル — レッスン1/9「初期配置」ステップ1/1: 1A、1B、1C、2A、2B、2C、6Bを"), alt
    asyncio.run(scenario())


def test_every_lesson_can_be_finished_with_its_buttons(tmp_path):
    """Each step's taught action is one of its buttons: a learner finishes the tutorial by
    clicking alone (the `/rr act` family cannot reach a lesson's position)."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock()),
                           settle_timeout=60) as h:
            ann = h.user("ann")
            msg = (await h.slash(ann, "rr-learn tutorial")).message
            assert msg is not None
            for k, lesson in enumerate(lessons()):
                for step in lesson.steps:
                    want = dict(zip((b.label for b in msg.buttons[:len(step.buttons)]),
                                    step.buttons, strict=True))
                    label = next(lab for lab, action in want.items() if action == step.accept)
                    await h.click(ann, message=msg, label=label)
                    assert "✅" in msg.text, msg.text
                if k + 1 < len(lessons()):
                    await h.click(ann, message=msg, label="Next lesson")
            assert "You finished the last lesson" in msg.text
            assert "/rr new players:1" in msg.text  # how a game starts, in Discord
            assert next(b for b in msg.buttons if b.label == "Next lesson").disabled
    asyncio.run(scenario())


def test_the_same_tutorial_in_a_dm_and_a_user_install_context(tmp_path):
    """Ephemeral wherever it is typed: in the bot's DM and in a DM between two users (the
    user-installed app) the learner gets the same private message, at the same place."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock()),
                           settle_timeout=60) as h:
            ann, bob = h.user("ann"), h.user("bob")
            res = await h.slash(ann, "rr-learn tutorial", channel=h.dm_channel(ann))
            assert res.ephemeral and res.files and res.message is not None
            await h.click(ann, message=res.message, label="place Thief★ 2B")
            assert "Lesson complete" in res.message.text
            res = await h.slash(ann, "rr-learn tutorial", channel=h.private_channel(ann, bob))
            assert res.ephemeral and "Welcome back" in res.text and "· done" in res.text
    asyncio.run(scenario())


def test_any_lesson_is_chosen_by_its_title_and_starts_from_its_first_step(tmp_path):
    """Issue 23: a learner may replay any lesson — `lesson:` lists them by number and title
    (in Japanese for a Japanese client) and opens the chosen one at its first step; the
    place is kept, so the next `/rr-learn tutorial` resumes there."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3)) as h:
            ann = h.user("ann")
            res = await h.slash(ann, "rr-learn tutorial", lesson=4)
            assert res.ephemeral and "lesson 4/9" in res.text and "step 1/" in res.text
            assert "Welcome" not in res.text
            again = await h.slash(ann, "rr-learn tutorial")
            assert "lesson 4/9" in again.text
            kept = await tutorial_store(h.bot.store).progress(ann.id)
            assert kept is not None and kept.lesson == lessons()[3].id and kept.step == 0
            tree = h.bot.tree
            learn = tree.get_command("rr-learn")
            assert learn is not None and tree.translator is not None
            payload = await learn.get_translated_payload(tree, tree.translator)  # as synced
            tut = next(o for o in payload["options"] if o["name"] == "tutorial")
            lesson = next(o for o in tut["options"] if o["name"] == "lesson")
            assert [c["name"] for c in lesson["choices"]][:2] == ["1. Placement",
                                                                   "2. Command cards and the LEADER"]
            assert len(lesson["choices"]) == len(lessons())
            ja = lesson["choices"][0]["name_localizations"]["ja"]
            assert ja == "1. " + lessons()[0].title("ja") and ja != "1. Placement"
    asyncio.run(scenario())


def test_a_move_that_works_too_reads_as_a_good_idea_not_as_wrong(tmp_path):
    """R8.2: from 3B the Thief★ reaches the Skeleton on 6B as well; the dice lesson teaches
    the full move to 4B. The learner clicking the shorter move read "💡 Not this time: That
    works too: …" (the new-player audit); now the message says it is a good idea the step
    does not teach, and the step stays where it was."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock())) as h:
            ann = h.user("ann")
            msg = await open_lesson(h, ann, 4)
            await h.click(ann, message=msg, label="act 2B to 3B attack 6B")
            assert "💡 Good idea, but this step teaches another move: From 3B the Skeleton " \
                   "on 6B is 3 squares ahead, in range, so that works too." in msg.text, msg.text
            assert "Not this time" not in msg.text and "step 1/2" in msg.text
            await h.click(ann, message=msg, label="act 5A attack 6B")
            assert "💡 Not this time: From 5A the Warrior★" in msg.text, msg.text
    asyncio.run(scenario())


def test_each_step_image_is_described_as_that_step(tmp_path):
    """The new-player audit: every tutorial image had one description ("The lesson's
    board…"), so a screen reader told nothing of what a step shows. Each image now names its
    lesson, step, framed squares and pieces — the enemy lesson's fatigue step (R11.2) says
    which units have acted — within Discord's 1024 characters."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock())) as h:
            ann = h.user("ann")
            msg = await open_lesson(h, ann, 5)
            first = msg.files[0].description
            assert first.startswith("Tutorial lesson 5/9, The Enemy phase and invasions, "
                                    "step 1/2: the board with 2A, 2B, 3B, 4B, 5B framed"), first
            await h.click(ann, message=msg, label="act 2B to 2A")
            alt = msg.files[0].description
            assert alt != first and "step 2/2" in alt and len(alt) <= 1024
            assert "Cleric★ on 1A (acted), Thief★ on 1C (acted), Warrior★ on 2A (acted)" in alt
    asyncio.run(scenario())


def test_the_done_button_is_capitalised_as_the_buttons_beside_it(tmp_path):
    """R8: `done` gives up a unit action; the step's button read "done" in lower case beside
    "Skip lesson" and "Restart lesson" (the new-player audit). It reads "Done" ("完了" in
    Japanese, as a game's own Done button), and clicking it is still the step's `done`."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock())) as h:
            ann = h.user("ann")
            msg = await open_lesson(h, ann, 2)
            await h.click(ann, message=msg, label="pick Advance")
            assert labels(msg) == ["act 2B to 4B", "Done", "Skip lesson",
                                   "Restart lesson", "Leave"], labels(msg)
            await h.click(ann, message=msg, label="Done")
            assert "💡 Not this time: **Done** gives up the remaining actions (R8)" in msg.text
            assert "step 2/3" in msg.text
            yui = h.user("yui", locale="ja")
            ja = await open_lesson(h, yui, 2)
            await h.click(yui, message=ja, label="選択 進撃")
            assert "完了" in labels(ja) and "done" not in labels(ja), labels(ja)
            await h.click(yui, message=ja, label="完了")
            assert "**完了**は残りの行動を放棄します（R8）" in ja.text, ja.text
    asyncio.run(scenario())


def test_reopening_a_finished_tutorial_says_it_is_finished(tmp_path):
    """The Discord audit: after the last lesson, `/rr-learn tutorial` read "Welcome back:
    your tutorial goes on where you left it." above "🎉 You finished the last lesson".
    It now says the tutorial is finished and any lesson can be played again."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock())) as h:
            ann = h.user("ann")
            msg = await open_lesson(h, ann, 9)
            await h.click(ann, message=msg, label="Skip lesson")  # past the last: finished
            res = await h.slash(ann, "rr-learn tutorial")
            assert "you have finished the tutorial" in res.text, res.text
            assert "goes on where you left it" not in res.text
    asyncio.run(scenario())


def test_a_rolls_buttons_read_as_a_games_own(tmp_path):
    """R12.1–R12.3: after the boons lesson's roll the step offered `reroll`, `keep` and
    `levelup 5B` — the notation — where a game's roll shows "Reroll (1 honor mark)", "Keep"
    and "Level up 5B" (the Discord audit): the lesson now teaches the buttons a player will
    meet; clicking one is still the step's answer."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock())) as h:
            ann = h.user("ann")
            msg = await open_lesson(h, ann, 7)
            await h.click(ann, message=msg, label="act 5B attack 6B")
            assert labels(msg)[:3] == ["Reroll (1 honor mark)", "Keep", "Level up 5B"], \
                labels(msg)
            await h.click(ann, message=msg, label="Level up 5B")
            assert "Not this time" not in msg.text and "Warrior" in msg.text, msg.text
    asyncio.run(scenario())


def test_a_play_command_typed_during_a_lesson_points_back_at_it(tmp_path):
    """The Discord audit: a learner who typed `/rr act` in the middle of a lesson read only
    "There is no game here. Start one with /rr new." — sent away from the lesson. The
    refusal now says the lesson is answered with its buttons; once the learner has left the
    tutorial it says only what it said."""
    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock())) as h:
            ann = h.user("ann")
            msg = await open_lesson(h, ann, 2)
            res = await h.slash(ann, "rr act", unit="2B")
            assert res.ephemeral and "There is no game here" in res.text
            assert "answered with the buttons under its step" in res.text, res.text
            assert "`/rr-learn tutorial`" in res.text, res.text
            bob = await h.slash(h.user("bob"), "rr act", unit="2B")  # not learning
            assert "tutorial" not in bob.text
            await h.click(ann, message=msg, label="Leave")
            res = await h.slash(ann, "rr act", unit="2B")
            assert "tutorial" not in res.text
    asyncio.run(scenario())


def test_a_button_made_for_other_choices_answers_nothing(tmp_path):
    """The verification audit: a lesson file that reorders a step's choices made an open
    message's button answer another choice (an old 'ready 4B' answered 'act 4B to 5B'). A
    button carries a mark of its action; one without it (made before), or with another,
    shows where the learner stands instead of answering."""
    async def scenario():
        store = await Store(":memory:").open()
        try:
            tut = Tutorial(tutorial_store(store))
            sc, _ = await tut.current(7, "en")
            action = sc.buttons[0][0]
            for mark in ("", "000000"):
                now, said = await LearnButton(0, 0, "0", mark=mark).answer(tut, 7, "en", "Ann")
                assert said.startswith("That button belongs to an earlier step"), said
                assert (now.lesson, now.step) == (0, 0)  # nothing was answered
            now, said = await LearnButton(0, 0, "0", mark=action_mark(action)).answer(
                tut, 7, "en", "Ann")
            assert "earlier step" not in said
        finally:
            await store.close()
    asyncio.run(scenario())


def test_a_tutorial_whose_every_lesson_is_damaged_is_refused_in_words(tmp_path, monkeypatch):
    """The fault-injection audit: with every lesson of the data file damaged (each left
    out, service/tutorial.py `load`), a newcomer's place raised IndexError and
    `/rr-learn tutorial` answered 'something went wrong'. It is refused in words, in the
    learner's language."""
    monkeypatch.setattr(service.tutorial, "lessons", lambda: ())

    async def scenario():
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock()),
                           settle_timeout=60) as h:
            ann = h.user("ann")
            res = await h.slash(ann, "rr-learn tutorial")
            assert res.ephemeral and "none of its lessons could be read" in res.text, res.text
            ja = await h.slash(h.user("yui", locale="ja"), "rr-learn tutorial")
            assert "レッスンをどれも読み込めませんでした" in ja.text, ja.text
    asyncio.run(scenario())
