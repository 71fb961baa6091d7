"""PostgreSQL behind the :class:`~paohuzi.server.storage.Storage` protocol (psycopg 3).

Selected by ``paohuzi serve --database postgresql://…``. The same promise as SQLite:
every write is committed before the call returns (an action logged survives a
``kill -9`` of the server), and a hand's settlement is one transaction.

The :class:`Storage` protocol is synchronous on purpose: a table logs an entry and
applies it under its lock with no ``await`` in between, so no other coroutine can see
the table between the two. The calls use psycopg's thread-safe connection pool; one
round trip to a nearby database is well under a millisecond.

Alone (``shared=False``) a server takes a session advisory lock, so a second server on
the same database is refused (:class:`DatabaseInUseError`), as with SQLite's file lock;
PostgreSQL drops it when the holder's connection dies. Several processes on one
database (``shared=True``) own rooms through leases instead (:meth:`acquire_lease`):
each lease has a *fencing token*, and once a process holds a room's lease every log
append and settlement of that room checks the token in the same transaction, so an
owner whose lease was taken over can never write again (:class:`LeaseLostError`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import secrets
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from paohuzi.core.errors import PaohuziError
from paohuzi.server.dblock import DatabaseInUseError
from paohuzi.server.economy import pay
from paohuzi.server.migrations import migrate_postgres, new_public_id
from paohuzi.server.roombounds import Creator
from paohuzi.server.storage import (
    PlayerRecord,
    PlayerUpdate,
    StoredGame,
    check_rated_from,
    creator_of,
    creator_row,
    game_summaries,
    hash_token,
)

__all__ = ["DatabaseUnavailableError", "LeaseLostError", "PostgresStorage", "is_postgres_url",
           "redact_url"]

_APPEND = ("INSERT INTO table_log (room, seq, entry) SELECT %s, "
           "COALESCE((SELECT MAX(seq) FROM table_log WHERE room = %s), 0) + 1, %s "
           "RETURNING seq")
"""One log entry appended: the room's next sequence number."""
_APPEND_FENCED = (_APPEND.removesuffix("RETURNING seq")
                  + "FROM (SELECT 1 FROM room_leases WHERE room = %s AND token = %s "
                    "FOR SHARE) AS fence RETURNING seq")
"""The same, written only while the lease row holds this process's fencing token."""

_SERVER_LOCK = 0x70687A73  # the advisory lock key of "a paohuzi server uses this database"


class DatabaseUnavailableError(PaohuziError):
    """The PostgreSQL server cannot be reached (or refuses the connection)."""


class LeaseLostError(PaohuziError):
    """This process no longer owns the room: another process took its lease over."""


def is_postgres_url(database: str) -> bool:
    """Whether ``--database`` names a PostgreSQL database rather than a SQLite file.

    >>> is_postgres_url("postgresql://localhost/paohuzi"), is_postgres_url("game.db")
    (True, False)
    """
    return database.startswith(("postgresql://", "postgres://"))


