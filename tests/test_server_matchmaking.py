"""The hall where strangers meet (issue 16): quick match by 场次 and preset, seats changing
hands between hands, presence, quick chat."""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import replace
from typing import Any

import httpx
import pytest
from server_util import auth, live_server, until

pytest.importorskip("starlette")
websockets = pytest.importorskip("websockets")

from paohuzi.server.economy import STARTING_BEANS  # noqa: E402
from paohuzi.server.matchmaking import (  # noqa: E402
    AlreadyQueued,
    Group,
    MatchSettings,
    OpenRoom,
    Placement,
    Queue,
    Ticket,
)
from paohuzi.server.presence import Seating  # noqa: E402
from paohuzi.server.quickchat import EMOTES, PHRASES, ChatRefused, phrase  # noqa: E402
from paohuzi.server.server import Server  # noqa: E402
from paohuzi.server.storage import SQLiteStorage  # noqa: E402
from paohuzi.server.table import RoomConfig, Table, TableError  # noqa: E402

WAIT = 3.0
SETTINGS = MatchSettings(wait=WAIT, tick=0.1, computer="random",
                         options={"claim_window": 0.05, "bot_delay": 0.0, "next_delay": 0.5})


def client_from(address: str) -> httpx.Client:
    """An HTTP client whose requests come from ``address`` (a loopback address)."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=10)


# ---- the queue itself ------------------------------------------------------------------

def ticket(pid: int, rating: float = 0.0, address: str | None = None,
           since: float = 0.0) -> Ticket:
    return Ticket(pid, f"p{pid}", address or f"10.0.0.{pid}", rating, "xinshou", "qq", since)


def people(results: list[Any]) -> list[list[int]]:
    return [sorted(t.player for t in r.people) for r in results if isinstance(r, Group)]


def test_many_waiting_are_matched_by_rating_within_the_changci():
    ratings = [0, 1, 2, 10, 11, 12, 20, 21, 22]
    rng = random.Random(5)
    order = list(range(9))
    rng.shuffle(order)
    q = Queue(wait=60.0)
    for when, i in enumerate(order):
        q.join(ticket(i, ratings[i], since=float(when)))
    groups = people(q.match(1.0, {"qq": 3}))
    assert sorted(groups) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert q.tickets == {}


def test_one_address_never_twice_at_a_table_and_computers_after_the_wait():
    q = Queue(wait=10.0)
    for pid in range(3):
        q.join(ticket(pid, address="192.0.2.1", since=float(pid)))
    assert q.match(9.0, {"qq": 3}) == []  # nobody to sit with: they wait
    groups = [r for r in q.match(12.5, {"qq": 3}) if isinstance(r, Group)]
    assert [len(g.people) for g in groups] == [1, 1, 1]  # each alone, with computers
    assert all(g.seats == 3 for g in groups)


def test_two_addresses_of_one_ipv6_64_are_one_person():
    """A red team: every bound and rule by address keyed on the exact address, so anyone
    given an IPv6 /64 (a home line, a server) held a new address per account and sat his
    own accounts at one quick-match table. An IPv6 address is now its /64 network."""
    from types import SimpleNamespace

    from paohuzi.server.protocol import address_of

    def seen(host: str) -> str:
        return address_of(SimpleNamespace(client=SimpleNamespace(host=host)))

    q = Queue(wait=10.0)
    hosts = {1: "2001:db8:7:1::10", 2: "2001:db8:7:1:ab::99",  # one /64
             3: "2001:db8:7:2::10"}  # the next /64: another line
    for pid, host in hosts.items():  # 1 and 2 nearest in rating
        q.join(replace(ticket(pid, rating=float(pid), address=seen(host), since=pid),
                       preset="two-player"))
    groups = people(q.match(1.0, {"two-player": 2}))
    assert groups == [[1, 3]], groups  # 1 waited longest; 2 is at his address
    assert seen("::ffff:192.0.2.7") == seen("192.0.2.7") != seen("192.0.2.8")


def test_a_person_takes_a_computer_seat_of_an_open_room_unless_his_address_is_there():
    q = Queue(wait=10.0)
    q.join(ticket(1, address="198.51.100.1"))
    q.join(ticket(2, address="198.51.100.2"))
    room = OpenRoom("abc", ("xinshou", "qq"), 1, frozenset({"198.51.100.2"}))
    results = q.match(1.0, {"qq": 3}, [room])
    assert results == [Placement(ticket(1, address="198.51.100.1"), "abc")]
    assert list(q.tickets) == [2]  # the room's one free seat is taken; 2 shares an address


def test_an_anchor_at_his_room_cap_holds_nobody_up():
    """A review: an account with its 8 open rooms (its cap) queued, and the two people
    nearest it never got a table — each tick it anchored the same group, the room (counted
    as his) was refused, and all three went back as they were. He goes to the back; the
    next group is anchored by one of the others, as a room of theirs."""
    from paohuzi.server.roombounds import TooManyOpenRooms

    class CappedServer:
        storage = SQLiteStorage(":memory:")  # nobody in it: every entry minimum met (0)

        async def open_room(self, options: Any, creator: Any, entries: Any,
                            on_code: Any = None) -> Any:
            raise TooManyOpenRooms(f"player {creator.player}: too many open rooms")

    from paohuzi.server.matchmaking import Matchmaker

    maker = Matchmaker(CappedServer(), MatchSettings(wait=60.0))  # type: ignore[arg-type]
    maker.clock = lambda: 50.0
    for pid in (1, 2, 3):
        maker.queue.join(ticket(pid, since=float(pid)))
    (group,) = maker.queue.match(10.0, {"qq": 3})
    assert isinstance(group, Group) and group.people[0].player == 1
    assert asyncio.run(maker._seat_group(group)) == 0
    assert {t.player: t.since for t in maker.queue.tickets.values()} == {1: 50.0, 2: 2.0, 3: 3.0}
    (again,) = maker.queue.match(11.0, {"qq": 3})
    assert isinstance(again, Group) and again.people[0].player == 2  # the room is his
    assert sorted(t.player for t in again.people) == [1, 2, 3]


def test_nobody_queues_again_while_his_pass_seats_him():
    """A review: while a pass awaited the new room, its people were out of the queue and
    not yet seated, so one could queue again — and be seated at two tables, or, when the
    room then failed, make the pass's re-queue raise and drop every later group of the
    pass. Now he is told he is being seated (and shown waiting); a failed room puts
    everyone back and the pass goes on."""
    from paohuzi.server.matchmaking import Matchmaker
    from paohuzi.server.roombounds import ServerFull
    from paohuzi.server.storage import PlayerRecord

    storage = SQLiteStorage(":memory:")
    records = {}
    for pid in range(1, 7):
        rec, _ = storage.create_player(f"p{pid}")
        records[rec.id] = rec
    said: list[str] = []

    class FullServer:
        def __init__(self) -> None:
            self.storage = storage

        async def open_room(self, options: Any, creator: Any, entries: Any,
                            on_code: Any = None) -> Any:
            rec = records[creator.player]
            try:  # in the window: he asks to queue again
                maker.join(rec, "10.9.9.9", "xinshou", "qq")
            except AlreadyQueued as exc:
                said.append(str(exc))
            said.append(maker.status(rec.id)["status"])
            raise ServerFull("full")

    maker = Matchmaker(FullServer(), MatchSettings(wait=0.0, distinct_addresses=False))  # type: ignore[arg-type]
    maker.clock = lambda: 50.0
    for pid, rec in records.items():
        assert isinstance(rec, PlayerRecord)
        maker.join(rec, f"10.0.0.{pid}", "xinshou", "qq", now=float(pid))
    assert asyncio.run(maker.tick(now=60.0)) == 0  # two groups, both rooms refused
    assert said == ["you are being seated at a quick-match table: a moment", "waiting"] * 2
    assert sorted(maker.queue.tickets) == sorted(records)  # everyone back, nobody twice
    assert maker.placing == {}


def test_a_pass_goes_on_when_seating_one_group_fails():
    """A review: an error other than a room limit (a database error) while seating one
    group left the pass — the later groups' people out of the queue and marked as being
    seated for good. Now that group queues again and the pass goes on."""
    from types import SimpleNamespace

    from paohuzi.server.matchmaking import Matchmaker

    storage = SQLiteStorage(":memory:")
    records = [storage.create_player(f"p{i}")[0] for i in range(6)]
    opened: list[str] = []

    class Room:
        lock = asyncio.Lock()

        def note_level(self, seat: int, player: int) -> None:
            pass

        def schedule(self) -> None:
            pass

    class FlakyServer:
        def __init__(self) -> None:
            self.storage = storage
            self.runtimes: dict[str, Any] = {}

        async def open_room(self, options: Any, creator: Any, entries: Any,
                            on_code: Any = None) -> Any:
            if not opened:
                opened.append("failed")
                raise RuntimeError("the database went away")
            code = f"10000{len(opened)}"
            opened.append(code)
            self.runtimes[code] = Room()
            return SimpleNamespace(code=code)

    maker = Matchmaker(FlakyServer(), MatchSettings(wait=0.0, distinct_addresses=False))  # type: ignore[arg-type]
    for i, rec in enumerate(records):
        maker.join(rec, f"10.0.0.{i}", "xinshou", "qq", now=float(i))
    assert asyncio.run(maker.tick(now=60.0)) == 3  # the second group seated
    assert maker.placing == {}
    queued = sorted(maker.queue.tickets)
    assert len(queued) == 3 and not set(queued) & set(maker.seated)  # the first queues again
    maker.rooms.clear()  # (the stub rooms offer no seat)
    assert asyncio.run(maker.tick(now=61.0)) == 3 and sorted(maker.seated) == \
        sorted(r.id for r in records)


def test_a_player_cannot_queue_twice():
    q = Queue(wait=10.0)
    q.join(ticket(1))
    with pytest.raises(AlreadyQueued, match="already in the quick-match queue"):
        q.join(ticket(1, since=5.0))
    assert q.leave(1) is not None and q.leave(1) is None
    q.join(ticket(1, since=6.0))  # after leaving, again


# ---- seats changing hands between hands ---------------------------------------------

def test_join_and_free_entries_change_a_seat_between_hands_only():
    table = Table("hall1", RoomConfig.from_json({"seats": ["human", "normal", "normal"]}))
    table.apply({"k": "hall", "changci": "xinshou", "preset": "qq", "computer": "normal"})
    table.apply({"k": "sit", "seat": 0, "player": 7, "nickname": "甲"})
    table.verify_seat_change()  # between hands (none played)
    table.apply({"k": "join", "seat": 2, "player": 8, "nickname": "乙"})
    assert [s.kind for s in table.seats] == ["human", "normal", "human"]
    assert table.seat_of_player(8) == 2 and table.ready_to_deal()
    table.apply({"k": "free", "seat": 0, "kind": "normal"})
    assert table.seats[0].kind == "normal" and table.seats[0].player is None
    assert table.hall == {"changci": "xinshou", "preset": "qq", "computer": "normal"}
    table.apply(table.new_commit_entry())
    table.apply(table.new_start_entry())
    if not table.hand.ended:  # a hand in progress: no seat changes hands
        with pytest.raises(TableError, match="between hands"):
            table.verify_seat_change()


def test_a_seat_changing_hands_after_a_hand_ends_the_match():
    table = Table("hall3", RoomConfig.from_json({"seats": ["human", "normal", "normal"]}))
    table.apply({"k": "sit", "seat": 0, "player": 7, "nickname": "甲"})
    table.apply(table.new_commit_entry())
    table.apply(table.new_start_entry())
    rng = random.Random(2)
    while not table.hand.ended:
        hand_seat = table.hand.pending_seats()[0]
        legal = table.hand.legal_actions(hand_seat)
        table.apply({"k": "act", "seat": table.match_seat(hand_seat),
                     "action": rng.choice(legal).text, "player": None})
    with pytest.raises(TableError, match="between hands"):
        table.verify_seat_change()  # not settled yet
    table.apply({"k": "settled", "hand": 1})
    table.verify_seat_change()
    assert not table.match.over and table.match_summary() is None
    table.apply({"k": "join", "seat": 1, "player": 8, "nickname": "乙"})
    summary = table.match_summary()
    assert table.match.over and summary["reason"] == "seat" and summary["hands"] == 1


def test_a_seat_idle_through_several_hands_is_freed():
    table = Table("hall2", RoomConfig.from_json({"seats": ["human", "human", "normal"]}))
    seating = Seating(idle_hands=3)
    seating.note_hand({0: True, 1: False})
    seating.note_hand({0: True, 1: True})
    assert seating.entries(table, "normal") == []
    table.apply({"k": "sit", "seat": 0, "player": 1, "nickname": "甲"})
    seating.note_hand({0: True, 1: False})  # seat 1 played again: its count starts over
    assert seating.entries(table, "easy") == [{"k": "free", "seat": 0, "kind": "easy"}]


def test_hall_rooms_are_known_again_after_a_restart(tmp_path):
    db = str(tmp_path / "restart.db")
    server = Server(SQLiteStorage(db), match=MatchSettings(wait=0.0))
    rec, _ = server.storage.create_player("甲", beans=2000)
    server.matchmaker.join(rec, "10.0.0.1", "xinshou", "qq", now=0.0)
    assert asyncio.run(server.matchmaker.tick(now=1.0)) == 1
    code = server.matchmaker.seated[rec.id].code
    server.pool.close()
    server.storage.close()
    again = Server(SQLiteStorage(db))
    again.restore()
    again.matchmaker.adopt()
    assert again.matchmaker.rooms == {code: ("xinshou", "qq")}
    assert again.runtimes[code].table.seat_of_player(rec.id) == 0
    assert [s.kind for s in again.runtimes[code].table.seats] == ["human", "normal", "normal"]
    again.pool.close()
    again.storage.close()


def test_the_entry_minimum_is_checked_again_when_a_person_is_seated(tmp_path):
    """N40: a person who lost beans at another table while he waited was seated at a
    场次 whose entry minimum he no longer met (it was checked only when he queued). He
    leaves the queue unseated, his status says why, and the others of his group are
    seated without him the next pass."""
    import dataclasses

    server = Server(SQLiteStorage(str(tmp_path / "entry.db")), computer_processes=False,
                    match=MatchSettings(wait=0.0, distinct_addresses=False))
    mm = server.matchmaker
    recs = [server.storage.create_player(f"p{i}", beans=1500)[0] for i in range(3)]
    for i, rec in enumerate(recs):
        mm.join(rec, f"10.0.0.{i + 1}", "chuji", "qq", now=float(i))
    poorer = recs[1].id
    stored = server.storage.player

    def player(pid: int) -> Any:  # p1 lost 1,000 beans elsewhere meanwhile
        rec = stored(pid)
        return dataclasses.replace(rec, beans=500) if pid == poorer and rec else rec

    server.storage.player = player  # type: ignore[method-assign]
    assert asyncio.run(mm.tick(now=5.0)) == 0  # the group held p1: nobody seated
    status = mm.status(poorer)
    assert status["status"] == "refused"
    assert "needs at least 1000 beans" in status["reason"] and "you hold 500" in status["reason"]
    assert status["words"] == {"en": status["reason"],
                               "zh": "初级场入场至少需要 1000 欢乐豆，你现有 500 欢乐豆"}
    assert mm.queue.ticket(poorer) is None
    assert asyncio.run(mm.tick(now=6.0)) == 2  # the other two, without him
    code = mm.seated[recs[0].id].code
    assert server.runtimes[code].table.seat_of_player(poorer) is None
    assert mm.status(poorer)["status"] == "refused"
    # a placement at a room with a free computer seat is checked the same way
    mm.refused.clear()
    server.storage.player = stored  # type: ignore[method-assign]
    mm.join(recs[1], "10.0.0.2", "chuji", "qq", now=7.0)
    assert mm.status(poorer)["status"] == "waiting"
    server.storage.player = player  # type: ignore[method-assign]
    assert asyncio.run(mm._place(Placement(mm.queue.leave(poorer), code))) == 0
    assert mm.status(poorer)["status"] == "refused"
    assert server.runtimes[code].table.seat_of_player(poorer) is None
    server.pool.close()
    server.storage.close()


# ---- quick chat ----------------------------------------------------------------------

def test_quick_chat_is_a_fixed_list_by_id():
    assert all(phrase(pid)["zh"] and phrase(pid)["en"] for pid, _, _ in PHRASES)
    assert all(phrase(eid)["kind"] == "emote" for eid, _ in EMOTES)
    for bad in ("free text", "", None, 3, "HELLO"):
        with pytest.raises(ChatRefused, match="unknown quick phrase id"):
            phrase(bad)


# ---- the live server -------------------------------------------------------------------

@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    with live_server(str(tmp_path_factory.mktemp("mq") / "m.db"), match=SETTINGS) as server:
        yield server


def new_player(srv: Any, http: httpx.Client, nickname: str) -> str:
    reply = http.post(f"{srv.base}/api/players", json={"nickname": nickname})
    assert reply.status_code == 200, reply.text
    return str(reply.json()["token"])


def room_seats(srv: Any, code: str) -> list[dict[str, Any]]:
    return list(httpx.get(f"{srv.base}/api/rooms/{code}").json()["seats"])


def test_seven_people_queue_into_one_changci(srv):
    # players 0 and 1 share an address; the others each have their own
    addresses = ["127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5",
                 "127.0.0.6", "127.0.0.7"]
    clients = [client_from(a) for a in addresses]
    tokens = [new_player(srv, c, f"排队{i}") for i, c in enumerate(clients)]
    joined = []
    for c, tok in zip(clients, tokens, strict=True):
        reply = c.post(f"{srv.base}/api/match", json={"changci": "chuji", "preset": "qq"},
                       headers=auth(tok))
        assert reply.status_code == 200, reply.text
        joined.append(time.monotonic())
    again = clients[6].post(f"{srv.base}/api/match", json={"changci": "chuji"},
                            headers=auth(tokens[6]))
    assert again.status_code == 409 and "already in the quick-match queue" in again.text

    seated_at: dict[int, float] = {}
    done: list[dict[str, Any]] = []
    deadline = time.monotonic() + WAIT + 15
    while len(seated_at) < 7 and time.monotonic() < deadline:
        done = [c.get(f"{srv.base}/api/match", headers=auth(t)).json()
                for c, t in zip(clients, tokens, strict=True)]
        for i, s in enumerate(done):
            if s["status"] == "seated":
                seated_at.setdefault(i, time.monotonic())
        time.sleep(0.05)
    assert len(seated_at) == 7, done
    rooms: dict[str, list[int]] = {}
    for i, s in enumerate(done):
        rooms.setdefault(s["code"], []).append(i)
    sizes = sorted(len(v) for v in rooms.values())
    assert sizes == [1, 3, 3], rooms
    for code, members in rooms.items():
        seats = room_seats(srv, code)
        humans = [s for s in seats if s["kind"] == "human"]
        assert len(humans) == len(members) and all(s["taken"] for s in humans)
        assert len(seats) - len(humans) == done[members[0]]["computers"]
        assert len({addresses[i] for i in members}) == len(members)  # one per address
    alone = next(v for v in rooms.values() if len(v) == 1)
    # the people at full tables did not wait for computers; the one alone did
    assert all(seated_at[i] - joined[i] < WAIT for v in rooms.values() if len(v) == 3
               for i in v)
    assert seated_at[alone[0]] - joined[alone[0]] >= WAIT - 0.05
    assert [s["kind"] for s in room_seats(srv, done[alone[0]]["code"])].count("random") == 2

    # the room with computers keeps taking people, never two from one address
    lone = alone[0]
    newcomer = client_from("127.0.0.9")
    twin = client_from(addresses[lone])
    tok_new, tok_twin = new_player(srv, newcomer, "后来"), new_player(srv, twin, "同址")
    for c, tok in ((twin, tok_twin), (newcomer, tok_new)):
        assert c.post(f"{srv.base}/api/match", json={"changci": "chuji", "preset": "qq"},
                      headers=auth(tok)).status_code == 200
    placed = until(lambda: newcomer.get(f"{srv.base}/api/match", headers=auth(tok_new))
                   .json().get("code"))
    assert placed == done[lone]["code"]
    seats = until(lambda: [s["kind"] for s in room_seats(srv, placed)].count("human") == 2
                  and room_seats(srv, placed))
    assert seats, room_seats(srv, placed)
    twin_at = until(lambda: twin.get(f"{srv.base}/api/match", headers=auth(tok_twin))
                    .json().get("code"), timeout=WAIT + 5)
    assert twin_at and twin_at != placed
    assert httpx.delete(f"{srv.base}/api/match", headers=auth(tok_twin)).json()["left"] is False


def test_queue_requests_are_checked(srv):
    http = client_from("127.0.0.20")
    tok = new_player(srv, http, "检查")
    url = f"{srv.base}/api/match"
    cases = [({"changci": "gaoji"}, 403, "needs at least 20000 beans"),
             ({"changci": "vip"}, 400, "changci must be one of"),
             ({"changci": "xinshou", "preset": "nope"}, 400, "preset must be one of"),
             ({"changci": "xinshou", "table": 1}, 400, "unknown quick-match field")]
    for body, status, words in cases:
        reply = http.post(url, json=body, headers=auth(tok))
        assert reply.status_code == status and words in reply.json()["error"], reply.text
        # a player's refusal comes in every language; a hand-made request's in English
        said = reply.json().get("words")
        if body.get("changci") == "gaoji":
            beans = STARTING_BEANS
            assert said == {"en": reply.json()["error"],
                            "zh": f"高级场入场至少需要 20000 欢乐豆，你现有 {beans} 欢乐豆"}
        else:
            assert said is None, reply.text
    assert http.get(url, headers=auth(tok)).json() == {"status": "idle"}
    assert http.post(url, json={}).status_code == 401
    assert http.post(url, json={"changci": "xinshou", "preset": "hunan"},
                     headers=auth(tok)).json()["status"] == "waiting"
    assert http.delete(url, headers=auth(tok)).json() == {"left": True, "status": "idle"}
    hall = httpx.get(f"{srv.base}/api/hall").json()
    assert [c["key"] for c in hall["changci"]] == ["xinshou", "chuji", "zhongji", "gaoji"]
    assert all(isinstance(c["online"], int) and isinstance(c["tables"], int)
               for c in hall["changci"])
    assert hall["changci"][1]["entry"] == 1000 and hall["changci"][1]["multiplier"] == 2
    assert [p["id"] for p in hall["chat"]["phrases"]] == [p for p, _, _ in PHRASES]


class Conn:
    def __init__(self, ws: Any) -> None:
        self.ws, self.seq, self.got = ws, 0, []

    async def send(self, body: dict[str, Any]) -> int:
        self.seq += 1
        await self.ws.send(json.dumps({"seq": self.seq, **body}))
        return self.seq

    async def until(self, pred: Any, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            msg = json.loads(await asyncio.wait_for(
                self.ws.recv(), max(0.05, deadline - time.monotonic())))
            self.got.append(msg)
            if pred(msg):
                return msg


async def _chat_and_presence(srv: Any, code: str, tokens: list[str]) -> None:
    a = Conn(await websockets.connect(f"{srv.ws_url(code)}?token={tokens[0]}&presence=1"))
    b = Conn(await websockets.connect(f"{srv.ws_url(code)}?token={tokens[1]}&presence=1"))
    try:
        welcome = await a.until(lambda m: m["type"] == "welcome")
        seen = await b.until(lambda m: m["type"] == "presence" and "seats" in m
                             and [s["status"] for s in m["seats"]][:2] ==
                             ["connected", "connected"])
        assert set(seen) == {"type", "seats", "connected"}
        assert {0, 1} <= set(seen["connected"])
        seq = await a.send({"type": "chat", "id": "no such phrase"})
        refused = await a.until(lambda m: m.get("seq") == seq)
        assert refused["type"] == "error" and "unknown quick phrase id" in refused["message"]
        seq = await a.send({"type": "chat", "text": "free text is never sent"})
        refused = await a.until(lambda m: m.get("seq") == seq)
        assert refused["type"] == "error" and "'id' must be" in refused["message"]
        answers = []
        for chat_id in ("hello", "nice", "thumbs", "hurry"):
            seq = await a.send({"type": "chat", "id": chat_id})
            answers.append(await a.until(lambda m, s=seq: m.get("seq") == s))
        assert [m["type"] for m in answers] == ["ack", "ack", "ack", "error"]
        assert "too many quick phrases" in answers[3]["message"]
        heard = []
        while len(heard) < 3:
            heard.append(await b.until(lambda m: m["type"] == "chat"))
        assert heard == [{"type": "chat", "seat": welcome["seat"], "id": i}
                         for i in ("hello", "nice", "thumbs")]
    finally:
        await a.ws.close()
        await b.ws.close()


def test_quick_chat_reaches_the_table_rate_limited_and_presence_is_shown(srv):
    clients = [client_from(f"127.0.0.{30 + i}") for i in range(3)]
    tokens = [new_player(srv, c, f"聊天{i}") for i, c in enumerate(clients)]
    for c, tok in zip(clients, tokens, strict=True):
        c.post(f"{srv.base}/api/match", json={"changci": "xinshou", "preset": "qq"},
               headers=auth(tok))
    code = until(lambda: clients[0].get(f"{srv.base}/api/match", headers=auth(tokens[0]))
                 .json().get("code"))
    assert code
    asyncio.run(_chat_and_presence(srv, code, tokens))


@pytest.mark.parametrize(("shown", "from_next_hand"), [(False, True), (True, False)])
def test_a_placed_player_learns_the_hand_is_over_only_once_it_is_shown(tmp_path, shown,
                                                                       from_next_hand):
    """Placed in a hall room whose hand the engine has ended on the card in play (its
    seats not yet shown that end), a player was told he plays from now: a claim window
    before the seats learn that the hand is over. He is told what the seats see."""
    from types import SimpleNamespace

    from paohuzi.server.matchmaking import Placement

    server = Server(SQLiteStorage(str(tmp_path / "g.db")), computer_processes=False)
    room = SimpleNamespace(
        lock=asyncio.Lock(), reserve_seat=lambda player, nickname: 2,
        table=SimpleNamespace(hand=SimpleNamespace(ended=True),
                              seats=[SimpleNamespace(kind=k, player=5 if k == "human" else None)
                                     for k in ("human", "easy", "easy")]),
        clients=[SimpleNamespace(seat=0, address="10.0.0.5")],  # player 5, connected
        schedule=lambda: None, end_shown=lambda: shown)
    server.runtimes["hall1"] = room  # type: ignore[assignment]
    matchmaker = server.matchmaker
    assert asyncio.run(matchmaker._place(Placement(ticket(7), "hall1"))) == 1
    assert matchmaker.seated[7].from_next_hand is from_next_hand
    server.pool.close()


def test_a_placement_checks_the_addresses_at_the_table_as_it_is_now(tmp_path):
    """Never two accounts of one address at one ranked table. A review found two ways
    past it: a pass placed a person at a room as its process had published it, before a
    person of the same address placed there from another process sat; and a room
    restored (or taken over) knew no address of its person. A placement now checks the
    room as it is (the address each person queued from, and his connections'), and a
    room whose person's address is unknown takes nobody until he connects."""

    db = str(tmp_path / "addresses.db")
    server = Server(SQLiteStorage(db), computer_processes=False,
                    match=MatchSettings(wait=0.0))
    mm = server.matchmaker
    host, twin, other = (server.storage.create_player(n, beans=2000)[0]
                         for n in ("甲", "乙", "丙"))
    mm.join(host, "10.0.0.1", "xinshou", "qq", now=0.0)
    assert asyncio.run(mm.tick(now=1.0)) == 1
    code = mm.seated[host.id].code
    assert [r.code for r in mm._open_rooms()] == [code]
    same = Ticket(twin.id, "乙", "10.0.0.1", 0.0, "xinshou", "qq", 2.0)
    assert asyncio.run(mm._place(Placement(same, code))) == 0  # put back, not seated
    assert server.runtimes[code].table.seat_of_player(twin.id) is None
    assert mm.queue.ticket(twin.id) == same
    mm.queue.leave(twin.id)
    server.pool.close()
    server.storage.close()

    again = Server(SQLiteStorage(db), computer_processes=False)  # a restart
    again.restore()
    again.matchmaker.adopt()
    mm = again.matchmaker
    assert mm._open_rooms() == []  # his address is not known here: nobody is sent there
    elsewhere = Ticket(other.id, "丙", "10.0.0.3", 0.0, "xinshou", "qq", 3.0)
    assert asyncio.run(mm._place(Placement(elsewhere, code))) == 0
    runtime = again.runtimes[code]
    class Socket:  # what a connection's socket is sent (nothing is read here)
        async def send_text(self, text: str) -> None:
            pass

    from paohuzi.server.connection import Client

    runtime.clients.add(Client(Socket(), host, 0, address="10.0.0.1"))  # type: ignore[arg-type]
    assert [r.addresses for r in mm._open_rooms()] == [frozenset({"10.0.0.1"})]
    mm.queue.leave(other.id)
    assert asyncio.run(mm._place(Placement(same, code))) == 0
    assert asyncio.run(mm._place(Placement(elsewhere, code))) == 1
    assert runtime.table.seat_of_player(other.id) is not None
    runtime.clients.clear()
    again.pool.close()
    again.storage.close()
