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


def test_a_room_is_stored_with_its_first_entries_in_one_transaction(database: str) -> None:
    """A room and its people seated were two commits: a crash between them left a room
    whose creator (or quick-match group) was never seated, which could never deal."""
    import psycopg

    storage = open_storage(database)
    try:
        seated = [{"k": "sit", "seat": 0, "player": 1, "nickname": "甲"}]
        storage.create_room("r1", {"rules": "qq"}, None, seated)
        assert storage.load_log("r1") == seated
        assert storage.append_log("r1", {"k": "next"}) == 2  # the log goes on after them
        taken = (sqlite3.IntegrityError, psycopg.errors.UniqueViolation)
        with pytest.raises(taken):  # the code is taken: nothing of it is stored
            storage.create_room("r1", {"rules": "hunan"}, None, [{"k": "stray"}])
        assert storage.rooms() == [("r1", {"rules": "qq"})]
        assert [e["k"] for e in storage.load_log("r1")] == ["sit", "next"]
    finally:
        storage.close()


def test_a_rating_changed_since_it_was_read_is_never_overwritten(database: str) -> None:
    """A settlement wrote each player's new rating as read before its transaction: two
    processes settling hands of one player at once lost one of the two changes. It now
    writes only while the rating is still the one it was worked out from, and rates
    again otherwise (settlement.settle)."""
    from paohuzi.server.storage import RatingMovedError

    storage = open_storage(database)
    try:
        rec, _ = storage.create_player("甲", beans=100)
        storage.create_room("r1", {"rules": "qq"})
        start = (rec.rating_mu, rec.rating_sigma)
        # another process's settlement moved his rating meanwhile
        storage.settle_hand("r1", 1, None, [rec.id],
                            [PlayerUpdate(rec.id, 3, 3, True, 27.0, 8.0, rated_from=start)],
                            {"k": "settled", "hand": 1})
        stale = PlayerUpdate(rec.id, 6, 6, True, 28.0, 7.5, rated_from=start)
        with pytest.raises(RatingMovedError):
            storage.settle_hand("r1", 2, {"result": {}}, [rec.id], [stale],
                                {"k": "settled", "hand": 2})
        after = storage.player(rec.id)
        assert after is not None and (after.rating_mu, after.rating_sigma) == (27.0, 8.0)
        assert (after.points, after.beans, after.hands) == (3, 103, 1)  # nothing written
        assert [e["hand"] for e in storage.load_log("r1")] == [1]
        assert storage.games_of(rec.id) == []
        fresh = PlayerUpdate(rec.id, 6, 6, True, 28.0, 7.5, rated_from=(27.0, 8.0))
        storage.settle_hand("r1", 2, None, [rec.id], [fresh], {"k": "settled", "hand": 2})
        after = storage.player(rec.id)
        assert after is not None and (after.rating_mu, after.points) == (28.0, 9)
    finally:
        storage.close()


