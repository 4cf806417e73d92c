"""One path for every answer a player gives, whether typed as a slash command or clicked.

`perform` acknowledges the interaction first (Discord's 3-second window), asks the service
(which commits before returning), answers the actor privately — result, their private
lines, their next question with its buttons — and then announces to the channel. Refusals
are specific and ephemeral, and change nothing: the service validates before it stores.

The interaction's id goes into the same transaction as the move (`key`): Discord delivering
it twice, or two processes receiving it, applies it once — the second gets the same answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import time
from collections.abc import Awaitable, Sequence
from typing import Any, cast

import aiohttp
import discord
from discord import app_commands

import i18n
from engine import ActionError
from service import GameOver, Outcome, Quarantined, ServiceError
from service.daily import number_of
from service.daily_play import DailyHost
from service.notation import action_words
from service.play import Aim
from service.refusals import words
from service.seats import people_deciding
from service.tables import fault_refusal

from .announcement import Announcement
from .daily_words import DmUnreachable, dm_refusal, tell_settled
from .delivery import deliver, or_without_image
from .host import Host
from .i18n import join, lang_of, result_text, t
from .mentions import safe
from .pages import clip
from .quarantine import quarantine_refusal
from .views import Target, prompt_view

log = logging.getLogger("rr.actions")


class Refusal(ActionError):
    """A refusal of the bot's own: `bot.<key>` in the catalogue with its parameters, worded
    in the reader's language by `refusal` like every other refusal (issue 21)."""

    code = "refused"

    def __init__(self, key: str, /, **params: Any) -> None:
        super().__init__(key, t(key, "en", **params), **params)


def rook(interaction: discord.Interaction) -> Host:
    return cast(Host, interaction.client)


def in_server(interaction: discord.Interaction) -> bool:
    """A channel game lives only in a server channel where the bot itself is installed: not
    in a DM, a group DM, or a server where only a user installed the app."""
    return interaction.guild_id is not None and interaction.is_guild_integration()


LOCKED = "locked"
"""`cannot_post`'s answer for a thread a moderator locked: only Manage Threads may post in
it (an archived one that is not locked is unarchived by the bot's post, so it is fine).
Every permission is there, so the words say the thread is locked, not what is missing."""


def cannot_post(interaction: discord.Interaction, channel: discord.abc.GuildChannel |
                discord.Thread | None = None, *, files: bool = True) -> list[str]:
    """The permissions the bot lacks in this server channel (or in `channel`, another of
    the server's) to post a game's turn: its text, its board image (`files`). Discord sends
    the bot's own permissions in the channel with every interaction; another channel's are
    computed from the server as cached, and unknown (nothing said) where it is not. A game
    in a channel the bot cannot post in was played unseen: no board, no ping, and seats
    timed out by players who were never told it was their turn."""
    if not in_server(interaction):
        return []
    where = channel if channel is not None else interaction.channel
    if channel is None or channel.id == interaction.channel_id:
        perms = interaction.app_permissions
    elif interaction.guild is not None and interaction.guild.me is not None:
        perms = channel.permissions_for(interaction.guild.me)
    else:
        return []
    thread = isinstance(where, discord.Thread)
    need = ["view_channel", "send_messages_in_threads" if thread else "send_messages"]
    missing = [p for p in need + ["attach_files"] * files if not getattr(perms, p)]
    if not missing and thread and cast(discord.Thread, where).locked and not perms.manage_threads:
        return [LOCKED]
    return missing


def posting_refusal(key: str, missing: list[str], lang: str, **params: Any) -> str:
    """`key`'s words for what `cannot_post` found: the missing permissions as Discord's
    own settings name them, or (`key`_locked) that the thread is locked and who can mend
    it — unlock it, or give the bot Manage Threads."""
    if missing == [LOCKED]:
        return t(f"{key}_locked", lang, **params)
    return t(key, lang, missing=join([t(f"perm_{p}", lang) for p in missing], lang), **params)


def posting_warning(interaction: discord.Interaction, lang: str) -> list[str]:
    """A line for a player's private answer in a game whose channel the bot cannot post in
    (taken away after the game began, or its thread locked): why the board and the pings
    are missing, and who can mend it. Empty where the bot can post."""
    missing = cannot_post(interaction)
    return [posting_refusal("cannot_post_warning", missing, lang)] if missing else []


