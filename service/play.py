"""Play: a player's answer applied, committed and reported (R15: the log is the game).

The one path of every move — a person's (`act`), the default answer at a time-out
(service/limits.py), an AI's (service/ai_seats.py), a removal (`remove_player`) — is
`commit`: the engine judges the answer, the trivial follow-ups are resolved, and the log
entries, state, timers, outbox notice and interaction key are one store job, version-checked
(an action is committed before anyone is told). A refusal changes nothing, in memory or in
the database.
"""

from __future__ import annotations

import json
import marshal
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine import ActionError, Game, NotationError, StaleDecision, parse
from engine.messages import Items
from store import (
    AlreadyApplied,
    GameRow,
    GameStatus,
    MetaChange,
    StoreBusy,
    StoreUncertain,
    VersionConflict,
)

from .errors import ServiceError
from .meta import (
    all_of,
    came_back,
    count_timeout,
    timeouts,
    vote_to_remove,
    votes_to_remove,
)
from .notation import words_typed
from .outcomes import (
    Abandoned,
    Outcome,
    Stage,
    Told,
    auto_answers,
    deadlines_of,
    duplicate,
    stage_hook,
)
from .seats import current_name, people_in, rename
from .tables import GameOver, Quarantined, Tables, stale_other, store_refusal

KICK_AFTER_TIMEOUTS = 2
# what the engine applies whatever the seat is asked (a standing order, leaving the game):
# never an answer to a question, so never one a time-out could have closed
STANDING = frozenset({"autosave", "rolls", "resign"})
# how far apart the process's and Discord's clocks may be and still be compared for the
# "typed before the time-out" rule (`Play._late`): an answer is acknowledged within Discord's
# 3 s and applied after at most a game's time-limit job (cogs/bot.py, 30 s) holds its channel
CLOCKS_AGREE_S = 60.0


@dataclass(frozen=True, slots=True)
class Aim:
    """What a button was made for: one seat of one game (its custom id says which). Only
    that seat's player may press it, and only while that game runs."""

    game: int
    seat: int


def _refused(e: ActionError, row: GameRow, g: Game, seat: int, user_id: int | None,
             decision_id: int | None) -> ServiceError:
    """The engine's refusal of an answer, for the service. A person's answer to a question
    no longer asked (an old decision id, or none asked of the seat now) whose seat's last
    answer was its time-out was closed by that time-out, landed first: saying only that
    the game moved on read as if someone had answered for them (the timers audit)."""
    old = isinstance(e, StaleDecision) or (decision_id is not None
                                           and e.code == "not_your_decision")
    if old and user_id is not None and \
            next((text for s, text in reversed(g.log) if s == seat), None) == "timeout":
        return ServiceError.of("svc.stale_timeout", code="stale")
    if isinstance(e, StaleDecision):
        return ServiceError.of("svc.stale", code="stale")
    params = e.params
    if e.code == "not_your_decision" and (waiting := g.waiting_for()):
        # the engine names who is asked by the names the game was dealt with; a player who
        # has been renamed since is named as every post names them (`current_name`)
        params = {**params, "names": Items(tuple(current_name(row, s) for s in waiting))}
    return ServiceError(e.message, code=e.code, key=e.key, params=params)


def _wrong_game() -> ServiceError:
    return ServiceError.of("svc.wrong_game", code="wrong_game")


