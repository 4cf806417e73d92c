"""The service layer: what players notice about hosting — no lost or doubled moves, time
limits, removals, undo — checked through a real SQLite file, a real PostgreSQL server (the
`db` fixture runs those tests on both) and a real console process."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine import board
from service import GameService, ServiceError
from service.meta import count_timeout
from store import Store

ROOT = Path(__file__).resolve().parent.parent


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


async def _two_player(db, clock: Clock | None = None, seed: int = 11):
    store = await db.open()
    svc = GameService(store, clock=clock or Clock(), seed_source=lambda: seed)
    await svc.lobby.new_lobby(1, 100, 11, "Ann", players=2, time_limit_s=3600)
    await svc.lobby.join(100, 22, "Bob")
    out = await svc.lobby.start(100, 11)
    return store, svc, out


def test_lobby_refusals_are_specific(db):
    async def main():
        store = await db.open()
        svc = GameService(store)
        with pytest.raises(ServiceError, match="1 to 4 players"):
            await svc.lobby.new_lobby(1, 5, 1, "A", players=5)
        with pytest.raises(ServiceError, match="solo"):
            await svc.lobby.new_lobby(1, 5, 1, "A", players=2, difficulty="hard")
        await svc.lobby.new_lobby(1, 5, 1, "A", players=2)
        with pytest.raises(ServiceError, match="already has a game"):
            await svc.lobby.new_lobby(1, 5, 2, "B", players=2)
        with pytest.raises(ServiceError, match="Only the host"):
            await svc.lobby.join(5, 2, "B") and await svc.lobby.start(5, 2)
        with pytest.raises(ServiceError, match="full"):
            await svc.lobby.join(5, 3, "C")
        await store.close()
    asyncio.run(main())


def test_two_answers_at_once_only_one_lands(db):
    """Two clicks on the same prompt: one applies, the other is refused as out of date,
    and the log holds the action once (R15: the log is the game)."""
    async def main():
        store, svc, out = await _two_player(db)
        g = out.game
        seat = g.waiting_for()[0]
        dec_id = g.decision(seat)["id"]
        action = str(g.legal_actions(seat)[0])
        user = out.row.seats[seat]["user"]
        results = await asyncio.gather(svc.play.act(100, user, action, dec_id),
                                       svc.play.act(100, user, action, dec_id),
                                       return_exceptions=True)
        ok = [r for r in results if not isinstance(r, Exception)]
        refused = [r for r in results if isinstance(r, ServiceError)]
        assert len(ok) == 1 and len(refused) == 1
        assert refused[0].code in ("stale", "not_your_decision")
        log = await store.log(out.row.id)
        assert sum(1 for s, t in log if s == seat and t == ok[0].text) == 1
        await store.close()
    asyncio.run(main())


def test_illegal_answer_changes_nothing_stored(db):
    async def main():
        store, svc, out = await _two_player(db)
        before = (await store.get(out.row.id)).state
        user = out.row.seats[0]["user"]
        for bad, code in (("place thief 6B", "illegal"), ("fly 2B", "syntax"),
                          ("place dragon 2B", "illegal")):
            with pytest.raises(ServiceError) as e:
                await svc.play.act(100, user, bad)
            assert e.value.code == code and e.value.message
        with pytest.raises(ServiceError) as e:
            await svc.play.act(100, 999, "place thief 2B")
        assert e.value.code == "not_player"
        assert (await store.get(out.row.id)).state == before
        await store.close()
    asyncio.run(main())


def _play_random(svc_out, rng: random.Random, steps: int):
    """Yield (user, action) choices from the legal actions of whoever is waiting."""
    g = svc_out.game
    for _ in range(steps):
        if g.over:
            return
        seat = rng.choice(g.waiting_for())
        yield svc_out.row.seats[seat]["user"], str(rng.choice(g.legal_actions(seat)))


def test_restart_resumes_and_replay_verifies(db):
    """Kill the service mid-game, open a new one on the same file: the game, its log and its
    timers are all there, and replaying the log gives the stored state (R15)."""
    async def main():
        store, svc, out = await _two_player(db)
        rng = random.Random(3)
        for _ in range(40):
            if out.game.over or out.game.state["round"] >= 2:  # mid-game: stop in round 2
                break
            seat = rng.choice(out.game.waiting_for())
            out = await svc.play.act(100, out.row.seats[seat]["user"],
                                     str(rng.choice(out.game.legal_actions(seat))))
        assert not out.game.over  # killed mid-game
        state = out.game.to_json()
        timers = await store.timers(out.row.id)
        await store.close()
        store2 = await db.open()
        svc2 = GameService(store2)
        row, g = await svc2.tables.current(100)
        assert g.to_json() == state
        assert await store2.timers(row.id) == timers
        assert sorted(t["seat"] for t in timers) == g.waiting_for()
        await store2.close()
    asyncio.run(main())


def test_time_limit_reminds_then_passes(db):
    """R15: a player who runs out of time gets the default answer; one reminder comes first."""
    async def main():
        clock = Clock()
        store, svc, out = await _two_player(db, clock)
        assert out.game.waiting_for() == [0, 1]  # initial placement, both at once
        await svc.play.act(100, 11, "place thief 2B")
        clock.now += 3600 * 0.8
        outcomes, reminders = await svc.limits.tick()
        assert outcomes == [] and [r.seat for r in reminders] == [1]
        outcomes, reminders = await svc.limits.tick()
        assert reminders == []  # one reminder only
        clock.now += 3600 * 0.3
        outcomes, _ = await svc.limits.tick()
        assert len(outcomes) == 1
        g = outcomes[0].game
        bob = g.state["players"][1]
        # placement is mandatory: the default answer places the first hand card on 2B
        assert any(p and p.get("owner") == 1 for p in bob["board"])
        assert outcomes[0].row.meta["timeouts"] == {"1": 1}
        await store.close()
    asyncio.run(main())


def test_absent_player_can_be_removed_after_repeated_timeouts(db):
    async def main():
        clock = Clock()
        store, svc, out = await _two_player(db, clock)
        with pytest.raises(ServiceError, match="after 2 timeouts"):
            await svc.play.remove_player(100, 11, 1)
        for _ in range(30):
            row, g = await svc.tables.current(100)
            if row.meta.get("timeouts", {}).get("1", 0) >= 2:
                break
            if 0 in g.waiting_for():
                await svc.play.act(100, 11, str(g.trivial_action(0) or g.legal_actions(0)[0]))
            clock.now += 7200
            await svc.limits.tick()
        out = await svc.play.remove_player(100, 11, 1)
        assert out.game.over and out.game.state["result"]["winners"] == [0]
        await store.close()
    asyncio.run(main())


def test_a_vote_counts_only_while_its_voter_still_votes(db):
    """The group audit: a vote to remove stayed counted after its voter was removed, while
    the majority needed was taken over the players left — so one live vote could remove a
    player. Cat votes against Dan, Cat is removed, then Ann's vote alone is not enough."""
    async def main():
        store = await db.open()
        svc = GameService(store, clock=Clock(), seed_source=lambda: 11)
        await svc.lobby.new_lobby(1, 101, 11, "Ann", players=4, time_limit_s=3600)
        for user, name in ((12, "Bob"), (13, "Cat"), (14, "Dan")):
            await svc.lobby.join(101, user, name)
        out = await svc.lobby.start(101, 11)
        for seat in (2, 3):  # Cat and Dan ran out of time twice
            for _ in range(2):
                await store.update_meta(out.row.id, count_timeout(seat))
        with pytest.raises(ServiceError, match="1/2"):
            await svc.play.remove_player(101, 13, 3)  # Cat votes against Dan
        with pytest.raises(ServiceError, match="1/2"):
            await svc.play.remove_player(101, 11, 2)
        await svc.play.remove_player(101, 12, 2)  # Ann and Bob remove Cat
        _, g = await svc.tables.current(101)
        assert g.player(2)["eliminated"] and not g.player(3)["eliminated"]
        with pytest.raises(ServiceError, match="1/2"):  # Cat's vote no longer counts
            await svc.play.remove_player(101, 11, 3)
        _, g = await svc.tables.current(101)
        assert not g.player(3)["eliminated"]
        await svc.play.remove_player(101, 12, 3)  # with Bob's, the two left agree
        _, g = await svc.tables.current(101)
        assert g.player(3)["eliminated"]
        await store.close()
    asyncio.run(main())