async def channel_only(interaction: discord.Interaction, *, posts: bool = False) -> bool:
    """For channel-game commands (new, join, start, …), after `ack`: outside a server
    channel of the bot, a clear refusal and False. `posts`: the command makes the bot post
    in the channel (a lobby, a game's first turn), so a channel it cannot post in is
    refused too, with the permissions it lacks."""
    lang = lang_of(interaction)
    if in_server(interaction):
        missing = cannot_post(interaction) if posts else []
        if not missing:
            return True
        await reply(interaction, posting_refusal("cannot_post", missing, lang))
        return False
    cmd = interaction.command
    name = cmd.qualified_name.removeprefix("rr ") if cmd is not None else "rr"
    await reply(interaction, t("channel_only", lang, command=name))
    return False


async def game_key(interaction: discord.Interaction, *, quiet: bool = False,
                   game: int | None = None) -> int:
    """The one place a play command finds its game: the channel's game in a server, else
    the caller's own daily game — the one a button names (`game`: a practice game's
    buttons while the ranked one is open), else `DailySlots.active_slot` — so nobody can
    ever reach someone else's daily game. `quiet` (autocomplete): 0 instead of a refusal."""
    if in_server(interaction):
        return interaction.channel_id or 0
    host: DailyHost | None = getattr(rook(interaction), "daily", None)  # None before setup_hook
    if host is not None and not quiet:
        ended = await host.attempts.expire_overdue(interaction.user.id)
        if ended is not None:  # 00:00 UTC passed and the day job has not run yet
            raise Refusal("daily_time_up", n=number_of(dt.date.fromisoformat(ended.day)))
    key = None
    if host is not None and game is not None:
        key = await host.slots.slot_of_game(interaction.user.id, game)
    if host is not None and key is None:
        key = await host.slots.active_slot(interaction.user.id)
    if key is None:
        if quiet:
            return 0
        raise Refusal("no_daily_game")
    return key


QUICK_S = 0.5  # a read answered this soon after the user acted needs no deferral first


class _Held:
    """A read's acknowledgement held back (`ack(..., quick=True)`): when its answer is ready
    within QUICK_S of the user's action, the answer is the interaction's response — one
    request to Discord instead of two, and in a burst the reader waits for one turn of the
    event loop fewer (issue 22: `/rr status` in a burst of moves was answered about twice as
    late as in 1d6ad38). Otherwise the deferral goes out at QUICK_S, well inside Discord's
    3 s, and the answer follows it. Only for reads: a move acknowledges at once, since that
    acknowledgement is what tells a second delivery of it to stand down."""

    def __init__(self, interaction: discord.Interaction, ephemeral: bool, thinking: bool) -> None:
        self.interaction = interaction
        self.ephemeral, self.thinking = ephemeral, thinking
        # Discord's window runs from the user's action (the id's time), not from when this
        # process got to it: a late start defers at once
        age = (discord.utils.utcnow() - interaction.created_at).total_seconds()
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(min(QUICK_S, max(0.0, QUICK_S - age)), self.defer)
        self.deferral: asyncio.Task[bool] | None = None

    def defer(self) -> None:
        self.deferral = asyncio.get_running_loop().create_task(
            _defer(self.interaction, self.ephemeral, self.thinking))
        self.deferral.add_done_callback(lambda _: _held.pop(self.interaction.id, None))

    async def settle(self) -> None:
        """Before the first answer: no deferral any more, or the one under way finished."""
        self.timer.cancel()
        if self.deferral is not None:
            await asyncio.shield(self.deferral)


_held: dict[int, _Held] = {}  # interaction id → its held acknowledgement, until answered


async def ack(interaction: discord.Interaction, *, ephemeral: bool = True,
              thinking: bool = True, quick: bool = False) -> bool:
    """Defer at once so slow work (database, images) never misses Discord's 3 s window.

    False means: stop here, do nothing with this interaction. That is the case when it
    expired, when Discord says it was already acknowledged (40060: the same interaction
    delivered twice, or to a second process — that copy does the work; doing it here too
    would apply the answer twice), and when Discord failed or did not answer in time
    (5xx, timeout, network): nothing has been done, and the player is asked to try again
    if the acknowledgement did land after all. No traceback, no "something went wrong".

    `quick` (reads only): the deferral is held back, see `_Held`."""
    _check_clock(interaction)
    if interaction.response.is_done() or interaction.id in _held:
        return True
    if quick:
        _held[interaction.id] = _Held(interaction, ephemeral, thinking)
    elif not await _defer(interaction, ephemeral, thinking):
        return False
    await postable_again(interaction)
    return True


