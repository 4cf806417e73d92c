"""The console process: options, the input stream, Ctrl-C, and the one-line goodbyes.

Input from a pipe or file is read from file descriptor 0 by a daemon thread with `os.read`
(no Python-level lock a stuck reader could hold at exit); a terminal gets line editing and
per-game history from `readline` (`TerminalLines`). Either way Ctrl-C stops the console at once instead of
waiting for a line that never comes; the line being answered, if any, finishes first, so
a move is never cut in half (every move is committed to --db as it is made). Bytes that are
not UTF-8 become U+FFFD, and a line is never held in memory beyond `MAX_BYTES`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import logging
import os
import signal
import sys
import termios
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import i18n
from service import Quarantined, ServiceError
from service.refusals import line as refusal_line
from store import GameRow, GameStore, StoreUnavailable, is_postgres, make_store

from .app import Console
from .options import Table, UsageError, given, lang_word, parse_command_line
from .seats import CHANNEL
from .text import hide_password, plain, shown_db, t, tidy_message

MAX_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class Line:
    text: str
    truncated: bool = False  # the line went on beyond MAX_BYTES (the rest was dropped)


class Lines:
    """Lines from a file descriptor, handed to the event loop; Ctrl-C jumps the queue."""

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int) -> None:
        self.loop = loop
        self.fd = fd
        self.items: deque[Line | None] = deque()  # None: end of input
        self.ready = asyncio.Event()
        self.interrupted = False
        self.presses = 0  # Ctrl-C (or SIGTERM) received so far
        self.answering: asyncio.Future[bool] | None = None  # the line being answered

    def start(self) -> None:
        threading.Thread(target=self._pump, name="console-stdin", daemon=True).start()

    def _push(self, item: Line | None) -> None:
        self.items.append(item)
        self.ready.set()

    def interrupt(self) -> None:
        """Ctrl-C: stop after the line being answered; a second one while that answer is
        stuck stops the answer too (its transaction is rolled back, the game stays as it
        was). Any later one, or one during the goodbye, changes nothing."""
        self.presses += 1
        self.interrupted = True
        self.ready.set()
        if self.presses > 1 and self.answering is not None:
            self.answering.cancel()

    def _pump(self) -> None:
        buf = b""
        dropping = False
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                if buf and not dropping:
                    self._send(buf, False)
                self._hand_over(None)
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if not dropping:
                    self._send(line, False)
                dropping = False
            if len(buf) > MAX_BYTES:  # tell the start of it, drop the rest
                if not dropping:
                    self._send(buf[:MAX_BYTES], True)
                    dropping = True
                buf = b""

    def _send(self, data: bytes, truncated: bool) -> None:
        text = data.decode("utf-8", errors="replace")
        self._hand_over(Line(text, truncated))

    def _hand_over(self, item: Line | None) -> None:
        """Give the loop a line; once the console has stopped (its loop closed) there is
        nobody to give it to, and the line is dropped without a word."""
        with contextlib.suppress(RuntimeError):  # "Event loop is closed"
            self.loop.call_soon_threadsafe(self._push, item)

    async def next(self) -> Line | None | bool:
        """The next line, None at end of input, False when interrupted."""
        while True:
            if self.interrupted:
                return False
            if self.items:
                return self.items.popleft()
            self.want()
            self.ready.clear()
            await self.ready.wait()

    def want(self) -> None:
        """A line is wanted now (a pipe is read ahead: nothing to do)."""

    def use_history(self, path: Path) -> None:
        """Earlier lines of the game now played are kept in `path` (a pipe keeps none)."""

    def close(self) -> None:
        """The console stops reading."""

    def cut(self) -> str:
        """What ends a line being typed when Ctrl-C comes (a pipe has none)."""
        return ""


class TerminalLines(Lines):
    """A terminal's lines, read with the standard library's `readline`: ←/→ edit the line,
    ↑/↓ bring back earlier ones, and each game keeps its own history (`use_history`), so a
    resumed game remembers what was typed in it.

    `input()` runs in a daemon thread one line at a time, only when the console wants one:
    the history is switched or saved only while that thread waits, never while readline
    works on it (readline is not thread-safe). readline reads with C stdio, so no Python
    lock is held by a reader left waiting at exit; the terminal's modes are put back then."""

    def __init__(self, loop: asyncio.AbstractEventLoop, fd: int, rl: ModuleType) -> None:
        super().__init__(loop, fd)
        self.rl = rl
        self.asked = threading.Semaphore(0)
        self.waiting = False  # the thread is reading a line
        self.history: Path | None = None
        self.modes = termios.tcgetattr(fd)

    def start(self) -> None:
        threading.Thread(target=self._ask, name="console-readline", daemon=True).start()

    def want(self) -> None:
        if not self.waiting:
            self.waiting = True
            self.asked.release()

    def _push(self, item: Line | None) -> None:
        self.waiting = False
        if item is not None and item.text.strip() and self.history is not None:
            with contextlib.suppress(OSError):  # history is a convenience: never an error
                self.history.touch()  # (readline appends only to a file that exists)
                self.rl.append_history_file(1, str(self.history))
        super()._push(item)

    def _ask(self) -> None:
        while True:
            self.asked.acquire()
            try:
                text = input()
            except EOFError:
                self._hand_over(None)
                return
            except UnicodeDecodeError:
                text = "\ufffd"
            self._hand_over(Line(text[:MAX_BYTES], len(text) > MAX_BYTES))

    def use_history(self, path: Path) -> None:
        if path == self.history:
            return
        self.rl.clear_history()
        with contextlib.suppress(OSError):  # a first game has none yet
            self.rl.read_history_file(str(path))
        self.history = path

    def cut(self) -> str:
        return "\n" if self.waiting else ""

    def close(self) -> None:
        with contextlib.suppress(termios.error):  # readline may have left it raw
            termios.tcsetattr(self.fd, termios.TCSADRAIN, self.modes)


