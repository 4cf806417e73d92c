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
"""

from __future__ import annotations

from engine import Event, Game, View
from store import Notice

from .outcomes import Outcome, Reminder, Told, stage_hook
from .tables import Tables


async def rebuild(tables: Tables, notice: Notice) -> Outcome | Reminder | None:
    """The Outcome (or Reminder) a notice stands for, as of its move; None when there is
    nothing left to tell (the game is gone, or the move was undone since)."""
    row = await tables.store.get(notice.game_id)
    if row is None or row.setup is None or row.status not in ("active", "over"):
        return None
    body = notice.body
    now = await tables.load(row)  # the game as it stands: who is still being asked
    if body["kind"] == "remind":
        dec = now.decision(body["seat"])
        if dec is None or dec["opened"] != body["decision"]:
            return None  # answered since: no reminder needed
        return Reminder(row, body["seat"], body["deadline"], notice.id)
    log = await tables.store.log(row.id)
    end = int(body["to"])
    if end > len(log):
        return None
    ev: list[Told] = []
    stages: list[tuple[str, int, View]] = []
    if body["kind"] == "start":
        setup = row.setup
        setup_ev: list[Event] = []
        g = Game.start(setup, events=setup_ev)  # with the game's own cards (issue 17)
        ev = list(setup_ev)
        first = 0
    elif body["kind"] == "undo":
        g, first = Game.replay(row.setup, log[:end]), end
        ev = [{"type": "undo", "player": body["actor"]}]
    else:
        first = int(body["from"])
        g = Game.replay(row.setup, log[:first])
    if body["kind"] != "undo":
        for k, (seat, text) in enumerate(log[first:end]):
            hook = stage_hook(g, stages, len(ev)) if body["kind"] == "move" else None
            new = g.apply(int(seat), text, on_resolved=hook)
            auto = body["kind"] == "start" or k > 0  # as the service marked them
            ev += [dict(e, auto=True) for e in new] if auto else new
    # Questions answered since are not asked again; the others keep their stored deadline.
    deadlines = {int(t["seat"]): float(t["deadline"]) for t in await tables.store.timers(row.id)}
    prompts = [s for s in body.get("prompts", [])
               if (d := g.decision(s)) is not None and now.decision(s) is not None
               and now.decision(s)["id"] == d["id"]]  # type: ignore[index]
    text = {"start": "start", "undo": "undo"}.get(body["kind"], log[first][1] if end > first
                                                   else "")
    finished = ["setup"] if body["kind"] == "start" else \
        [e["what"] for e in ev if e.get("type") == "resolved"]
    return Outcome(row, g, ev, body.get("actor"), text, prompts=prompts, finished=finished,
                   notes=list(body.get("notes", [])), stages=stages, deadlines=deadlines,
                   notice=notice.id)