def test_both_backends_answer_alike_for_the_hall(database: str) -> None:
    """Beans on creation, the capped transfer written to the ``settled`` entry, the daily
    relief, the leaderboard and the 大结算: the same answers from both backends."""
    storage = open_storage(database)
    try:
        broke, _ = storage.create_player("穷", beans=30)
        rich, _ = storage.create_player("富", beans=500)
        idle, _ = storage.create_player("闲", beans=2000)
        assert (broke.beans, rich.beans, idle.beans) == (30, 500, 2000)
        storage.create_room("h", {"changci": "chuji"})
        entry: dict[str, Any] = {"k": "settled", "hand": 1}
        record = {"result": {"reason": "hu", "points": [-90, -90, 180]}}
        storage.settle_hand("h", 1, record, [broke.id, rich.id], [
            PlayerUpdate(broke.id, -90, -90, False, 24.0, 8.0),
            PlayerUpdate(rich.id, 180, 180, True, 26.0, 8.0)], entry)  # a computer owes 90
        assert entry["beans"] == {str(broke.id): -30, str(rich.id): 120}
        assert storage.load_log("h")[-1] == entry  # what moved is in the log
        after = storage.player(broke.id)
        assert after is not None and (after.beans, after.points, after.hands) == (0, -90, 1)
        # the same hand again: only its log entry, no second transfer
        again: dict[str, Any] = {"k": "settled", "hand": 1}
        storage.settle_hand("h", 1, record, [broke.id, rich.id], [
            PlayerUpdate(rich.id, 180, 180, True, 26.0, 8.0)], again)
        assert "beans" not in again
        player = storage.player(rich.id)
        assert player is not None and player.beans == 620
        # the relief: for the broke, once a day, in one transaction
        assert storage.claim_relief(broke.id, "2024-01-01", 200, 1000) == 1000
        assert storage.claim_relief(broke.id, "2024-01-01", 200, 1000) is None
        assert storage.claim_relief(rich.id, "2024-01-01", 200, 1000) is None  # not broke
        assert storage.claim_relief(10**6, "2024-01-01", 200, 1000) is None  # nobody
        player = storage.player(broke.id)
        assert player is not None and player.beans == 1000
        # the leaderboard: those who played, best first
        assert [p.id for p in storage.leaderboard("points", 10)] == [rich.id, broke.id]
        assert [p.id for p in storage.leaderboard("beans", 10)] == [broke.id, rich.id]
        assert [p.id for p in storage.leaderboard("beans", 1)] == [broke.id]
        with pytest.raises(KeyError):
            storage.leaderboard("rating", 10)
        # the 大结算, stored once per match, read back in order
        storage.save_match("h", 2, {"match": 2, "名": "二"})
        storage.save_match("h", 1, {"match": 1})
        storage.save_match("h", 1, {"match": "changed"})  # once: the first one stays
        assert storage.matches_in_room("h") == [{"match": 1}, {"match": 2, "名": "二"}]
        assert storage.matches_in_room("other") == []
    finally:
        storage.close()


