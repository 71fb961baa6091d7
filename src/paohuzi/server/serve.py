"""``paohuzi serve``: uvicorn serving the app, SQLite in the user's data folder."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

__all__ = ["GC_THRESHOLDS", "default_database", "main", "tune_gc"]

GC_THRESHOLDS = (50_000, 20, 100)
"""The collector's thresholds in the server process (Python's default: 700, 10, 10).
Building what each seat is shown allocates many short-lived objects; with the default,
collections of the older generations, which walk every live object of every room, ran
every few seconds under load and paused the event loop up to 140 ms (the p99 of action
latency at 200 tables went from 33 ms to 6 ms with these, ``benchmarks/server.py``)."""


def default_database() -> Path:
    """``$XDG_DATA_HOME/paohuzi/paohuzi.db`` (``~/.local/share`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "paohuzi" / "paohuzi.db"


def tune_gc() -> None:
    """Set :data:`GC_THRESHOLDS` and move everything alive now (modules, the app) out of
    the collector's sight (``gc.freeze``): call once the app is built."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def main(host: str, port: int, database: Path | None) -> int:
    try:
        import uvicorn

        from paohuzi.server.app import create_app
        from paohuzi.server.transport import uvicorn_config
    except ImportError as exc:
        sys.stderr.write(f"paohuzi serve needs the server extra: pip install 'paohuzi[server]' "
                         f"({exc.name} is missing)\n")
        return 2
    from paohuzi.server.dblock import DatabaseInUseError

    path = database or default_database()
    try:
        app = create_app(database=path)
    except DatabaseInUseError as exc:
        sys.stderr.write(f"paohuzi serve: {exc}\n")
        return 1
    tune_gc()
    print(f"paohuzi: serving on http://{host}:{port}/  (database {path})", flush=True)
    uvicorn.Server(uvicorn_config(app, host, port, log_level="warning")).run()
    return 0
