"""Issue 20, the console as a process: Ctrl-C twice, line editing at a real terminal, the
language a game keeps, a database password never shown, and Japanese with no English
outside names and notation.

A real `bot.py --console` process each time: over pipes (`console` from test_console.py),
or inside tmux for a real terminal (readline only edits a terminal's lines). Each test
names the issue 20 point it checks.
"""

from __future__ import annotations

import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

import pytest

import i18n
from console.options import fold
from tests.test_console import ROOT, console

# ---- Ctrl-C twice ------------------------------------------------------------------------------


def _ctrl_c_twice(tmp: Path, gap: float) -> tuple[int, str, str]:
    """Start the console on a pipe, wait for its first question, press Ctrl-C twice `gap`
    seconds apart; (exit status, stdout, stderr). Bounded by timeouts."""
    proc = subprocess.Popen([sys.executable, str(ROOT / "bot.py"), "--console", "--db",
                             str(tmp / "c.db"), "--out", str(tmp / "out")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp)
    assert proc.stdout is not None and proc.stderr is not None and proc.stdin is not None
    try:
        seen = ""
        for _ in range(200):  # the console is reading once it has asked
            line = proc.stdout.readline()
            seen += line
            if not line or line.startswith("> P1"):
                break
        proc.send_signal(signal.SIGINT)
        time.sleep(gap)
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        return proc.returncode, seen + proc.stdout.read(), proc.stderr.read()
    finally:
        proc.stdin.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()


@pytest.mark.parametrize("gap", [0.0, 0.01, 0.02, 0.04, 0.06, 0.08])
@pytest.mark.process
def test_a_second_ctrl_c_soon_after_the_first_exits_cleanly(tmp_path: Path, gap: float) -> None:
    """Issue 20: a second Ctrl-C 10–80 ms after the first, stdin a pipe, killed the process
    by the signal or printed "RuntimeError: Event loop is closed". It now ends as one
    Ctrl-C does: status 130, the goodbye line, nothing on stderr."""
    status, out, err = _ctrl_c_twice(tmp_path, gap)
    assert status == 130, (status, err)
    assert err == "", err
    assert out.rstrip().splitlines()[-1].startswith("Interrupted. Saved in ")
    again = console(tmp_path, lines=[])
    assert "Resuming the unfinished game" in again.stdout  # the game was kept


# ---- the language a game keeps ----------------------------------------------------------------


@pytest.mark.process
def test_a_japanese_game_resumes_in_japanese_without_lang(tmp_path: Path) -> None:
    """Issue 20: resuming without --lang switched a Japanese game to English; the game keeps
    its language (an explicit --lang still chooses)."""
    console(tmp_path, "--lang", "ja", lines=["place thief 2B"])
    out = console(tmp_path, lines=["状況"]).stdout
    assert "の途中のゲームを再開します" in out and "Resuming" not in out
    assert out.rstrip().splitlines()[-1].startswith("入力が終わりました。")
    english = console(tmp_path, "--lang", "en", lines=[]).stdout
    assert "Resuming the unfinished game" in english


@pytest.mark.process
def test_lang_has_help_text(tmp_path: Path) -> None:
    """Issue 20: `--lang` had no help text."""
    r = subprocess.run([sys.executable, str(ROOT / "bot.py"), "--console", "--help"],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0
    lang = r.stdout[r.stdout.index("--lang {en,ja}", r.stdout.index("options")):]
    assert "ja (Japanese)" in " ".join(lang.split()[:30]), lang[:300]
    # --players counts the people; --ai seats AI players beside them (the console audit:
    # `--players 1 --ai expert` made two seats, which "number of players" did not say)
    assert "number of people at the keyboard" in " ".join(r.stdout.split())


# ---- a database password is never shown -------------------------------------------------------


def _refused_port() -> int:
    """A loopback port nothing listens on (connecting is refused at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.process
def test_a_refused_database_is_named_so_without_its_password(tmp_path: Path) -> None:
    """Issue 20: the password of a postgresql:// URL was printed back in errors, and a
    refused connection was called "the game file"."""
    url = f"postgresql://rr:s3cr%40t-pw@127.0.0.1:{_refused_port()}/rookraiders"
    r = subprocess.run([sys.executable, str(ROOT / "bot.py"), "--console", "--db", url,
                        "--out", str(tmp_path / "out")], input="", capture_output=True,
                       text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1, r.stderr
    assert "s3cr" not in r.stderr and "t-pw" not in r.stderr
    assert "cannot open the database postgresql://rr:***@127.0.0.1:" in r.stderr
    assert "game file" not in r.stderr


@pytest.mark.process
def test_saved_in_never_shows_the_password(tmp_path: Path, pg_url: str) -> None:
    """Issue 20: "Saved in …" and "Run the console again with --db …" printed the URL's
    password (the test server trusts loopback, so any password is accepted)."""
    url = pg_url.replace("postgresql://rr@", "postgresql://rr:s3cret-pw@")
    r = console(tmp_path, db="unused.db", lines=["quit"])  # (a file game, for contrast)
    assert "Saved in" in r.stdout
    r = subprocess.run([sys.executable, str(ROOT / "bot.py"), "--console", "--db", url,
                        "--out", str(tmp_path / "out")], input="place thief 2B\nquit\n",
                       capture_output=True, text=True, timeout=90, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    last = r.stdout.rstrip().splitlines()[-1]
    assert last.startswith("Saved in postgresql://rr:***@127.0.0.1:"), last
    assert "with --db postgresql://rr:***@" in last
    assert "s3cret-pw" not in r.stdout + r.stderr
    again = subprocess.run([sys.executable, str(ROOT / "bot.py"), "--console", "--db", url,
                            "--out", str(tmp_path / "out")], input="", capture_output=True,
                           text=True, timeout=90, cwd=tmp_path)
    assert "Resuming the unfinished game in postgresql://rr:***@" in again.stdout
    assert "s3cret-pw" not in again.stdout + again.stderr


# ---- Japanese: no English outside names and notation ------------------------------------------


@pytest.mark.process
def test_japanese_usage_lines_lengths_and_difficulty(tmp_path: Path) -> None:
    """Issue 20 (Japanese section): usage lines ("使い方: 'pick CARD'"), the difficulty
    name and "(62 characters)" were English in `--lang ja` output."""
    out = console(tmp_path, "--lang", "ja", "--difficulty", "hard", "--seed", "3", lines=[
        "act", "place", "pick", "🙂" * 30, "P1: " + "🙂" * 100, "legal act",
        "place thief 2B", "undo"]).stdout
    assert out.startswith("新しいゲーム: P1（ソロ、難易度むずかしい）")
    assert "使い方:「行動 マス [全力移動] [→ マス] [攻撃|範囲攻撃|回復|指揮 …]」。" in out
    assert "使い方:「配置 カード マス」（例:「配置 シーフ 2B」）。" in out
    assert "使い方:「選択 カード」（例:「選択 進撃」）。" in out
    assert "（30文字）" in out and "（100文字）" in out
    assert "今は「act」で始まる行動はありません。P1ができること:" in out
    assert "! P1: 「配置 シーフ★ 2B」は取り消せません。ゲームがもう先へ進みました。" in out
    for english in ("characters", "CARD", "SQUARE", "hard)", "advance"):
        assert english not in out, english


@pytest.mark.parametrize(("args", "words"), [
    (["--bogus"], "認識できない引数です: --bogus"),
    (["--names"], "引数 --names: 値を1つ以上指定してください"),
    (["--ai", "clever"], "引数 --ai: 'clever' は選べません（選択肢: 'random', 'greedy', 'expert'）"),
    (["--players", "Ann"], "--players は人数（1〜4）です（'Ann' は使えません）"),
    (["--players", "5"], "ゲームは1〜4人です（R1）"),
    (["--seed", "x"], "--seed は整数です（'x' は使えません）"),
])
@pytest.mark.process
def test_japanese_command_line_errors(tmp_path: Path, args: list[str], words: str) -> None:
    """Issue 20 (Japanese section): command-line errors were argparse's own English words;
    argparse is asked for its messages in Japanese (options.py `argparse_speaks`)."""
    r = console(tmp_path, "--lang", "ja", *args)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and words in r.stderr, r.stderr
    for english in ("argument", "expected", "invalid", "unrecognized", "a count", "not "):
        assert english not in r.stderr, english


@pytest.mark.process
def test_japanese_help(tmp_path: Path) -> None:
    """`--lang ja --help`: argparse's headings and every option's help in Japanese."""
    r = subprocess.run([sys.executable, str(ROOT / "bot.py"), "--console", "--lang", "ja",
                        "--help"], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0
    assert r.stdout.startswith("使い方: bot.py --console [-h] [--players 人数]")
    assert "オプション:" in r.stdout and "このヘルプを表示して終了する" in r.stdout
    joined = re.sub(r"\n\s+", "", r.stdout)  # (folded by columns: lines end mid-sentence)
    assert "再開したゲームは、指定しなければそのゲームの言語のままです" in joined
    for english in ("usage:", "options:", "show this help", "number of players", "NAME"):
        assert english not in r.stdout, english


@pytest.mark.process
def test_japanese_new_command_errors(tmp_path: Path) -> None:
    """The `new` command's options are refused in Japanese too."""
    out = console(tmp_path, "--lang", "ja", lines=["new --names", "new --bogus"]).stdout
    assert "引数 --names: 値を1つ以上指定してください" in out
    assert "認識できない引数です: --bogus。newに付けられるのは --names" in out
    assert "expected" not in out and "unrecognized" not in out
    assert "起動オプション" not in out  # typed in the game, not given at start-up


@pytest.mark.process
def test_a_new_command_option_mistake_says_what_new_takes(tmp_path: Path) -> None:
    out = console(tmp_path, lines=["new --tutorial"]).stdout
    assert "! unrecognized arguments: --tutorial. new takes --names, --players, --difficulty, " \
           "--ai and --seed" in out


# ---- line editing and history at a terminal ---------------------------------------------------


class Tmux:
    """The console in a real terminal (tmux), typed into key by key; bounded waits."""

    def __init__(self, tmp: Path, name: str) -> None:
        self.name = f"rr-console-{name}-{int(time.time() * 1000) % 10**8}"
        self.tmp = tmp

    def start(self, *args: str) -> None:
        cmd = " ".join([sys.executable, str(ROOT / "bot.py"), "--console", "--db",
                        str(self.tmp / "c.db"), "--out", str(self.tmp / "out"), *args])
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", "200", "-y", "50",
                        f"{cmd}; echo EXIT=$?; sleep 60"], check=True, timeout=30)
        self.wait_for("> P1")

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True, timeout=30)

    def screen(self) -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-S", "-2000", "-t", self.name],
                              capture_output=True, text=True, timeout=30).stdout

    def wait_for(self, text: str, count: int = 1) -> str:
        for _ in range(300):
            screen = self.screen()
            if screen.count(text) >= count:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} ×{count} never shown:\n{self.screen()[-2000:]}")

    def stop(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True,
                       timeout=30)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.process
