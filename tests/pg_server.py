"""A real PostgreSQL server for the tests: initdb into a temporary folder, started on a free
loopback port, shared by the whole test session and stopped at its end.

Why a real server and not a mock: the guarantees under test (row locks, version-guarded
UPDATEs racing, advisory locks, COMMIT semantics) are the server's. Where no server can be
found or started, `start()` returns the reason and the PostgreSQL tests skip with it (and
the summary says so loudly, see conftest.py).

initdb refuses to run as root: as root the server runs as the `postgres` system user that
Debian's package creates. `fsync=off` only here, for speed: the tests kill processes, never
the machine, and a process crash loses nothing that was committed either way. For the same
reason the throwaway server lives in memory (/dev/shm, where there is one) and is stopped
without a shutdown checkpoint: every test makes a schema of its own, and writing out and
then deleting those tens of thousands of files on disk took 7–8 s at the end of every test
session (issue 21). `durable` servers (bench/store.py's fsync comparison) stay on disk.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass

USER = "rr"


def _bindir() -> str | None:
    found = shutil.which("pg_ctl")
    if found:
        return os.path.dirname(found)
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                  key=lambda d: int(d.split("/")[-2]) if d.split("/")[-2].isdigit() else 0)
    return dirs[-1] if dirs else None


MEMORY_FREE_MIN = 1 << 30  # a container's /dev/shm can be 64 MB: then the disk it is


def _memory_dir() -> str | None:
    """A tmpfs folder for a throwaway data directory, or None (the system's temp folder)."""
    shm = "/dev/shm"
    if not (os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK)):
        return None
    free = os.statvfs(shm)
    return shm if free.f_bavail * free.f_frsize >= MEMORY_FREE_MIN else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class PgServer:
    bindir: str
    datadir: str
    port: int
    prefix: list[str]
    durable: bool = False

    @property
    def url(self) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/postgres"

    def url_for(self, schema: str) -> str:
        """A URL whose connections work in `schema` only: every test its own tables."""
        return f"{self.url}?search_path={schema}"

    def stop(self) -> None:
        """Stop the server and delete its data. A throwaway server stops at once ("immediate":
        no shutdown checkpoint, nothing of it is kept); a durable one shuts down cleanly."""
        mode = "fast" if self.durable else "immediate"
        subprocess.run([*self.prefix, f"{self.bindir}/pg_ctl", "-D", self.datadir, "-m", mode,
                        "-w", "-t", "30", "stop"], capture_output=True, timeout=60, check=False)
        shutil.rmtree(os.path.dirname(self.datadir), ignore_errors=True)


def start(durable: bool = False) -> PgServer | str:
    """A running server, or why there is none. `durable`: fsync on, as in production
    (bench/store.py compares it with SQLite's synchronous=FULL)."""
    if os.environ.get("RR_TEST_NO_PG"):
        return "RR_TEST_NO_PG is set"
    bindir = _bindir()
    if bindir is None or not os.path.exists(f"{bindir}/initdb"):
        return "no PostgreSQL server found (pg_ctl, /usr/lib/postgresql/*/bin); " \
               "install it: apt-get install -y postgresql"
    prefix: list[str] = []
    top = tempfile.mkdtemp(prefix="rr-pg-", dir=None if durable else _memory_dir())
    datadir = os.path.join(top, "data")
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            return "running as root without runuser: initdb cannot run"
        try:
            import pwd

            pw = pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no 'postgres' user for initdb"
        os.chown(top, pw.pw_uid, pw.pw_gid)
        prefix = ["runuser", "-u", "postgres", "--"]
    port = _free_port()
    try:
        subprocess.run([*prefix, f"{bindir}/initdb", "-D", datadir, "-U", USER, "-A", "trust",
                        "-E", "UTF8", "--no-sync", "--no-instructions"],
                       capture_output=True, text=True, timeout=120, check=True)
        opts = (f"-c listen_addresses=127.0.0.1 -p {port} -k {top} -c max_connections=200"
                + ("" if durable else " -c fsync=off -c full_page_writes=off"))
        subprocess.run([*prefix, f"{bindir}/pg_ctl", "-D", datadir, "-o", opts, "-l",
                        os.path.join(top, "log"), "-w", "-t", "60", "start"],
                       capture_output=True, text=True, timeout=90, check=True)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as e:
        detail = getattr(e, "stderr", "") or str(e)
        shutil.rmtree(top, ignore_errors=True)
        return f"PostgreSQL could not be started: {str(detail).strip()[:300]}"
    return PgServer(bindir, datadir, port, prefix, durable)
