"""One server per database: an OS lock on ``<database>.lock``, held while serving.

The kernel drops the lock when its process dies (even by ``kill -9``), so a stale
lock never blocks a restart; a second server on the same file is refused at once.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import IO

from paohuzi.core.errors import PaohuziError

__all__ = ["DatabaseInUseError", "DatabaseLock"]


class DatabaseInUseError(PaohuziError):
    """Another process serves this database."""


class DatabaseLock:
    """An exclusive, non-blocking lock on ``<database>.lock``; :meth:`release` to drop it."""

    def __init__(self, database: str | Path) -> None:
        self.path = Path(f"{database}.lock")
        self._file: IO[str] | None = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115
        try:
            _lock(self._file)
        except OSError:
            self._file.seek(0)
            holder = self._file.read().strip() or "unknown"
            self._file.close()
            self._file = None
            raise DatabaseInUseError(
                f"database {database} is already used by another paohuzi server "
                f"(pid {holder}); stop it or choose another --database") from None
        self._file.seek(0)
        self._file.truncate()
        self._file.write(str(os.getpid()))
        self._file.flush()

    def release(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.seek(0)
                self._file.truncate()
            self._file.close()  # closing the file drops the lock
            self._file = None


def _lock(file: IO[str]) -> None:
    if sys.platform == "win32":  # pragma: no cover
        import msvcrt

        file.seek(0)
        msvcrt.locking(file.fileno(), msvcrt.LK_NBLCK, 1)
    else:
        import fcntl

        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
