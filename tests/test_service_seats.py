"""AI seats in the service (issue 9): bots from the lobby answer their own decisions at once,
each answer committed and logged like a person's; a broken AI gives the default answer;
zombie mode hands a timed-out seat to an AI until `/rr back`; the removal vote counts
people only."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

import ai
from engine import Game
from service import GameService, ServiceError
from service import ai_seats as A
from service import seats as S
from service.play import Aim
from service.refusals import words
from store import Store


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def _service(tmp_path, clock: Clock | None = None, seed: int = 5):
    store = await Store(str(tmp_path / "g.db")).open()
    return store, GameService(store, clock=clock or Clock(), seed_source=lambda: seed)


async def _play_people(svc: GameService, channel: int, told: list, max_steps: int = 400,
                       until=None) -> Game:
    """Answer every person's decision with a random legal action, letting the AIs answer
    theirs after each move, until the game ends (or `until(g)`): over, or abandoned when
    its last person is out (only AI seats left: never played out unseen)."""
    player = ai.make_player("random", 1)
    for _ in range(max_steps):
        await svc.ai.play_ai(channel, _collect(told))
        latest = await svc.store.latest_game(channel)
        if latest is not None and latest.status == "abandoned":
            return await svc.tables.load(latest)
        row, g = await svc.tables.viewable(channel)
        if g.over or (until and until(g)):
            return g
        waiting = [s for s in g.waiting_for() if not S.ai_level(row, s)]
        assert waiting, "only AI seats are asked something after play_ai"
        seat = waiting[0]
        await svc.play.act(channel, row.seats[seat]["user"], player.choose(g.view(seat), seat))
    raise AssertionError("game did not end")


def _collect(told: list):
    async def on_outcome(out) -> None:
        told.append(out)
    return on_outcome


def test_solo_with_two_bots_plays_to_the_end_and_every_ai_answer_is_logged(tmp_path):
    async def main():
        store, svc = await _service(tmp_path)
        row = await svc.lobby.new_lobby(1, 7, 11, "Ann", players=3, bots=2, bot_level="random")
        assert [s["name"] for s in row.seats] == ["Ann", "Bot 1 (random)", "Bot 2 (random)"]
        assert [s.get("ai") for s in row.seats] == [None, "random", "random"]
        await svc.lobby.start(7, 11)
        told: list = []
        g = await _play_people(svc, 7, told)
        row = await store.get(row.id)
        # the end, or Ann's castle fell with the AIs still in: abandoned then and there
        assert g.over or (row.status == "abandoned" and g.player(0)["eliminated"])
        # every AI answer came as its own outcome, attributed to its bot seat, in the log
        assert told and all(o.actor in (1, 2) and "ai:random" in o.notes for o in told)
        row = await store.get(row.id)
        log_ = await store.log(row.id)
        assert {s for s, _t in log_} == {0, 1, 2}
        assert Game.replay(row.setup, log_).to_json() == row.state  # R15: the log is the game
        await store.close()
    asyncio.run(main())


def test_lobby_bots_are_checked_and_seated_by_the_host_only(tmp_path):
    async def main():
        store, svc = await _service(tmp_path)
        with pytest.raises(ServiceError, match="room for at most 1 AI"):
            await svc.lobby.new_lobby(1, 7, 11, "Ann", players=2, bots=2)
        with pytest.raises(ServiceError, match="Unknown AI level 'godlike'"):
            await svc.lobby.new_lobby(1, 7, 11, "Ann", players=2, bots=1, bot_level="godlike")
        with pytest.raises(ServiceError, match="not solo"):
            await svc.lobby.new_lobby(1, 7, 11, "Ann", players=2, bots=1, difficulty="hard")
        await svc.lobby.new_lobby(1, 7, 11, "Ann", players=4)
        await svc.lobby.join(7, 22, "Bob")
        with pytest.raises(ServiceError, match="Only the host"):
            await svc.lobby.add_bot(7, 22, "random")
        with pytest.raises(ServiceError, match="no AI player"):
            await svc.lobby.remove_bot(7, 11)
        row = await svc.lobby.add_bot(7, 11, "random", 2)
        assert [s["name"] for s in row.seats][2:] == ["Bot 1 (random)", "Bot 2 (random)"]
        with pytest.raises(ServiceError, match="room for 0 more"):
            await svc.lobby.add_bot(7, 11, "random")
        with pytest.raises(ServiceError, match="full"):
            await svc.lobby.join(7, 33, "Cid")
        row = await svc.lobby.remove_bot(7, 11)
        row = await svc.lobby.add_bot(7, 11, "random")  # the freed number is used again
        assert [s["name"] for s in row.seats][2:] == ["Bot 1 (random)", "Bot 2 (random)"]
        assert len({s["user"] for s in row.seats}) == 4
        await store.close()
    asyncio.run(main())


class Broken:
    level = "broken"

    def __init__(self, seed: int = 0) -> None:
        pass

    def choose(self, view, seat):
        raise RuntimeError("AI bug")


class Nonsense(Broken):
    def choose(self, view, seat):
        return "fly to the moon"


class Spy(Broken):
    seen: list = []
    threads: list = []
    loop_answers: list = []
    loop: asyncio.AbstractEventLoop

    def choose(self, view, seat):
        Spy.seen.append((json.dumps(view, sort_keys=True), seat))
        Spy.threads.append(threading.current_thread() is threading.main_thread())
        # the event loop runs while the AI thinks: it answers a call from this thread
        alive = asyncio.run_coroutine_threadsafe(asyncio.sleep(0, "alive"), Spy.loop)
        Spy.loop_answers.append(alive.result(timeout=5))
        return ai.make_player("random", 3).choose(view, seat)


@pytest.mark.parametrize("bad", [Broken, Nonsense])
def test_a_broken_ai_gives_the_default_answer_and_the_game_goes_on(tmp_path, monkeypatch,
                                                                   caplog, bad):
    monkeypatch.setitem(ai.LEVELS, "broken", bad)

    async def main():
        store, svc = await _service(tmp_path)
        await svc.lobby.new_lobby(1, 7, 11, "Ann", players=2, bots=1, bot_level="broken")
        await svc.lobby.start(7, 11)
        told: list = []
        await svc.ai.play_ai(7, _collect(told))
        assert told and all(o.text == "timeout" for o in told)  # the engine's default
        row, g = await svc.tables.current(7)
        assert g.waiting_for() and all(not S.ai_level(row, s) for s in g.waiting_for())
        await store.close()
    asyncio.run(main())
    assert "default answer instead" in caplog.text


def test_the_ai_sees_only_its_own_view_r3_and_thinks_off_the_event_loop(tmp_path,
                                                                      monkeypatch):
    """R3 hidden information: what the AI is given is exactly engine.view(state, seat); and
    it is computed in a worker thread, so the event loop keeps acknowledging everyone."""
    monkeypatch.setitem(ai.LEVELS, "spy", Spy)
    Spy.seen = []

    async def main():
        Spy.loop = asyncio.get_running_loop()
        store, svc = await _service(tmp_path)
        await svc.lobby.new_lobby(1, 7, 11, "Ann", players=2, bots=1, bot_level="spy")
        await svc.lobby.start(7, 11)
        _row, g = await svc.tables.current(7)
        expected = json.dumps(g.view(1), sort_keys=True)
        await svc.ai.play_ai(7, _collect([]))
        assert Spy.seen[0] == (expected, 1)
        assert Spy.threads == [False]  # not on the event loop's (main) thread
        assert Spy.loop_answers == ["alive"]
        await store.close()
    asyncio.run(main())


def test_two_triggers_at_once_answer_each_ai_decision_once(tmp_path):
    async def main():
        store, svc = await _service(tmp_path)
        await svc.lobby.new_lobby(1, 7, 11, "Ann", players=4, bots=3)
        await svc.lobby.start(7, 11)
        told: list = []
        counts = await asyncio.gather(*(svc.ai.play_ai(7, _collect(told)) for _ in range(3)))
        assert sum(counts) == len(told) == 3  # the three bots place (R7.1), once each
        row, g = await svc.tables.current(7)
        assert g.waiting_for() == [0]
        log_ = await store.log(row.id)
        assert sorted(s for s, _t in log_) == [1, 2, 3]
        await store.close()
    asyncio.run(main())


def test_zombie_mode_ai_takes_a_timed_out_seat_until_back(tmp_path):
    async def main():
        clock = Clock()
        store, svc = await _service(tmp_path, clock)
        await svc.lobby.new_lobby(1, 7, 11, "Ann", players=2, time_limit_s=3600)
        await svc.lobby.join(7, 22, "Bob")
        with pytest.raises(ServiceError, match="Only the host or a member"):
            await svc.ai.set_zombie(7, 22, "random", can_manage=False)
        await svc.ai.set_zombie(7, 22, "random", can_manage=True)  # a manager may
        await svc.lobby.start(7, 11)
        row, g = await svc.tables.current(7)
        await svc.play.act(7, 11, ai.make_player("random", 0).choose(g.view(0), 0))
        clock.now += 3601
        outcomes, _ = await svc.limits.tick()
        assert [o.notes for o in outcomes] == [["zombie"]] and outcomes[0].actor == 1
        row, g = await svc.tables.current(7)
        assert S.zombie_level(row, 1) == "random" and row.meta["timeouts"] == {"1": 1}
        assert S.seat_names(row) == ["Ann", "Bob 🤖"]
        assert S.seat_names(row, image=True) == ["Ann", "Bob (AI)"]
        # Bob's own answers are refused while the AI plays for him
        with pytest.raises(ServiceError) as e:
            await svc.play.act(7, 22, "done")
        assert e.value.code == "ai_seat" and "`/rr back`" in words(e.value, "en")
        # … and so are the buttons left on his earlier prompts, made for his seat
        with pytest.raises(ServiceError) as e:
            await svc.play.act(7, 22, "done", aim=Aim(row.id, 1))
        assert e.value.code == "ai_seat"
        told: list = []
        g = await _play_people(svc, 7, told, until=lambda g: g.state["round"] >= 2)
        assert any(o.actor == 1 for o in told)  # the AI answered Bob's decisions
        # the time-out that made the AI take over is counted once; the AI's are not
        row, g = await svc.tables.current(7)
        assert row.meta["timeouts"] == {"1": 1}
        with pytest.raises(ServiceError, match="already playing your own"):
            await svc.ai.reclaim(7, 11)
        row = await svc.ai.reclaim(7, 22)
        assert S.zombie_level(row, 1) is None and S.seat_names(row) == ["Ann", "Bob"]
        await svc.ai.play_ai(7, _collect(told := []))
        assert told == []  # nobody plays for Bob any more
        row, g = await svc.tables.current(7)
        if not g.over:
            assert 1 in g.waiting_for() or 0 in g.waiting_for()
        await store.close()
    asyncio.run(main())


def test_zombie_setting_is_kept_by_the_channels_next_lobby(tmp_path):
    async def main():
        store, svc = await _service(tmp_path)
        await svc.lobby.new_lobby(1, 7, 11, "Ann", players=2)
        await svc.ai.set_zombie(7, 11, "random", can_manage=False)  # the host may
        await svc.lobby.abandon(7, 11, False)
        row = await svc.lobby.new_lobby(1, 7, 22, "Bob", players=2)
        assert row.settings["zombie"] == "random"
        with pytest.raises(ServiceError, match="Unknown AI level"):
            await svc.ai.set_zombie(7, 22, "godlike", can_manage=False)
        await svc.ai.set_zombie(7, 22, None, can_manage=False)
        await svc.lobby.abandon(7, 22, False)
        row = await svc.lobby.new_lobby(1, 7, 22, "Bob", players=2)
        assert not row.settings.get("zombie")
        await store.close()
    asyncio.run(main())


def test_removal_vote_counts_people_not_ai_seats(tmp_path):
    """With two bots at the table, one other person's vote is a majority of the people."""
    async def main():
        clock = Clock()
        store, svc = await _service(tmp_path, clock)
        await svc.lobby.new_lobby(1, 7, 11, "Ann", players=4, bots=2, time_limit_s=3600)
        await svc.lobby.join(7, 22, "Bob")
        await svc.lobby.start(7, 11)
        for _ in range(40):
            await svc.ai.play_ai(7, _collect([]))
            row, g = await svc.tables.current(7)
            if row.meta.get("timeouts", {}).get("3", 0) >= 2:
                break
            waiting = [s for s in g.waiting_for() if not S.ai_level(row, s)]
            if 0 in waiting:
                await svc.play.act(7, 11, ai.make_player("random", 0).choose(g.view(0), 0))
            else:
                clock.now += 3601
                await svc.limits.tick()
        assert row.seats[3]["name"] == "Bob" and row.meta["timeouts"]["3"] >= 2
        out = await svc.play.remove_player(7, 11, 3)  # 1 vote of 1 person: removed (R9.3)
        assert out.game.state["players"][3]["eliminated"]
        await store.close()
    asyncio.run(main())