async def postable_again(interaction: discord.Interaction) -> None:
    """Discord sends the bot's permissions in the channel with every interaction: where they
    no longer allow its posts, the game there has its time limits held before any post is
    refused; where they allow them again, a game held for want of them goes on
    (cogs/held.py `Announcer.posting`) — even before the bot has anything to post."""
    channel = interaction.channel_id
    if channel is not None and in_server(interaction):
        missing = bool(cannot_post(interaction))
        await rook(interaction).announcer.posting(channel, refused=missing, took=not missing)


CLOCK_OFF_S = 60.0  # this server's clock this far from Discord's is told to the operator
CLOCK_WARN_EVERY_S = 3600.0
_clock_warned: list[float] = []  # (monotonic) when it was last told


def _check_clock(interaction: discord.Interaction) -> None:
    """Time limits, the daily's day and leases go by this server's wall clock, and the
    players see deadlines on theirs (Discord's `<t:…>`): a clock far off (no NTP, a
    container started with a wrong clock) makes every deadline wrong and is otherwise
    silent (the clock audit). An interaction is created on Discord's clock moments before
    it arrives, so one that seems a minute old or from the future shows it: logged, at
    most once an hour."""
    off = time.time() - interaction.created_at.timestamp()
    if abs(off) <= CLOCK_OFF_S or (_clock_warned and
                                   time.monotonic() - _clock_warned[-1] < CLOCK_WARN_EVERY_S):
        return
    _clock_warned[:] = [time.monotonic()]
    log.warning("this server's clock is %+.0f s off Discord's (interaction %s): time limits, "
                "the daily challenge's day and the day job's lease go by it; set the clock "
                "right (NTP)", off, interaction.id)


async def _defer(interaction: discord.Interaction, ephemeral: bool, thinking: bool) -> bool:
    try:
        await interaction.response.defer(ephemeral=ephemeral, thinking=thinking)
    except discord.NotFound:  # the interaction expired before we saw it: nothing to answer
        log.warning("interaction %s expired before it was acknowledged", interaction.id)
        return False
    except discord.HTTPException as e:
        if e.code == 40060:
            log.info("interaction %s was already acknowledged by another delivery; this one "
                     "does nothing", interaction.id)
            return False
        log.warning("could not acknowledge interaction %s: HTTP %s code %s", interaction.id,
                    e.status, e.code)
        if e.status >= 500:
            await _ask_to_retry(interaction)
        return False
    except (TimeoutError, aiohttp.ClientError, OSError) as e:
        log.warning("could not acknowledge interaction %s: %r", interaction.id, e)
        await _ask_to_retry(interaction)
        return False
    return True


async def _ask_to_retry(interaction: discord.Interaction) -> None:
    """After an acknowledgement whose fate is unknown: if it did land, the player would
    see "thinking…" forever — replace it with "nothing was done, try again" (a followup
    fails harmlessly, 404, when it did not land)."""
    text = t("ack_failed", lang_of(interaction))
    await deliver(f"retry note for interaction {interaction.id}",
                  lambda: interaction.followup.send(text, ephemeral=True))


async def announce(bot: Host, ann: Announcement, *, skip_seat: int | None = None) -> None:
    """Announce a committed move through its outbox notice (`Announcer.tell`): a failure
    stays with this game's messages (logged, retried from where it stopped) and never turns
    into "something went wrong" for a move that was saved."""
    await bot.announcer.announce(ann, skip_seat=skip_seat)


async def reply(interaction: discord.Interaction, content: str, **kwargs: Any) -> None:
    """An ephemeral answer: after `ack` a followup (the first replaces 'thinking…'),
    otherwise the interaction's response itself (a held acknowledgement is settled first)."""
    if (held := _held.pop(interaction.id, None)) is not None:
        await held.settle()

    async def post(text: str, parts: dict[str, Any]) -> Any:
        if not interaction.response.is_done():
            return await interaction.response.send_message(text, ephemeral=True, **parts)
        return await interaction.followup.send(text, ephemeral=True, **parts)

    def send(with_image: bool) -> Awaitable[Any]:
        if with_image:
            return post(clip([content]), kwargs)
        rest = {k: v for k, v in kwargs.items() if k not in ("file", "files")}
        return post(clip([content, t("file_too_large", lang_of(interaction))]), rest)

    what = f"reply to interaction {interaction.id}"
    if {"file", "files"} & kwargs.keys():  # the words still reach the player without it
        await deliver(what, lambda: or_without_image(send, what))
    else:
        await deliver(what, lambda: send(True))