def test_line_editing_and_history_per_game_at_a_terminal(tmp_path: Path) -> None:
    """Issue 20: at a terminal ↑/← were refused as control characters. With readline, ←
    moves in the line, ↑ brings back an earlier line, and each game keeps its history: a
    resumed game remembers its lines, a new game starts with none."""
    first = Tmux(tmp_path, "a")
    try:
        first.start("--seed", "3")
        first.keys("lgal", "Left", "Left", "Left", "e", "Enter")  # `lgal` mended to `legal`
        first.wait_for("P1 may:")
        first.keys("Up", "Enter")  # the same line again
        screen = first.wait_for("P1 may:", 2)
        assert "control characters" not in screen
        first.keys("C-d")
        first.wait_for("EXIT=0")
    finally:
        first.stop()
    again = Tmux(tmp_path, "b")
    try:
        again.start()
        again.wait_for("Resuming the unfinished game")
        again.keys("Up", "Enter")  # the last line of this game, from the run before
        again.wait_for("P1 may:")
        again.keys("new --names Cy", "Enter", "new --names Cy", "Enter")
        again.wait_for("> Cy:")
        again.keys("Up", "Enter")  # a new game: no earlier line, so an empty one
        screen = again.wait_for("> Cy:", 2)
        assert "Cy may:" not in screen and "control characters" not in screen
        again.keys("C-c")
        screen = again.wait_for("EXIT=130")
        assert "Interrupted. Saved in" in screen
    finally:
        again.stop()


