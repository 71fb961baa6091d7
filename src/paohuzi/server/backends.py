"""Which storage backend ``--database`` names: a ``postgresql://`` URL, or a SQLite file
(the default, embedded)."""

from __future__ import annotations

from pathlib import Path

from paohuzi.server.pgstorage import is_postgres_url
from paohuzi.server.storage import SQLiteStorage, Storage

__all__ = ["open_storage"]


def open_storage(database: str | Path, *, shared: bool = False) -> Storage:
    """The storage at ``database``: PostgreSQL for a ``postgresql://`` URL (``shared``:
    several server processes use it, through room leases), else a SQLite file
    (``:memory:`` for a throwaway one). Raises
    :class:`~paohuzi.server.dblock.DatabaseInUseError` when another lone server uses it,
    and :class:`ValueError` for ``shared`` with SQLite (one process per SQLite file)."""
    text = str(database)
    if is_postgres_url(text):
        from paohuzi.server.pgstorage import PostgresStorage

        return PostgresStorage(text, shared=shared)
    if shared:
        raise ValueError("several server processes need PostgreSQL: "
                         "--database postgresql://…")
    return SQLiteStorage(database)
