"""Both storage backends: versioned migrations, the same answers, one transaction per
settlement, and PostgreSQL's room leases with fencing tokens."""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

import pytest

from paohuzi.server.backends import open_storage
from paohuzi.server.dblock import DatabaseInUseError
from paohuzi.server.migrations import (
    POSTGRES,
    SQLITE,
    Migration,
    SchemaTooNewError,
    migrate_sqlite,
)
from paohuzi.server.storage import PlayerUpdate, SQLiteStorage

pytest.importorskip("psycopg")


def versions_sqlite(path: str) -> list[int]:
    db = sqlite3.connect(path)
    rows = db.execute("SELECT version FROM schema_version ORDER BY version").fetchall()
    db.close()
    return [v for (v,) in rows]


def versions_postgres(url: str) -> list[int]:
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT version FROM schema_version ORDER BY version").fetchall()
    return [int(v) for (v,) in rows]


def test_a_fresh_database_gets_every_migration_once(database: str) -> None:
    read = versions_postgres if database.startswith("postgresql://") else versions_sqlite
    migrations = POSTGRES if database.startswith("postgresql://") else SQLITE
    open_storage(database).close()
    open_storage(database).close()  # reopening applies nothing again
    assert read(database) == [m.version for m in migrations]


def test_a_database_from_before_versions_is_brought_up_to_date(tmp_path: Any) -> None:
    path = str(tmp_path / "old.db")
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE players (id INTEGER PRIMARY KEY AUTOINCREMENT, nickname TEXT NOT NULL,
            token_hash TEXT NOT NULL UNIQUE, points INTEGER NOT NULL DEFAULT 0,
            beans INTEGER NOT NULL DEFAULT 0, hands INTEGER NOT NULL DEFAULT 0,
            wins INTEGER NOT NULL DEFAULT 0, rating_mu REAL NOT NULL DEFAULT 25.0,
            rating_sigma REAL NOT NULL DEFAULT 8.3, created REAL NOT NULL);
        CREATE TABLE rooms (code TEXT PRIMARY KEY, config TEXT NOT NULL, created REAL NOT NULL);
        CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, room TEXT NOT NULL,
            record TEXT NOT NULL, finished REAL NOT NULL);
        INSERT INTO rooms VALUES ('old', '{}', 5.0);
        INSERT INTO games (room, record, finished) VALUES ('old', '{}', 6.0);
    """)
    db.close()
    storage = SQLiteStorage(path)
    try:
        assert storage.idle_rooms(5.5) == ["old"]  # touched = created, added by migration 1
        public_id = sqlite3.connect(path).execute("SELECT public_id FROM games").fetchone()[0]
        assert public_id is not None and len(public_id) == 22
    finally:
        storage.close()
    assert versions_sqlite(path) == [m.version for m in SQLITE]


def test_a_new_migration_is_applied_once_and_a_newer_database_is_refused(tmp_path: Any) -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    assert migrate_sqlite(db) == len(SQLITE)
    extra = (*SQLITE, Migration(len(SQLITE) + 1, "a test column",
                                ("ALTER TABLE players ADD COLUMN extra INTEGER",)))
    assert migrate_sqlite(db, extra) == len(SQLITE) + 1
    assert migrate_sqlite(db, extra) == len(SQLITE) + 1  # not twice (it would fail)
    with pytest.raises(SchemaTooNewError, match="upgrade paohuzi"):
        migrate_sqlite(db, SQLITE)


def test_a_failed_migration_leaves_the_last_whole_version(tmp_path: Any) -> None:
    db = sqlite3.connect(":memory:", isolation_level=None)
    broken = (*SQLITE, Migration(len(SQLITE) + 1, "half done", (
        "CREATE TABLE half (x INTEGER)", "ALTER TABLE nowhere ADD COLUMN y INTEGER")))
    with pytest.raises(sqlite3.OperationalError):
        migrate_sqlite(db, broken)
    assert db.execute("SELECT MAX(version) FROM schema_version").fetchone()[0] == len(SQLITE)
    assert db.execute("SELECT name FROM sqlite_master WHERE name = 'half'").fetchone() is None


def test_both_backends_answer_alike(database: str) -> None:
    storage = open_storage(database)
    try:
        rec, token = storage.create_player("甲")
        assert storage.player_by_token(token) == rec
        assert storage.player_by_token(token + "x") is None
        storage.create_room("r1", {"rules": "qq"})
        assert storage.rooms() == [("r1", {"rules": "qq"})]
        assert [storage.append_log("r1", {"k": "a", "i": i}) for i in range(3)] == [1, 2, 3]
        update = PlayerUpdate(rec.id, 12, 6, True, 26.5, 8.0)
        first = storage.settle_hand("r1", 1, {"result": {"reason": "hu", "points": [12]}},
                                    [rec.id], [update], {"k": "settled", "hand": 1})
        again = storage.settle_hand("r1", 1, {"result": {}}, [rec.id], [update],
                                    {"k": "settled", "hand": 1})
        assert first is not None and again == first  # a hand recorded once, counted once
        player = storage.player(rec.id)
        assert player is not None and (player.points, player.beans, player.hands,
                                       player.wins) == (12, 6, 1, 1)
        assert [e["k"] for e in storage.load_log("r1")] == ["a", "a", "a", "settled", "settled"]
        games = storage.games_of(rec.id)
        assert [g["reason"] for g in games] == ["hu"]
        stored = storage.game_by_public_id(games[0]["id"])
        assert stored is not None and stored.players == {rec.id} and not stored.room_ended
        storage.end_room("r1")
        assert storage.rooms() == []
        stored = storage.game_by_public_id(games[0]["id"])
        assert stored is not None and stored.room_ended
    finally:
        storage.close()


def test_a_failed_settlement_writes_nothing(database: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    storage = open_storage(database)
    try:
        rec, _ = storage.create_player("乙")
        storage.create_room("r2", {})

        def broken(*args: Any) -> None:
            raise RuntimeError("disk full")

        monkeypatch.setattr(type(storage), "_apply_updates", broken)
        with pytest.raises(RuntimeError):
            storage.settle_hand("r2", 1, {"result": {}}, [rec.id],
                                [PlayerUpdate(rec.id, 5, 5, True, 25.0, 8.0)],
                                {"k": "settled", "hand": 1})
        assert storage.load_log("r2") == [] and storage.games_of(rec.id) == []
    finally:
        storage.close()


def test_a_second_lone_server_is_refused_on_postgres(postgres_url: str) -> None:
    one = open_storage(postgres_url)
    try:
        with pytest.raises(DatabaseInUseError, match="already used"):
            open_storage(postgres_url)
        open_storage(postgres_url, shared=True).close()  # processes sharing it: leases
    finally:
        one.close()
    open_storage(postgres_url).close()  # free again once closed


def test_several_processes_need_postgres(tmp_path: Any) -> None:
    with pytest.raises(ValueError, match="PostgreSQL"):
        open_storage(str(tmp_path / "x.db"), shared=True)


def test_processes_starting_together_migrate_once(postgres_url: str) -> None:
    errors: list[BaseException] = []

    def start() -> None:
        try:
            open_storage(postgres_url, shared=True).close()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert versions_postgres(postgres_url) == [m.version for m in POSTGRES]


def test_a_stale_owner_can_never_write(postgres_url: str) -> None:
    from paohuzi.server.pgstorage import LeaseLostError, PostgresStorage

    a = PostgresStorage(postgres_url, shared=True)
    b = PostgresStorage(postgres_url, shared=True)
    try:
        a.create_room("r", {})
        with pytest.raises(LeaseLostError, match="not owned"):
            a.append_log("r", {"k": "x"})  # several processes: no write without a lease
        token_a = a.acquire_lease("r", "A", "http://a", ttl=30)
        assert token_a == 1
        assert b.acquire_lease("r", "B", "http://b", ttl=30) is None  # A's lease is live
        assert b.lease_holder("r") == ("A", "http://a")
        assert a.append_log("r", {"k": "by A"}) == 1
        # A stalls past its lease: B takes over, with a greater token
        a.acquire_lease("r", "A", "http://a", ttl=-1)
        assert b.unowned_rooms() == ["r"]
        token_b = b.acquire_lease("r", "B", "http://b", ttl=30)
        assert token_b is not None and token_a is not None and token_b > token_a
        with pytest.raises(LeaseLostError, match="taken over"):
            a.append_log("r", {"k": "by stale A"})
        with pytest.raises(LeaseLostError):
            a.settle_hand("r", 1, None, [], [], {"k": "settled", "hand": 1})
        assert b.append_log("r", {"k": "by B"}) == 2
        assert [e["k"] for e in b.load_log("r")] == ["by A", "by B"]
        assert a.renew_leases("A", 30) == {"r"}  # the refused write is reported once
        assert a.renew_leases("A", 30) == set()
        assert b.renew_leases("B", 30) == set()
        b.release_lease("r", "B")
        assert a.acquire_lease("r", "A", "http://a", ttl=30) == (token_b or 0) + 1
        assert b.renew_leases("B", 30) == set()  # released: nothing held, nothing lost
    finally:
        a.close()
        b.close()


def test_renewing_reports_a_room_taken_over(postgres_url: str) -> None:
    from paohuzi.server.pgstorage import PostgresStorage

    a = PostgresStorage(postgres_url, shared=True)
    b = PostgresStorage(postgres_url, shared=True)
    try:
        a.create_room("r", {})
        a.create_room("s", {})
        assert a.acquire_lease("r", "A", "", ttl=-1) and a.acquire_lease("s", "A", "", ttl=30)
        assert b.acquire_lease("r", "B", "", ttl=30)
        assert a.renew_leases("A", 30) == {"r"}
    finally:
        a.close()
        b.close()