@pytest.mark.process
def test_ai_choices_in_worker_processes_and_a_dead_worker_is_replaced(tmp_path, caplog):
    """The bot computes AI choices in processes (no GIL shared with the event loop): the
    same answers as in threads; a worker that died gives the default answer once, and the
    next choice gets a fresh pool."""
    from concurrent.futures import Executor, Future
    from concurrent.futures.process import BrokenProcessPool

    class Dead(Executor):
        def submit(self, fn, /, *args, **kwargs):
            f: Future = Future()
            f.set_exception(BrokenProcessPool("worker died"))
            return f

    async def answers(pool) -> list[str]:
        store = await Store(str(tmp_path / f"{id(pool)}.db")).open()
        svc = GameService(store, seed_source=lambda: 5)
        svc.ai.pool = pool
        await svc.lobby.new_lobby(1, 7, 11, "Ann", players=3, bots=2)
        await svc.lobby.start(7, 11)
        told: list = []
        await svc.ai.play_ai(7, _collect(told))
        svc.ai.close()
        await store.close()
        return [o.text for o in told]

    threads = asyncio.run(answers(None))
    assert len(threads) == 2 and "timeout" not in threads
    assert asyncio.run(answers(A.process_pool)) == threads  # same seeds, same choices
    pools: list = []

    def dying() -> Executor:
        pools.append(Dead() if not pools else A.process_pool())
        return pools[-1]

    got = asyncio.run(answers(dying))
    assert got[0] == "timeout" and got[1] == threads[1] and len(pools) == 2
    assert "worker process died" in caplog.text