def test_a_database_of_the_hall_from_before_versions_keeps_its_tables(tmp_path: Any) -> None:
    """A SQLite file of the hall before versioned migrations already has ``relief`` and
    ``matches``: migration 3 keeps them and their rows."""
    path = str(tmp_path / "hall.db")
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE players (id INTEGER PRIMARY KEY AUTOINCREMENT, nickname TEXT NOT NULL,
            token_hash TEXT NOT NULL UNIQUE, points INTEGER NOT NULL DEFAULT 0,
            beans INTEGER NOT NULL DEFAULT 0, hands INTEGER NOT NULL DEFAULT 0,
            wins INTEGER NOT NULL DEFAULT 0, rating_mu REAL NOT NULL DEFAULT 25.0,
            rating_sigma REAL NOT NULL DEFAULT 8.3, created REAL NOT NULL);
        CREATE TABLE relief (player_id INTEGER NOT NULL, day TEXT NOT NULL,
            amount INTEGER NOT NULL, PRIMARY KEY (player_id, day));
        CREATE TABLE matches (room TEXT NOT NULL, number INTEGER NOT NULL,
            summary TEXT NOT NULL, finished REAL NOT NULL, PRIMARY KEY (room, number));
        INSERT INTO players (nickname, token_hash, beans, created) VALUES ('a', 'h', 5, 1.0);
        INSERT INTO relief VALUES (1, '2024-01-01', 1000);
        INSERT INTO matches VALUES ('old', 1, '{"match": 1}', 2.0);
    """)
    db.close()
    storage = SQLiteStorage(path)
    try:
        assert storage.matches_in_room("old") == [{"match": 1}]
        assert storage.claim_relief(1, "2024-01-01", 200, 1000) is None  # claimed already
        assert storage.claim_relief(1, "2024-01-02", 200, 1000) == 1005
    finally:
        storage.close()
    assert versions_sqlite(path) == [m.version for m in SQLITE]


def test_concurrent_settlements_never_take_a_player_below_zero(postgres_url: str) -> None:
    """Several processes settle hands of one player at once (each in its own room): his
    row is locked while his beans are read and written, so the payments add up to what
    he held, never more."""
    from paohuzi.server.pgstorage import PostgresStorage

    stores = [PostgresStorage(postgres_url, shared=True) for _ in range(4)]
    try:
        rec, _ = stores[0].create_player("共", beans=100)
        entries: list[dict[str, Any]] = []
        for i, store in enumerate(stores):
            for j in range(3):
                room = f"c{i}-{j}"
                store.create_room(room, {})
                assert store.acquire_lease(room, f"P{i}", "", ttl=60) is not None
        barrier = threading.Barrier(len(stores))
        errors: list[BaseException] = []

        def settle(i: int, store: PostgresStorage) -> None:
            try:
                barrier.wait()
                for j in range(3):
                    entry: dict[str, Any] = {"k": "settled", "hand": 1}
                    store.settle_hand(f"c{i}-{j}", 1, None, [], [
                        PlayerUpdate(rec.id, -40, -40, False, 25.0, 8.0)], entry)
                    entries.append(entry)
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=settle, args=(i, s)) for i, s in enumerate(stores)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        paid = [e["beans"][str(rec.id)] for e in entries]
        assert len(paid) == 12 and sum(paid) == -100 and all(-40 <= p <= 0 for p in paid)
        player = stores[0].player(rec.id)
        assert player is not None and player.beans == 0 and player.hands == 12
    finally:
        for store in stores:
            store.close()


def test_concurrent_relief_claims_give_it_once(postgres_url: str) -> None:
    from paohuzi.server.pgstorage import PostgresStorage

    stores = [PostgresStorage(postgres_url, shared=True) for _ in range(4)]
    try:
        rec, _ = stores[0].create_player("穷", beans=0)
        barrier = threading.Barrier(len(stores))
        got: list[int | None] = []
        errors: list[BaseException] = []

        def claim(store: PostgresStorage) -> None:
            try:
                barrier.wait()
                got.append(store.claim_relief(rec.id, "2024-01-01", 200, 1000))
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=claim, args=(s,)) for s in stores]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and sorted(got, key=lambda g: g is None) == [1000, None, None, None]
        player = stores[0].player(rec.id)
        assert player is not None and player.beans == 1000
    finally:
        for store in stores:
            store.close()


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
        with pytest.raises(LeaseLostError):
            a.save_match("r", 1, {"match": 1})
        assert a.matches_in_room("r") == []
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


def test_an_append_waits_for_a_takeover_in_progress_and_is_refused(postgres_url: str) -> None:
    """The fencing check is in the append's own statement: a takeover not yet committed
    holds the lease row, the stale owner's append waits for it, then sees the new token
    and writes nothing."""
    import psycopg

    from paohuzi.server.pgstorage import LeaseLostError, PostgresStorage

    a = PostgresStorage(postgres_url, shared=True)
    try:
        a.create_room("r", {})
        assert a.acquire_lease("r", "A", "http://a", ttl=30) == 1
        assert a.append_log("r", {"k": "by A"}) == 1
        outcome: list[object] = []
        with psycopg.connect(postgres_url) as takeover:  # a transaction, not committed yet
            takeover.execute("UPDATE room_leases SET owner = 'B', token = token + 1 "
                             "WHERE room = 'r'")
            writer = threading.Thread(target=lambda: outcome.append(
                _append_or_error(a, "r", {"k": "by stale A"}, LeaseLostError)))
            writer.start()
            writer.join(0.5)
            assert writer.is_alive()  # waiting for the takeover's row lock
            takeover.commit()
            writer.join(10)
        assert outcome == ["refused"]
        assert [e["k"] for e in a.load_log("r")] == ["by A"]
        assert a.renew_leases("A", 30) == {"r"}
    finally:
        a.close()


def _append_or_error(storage: Any, room: str, entry: dict[str, Any],
                     error: type[Exception]) -> object:
    try:
        return storage.append_log(room, entry)
    except error:
        return "refused"


def test_a_new_room_of_a_cluster_is_never_seen_without_its_owner(postgres_url: str) -> None:
    """The room and its lease are stored in one transaction: another process's upkeep
    (which takes over open rooms without a live lease) can never take a room its
    creator has not claimed yet."""
    from paohuzi.server.pgstorage import PostgresStorage

    a = PostgresStorage(postgres_url, shared=True)
    b = PostgresStorage(postgres_url, shared=True)
    try:
        assert a.create_leased_room("r", {"x": 1}, "A", "http://a", ttl=30) == 1
        assert b.unowned_rooms() == []
        assert b.acquire_lease("r", "B", "http://b", ttl=30) is None
        assert a.lease_holder("r") == ("A", "http://a")
        assert a.append_log("r", {"k": "by A"}) == 1
        import psycopg

        with pytest.raises(psycopg.errors.UniqueViolation):
            b.create_leased_room("r", {}, "B", "http://b", ttl=30)  # a code is one room's
        assert a.lease_holder("r") == ("A", "http://a") and a.room("r") == {"x": 1}
    finally:
        a.close()
        b.close()
