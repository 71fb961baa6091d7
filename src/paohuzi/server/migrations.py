"""Versioned schema migrations, one numbered list per backend.

A database records the migrations applied to it in ``schema_version`` (one row per
version); opening it applies the missing ones in order, each in its own transaction
with its version row, so a crash leaves it at the last whole version. To change the
schema, *append* a :class:`Migration` to both :data:`SQLITE` and :data:`POSTGRES` with
the next number (never edit one that has shipped). PostgreSQL migrations run under a
transaction-level advisory lock, so several processes starting together migrate once.

>>> [m.version for m in SQLITE] == list(range(1, len(SQLITE) + 1))
True
>>> [m.version for m in POSTGRES] == [m.version for m in SQLITE]
True
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paohuzi.core.errors import PaohuziError

__all__ = ["POSTGRES", "SQLITE", "Migration", "SchemaTooNewError", "migrate_postgres",
           "migrate_sqlite", "new_public_id"]


class SchemaTooNewError(PaohuziError):
    """The database was migrated by a newer paohuzi than this one."""


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step: its number, a name, and what it does (SQL statements, or a
    function of the open connection for what SQL alone cannot say)."""

    version: int
    name: str
    steps: tuple[str, ...] | Callable[[Any], None]


def new_public_id() -> str:
    """A game's id in the public API: 128 random bits, URL-safe (22 characters); the
    integer primary key stays internal, so ids cannot be counted through."""
    return secrets.token_urlsafe(16)


# ---- SQLite ---------------------------------------------------------------------------

_SQLITE_BASE = (
    """CREATE TABLE IF NOT EXISTS players (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        nickname TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        points INTEGER NOT NULL DEFAULT 0,
        beans INTEGER NOT NULL DEFAULT 0,
        hands INTEGER NOT NULL DEFAULT 0,
        wins INTEGER NOT NULL DEFAULT 0,
        rating_mu REAL NOT NULL DEFAULT 25.0,
        rating_sigma REAL NOT NULL DEFAULT 8.333333333333334,
        created REAL NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS rooms (
        code TEXT PRIMARY KEY, config TEXT NOT NULL, created REAL NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS table_log (
        room TEXT NOT NULL, seq INTEGER NOT NULL, entry TEXT NOT NULL,
        PRIMARY KEY (room, seq))""",
    """CREATE TABLE IF NOT EXISTS games (
        id INTEGER PRIMARY KEY AUTOINCREMENT, room TEXT NOT NULL, record TEXT NOT NULL,
        finished REAL NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS game_players (
        game_id INTEGER NOT NULL, player_id INTEGER NOT NULL,
        PRIMARY KEY (game_id, player_id))""",
)


def _sqlite_initial(db: sqlite3.Connection) -> None:
    """The schema as it stood before versions, and the columns added to it over time
    (a database from before versions is brought up to it here)."""
    for statement in _SQLITE_BASE:
        db.execute(statement)

    def columns(table: str) -> set[str]:
        return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}

    if "ended" not in columns("rooms"):
        db.execute("ALTER TABLE rooms ADD COLUMN ended REAL")
    if "touched" not in columns("rooms"):
        db.execute("ALTER TABLE rooms ADD COLUMN touched REAL")
        db.execute("UPDATE rooms SET touched = created")
    if "public_id" not in columns("games"):
        db.execute("ALTER TABLE games ADD COLUMN public_id TEXT")
    missing = db.execute("SELECT id FROM games WHERE public_id IS NULL").fetchall()
    for (game_id,) in missing:
        db.execute("UPDATE games SET public_id = ? WHERE id = ?", (new_public_id(), game_id))
    db.execute("CREATE UNIQUE INDEX IF NOT EXISTS games_public_id ON games (public_id)")
    if "hand_no" not in columns("games"):
        db.execute("ALTER TABLE games ADD COLUMN hand_no INTEGER")
    db.execute("CREATE UNIQUE INDEX IF NOT EXISTS games_room_hand ON games (room, hand_no)")


SQLITE: tuple[Migration, ...] = (
    Migration(1, "players, rooms, table logs, games", _sqlite_initial),
    Migration(2, "room leases (used by PostgreSQL only; kept for equal version numbers)",
              ("CREATE TABLE IF NOT EXISTS room_leases (room TEXT PRIMARY KEY, "
               "owner TEXT NOT NULL, address TEXT NOT NULL DEFAULT '', "
               "token INTEGER NOT NULL, expires REAL NOT NULL)",)),
    # IF NOT EXISTS: a database of the hall before versions already has these tables.
    Migration(3, "hall: daily relief, each match's 大结算", (
        """CREATE TABLE IF NOT EXISTS relief (
            player_id INTEGER NOT NULL, day TEXT NOT NULL, amount INTEGER NOT NULL,
            PRIMARY KEY (player_id, day))""",
        """CREATE TABLE IF NOT EXISTS matches (
            room TEXT NOT NULL, number INTEGER NOT NULL, summary TEXT NOT NULL,
            finished REAL NOT NULL, PRIMARY KEY (room, number))""",
    )),
    Migration(4, "who created each room (bounds on open rooms: roombounds.py)", (
        "ALTER TABLE rooms ADD COLUMN creator INTEGER",
        "ALTER TABLE rooms ADD COLUMN creator_address TEXT",
    )),
)
"""SQLite's migrations, in order (append new ones at the end)."""


