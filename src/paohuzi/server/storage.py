"""Storage behind one small interface: players, rooms, per-table action logs, games.

:class:`SQLiteStorage` (the standard library's sqlite3, WAL journal) is the
default; another backend (PostgreSQL) implements the same :class:`Storage`
protocol without touching game code. Every write is committed before the call
returns, so an action logged is an action that survives ``kill -9``. A hand's
settlement (its game record, the players' totals and the table's ``settled`` log
entry) is one transaction: all of it or none of it. One server process uses a
database at a time (:mod:`paohuzi.server.dblock`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from paohuzi.server.dblock import DatabaseLock
from paohuzi.server.economy import pay
from paohuzi.server.migrations import migrate_sqlite, new_public_id
from paohuzi.server.roombounds import Creator

__all__ = [
    "PlayerRecord",
    "PlayerUpdate",
    "RatingMovedError",
    "SQLiteStorage",
    "Storage",
    "StoredGame",
    "hash_token",
    "new_public_id",
]


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A finished hand's record with what decides who may read it."""

    record: dict[str, Any]
    players: frozenset[int]
    room_ended: bool


_to_json = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(value, ensure_ascii=False)`` without building an encoder each call (a log
entry is written per action)."""


def hash_token(token: str) -> str:
    """Tokens are stored hashed: a leaked database does not leak sessions."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    id: int
    nickname: str
    points: int
    beans: int
    hands: int
    wins: int
    rating_mu: float
    rating_sigma: float

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "nickname": self.nickname, "points": self.points,
                "beans": self.beans, "hands": self.hands, "wins": self.wins,
                "rating": {"mu": round(self.rating_mu, 3), "sigma": round(self.rating_sigma, 3),
                           "ordinal": round(self.rating_mu - 3 * self.rating_sigma, 3)}}


@dataclass(frozen=True, slots=True)
class PlayerUpdate:
    """What one hand adds to a player: points and beans, a hand played (won or not),
    and the new rating."""

    player_id: int
    points: int
    beans: int
    won: bool
    mu: float
    sigma: float
    rated_from: tuple[float, float] | None = None
    """The rating ``mu``/``sigma`` were worked out from: the settlement writes them only
    while the player's stored rating is still that one (:class:`RatingMovedError`)."""


class RatingMovedError(RuntimeError):
    """A player's rating changed between reading it and settling (another process
    settled a hand of his meanwhile): nothing was written; rate the hand again."""


def check_rated_from(update: PlayerUpdate, stored: tuple[float, float] | None) -> None:
    """Raise :class:`RatingMovedError` where ``update`` was rated from another rating than
    the ``stored`` one (read in the settlement's transaction, the row locked)."""
    if update.rated_from is not None and stored is not None and \
            (float(stored[0]), float(stored[1])) != update.rated_from:
        raise RatingMovedError(f"player {update.player_id}'s rating changed meanwhile")


class Storage(Protocol):
    """What the server needs from a database (and nothing more: :class:`SQLiteStorage`
    also has ``games_in_room`` and ``game``, for tests and tools)."""

    def create_player(self, nickname: str, beans: int = 0) -> tuple[PlayerRecord, str]: ...
    def player_by_token(self, token: str) -> PlayerRecord | None: ...
    def player(self, player_id: int) -> PlayerRecord | None: ...
    def create_room(self, code: str, config: dict[str, Any], creator: Creator | None = None,
                    entries: Sequence[dict[str, Any]] = ()) -> None: ...
    def room_creator(self, code: str) -> Creator | None: ...
    def room_is_open(self, code: str) -> bool: ...
    def rooms(self) -> list[tuple[str, dict[str, Any]]]: ...
    def append_log(self, room: str, entry: dict[str, Any]) -> int: ...
    def load_log(self, room: str) -> list[dict[str, Any]]: ...
    def settle_hand(self, room: str, hand_no: int, record: dict[str, Any] | None,
                    players: list[int], updates: list[PlayerUpdate],
                    log_entry: dict[str, Any]) -> int | None: ...
    def games_of(self, player_id: int) -> list[dict[str, Any]]: ...
    def game_by_public_id(self, public_id: str) -> StoredGame | None: ...
    def touch_room(self, code: str, when: float) -> None: ...
    def end_room(self, code: str) -> None: ...
    def idle_rooms(self, before: float) -> list[str]: ...
    # ---- hall (issue 11): bean economy, 大结算 ----
    def claim_relief(self, player_id: int, day: str, below: int,
                     amount: int) -> int | None: ...
    def leaderboard(self, by: str, limit: int) -> list[PlayerRecord]: ...
    def save_match(self, room: str, number: int, summary: dict[str, Any]) -> None: ...
    def matches_in_room(self, room: str) -> list[dict[str, Any]]: ...
    def close(self) -> None: ...


