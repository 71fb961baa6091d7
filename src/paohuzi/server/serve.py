"""``paohuzi serve``: uvicorn serving the app, SQLite in the user's data folder by default,
or PostgreSQL (``--database postgresql://…``)."""

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


def main(host: str, port: int, database: str | Path | None, redis: str | None = None,
         advertise: str | None = None) -> int:
    try:
        import uvicorn

        from paohuzi.server.app import create_app
        from paohuzi.server.transport import uvicorn_config
    except ImportError as exc:
        sys.stderr.write(f"paohuzi serve needs the server extra: pip install 'paohuzi[server]' "
                         f"({exc.name} is missing)\n")
        return 2
    from paohuzi.core.errors import PaohuziError

    path = database or default_database()
    shown = path
    if str(path).startswith(("postgresql://", "postgres://")):
        try:
            import psycopg  # noqa: F401
            import psycopg_pool  # noqa: F401
        except ImportError as exc:
            sys.stderr.write(f"paohuzi serve: a PostgreSQL database needs the postgres extra: "
                             f"pip install 'paohuzi[postgres]' ({exc.name} is missing)\n")
            return 2
        from paohuzi.server.pgstorage import redact_url

        shown = redact_url(str(path))
    try:
        if redis is not None and not str(path).startswith(("postgresql://", "postgres://")):
            sys.stderr.write("paohuzi serve: --redis (several processes) needs "
                             "--database postgresql://…\n")
            return 2
        address = advertise or f"http://{host}:{port}"
        app = create_app(database=path, redis=redis, address=address)
    except PaohuziError as exc:  # the database is in use, unreachable or too new
        sys.stderr.write(f"paohuzi serve: {exc}\n")
        return 1
    tune_gc()
    print(f"paohuzi: serving on http://{host}:{port}/  (database {shown}"
          + (", one of several processes" if redis else "") + ")", flush=True)
    uvicorn.Server(uvicorn_config(app, host, port, log_level="warning")).run()
    return 0