def _version_sqlite(db: sqlite3.Connection) -> int:
    db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
               "name TEXT NOT NULL, applied REAL NOT NULL)")
    row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def migrate_sqlite(db: sqlite3.Connection,
                   migrations: tuple[Migration, ...] = SQLITE) -> int:
    """Apply the missing migrations to ``db`` (autocommit mode); the version reached.
    Raises :class:`SchemaTooNewError` for a database of a newer paohuzi."""
    db.execute("BEGIN IMMEDIATE")  # one migrating connection at a time
    try:
        current = _version_sqlite(db)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    _check_not_newer(current, migrations)
    for m in migrations:
        if m.version <= current:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            if _version_sqlite(db) >= m.version:  # another connection did it meanwhile
                db.execute("COMMIT")
                continue
            _run(m, db)
            db.execute("INSERT INTO schema_version (version, name, applied) VALUES (?, ?, ?)",
                       (m.version, m.name, time.time()))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        current = m.version
    return current


# ---- PostgreSQL -------------------------------------------------------------------------

POSTGRES: tuple[Migration, ...] = (
    Migration(1, "players, rooms, table logs, games", (
        """CREATE TABLE players (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            nickname TEXT NOT NULL,
            token_hash TEXT NOT NULL UNIQUE,
            points BIGINT NOT NULL DEFAULT 0,
            beans BIGINT NOT NULL DEFAULT 0,
            hands BIGINT NOT NULL DEFAULT 0,
            wins BIGINT NOT NULL DEFAULT 0,
            rating_mu DOUBLE PRECISION NOT NULL DEFAULT 25.0,
            rating_sigma DOUBLE PRECISION NOT NULL DEFAULT 8.333333333333334,
            created DOUBLE PRECISION NOT NULL)""",
        """CREATE TABLE rooms (
            code TEXT PRIMARY KEY, config TEXT NOT NULL, created DOUBLE PRECISION NOT NULL,
            ended DOUBLE PRECISION, touched DOUBLE PRECISION)""",
        """CREATE TABLE table_log (
            room TEXT NOT NULL, seq BIGINT NOT NULL, entry TEXT NOT NULL,
            PRIMARY KEY (room, seq))""",
        """CREATE TABLE games (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, room TEXT NOT NULL,
            record TEXT NOT NULL, finished DOUBLE PRECISION NOT NULL,
            public_id TEXT NOT NULL UNIQUE, hand_no BIGINT,
            UNIQUE (room, hand_no))""",
        """CREATE TABLE game_players (
            game_id BIGINT NOT NULL, player_id BIGINT NOT NULL,
            PRIMARY KEY (game_id, player_id))""",
        "CREATE INDEX game_players_player ON game_players (player_id)",
    )),
    Migration(2, "room leases with fencing tokens", (
        """CREATE TABLE room_leases (
            room TEXT PRIMARY KEY, owner TEXT NOT NULL, address TEXT NOT NULL DEFAULT '',
            token BIGINT NOT NULL, expires DOUBLE PRECISION NOT NULL)""",
    )),
    Migration(3, "hall: daily relief, each match's 大结算", (
        """CREATE TABLE relief (
            player_id BIGINT NOT NULL, day TEXT NOT NULL, amount BIGINT NOT NULL,
            PRIMARY KEY (player_id, day))""",
        """CREATE TABLE matches (
            room TEXT NOT NULL, number BIGINT NOT NULL, summary TEXT NOT NULL,
            finished DOUBLE PRECISION NOT NULL, PRIMARY KEY (room, number))""",
    )),
    Migration(4, "who created each room (bounds on open rooms: roombounds.py)", (
        "ALTER TABLE rooms ADD COLUMN creator BIGINT, ADD COLUMN creator_address TEXT",
    )),
)
"""PostgreSQL's migrations, in order (append new ones at the end)."""

_PG_MIGRATION_LOCK = 0x70686D69  # any constant: one key for "paohuzi migrates"


def migrate_postgres(conn: Any, migrations: tuple[Migration, ...] = POSTGRES) -> int:
    """Apply the missing migrations through a psycopg connection; the version reached."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_PG_MIGRATION_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
                     "name TEXT NOT NULL, applied DOUBLE PRECISION NOT NULL)")
    current = 0
    for m in migrations:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_PG_MIGRATION_LOCK,))
            row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
            current = int(row[0] or 0)
            _check_not_newer(current, migrations)
            if m.version <= current:
                continue
            _run(m, conn)
            conn.execute("INSERT INTO schema_version (version, name, applied) "
                         "VALUES (%s, %s, %s)", (m.version, m.name, time.time()))
            current = m.version
    return current


def _run(m: Migration, conn: Any) -> None:
    if callable(m.steps):
        m.steps(conn)
    else:
        for statement in m.steps:
            conn.execute(statement)


def _check_not_newer(current: int, migrations: tuple[Migration, ...]) -> None:
    known = migrations[-1].version if migrations else 0
    if current > known:
        raise SchemaTooNewError(
            f"the database is at schema version {current}, this paohuzi knows up to {known}: "
            f"upgrade paohuzi")
