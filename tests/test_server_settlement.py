"""Settlement is atomic and contained; shuffles are fair both ways (issue 10: 1, 10)."""

from __future__ import annotations

import asyncio
import json
import time
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
import websockets
from server_util import live_server

pytest.importorskip("starlette")

from paohuzi.server import runtime as runtime_module
from paohuzi.server import settlement
from paohuzi.server.backends import open_storage
from paohuzi.server.economy import STARTING_BEANS
from paohuzi.server.fairness import EntropyError, Shuffle
from paohuzi.server.matchmaking import MatchSettings
from paohuzi.server.runtime import Runtime
from paohuzi.server.seen import Seen
from paohuzi.server.server import Server
from paohuzi.server.table import RoomConfig, Table

RANDOM_HALL = MatchSettings(computer="random")
"""A server whose hall seats ``random`` computers: hands against them count lifetime, as
hands against its hall's computer do (the tests' quick computers; a server seating
``normal`` ones takes hands against weaker computers for practice)."""

# ---- the seed exploit, over the wire --------------------------------------------------


async def _states_until(ws: Any, pred: Any, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), deadline - time.monotonic()))
        if msg.get("type") == "state" and pred(msg):
            return msg


def test_a_failed_settlement_never_reveals_the_live_seed(database, monkeypatch):
    """Issue 10 finding 1: a room whose escape penalty overflows SQLite's integers used to
    deal on and write records of the old hand carrying the *live* hand's seed."""
    monkeypatch.setattr(settlement, "RETRY_DELAYS", (0.05,))
    with live_server(database) as srv:
        _pid, token = srv.player()
        options = {"level": "heuristic", "bot_delay": 0, "timer": 0.5, "grace": 0,
                   "next_delay": 0.2, "multiplier": 2**62}
        reply = httpx.post(f"{srv.base}/api/rooms/quick", json=options,
                           headers={"authorization": f"Bearer {token}"})
        if reply.status_code == 400:  # stakes bounded (issue 10 item 3): fail it by hand
            def overflow(self: Any, *args: Any) -> None:
                if args[-1]:  # the updates (after PostgreSQL's connection)
                    raise OverflowError("Python int too large to convert to SQLite INTEGER")
            monkeypatch.setattr(type(srv.server.storage), "_apply_updates", overflow)
            options["multiplier"] = 1
            reply = httpx.post(f"{srv.base}/api/rooms/quick", json=options,
                               headers={"authorization": f"Bearer {token}"})
        code = reply.json()["code"]
        url = f"{srv.ws_url(code)}?token={token}"

        async def go() -> None:
            async with websockets.connect(url) as ws:
                await _states_until(ws, lambda m: m["view"] and m["view"].get("result") is None, 30)
                await ws.send(json.dumps({"seq": 10**6, "type": "leave"}))
                await asyncio.sleep(0.3)
            async with websockets.connect(url) as ws:  # the player comes back
                # his seat was freed when the next hand would be dealt (he left): he
                # takes it again, as anyone may
                seat = await _states_until(
                    ws, lambda m: any(s["kind"] == "human" and not s["nickname"]
                                      for s in m["table"]["seats"]), 30)
                free = next(i for i, s in enumerate(seat["table"]["seats"])
                            if s["kind"] == "human" and not s["nickname"])
                await ws.send(json.dumps({"seq": 10**6 + 1, "type": "sit", "seat": free}))
                await _states_until(ws, lambda m: m["table"]["hand_no"] >= 2, 30)
                await asyncio.sleep(1.5)  # a few timed-out moves of hand 2

        asyncio.run(go())
        records = srv.server.storage.games_in_room(code)
        assert len(records) == 1, [r.get("hand_no") for r in records]
        record = records[0]
        # the record's shuffle is its own hand's (record.py keeps the deal's seed too)
        assert record["shuffle"]["seed"] == record["deal"]["seed"]
        table = srv.server.runtimes[code].table
        live = table.shuffle
        assert table.hand_no >= 2 and live is not None
        for path in ("", "/steps"):
            text = httpx.get(f"{srv.base}/api/games/1{path}").text
            assert str(live.seed) not in text and live.secret not in text
        assert table.settled == 1


# ---- failures injected at each step of settlement -------------------------------------


