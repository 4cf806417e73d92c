"""Hints (issue 23): `/rr hint` and the console's `hint` — the expert's suggestion for the
caller's pending decision, why, and the chance to win before and after it.

Hosting rules, shared by every interface:
- never in a ranked daily attempt (the day's score must be the player's own); a daily
  practice and any channel game allow them unless the channel's host turned them off
  (`settings["hints"] = False`, kept for the channel's next games like zombie mode);
- the expert thinks on the caller's own view only (engine.view), off the event loop (the
  AI's worker pool when the bot set one), and at most `HINT_S` seconds;
- every hint given is counted per seat in the game's meta (`meta["hints"]`), with the
  store's atomic meta change, so the log, the status and the end of the game tell everyone
  who used them; the answer it suggested is kept by decision (`meta["hinted"]`), so the
  game review does not judge the expert's own answer as the player's. The engine's log stays the game's moves alone (setup + log replays it).
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import ai.advise
import i18n
from engine import CardSet, View
from store import GameMeta, GameRow, MetaChange

from .ai_seats import AiSeats
from .daily import ranked_record
from .errors import ServiceError
from .lines import Line, parse
from .notation import action_words
from .tables import Tables

log = logging.getLogger("rr.service")

STOPPED = 0.995  # a monster this answer keeps out of the castle this often is "stopped"
HINT_S = 10.0  # the longest a hint may think (a loaded machine); the expert caps itself at 1 s


@dataclass(frozen=True, slots=True)
class Hint:
    """A hint given: the game's row (its meta with this hint counted), the seat, the advice."""

    row: GameRow
    seat: int
    advice: ai.advise.Advice


def hints_allowed(row: GameRow) -> bool:
    """A ranked daily attempt never; elsewhere unless the channel turned hints off."""
    if ranked_record(row.settings):
        return False
    return row.settings.get("hints", True) is not False


def hint_seed(row: GameRow, log_len: int) -> int:
    """Reproducible per game and moment: the same question gets the same hint."""
    return (row.id * 1_000_003 + log_len) % 2**31


def count_hint(seat: int, decision: int, action: str) -> MetaChange:
    """One more hint used by `seat`, added to the count as stored (another process's too);
    with the decision it answered and the answer it suggested (`hinted`)."""
    def change(meta: GameMeta) -> None:
        used = {str(k): n for k, n in hints_used(meta).items()}  # (a damaged entry: none)
        used[str(seat)] = used.get(str(seat), 0) + 1
        meta["hints"] = used
        given = meta.get("hinted")
        meta["hinted"] = {**(given if isinstance(given, dict) else {}),
                          f"{seat}:{decision}": action}
    return change


def hinted(meta: GameMeta) -> dict[tuple[int, int], str]:
    """The answers hints suggested, by (seat, decision id): the game review leaves out an
    answer that followed one, since it is the expert's own (service/review.py)."""
    out: dict[tuple[int, int], str] = {}
    given = meta.get("hinted")
    for k, v in (given.items() if isinstance(given, dict) else ()):
        seat, _, decision = str(k).partition(":")
        if seat.isdigit() and decision.isdigit():
            out[int(seat), int(decision)] = str(v)
    return out


def hints_used(meta: GameMeta) -> dict[int, int]:
    """Hints used per seat (seats that used none are left out). Meta is stored JSON: an
    entry that is not a seat and a count (a damaged row: `{"0": "x"}`, a list) counts as
    none, as `timeout_counts` reads time-outs; it failed `/rr status`, `/rr log` and the
    game's end post of that game (the reliability audit)."""
    raw = meta.get("hints")
    used: dict[int, int] = {}
    for k, v in (raw.items() if isinstance(raw, dict) else ()):
        try:
            n = int(v) if not isinstance(v, bool) else 0
            if n > 0:
                used[int(k)] = n
        except (TypeError, ValueError, OverflowError):
            continue
    return used


def used_lines(row: GameRow, names: list[str], lang: str) -> list[str]:
    """"Ann used 2 hints", one line per seat that used any (the log, status, game's end)."""
    return [i18n.tn(lang, "hint.used", n, name=names[seat], n=n)
            for seat, n in sorted(hints_used(row.meta).items()) if seat < len(names)]


def advice_lines(advice: ai.advise.Advice, cs: CardSet, lang: str) -> list[Line]:
    """The hint in words: the action to type (marked, as each interface shows an answer),
    the reason, the chance to win before → after."""
    r = advice.reason
    why = _unit_why(r, cs, lang) if r.verb == "act" else _other_why(r, cs, lang)
    if r.saved:
        why += i18n.tn(lang, "hint.saved", r.saved, n=r.saved)
    action = parse(i18n.template(lang, "hint.action"), action=action_words(advice.action, cs, lang))
    return [action, Line() + why + i18n.t(lang, "hint.stop"), chance_line(advice, lang)]


def _name(cs: CardSet, key: str | None, lang: str) -> str:
    return cs.name(key, lang) if key else "?"