def test_undo_takes_back_a_quiet_action_only(db):
    """Undo (BGA's rule): a move that revealed nothing, while its decision is still open, is
    taken back exactly; a roll cannot be."""
    async def main():
        store, svc, out = await _two_player(db)
        with pytest.raises(ServiceError, match="Nothing to undo"):
            await svc.play.undo(100, 11)
        rng = random.Random(5)
        for _ in range(2000):
            g = out.game
            assert not g.over
            moves = [(s, a) for s in g.waiting_for() for a in g.legal_actions(s)
                     if a.verb == "act" and a.skill is None and g.decision(s)["left"] == 2]
            if moves:
                seat, move = moves[0]
                user = out.row.seats[seat]["user"]
                before = out.game.to_json()
                out = await svc.play.act(100, user, str(move))
                if out.game.can_undo(seat):  # the decision stayed open: undo is offered
                    break
                continue
            seat = rng.choice(g.waiting_for())
            acts = [a for a in g.legal_actions(seat) if a.verb != "levelup"]
            out = await svc.play.act(100, out.row.seats[seat]["user"], str(rng.choice(acts)))
        assert out.game.can_undo(seat)
        out = await svc.play.undo(100, user)
        assert out.game.to_json() == before
        row = await store.get(out.row.id)
        assert row.state == before and json.loads(before)["log"] == await store.log(row.id)
        await store.close()
    asyncio.run(main())