class Play:
    """Answers of the seated players: `act`, `undo`, `remove_player`; and `commit`, the
    path every other room's answer takes too."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables

    async def act(self, channel_id: int, user_id: int, text: str,
                  decision_id: int | None = None, key: str | None = None,
                  aim: Aim | None = None, *, end_if_only_ai: bool = False,
                  typed_at: float | None = None, name: str | None = None) -> Outcome:
        """Apply one answer of a player; commit; resolve trivial follow-ups; report.

        `key` names the interaction that asked (`i:<id>`): it is stored with the move, so a
        second delivery of it applies nothing and gets the first one's answer. `aim`: the
        answer comes from a button made for that seat of that game. The notation's words
        may be typed in any language the bot speaks (service/notation.py). `typed_at`: when
        the player gave the answer (the interaction's creation), for an answer that names no
        question (`_late`). `name`: the player's display name as the interface sees it now
        (Discord sends it with every interaction): a new one is kept with the move, so the
        move's post and every later one name them as they go by now (`seats.rename`)."""
        text = words_typed(text)
        async with self.tables.lock(channel_id):
            if aim is None:
                row, g = await self.tables.current(channel_id)
                seat = self.tables.seat(row, user_id)
            else:
                row, g, seat = await self._aimed(channel_id, user_id, aim)
            if decision_id is None and typed_at is not None and \
                    await self._late(row, g, seat, text, typed_at):
                if (again := await self._again(key, row, g, seat)) is not None:
                    return again
                raise ServiceError.of("svc.stale_timeout", code="stale")
            back = came_back(seat) if timeouts(row.meta, seat) or \
                votes_to_remove(row.meta, seat) else None
            meta = all_of(back, rename(row, seat, name) if name is not None else None)
            return await self.commit(row, g, seat, user_id, text, decision_id, meta, key=key,
                                     end_if_only_ai=end_if_only_ai)

    async def _aimed(self, channel_id: int, user_id: int, aim: Aim) -> tuple[GameRow, Game, int]:
        """The game a button answers, read once with the answer (issue 22: a click used to
        read the game a second time just to check its target): refused for anyone but the
        seat's player and for a button of another game; a button of the game that has just
        ended is told how it ended (`GameOver`); then the seat as `Tables.seat` refuses it
        (not a player, or an AI plays it)."""
        try:
            row, g = await self.tables.current(channel_id)
        except GameOver as e:
            if e.row.id != aim.game:
                raise _wrong_game() from e
            raise
        except Quarantined:  # says what happened to the game and what can be done
            raise
        except ServiceError as e:  # no game here now
            raise _wrong_game() from e
        if row.id != aim.game or not 0 <= aim.seat < len(row.seats):
            raise _wrong_game()
        mine = row.seat_of(user_id)
        if mine is not None and mine != aim.seat:
            raise ServiceError.of("svc.not_yours", code="not_yours",
                                  name=current_name(row, aim.seat))
        return row, g, self.tables.seat(row, user_id)

    async def _late(self, row: GameRow, g: Game, seat: int, text: str, typed_at: float) -> bool:
        """A typed answer names no question (a button names its decision): one typed before
        the seat's time-out was applied answered the question that time-out closed, and
        would otherwise land on the next one, which the player had not seen yet (the timers
        audit). Only an answer to a question, of a seat that has timed out in this game,
        costs the one read of when."""
        if g.decision(seat) is None or not any(s == seat and t == "timeout" for s, t in g.log):
            return False
        try:
            if parse(text).verb in STANDING:
                return False
        except NotationError:
            return False  # the engine refuses it, with its own words
        at = await self.tables.store.timed_out_at(row.id, seat)
        # `at` is on this process's wall clock (the store's `time.time()`), `typed_at` on
        # Discord's. An answer being applied was typed moments ago and the time-out was
        # recorded before this read: when the clocks say otherwise they disagree (a clock
        # stepped back since the time-out, or running ahead of Discord's), and comparing
        # them refused every command typed for as long as the error, so they are not
        # compared. Within CLOCKS_AGREE_S a clock ahead refuses an answer typed that much
        # after the time-out, the safe side: retyped, never applied to an unseen question.
        now = time.time()
        return (at is not None and typed_at < at <= now + CLOCKS_AGREE_S
                and typed_at >= now - CLOCKS_AGREE_S)

    async def _again(self, key: str | None, row: GameRow, g: Game, seat: int) -> Outcome | None:
        """A redelivered interaction: the answer it got the first time, nothing applied
        (one read, only on a refusal's path)."""
        if key is None:
            return None
        done = await self.tables.store.applied(key)
        if done is None or done.game_id != row.id:
            return None
        return duplicate(row, g, seat, done, await self.tables.deadlines(row))

    async def commit(self, row: GameRow, g: Game, seat: int, user_id: int | None, text: str,
                     decision_id: int | None, meta: MetaChange | None = None, *,
                     key: str | None = None, notes: list[str] | None = None,
                     end_if_only_ai: bool = False) -> Outcome:
        """`seat` answers `text` in the loaded game `g` (the caller holds the channel's lock):
        judged, committed with its follow-ups and `meta` change, reported. `user_id` None:
        nobody typed it (a default or an AI's answer). A move (any: a person's, an AI's, a
        time-out's, a removal) that leaves only AI-played seats where a person was still in
        the game abandons it in the same transaction, with its announcement
        (`Outcome.abandoned`, `status_after`), rather than the AIs playing the rest out in
        the channel all at once. `end_if_only_ai` (a resign): told as abandoned by the seat
        that resigned."""
        tables = self.tables
        people_before = people_in(row, g)
        waiting_before = {s: g.decision_id(s) for s in g.waiting_for()}
        log_start = len(g.log)
        # the state as it was, to put back if the commit fails; marshal copies the plain
        # values of a state ~9× faster than JSON (bench/bot.py: two JSON texts per move were
        # ~5 % of the event loop; the stored one is the only one needed)
        backup = marshal.dumps(dict(g.state))
        stages: list[Stage] = []
        try:
            ev: list[Told] = list(g.apply(seat, text, decision_id,
                                          on_resolved=stage_hook(g, stages, 0)))
        except ActionError as e:
            if (again := await self._again(key, row, g, seat)) is not None:
                return again
            raise _refused(e, row, g, seat, user_id, decision_id) from e
        canonical = g.log[log_start][1]
        auto_answers(g, ev, stages)
        entries = [(s, user_id if k == 0 else None, t)
                   for k, (s, t) in enumerate(g.log[log_start:])]
        prompts = [s for s in g.waiting_for()
                   if waiting_before.get(s) != g.decision_id(s)]
        notes = list(notes or [])
        notice = {"kind": "move", "from": log_start, "to": len(g.log), "actor": seat,
                  "prompts": prompts, "notes": notes} if tables.notify else None
        # a channel game's rule (`notify`: the bot's hosting); the console shows the AIs'
        # moves as lines of its own, and plays such a game to its end
        status, ended = status_after(row, g, seat, end_if_only_ai,
                                     people_before if tables.notify else ())
        try:
            done = await tables.store.commit_actions(
                row.id, row.version, entries, g.to_json(), status,
                tables.timers(row, g), meta, key=key, notice=notice,
                ended=ended if tables.notify else None)
        except BaseException as e:
            # Nothing was stored: forget the in-memory change so the next load is the truth.
            tables.forget(row.id)
            g.state = marshal.loads(backup)
            return await self._not_stored(e, key, row, g, seat)
        new = done.row
        closed = None
        if new.status == "abandoned":  # nothing more is played in it
            tables.forget(new.id)
            body = ended or {}
            closed = Abandoned(new, str(body.get("by", "")), done.ended, why=body.get("why"))
        else:
            tables.remember(new, g, done.timers)
        finished = [e["what"] for e in ev if e["type"] == "resolved"]
        return Outcome(new, g, ev, seat, canonical, prompts=prompts, finished=finished,
                       notes=notes, stages=stages, deadlines=deadlines_of(done.timers),
                       notice=done.notice, abandoned=closed)

    async def _not_stored(self, e: BaseException, key: str | None, row: GameRow, g: Game,
                          seat: int) -> Outcome:
        """A commit the store did not take (`g` already put back): the same interaction's
        answer where it was applied before (here or by another process), a refusal in words
        for a store that refused, else the error itself."""
        if isinstance(e, VersionConflict):
            # another process got there first — maybe with this very interaction
            if (again := await self._again(key, row, g, seat)) is not None:
                return again
            raise stale_other() from e
        if isinstance(e, AlreadyApplied):
            return duplicate(row, g, seat, e, await self.tables.deadlines(row))
        if (refusal := store_refusal(e)) is not None:
            raise refusal from e
        raise e

    async def timeout(self, row: GameRow, g: Game, seat: int) -> Outcome:
        """R15: the default answer for a seat past its deadline (the time-out counts)."""
        return await self.commit(row, g, seat, None, "timeout", None, count_timeout(seat),
                                 notes=["timeout"])

    async def resign(self, channel_id: int, user_id: int,
                     key: str | None = None) -> Outcome:
        """The player leaves the game begun (eliminated as in R9.3, the engine's `resign`).
        When only AI-played seats are left in it, the game ends there, abandoned, rather
        than being played out by the AIs in the channel all at once (the verification
        audit: some seventy posts in half a second); told from the outbox like any abandon.
        The resign and the abandon are one transaction: a crash between the two (or a
        redelivered resign) left the game active for the AIs to play out. The abandon, if
        any, is `Outcome.abandoned`."""
        return await self.act(channel_id, user_id, "resign", key=key, end_if_only_ai=True)

    async def undo(self, channel_id: int, user_id: int, key: str | None = None) -> Outcome:
        tables = self.tables
        async with tables.lock(channel_id):
            row, g = await tables.current(channel_id)
            seat = tables.seat(row, user_id)
            try:
                g2 = Game(json.loads(g.to_json()), g.cards)
                g2.undo(seat)
            except ActionError as e:
                if (again := await self._again(key, row, g, seat)) is not None:
                    return again
                raise ServiceError(e.message, code=e.code, key=e.key, params=e.params) from e
            notice = {"kind": "undo", "actor": seat, "to": len(g2.log),
                      "prompts": [seat]} if tables.notify else None
            try:
                done = await tables.store.rewrite_log(row.id, row.version, g2.log,
                                                      g2.to_json(), tables.timers(row, g2),
                                                      key=key, notice=notice)
            except VersionConflict as e:
                tables.forget(row.id)
                raise stale_other() from e
            except AlreadyApplied as e:
                return duplicate(row, g, seat, e, await tables.deadlines(row))
            except (StoreBusy, StoreUncertain) as e:
                tables.forget(row.id)
                raise store_refusal(e) from e  # type: ignore[misc]
            row = done.row
            tables.remember(row, g2, done.timers)
            return Outcome(row, g2, [{"type": "undo", "player": seat}], seat, "undo",
                           prompts=[seat], deadlines=deadlines_of(done.timers),
                           notice=done.notice)

    async def remove_player(self, channel_id: int, user_id: int, target_seat: int, *,
                            gone: bool = False, can_manage: bool = False) -> Outcome:
        """Seated players vote to remove one who timed out repeatedly; a majority of the
        others removes them (they resign: eliminated, R9.3). `gone`: the interface knows the
        player is no longer there to play (left the server, kicked, banned): the vote is
        open at once, not after `KICK_AFTER_TIMEOUTS` time limits of waiting for nobody.
        `can_manage`: the caller may manage the channel (a moderator, seated or not): they
        remove at once, under the same conditions, with no vote — they may end the whole
        game anyway (`Lobby.abandon`), and a seat left by someone gone was their one
        remedy short of that (the community audit)."""
        tables = self.tables
        async with tables.lock(channel_id):
            row, g = await tables.current(channel_id)
            voter = row.seat_of(user_id) if can_manage else tables.seat(row, user_id)
            if not 0 <= target_seat < len(row.seats) or target_seat == voter:
                raise ServiceError.of("svc.kick_other")
            if g.player(target_seat)["eliminated"]:
                raise ServiceError.of("svc.kick_out")
            k = timeouts(row.meta, target_seat)
            if k < KICK_AFTER_TIMEOUTS and not gone:
                raise ServiceError.of("svc.kick_early", n=KICK_AFTER_TIMEOUTS,
                                      name=current_name(row, target_seat), k=k)
            if can_manage:
                return await self.commit(row, g, target_seat, None, "resign", None)
            assert voter is not None  # (tables.seat refused anyone else)
            # the electorate: the other seats still in play that their person plays (AIs
            # do not vote); a vote counts while its voter is one of them (a voter since
            # eliminated, or whose seat an AI now plays, no longer decides)
            others = [s for s in people_in(row, g) if s != target_seat]
            need = len(set(others)) // 2 + 1
            vote = vote_to_remove(target_seat, voter)
            cast = {*votes_to_remove(row.meta, target_seat), voter} & set(others)
            if len(cast) >= need:  # this vote completes the majority: the vote and the
                # removal are one transaction (the fault-injection audit: a crash between
                # them left a majority stored and the player still in the game)
                return await self.commit(row, g, target_seat, None, "resign", None, vote)
            # Added to the votes as stored, so a vote another process recorded meanwhile
            # counts too; a vote is kept even if the removal it completes loses a race.
            try:
                row.meta = await tables.store.update_meta(row.id, vote)
            except StoreBusy as e:
                raise store_refusal(e) from e  # type: ignore[misc]
            votes = [v for v in votes_to_remove(row.meta, target_seat) if v in others]
            if len(votes) < need:
                raise ServiceError.of("svc.vote", code="vote", votes=len(votes), need=need)
            return await self.commit(row, g, target_seat, None, "resign", None)


def status_after(row: GameRow, g: Game, seat: int, end_if_only_ai: bool,
                 people_before: Sequence[int] = ()) -> tuple[GameStatus, dict[str, Any] | None]:
    """The status a move leaves its game in, and the abandon's announcement when it is
    abandoned there: a move that turns "a person is still in the game" (`people_before`:
    the seats a person played still in it before the move) into "only AI-played seats
    left" ends it, unless the engine ended it (the verification audit: the last person's
    castle fell to an Invasion, or a vote removed them, and the AIs played the rest out in
    the channel, dozens of posts in a second).
    Told as no person left to play ("why": "no_person", "by" the last person out); a
    resign (`end_if_only_ai`) as abandoned by the seat that resigned, as before."""
    if g.over:
        return "over", None
    if not ((people_before or end_if_only_ai) and not people_in(row, g)):
        return "active", None
    if end_if_only_ai:
        return "abandoned", {"kind": "abandoned", "by": str(current_name(row, seat))}
    last = seat if seat in people_before else people_before[-1]
    return "abandoned", {"kind": "abandoned", "by": str(current_name(row, last)),
                         "why": "no_person"}