def _unit_why(r: ai.advise.Reason, cs: CardSet, lang: str) -> str:
    """A unit action's reason: what it hits and how hard, else where it goes."""
    where = f"{r.square}→{r.to}" if r.to else r.square
    if r.monster is not None:
        why = i18n.t(lang, "hint.attack", unit=_name(cs, r.unit, lang), square=where,
                     monster=_name(cs, r.monster, lang), target=r.target,
                     damage=f"{r.damage:g}")
        if r.castle:  # it would get in if nothing were done: does this answer stop it?
            if r.stops >= STOPPED:
                why += i18n.t(lang, "hint.castle_stopped")
            elif r.stops > 0:
                why += i18n.t(lang, "hint.castle_stops", chance=_pct(r.stops))
            else:
                why += i18n.t(lang, "hint.castle")
        return why
    if r.hits > 0:  # an area attack, a split, a command
        return i18n.tn(lang, "hint.spread", r.hits, unit=_name(cs, r.unit, lang),
                       square=where, damage=f"{r.damage:g}")
    if r.to:  # a move (and perhaps a heal): where it goes
        return i18n.t(lang, "hint.move_to", unit=_name(cs, r.unit, lang), square=r.square,
                      to=r.to)
    return i18n.t(lang, "hint.move", unit=_name(cs, r.unit, lang), square=r.square)


def _other_why(r: ai.advise.Reason, cs: CardSet, lang: str) -> str:
    """Any other answer's reason: the card, the unit, the price, or why to pass."""
    if r.verb in ("place", "recruit") and r.card is not None:
        return i18n.t(lang, f"hint.{r.verb}", unit=_name(cs, r.card, lang), square=r.square)
    if r.verb == "levelup" and r.unit is not None:
        return i18n.t(lang, "hint.levelup", unit=_name(cs, r.unit, lang), square=r.square,
                      card=_name(cs, r.card, lang), price=r.price)
    if r.verb == "done":  # passing is advice too: why (the console audit: no reason)
        return i18n.t(lang, "hint.done")
    if r.verb == "pick" and r.card is not None:
        return i18n.t(lang, "hint.pick", card=_name(cs, r.card, lang))
    return i18n.t(lang, "hint.other")


def chance_line(advice: ai.advise.Advice, lang: str) -> Line:
    """The chance to win with the hint, against the most obvious answer's when the two
    differ as shown; the same figure twice ("33% now, 33% after", a round-1 hint at three
    players) told a player nothing, so where they agree the line says what the figure
    means instead: an even share among the players."""
    after, before = _pct(advice.p_after), _pct(advice.p_before)
    if before != after:
        return Line() + i18n.t(lang, "hint.chance", before=before, after=after)
    line = Line() + i18n.t(lang, "hint.chance_same", after=after)
    if advice.players > 1:
        line += i18n.t(lang, "hint.share", n=advice.players, share=_pct(1 / advice.players))
    return line


def _pct(p: float) -> str:
    return f"{round(100 * p)}%"


def think(view: View, seat: int, seed: int) -> ai.advise.Advice:
    """In a worker (thread or process): the advice from the seat's own view."""
    return ai.advise.advise(view, seat, seed)


class Hints:
    """`hint` (the expert's suggestion, counted) and `set_hints` (the channel's switch)."""

    def __init__(self, tables: Tables, ai: AiSeats) -> None:
        self.tables, self.ai = tables, ai

    async def hint(self, channel_id: int, user_id: int) -> Hint:
        """The expert's suggestion for the caller's pending decision, counted in the meta.
        Refused (nothing changes) in a ranked daily attempt, when hints are off, when the
        caller has nothing to decide, or when the expert could not answer in time."""
        row, g = await self.tables.current(channel_id)
        seat = self.tables.seat(row, user_id)
        if not hints_allowed(row):
            key = "svc.hint_ranked" if ranked_record(row.settings) else "svc.hints_off"
            raise ServiceError.of(key, code="hints")
        decision = g.decision_id(seat)
        if decision is None or not g.legal_actions(seat):
            raise ServiceError.of("svc.hint_nothing", code="hints")
        args = (g.view(seat), seat, hint_seed(row, len(g.log)))
        try:
            advice = await asyncio.wait_for(self.ai.run(think, *args), HINT_S)
        except Exception as e:  # a timeout, a dead worker: a refusal, never a traceback
            if isinstance(e, BrokenProcessPool):
                self.ai.close()  # a fresh pool for the next think
            log.warning("game %s seat %s: no hint (%s)", row.id, seat, type(e).__name__)
            raise ServiceError.of("svc.hint_failed", code="hints") from e
        row.meta = await self.tables.store.update_meta(
            row.id, count_hint(seat, decision, advice.action))
        log.info("game %s: seat %s used a hint", row.id, seat)
        return Hint(row, seat, advice)

    async def set_hints(self, channel_id: int, user_id: int, on: bool,
                        can_manage: bool) -> GameRow:
        """Whether players may ask for hints here (host or Manage Channels, like zombie
        mode); the channel's next games keep it."""
        async with self.tables.lock(channel_id):
            row = await self.tables.hosted(channel_id, user_id, can_manage, "svc.host_setting")
            row.settings["hints"] = on
            await self.tables.write_settings(row)  # (not over a damaged row)
        return row
