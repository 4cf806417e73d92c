"""Looking, not playing: board, status, log, reach, card, rules, settings (all ephemeral).

Every image is drawn from the *viewer's* engine view in a worker thread, so a board shown
to a player carries their own secrets at most (and the renderer draws no medal values);
spectators get the public view.
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands

import i18n
from engine import Event, Game, default_cards, visible
from engine.board import NAMES, index
from engine.cards import CardSet
from engine.errors import excerpt
from render import board_png, card_png, reach_png
from service import rules as rules_ref
from service.daily import answer_by
from service.hints import hints_allowed, used_lines
from service.narrate import narrate
from service.seats import marked_view, plain_names, seat_names
from store import GameRow

from . import choices as C
from .actions import ack, game_key, perform, posting_warning, reply, rook
from .announcement import ask
from .i18n import KINDS, LEVELS, PHASES, join, lang_of, pair, result_text, t
from .lobby import level_choices
from .mentions import safe, user_name
from .mixin import CommandsMixin
from .pages import MAX_CONTENT
from .play import squeeze, suggest
from .text import EMBED_DESCRIPTION, EMBED_TITLE, cut, markdowns
from .views import prompt_view

logger = logging.getLogger("rr.info")
_ = app_commands.locale_str
LOG_ACTIONS = 12  # `/rr log` narrates the events of this many recent actions
LOG_LINES = 30  # … and shows at most this many of their lines, the most recent ones


# The `rolls` standing order (engine notation): when a roll opens a "reroll, level up or keep?"
# question (R12.1). Asking after every hit a critical could beat stalls the game for little.
ROLL_PROMPTS = [app_commands.Choice(name=_("after a miss only"), value="miss"),
                app_commands.Choice(name=_("after any roll that could improve"), value="always")]


def recent_lines(setup: dict[str, Any], log_: list[list[Any]], seat: int | None,
                 names: list[str], lang: str, room: int = 0) -> list[str]:
    """Replay the game up to a few actions ago, then narrate those actions' events for
    `seat` (their own private lines included, nobody else's), leaving `room` characters of
    the message for what follows them. Runs in a worker thread."""
    cut = max(0, len(log_) - LOG_ACTIONS)
    g = Game.replay(setup, log_[:cut])
    events: list[Event] = []
    for s, text in log_[cut:]:
        events += g.apply(int(s), text)
    lines = markdowns(narrate(visible(events, seat), names, g.cards, lang), lang)
    # keep the end (the latest events, e.g. how a game ended), within one message
    kept: list[str] = []
    size = 20  # room for the "… (+n)" line
    for line in reversed(lines):
        if len(kept) == LOG_LINES - 1 or size + len(line) + 1 > MAX_CONTENT - room:
            break
        kept.append(line)
        size += len(line) + 1
    skipped = len(lines) - len(kept)
    return ([f"… (+{skipped})"] if skipped else []) + kept[::-1]


def player_caption(g: Game, view: Mapping[str, Any], seat: int, viewer: int | None, lang: str) -> str:
    p = view["players"][seat]
    hand = join((g.cards.name(c["card"], lang) for c in p["hand"]), lang) or t("nothing", lang)
    lines = [t("board_caption", lang, name=safe(p["name"]), gold=p["gold"], marks=p["honor_marks"],
               threat=p["threat_public"], hand=hand)]
    if p.get("eliminated"):  # resigned, removed or knocked out: its board read as in play
        lines.append(t("board_out", lang))
    if seat == viewer and p.get("medals"):
        lines.append(t("board_medals", lang, medals=join(p["medals"], lang),
                       threat=p["threat"]))
    return "\n".join(lines)


def card_stats(cs: CardSet, key: str, lang: str) -> str:
    """The printed numbers of a card, for its image's alt text."""
    if key in cs.units:
        u = cs.units[key]
        return t("card_stats_unit", lang, hp=u.hp, mov=u.mov, cost=u.cost)
    if key in cs.monsters:
        m = cs.monsters[key]
        return t("card_stats_monster", lang, hp=m.hp, defense=m.defense, mov=m.mov, atk=m.atk,
                 threat=m.threat, kind=t("threat_red" if m.red else "threat_blue", lang))
    return t("card_stats_command", lang)


def overview(lang: str) -> str:
    """`/rr rules` without a topic: the game in short (the rules summary's `overview`), the
    commands to play it and where to learn more — the newcomer's first look (Discord has
    no `/rr help`: the /rr group is full)."""
    secs = rules_ref.sections(lang)
    return secs["overview"].read("Discord") + "\n\n" + t(
        "rules_intro", lang, topics=join((sec.title for sec in secs.values()), lang))


class InfoCommands(CommandsMixin):
    """Mixed into the `rr` group cog (cogs/game.py)."""

    async def _game(self, interaction: discord.Interaction, *,
                    finished: bool = False) -> tuple[GameRow, Game] | None:
        """The channel's game in progress; with `finished`, also the last one if it ended."""
        service = rook(interaction).service
        key = await game_key(interaction)
        if finished:
            return await service.tables.viewable(key)
        return await service.tables.current(key)

    @app_commands.command(name="board", description=_("Show a board (only you see it)"))
    @app_commands.describe(player=_("Whose board (default: yours)"))
    async def board(self, interaction: discord.Interaction,
                    player: discord.User | None = None) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction, quick=True) or \
                (found := await self._game(interaction, finished=True)) is None:
            return
        row, g = found
        viewer = row.seat_of(interaction.user.id)
        target = viewer if player is None else row.seat_of(player.id)
        if player is not None and target is None:
            await reply(interaction, t("not_seated", lang, name=user_name(player)))
            return
        if target is None:  # a spectator without a choice sees the first seat
            target = 0
        view = marked_view(row, g.view(viewer))  # an AI-played seat says so
        caption = player_caption(g, view, target, viewer, lang)
        data = await asyncio.to_thread(board_png, view, target, lang=lang, highlights=None)
        p = view["players"][target]
        alt = t("board_alt", lang, name=p["name"], round=view.get("round", 0), gold=p["gold"],
                marks=p["honor_marks"], threat=p["threat_public"])
        await reply(interaction, caption,
                    file=discord.File(io.BytesIO(data), filename=f"board-{target + 1}.png",
                                      description=alt[:1000]))

    @app_commands.command(name="status", description=_("Round, phase, and who we are waiting for"))
    async def status(self, interaction: discord.Interaction) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction, quick=True) or \
                (found := await self._game(interaction, finished=True)) is None:
            return
        row, g = found
        st = g.state
        if (res := g.result) is not None:  # the game is over
            result = result_text(res, plain_names(row), lang)
            await reply(interaction, t("status", lang, round=st["round"],
                                       phase=pair(PHASES, st["phase"], lang), current="",
                                       waiting=t("over", lang, result=result))
                        + _hints_used(row, lang))
            return
        service = rook(interaction).service
        deadlines = await service.tables.deadlines(row)
        now = service.clock()
        who = []
        for s in g.waiting_for():
            kind = pair(KINDS, g.decision_kind(s) or "", lang)
            # as the prompts say it: a daily game still open closes with its day
            deadline = int(answer_by(row.settings, deadlines.get(s, 0), now))
            who.append(t("who_until", lang, name=safe(seat_names(row)[s]), kind=kind, ts=deadline))
        current = f" — {g.cards.name(cur, lang)}" if (cur := st["current"]) else ""
        waiting = t("waiting", lang, who=i18n.template(lang, "story.long_list_sep").join(who)) if who else t("waiting_none", lang)
        text = "\n".join([t("status", lang, round=st["round"],
                             phase=pair(PHASES, st["phase"], lang), current=current,
                             waiting=waiting) + _hints_used(row, lang),
                           *posting_warning(interaction, lang)])
        seat = row.seat_of(interaction.user.id)
        a = None if seat is None else ask(g, seat, interaction.user.id, 0.0, [lang])
        if seat is None or a is None:
            await reply(interaction, text)
            return
        # the asker's own question, as their ping put it, with its buttons: a player back
        # after a day (or sent here by an out-of-date button) reads what to do and how
        view = prompt_view(row.id, seat, a.decision, g.cards, lang)
        now_line = t("your_turn_next", lang, prompt=a.text[lang])
        if hints_allowed(row):  # where a player is stuck: the hint they would not guess
            now_line = i18n.sentences(lang, now_line, t("hint_where", lang))
        await reply(interaction, f"{text}\n{now_line}", **({"view": view} if view else {}))

    @app_commands.command(name="log", description=_("Recent events in words"))
    async def log(self, interaction: discord.Interaction) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction, quick=True) or \
                (found := await self._game(interaction, finished=True)) is None:
            return
        row, g = found
        # the log as verified (as the recap's): a row damaged since showed the engine's
        # refusal of it at every ask until a restart reported it (the fault-injection audit);
        # copied, since a game in play may take a move while the thread below reads it
        actions = list(g.log)
        names = [safe(n) for n in seat_names(row)]
        assert row.setup is not None
        hints = _hints_used(row, lang)  # who used hints: never crowded out by events
        lines = await asyncio.to_thread(recent_lines, row.setup, actions,
                                        row.seat_of(interaction.user.id), names, lang,
                                        len(hints))
        await reply(interaction, ("\n".join(lines) or t("log_empty", lang)) + hints)

    @app_commands.command(name="reach", description=_(
        "Where a unit can move and what its skill reaches"))
    @app_commands.describe(unit=_("Your unit (its square)"))
    async def reach(self, interaction: discord.Interaction, unit: str) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction, quick=True) or (found := await self._game(interaction)) is None:
            return
        row, g = found
        seat = row.seat_of(interaction.user.id)
        if seat is None:
            await reply(interaction, t("not_player", lang))
            return
        i = index(squeeze(unit))
        if i is None:
            await reply(interaction, t("bad_square", lang, square=safe(excerpt(unit))))
            return
        piece = g.player(seat)["board"][i]
        if piece is None or "owner" not in piece:
            await reply(interaction, t("no_unit", lang, square=NAMES[i]))
            return
        move, skill = g.reach(seat, NAMES[i])
        data = await asyncio.to_thread(reach_png, g.view(seat), seat, NAMES[i], move, skill,
                                       lang=lang)
        none = t("nothing", lang)
        caption = t("reach_caption", lang, card=g.cards.name(piece["card"], lang),
                    square=NAMES[i], move=join(move, lang) or none, skill=join(skill, lang) or none)
        alt = t("reach_alt", lang, card=g.cards.name(piece["card"], lang), square=NAMES[i],
                move=join(move, lang) or none, skill=join(skill, lang) or none)
        await reply(interaction, caption,
                    file=discord.File(io.BytesIO(data), filename=f"reach-{NAMES[i]}.png",
                                      description=alt))

    @reach.autocomplete("unit")
    async def _reach_unit(self, interaction: discord.Interaction,
                          current: str) -> list[app_commands.Choice[str]]:
        return await suggest(interaction, current, lambda g, s, lang, ns: C.own_units(g, s, lang))

    @app_commands.command(name="card", description=_("Show a card"))
    @app_commands.describe(name=_("Card name (English or Japanese)"))
    async def card(self, interaction: discord.Interaction, name: str) -> None:
        lang = lang_of(interaction)
        if not await ack(interaction, quick=True):
            return
        cs = default_cards()
        key = name if name in cs.units or name in cs.monsters or name in cs.commands \
            else cs.resolve(name)
        if key is None:
            await reply(interaction, t("refused", lang, msg=t(
                "unknown_card", lang, name=safe(excerpt(name)))))  # ⛔ as every refusal
            return
        data = await asyncio.to_thread(card_png, key, lang=lang)
        alt = t("card_alt", lang, card=cs.name(key, lang), stats=card_stats(cs, key, lang))
        await reply(interaction, f"**{cs.name(key, lang)}**",
                    file=discord.File(io.BytesIO(data), filename=f"card-{key}.png",
                                      description=alt))

    @card.autocomplete("name")
    async def _card_name(self, interaction: discord.Interaction,
                         current: str) -> list[app_commands.Choice[str]]:
        try:
            cs = default_cards()
            lang = lang_of(interaction)
            pairs = [(cs.name(k, lang), k) for k in [*cs.units, *cs.monsters, *cs.commands]]
            return [app_commands.Choice(name=n, value=v) for n, v in C.narrow(pairs, current)]
        except Exception:
            logger.debug("card autocomplete failed", exc_info=True)
            return []

    @app_commands.command(name="rules", description=_("Short rules help"))
    @app_commands.describe(topic=_("A part of the rules, or a rule id such as R11"))
    async def rules(self, interaction: discord.Interaction, topic: str | None = None) -> None:
        """A topic from the suggestions, or a rule id a message cited ("(R11.1)" → R11);
        without one, the overview a newcomer needs first: Discord has no `/rr help` (the /rr
        group holds Discord's maximum of 25), so `/rr rules` is where a first guess lands."""
        lang = lang_of(interaction)
        if not await ack(interaction, quick=True):
            return
        if not topic:
            await reply(interaction, "", embed=discord.Embed(
                title=cut(t("rules_intro_title", lang), EMBED_TITLE),
                description=cut(overview(lang), EMBED_DESCRIPTION)))
            return
        found = rules_ref.find(topic[:50], lang)
        if found is None:
            await reply(interaction, t("refused", lang, msg=t(
                "no_rules", lang, topic=safe(topic[:50]), topics=join(
                    (sec.title for sec in rules_ref.sections(lang).values()), lang))))
            return
        await reply(interaction, "", embed=discord.Embed(
            title=cut(found.title, EMBED_TITLE), description=cut(found.read("Discord"),
                                                                 EMBED_DESCRIPTION)))

    @rules.autocomplete("topic")
    async def _rules_topic(self, interaction: discord.Interaction,
                           current: str) -> list[app_commands.Choice[str]]:
        lang = lang_of(interaction)
        pairs = [(t("rules_choice", lang, title=sec.title, ids=" ".join(sec.rules))
                  if sec.rules else sec.title, sec.key)
                 for sec in rules_ref.sections(lang).values()]
        shown = C.narrow(pairs, current)
        found = None if shown or not current else rules_ref.find(current[:50], lang)
        if found is not None:  # a word the section uses ("threat"): offer that section
            shown = [pair for pair in pairs if pair[1] == found.key]
        return [app_commands.Choice(name=n, value=v) for n, v in shown]

    @app_commands.command(name="settings", description=_(
        "Your standing order and the game's time limit"))
    @app_commands.describe(autosave=_(
        "Level up a ★ unit automatically when that saves it (R12.1)"),
        rolls=_("When to offer a reroll or level-up after a dice roll (R12.1)"),
        hours=_("New turn time limit in hours (host only)"),
        zombie=_("AI that plays for a player out of time (host or manager)"),
        hints=_("Allow hints from the expert AI (host or manager)"))
    @app_commands.choices(rolls=ROLL_PROMPTS, zombie=level_choices(off=True))
    async def settings(self, interaction: discord.Interaction, autosave: bool | None = None,
                       rolls: app_commands.Choice[str] | None = None,
                       hours: app_commands.Range[int, 1, 168] | None = None,
                       zombie: app_commands.Choice[str] | None = None,
                       hints: bool | None = None) -> None:
        lang = lang_of(interaction)
        if autosave is not None:
            await perform(interaction, f"autosave {'on' if autosave else 'off'}")
        if rolls is not None:
            await perform(interaction, f"rolls {rolls.value}")
        if not await ack(interaction):
            return
        if autosave is None and rolls is None and hours is None and zombie is None \
                and hints is None:
            await self._show_settings(interaction, lang)
        else:
            await _set_table_settings(interaction, lang, hours, zombie, hints)

    async def _show_settings(self, interaction: discord.Interaction, lang: str) -> None:
        """`/rr settings` with no option: the caller's own and the table's, as they are."""
        if (found := await self._game(interaction)) is None:
            return
        row, g = found
        seat = row.seat_of(interaction.user.id)
        if seat is None:  # a spectator has no standing orders: the table's settings only
            own = t("settings_watching", lang)
        else:
            player = g.player(seat)
            own = t("settings_show", lang, auto=t("on" if player["autosave"] else "off", lang),
                    rolls=t(f"rolls_{player.get('rolls', 'miss')}", lang))
        limit = row.settings.get("time_limit_s", 24 * 3600) / 3600
        await reply(interaction, own + "\n" + t("settings_limit", lang, hours=f"{limit:g}")
                    + "\n" + t("settings_zombie", lang,
                                what=zombie_words(row.settings.get("zombie"), lang))
                    + "\n" + t("settings_hints", lang, what=t(
                        "hints_on" if hints_allowed(row) else "hints_off", lang)))


