"""A player who leaves the table is never dealt in again (rules-notes N18).

A red team's finding: a private room kept a leaver's seat, so every later hand dealt him
in, played by his timeouts and 托管, with his losses counted lifetime — a table could
drain an absent player's beans. Now a leave (between hands, before the first hand, or
the 醒家's while he sits a hand out) frees the seat once the hand he saw end is settled,
and an escape's seat stays his while its settlement is shown, then is freed when the
next hand would be dealt. A private room's freed seat waits for someone to sit; a hall
room's goes to its computer. The rooms run in-process: stub sockets, log entries
committed directly, the leave sent through the protocol's handler.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from server_util import deal_now, play_last_moves

pytest.importorskip("starlette")

from paohuzi.server import runtime as runtime_module
from paohuzi.server.backends import open_storage
from paohuzi.server.connection import Client
from paohuzi.server.economy import STARTING_BEANS
from paohuzi.server.messages import Leave
from paohuzi.server.protocol import handle
from paohuzi.server.runtime import Runtime
from paohuzi.server.server import Server
from paohuzi.server.table import RoomConfig, Table


class StubSocket:
    """Takes what the server sends."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int = 1000) -> None:
        pass


def _room(server: Server, **options: Any) -> tuple[Table, Runtime, list[Client]]:
    """A room of people only (new accounts), each seat held by a connection."""
    config = {"seats": ["human"] * 3, "timer": 60, "next_delay": 0.0, "bot_delay": 0,
              "claim_window": 0.01, **options}
    table = server.create_room(config)
    runtime = server.runtimes[table.code]
    clients = []
    for seat in range(len(table.seats)):
        rec, _ = server.storage.create_player(f"p{seat}", beans=STARTING_BEANS)
        runtime.commit({"k": "sit", "seat": seat, "player": rec.id, "nickname": f"p{seat}"})
        client = Client(StubSocket(), rec, None)  # type: ignore[arg-type]
        client.seat = seat
        runtime.connect(client)
        clients.append(client)
    return table, runtime, clients


