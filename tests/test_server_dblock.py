"""One server per database (issue 10 finding 9): a second ``paohuzi serve`` on the same
file refuses to start; the lock of a process killed with ``kill -9`` blocks nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from server_util import free_port, wait_until_serving

pytest.importorskip("starlette")

from paohuzi.server.dblock import DatabaseInUseError
from paohuzi.server.storage import SQLiteStorage


def _serve(database: str, port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "paohuzi", "serve", "--port", str(port),
                             "--database", database],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait_up(port: int) -> None:
    wait_until_serving(f"http://127.0.0.1:{port}")


def test_a_second_server_on_one_database_refuses_and_kill9_frees_it(tmp_path):
    database = str(tmp_path / "one.db")
    first_port, port = free_port(), free_port()
    first = _serve(database, first_port)
    procs = [first]
    try:
        _wait_up(first_port)
        second = _serve(database, port)
        procs.append(second)
        _, err = second.communicate(timeout=20)
        assert second.returncode == 1
        assert f"database {database} is already used by another paohuzi server " \
               f"(pid {first.pid})" in err.decode()
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        third = _serve(database, port)
        procs.append(third)
        _wait_up(port)
        assert third.poll() is None
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
                proc.wait(timeout=10)


def test_the_lock_is_per_database_and_released_on_close(tmp_path):
    one = SQLiteStorage(tmp_path / "a.db")
    try:
        with pytest.raises(DatabaseInUseError, match="already used"):
            SQLiteStorage(tmp_path / "a.db")
        SQLiteStorage(tmp_path / "b.db").close()  # another file: no conflict
    finally:
        one.close()
    SQLiteStorage(tmp_path / "a.db").close()  # free again once closed