def lines_from(loop: asyncio.AbstractEventLoop, fd: int) -> Lines:
    """Line editing for a person at a terminal (stdin and stdout both one, as `input` needs
    for readline); a pipe or file is read as bytes."""
    if not (fd == 0 and os.isatty(0) and os.isatty(1)):
        return Lines(loop, fd)
    try:
        import readline
    except ImportError:  # (Python built without it: plain lines still work)
        return Lines(loop, fd)
    return TerminalLines(loop, fd, readline)


def history_file(out_dir: Path, db: str, game_id: int) -> Path:
    """Where one game's typed lines are kept: beside its images, named after the database
    and the game (two databases never share a history)."""
    where = hashlib.sha256(db.encode()).hexdigest()[:8]
    return out_dir / f"history-{where}-{game_id}.txt"


async def run(argv: list[str], fd: int = 0) -> int:
    ns, table = parse_command_line(argv, _lang(argv))
    loop = asyncio.get_running_loop()
    lines = lines_from(loop, fd)

    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, lines.interrupt)
        loop.add_signal_handler(signal.SIGTERM, lines.interrupt)
    try:
        return await _console(ns, table, lines)
    finally:
        lines.close()
        # From here the process only exits: a Ctrl-C now must neither raise inside the
        # loop's shutdown nor kill the process by the signal (the goodbye is said).
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)
                signal.signal(sig, signal.SIG_IGN)


def _out_dir(ns: argparse.Namespace) -> Path:
    """The folder for images and the log (created); the log goes there, not to the screen."""
    out_dir = Path(ns.out)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError.of("out_dir", out=ns.out, error=e.strerror) from None
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s",
                        handlers=[logging.FileHandler(out_dir / "console.log", delay=True,
                                                      encoding="utf-8")])
    return out_dir


async def _open_store(ns: argparse.Namespace) -> GameStore:
    """The store `--db` names, open; one that cannot be opened is a usage error naming it
    (a PostgreSQL URL without its password)."""
    if not is_postgres(ns.db):  # a postgresql:// URL plays on that database (RR_DB's choice)
        where = Path(ns.db).resolve().parent
        if not where.is_dir() or Path(ns.db).is_dir():  # (aiosqlite would leave its thread behind)
            raise UsageError.of("db_folder", db=ns.db)
    store = make_store(ns.db)
    shown = shown_db(ns.db)  # a postgresql:// URL without its password
    try:
        await store.open()
    except Exception as e:
        await store.close()  # its connection thread would keep the process alive
        if is_postgres(ns.db):  # refused, unknown database, bad URL…: a database, not a file
            raise UsageError.of("database_open", db=shown,
                                error=hide_password(str(e) or type(e).__name__, ns.db)) from None
        if not isinstance(e, StoreUnavailable):
            raise
        raise UsageError.of("db_open", db=ns.db, error=e) from None
    return store


