"""Rebuilding an announcement from the outbox: what must still be told about a game.

A notice (an `outbox` row, written in the same transaction as the move it describes) holds
no text and no image: only its kind, the range of the action log it covers and the seats it
asks. The announcement is rebuilt from the stored setup + log — the game is replayed to the
start of the range, then the range is applied again, which reproduces the very events, the
per-phase views and the questions of the original move (the engine is deterministic, R15).
So a process killed between a commit and its announcement loses nothing: the next one tells
it at startup.

Bodies:
  {"kind": "move",  "from": i, "to": j, "actor": seat, "prompts": [...], "notes": [...]}
  {"kind": "start", "to": j, "prompts": [...]}
  {"kind": "undo",  "to": j, "actor": seat, "prompts": [seat]}
  {"kind": "remind", "seat": s, "decision": opened, "deadline": t}
  {"kind": "abandoned", "by": name}   (written with the status it tells of; "why":
      "no_person" when a move left only AI-played seats, "by" the last person out)
  {"kind": "zombie", "seat": s}       (an AI took the seat: written with the hand-over)
  {"kind": "set_aside"}, {"kind": "resumed"}   (written with the quarantine, or its end)
"""

from __future__ import annotations

from typing import Any

from engine import Event, Game
from store import GameRow, Notice
from store.rows import is_whole

from .outcomes import (
    Abandoned,
    Outcome,
    Reminder,
    SetAside,
    Stage,
    Told,
    deadlines_of,
    stage_hook,
)
from .seats import zombie_level
from .tables import Tables

# Each kind's fields that must be whole numbers (or lists of them, "prompts"); `from` ≤ `to`.
FIELDS: dict[str, tuple[str, ...]] = {"move": ("from", "to"), "start": ("to",),
                                      "undo": ("to", "actor"),
                                      "remind": ("seat", "decision"), "abandoned": (),
                                      "zombie": ("seat",), "set_aside": (), "resumed": ()}


class ForeignNotice(Exception):
    """A notice of a kind this release does not know — written by a newer one (a rolling
    upgrade) or by hand: never told as something else, left for a process that knows it."""


class UnreadableNotice(Exception):
    """A notice of a known kind whose fields no release could tell (a hand edit): it is set
    aside for the operator, not retried."""


def check(body: dict[str, Any]) -> None:
    """ForeignNotice or UnreadableNotice when `body` is not a notice this release can tell.

    Why before anything is rebuilt: a body missing its range used to fail deep in a replay,
    with a traceback on every retry for hours; one of an unknown kind was told as a move."""
    kind = body.get("kind")
    if kind not in FIELDS:
        raise ForeignNotice(f"a notice of kind {str(kind)[:40]!r}")
    bad = [f for f in FIELDS[kind] if not _whole(body.get(f))]
    prompts = body.get("prompts", [])
    if not isinstance(prompts, list) or not all(_whole(x) for x in prompts):
        bad.append("prompts")
    if kind == "remind" and not isinstance(body.get("deadline"), int | float):
        bad.append("deadline")
    if kind == "abandoned" and not isinstance(body.get("by"), str):
        bad.append("by")
    if not bad and kind == "move" and body["from"] > body["to"]:
        bad.append("from > to")
    if bad:
        raise UnreadableNotice(f"a {kind} notice without a usable {', '.join(bad)}")


def _whole(x: Any) -> bool:
    return is_whole(x) and x >= 0


async def rebuild(tables: Tables, notice: Notice
                  ) -> Outcome | Reminder | Abandoned | SetAside | None:
    """The Outcome (or Reminder, Abandoned, SetAside) a notice stands for, as of its move;
    None when there is nothing left to tell (the game is gone, or the move was undone
    since). ForeignNotice or UnreadableNotice (`check`) for a body this release cannot tell."""
    check(notice.body)
    row = await tables.store.get(notice.game_id)
    if notice.body["kind"] in ("abandoned", "set_aside", "resumed"):
        return await _hosting(tables, row, notice)
    if row is None or row.setup is None or row.status not in ("active", "over"):
        return None
    now = await tables.load(row)  # the game as it stands: who is still being asked
    if notice.body["kind"] in ("zombie", "remind"):
        return _still_due(row, now, notice, tables.clock())
    return await _move(tables, row, now, notice)