async def _until(check: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


async def _leave(runtime: Runtime, client: Client, seq: int, after: int | None = None) -> None:
    await handle(runtime, client, Leave(seq, after))


def _kinds(server: Server, code: str) -> list[str]:
    return [e["k"] for e in server.storage.load_log(code)]


@pytest.fixture(autouse=True)
def quick_entropy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand is dealt without waiting a second for the seats' values."""
    monkeypatch.setattr(runtime_module, "ENTROPY_WAIT", 0.05)


@pytest.fixture
def server(database: str) -> Any:
    s = Server(open_storage(database))
    try:
        yield s
    finally:
        s.storage.close()


def test_a_player_who_leaves_between_hands_is_never_dealt_in_again(server):
    async def go() -> None:
        table, runtime, clients = _room(server)
        leaver = table.seats[2].player
        deal_now(runtime)
        play_last_moves(runtime)
        await _until(lambda: not table.needs_settlement())
        await _until(runtime.end_shown)
        await _leave(runtime, clients[2], 1, after=table.hand_no)
        assert table.seats[2].player is None and table.seats[2].kind == "human"
        assert clients[2].seat is None  # his connection watches now
        assert table.match is not None and table.match.over
        # the others want the next hand: none is dealt until someone takes the seat
        async with runtime.lock:
            runtime.next_votes.update({0, 1})
            runtime.schedule()
        await asyncio.sleep(0.3)
        assert table.hand_no == 1 and not runtime.ready_to_deal()
        newcomer, _ = server.storage.create_player("new", beans=STARTING_BEANS)
        async with runtime.lock:
            runtime.commit({"k": "sit", "seat": 2, "player": newcomer.id, "nickname": "new"})
            # the match's 大结算, still shown, names who played it
            summary = table.match_summary()
            assert summary is not None and summary["seats"][2]["nickname"] == "p2"
            # ... and says the seat changed hands since (the others' did not)
            assert [row["changed"] for row in summary["seats"]] == [False, False, True]
            runtime.schedule()
        await _until(lambda: table.hand_no == 2)
        assert table.seats[2].player == newcomer.id
        record = server.storage.player(leaver)  # type: ignore[arg-type]
        assert record is not None and record.hands == 1
        log = server.storage.load_log(table.code)
        leave = next(e for e in log if e["k"] == "leave")
        assert leave["frees"] and leave["seat"] == 2
        free = next(e for e in log if e["k"] == "free")
        assert (free["seat"], free["kind"]) == (2, "human") and free.get("player") is None

    asyncio.run(go())


def test_a_leave_before_the_first_hand_frees_the_seat(server):
    async def go() -> None:
        table, runtime, clients = _room(server)
        await _leave(runtime, clients[1], 1, after=0)
        assert table.seats[1].player is None and clients[1].seat is None
        assert table.match is not None and not table.match.over  # no match to end
        assert not runtime.ready_to_deal()
        assert "free" in _kinds(server, table.code)

    asyncio.run(go())


def test_an_escapes_seat_shows_its_settlement_then_is_freed(server):
    async def go() -> None:
        table, runtime, clients = _room(server)
        leaver = table.seats[0].player
        deal_now(runtime)
        await _leave(runtime, clients[0], 1)  # mid-hand: 逃跑
        await _until(lambda: not table.needs_settlement())
        assert table.last_summary is not None
        assert table.last_summary.result.leaver is not None
        # his settlement is his: the seat stays his while it is shown
        assert table.seats[0].player == leaver and clients[0].seat == 0
        view = table.view_for(0)
        assert view["you"] == 0 and view["view"]["result"]["reason"] == "escape"
        # the next hand would be dealt (both others ready): the seat is freed instead
        async with runtime.lock:
            runtime.next_votes.update({1, 2})
            runtime.schedule()
        await _until(lambda: table.seats[0].player is None)
        await asyncio.sleep(0.2)
        assert table.hand_no == 1 and clients[0].seat is None
        record = server.storage.player(leaver)  # type: ignore[arg-type]
        assert record is not None and record.hands == 1 and record.points < 0

    asyncio.run(go())


async def _xingjia_leaves_mid_hand(server: Server) -> tuple[Table, Runtime, int]:
    """A hunan room with its 醒家, four people, the first hand dealt, and the 醒家 sitting
    it out pressing 离开: the table, its runtime and his seat."""
    table, runtime, clients = _room(server, rules="hunan", xingjia=True,
                                    seats=["human"] * 4)
    deal_now(runtime)
    assert table.match is not None and table.match.xingjia is not None
    out = table.match.xingjia
    await _leave(runtime, clients[out], 1)
    return table, runtime, out


def test_the_xingjia_leaving_while_he_sits_out_leaves_when_the_hand_ends(server):
    """The 醒家 (hunan) sits the hand out: nothing to escape from, so his leave waits for
    the hand's end (it was answered and dropped: the match went on and dealt him in)."""

    async def go() -> None:
        table, runtime, out = await _xingjia_leaves_mid_hand(server)
        leaver = table.seats[out].player
        assert leaver is not None and runtime.table.leaving
        assert not table.match.over
        play_last_moves(runtime)
        await _until(lambda: table.seats[out].player is None)
        assert table.match.over and table.match_end == "left"
        assert all(c.seat is None for c in runtime.clients if c.player.id == leaver)
        kinds = _kinds(server, table.code)
        assert "escape" not in kinds and kinds.index("leave") < kinds.index("free")

    asyncio.run(go())


def test_a_hall_rooms_leaver_gives_his_seat_to_its_computer() -> None:
    table = Table("ROOM7", RoomConfig.from_json({"rules": "qq", "seats": ["human"] * 3}))
    for seat in range(3):
        table.apply({"k": "sit", "seat": seat, "player": 10 + seat, "nickname": "p"})
    table.apply({"k": "leave", "seat": 1, "frees": True})
    assert table.leavers_seated() == [1]  # a restart here frees it at the next deal
    table.apply({"k": "leave", "seat": 2})  # an older log's leave: the seat stays his
    assert table.leavers_seated() == [1]
    table.apply({"k": "free", "seat": 1, "kind": "normal"})
    assert table.leavers_seated() == [] and table.seats[1].kind == "normal"


def test_the_only_person_leaving_during_a_hand_dealt_meanwhile_is_played_out(server):
    """Against two computers, a leave chosen between hands may arrive after the next hand
    was dealt: his computer plays that hand out at once (托管), the table does not stall
    waiting for a person who left (it did: everyone in 托管 pauses a table), and the
    seat is freed when it ends — never an escape."""

    async def go() -> None:
        table, runtime, clients = _room(server, seats=["human", "random", "random"])
        deal_now(runtime)
        play_last_moves(runtime)
        await _until(lambda: not table.needs_settlement())
        await _until(runtime.end_shown)
        deal_now(runtime)  # hand 2, dealt before his leave arrives
        await _leave(runtime, clients[0], 1, after=1)
        assert table.seats[0].tuoguan and 0 in runtime.table.leaving
        assert not runtime.paused()
        assert table.controlled_by_computer(0)
        play_last_moves(runtime)
        await _until(lambda: table.seats[0].player is None)
        kinds = _kinds(server, table.code)
        assert "escape" not in kinds and kinds[-1] == "free"
        assert table.last_summary is not None and table.last_summary.result.leaver is None

    asyncio.run(go())


def test_a_leave_waiting_for_its_hands_end_survives_a_restart(server):
    """The 醒家's leave waits for the end of the hand he sits out: it is logged at once
    (``leaving``), so a process that dies meanwhile comes back knowing it, and he still
    leaves when the hand ends instead of being dealt the next one."""

    async def go() -> None:
        table, runtime, out = await _xingjia_leaves_mid_hand(server)
        runtime.stop()
        del server.runtimes[table.code]
        restored = server.restore_room(table.code, table.config.to_json())
        t = restored.table
        assert t.leaving and out in restored.table.leaving
        async with restored.lock:
            play_last_moves(restored)
            restored.schedule()
        await _until(lambda: t.seats[out].player is None)
        assert t.match is not None and t.match.over and not t.leaving

    asyncio.run(go())


def test_a_freed_seats_shuffle_value_is_the_next_occupants() -> None:
    """A review: the value the leaver sent for the next hand's shuffle stayed with the
    seat, and the newcomer's own was refused as "already in"."""
    table = Table("ROOM8", RoomConfig.from_json({"rules": "qq", "seats": ["human"] * 3}))
    for seat in range(3):
        table.apply({"k": "sit", "seat": seat, "player": 10 + seat, "nickname": "p"})
    commit = table.new_commit_entry()
    table.apply(commit)
    table.apply(table.verify_entropy(2, commit["hand"], "aa"))
    table.apply({"k": "leave", "seat": 2, "frees": True})
    table.apply({"k": "free", "seat": 2, "kind": "human"})
    assert 2 not in table.entropy
    table.apply({"k": "sit", "seat": 2, "player": 99, "nickname": "new"})
    table.apply(table.verify_entropy(2, commit["hand"], "bb"))
    assert table.new_start_entry()["values"] == ["", "", "bb"]
