"""Throwaway PostgreSQL and Redis servers for the tests (Debian's ``postgresql`` and
``redis-server`` packages; ``.ci/run`` installs them).

PostgreSQL refuses to run as root: as root the cluster is made and run by the
``postgres`` user (or ``nobody``) through ``runuser``, in a temporary directory that is
removed afterwards. Where a program is missing the tests that need it fail and say what
to install, unless ``PAOHUZI_SKIP_SERVICES=1`` lets them be skipped (a local run without
the packages; CI never sets it).
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

SKIP_ENV = "PAOHUZI_SKIP_SERVICES"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def missing(what: str, install: str) -> None:
    """Fail (or skip, where ``PAOHUZI_SKIP_SERVICES=1``) a test that needs ``what``."""
    message = (f"{what} is needed by this test and was not found: install it "
               f"({install}), or set {SKIP_ENV}=1 to skip such tests locally")
    if os.environ.get(SKIP_ENV) == "1":
        pytest.skip(message)
    pytest.fail(message, pytrace=False)


def pg_program(name: str) -> str | None:
    """A PostgreSQL server program (Debian keeps them out of PATH)."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
                        key=lambda p: int(Path(p).parts[4]) if Path(p).parts[4].isdigit() else 0)
    return candidates[-1] if candidates else None


def _run_as() -> tuple[list[str], int | None, int | None]:
    """The command prefix, uid and gid that run PostgreSQL (not root)."""
    if os.geteuid() != 0:
        return [], None, None
    for user in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            entry = pwd.getpwnam(user)
            return ["runuser", "-u", user, "--"], entry.pw_uid, entry.pw_gid
    raise RuntimeError("running as root and no 'postgres' or 'nobody' user to run PostgreSQL")


class ThrowawayPostgres:
    """A PostgreSQL cluster in a temporary directory, on a free local port, trust
    authentication, no fsync (the tests kill servers, never the machine)."""

    def __init__(self) -> None:
        initdb, pg_ctl = pg_program("initdb"), pg_program("pg_ctl")
        if initdb is None or pg_ctl is None:
            missing("PostgreSQL (initdb, pg_ctl)", "apt-get install postgresql")
        assert initdb is not None and pg_ctl is not None
        self.pg_ctl = pg_ctl
        self.prefix, uid, gid = _run_as()
        self.root = Path(tempfile.mkdtemp(prefix="paohuzi-pg-"))
        if uid is not None and gid is not None:
            os.chown(self.root, uid, gid)
        self.data = self.root / "data"
        self.port = free_port()
        self._counter = itertools.count(1)
        subprocess.run([*self.prefix, initdb, "-D", str(self.data), "-U", "postgres",
                        "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        options = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                   f"-c fsync=off -c full_page_writes=off -c max_connections=300")
        subprocess.run([*self.prefix, pg_ctl, "-D", str(self.data), "-l",
                        str(self.root / "log"), "-o", options, "-w", "-t", "60", "start"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    @property
    def admin_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def fresh_database(self) -> str:
        """A new, empty database's URL."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._counter)}"
        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        subprocess.run([*self.prefix, self.pg_ctl, "-D", str(self.data), "-m", "immediate",
                        "stop"], check=False, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        shutil.rmtree(self.root, ignore_errors=True)


class ThrowawayRedis:
    """A redis-server on a free local port, nothing saved to disk."""

    def __init__(self) -> None:
        program = shutil.which("redis-server")
        if program is None:
            missing("Redis (redis-server)", "apt-get install redis-server")
        assert program is not None
        self.port = free_port()
        self.proc = subprocess.Popen(
            [program, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--protected-mode", "no"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(
                    ("127.0.0.1", self.port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("redis-server did not start")

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
