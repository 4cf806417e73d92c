"""Channel images and the player's answer (issue 22): images are drawn away from the event
loop — in worker processes in the bot — so nobody's answer waits for an image, and a
channel's announcements are posted in the order the moves were made, however long the
images of an earlier one take to draw."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from bot_driver import Clock, Table, make_bot
from harness import Harness

import render
from engine import Action, Game


def _slash(action: Action) -> tuple[str, dict[str, Any]]:
    """The slash command a player would type for one legal action."""
    if action.verb == "pick":
        return "rr pick", {"card": action.card}
    if action.verb in ("keep", "reroll"):
        return "rr roll", {"choice": action.verb}
    if action.verb == "place":
        return "rr place", {"card": action.card, "square": action.square}
    if action.verb == "act":
        opts: dict[str, Any] = {"unit": action.square}
        if action.to:
            opts["to"] = action.to
        if action.skill:
            opts["target"] = str(action.skill)
        if action.fullmove:
            opts["fullmove"] = True
        return "rr act", opts
    if action.verb == "recruit":
        return "rr recruit", {"card": f"merc {action.card}" if action.merc else action.card,
                              "square": action.square}
    if action.verb == "ready":
        return "rr ready", {"units": " ".join(action.squares)}
    if action.verb == "support":
        return "rr support", {"unit": action.square}
    return "rr done", {}


def _public(h: Harness, table: Table) -> list[Any]:
    return [m for m in h.messages(table.channel) if not m.ephemeral]


async def _walk_to(table: Table, rng: random.Random, find: Callable[[dict, list], Any]) -> Any:
    """Play on (random legal answers) until the solo seat is asked and `find(setup, log)`
    names what to answer there; that answer, or AssertionError after 80 steps."""
    for _ in range(80):
        row, g = await table.game()
        assert not g.over, "no phase-ending answer found"
        if g.waiting_for() == [0]:
            found = find(row.setup, await table.bot.store.log(row.id))
            if found is not None:
                return found
        await table.step(rng)
    raise AssertionError("no phase-ending answer found in 80 steps")


def _two_answers(setup: dict, log: list) -> tuple[Action, Action] | None:
    """An answer of seat 0 that ends a phase (so its announcement carries an image) and an
    answer seat 0 can give right after it, found by playing the stored log on a copy."""
    probe = Game.replay(setup, log)
    for first in probe.legal_actions(0):
        if first.verb == "levelup":
            continue
        copy = Game.replay(setup, log)
        ended: list[str] = []
        copy.apply(0, str(first), on_resolved=lambda what, n, ended=ended: ended.append(what))
        if not ended or copy.over or copy.waiting_for() != [0]:
            continue
        second = [a for a in copy.legal_actions(0) if a.verb != "levelup"]
        if second:
            return first, second[0]
    return None


def test_a_slow_image_keeps_the_channels_posts_in_move_order(tmp_path, monkeypatch):
    """Two moves in a row in one channel, the first one's image slow to draw: the second
    move's posts wait for it, and the outbox notices are told in the order the moves were
    committed (on main the second move's posts overtook the first one's image)."""
    slow = threading.Event()  # armed: the next image takes a while to draw
    real = render.table_png

    def table_png(view: Any, **kw: Any) -> bytes:
        if slow.is_set():
            slow.clear()
            time.sleep(0.5)  # bounded: the harness waits for it
        return real(view, **kw)

    monkeypatch.setattr(render, "table_png", table_png)

    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3),
                           settle_timeout=60) as h:
            ann = h.user("ann")
            table = Table(h)
            await table.open(ann, [], players=1)
            told: list[int] = []
            delivered = table.bot.store.delivered

            async def spy(notice: int) -> None:
                told.append(notice)
                await delivered(notice)

            table.bot.store.delivered = spy  # type: ignore[method-assign]
            found = await _walk_to(table, random.Random(5), _two_answers)
            before = len(_public(h, table))
            told.clear()
            slow.set()
            (c1, o1), (c2, o2) = _slash(found[0]), _slash(found[1])
            first, second = await h.gather(
                h.slash(ann, c1, channel=table.channel, **o1),
                h.slash(ann, c2, channel=table.channel, **o2))
            assert first.text.startswith("✅") and second.text.startswith("✅"), \
                (first.text, second.text)
            new = _public(h, table)[before:]
            assert any(m.files for m in new)  # the first move ended a phase
            assert len(told) == 2 and told == sorted(told), told  # told in move order
            # the first move's first phase, with its image, is the first post
            assert new[0].files, [m.content for m in new]
            rounds = [int(f.filename.split("-r")[1].split(".")[0])
                      for m in new for f in m.files]
            assert rounds == sorted(rounds)

    asyncio.run(scenario())


@pytest.mark.process
def test_images_drawn_in_worker_processes_come_in_phase_order(tmp_path):
    """The bot's configuration (bot.py: draw_processes): every phase's image is drawn in a
    worker process — not this one, whose event loop answers players — posted in phase order,
    and no worker outlives the bot."""
    async def scenario() -> None:
        def bot() -> Any:
            b = make_bot(tmp_path / "g.db", Clock(), seed=3)
            b.announcer.processes = True
            return b

        async with Harness(bot, settle_timeout=120) as h:
            table = Table(h)
            await table.open(h.user("ann"), [], players=1)
            rng = random.Random(2)
            images = 0
            for _ in range(40):
                if await table.step(rng) is None:
                    break
                images = sum(len(m.files) for m in h.messages(table.channel))
                if images >= 3:
                    break
            assert images >= 3
            workers = [p.pid for p in multiprocessing.active_children()]
            assert workers and os.getpid() not in workers  # drawn in worker processes
            pngs = [f for m in h.messages(table.channel) for f in m.files]
            assert all(f.filename.endswith(".png") for f in pngs)
            rounds = [int(f.filename.split("-r")[1].split(".")[0]) for f in pngs]
            assert rounds == sorted(rounds)
        assert not multiprocessing.active_children()  # closed with the bot

    asyncio.run(scenario())


def _phase_ender(setup: dict, log: list) -> Action | None:
    """An answer of seat 0 that ends a phase (its announcement carries a table image)."""
    probe = Game.replay(setup, log)
    for action in probe.legal_actions(0):
        if action.verb == "levelup":
            continue
        copy = Game.replay(setup, log)
        ended: list[str] = []
        copy.apply(0, str(action), on_resolved=lambda what, n, ended=ended: ended.append(what))
        if ended:
            return action
    return None


def test_the_players_answer_is_sent_before_a_slow_image(tmp_path, monkeypatch):
    """Issue 22: a player's own answer never waits for an image. The table image of the
    phase their answer ended takes a while to draw; their private answer reaches Discord
    before any of the move's channel posts, the image's included. (A guard: 1d6ad38 and
    main already answer first; what made answers late there was drawing threads holding
    the GIL, bench/bot.py.)"""
    drawing = threading.Event()  # set while an image is being drawn
    real = render.table_png

    def table_png(view: Any, **kw: Any) -> bytes:
        drawing.set()
        time.sleep(0.5)  # bounded: the harness waits for it
        return real(view, **kw)

    async def scenario() -> None:
        async with Harness(lambda: make_bot(tmp_path / "g.db", Clock(), seed=3),
                           settle_timeout=60) as h:
            ann = h.user("ann")
            table = Table(h)
            await table.open(ann, [], players=1)
            monkeypatch.setattr(render, "table_png", table_png)
            found = await _walk_to(table, random.Random(5), _phase_ender)
            before = len(h.http.requests)
            drawing.clear()
            command, options = _slash(found)
            res = await h.slash(ann, command, channel=table.channel, **options)
            assert res.text.startswith("✅"), res.text
            assert drawing.is_set()  # this answer's announcement drew a table image
            sent = h.http.requests[before:]
            answer = next(r.seq for r in sent if r.via == "webhook" and r.method == "POST"
                          and r.ok)  # the first followup: the player's answer
            image = next(r.seq for r in sent if r.files and r.route.endswith("/messages")
                         and r.ok)
            assert answer < image, sent
            channel_posts = [r.seq for r in sent
                             if r.route == "/channels/{channel_id}/messages" and r.ok]
            assert channel_posts and answer < min(channel_posts), sent

    asyncio.run(scenario())
