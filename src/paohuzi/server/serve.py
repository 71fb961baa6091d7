"""``paohuzi serve``: uvicorn serving the app, SQLite in the user's data folder."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["default_database", "main"]


def default_database() -> Path:
    """``$XDG_DATA_HOME/paohuzi/paohuzi.db`` (``~/.local/share`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "paohuzi" / "paohuzi.db"


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
    print(f"paohuzi: serving on http://{host}:{port}/  (database {path})", flush=True)
    uvicorn.Server(uvicorn_config(app, host, port, log_level="warning")).run()
    return 0
