"""The announcement: what one outcome tells, worded at the moment of the outcome.

`Announcement` holds a move's public and private stories, its questions (`Ask`), its phase
reports and notes, and words them as its posts do (its lines, a burst's head, opening and
tail); the helpers here read a stored game for it (its language, its channel, the channel
whose turn its notice takes) and word a table image's alt text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine import Game
from engine.cards import CardSet
from service import Abandoned, Outcome
from service.narrate import narrate, prompt
from service.outcomes import Told
from service.report import PhaseReport
from service.seats import current_name, zombie_level
from store import GameRow
from store.rows import is_whole

from .i18n import LEVELS, PHASES, join, languages, pair, t
from .mentions import is_person, safe
from .recap_image import Recap
from .text import markdown, markdowns

HINT_ROUNDS = 2  # a question's ping says where the hint is in a game's first rounds (and a
# reminder always): the newcomer learns it there, and a player who knows it reads no line
# more at every question of a long game


@dataclass(slots=True)
class Ask:
    """A question put to one seat at the moment of the outcome (texts in both languages)."""

    seat: int
    user_id: int
    decision: Mapping[str, Any]  # the seat's Decision without `resume` (engine.types)
    text: dict[str, str]
    deadline: float


@dataclass(slots=True)
class Announcement:
    game_id: int
    channel_id: int
    lang: str
    actor: int | None
    names: list[str]
    users: list[int]
    cards: CardSet
    public: list[Told]
    private: dict[int, list[Told]]
    asks: list[Ask]
    table_view: Mapping[str, Any] | None
    finished: list[str]
    timeouts: dict[int, int] = field(default_factory=dict)
    # After every card or phase its own post, then the rest (service/report.py); empty for
    # an announcement that only re-asks (a reminder, a repost).
    reports: list[PhaseReport] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)  # hosting news (an AI took a seat, …)
    extra_pings: list[int] = field(default_factory=list)  # the people `extra` addresses
    ai_waiting: bool = False  # an AI-played seat is asked something: let it answer
    notice: int | None = None  # the outbox row this announcement delivers (see `tell`)
    # The game just ended (not a daily: its recap waits for the day to close): its setup,
    # log and names, for the animated recap posted after the game-over post (issue 24).
    recap: Recap | None = None
    # The finished channel game its game-over post settles and tells the ratings of
    # (cogs/rating_lines.py; not a daily game).
    ended: tuple[GameRow, Game] | None = None
    # The move also ended the game with no winner (only AI-played seats were left): told
    # right after it, from its own outbox notice (`Announcer.announce`).
    closing: Abandoned | None = None
    # Lines told first in its first post (with its image): the AI answers held before it
    # (`Announcer._leading`), so they and its image are one post rather than two.
    lead: list[str] = field(default_factory=list)
    # The game allows hints and is young (`HINT_ROUNDS`), or this is a reminder: a ping says
    # where the hint is (the new-player audit: nobody guessed `/rr bot hint`, and the /rr
    # group has no room for a `/rr hint` of its own).
    hints: bool = False

    def lines(self, lang: str) -> list[str]:
        return markdowns(narrate(self.public, self.names, self.cards, lang), lang)

    def private_lines(self, seat: int, lang: str) -> list[str]:
        return markdowns(narrate(self.private.get(seat, []), self.names, self.cards, lang), lang)

    def stage(self, key: str) -> str:
        """A card or phase that ended (a report's `what`), named in the post's language."""
        return self.cards.name(key, self.lang) if key in self.cards.commands \
            else pair(PHASES, key, self.lang)

    def ask_for(self, seat: int | None) -> Ask | None:
        return next((a for a in self.asks if a.seat == seat), None)

    def report_lines(self, r: PhaseReport) -> list[str]:
        """One report's story, as its post words it."""
        return markdowns(narrate(r.events, self.names, self.cards, self.lang), self.lang)

    def quiet(self) -> bool:
        """Told as lines alone: no image, nobody pinged, nothing private, no note of its
        own, not a game's end — the kind of announcement an AI burst tells together."""
        return not (self.asks or self.private or self.extra or self.extra_pings
                    or self.timeouts or self.recap or self.ended or self.closing
                    or self.table_view is not None
                    or any(r.view is not None for r in self.reports))

    def head(self) -> list[str]:
        """The lines of its first post when that post is lines alone (no image, none of the
        notes its last post carries): an AI burst's post may tell them (`Announcer.announce`),
        the rest (its pings, images, DMs) then following as before."""
        if not self.reports or self.reports[0].view is not None:
            return []
        if len(self.reports) == 1 and (self.extra or self.timeouts or self.ended):
            return []
        return self.report_lines(self.reports[0])

    def opening(self) -> list[str]:
        """The lines of its first post when that post has an image and none of the notes its
        last post carries (the image's title when it has no lines): held lines may lead
        that post (`Announcer.announce`)."""
        if not self.reports or self.reports[0].view is None:
            return []
        if len(self.reports) == 1 and (self.extra or self.timeouts or self.ended):
            return []
        r = self.reports[0]
        return self.report_lines(r) or \
            ([t("report_quiet", self.lang, what=self.stage(r.what))] if r.what else [])

    def tail(self) -> list[str]:
        """The lines of its last post when that post is lines alone, nothing of it follows
        (no ping, DM, recap, note) and an AI seat answers next ("**Round 2** begins" after
        a person's last move of a round): they may start the AI's burst post
        (`Announcer.announce`), every image before them posted as before."""
        if not (self.ai_waiting and self.reports) or self.reports[-1].view is not None:
            return []
        if self.asks or self.private or self.extra or self.extra_pings or self.timeouts:
            return []
        if self.recap or self.ended or self.closing:
            return []
        return self.report_lines(self.reports[-1])

    def story(self) -> list[str]:
        """All its lines in order (its reports', else its public events')."""
        if not self.reports:
            return self.lines(self.lang)
        return [line for r in self.reports for line in self.report_lines(r)]


def ask(g: Game, seat: int, user_id: int, deadline: float,
        langs: Sequence[str] | None = None) -> Ask | None:
    """The seat's question, worded in `langs` (a ping needs only the game's language;
    default: every language)."""
    dec = g.decision(seat)
    if dec is None:
        return None
    texts = {lang: markdown(prompt(g, seat, lang), lang) for lang in langs or languages()}
    return Ask(seat, user_id, {k: v for k, v in dec.items() if k != "resume"}, texts, deadline)


def table_alt(view: Mapping[str, Any], what: str, lang: str) -> str:
    """Alt text of a table image: what ended, the round, whose boards it shows (names as
    typed: alt text is read aloud, not rendered as markdown)."""
    names = join((str(p.get("name", "?")) for p in view.get("players", [])), lang)
    # after placement the state is already in round 1, but placement is round 0's (R4)
    rnd = 0 if view.get("after") == "placement" else view.get("round", 0)
    if view.get("phase") == "over" and not view.get("after"):  # how the game ended
        ended = view.get("result", {}).get("ended_in") if isinstance(view.get("result"),
                                                                      dict) else None
        if ended:  # (rules 3) the image stands at that phase: say it, not the last card
            return t("table_alt_over_in", lang, what=pair(PHASES, str(ended), lang),
                     round=rnd, names=names)[:1000]
        return t("table_alt_over", lang, round=rnd, names=names)[:1000]
    if not what:  # nothing just ended (a re-posted table): say the phase it is in
        now = pair(PHASES, str(view.get("phase", "")), lang)
        return t("table_alt_now", lang, what=now, round=rnd, names=names)[:1000]
    return t("table_alt", lang, what=what, round=rnd, names=names)[:1000]


def turn_of(row: GameRow) -> int | None:
    """The channel whose turn a game's notice takes (`post_channel`), None when its stored
    channel id is damaged (a game set aside for it is told so in no channel: the
    fault-injection audit)."""
    daily = row.settings.get("daily") or {}
    where = daily.get("post_channel") or row.channel_id
    return where if is_whole(where) else None


def post_channel(row: GameRow) -> int:
    """Where a game's posts go: its channel, or for a daily game (kept under a slot key,
    not a channel) the player's DM recorded when it started (service/daily_attempts.py)."""
    daily = row.settings.get("daily") or {}
    return int(daily.get("post_channel") or row.channel_id)


def secrets_by_seat(events: Sequence[Told], users: list[int]) -> dict[int, list[Told]]:
    """The events each seated person may see alone (their draws, their hand), told to them
    privately; a bot seat has nobody to tell its secrets to."""
    private: dict[int, list[Told]] = {}
    for e in events:
        for s in e.get("vis", []):
            if is_person(users[int(s)]):
                private.setdefault(int(s), []).append(e)
    return private


def game_lang(row: GameRow) -> str:
    """The game's language as its settings keep it; one the bot does not speak (a damaged
    row, the fault-injection audit: its pings were never sent) reads English."""
    lang = row.settings.get("lang", "en")
    return lang if lang in languages() else "en"


def zombie_notice(out: Outcome, lang: str) -> tuple[list[str], list[int]]:
    """When an AI took a timed-out seat (zombie mode): the line that says so and the ping
    of its person (`/rr back` is theirs); else nothing."""
    if "zombie" not in out.notes or out.actor is None:
        return [], []
    row, seat = out.row, out.actor
    user = int(row.seats[seat]["user"])
    level = zombie_level(row, seat) or ""
    return [t("zombie_took", lang, name=safe(current_name(row, seat)),
              level=pair(LEVELS, level, lang), mention=f"<@{user}>")], [user]
