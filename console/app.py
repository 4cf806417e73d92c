"""Offline console mode: a whole game in the terminal through the same service layer.

It exists so a newcomer can try the game without a Discord token, and so the full flow
(store, service, engine, renderer) can be tested by driving a real process over stdin.
Lines are `NAME: ACTION` (or just `ACTION` when one player is being waited for), using the
notation of docs/notation.md; `help` lists the console's own commands.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TextIO

from engine import visible
from service.games import GameService, Outcome, ServiceError
from service.narrate import narrate, prompt
from service.refusals_ja import localize

CHANNEL = 1
HELP = """Console commands:
  NAME: ACTION     act as a player, e.g. `Ann: pick advance`, `Bob: act 2B to 3B attack 5B`
  ACTION           when only one player is being waited for
  legal [NAME]     list the legal actions of a player
  undo NAME        take back NAME's last action (when allowed)
  status           who must decide what
  image            write the table image again
  help, quit"""


class Console:
    def __init__(self, service: GameService, out_dir: Path, lang: str, stdout: TextIO) -> None:
        self.service = service
        self.out_dir = out_dir
        self.lang = lang
        self.out = stdout
        self.images = 0
        self.users: dict[str, int] = {}

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    async def setup(self, names: list[str], difficulty: str | None) -> Outcome:
        self.users = {n.casefold(): k + 1 for k, n in enumerate(names)}
        await self.service.new_lobby(None, CHANNEL, 1, names[0], players=len(names),
                                     difficulty=difficulty)
        for k, name in enumerate(names[1:], start=2):
            await self.service.join(CHANNEL, k, name)
        return await self.service.start(CHANNEL, 1)

    async def report(self, out: Outcome) -> None:
        """The story of one action: each card or phase it ended with its own image."""
        names = [s["name"] for s in out.row.seats]
        start = 0
        for _what, end, view in out.stages:
            public = visible(out.events[start:end], None)
            for line in narrate(public, names, out.game.cards, self.lang):
                self.say("  " + line)
            await self.write_image(view, public)
            start = end
        tail = visible(out.events[start:], None)
        for line in narrate(tail, names, out.game.cards, self.lang):
            self.say("  " + line)
        for seat in range(len(names)):  # private lines (medal values) to their owner
            private = [e for e in out.events if e.get("vis") == [seat]]
            for line in narrate(private, names, out.game.cards, self.lang):
                self.say(f"  (to {names[seat]} only) {line}")
        if not out.stages and (out.finished or out.over):
            await self.write_image(out.game.view(None), tail)
        self.show_status(out)

    async def write_image(self, view: dict, highlights: list[dict]) -> None:
        try:
            from render import table_png
        except ImportError:  # the renderer is optional for the console
            return
        self.images += 1
        path = self.out_dir / f"table-{self.images:04d}.png"
        data = await asyncio.to_thread(table_png, view, lang=self.lang, highlights=highlights)
        path.write_bytes(data)
        self.say(f"  [image] {path}")

    def show_status(self, out: Outcome) -> None:
        g = out.game
        names = [s["name"] for s in out.row.seats]
        if g.over:
            self.say("Game over. Type quit.")
            return
        for seat in g.waiting_for():
            text = (prompt(g, seat, self.lang) or "").replace("`/rr ", "`")
            self.say(f"> {names[seat]}: {text}")

    def who(self, name: str) -> int | None:
        return self.users.get(name.strip().casefold())

    async def handle(self, line: str) -> bool:
        """One input line; returns False to stop."""
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        word = line.split()[0].lower()
        if word in ("quit", "exit"):
            return False
        if word == "help":
            self.say(HELP)
            return True
        try:
            row, g = await self.service.current(CHANNEL)
        except ServiceError as e:
            self.say(f"! {localize(e.message, self.lang)}")
            return True
        names = [s["name"] for s in row.seats]
        if word == "status":
            self.show_status(Outcome(row, g, [], None, "status"))
            return True
        if word == "image":
            await self.write_image(g.view(None), [])
            return True
        if word in ("legal", "undo"):
            arg = line.split(maxsplit=1)[1] if " " in line else ""
            seat = (names.index(next(n for n in names if n.casefold() == arg.casefold()))
                    if arg and any(n.casefold() == arg.casefold() for n in names)
                    else (g.waiting_for() or [0])[0])
            if word == "legal":
                acts = [str(a) for a in g.legal_actions(seat)]
                self.say(f"{names[seat]} may: " + ("; ".join(acts[:60]) or "nothing now")
                         + (f" … (+{len(acts) - 60})" if len(acts) > 60 else ""))
                return True
            try:
                await self.report(await self.service.undo(CHANNEL, seat + 1))
            except ServiceError as e:
                self.say(f"! {localize(e.message, self.lang)}")
            return True
        if ":" in line:
            name, action = line.split(":", 1)
            user = self.who(name)
            if user is None:
                self.say(f"! No player called '{name.strip()}'. Players: {', '.join(names)}.")
                return True
        else:
            waiting = g.waiting_for()
            if len(waiting) != 1:
                self.say("! Several players are deciding: write `NAME: ACTION`.")
                return True
            user, action = waiting[0] + 1, line
        try:
            await self.report(await self.service.act(CHANNEL, user, action))
        except ServiceError as e:
            self.say(f"! {localize(e.message, self.lang)}")
        return True


async def main_async(args: argparse.Namespace, stdin: TextIO, stdout: TextIO) -> int:
    from store import Store

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    store = await Store(args.db).open()
    try:
        seed = args.seed
        service = GameService(store, seed_source=(lambda: seed) if seed is not None else None)
        con = Console(service, out_dir, args.lang, stdout)
        existing = await store.open_game(CHANNEL)
        if existing is not None and existing.status == "active":
            con.users = {s["name"].casefold(): s["user"] for s in existing.seats}
            con.say(f"Resuming the game in {args.db}.")
            row, g = await service.current(CHANNEL)
            con.show_status(Outcome(row, g, [], None, "resume"))
        else:
            if existing is not None:
                await store.set_status(existing.id, "abandoned")
            names = args.names or [f"P{k + 1}" for k in range(args.players)]
            con.say(f"New game: {', '.join(names)}. Images go to {out_dir}/. Type help.")
            await con.report(await con.setup(names, args.difficulty))
        for _ in range(100_000):  # bounded: ends at EOF or quit
            line = await asyncio.to_thread(stdin.readline)
            if not line or not await con.handle(line):
                break
    finally:
        await store.close()
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="bot.py --console", description=__doc__)
    ap.add_argument("--players", type=int, default=1, choices=[1, 2, 3, 4])
    ap.add_argument("--names", nargs="+", help="player names (sets the player count)")
    ap.add_argument("--difficulty", choices=["easy", "normal", "hard"])
    ap.add_argument("--seed", type=int)
    ap.add_argument("--db", default="rr-console.db", help="SQLite file; an unfinished game resumes")
    ap.add_argument("--out", default="console-out", help="folder for table images")
    ap.add_argument("--lang", default="en", choices=["en", "ja"])
    args = ap.parse_args(argv)
    if args.names and not 1 <= len(args.names) <= 4:
        ap.error("1 to 4 names")
    return asyncio.run(main_async(args, sys.stdin, sys.stdout))