async def _hosting(tables: Tables, row: GameRow | None,
                   notice: Notice) -> Abandoned | SetAside | None:
    """A notice about the game's hosting, not a move: told whatever became of the game
    since (the row may be the damaged part)."""
    if row is None:
        return None
    if notice.body["kind"] == "abandoned":
        why = notice.body.get("why")
        return Abandoned(row, notice.body["by"], notice.id,
                         why=why if isinstance(why, str) else None)
    reason = await tables.held(row)
    if (notice.body["kind"] == "set_aside") != (reason is not None):
        return None  # set aside and lifted since (or the other way): the next one tells
    return SetAside(row, reason, notice.id)


def _still_due(row: GameRow, now: Game, notice: Notice,
               clock: float) -> Outcome | Reminder | None:
    """A reminder, or an AI's taking of a seat, while it still holds: a reminder only
    before its deadline. One left in the outbox past it (Discord down, then the bot down
    over the deadline: the restart tells the outbox before the first time-limit pass) was
    posted as '⏰ … time runs out 2 hours ago' just ahead of the time-out (the timers audit)."""
    body, seat = notice.body, notice.body["seat"]
    if body["kind"] == "zombie":
        if seat >= len(row.seats) or not zombie_level(row, seat):
            return None  # the person came back (/rr back) before it was told
        return Outcome(row, now, [], seat, "zombie", notes=["zombie"], notice=notice.id)
    dec = now.decision(seat)
    if dec is None or dec["opened"] != body["decision"]:
        return None  # answered since: no reminder needed
    if body["deadline"] <= clock:
        return None  # too late to remind: the time-out tells what happened
    return Reminder(row, seat, body["deadline"], notice.id)


async def _move(tables: Tables, row: GameRow, now: Game, notice: Notice) -> Outcome | None:
    """A move (or the start, or an undo) told again from the stored log."""
    assert row.setup is not None  # (rebuild checked)
    body = notice.body
    log = await tables.store.log(row.id)
    end = int(body["to"])
    if end > len(log):
        return None
    g, ev, stages, first = _replayed(row.setup, log, body)
    # Questions answered since are not asked again; the others keep their stored deadline.
    deadlines = deadlines_of(await tables.store.timers(row.id))
    prompts = [s for s in body.get("prompts", []) if _still_asked(g, now, s)]
    text = {"start": "start", "undo": "undo"}.get(body["kind"], log[first][1] if end > first
                                                   else "")
    finished = ["setup"] if body["kind"] == "start" else \
        [e["what"] for e in ev if e.get("type") == "resolved"]
    return Outcome(row, g, ev, body.get("actor"), text, prompts=prompts, finished=finished,
                   notes=list(body.get("notes", [])), stages=stages, deadlines=deadlines,
                   notice=notice.id)


def _replayed(setup: dict[str, Any], log: list[list[Any]],
              body: dict[str, Any]) -> tuple[Game, list[Told], list[Stage], int]:
    """The game as the notice's move left it, with the events and per-phase views that move
    told, and where in the log the move began."""
    kind, end = body["kind"], int(body["to"])
    ev: list[Told] = []
    stages: list[Stage] = []
    if kind == "undo":
        return Game.replay(setup, log[:end]), [{"type": "undo", "player": body["actor"]}], \
            stages, end
    if kind == "start":
        setup_ev: list[Event] = []
        g = Game.start(setup, events=setup_ev)  # with the game's own cards (issue 17)
        ev, first = list(setup_ev), 0
    else:
        first = int(body["from"])
        g = Game.replay(setup, log[:first])
    for k, (seat, text) in enumerate(log[first:end]):
        hook = stage_hook(g, stages, len(ev)) if kind == "move" else None
        new = g.apply(int(seat), text, on_resolved=hook)
        auto = kind == "start" or k > 0  # as the service marked them
        ev += [dict(e, auto=True) for e in new] if auto else new
    return g, ev, stages, first


def _still_asked(then: Game, now: Game, seat: int) -> bool:
    """The question the move asked `seat` is the one the game asks it now."""
    asked, current = then.decision(seat), now.decision(seat)
    return asked is not None and current is not None and current["id"] == asked["id"]