def creator_row(creator: Creator | None) -> tuple[int | None, str | None]:
    """A room's creator as its two columns (both backends)."""
    return (None, None) if creator is None else (creator.player, creator.address)


def creator_of(row: Any) -> Creator | None:
    """A room's creator from its two columns (both backends).

    >>> creator_of((7, "ab")), creator_of((None, None)), creator_of(None)
    (Creator(player=7, address='ab'), None, None)
    """
    if row is None or row[0] is None:
        return None
    return Creator(int(row[0]), str(row[1] or ""))


def game_summaries(rows: Any) -> list[dict[str, Any]]:
    """A player's game list from ``(id, room, finished, record)`` rows (both backends)."""
    out = []
    for game_id, room, finished, record in rows:
        result = json.loads(record).get("result", {})
        out.append({"id": game_id, "room": room, "finished": finished,
                    "reason": result.get("reason"), "points": result.get("points")})
    return out


class SQLiteStorage:
    """SQLite in WAL mode; one connection guarded by a lock (the server is one process)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._file_lock: DatabaseLock | None = None
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._file_lock = DatabaseLock(self.path)  # DatabaseInUseError: another server
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # durable across process crashes
        # Checkpoints (which fsync) run in a background thread, never in a request.
        self._db.execute("PRAGMA wal_autocheckpoint=0")
        migrate_sqlite(self._db)
        self._lock = threading.Lock()
        self._next_seq: dict[str, int] = {}
        self._stop = threading.Event()
        self._checkpointer: threading.Thread | None = None
        if self.path != ":memory:":
            self._checkpointer = threading.Thread(target=self._checkpoint_loop, daemon=True,
                                                  name="sqlite-checkpoint")
            self._checkpointer.start()

    def _checkpoint_loop(self) -> None:
        """Fold the WAL into the database every second, on its own connection."""
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        try:
            while not self._stop.wait(1.0):
                with contextlib.suppress(sqlite3.Error):  # busy: next time
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            db.close()

    def _row_player(self, row: tuple[Any, ...] | None) -> PlayerRecord | None:
        if row is None:
            return None
        return PlayerRecord(*row)

    _PLAYER_COLUMNS = "id, nickname, points, beans, hands, wins, rating_mu, rating_sigma"

    def create_player(self, nickname: str, beans: int = 0) -> tuple[PlayerRecord, str]:
        """A new player holding ``beans`` (the hall's starting balance), and his token."""
        token = secrets.token_urlsafe(24)
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO players (nickname, token_hash, beans, created) VALUES (?, ?, ?, ?)",
                (nickname, hash_token(token), beans, time.time()))
            player_id = int(cur.lastrowid or 0)
        record = self.player(player_id)
        assert record is not None
        return record, token

    def player_by_token(self, token: str) -> PlayerRecord | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {self._PLAYER_COLUMNS} FROM players WHERE token_hash = ?",
                (hash_token(token),)).fetchone()
        return self._row_player(row)

    def player(self, player_id: int) -> PlayerRecord | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {self._PLAYER_COLUMNS} FROM players WHERE id = ?", (player_id,)
            ).fetchone()
        return self._row_player(row)

    def create_room(self, code: str, config: dict[str, Any], creator: Creator | None = None,
                    entries: Sequence[dict[str, Any]] = ()) -> None:
        """Store a new room (``creator``: the person who created it, None for the hall's)
        with the first entries of its log (its people seated), in one transaction."""
        with self._lock:
            now = time.time()
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT INTO rooms (code, config, created, touched, creator, "
                    "creator_address) VALUES (?, ?, ?, ?, ?, ?)",
                    (code, json.dumps(config), now, now, *creator_row(creator)))
                self._db.executemany(
                    "INSERT INTO table_log (room, seq, entry) VALUES (?, ?, ?)",
                    [(code, seq, _to_json(entry)) for seq, entry in enumerate(entries, 1)])
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._next_seq[code] = len(entries) + 1

    def room_creator(self, code: str) -> Creator | None:
        """Who created a room (None: the hall, a room of an older server, or no room)."""
        with self._lock:
            row = self._db.execute("SELECT creator, creator_address FROM rooms WHERE code = ?",
                                   (code,)).fetchone()
        return creator_of(row)

    def room_is_open(self, code: str) -> bool:
        """Whether a room of that code is stored and not ended."""
        with self._lock:
            row = self._db.execute("SELECT 1 FROM rooms WHERE code = ? AND ended IS NULL",
                                   (code,)).fetchone()
        return row is not None

    def rooms(self) -> list[tuple[str, dict[str, Any]]]:
        """The rooms still open (an ended room is never replayed)."""
        with self._lock:
            rows = self._db.execute("SELECT code, config FROM rooms WHERE ended IS NULL "
                                    "ORDER BY created").fetchall()
        return [(code, json.loads(config)) for code, config in rows]

    def touch_room(self, code: str, when: float) -> None:
        """Note activity in a room (wall-clock seconds), for idle expiry."""
        with self._lock:
            self._db.execute("UPDATE rooms SET touched = MAX(COALESCE(touched, 0), ?) "
                             "WHERE code = ?", (when, code))

    def end_room(self, code: str) -> None:
        """Close a room for good: it is no longer replayed or joinable."""
        with self._lock:
            self._db.execute("UPDATE rooms SET ended = ? WHERE code = ? AND ended IS NULL",
                             (time.time(), code))

    def idle_rooms(self, before: float) -> list[str]:
        """Open rooms with no activity since ``before`` (wall-clock seconds)."""
        with self._lock:
            rows = self._db.execute("SELECT code FROM rooms WHERE ended IS NULL AND "
                                    "COALESCE(touched, created) < ?", (before,)).fetchall()
        return [code for (code,) in rows]

    def _log_seq(self, room: str) -> int:
        """The sequence number the next entry of ``room``'s log gets (lock held)."""
        seq = self._next_seq.get(room)
        if seq is None:
            row = self._db.execute("SELECT MAX(seq) FROM table_log WHERE room = ?",
                                   (room,)).fetchone()
            seq = int(row[0] or 0) + 1
        return seq

    def append_log(self, room: str, entry: dict[str, Any]) -> int:
        """Append one entry to a table's log (committed on return); its sequence number."""
        with self._lock:
            seq = self._log_seq(room)
            self._db.execute("INSERT INTO table_log (room, seq, entry) VALUES (?, ?, ?)",
                             (room, seq, _to_json(entry)))
            self._next_seq[room] = seq + 1
        return seq

    def load_log(self, room: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT entry FROM table_log WHERE room = ? ORDER BY seq", (room,)).fetchall()
        return [json.loads(r[0]) for r in rows]

    def settle_hand(self, room: str, hand_no: int, record: dict[str, Any] | None,
                    players: list[int], updates: list[PlayerUpdate],
                    log_entry: dict[str, Any]) -> int | None:
        """One transaction: the hand's record (unique per room and hand), the players'
        updates and the table's log entry. A hand already recorded gets only the log
        entry (its updates went with its record). The record's id (None: no record).

        The updates' beans are what the rules say each player owes; what moves is capped
        at what the payers hold (:func:`~paohuzi.server.economy.pay`, rules-notes N25),
        read in this transaction, and written to the log entry as ``beans``
        (player id → beans actually gained or paid)."""
        text = None if record is None else json.dumps(record, ensure_ascii=False)
        with self._lock:
            seq = self._log_seq(room)
            self._db.execute("BEGIN IMMEDIATE")
            try:
                game_id = self._settle_rows(room, hand_no, text, players, updates, log_entry)
                self._db.execute("INSERT INTO table_log (room, seq, entry) VALUES (?, ?, ?)",
                                 (room, seq, json.dumps(log_entry, ensure_ascii=False)))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._next_seq[room] = seq + 1
        return game_id

    def _settle_rows(self, room: str, hand_no: int, record: str | None, players: list[int],
                     updates: list[PlayerUpdate], log_entry: dict[str, Any]) -> int | None:
        row = self._db.execute("SELECT id FROM games WHERE room = ? AND hand_no = ?",
                               (room, hand_no)).fetchone()
        if row is not None:
            return int(row[0])
        updates = self._capped(updates)
        if updates:
            log_entry["beans"] = {str(u.player_id): u.beans for u in updates}
        self._apply_updates(updates)
        if record is None:
            return None
        cur = self._db.execute(
            "INSERT INTO games (room, hand_no, record, finished, public_id) "
            "VALUES (?, ?, ?, ?, ?)",
            (room, hand_no, record, time.time(), new_public_id()))
        game_id = int(cur.lastrowid or 0)
        for pid in set(players):
            self._db.execute("INSERT INTO game_players (game_id, player_id) VALUES (?, ?)",
                             (game_id, pid))
        return game_id

    def _capped(self, updates: list[PlayerUpdate]) -> list[PlayerUpdate]:
        """The updates with the beans that actually move (transaction open): each payer
        pays at most what he holds; the seats without a player record here (computers)
        are the house, without limit, owing the rest of the zero sum."""
        held = {}
        for u in updates:
            row = self._db.execute("SELECT beans, rating_mu, rating_sigma FROM players "
                                   "WHERE id = ?", (u.player_id,)).fetchone()
            held[u.player_id] = int(row[0]) if row is not None else 0
            check_rated_from(u, None if row is None else (row[1], row[2]))
        owed = [u.beans for u in updates]
        moved = pay([*owed, -sum(owed)], [*(held[u.player_id] for u in updates), None])
        return [dataclasses.replace(u, beans=b) for u, b in zip(updates, moved, strict=False)]

    def _apply_updates(self, updates: list[PlayerUpdate]) -> None:
        for u in updates:
            self._db.execute(
                "UPDATE players SET points = points + ?, beans = beans + ?, hands = hands + 1, "
                "wins = wins + ?, rating_mu = ?, rating_sigma = ? WHERE id = ?",
                (u.points, u.beans, int(u.won), u.mu, u.sigma, u.player_id))

    def games_of(self, player_id: int) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT g.public_id, g.room, g.finished, g.record FROM games g JOIN game_players p "
                "ON p.game_id = g.id WHERE p.player_id = ? ORDER BY g.id DESC LIMIT 200",
                (player_id,)).fetchall()
        return game_summaries(rows)

    def games_in_room(self, room: str) -> list[dict[str, Any]]:
        """The records of a room's finished hands, in order."""
        with self._lock:
            rows = self._db.execute("SELECT record FROM games WHERE room = ? ORDER BY id",
                                    (room,)).fetchall()
        return [dict(json.loads(r[0])) for r in rows]

    def game(self, game_id: int) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def game_by_public_id(self, public_id: str) -> StoredGame | None:
        with self._lock:
            row = self._db.execute(
                "SELECT g.id, g.record, r.ended FROM games g LEFT JOIN rooms r "
                "ON r.code = g.room WHERE g.public_id = ?", (public_id,)).fetchone()
            if row is None:
                return None
            players = self._db.execute("SELECT player_id FROM game_players WHERE game_id = ?",
                                       (row[0],)).fetchall()
        return StoredGame(dict(json.loads(row[1])), frozenset(p for (p,) in players),
                          row[2] is not None)

    # ---- hall (issue 11): bean economy, 大结算 ----------------------------------------

    def claim_relief(self, player_id: int, day: str, below: int, amount: int) -> int | None:
        """Give the daily relief in one transaction: ``amount`` beans to a player holding
        fewer than ``below``, once per ``day``; his new balance, or None (not due)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute("SELECT beans FROM players WHERE id = ?",
                                       (player_id,)).fetchone()
                done = self._db.execute("SELECT 1 FROM relief WHERE player_id = ? AND day = ?",
                                        (player_id, day)).fetchone()
                if row is None or done is not None or int(row[0]) >= below:
                    self._db.execute("ROLLBACK")
                    return None
                beans = max(0, int(row[0])) + amount
                self._db.execute("INSERT INTO relief (player_id, day, amount) VALUES (?, ?, ?)",
                                 (player_id, day, amount))
                self._db.execute("UPDATE players SET beans = ? WHERE id = ?", (beans, player_id))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return beans

    def leaderboard(self, by: str, limit: int) -> list[PlayerRecord]:
        """The players who played a hand, best first by ``points`` or ``beans``."""
        column = {"points": "points", "beans": "beans"}[by]
        with self._lock:
            rows = self._db.execute(
                f"SELECT {self._PLAYER_COLUMNS} FROM players WHERE hands > 0 "
                f"ORDER BY {column} DESC, id LIMIT ?", (limit,)).fetchall()
        return [PlayerRecord(*row) for row in rows]

    def save_match(self, room: str, number: int, summary: dict[str, Any]) -> None:
        """Store a finished match's 大结算 (once: a second call changes nothing)."""
        with self._lock:
            if self._db.execute("SELECT 1 FROM matches WHERE room = ? AND number = ?",
                                (room, number)).fetchone() is not None:
                return
            self._db.execute("INSERT INTO matches (room, number, summary, finished) "
                             "VALUES (?, ?, ?, ?)",
                             (room, number, json.dumps(summary, ensure_ascii=False),
                              time.time()))

    def matches_in_room(self, room: str) -> list[dict[str, Any]]:
        """The 大结算 of a room's finished matches, in order."""
        with self._lock:
            rows = self._db.execute("SELECT summary FROM matches WHERE room = ? ORDER BY number",
                                    (room,)).fetchall()
        return [dict(json.loads(r[0])) for r in rows]

    # ---- end of hall ---------------------------------------------------------------

    def close(self) -> None:
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join(timeout=5)
        with self._lock:
            self._db.close()
        if self._file_lock is not None:
            self._file_lock.release()
            self._file_lock = None