class PostgresStorage:
    """PostgreSQL through a psycopg connection pool (``pip install 'paohuzi[postgres]'``)."""

    _PLAYER_COLUMNS = "id, nickname, points, beans, hands, wins, rating_mu, rating_sigma"

    def __init__(self, url: str, *, shared: bool = False, pool_size: int = 4) -> None:
        import psycopg
        from psycopg_pool import ConnectionPool

        self.url = url
        self.shared = shared
        self._fences: dict[str, int] = {}
        self._lost: set[str] = set()  # rooms whose write was refused, not yet reported
        self._guard: psycopg.Connection[Any] | None = None
        try:
            first = psycopg.connect(url, autocommit=True, connect_timeout=10)
        except psycopg.OperationalError as exc:
            raise DatabaseUnavailableError(
                f"cannot connect to {redact_url(url)}: {str(exc).strip()}") from None
        if not shared:
            row = first.execute("SELECT pg_try_advisory_lock(%s)", (_SERVER_LOCK,)).fetchone()
            if row is None or not row[0]:
                first.close()
                raise DatabaseInUseError(
                    f"database {redact_url(url)} is already used by another paohuzi server; "
                    f"stop it, or run several servers with --redis (docs/scaling.md)")
        migrate_postgres(first)
        if shared:
            first.close()
        else:
            self._guard = first  # holds the advisory lock while serving
        self._pool = ConnectionPool(url, min_size=1, max_size=pool_size, open=True,
                                    kwargs={"autocommit": True}, name="paohuzi")

    @contextmanager
    def _tx(self) -> Iterator[Any]:
        """A connection inside one transaction (committed on leaving, rolled back on an
        exception)."""
        with self._pool.connection() as conn, conn.transaction():
            yield conn

    def _row_player(self, row: tuple[Any, ...] | None) -> PlayerRecord | None:
        return None if row is None else PlayerRecord(*row)

    # ---- players --------------------------------------------------------------------

    def create_player(self, nickname: str, beans: int = 0) -> tuple[PlayerRecord, str]:
        """A new player holding ``beans`` (the hall's starting balance), and his token."""
        token = secrets.token_urlsafe(24)
        with self._tx() as conn:
            row = conn.execute(
                f"INSERT INTO players (nickname, token_hash, beans, created) "
                f"VALUES (%s, %s, %s, %s) RETURNING {self._PLAYER_COLUMNS}",
                (nickname, hash_token(token), beans, time.time())).fetchone()
        record = self._row_player(row)
        assert record is not None
        return record, token

    def player_by_token(self, token: str) -> PlayerRecord | None:
        with self._pool.connection() as conn:
            row = conn.execute(
                f"SELECT {self._PLAYER_COLUMNS} FROM players WHERE token_hash = %s",
                (hash_token(token),)).fetchone()
        return self._row_player(row)

    def player(self, player_id: int) -> PlayerRecord | None:
        with self._pool.connection() as conn:
            row = conn.execute(f"SELECT {self._PLAYER_COLUMNS} FROM players WHERE id = %s",
                               (player_id,)).fetchone()
        return self._row_player(row)

    # ---- rooms ----------------------------------------------------------------------

    _INSERT_ROOM = ("INSERT INTO rooms (code, config, created, touched, creator, "
                    "creator_address) VALUES (%s, %s, %s, %s, %s, %s)")

    def create_room(self, code: str, config: dict[str, Any], creator: Creator | None = None,
                    entries: Sequence[dict[str, Any]] = ()) -> None:
        """Store a new room with the first entries of its log, in one transaction."""
        now = time.time()
        with self._tx() as conn:
            conn.execute(self._INSERT_ROOM,
                         (code, json.dumps(config), now, now, *creator_row(creator)))
            self._insert_first_entries(conn, code, entries)

    @staticmethod
    def _insert_first_entries(conn: Any, code: str, entries: Sequence[dict[str, Any]]) -> None:
        for seq, entry in enumerate(entries, 1):
            conn.execute("INSERT INTO table_log (room, seq, entry) VALUES (%s, %s, %s)",
                         (code, seq, json.dumps(entry, ensure_ascii=False)))

    def room_creator(self, code: str) -> Creator | None:
        """Who created a room (None: the hall, a room of an older server, or no room)."""
        with self._pool.connection() as conn:
            row = conn.execute("SELECT creator, creator_address FROM rooms WHERE code = %s",
                               (code,)).fetchone()
        return creator_of(row)

    def room_is_open(self, code: str) -> bool:
        """Whether a room of that code is stored and not ended."""
        with self._pool.connection() as conn:
            row = conn.execute("SELECT 1 FROM rooms WHERE code = %s AND ended IS NULL",
                               (code,)).fetchone()
        return row is not None

    def create_leased_room(self, code: str, config: dict[str, Any], owner: str,
                           address: str, ttl: float, creator: Creator | None = None,
                           entries: Sequence[dict[str, Any]] = ()) -> int:
        """Store a new room (with the first entries of its log) and take its lease in one
        transaction (several processes):
        it is never seen open without an owner, which another process's upkeep would
        take over (:meth:`unowned_rooms`) before its creator could claim it. Its fencing
        token (a stale lease row left under a new code is taken over)."""
        now = time.time()
        with self._tx() as conn:
            conn.execute(self._INSERT_ROOM,
                         (code, json.dumps(config), now, now, *creator_row(creator)))
            self._insert_first_entries(conn, code, entries)
            row = conn.execute(
                "INSERT INTO room_leases AS l (room, owner, address, token, expires) "
                "VALUES (%s, %s, %s, 1, EXTRACT(EPOCH FROM clock_timestamp()) + %s) "
                "ON CONFLICT (room) DO UPDATE SET owner = EXCLUDED.owner, "
                "address = EXCLUDED.address, token = l.token + 1, expires = EXCLUDED.expires "
                "RETURNING token", (code, owner, address, ttl)).fetchone()
        self._fences[code] = int(row[0])
        return int(row[0])

    def rooms(self) -> list[tuple[str, dict[str, Any]]]:
        """The rooms still open (an ended room is never replayed)."""
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT code, config FROM rooms WHERE ended IS NULL "
                                "ORDER BY created, code").fetchall()
        return [(code, json.loads(config)) for code, config in rows]

    def room(self, code: str) -> dict[str, Any] | None:
        """An open room's options (None: no such open room)."""
        with self._pool.connection() as conn:
            row = conn.execute("SELECT config FROM rooms WHERE code = %s AND ended IS NULL",
                               (code,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def touch_room(self, code: str, when: float) -> None:
        with self._tx() as conn:
            conn.execute("UPDATE rooms SET touched = GREATEST(COALESCE(touched, 0), %s) "
                         "WHERE code = %s", (when, code))

    def end_room(self, code: str) -> None:
        """Mark a room ended (its log kept) and free its lease. Several processes: a room
        write like an append, fenced — only the lease's holder ends a room; an owner whose
        lease was taken over gets :class:`LeaseLostError` and changes nothing (it used to
        end the room another process serves, and delete that process's lease)."""
        with self._tx() as conn:
            self._fence(conn, code)
            conn.execute("UPDATE rooms SET ended = %s WHERE code = %s AND ended IS NULL",
                         (time.time(), code))
            conn.execute("DELETE FROM room_leases WHERE room = %s", (code,))
        self._fences.pop(code, None)

    def idle_rooms(self, before: float) -> list[str]:
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT code FROM rooms WHERE ended IS NULL AND "
                                "COALESCE(touched, created) < %s", (before,)).fetchall()
        return [code for (code,) in rows]

    # ---- the table logs ---------------------------------------------------------------

    def _fence(self, conn: Any, room: str) -> None:
        """Inside a transaction: raise :class:`LeaseLostError` unless this process still
        holds ``room``'s lease with the token it was given (``FOR SHARE``: a takeover
        committing meanwhile is waited for, then seen)."""
        token = self._fences.get(room)
        if token is None:
            if self.shared:
                raise LeaseLostError(f"room {room} is not owned by this process")
            return
        row = conn.execute("SELECT token FROM room_leases WHERE room = %s FOR SHARE",
                           (room,)).fetchone()
        if row is None or int(row[0]) != token:
            self._fences.pop(room, None)
            self._lost.add(room)
            raise LeaseLostError(f"room {room}: its lease was taken over by another process")

    def _insert_log(self, conn: Any, room: str, entry: dict[str, Any]) -> int:
        row = conn.execute(_APPEND, (room, room, json.dumps(entry, ensure_ascii=False))
                           ).fetchone()
        return int(row[0])

    def append_log(self, room: str, entry: dict[str, Any]) -> int:
        """Append one entry to a table's log (committed on return); its sequence number.

        One statement, so one round trip (autocommit: no BEGIN/COMMIT): the lease check
        is in it, ``FOR SHARE`` on the lease row with the token held — a takeover
        committing meanwhile is waited for, then its new token fails the check and
        nothing is written (:class:`LeaseLostError`); a takeover starting meanwhile
        waits for this write to commit, and replays it."""
        text = json.dumps(entry, ensure_ascii=False)
        token = self._fences.get(room)
        with self._pool.connection() as conn:
            if token is None:
                if self.shared:
                    raise LeaseLostError(f"room {room} is not owned by this process")
                row = conn.execute(_APPEND, (room, room, text)).fetchone()
            else:
                row = conn.execute(_APPEND_FENCED, (room, room, text, room, token)).fetchone()
        if row is None:
            self._fences.pop(room, None)
            self._lost.add(room)
            raise LeaseLostError(f"room {room}: its lease was taken over by another process")
        return int(row[0])

    def load_log(self, room: str) -> list[dict[str, Any]]:
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT entry FROM table_log WHERE room = %s ORDER BY seq",
                                (room,)).fetchall()
        return [json.loads(r[0]) for r in rows]

    def settle_hand(self, room: str, hand_no: int, record: dict[str, Any] | None,
                    players: list[int], updates: list[PlayerUpdate],
                    log_entry: dict[str, Any]) -> int | None:
        """One transaction: the hand's record (unique per room and hand), the players'
        updates and the table's log entry (see :meth:`SQLiteStorage.settle_hand`).

        The beans that move are capped at what the payers hold (rules-notes N25), read
        with their rows locked in this transaction, and written to the log entry as
        ``beans`` (player id → beans actually gained or paid)."""
        text = None if record is None else json.dumps(record, ensure_ascii=False)
        with self._tx() as conn:
            self._fence(conn, room)
            game_id = self._settle_rows(conn, room, hand_no, text, players, updates,
                                        log_entry)
            self._insert_log(conn, room, log_entry)
        return game_id

    def _settle_rows(self, conn: Any, room: str, hand_no: int, record: str | None,
                     players: list[int], updates: list[PlayerUpdate],
                     log_entry: dict[str, Any]) -> int | None:
        row = conn.execute("SELECT id FROM games WHERE room = %s AND hand_no = %s",
                           (room, hand_no)).fetchone()
        if row is not None:
            return int(row[0])
        updates = self._capped(conn, updates)
        if updates:
            log_entry["beans"] = {str(u.player_id): u.beans for u in updates}
        self._apply_updates(conn, updates)
        if record is None:
            return None
        row = conn.execute(
            "INSERT INTO games (room, hand_no, record, finished, public_id) "
            "VALUES (%s, %s, %s, %s, %s) RETURNING id",
            (room, hand_no, record, time.time(), new_public_id())).fetchone()
        game_id = int(row[0])
        for pid in sorted(set(players)):
            conn.execute("INSERT INTO game_players (game_id, player_id) VALUES (%s, %s)",
                         (game_id, pid))
        return game_id

    def _capped(self, conn: Any, updates: list[PlayerUpdate]) -> list[PlayerUpdate]:
        """The updates with the beans that actually move (see
        :meth:`SQLiteStorage._capped`). The players' rows are locked (in id order: two
        settlements never deadlock) until the transaction ends, so a concurrent
        settlement or relief of the same player in another room or process waits and
        then reads the new balance."""
        ids = sorted({u.player_id for u in updates})
        rows = conn.execute("SELECT id, beans, rating_mu, rating_sigma FROM players "
                            "WHERE id = ANY(%s) ORDER BY id FOR UPDATE",
                            (ids,)).fetchall() if ids else []
        held = {int(pid): int(beans) for pid, beans, _, _ in rows}
        rated = {int(pid): (mu, sigma) for pid, _, mu, sigma in rows}
        for u in updates:  # a rating another process changed meanwhile: rate again
            check_rated_from(u, rated.get(u.player_id))
        owed = [u.beans for u in updates]
        moved = pay([*owed, -sum(owed)], [*(held.get(u.player_id, 0) for u in updates), None])
        return [dataclasses.replace(u, beans=b) for u, b in zip(updates, moved, strict=False)]

    def _apply_updates(self, conn: Any, updates: list[PlayerUpdate]) -> None:
        for u in updates:
            conn.execute(
                "UPDATE players SET points = points + %s, beans = beans + %s, "
                "hands = hands + 1, wins = wins + %s, rating_mu = %s, rating_sigma = %s "
                "WHERE id = %s", (u.points, u.beans, int(u.won), u.mu, u.sigma, u.player_id))

    # ---- games --------------------------------------------------------------------------

    def games_of(self, player_id: int) -> list[dict[str, Any]]:
        with self._pool.connection() as conn:
            rows = conn.execute(
                "SELECT g.public_id, g.room, g.finished, g.record FROM games g JOIN "
                "game_players p ON p.game_id = g.id WHERE p.player_id = %s "
                "ORDER BY g.id DESC LIMIT 200", (player_id,)).fetchall()
        return game_summaries(rows)

    def games_in_room(self, room: str) -> list[dict[str, Any]]:
        """The records of a room's finished hands, in order."""
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT record FROM games WHERE room = %s ORDER BY id",
                                (room,)).fetchall()
        return [dict(json.loads(r[0])) for r in rows]

    def game(self, game_id: int) -> dict[str, Any] | None:
        with self._pool.connection() as conn:
            row = conn.execute("SELECT record FROM games WHERE id = %s", (game_id,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def game_by_public_id(self, public_id: str) -> StoredGame | None:
        with self._pool.connection() as conn:
            row = conn.execute(
                "SELECT g.id, g.record, r.ended FROM games g LEFT JOIN rooms r "
                "ON r.code = g.room WHERE g.public_id = %s", (public_id,)).fetchone()
            if row is None:
                return None
            players = conn.execute("SELECT player_id FROM game_players WHERE game_id = %s",
                                   (row[0],)).fetchall()
        return StoredGame(dict(json.loads(row[1])), frozenset(int(p) for (p,) in players),
                          row[2] is not None)

    # ---- hall (issue 11): bean economy, 大结算 ----------------------------------------

    def claim_relief(self, player_id: int, day: str, below: int, amount: int) -> int | None:
        """Give the daily relief in one transaction: ``amount`` beans to a player holding
        fewer than ``below``, once per ``day``; his new balance, or None (not due). His
        row is locked first, so two claims (or a claim and a settlement) at once, from
        any processes, are one after the other."""
        with self._tx() as conn:
            row = conn.execute("SELECT beans FROM players WHERE id = %s FOR UPDATE",
                               (player_id,)).fetchone()
            if row is None or int(row[0]) >= below:
                return None
            done = conn.execute("SELECT 1 FROM relief WHERE player_id = %s AND day = %s",
                                (player_id, day)).fetchone()
            if done is not None:
                return None
            beans = max(0, int(row[0])) + amount
            conn.execute("INSERT INTO relief (player_id, day, amount) VALUES (%s, %s, %s)",
                         (player_id, day, amount))
            conn.execute("UPDATE players SET beans = %s WHERE id = %s", (beans, player_id))
        return beans

    def leaderboard(self, by: str, limit: int) -> list[PlayerRecord]:
        """The players who played a hand, best first by ``points`` or ``beans``."""
        column = {"points": "points", "beans": "beans"}[by]
        with self._pool.connection() as conn:
            rows = conn.execute(
                f"SELECT {self._PLAYER_COLUMNS} FROM players WHERE hands > 0 "
                f"ORDER BY {column} DESC, id LIMIT %s", (limit,)).fetchall()
        return [PlayerRecord(*row) for row in rows]

    def save_match(self, room: str, number: int, summary: dict[str, Any]) -> None:
        """Store a finished match's 大结算 (once: a second call changes nothing); a room
        write like the others, so its lease's fencing token is checked."""
        with self._tx() as conn:
            self._fence(conn, room)
            conn.execute("INSERT INTO matches (room, number, summary, finished) "
                         "VALUES (%s, %s, %s, %s) ON CONFLICT (room, number) DO NOTHING",
                         (room, number, json.dumps(summary, ensure_ascii=False),
                          time.time()))

    def matches_in_room(self, room: str) -> list[dict[str, Any]]:
        """The 大结算 of a room's finished matches, in order."""
        with self._pool.connection() as conn:
            rows = conn.execute("SELECT summary FROM matches WHERE room = %s "
                                "ORDER BY number", (room,)).fetchall()
        return [dict(json.loads(r[0])) for r in rows]

    # ---- end of hall ---------------------------------------------------------------

    # ---- room leases (several processes) ---------------------------------------------------

    def acquire_lease(self, room: str, owner: str, address: str, ttl: float) -> int | None:
        """Take ``room``'s lease for ``ttl`` seconds if it is free, expired or already
        ours; its new fencing token (None: another live process holds it). Every taking
        increments the token, so whatever the previous holder still tries is refused."""
        with self._tx() as conn:
            row = conn.execute(
                "INSERT INTO room_leases AS l (room, owner, address, token, expires) "
                "VALUES (%s, %s, %s, 1, EXTRACT(EPOCH FROM clock_timestamp()) + %s) "
                "ON CONFLICT (room) DO UPDATE SET owner = EXCLUDED.owner, "
                "address = EXCLUDED.address, token = l.token + 1, expires = EXCLUDED.expires "
                "WHERE l.expires < EXTRACT(EPOCH FROM clock_timestamp()) "
                "OR (l.owner = EXCLUDED.owner AND l.token = %s) RETURNING token",
                (room, owner, address, ttl, self._fences.get(room, -1))).fetchone()
        if row is None:
            return None
        self._fences[room] = int(row[0])
        return int(row[0])

    def renew_leases(self, owner: str, ttl: float) -> set[str]:
        """Extend every lease this process holds (of the rooms it took and still has a
        token for: a lease it took but gave up, or failed to give back, lapses); the
        rooms it has lost (taken over after it let them expire), which it must stop
        serving."""
        rows = []
        if self._fences:
            with self._tx() as conn:
                rows = conn.execute(
                    "UPDATE room_leases SET expires = EXTRACT(EPOCH FROM clock_timestamp()) "
                    "+ %s WHERE owner = %s AND room = ANY(%s) RETURNING room, token",
                    (ttl, owner, sorted(self._fences))).fetchall()
        held = {room: int(token) for room, token in rows}
        lost = {room for room, token in self._fences.items() if held.get(room) != token}
        for room in lost:
            self._fences.pop(room, None)
        lost |= self._lost
        self._lost = set()
        return lost

    def release_lease(self, room: str, owner: str) -> None:
        """Give a room's lease up (on a clean shutdown: another process takes it at once)."""
        token = self._fences.pop(room, None)
        if token is None:
            return
        with self._tx() as conn:
            conn.execute("UPDATE room_leases SET expires = 0 WHERE room = %s AND owner = %s "
                         "AND token = %s", (room, owner, token))

    def lease_holder(self, room: str) -> tuple[str, str] | None:
        """The owner and address of a room's live lease (None: nobody holds it now)."""
        with self._pool.connection() as conn:
            row = conn.execute(
                "SELECT owner, address FROM room_leases WHERE room = %s AND "
                "expires >= EXTRACT(EPOCH FROM clock_timestamp())", (room,)).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def unowned_rooms(self) -> list[str]:
        """Open rooms whose lease is missing or expired (what a takeover looks for)."""
        with self._pool.connection() as conn:
            rows = conn.execute(
                "SELECT r.code FROM rooms r LEFT JOIN room_leases l ON l.room = r.code "
                "WHERE r.ended IS NULL AND (l.room IS NULL OR "
                "l.expires < EXTRACT(EPOCH FROM clock_timestamp())) "
                "ORDER BY r.created").fetchall()
        return [code for (code,) in rows]

    def close(self) -> None:
        self._pool.close()
        if self._guard is not None:
            # release the lock before closing: a closed connection's server process drops it
            # only when it exits, a moment later, and a server started at once (a restart)
            # would find it still held
            with contextlib.suppress(Exception):  # psycopg is imported lazily
                self._guard.execute("SELECT pg_advisory_unlock(%s)", (_SERVER_LOCK,))
            self._guard.close()
            self._guard = None


def redact_url(url: str) -> str:
    """A database URL without its password, for messages.

    >>> redact_url("postgresql://me:secret@db/paohuzi")
    'postgresql://me:***@db/paohuzi'
    """
    head, sep, tail = url.partition("@")
    if not sep or ":" not in head.split("//", 1)[-1]:
        return url
    scheme, _, userpass = head.partition("//")
    user = userpass.split(":", 1)[0]
    return f"{scheme}//{user}:***@{tail}"
