"""``paohuzi serve``: uvicorn serving the app, SQLite in the user's data folder by default,
or PostgreSQL (``--database postgresql://…``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["default_database", "main"]


def default_database() -> Path:
    """``$XDG_DATA_HOME/paohuzi/paohuzi.db`` (``~/.local/share`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "paohuzi" / "paohuzi.db"


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
    print(f"paohuzi: serving on http://{host}:{port}/  (database {shown}"
          + (", one of several processes" if redis else "") + ")", flush=True)
    uvicorn.Server(uvicorn_config(app, host, port, log_level="warning")).run()
    return 0