async def _set_table_settings(interaction: discord.Interaction, lang: str, hours: int | None,
                              zombie: app_commands.Choice[str] | None,
                              hints: bool | None) -> None:
    """The table's settings given (the host's, or a manager's: the service decides), each
    answered on its own."""
    bot, channel, user = rook(interaction), interaction.channel_id or 0, interaction.user.id
    manager = bool(interaction.permissions.manage_channels)
    if hours is not None:
        await bot.service.limits.set_time_limit(channel, user, hours * 3600, manager)
        await reply(interaction, t("limit_set", lang, hours=hours))
    if zombie is not None:
        level = None if zombie.value == "off" else zombie.value
        await bot.service.ai.set_zombie(channel, user, level, manager)
        await reply(interaction, t("zombie_set", lang, what=zombie_words(level, lang)))
    if hints is not None:
        await bot.service.hints.set_hints(channel, user, hints, manager)
        await reply(interaction, t("hints_set", lang,
                                   what=t("hints_on" if hints else "hints_off", lang)))


def _hints_used(row: GameRow, lang: str) -> str:
    """"Ann used 2 hints" lines under a status or log (issue 23), or nothing."""
    lines = used_lines(row, [safe(n) for n in seat_names(row)], lang)
    return "".join("\n" + line for line in lines)


def zombie_words(level: str | None, lang: str) -> str:
    """What happens when a player runs out of time, in words (zombie mode or not)."""
    if level:
        return t("zombie_on", lang, level=pair(LEVELS, level, lang))
    return t("zombie_off", lang)

