"""Quick match across processes (docs/scaling.md): with Redis the queue is one for the
whole cluster — two people who queue through two processes meet at one table — and a
process's death does not leave its people queued forever."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from cluster_util import Process, owner_port
from server_util import auth, until

pytest.importorskip("psycopg")
pytest.importorskip("redis")

TICK, TTL = 0.1, 2.0


def client_from(address: str) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=10,
                        follow_redirects=True)


def player(http: httpx.Client, proc: Process, nickname: str) -> str:
    reply = http.post(f"{proc.base}/api/players", json={"nickname": nickname})
    assert reply.status_code == 200, reply.text
    return str(reply.json()["token"])


def queue(http: httpx.Client, proc: Process, token: str, preset: str) -> dict[str, Any]:
    reply = http.post(f"{proc.base}/api/match", json={"changci": "xinshou", "preset": preset},
                      headers=auth(token))
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def status(http: httpx.Client, proc: Process, token: str) -> dict[str, Any]:
    return dict(http.get(f"{proc.base}/api/match", headers=auth(token)).json())


def test_two_people_queued_on_two_processes_meet(postgres_url: str, redis_url: str) -> None:
    a, b = (Process(postgres_url, redis_url, match=(60.0, TICK, TTL)) for _ in range(2))
    try:
        on_a, on_b = client_from("127.0.0.2"), client_from("127.0.0.3")
        ta, tb = player(on_a, a, "甲"), player(on_b, b, "乙")
        assert queue(on_a, a, ta, "two-player")["status"] == "waiting"
        # the entry outlives its ttl while its player asks where he stands
        deadline = time.monotonic() + TTL * 1.5
        while time.monotonic() < deadline:
            assert status(on_a, a, ta)["status"] == "waiting"
            time.sleep(0.2)
        again = on_b.post(f"{b.base}/api/match", json={"changci": "xinshou"},
                          headers=auth(ta))  # the same person, through the other process
        assert again.status_code == 409 and "already in the quick-match queue" in again.text
        queue(on_b, b, tb, "two-player")
        def seated() -> list[dict[str, Any]] | None:
            found = [status(on_a, a, ta), status(on_b, b, tb)]
            return found if all(x["status"] == "seated" for x in found) else None

        both = until(seated)
        assert both, [status(on_a, a, ta), status(on_b, b, tb)]
        assert both[0]["code"] == both[1]["code"] and {x["seat"] for x in both} == {0, 1}
        assert all(x["computers"] == 0 for x in both)
        # the room is one table, seen the same through either process (one relays)
        for http, proc in ((on_a, a), (on_b, b)):
            reply = http.get(f"{proc.base}/api/rooms/{both[0]['code']}",
                             follow_redirects=False)
            assert reply.status_code == 200, reply.text
            info = reply.json()
            assert sorted(s["nickname"] for s in info["seats"]) == ["乙", "甲"]
            assert all(s["taken"] for s in info["seats"])
    finally:
        a.stop()
        b.stop()


def test_a_dead_process_leaves_nobody_queued_forever(postgres_url: str,
                                                     redis_url: str) -> None:
    a, b = (Process(postgres_url, redis_url, match=(60.0, TICK, TTL)) for _ in range(2))
    try:
        clients = [client_from(f"127.0.0.{i}") for i in range(2, 6)]
        tokens = [player(c, a, f"人{i}") for i, c in enumerate(clients)]
        queue(clients[0], b, tokens[0], "qq")  # queued through B, which then dies
        b.kill9()
        time.sleep(TTL + 0.5)
        # two more queue through A: with the dead entry they would make a full table
        queue(clients[1], a, tokens[1], "qq")
        queue(clients[2], a, tokens[2], "qq")
        time.sleep(10 * TICK)
        waiting = [status(c, a, t) for c, t in zip(clients[1:3], tokens[1:3], strict=True)]
        assert [w["status"] for w in waiting] == ["waiting", "waiting"], waiting
        assert waiting[0]["waiting"] == 2
        assert status(clients[0], a, tokens[0])["status"] == "idle"
        # a third living person completes the table
        queue(clients[3], a, tokens[3], "qq")
        def seated() -> list[dict[str, Any]] | None:
            found = [status(c, a, t) for c, t in zip(clients[1:], tokens[1:], strict=True)]
            return found if all(s["status"] == "seated" for s in found) else None

        done = until(seated)
        assert done and len({s["code"] for s in done}) == 1, done
    finally:
        a.stop()
        b.stop()


def test_a_group_is_taken_from_the_shared_queue_whole_or_not_at_all(redis_url: str) -> None:
    """The matching process takes a group's tickets out of Redis in one script: when one
    of them left (or re-queued) after the pass read the queue, nobody of that group is
    taken, and the others stay queued for the next pass."""
    import redis

    from paohuzi.server.matchmaking import AlreadyQueued, Group, SharedQueue, Ticket

    client = redis.Redis.from_url(redis_url)
    one, other = (SharedQueue(client, wait=60.0, distinct_addresses=True, ttl=30.0)
                  for _ in range(2))  # two processes
    tickets = [Ticket(p, f"p{p}", f"10.0.0.{p}", 0.0, "xinshou", "qq", since=float(p))
               for p in (1, 2, 3)]
    for t in tickets:
        one.join(t)
    with pytest.raises(AlreadyQueued):
        other.join(tickets[0])  # one queue for every process
    assert other.waiting(("xinshou", "qq")) == 3
    group = Group(("xinshou", "qq"), tuple(tickets), 3)
    assert other.leave(2) == tickets[1]  # left after the pass read the queue
    assert one._take(group) is False
    assert sorted(t.player for t in other.all_tickets()) == [1, 3]
    other.join(tickets[1])
    assert [len(g.people) for g in other.match(10.0, {"qq": 3}) if isinstance(g, Group)] \
        == [3]
    assert other.all_tickets() == [] and other.waiting(("xinshou", "qq")) == 0
    client.close()


def test_a_person_queued_anywhere_is_placed_at_a_hall_room_of_another_process(
        redis_url: str) -> None:
    """Every process's open hall rooms are offered to the whole queue: a person placed at
    a room served by another process is handed to it, his ticket still queued until
    that process takes it (so nobody is taken twice or lost), and a dead process's rooms
    stop being offered."""
    import redis

    from paohuzi.server.matchmaking import OpenRoom, Placement, SharedQueue, Ticket

    client = redis.Redis.from_url(redis_url)
    one, two = (SharedQueue(client, wait=60.0, distinct_addresses=True, ttl=30.0)
                for _ in range(2))
    room = OpenRoom("111111", ("xinshou", "qq"), 1, frozenset({"10.0.0.1"}))
    assert one.match(0.0, {"qq": 3}, [room]) == []  # published: nobody waits yet
    near = Ticket(2, "p2", "10.0.0.2", 0.0, "xinshou", "qq", since=1.0)
    twin = Ticket(3, "p3", "10.0.0.1", 0.0, "xinshou", "qq", since=0.5)  # an address there
    for t in (near, twin):
        two.join(t)
    assert two.other_rooms() == [room]
    assert two.match(2.0, {"qq": 3}) == []  # placed at one's room: handed over, not taken
    assert sorted(t.player for t in two.all_tickets()) == [2, 3]
    assert one.match(2.5, {"qq": 3}, [room]) == [Placement(near, "111111")]
    assert [t.player for t in two.all_tickets()] == [3]
    # handed over, then gone from the queue before the room's process takes him: nothing
    late = Ticket(4, "p4", "10.0.0.4", 0.0, "xinshou", "qq", since=3.0)
    two.leave(3)
    two.join(late)
    assert two.match(4.0, {"qq": 3}) == []
    assert two.leave(4) == late
    assert one.match(4.5, {"qq": 3}, [room]) == []
    # a process that stops publishing (dead) has its rooms offered no more
    one.tick = 0.05
    one.publish_rooms([room])
    time.sleep(0.5)
    assert two.other_rooms() == []
    client.close()


def test_a_hall_room_on_one_process_takes_a_person_queued_through_another(
        postgres_url: str, redis_url: str) -> None:
    a, b = (Process(postgres_url, redis_url, match=(2.0, TICK, TTL)) for _ in range(2))
    try:
        on_a, on_b = client_from("127.0.0.2"), client_from("127.0.0.3")
        first = player(on_a, a, "先")
        queue(on_a, a, first, "qq")  # alone: after the wait, a hall room with computers
        seated = until(lambda: (s := status(on_a, a, first))["status"] == "seated" and s)
        assert seated and seated["computers"] == 2, seated
        # made by whichever process ran that matching pass: the next person comes
        # through the other one
        owner = owner_port(postgres_url, seated["code"])
        assert owner in (a.port, b.port)
        other = b if owner == a.port else a
        second = player(on_b, other, "后")
        queue(on_b, other, second, "qq")  # takes a computer seat of the owner's room
        placed = until(lambda: (s := status(on_b, other, second))["status"] == "seated"
                       and s)
        assert placed and placed["code"] == seated["code"], (placed, seated)
        assert placed["seat"] != seated["seat"]
    finally:
        a.stop()
        b.stop()


def test_a_refusal_is_read_through_every_process_and_replaces_an_old_seat(
        redis_url: str) -> None:
    """One taken out of the queue unseated (the entry minimum, checked again at seating)
    is told why by whichever process he asks, not sent to where he sat before; queueing
    again forgets it."""
    import redis

    from paohuzi.server.matchmaking import Seated, SharedQueue

    client = redis.Redis.from_url(redis_url)
    one, other = (SharedQueue(client, 20.0, True, TTL) for _ in range(2))
    player = 987_654
    one.note_seated(player, Seated("old1", 0, 2, False))
    assert other.seated(player) == Seated("old1", 0, 2, False)
    one.note_refused(player, "初级场 (Junior room) needs at least 1000 beans to sit")
    assert other.refused(player) == "初级场 (Junior room) needs at least 1000 beans to sit"
    assert other.seated(player) is None
    other.forget_refused(player)
    assert one.refused(player) is None


def test_nobody_queues_through_another_process_while_a_pass_seats_him(
        redis_url: str) -> None:
    """A review: the pass of one process takes a group out of the shared queue and awaits
    the new room; meanwhile another process accepted a queue request of one of them (its
    own "being seated" set is per process) — he could be seated twice. Now the take marks
    each person in Redis as being seated: every process refuses to queue him and shows
    him waiting, and the marks go when the pass is done (here the room fails and everyone
    is put back, queued once)."""
    import asyncio

    import redis

    from paohuzi.server.matchmaking import (
        BEING_SEATED,
        AlreadyQueued,
        Matchmaker,
        MatchSettings,
    )
    from paohuzi.server.roombounds import ServerFull
    from paohuzi.server.storage import SQLiteStorage

    storage = SQLiteStorage(":memory:")
    records = {rec.id: rec for rec, _ in (storage.create_player(f"p{i}") for i in range(3))}
    said: list[str] = []

    class FullServer:
        def __init__(self) -> None:
            self.storage = storage
            self.runtimes: dict[str, Any] = {}

        async def open_room(self, options: Any, creator: Any, entries: Any,
                            on_code: Any = None) -> Any:
            for rec in records.values():  # in the window, through the other process
                try:
                    other.join(rec, "10.9.9.9", "xinshou", "qq")
                except AlreadyQueued as exc:
                    said.append(str(exc))
                said.append(other.status(rec.id)["status"])
            raise ServerFull("full")

    client = redis.Redis.from_url(redis_url)
    settings = MatchSettings(wait=0.0, distinct_addresses=False)
    one, other = (Matchmaker(FullServer(), settings) for _ in range(2))  # type: ignore[arg-type]
    for maker in (one, other):
        maker.share(client)
    for pid, rec in records.items():
        one.join(rec, f"10.0.0.{pid}", "xinshou", "qq", now=float(pid))
    assert asyncio.run(one.tick(now=time.time())) == 0  # the room refused
    assert said == [BEING_SEATED, "waiting"] * 3
    assert sorted(t.player for t in other.queue.all_tickets()) == sorted(records)
    assert not client.keys("paohuzi:mm:seating:*")  # the pass is done: no marks left
    with pytest.raises(AlreadyQueued, match="already in the quick-match queue"):
        other.join(records[min(records)], "10.9.9.9", "xinshou", "qq")
    client.close()


class _Room:
    """A room as a pass uses it when seating a group (the stub servers' rooms)."""

    def __init__(self) -> None:
        import asyncio

        self.lock = asyncio.Lock()

    def note_level(self, seat: int, player: int) -> None:
        pass

    def schedule(self) -> None:
        pass


class _RoomMaker:
    """A server that opens every room it is asked for (``full``: refuses them all),
    noting each one's sit entries."""

    def __init__(self, storage: Any, opened: list[tuple[str, list[dict[str, Any]]]],
                 full: bool = False) -> None:
        self.storage, self.opened, self.full = storage, opened, full
        self.runtimes: dict[str, Any] = {}

    async def open_room(self, options: Any, creator: Any, entries: Any,
                        on_code: Any = None) -> Any:
        from types import SimpleNamespace

        from paohuzi.server.roombounds import ServerFull

        if self.full:
            raise ServerFull("full")
        code = str(100_001 + len(self.opened))
        self.runtimes[code] = _Room()
        self.opened.append((code, list(entries)))
        return SimpleNamespace(code=code)


def test_a_put_back_never_clears_the_mark_of_another_process_s_pass(redis_url: str) -> None:
    """A review: a pass that could not open its room put its person back, and then
    cleared his being-seated mark once more — after another process's pass had taken
    him again (and marked him). He could queue a third time while that pass seated him,
    and sat at two tables. A pass now clears its own marks only."""
    import asyncio

    import redis

    from paohuzi.server.matchmaking import (
        BEING_SEATED,
        AlreadyQueued,
        Matchmaker,
        MatchSettings,
    )
    from paohuzi.server.storage import SQLiteStorage

    storage = SQLiteStorage(":memory:")
    rec, _ = storage.create_player("甲")
    opened: list[tuple[str, list[dict[str, Any]]]] = []
    client = redis.Redis.from_url(redis_url)
    settings = MatchSettings(wait=0.0, distinct_addresses=False)
    one = Matchmaker(_RoomMaker(storage, opened, full=True), settings)  # type: ignore[arg-type]
    other = Matchmaker(_RoomMaker(storage, opened), settings)  # type: ignore[arg-type]
    for maker in (one, other):
        maker.share(client)
    taken: list[Any] = []
    put_back = one.queue.join

    def then_the_other_pass(ticket: Any) -> None:
        put_back(ticket)  # one's pass puts him back; the other's pass takes him at once
        taken.extend(other.queue.match(time.time(), {"qq": 3}, []))

    one.join(rec, "10.0.0.1", "xinshou", "qq", now=1.0)
    one.queue.join = then_the_other_pass  # type: ignore[method-assign]
    assert asyncio.run(one.tick(now=time.time())) == 0
    one.queue.join = put_back  # type: ignore[method-assign]
    assert [t.player for g in taken for t in g.people] == [rec.id]
    with pytest.raises(AlreadyQueued, match=BEING_SEATED):  # the other pass seats him
        one.join(rec, "10.0.0.1", "xinshou", "qq")
    assert one.status(rec.id)["status"] == "waiting"
    for group in taken:
        asyncio.run(other._seat_group(group))
    assert [e["player"] for _, entries in opened for e in entries if e["k"] == "sit"] \
        == [rec.id]  # one table
    client.close()


def test_every_process_says_where_a_person_was_seated_last(redis_url: str) -> None:
    """A review: a process answered a person's status from its own memory of where it
    had seated him, before what Redis says — after he queued again through another
    process and was seated there, it still sent him to his old table."""
    import asyncio

    import redis

    from paohuzi.server.matchmaking import Matchmaker, MatchSettings
    from paohuzi.server.storage import SQLiteStorage

    storage = SQLiteStorage(":memory:")
    rec, _ = storage.create_player("甲")
    opened: list[tuple[str, list[dict[str, Any]]]] = []
    client = redis.Redis.from_url(redis_url)
    settings = MatchSettings(wait=0.0)
    one, other = (Matchmaker(_RoomMaker(storage, opened), settings)  # type: ignore[arg-type]
                  for _ in range(2))
    for maker in (one, other):
        maker.share(client)
    one.join(rec, "10.0.0.1", "xinshou", "qq", now=1.0)
    assert asyncio.run(one.tick(now=time.time())) == 1
    first = one.status(rec.id)
    assert first["status"] == "seated" and other.status(rec.id) == first
    one.rooms.clear()  # (the stub rooms offer no seat)
    other.join(rec, "10.0.0.1", "xinshou", "qq", now=2.0)  # again, through the other
    assert one.status(rec.id)["status"] == "waiting"
    assert asyncio.run(other.tick(now=time.time())) == 1
    again = other.status(rec.id)
    assert again["status"] == "seated" and again["code"] != first["code"]
    assert one.status(rec.id) == again
    client.close()


class _Killed(BaseException):
    """A process's death in the middle of a pass (nothing after it runs in the pass)."""


@pytest.mark.parametrize("stored", [True, False])
def test_a_pass_killed_around_storing_its_room_leaves_its_people_told(redis_url: str,
                                                                      stored: bool) -> None:
    """A process killed after storing a quick-match room (its people seated in its log)
    and before writing where they sit left them at a table nobody told them of: their
    status said ``idle`` once the pass's marks expired. Where they sit is written before
    the room is stored; any process confirms it against the database once the pass is
    gone — seated if the room was stored, forgotten (``idle``, free to queue) if not."""
    import asyncio

    import redis

    from paohuzi.server.matchmaking import Matchmaker, MatchSettings
    from paohuzi.server.storage import SQLiteStorage

    storage = SQLiteStorage(":memory:")
    people = [storage.create_player(f"p{i}")[0] for i in range(3)]

    class DyingServer:
        def __init__(self) -> None:
            self.storage, self.runtimes = storage, {}

        async def open_room(self, options: Any, creator: Any, entries: Any,
                            on_code: Any = None) -> Any:
            if on_code is not None:
                on_code("654321")
            if stored:  # the room and its people's seats: one transaction, committed
                storage.create_room("654321", {"rules": "qq"}, None, entries)
            raise _Killed  # kill -9: nothing after this in the pass

    client = redis.Redis.from_url(redis_url)
    settings = MatchSettings(wait=0.0, distinct_addresses=False)
    dying = Matchmaker(DyingServer(), settings)  # type: ignore[arg-type]
    other = Matchmaker(_RoomMaker(storage, []), settings)  # type: ignore[arg-type]
    for maker in (dying, other):
        maker.share(client)
    for i, rec in enumerate(people):
        dying.join(rec, f"10.0.0.{i}", "xinshou", "qq", now=float(i))
    with pytest.raises(_Killed):
        asyncio.run(dying.tick(now=time.time()))
    for mark in client.keys("paohuzi:mm:seating:*"):  # the pass's marks expire (the
        client.delete(mark)                            # test's pass cleared them)
    said = [other.status(rec.id) for rec in people]
    if stored:
        assert [(s["status"], s.get("code"), s.get("seat")) for s in said] == [
            ("seated", "654321", seat) for seat in range(3)]
        assert [other.status(rec.id) for rec in people] == said  # confirmed once, kept
        assert all(b'"provisional": false' in client.get(f"paohuzi:mm:seated:{rec.id}")
                   for rec in people)
    else:
        assert [s["status"] for s in said] == ["idle"] * 3
        assert not client.keys("paohuzi:mm:seated:*")
        other.join(people[0], "10.0.0.9", "xinshou", "qq")  # free to queue again
        assert other.status(people[0].id)["status"] == "waiting"
    client.close()


def test_a_room_stored_but_not_opened_is_ended_and_its_people_queue_again(
        redis_url: str) -> None:
    """A review: a database error right after a group's room was stored (reading its
    people's levels) made the pass put them back in the queue while the room stayed
    open with them seated, served by nobody. A room stored but not opened is ended."""
    import asyncio

    import redis

    from paohuzi.server.matchmaking import MatchSettings
    from paohuzi.server.server import Server
    from paohuzi.server.storage import SQLiteStorage

    storage = SQLiteStorage(":memory:")
    server = Server(storage)
    server.matchmaker.settings = MatchSettings(wait=0.0, distinct_addresses=False)
    client = redis.Redis.from_url(redis_url)
    server.matchmaker.share(client)
    people = [storage.create_player(f"p{i}")[0] for i in range(3)]
    for i, rec in enumerate(people):
        server.matchmaker.join(rec, f"10.0.0.{i}", "xinshou", "qq", now=float(i))
    real_player, real_create = storage.player, storage.create_room
    stored: list[str] = []

    def create_room(code: str, *args: Any, **kwargs: Any) -> None:
        real_create(code, *args, **kwargs)
        stored.append(code)

    def player(pid: int) -> Any:
        if stored:  # the room is stored: the next read fails, once
            storage.player = real_player  # type: ignore[method-assign]
            raise ConnectionError("database went away")
        return real_player(pid)

    storage.create_room = create_room  # type: ignore[method-assign]
    storage.player = player  # type: ignore[method-assign]

    async def go() -> None:
        await server.matchmaker.tick(now=time.time())
        for runtime in list(server.runtimes.values()):
            runtime.stop()

    asyncio.run(go())
    assert len(stored) == 1 and stored[0] not in server.runtimes
    assert not storage.room_is_open(stored[0])  # ended: never restored with them in it
    assert [server.matchmaker.status(rec.id)["status"] for rec in people] == \
        ["waiting"] * 3
    client.close()


@pytest.mark.parametrize("stored", [True, False])
def test_a_provisional_place_confirmed_or_forgotten_never_replaces_a_newer_one(
        redis_url: str, stored: bool) -> None:
    """A review: a process confirming (or forgetting) a dead pass's provisional place
    wrote over a place another process had written meanwhile (he queued again and was
    seated at another table during the database query): he was sent to the old table,
    or shown idle. The replacement is one compare-and-set."""
    import redis

    from paohuzi.server.matchmaking import Matchmaker, MatchSettings, Seated
    from paohuzi.server.storage import SQLiteStorage

    storage = SQLiteStorage(":memory:")
    rec = storage.create_player("p")[0]
    if stored:
        storage.create_room("654321", {"rules": "qq"}, None,
                            [{"k": "sit", "seat": 0, "player": rec.id, "nickname": "p"}])
    client = redis.Redis.from_url(redis_url)
    settings = MatchSettings(wait=0.0, distinct_addresses=False)
    one, other = (Matchmaker(_RoomMaker(storage, []), settings)  # type: ignore[arg-type]
                  for _ in range(2))
    for maker in (one, other):
        maker.share(client)
    one.queue.note_seated(rec.id, Seated("654321", 0, 2, False, True))  # then killed
    real = storage.room_is_open
    newer = Seated("777777", 1, 2, False)

    def meanwhile(code: str) -> bool:
        found = real(code)
        other.queue.note_seated(rec.id, newer)  # seated again through the other process
        return found

    storage.room_is_open = meanwhile  # type: ignore[method-assign]
    said = one.status(rec.id)
    storage.room_is_open = real  # type: ignore[method-assign]
    assert said == newer.to_json() and other.status(rec.id) == newer.to_json()
    client.close()