async def _console(ns: argparse.Namespace, table: Table, lines: Lines) -> int:
    out_dir = _out_dir(ns)
    store = await _open_store(ns)
    shown = shown_db(ns.db)  # a postgresql:// URL without its password
    try:
        existing, ended = await _games_kept(store, shown)
        resuming = existing is not None and existing.status == "active" and not ns.new
        lang = ns.lang or "en"
        if (kept := existing if resuming else ended) is not None:
            # a game keeps its own language, and the next game of its players too
            lang = ns.lang or kept.settings.get("lang") or "en"
        con = Console(store, out_dir, lang, sys.stdout, shown, table)
        if (last := existing or ended) is not None:
            # `board off` is kept like the language: for the game resumed, the tutorial's
            # way back to it, and the next game (`--new`, or after the last one ended)
            con.auto_board = last.settings.get("boards") is not False
        await con.settle_left()  # a game that ended as the last run was killed: kept now
        if ns.tutorial:  # the lessons first; a game waits (issue 23)
            if given(ns):  # kept for the game after it, not dropped without a word
                con.say(con.t("tutorial_first", opts=" ".join(given(ns))))
            await con.tutorial()
        elif existing is not None and resuming:
            try:
                await con.resume(existing, given(ns))
            except ServiceError as e:  # (not only wording: a damaged game ends the console)
                newer = isinstance(e, Quarantined) and e.reason.get("kind") == "newer"
                con.say(t("newer_db" if newer else "damaged", lang,
                          msg=tidy_message(plain(refusal_line(e, lang), lang))))
                return 1
        else:
            await _begin(con, table, ended, shown)
        lines.start()
        return await _answer_lines(con, lines, out_dir, shown, lang)
    finally:
        await store.close()


async def _games_kept(store: GameStore, shown: str) -> tuple[GameRow | None, GameRow | None]:
    """The file's open game, else its last one if it ended: the first reads of the file,
    where a damaged page or a file that cannot be locked is found (one line, exit 2)."""
    try:
        existing = await store.open_game(CHANNEL)
        ended = await store.latest_game(CHANNEL) if existing is None else None
    except (*store.faults, *store.damaged) as e:
        raise UsageError.of("db_open", db=shown, error=str(e) or type(e).__name__) from None
    return existing, ended if ended is not None and ended.status == "over" else None


async def _begin(con: Console, table: Table, ended: GameRow | None, shown: str) -> None:
    """A new game: the first write, where a file that may only be read is found."""
    if ended is not None:
        # said, not silent: the finished game is still there to review (the audit)
        con.say(con.t("last_ended", game=ended.id))
    try:
        await con.start(table)
    except (*con.store.faults, *con.store.damaged) as e:
        raise UsageError.of("db_write", db=shown, error=str(e) or type(e).__name__) from None
    con.show_status((await con.service.tables.current(CHANNEL))[1])


async def _answer_lines(con: Console, lines: Lines, out_dir: Path, shown: str,
                        lang: str) -> int:
    """Each line typed answered in turn, until the end of input (0), `quit` (0) or Ctrl-C
    (130: an answer under way is stopped, the goodbye still said; every move is saved)."""
    for _ in range(10_000_000):  # bounded: ends at end of input, quit or Ctrl-C
        if con.row is not None:
            lines.use_history(history_file(out_dir, shown, con.row.id))
        line = await lines.next()
        if line is False:
            await con.farewell(lines.cut() + t("interrupted", lang))
            return 130
        if line is None:
            await con.farewell(t("eof", lang))
            return 0
        assert isinstance(line, Line)
        answer = lines.answering = asyncio.ensure_future(con.handle(line.text, line.truncated))
        try:
            go_on = await answer
        except asyncio.CancelledError:
            me = asyncio.current_task()
            if not answer.cancelled() or (me is not None and me.cancelling()):
                raise  # (the console itself is being cancelled, not the answer)
            try:  # the store may still be busy with the stopped answer: bounded, and
                await asyncio.wait_for(con.farewell(t("interrupted", lang)), 10)
            except Exception:  # then at least the goodbye (every move is saved)
                con.say(t("interrupted", lang).strip())
            return 130
        finally:
            lines.answering = None
        if not go_on:
            return 0
    return 0


def _lang(argv: list[str]) -> str:
    """The language asked for, before the options are fully understood (for their errors)."""
    for k, a in enumerate(argv):
        asked = a.partition("=")[2] if a.startswith("--lang=") else \
            argv[k + 1] if a == "--lang" and k + 1 < len(argv) else None
        if asked is not None and (asked := lang_word(asked)) in i18n.CATALOGUES:
            return asked
    return i18n.DEFAULT


def main(argv: list[str]) -> int:
    """`bot.py --console …`: exit 0 (quit, end of input), 2 (a usage error, one line on
    stderr), 130 (Ctrl-C); never a traceback on the terminal."""
    lang = _lang(argv)
    for stream in (sys.stdout, sys.stderr, sys.stdin):  # a terminal without ★ or kana gets '?'
        # (and bytes typed that are not UTF-8 become U+FFFD), not a crash
        with contextlib.suppress(AttributeError, ValueError):
            stream.reconfigure(errors="replace")  # type: ignore[union-attr]
    try:
        return asyncio.run(run(argv))
    except UsageError as e:  # (not only wording: before the console exists; exit 2)
        see = t("see_help", lang)
        print(f"bot.py --console: {e.text(lang)}{see}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # before the console could take Ctrl-C over, or a second one
        print(t("interrupted", lang).strip(), file=sys.stderr)
        return 130
    except BrokenPipeError:  # the output was closed (`| head`): nobody is left to tell
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
