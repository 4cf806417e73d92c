"""Seats and who plays them (issue 9): the facts about a game's seats that every room and
interface reads — which level of AI plays a seat now, its name as posts and images show it —
and the lobby's checks for AI players. Plain functions of a game's row; the AI's answers
themselves are the AI seats room (service/ai_seats.py).

Two kinds of AI seat, one rule for both:
- a *bot seat* is filled by an AI from the lobby on (`{"user": -k, "name": "Bot k (level)",
  "ai": level}` in the game's seats, so it is persisted with the game);
- a *zombie seat* is a person's seat an AI plays since they ran out of time, when the channel
  allows it (`settings["zombie"]` = level); kept in `meta["zombie"]` (seat → level) until the
  person types `/rr back`.
"""

from __future__ import annotations

import re
import unicodedata

import ai
import i18n
from engine import Game, View
from store import GameRow, MetaChange, Seat, Settings

from .errors import ServiceError
from .meta import SeatToAi, current_names, renamed, zombies


def level_name(level: str, lang: str) -> str:
    """An AI level as players read it (catalogue `level.*`; an unknown one as it is)."""
    text = i18n.t(lang, f"level.{level}")
    return level if text == f"level.{level}" else text


def check_level(level: str) -> str:
    if level not in ai.LEVELS:
        raise ServiceError.of("svc.ai_level", level=level, levels=", ".join(ai.LEVELS))
    return level


def check_bots(players: int, difficulty: str | None, bots: int, level: str) -> None:
    """`/rr new` with AI players: a known level, room for them, and no solo difficulty."""
    if not bots:
        return
    if difficulty is not None:
        raise ServiceError.of("svc.difficulty_ai")
    check_level(level)
    if not 0 < bots < players:
        raise ServiceError.of("svc.ai_room", n=players, k=players - 1)


def channel_settings(latest: GameRow | None) -> Settings:
    """Settings a new lobby keeps from the channel's previous game: zombie mode and hints
    (on or off) are the channel's choice, not one game's."""
    kept: Settings = {}
    if latest is not None and latest.settings.get("zombie"):
        kept["zombie"] = latest.settings["zombie"]
    if latest is not None and latest.settings.get("hints") is False:
        kept["hints"] = False
    return kept


def bot_level(row: GameRow, seat: int) -> str | None:
    """The level of a bot seat (an AI from the lobby on), else None."""
    level = row.seats[seat].get("ai") if 0 <= seat < len(row.seats) else None
    return str(level) if level else None


def zombie_level(row: GameRow, seat: int) -> str | None:
    """The level of the AI standing in for a person who ran out of time, else None."""
    level = zombies(row.meta).get(str(seat))
    return str(level) if level else None


def ai_level(row: GameRow, seat: int) -> str | None:
    """Who answers this seat now: an AI level, or None for its person."""
    return bot_level(row, seat) or zombie_level(row, seat)


def has_ai(row: GameRow) -> bool:
    return bool(zombies(row.meta)) or any(s.get("ai") for s in row.seats)


def ai_waiting(row: GameRow, g: Game) -> bool:
    """Whether an AI-played seat is being asked something (so `play_ai` has work)."""
    return not g.over and has_ai(row) and any(ai_level(row, s) for s in g.waiting_for())


def bot_name(k: int, level: str, lang: str) -> str:
    return i18n.t(lang, "seat.bot_name", k=k, level=level_name(level, lang))


NUMBERED = re.compile(r"(.*) \((\d+)\)", re.S)  # "ann (2)": `unclashed`'s numbered name


def folded(name: object) -> str:
    """A name as a reader tells names apart: width, case and invisible characters aside."""
    text = unicodedata.normalize("NFKC", str(name)).casefold()
    return "".join(ch for ch in text if unicodedata.category(ch) != "Cf").strip()


def unclashed(name: str, number: int, others: list[str]) -> str:
    """`name` for seat `number` (counted from 1), with that number when another seat already
    reads the same ("Ann" and "ann": every post, status and image named both alike, and
    nobody could tell whose turn it was — the community audit)."""
    taken = {folded(n) for n in others}
    return f"{name} ({number})" if folded(name) in taken else name


def current_name(row: GameRow, seat: int) -> str:
    """The name `seat` goes by in posts, images and the game's history: its person's server
    display name as the game last saw it (`rename`), else the one they joined with. A game
    that has ended keeps the last one it knew: its history names people as they were then."""
    return current_names(row.meta).get(str(seat)) or str(row.seats[seat]["name"])