def _runtime(server: Server) -> Runtime:
    rec, _ = server.storage.create_player("p")
    table = server.create_room({"seats": ["human", "random", "random"], "bot_delay": 0,
                                "claim_window": 0.01})  # a hand is settled once shown
    runtime = server.runtimes[table.code]
    runtime.commit({"k": "sit", "seat": 0, "player": rec.id, "nickname": "p"})
    return runtime


def _deal(runtime: Runtime, values: dict[int, str] | None = None) -> Shuffle:
    t = runtime.table
    assert t.ready_to_deal()
    runtime.commit(t.new_commit_entry())
    for seat, value in (values or {}).items():
        runtime.commit(t.verify_entropy(seat, t.hand_no + 1, value))
    runtime.commit(t.new_start_entry())
    assert isinstance(t.shuffle, Shuffle)
    return t.shuffle


def _play_out(runtime: Runtime) -> None:
    t = runtime.table
    hand = t.hand
    assert hand is not None
    while not hand.ended:
        seat = hand.pending_seats()[0]
        action = hand.legal_actions(seat)[-1]
        runtime.commit({"k": "act", "seat": t.match_seat(seat), "action": action.text,
                        "player": None})
    runtime.settle_if_needed()


async def _settled(runtime: Runtime, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while runtime.table.needs_settlement():
        assert time.monotonic() < deadline, "the table stayed unsettled"
        await asyncio.sleep(0.01)


def _failing(original: Any, always: bool, after: bool = False) -> Any:
    calls = {"n": 0}

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if always or calls["n"] == 1:
            if after:
                original(*args, **kwargs)
            raise RuntimeError("injected failure")
        return original(*args, **kwargs)
    return wrapper


def _inject(monkeypatch: Any, step: str, always: bool, storage: type) -> None:
    """Make ``step`` fail; ``storage``: the backend's class (SQLite's or PostgreSQL's,
    whose private methods take the connection first)."""
    if step == "record":
        monkeypatch.setattr(Table, "finished_record",
                            _failing(Table.finished_record, always))
    elif step == "rate":
        monkeypatch.setattr(Server, "rate", _failing(Server.rate, always))
    elif step == "updates":  # like an overflow: only the players' totals fail
        failing = _failing(storage._apply_updates, always)
        original_updates = storage._apply_updates

        def updates(self: Any, *args: Any) -> None:
            (failing if args[-1] else original_updates)(self, *args)
        monkeypatch.setattr(storage, "_apply_updates", updates)
    elif step == "rows":  # every row written, then a failure before the commit
        monkeypatch.setattr(storage, "_settle_rows",
                            _failing(storage._settle_rows, always, after=True))
    elif step == "apply":  # committed, then applying the entry fails (once)
        original = Table.apply
        seen = {"n": 0}

        def apply(self: Table, entry: dict[str, Any]) -> None:
            if entry["k"] == "settled":
                seen["n"] += 1
                if seen["n"] == 1:
                    raise RuntimeError("injected failure")
            original(self, entry)
        monkeypatch.setattr(Table, "apply", apply)


STEPS = [(step, always) for step in ("record", "rate", "updates")
         for always in (False, True)] + [("rows", False), ("apply", False)]


@pytest.mark.parametrize(("step", "always"), STEPS)
def test_settlement_survives_a_failure_at_each_step(database, monkeypatch, step, always):
    monkeypatch.setattr(settlement, "RETRY_DELAYS", (0.01,))
    server = Server(open_storage(database), match=RANDOM_HALL)

    async def go() -> list[Shuffle]:
        runtime = _runtime(server)
        _inject(monkeypatch, step, always, type(server.storage))
        seeds = []
        for _ in range(2):
            seeds.append(_deal(runtime))
            _play_out(runtime)
            if runtime.table.needs_settlement():
                assert not runtime.table.ready_to_deal()  # no deal over an unsettled hand
            await _settled(runtime)
        seeds.append(_deal(runtime))  # a live hand whose seed must appear nowhere
        return seeds

    try:
        shuffles = asyncio.run(go())
        code = next(iter(server.runtimes))
        records = server.storage.games_in_room(code)
        numbers = [r["hand_no"] for r in records]
        assert len(numbers) == len(set(numbers))  # never two records of a hand
        if not (step == "record" and always):
            assert numbers == [1, 2]
        for record in records:
            own = shuffles[record["hand_no"] - 1]
            assert record["shuffle"]["seed"] == own.seed == record["deal"]["seed"]
            text = json.dumps(record)
            for later in shuffles[record["hand_no"]:]:
                assert str(later.seed) not in text and later.secret not in text
        player = server.storage.player(1)
        assert player is not None
        assert player.hands == sum(1 for r in records if r["totals"])
        if not always:
            assert player.hands == 2  # a passing failure costs nothing
    finally:
        server.storage.close()


def test_a_hand_left_unsettled_by_a_crash_is_settled_on_restore(database, monkeypatch):
    server = Server(open_storage(database), match=RANDOM_HALL)
    backend = type(server.storage)
    monkeypatch.setattr(backend, "settle_hand", _failing(backend.settle_hand, True))

    async def first_life() -> tuple[str, Shuffle, str]:
        runtime = _runtime(server)
        shuffle = _deal(runtime)
        _play_out(runtime)
        assert runtime.table.needs_settlement()
        return runtime.table.code, shuffle, runtime.table.state_hash()

    code, shuffle, _ = asyncio.run(first_life())
    for runtime in server.runtimes.values():
        if runtime.settle_retry is not None:
            runtime.settle_retry.cancel()
    server.storage.close()  # "crash": nothing of the settlement was written
    monkeypatch.undo()
    again = Server(open_storage(database), match=RANDOM_HALL)
    try:
        assert again.restore() == 1
        runtime = again.runtimes[code]
        assert runtime.table.needs_settlement() and not again.storage.games_in_room(code)
        assert runtime.table.finished_shuffle == shuffle  # the log replays the same seed
        runtime.settle_if_needed()
        records = again.storage.games_in_room(code)
        assert len(records) == 1 and records[0]["shuffle"]["seed"] == shuffle.seed
        assert not runtime.table.needs_settlement()
        runtime.settle_if_needed()  # nothing more to do
        assert len(again.storage.games_in_room(code)) == 1
        player = again.storage.player(1)
        assert player is not None and player.hands == 1
    finally:
        again.storage.close()


# ---- fair randomness both ways ----------------------------------------------------------


def _table(code: str, secret: str = "ab" * 32) -> Table:
    table = Table(code, RoomConfig.from_json({"seats": ["human"] * 3}))
    for s in range(3):
        table.apply({"k": "sit", "seat": s, "player": s + 1})
    table.apply({"k": "commit", "hand": 1, "secret": secret, "salt": "00" * 16})
    return table


def _start(table: Table, values: list[str]) -> Table:
    table.apply({"k": "start", "hand": 1, "values": values})
    return table


def test_a_client_value_changes_the_seed_and_the_deal():
    a = _start(_table("room"), ["", "01", ""])
    b = _start(_table("room"), ["", "02", ""])
    assert a.shuffle is not None and b.shuffle is not None
    assert a.shuffle.seed != b.shuffle.seed
    assert a.hand is not None and b.hand is not None
    assert a.hand.deal.hands != b.hand.deal.hands
    # the same secret and values deal the same hand: anyone can re-deal it
    c = _start(_table("room"), ["", "01", ""])
    assert c.hand is not None and c.hand.deal.hands == a.hand.deal.hands


def test_the_first_dealer_comes_from_the_shuffle_not_the_room_code():
    dealers = set()
    for i in range(40):
        values = ["", f"{i:x}", ""]
        same = {_start(_table(code), values).match.dealer  # type: ignore[union-attr]
                for code in ("aaaa", "bbbb", "cccc", "dddd")}
        assert len(same) == 1  # the room code plays no part
        shuffle = _table("x")
        _start(shuffle, values)
        assert isinstance(shuffle.shuffle, Shuffle)
        assert same == {shuffle.shuffle.dealer_of(3)}
        dealers |= same
    assert dealers == {0, 1, 2}


def test_entropy_is_validated_and_counted_once():
    table = _table("room")
    with pytest.raises(EntropyError, match="hex"):
        table.verify_entropy(0, 1, "XYZ")
    with pytest.raises(EntropyError, match="hex"):
        table.verify_entropy(0, 1, "a" * 65)
    with pytest.raises(EntropyError, match="no shuffle is open"):
        table.verify_entropy(0, 2, "ab")
    table.apply(table.verify_entropy(0, 1, "deadbeef0123"))
    with pytest.raises(EntropyError, match="already in"):
        table.verify_entropy(0, 1, "cd")
    assert table.new_start_entry()["values"] == ["deadbeef0123", "", ""]
    # the commitment is public, the values are not, until the hand is over
    view = table.view_for(1)
    assert view["next_shuffle"]["sent"] is False and "deadbeef0123" not in json.dumps(view)
    assert table.view_for(0)["next_shuffle"]["sent"] is True


def test_a_silent_seat_is_waited_for_briefly_and_counted_empty(tmp_path, monkeypatch):
    """A seat that sends nothing is waited for ENTROPY_WAIT at most, then counted empty;
    the commitment is published, the secret stays hidden during the hand."""
    monkeypatch.setattr(runtime_module, "ENTROPY_WAIT", 0.3)
    with live_server(str(tmp_path / "fair.db")) as srv:
        _pid, token = srv.player()
        code = srv.quick(token, level="heuristic", bot_delay=0, timer=60, next_delay=600)

        seen: list[str] = []

        async def go() -> float:
            async with websockets.connect(f"{srv.ws_url(code)}?token={token}") as ws:
                start = time.monotonic()
                while True:
                    seen.append(await asyncio.wait_for(ws.recv(), 10))
                    msg = json.loads(seen[-1])
                    if msg.get("type") == "state" and msg["view"] is not None:
                        return time.monotonic() - start

        waited = asyncio.run(go())
        table = srv.server.runtimes[code].table
        assert isinstance(table.shuffle, Shuffle)
        assert table.shuffle.values == ("", "", "") and waited >= 0.25
        assert table.shuffle.commitment in "".join(seen)  # published...
        assert table.shuffle.secret not in "".join(seen)  # ...but not opened mid-hand


def test_a_database_that_refuses_every_settlement_deals_no_hand(database, monkeypatch):
    """While nothing can be written the table waits (no deal over an unsettled hand),
    and settles once the database works again."""
    monkeypatch.setattr(settlement, "RETRY_DELAYS", (0.01,))
    server = Server(open_storage(database), match=RANDOM_HALL)

    async def go() -> None:
        runtime = _runtime(server)
        shuffle = _deal(runtime)
        _inject(monkeypatch, "rows", True, type(server.storage))
        _play_out(runtime)
        await runtime.caught_up.wait()  # the end is shown: settlement is tried from here
        for _ in range(200):  # many retries, full and without totals
            if runtime.settle_failures > settlement.FULL_ATTEMPTS:
                break
            await asyncio.sleep(0.05)
        assert runtime.settle_failures > settlement.FULL_ATTEMPTS
        assert runtime.table.needs_settlement() and not runtime.table.ready_to_deal()
        assert not server.storage.games_in_room(runtime.table.code)
        monkeypatch.undo()
        monkeypatch.setattr(settlement, "RETRY_DELAYS", (0.01,))
        await _settled(runtime)
        records = server.storage.games_in_room(runtime.table.code)
        assert [r["shuffle"]["seed"] for r in records] == [shuffle.seed]
        assert runtime.table.ready_to_deal()
        for runtime in server.runtimes.values():
            if runtime.settle_retry is not None:
                runtime.settle_retry.cancel()

    try:
        asyncio.run(go())
    finally:
        server.storage.close()


def test_a_tianhu_at_the_deal_is_finished_and_waits_for_its_settlement():
    """A mandatory 天胡 (§3.3) ends the hand inside its deal: the table must finish it (the
    match's history, the result in the views) and deal nothing until it is settled.
    Seed 2857 deals seat 1 five 坎 (found by search over seeds; a legacy ``start`` entry
    carries its seed)."""
    table = Table("TIANHU", RoomConfig.from_json({"seats": ["human", "normal", "normal"]}))
    table.apply({"k": "sit", "seat": 0, "player": 1, "nickname": "a"})
    table.apply({"k": "start", "seed": 2857, "salt": "x"})
    assert table.hand is not None and table.hand.ended
    assert table.match is not None and len(table.match.history) == 1
    assert table.needs_settlement() and not table.ready_to_deal()
    result = table.view_for(0)["view"]["result"]
    assert result["reason"] == "tianhu" and sum(result["points"]) == 0
    assert result["points"][result["winner"]] > 0


def _dealt_xingjia_room(server: Server) -> tuple[Any, Any, list[int]]:
    """A hunan room with a 醒家, four people seated (new accounts), its first hand dealt:
    the table, its runtime and the seats' player ids."""
    table = server.create_room({"rules": "hunan", "xingjia": True, "claim_window": 0.01,
                                "seats": ["human"] * 4})
    runtime = server.runtimes[table.code]
    ids = []
    for seat in range(4):
        rec, _ = server.storage.create_player(f"p{seat}", beans=STARTING_BEANS)
        ids.append(rec.id)
        runtime.commit({"k": "sit", "seat": seat, "player": rec.id, "nickname": "p"})
    _deal(runtime)
    return table, runtime, ids


def test_the_xingjia_share_reaches_his_totals_and_history(database):
    """The 醒家 sits the hand out and is paid by the losers (§9): his share reaches his
    lifetime points and beans, and the hand is in his history (issue 11 saw match −54
    against lifetime −60)."""
    server = Server(open_storage(database), match=RANDOM_HALL)

    async def go() -> None:
        table, runtime, ids = _dealt_xingjia_room(server)
        assert table.match is not None and table.match.xingjia is not None
        xingjia = ids[table.match.xingjia]
        # a connection holds his seat while the hand is dealt (he watches it)
        runtime.seen_at_seat(SimpleNamespace(seat=table.match.xingjia,  # type: ignore[arg-type]
                                             address=""))
        _play_out(runtime)
        await _settled(runtime)
        summary = table.last_summary
        assert summary is not None
        share = summary.points[table.match.xingjia]
        assert share == summary.result.xingjia_points > 0
        player = server.storage.player(xingjia)
        assert player is not None and \
            (player.points, player.beans) == (share, STARTING_BEANS + share)
        games = server.storage.games_of(xingjia)
        assert len(games) == 1

    try:
        asyncio.run(go())
    finally:
        server.storage.close()


def test_a_xingjia_no_connection_held_gains_nothing(tmp_path):
    """A red team's worry: a seat taken over HTTP (``"sit": true``) whose owner never
    connects is in neither ``computer_played`` (the 醒家 decides nothing) nor
    ``sharing_seats`` (no address), yet was paid his 醒家 unit whenever the deal put
    him opposite the dealer. A seat sitting the hand out that no connection held (not
    in 托管) while it was dealt keeps its losses and gains nothing lifetime, as a
    person's seat the computer played all hand (docs/protocol.md, "Stakes"); the hand
    is scored at the table and in his history as usual."""
    server = Server(open_storage(str(tmp_path / "game.db")), match=RANDOM_HALL)

    async def go() -> None:
        table, runtime, ids = _dealt_xingjia_room(server)
        assert table.match is not None and table.match.xingjia is not None
        sat_out = table.match.xingjia
        for seat in range(4):  # every other seat is held by a connection
            if seat != sat_out:
                runtime.seen_at_seat(SimpleNamespace(seat=seat,  # type: ignore[arg-type]
                                                     address=""))
        assert runtime.seen.present[table.hand_no] == set(range(4)) - {sat_out}
        _play_out(runtime)
        await _settled(runtime)
        summary = table.last_summary
        assert summary is not None and summary.xingjia == sat_out
        assert summary.points[sat_out] == summary.result.xingjia_points > 0  # the table's
        player = server.storage.player(ids[sat_out])
        assert player is not None
        assert (player.points, player.beans, player.wins) == (0, STARTING_BEANS, 0)
        assert len(server.storage.games_of(ids[sat_out])) == 1  # in his history

    try:
        asyncio.run(go())
    finally:
        server.storage.close()


def test_a_seat_sitting_out_counts_as_computer_played_unless_held() -> None:
    """The rule itself: a 醒家 held by a connection (not in 托管) while the hand was
    dealt is his own; one never held, or held only in 托管 or between hands, is not."""
    seats = [SimpleNamespace(tuoguan=False) for _ in range(4)]
    seats[2].tuoguan = True
    table = SimpleNamespace(code="T", hand_no=7, hand=SimpleNamespace(ended=False), seats=seats)
    runtime = SimpleNamespace(table=table, seen=Seen(), moves={7: {0: {False}, 1: {True}}},
                              end_shown=lambda: True,
                              server=SimpleNamespace(storage=SimpleNamespace(
                                  append_log=lambda code, entry: 0)))
    for seat in (1, 2):  # seat 2 is held, but in 托管
        Runtime.seen_at_seat(runtime, SimpleNamespace(seat=seat,  # type: ignore[arg-type]
                                                      address=""))
    assert runtime.seen.present == {7: {1}}
    assert Runtime.computer_played(runtime, 7) == {0}  # type: ignore[arg-type]
    assert Runtime.computer_played(runtime, 7, 1) == {0}  # type: ignore[arg-type]
    assert Runtime.computer_played(runtime, 7, 2) == {0, 2}  # type: ignore[arg-type]
    assert Runtime.computer_played(runtime, 7, 3) == {0, 3}  # type: ignore[arg-type]
    table.hand = SimpleNamespace(ended=True)  # between hands: not present in the next
    Runtime.seen_at_seat(runtime, SimpleNamespace(seat=3, address=""))  # type: ignore[arg-type]
    assert 8 not in runtime.seen.present
    Runtime.seen_at_seat(runtime, SimpleNamespace(seat=3, address=""), 8)  # type: ignore[arg-type]
    assert Runtime.computer_played(runtime, 8, 3) == set()  # type: ignore[arg-type]


# ---- who held each seat survives a crash -------------------------------------------------


def _play_out_as_people(runtime: Runtime) -> None:
    """Play the hand out, each decision its seat's person's own (``player`` set)."""
    t = runtime.table
    hand = t.hand
    assert hand is not None
    while not hand.ended:
        seat = t.match_seat(hand.pending_seats()[0])
        legal = hand.legal_actions(hand.pending_seats()[0])
        action = next((a for a in legal if a.text == "hu"), legal[-1])
        runtime.commit({"k": "act", "seat": seat, "action": action.text,
                        "player": t.seats[seat].player})


def test_who_held_each_seat_and_from_where_is_settled_by_after_a_crash(database, monkeypatch):
    """A hand the dead process dealt, played and could not settle is settled on restore by
    the same rules its process would have applied: the winner, played from the address of
    another seat of the hand, gains nothing lifetime (his partner keeps his loss); the 醒家
    a connection held while it was dealt is paid his unit. Both were kept only in the
    process's memory: restored, the winner gained and the 醒家 did not."""
    server = Server(open_storage(database), match=RANDOM_HALL)
    backend = type(server.storage)
    failing = {"on": False}
    real_settle = backend.settle_hand

    def settle_hand(self: Any, *args: Any, **kwargs: Any) -> Any:
        if failing["on"]:
            raise RuntimeError("injected failure")
        return real_settle(self, *args, **kwargs)

    monkeypatch.setattr(backend, "settle_hand", settle_hand)

    before: dict[int, tuple[int, int]] = {}

    async def first_life() -> tuple[str, Any, list[int]]:
        table, runtime, ids = _dealt_xingjia_room(server)
        for _ in range(300):  # a hand somebody wins (a drawn one pays nobody; the deals
            # are random: most hands of this play are drawn)
            _play_out_as_people(runtime)
            summary = table.match.history[-1]
            if summary.result.winner is not None:
                failing["on"] = True
                break
            runtime.settle_if_needed(showing=True)
            assert not table.needs_settlement()
            _deal(runtime)
        else:
            raise AssertionError("no hand was won")
        assert table.needs_settlement()
        hand_no = table.hand_no
        winner = summary.players[summary.result.winner]
        partner = next(s for s in summary.players if s != winner)
        for seat, address in ((winner, "10.0.0.9"), (partner, "10.0.0.9"),
                              (summary.xingjia, "10.0.0.5")):
            runtime.seen_at_seat(SimpleNamespace(seat=seat, address=address),  # type: ignore[arg-type]
                                 hand_no)
        assert runtime.sharing_seats(hand_no) == {winner, partner}
        for pid in ids:  # the totals before this hand (earlier hands were drawn)
            player = server.storage.player(pid)
            assert player is not None
            before[pid] = (player.points, player.wins)
        return table.code, summary, ids

    try:
        code, summary, ids = asyncio.run(first_life())
        for runtime in server.runtimes.values():
            if runtime.settle_retry is not None:
                runtime.settle_retry.cancel()
    finally:
        server.storage.close()  # "crash": nothing of the settlement was written
    failing["on"] = False
    again = Server(open_storage(database), match=RANDOM_HALL)
    try:
        logged = json.dumps(again.storage.load_log(code))
        assert '"seen"' in logged and "10.0.0." not in logged  # digests, not addresses
        assert again.restore() == 1
        runtime = again.runtimes[code]
        assert runtime.table.needs_settlement()
        runtime.settle_if_needed()
        assert not runtime.table.needs_settlement()
        won = summary.players[summary.result.winner]
        for seat, pid in enumerate(ids):
            player = again.storage.player(pid)
            assert player is not None
            points = summary.points[seat]
            if seat in (won, next(s for s in summary.players if s != won)):
                expected = min(0, points)  # sharing an address: losses only
                assert player.wins == before[pid][1], seat
            else:
                expected = points
            assert player.points - before[pid][0] == expected, (seat, player.points, points)
        assert summary.points[summary.xingjia] > 0  # (the 醒家 was paid his unit)
    finally:
        again.storage.close()


def test_the_next_match_waits_for_the_da_jiesuan_to_be_read(tmp_path):
    """A room's next hand comes ``next_delay`` (8 s by default) after a hand unless every
    person pressed 下一局 — the 大结算 of a finished match went with it after 8 s, before
    it was read (a phone review). The first hand of a new match waits at least
    ``MATCH_END_WAIT`` instead; a hand within the match still waits ``next_delay``."""
    server = Server(open_storage(str(tmp_path / "game.db")), match=RANDOM_HALL)

    async def go() -> list[float]:
        rec, _ = server.storage.create_player("p")
        table = server.create_room({"seats": ["human", "random", "random"], "bot_delay": 0,
                                    "claim_window": 0.01, "hands": 4, "next_delay": 3})
        runtime = server.runtimes[table.code]
        runtime.commit({"k": "sit", "seat": 0, "player": rec.id, "nickname": "p"})
        # (as if a connection held seat 0: the room deals only while one does)
        runtime.ready_to_deal = lambda: True  # type: ignore[method-assign]
        waits = []
        for _ in range(4):
            _deal(runtime)
            _play_out(runtime)
            await _settled(runtime)
            assert table.match is not None
            runtime.next_task = None
            runtime.schedule_except_bots()
            assert runtime.next_at is not None
            waits.append(runtime.next_at - time.monotonic())
            if runtime.next_task is not None:
                runtime.next_task.cancel()
        assert table.match.over
        runtime.stop()
        return waits

    try:
        *within, after = asyncio.run(go())
    finally:
        server.storage.close()
    assert all(2.5 < wait <= 3.0 for wait in within), within
    assert runtime_module.MATCH_END_WAIT - 0.5 < after <= runtime_module.MATCH_END_WAIT


def test_no_countdown_to_a_next_hand_while_a_seat_waits_for_someone(tmp_path):
    """After the only other person left between hands the settlement still said "next
    hand in 8 s" (a phone review): no hand comes while a person's seat is empty."""
    server = Server(open_storage(str(tmp_path / "game.db")), match=RANDOM_HALL)

    async def go() -> tuple[float | None, float | None]:
        ids = [server.storage.create_player(f"p{s}")[0].id for s in range(2)]
        table = server.create_room({"seats": ["human", "human", "random"], "bot_delay": 0,
                                    "claim_window": 0.01, "next_delay": 30})
        runtime = server.runtimes[table.code]
        for seat, pid in enumerate(ids):
            runtime.commit({"k": "sit", "seat": seat, "player": pid, "nickname": "p"})
        runtime.ready_to_deal = lambda: True  # type: ignore[method-assign]
        _deal(runtime)
        _play_out(runtime)
        await _settled(runtime)
        runtime.schedule_except_bots()
        counting = runtime.next_deadline()
        runtime.commit({"k": "leave", "seat": 1, "frees": True})
        runtime.free_left_seats()
        after = runtime.next_deadline()
        runtime.stop()
        return counting, after

    try:
        counting, after = asyncio.run(go())
    finally:
        server.storage.close()
    assert counting is not None and 25 < counting <= 30
    assert after is None