def refusal(e: ActionError, lang: str, *, from_button: bool = False) -> str:
    """Every refusal in words, for Discord: the one place they are worded (issue 21);
    out-of-date prompts, spectators, a finished or damaged game get their own text."""
    if isinstance(e, Refusal):
        return t(e.key, lang, **e.params)
    if isinstance(e, DmUnreachable):
        return dm_refusal(e.cause, lang, e.what)
    if isinstance(e, Quarantined):
        return quarantine_refusal(e.row, e.reason, lang)
    if e.key == "svc.stale_timeout":  # (the time-out closed it: said, not just 'moved on')
        return t("stale_timeout", lang)
    if e.code == "stale" or (from_button and e.code == "not_your_decision"):
        return t("stale", lang)
    if e.code == "not_player":
        return t("not_player", lang)
    if e.code == "wrong_game":  # a button of a game no longer running here
        return t("wrong_game", lang)
    if e.code == "not_yours":  # a button made for another seat
        return t("not_yours", lang, name=safe(str(e.params["name"])))
    if isinstance(e, GameOver):
        return t("over_refusal", lang, result=result_text(e.result, e.names, lang))
    if e.code == "daily_none":  # `/rr daily resign` with no ranked attempt in play
        return t("daily_resign_none", lang)
    if e.code == "vote":  # a vote counted toward removing a player: not a refusal's "⛔"
        return words(e, lang)
    return t("refused", lang, msg=words(e, lang, safe))