def test_japanese_lobby_names_its_bots_in_japanese(tmp_path):
    async def main():
        store, svc = await _service(tmp_path)
        row = await svc.lobby.new_lobby(1, 7, 11, "結衣", players=3, bots=2, lang="ja")
        assert [s["name"] for s in row.seats][1:] == ["ボット1（気まぐれ）", "ボット2（気まぐれ）"]
        row.meta["zombie"] = {"0": "random"}
        assert S.seat_names(row, image=True)[0] == "結衣（AI）"
        assert S.seat_names(row)[0] == "結衣 🤖"
        await store.close()
    asyncio.run(main())


def test_one_run_is_bounded_and_the_next_trigger_goes_on(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(A, "MAX_AI_ANSWERS", 2)

    async def main():
        store, svc = await _service(tmp_path)
        await svc.lobby.new_lobby(1, 7, 11, "Ann", players=4, bots=3)
        await svc.lobby.start(7, 11)
        assert await svc.ai.play_ai(7, _collect([])) == 2  # three bots are asked; two answer
        row, g = await svc.tables.current(7)
        assert sum(1 for s in g.waiting_for() if S.ai_level(row, s)) == 1
        assert await svc.ai.play_ai(7, _collect([])) == 1
        await store.close()
    asyncio.run(main())
    assert "2 AI answers in one run" in caplog.text


def test_a_crash_inside_back_never_hands_the_seat_straight_back_to_the_ai(db, monkeypatch):
    """Fault injection (a crash window): Bob's time runs out, an AI takes his seat (R15,
    zombie mode), and he types `/rr back` before the AI answered the question that ran out.
    The process dies between the two writes of `/rr back` (his seat given back, his expired
    deadline renewed). After the restart the first time-limit pass met his seat as a
    person's with a deadline already past: it handed it straight back to the AI and
    counted a second time-out. Either both writes are made or neither."""
    async def main():
        clock = Clock()
        store = await db.open()
        svc = GameService(store, clock=clock, seed_source=lambda: 5)
        await svc.lobby.new_lobby(1, 7, 11, "Ann", players=2, time_limit_s=3600)
        await svc.lobby.join(7, 22, "Bob")
        await svc.ai.set_zombie(7, 22, "random", can_manage=True)
        await svc.lobby.start(7, 11)
        row, g = await svc.tables.current(7)
        await svc.play.act(7, 11, ai.make_player("random", 0).choose(g.view(0), 0))
        clock.now += 3601
        outcomes, _ = await svc.limits.tick()
        assert [o.notes for o in outcomes] == [["zombie"]]

        real = store.repair_timers

        async def killed(*args, **kwargs):
            raise KeyboardInterrupt("the process is killed here")
        monkeypatch.setattr(store, "repair_timers", killed)
        try:
            await svc.ai.reclaim(7, 22)
        except KeyboardInterrupt:
            pass
        monkeypatch.setattr(store, "repair_timers", real)
        await store.close()

        store = await db.open()  # the restart
        svc = GameService(store, clock=clock, seed_source=lambda: 5)
        clock.now += 60
        await svc.limits.tick()
        row, g = await svc.tables.current(7)
        assert row.meta["timeouts"] == {"1": 1}, "a second time-out was counted"
        if S.zombie_level(row, 1) is None:  # both writes were made: his deadline is renewed
            deadline = {t["seat"]: t["deadline"] for t in await store.timers(row.id)}
            assert deadline[1] > clock.now + 0.9 * 3600
        else:  # neither: he asks again, and plays his seat with a whole time limit
            row = await svc.ai.reclaim(7, 22)
            assert S.zombie_level(row, 1) is None
        await store.close()
    asyncio.run(main())
