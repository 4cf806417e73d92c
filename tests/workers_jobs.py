"""Jobs for tests/test_workers.py, importable by a spawned worker process."""

from __future__ import annotations

import os
from pathlib import Path


def hang(pid_file: str) -> None:
    """A job that never ends (a search that cannot leave a position), saying where it runs."""
    Path(pid_file).write_text(str(os.getpid()))
    while True:
        pass


def die(pid_file: str) -> None:
    """A job whose process dies under it (killed, out of memory)."""
    Path(pid_file).write_text(str(os.getpid()))
    os._exit(9)


def double(x: int) -> int:
    return 2 * x


def niceness() -> int:
    return os.nice(0)


def die_once(marker: str) -> int:
    """A job whose process dies the first time it runs (killed, out of memory), and that
    finishes when run again."""
    path = Path(marker)
    if not path.exists():
        path.write_text("died")
        os._exit(9)
    return 7