def test_a_placement_can_be_changed_while_the_other_player_still_places(db):
    """R4.4, undo: both players place at once; Ann's placement, given while Bob still
    chooses, is taken back and stored so (Bob's question untouched), and once Bob has placed
    too the round has begun and it stays."""
    async def main():
        store, svc, out = await _two_player(db)
        start = out.game.to_json()
        bob_asked = out.game.decision(1)
        out = await svc.play.act(100, 11, "place thief 2B")
        assert out.game.decision(0) is None and out.game.waiting_for() == [1]
        out = await svc.play.undo(100, 11)
        assert out.game.to_json() == start
        row = await store.get(out.row.id)
        assert row.state == start and await store.log(row.id) == []
        assert out.game.decision(1) == bob_asked  # Bob's button still answers
        await svc.play.act(100, 11, "place sorcerer 2C")
        out = await svc.play.act(100, 22, "place thief 2B")
        assert out.game.round == 1
        with pytest.raises(ServiceError, match="Nothing to undo"):
            await svc.play.undo(100, 11)
        assert out.game.player(0)["board"][board.square("2C")]["card"] == "sorcerer_star"
        await store.close()
    asyncio.run(main())


def _console_script(seed: int, names: list[str], limit: int = 3000) -> list[str]:
    """Play a game in-process with the same seed and return the lines that replay it."""
    async def main():
        store = await Store(":memory:").open()
        svc = GameService(store, seed_source=lambda: seed)
        await svc.lobby.new_lobby(None, 1, 1, names[0], players=len(names))
        for k, n in enumerate(names[1:], start=2):
            await svc.lobby.join(1, k, n)
        out = await svc.lobby.start(1, 1)
        rng = random.Random(seed)
        lines = []
        for _ in range(limit):
            if out.game.over:
                break
            seat = rng.choice(out.game.waiting_for())
            action = str(rng.choice(out.game.legal_actions(seat)))
            lines.append(f"{names[seat]}: {action}")
            out = await svc.play.act(1, seat + 1, action)
        await store.close()
        return lines, out.game.over
    lines, over = asyncio.run(main())
    assert over
    return lines


@pytest.mark.process
def test_console_process_plays_a_game_to_the_end(tmp_path):
    """The offline console mode: a real `bot.py --console` process over stdin, to the end."""
    names = ["Ann", "Bob"]
    lines = _console_script(21, names)
    script = "\n".join(["status", "Ann: fly away", *lines, "quit"]) + "\n"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bot.py"), "--console", "--names", *names, "--seed", "21",
         "--db", str(tmp_path / "c.db"), "--out", str(tmp_path / "out")],
        input=script, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "Unknown action 'fly'" in proc.stdout
    assert "Game over" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_stored_log_replays_to_stored_state(db):
    async def main():
        store, svc, out = await _two_player(db)
        row = await store.get(out.row.id)
        from engine import Game
        g = Game.replay(row.setup, await store.log(row.id))
        assert g.to_json() == row.state
        assert json.loads(row.state)["log"] == await store.log(row.id)
        await store.close()
    asyncio.run(main())