async def answer_error(interaction: discord.Interaction, error: BaseException, *,
                       from_button: bool = False) -> bool:
    """The one handler of Discord's side: a refusal is answered privately in the reader's
    words (True); anything else is a bug — the user still gets a polite answer, and False
    tells the caller to log it."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    lang = lang_of(interaction)
    if isinstance(error, ActionError):
        text = refusal(error, lang, from_button=from_button)
        if error.key == "svc.no_game_new" and (elsewhere := games_elsewhere(interaction)):
            # a command in the wrong channel: where the player's game is, not only how to
            # start another (the Discord new-player audit)
            text += "\n" + t("your_game_is_in", lang, channels=i18n.join(
                lang, (f"<#{c}>" for c in elsewhere)))
        elif error.key == "svc.no_game_new" and interaction.user.id in getattr(
                interaction.client, "learning", {}):
            # typed during a lesson: the lesson is answered with its buttons (the Discord
            # audit: "no game here, start one" sent a learner away from it)
            text += "\n" + t("in_tutorial", lang)
        await reply(interaction, text)
        return True
    store = getattr(interaction.client, "store", None)
    if store is not None and isinstance(error, store.faults):
        # the database busy, restarting or full: a refusal in words, not "something went
        # wrong" — every command, not only the moves that map it themselves
        log.warning("%s: the store failed (%s: %s); answered that nothing changed",
                    _what(interaction), type(error).__name__, error)
        await reply(interaction, refusal(fault_refusal(error), lang, from_button=from_button))
        return True
    if store is not None and isinstance(error, getattr(store, "damaged", ())):
        # a damaged page of the database (the fault-injection audit: "Something went wrong…
        # try again", which never succeeds): said so, and the operator told what to do
        log.error("%s: the database is damaged (%s: %s); restore it from a backup (SQLite: "
                  "`sqlite3 FILE .recover`) — the commands that read the damaged part fail "
                  "until then", _what(interaction), type(error).__name__, error)
        await reply(interaction, refusal(ServiceError.of("svc.damaged_store", code="busy"),
                                         lang, from_button=from_button))
        return True
    if isinstance(error, app_commands.TransformerError):
        # Discord sent an option its own code cannot turn into the declared type (a channel
        # the bot cannot see, a value from an older command list): the user's input, not a bug
        value = safe(str(error.value))[:100]
        await reply(interaction, t("unreadable_option", lang, value=value))
        return True
    with contextlib.suppress(Exception):
        await reply(interaction, t("internal", lang))
    return False


def games_elsewhere(interaction: discord.Interaction) -> list[int]:
    """The other channels of this server where the user plays a game this process has told
    of lately (`seating`: a hint from memory, never a database search on a refusal)."""
    client, guild = interaction.client, interaction.guild
    seating = getattr(client, "seating", None)
    if guild is None or not isinstance(seating, dict):
        return []
    user, here = interaction.user.id, interaction.channel_id
    return sorted(c for c, (_game, users) in seating.items()
                  if c != here and user in users and guild.get_channel_or_thread(c) is not None)


def _what(interaction: discord.Interaction) -> str:
    """The command or the button an interaction was, for the log."""
    command = interaction.command
    if command is not None:
        return f"command {command.qualified_name}"
    data: dict[str, Any] = dict(interaction.data or {})
    return f"component {data.get('custom_id', '?')}"


class AnsweringTree(app_commands.CommandTree[Any]):
    """The command tree (`RookBot`'s `tree_cls`): its `on_error` is where every slash
    command's refusal and failure ends — no command catches a refusal itself."""

    async def on_error(self, interaction: discord.Interaction,
                       error: app_commands.AppCommandError, /) -> None:
        if not await answer_error(interaction, error):
            command = interaction.command
            log.error("command %s failed", command and command.qualified_name, exc_info=error)


async def guarded(interaction: discord.Interaction, work: Awaitable[None]) -> None:
    """Every button's, select's and modal's work runs in here, the one handler of clicks:
    a refusal is answered privately (`answer_error`); on a bug, the clicker still gets an
    answer, then discord.py logs it (its View.on_error) — a click must never be left
    "thinking" forever."""
    try:
        await work
    except Exception as e:
        if not await answer_error(interaction, e, from_button=True):
            raise


async def perform(interaction: discord.Interaction, text: str, target: Target | None = None) -> None:
    """Apply `text` for the interacting user; tell them, then the channel."""
    lang = lang_of(interaction)
    if not await ack(interaction):
        return
    bot = rook(interaction)
    key = await game_key(interaction, game=target.game if target else None)
    out = await bot.service.play.act(key, interaction.user.id, text,
                                     target.decision if target else None,
                                     key=interaction_key(interaction, text),
                                     aim=Aim(target.game, target.seat) if target else None,
                                     typed_at=interaction.created_at.timestamp(),
                                     name=interaction.user.display_name)
    await conclude(interaction, out, lang)


def interaction_key(interaction: discord.Interaction, text: str) -> str:
    """The key a move is stored under: one interaction applies each of its answers at most
    once (`/rr settings` may give two in one interaction, hence the text)."""
    return f"i:{interaction.id}:{text}"


async def conclude(interaction: discord.Interaction, out: Outcome, lang: str) -> None:
    """After an accepted answer: the actor's reply, then the channel's announcement (the
    outbox notice the move committed, and the game's end when it left only AI-played seats;
    a redelivered interaction only gets its reply)."""
    over = out.game.over or out.abandoned is not None
    bot = rook(interaction)
    ann = bot.announcer.capture(out, lang)
    waiting = people_deciding(out.row, out.game, out.actor)
    if out.duplicate:
        log.info("game %s: interaction %s delivered again; applied once", out.row.id,
                 interaction.id)
        await answer_actor(interaction, ann, out.text, lang, over=over, waiting=waiting)
        return
    log.info("game %s seat %s: %s", out.row.id, out.actor, out.text)
    await answer_actor(interaction, ann, out.text, lang, over=over, waiting=waiting)
    await announce(bot, ann, skip_seat=ann.actor)
    if out.row.settings.get("daily") and out.game.over:
        await tell_settled(bot, out.row.id)


async def answer_actor(interaction: discord.Interaction, ann: Announcement, text: str,
                       lang: str, *, over: bool = False, waiting: Sequence[int] = ()) -> None:
    """The actor's private reply: what was done, their secrets, their next question — or,
    with none, the people the table still waits for (`waiting`: in a step every seat
    answers at once, the audit's players could not tell whether the game was stuck on
    them)."""
    # a resignation the others play on after is said in words, not only as its notation
    # (the Discord audit read "✅ `resign`" and nothing of being out of the game); one that
    # ended the game is followed by the game-over post
    lines = [t("resigned" if text == "resign" and not over else "accepted", lang,
               text=action_words(text, ann.cards, lang))]
    private = ann.private_lines(ann.actor, lang) if ann.actor is not None else []
    if private:
        lines.append(t("private", lang, lines=i18n.sentences(lang, *private)))
    a = ann.ask_for(ann.actor)
    view = None
    if a is not None:
        lines.append(t("your_turn_next", lang, prompt=a.text[lang]))
        view = prompt_view(ann.game_id, a.seat, a.decision, ann.cards, lang)
    elif waiting and not over and text != "resign":
        lines.append(t("waiting", lang, who=join((ann.names[s] for s in waiting), lang)))
    lines += posting_warning(interaction, lang)
    await reply(interaction, "\n".join(lines), **({"view": view} if view else {}))