def plain_names(row: GameRow) -> list[str]:
    """Every seat's `current_name`, unmarked (no 🤖): a recap's, a result's, a roll's."""
    return [current_name(row, s) for s in range(len(row.seats))]


def rename(row: GameRow, seat: int, display_name: str) -> MetaChange | None:
    """The change that makes `seat`'s person go by `display_name`, the server display name
    Discord sent with their latest action (no extra request), told apart from the other
    seats as a join is; None when the game names them so already, or the seat is an AI's.
    Only a game not over is renamed: an ended one is a record of its own time."""
    if row.status not in ("lobby", "active") or bot_level(row, seat) or not display_name:
        return None
    others = [current_name(row, s) for s in range(len(row.seats)) if s != seat]
    name, now = unclashed(display_name, seat + 1, others), current_name(row, seat)
    numbered = NUMBERED.fullmatch(now)
    if name == now or (name != display_name and numbered is not None
                       and numbered.group(1) == display_name):
        return None  # numbered at join by another seat number (a lobby seat left since)
    return renamed(seat, name)


def seat_name(row: GameRow, seat: int, *, image: bool = False) -> str:
    """A seat's name as posts (🤖 marks) or images (no emoji in the font) show it."""
    name = current_name(row, seat)
    if bot_level(row, seat):
        return name if image else f"🤖 {name}"
    if zombie_level(row, seat):
        return i18n.t(str(row.settings.get("lang", "en")), "seat.zombie_image", name=name) \
            if image else f"{name} 🤖"
    return name


def seat_names(row: GameRow, *, image: bool = False) -> list[str]:
    return [seat_name(row, s, image=image) for s in range(len(row.seats))]


def marked_view(row: GameRow, view: View) -> View:
    """The view with the seats' names as they go by now (the state keeps the names it was
    dealt with) and AI-played seats' names marked, for the table image."""
    players = [p.copy() for p in view["players"]]
    for s, p in enumerate(players):
        if s < len(row.seats):
            p["name"] = seat_name(row, s, image=True)
    marked = view.copy()
    marked["players"] = players
    return marked




def add_bots(seats: list[Seat], settings: Settings, count: int, level: str) -> None:
    """Seat `count` AI players of `level` among a lobby's `seats` (in memory; the caller
    stores them: a new lobby writes its AI players with itself, in one transaction),
    each named after the lowest free bot number."""
    if count <= 0:
        return
    check_level(level)
    room = settings["players"] - len(seats)
    if count > room:
        raise ServiceError.of("svc.seats_room", n=settings["players"], k=room)
    lang = settings.get("lang", "en")
    for _ in range(count):
        used = {-int(s["user"]) for s in seats if s.get("ai")}
        k = next(k for k in range(1, 5) if k not in used)
        seats.append({"user": -k, "name": bot_name(k, level, lang), "ai": level})


def people_in(row: GameRow, g: Game) -> list[int]:
    """The seats still in the game that their person plays (none: only AIs are left)."""
    return [s for s in range(len(row.seats))
            if not g.player(s)["eliminated"] and not ai_level(row, s)]


def people_deciding(row: GameRow, g: Game, but: int | None = None) -> list[int]:
    """The seats (other than `but`) whose person is being asked something now: who the
    table waits for (an AI-played seat answers on its own within moments)."""
    if g.over:
        return []
    return [s for s in g.waiting_for() if s != but and not ai_level(row, s)]


def ai_played(row: GameRow) -> set[int]:
    """The seats an AI plays now (bot seats, and zombie-mode seats handed over)."""
    return {s for s in range(len(row.seats)) if ai_level(row, s)}


def refuse_ai_seat(row: GameRow, seat: int) -> None:
    """A person whose seat an AI plays answers nothing until they take it back."""
    if bot_level(row, seat):
        raise ServiceError.of("svc.ai_seat", code="ai_seat")
    if zombie_level(row, seat):
        raise ServiceError.of("svc.zombie_seat", code="ai_seat")


def zombie_on_timeout(row: GameRow, g: Game, seat: int) -> SeatToAi | None:
    """At a person's time-out in a channel with zombie mode: the change that hands their
    seat to the AI (the time-out still counts), else None.

    Not the last person still playing a seat: zombie mode keeps the others from waiting on
    a silent player, and with nobody else left the AIs would play the whole game out in the
    channel at once (before they did, right after telling the person `/rr back`). Their
    seat stays theirs: the time-out gets the default answer (R15) and the game waits."""
    level = row.settings.get("zombie")
    if not level or level not in ai.LEVELS or ai_level(row, seat):
        return None
    if not [s for s in people_in(row, g) if s != seat]:
        return None
    return SeatToAi(seat, level)