def test_a_move_from_another_process_between_two_reads_does_not_refuse_an_answer(db):
    """R4.4, sharded processes: Bob's placement lands from another process after this one
    read the game's row and before it read its log. The load sees a log one move ahead of
    the row, reads the row again and replays both; Ann's placement, given at the same
    moment, then lands on that newer row — before, the answer was checked against the row
    first read and refused as "out of date" although nobody had answered Ann's question."""
    async def main():
        store, other_svc, out = await _two_player(db)
        here = await db.open()
        svc = GameService(here, clock=Clock())  # this process: nothing cached yet
        real_log_check = here.log_check
        moved: list[bool] = []

        async def log_check(game_id: int):  # the other process's move, between the reads
            if not moved:
                moved.append(True)
                await other_svc.play.act(100, 22, "place thief 2B")
            return await real_log_check(game_id)

        here.log_check = log_check  # type: ignore[method-assign]
        done = await svc.play.act(100, 11, "place sorcerer 2C")
        assert moved and done.game.round == 1  # both placed: the round has begun
        assert [t for _, t in await store.log(out.row.id)] == [
            "place thief_star 2B", "place sorcerer_star 2C"]
        await here.close()
        await store.close()
    asyncio.run(main())


def test_a_lobby_opened_with_ai_players_is_written_whole(db):
    """The fault-injection audit: `/rr new … bots=2` wrote the lobby, then its AI seats in
    a second write; a crash between left the channel a lobby without them, which the host's
    second try was refused over ("this channel already has a game"). One write now: the
    lobby is there with its AI players, or not at all."""
    async def scenario():
        store = await db.open()
        try:
            svc = GameService(store, clock=Clock(), seed_source=lambda: 5)

            async def crash(*_: object) -> None:
                raise RuntimeError("the process died here")
            store.update_lobby = crash
            try:
                await svc.lobby.new_lobby(1, 100, 11, "Ann", players=3, bots=2)
            except RuntimeError:
                pass
            row = await store.open_game(100)
            assert row is None or [s.get("ai") for s in row.seats] == [None, "random",
                                                                        "random"]
            assert row is not None and row.seats[0] == {"user": 11, "name": "Ann"}
        finally:
            await store.close()
    asyncio.run(scenario())


def test_a_crash_as_a_vote_completes_a_removal_leaves_no_majority_unacted(db, monkeypatch):
    """The fault-injection audit (a crash window): Bob's vote completes the majority to
    remove Cat, and the process dies between storing his vote and committing her removal.
    After the restart the stored votes made the majority while Cat still played — a
    removal decided and never carried out, and Bob told nothing. The completing vote and
    the removal are one transaction: after the crash neither is stored, and Bob's vote
    again removes her at once."""
    async def main():
        store = await db.open()
        svc = GameService(store, clock=Clock(), seed_source=lambda: 11)
        await svc.lobby.new_lobby(1, 101, 11, "Ann", players=3, time_limit_s=3600)
        for user, name in ((12, "Bob"), (13, "Cat")):
            await svc.lobby.join(101, user, name)
        out = await svc.lobby.start(101, 11)
        for _ in range(2):  # Cat ran out of time twice
            await store.update_meta(out.row.id, count_timeout(2))
        with pytest.raises(ServiceError, match="1/2"):
            await svc.play.remove_player(101, 11, 2)

        async def killed(*args, **kwargs):
            raise KeyboardInterrupt("the process is killed here")
        monkeypatch.setattr(store, "commit_actions", killed)
        with pytest.raises(KeyboardInterrupt):
            await svc.play.remove_player(101, 12, 2)
        monkeypatch.undo()
        await store.close()

        store = await db.open()  # the restart
        svc = GameService(store, clock=Clock(), seed_source=lambda: 11)
        row, g = await svc.tables.current(101)
        votes = row.meta.get("kick", {}).get("2", [])
        assert g.player(2)["eliminated"] or len(votes) < 2, \
            f"votes {votes} make the majority and Cat still plays"
        await svc.play.remove_player(101, 12, 2)
        _, g = await svc.tables.current(101)
        assert g.player(2)["eliminated"]
        await store.close()
    asyncio.run(main())