def test_a_second_ctrl_c_stops_an_answer_that_hangs(tmp_path: Path, capsys,
                                                    monkeypatch) -> None:
    """The first Ctrl-C lets the answer being given finish (a move is never cut in half);
    when that answer hangs, a second one stops it: the goodbye is said, status 130, and the
    game is as it was before the line (nothing half-applied)."""
    import asyncio
    import json
    import os

    from console.run import run
    from service.play import Play
    from store import Store

    async def hang(self: Play, *args: object, **kwargs: object) -> None:
        loop = asyncio.get_running_loop()
        loop.call_later(0.1, os.kill, os.getpid(), signal.SIGINT)
        loop.call_later(0.4, os.kill, os.getpid(), signal.SIGINT)
        await asyncio.sleep(3600)

    monkeypatch.setattr(Play, "act", hang)
    read, write = os.pipe()
    os.write(write, b"place thief 2B\n")  # stdin stays open: no end of input comes
    saved = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)]
    try:
        status = asyncio.run(asyncio.wait_for(run(
            ["--db", str(tmp_path / "c.db"), "--out", str(tmp_path / "out"), "--seed", "3"],
            fd=read), 30))
    finally:
        signal.signal(signal.SIGINT, saved[0])
        signal.signal(signal.SIGTERM, saved[1])
        os.close(write)
    out = capsys.readouterr().out
    assert status == 130
    assert out.rstrip().splitlines()[-1].startswith("Interrupted. Saved in ")

    async def stored() -> list[object]:
        store = await Store(str(tmp_path / "c.db")).open()
        try:
            row = await store.open_game(1)
            assert row is not None
            return list(json.loads(row.state)["log"])
        finally:
            await store.close()
    assert asyncio.run(stored()) == []  # the placement never landed


def test_japanese_help_is_folded_between_words_and_by_columns() -> None:
    """The Japanese audit: `--help` broke "nightmare" as "nightma" / "re" (argparse wraps
    by characters at spaces, and Japanese has none). Lines break between Japanese characters
    or at spaces, never inside a Latin word, and fit the width in columns (a CJK character
    takes two)."""
    text = i18n.t("ja", "console.opt.difficulty", levels="easy・normal・hard・nightmare")
    for width in range(20, 90, 7):
        lines = fold(text, width)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")
        assert all(sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
                   <= width for line in lines)
        words = set(re.findall(r"[A-Za-z]+", text))
        assert words <= {w for line in lines for w in re.findall(r"[A-Za-z]+", line)}
