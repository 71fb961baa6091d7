"""The WebSocket protocol of a room (docs/protocol.md): the connection loop, and one
small handler per message type, looked up in :data:`HANDLERS`.

A handler runs under the room's lock, after the duplicate check; it raises
:class:`TableError` (or another :class:`PaohuziError`) to refuse, and returns whether
the table changed (then the runtime schedules what comes next).
"""

from __future__ import annotations

import asyncio
import ipaddress
import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from paohuzi.core.cards import ALL_CARDS
from paohuzi.core.errors import PaohuziError
from paohuzi.server.connection import MAX_CONNECTIONS_PER_PLAYER, Client, to_json
from paohuzi.server.levels import level_of
from paohuzi.server.messages import (
    Act,
    Chat,
    Entropy,
    Invalid,
    Leave,
    Message,
    MessageError,
    Next,
    Ping,
    Resync,
    Sit,
    Takeover,
    parse_message,
    seq_of,
)
from paohuzi.server.quickchat import phrase
from paohuzi.server.refusals import refusal, words_of
from paohuzi.server.roombounds import room_address
from paohuzi.server.runtime import Runtime
from paohuzi.server.server import Server, normal_room_code
from paohuzi.server.storage import PlayerRecord
from paohuzi.server.table import Table, TableError

__all__ = ["CARDS", "HANDLERS", "MAX_MESSAGE", "RATE_PER_SECOND", "player_json",
           "serve_socket"]

MAX_MESSAGE = 4096
"""Largest client message accepted (bytes); larger ones close the connection."""
RATE_PER_SECOND = 30
"""Messages a connection may send per second; beyond, an error; at 3x, a close."""
MAX_SEQ_STEP = 2**20
"""How far above a seat's last applied ``seq`` a message may jump: a huge ``seq`` would
otherwise leave no number above it, and the seat could never act again."""
CARDS = [{"text": c.text, "ascii": c.ascii, "red": c.is_red, "big": c.is_big, "point": c.point}
         for c in ALL_CARDS]
"""What the browser needs to draw cards; rules stay here (docs/rules.md §1)."""


def player_json(rec: PlayerRecord) -> dict[str, Any]:
    data = rec.to_json()
    data["level"] = level_of(rec.points)
    return data


# ---- one handler per message type ----------------------------------------------------

def error_message(exc: BaseException, seq: int | None) -> dict[str, Any]:
    """The error answering message ``seq``: its English text, and where it is a player's
    refusal (refusals.py) its words in every language."""
    reply: dict[str, Any] = {"type": "error", "seq": seq, "message": str(exc)}
    said = words_of(exc)
    if said is not None:
        reply["words"] = said
    return reply


def _seated(client: Client) -> int:
    if client.seat is None:
        raise refusal(TableError, "not_seated")
    return client.seat


async def _act(runtime: Runtime, client: Client, msg: Act, ack: EarlyAck) -> bool:
    """A decision: acknowledged as soon as it is logged (:class:`EarlyAck`)."""
    seat = _seated(client)
    runtime.verify_shown(seat)
    runtime.act(seat, msg.action, player=client.player.id, seq=msg.seq,
                acknowledge=ack.send, taken_up=client.taken_up)
    return True


class EarlyAck:
    """A decision's acknowledgement, sent the moment the decision is logged — before the
    engine applies it, so that its delay does not depend on what the engine does next
    (which depends on the others' hidden cards: ``benchmarks/ack_timing.py``)."""

    def __init__(self, client: Client, seq: int) -> None:
        self.client, self.seq = client, seq
        self.sent = False
        self.writer: asyncio.Task[None] | None = None

    def send(self) -> None:
        """Hand the ack to the socket now (queued behind what the connection still has
        to send, if anything)."""
        self.sent = True
        self.writer = self.client.post(to_json({"type": "ack", "seq": self.seq}))

    async def delivered(self) -> None:
        """Wait, as :meth:`Client.send_now` does, until the socket has taken it."""
        if self.writer is not None:
            await asyncio.wait([self.writer])


async def _sit(runtime: Runtime, client: Client, msg: Sit) -> bool:
    t = runtime.table
    t.verify_sit(msg.seat, client.player.id)
    changed = t.seats[msg.seat].player != client.player.id
    if changed:
        runtime.check_entry(client.player.id)  # the 场次's entry minimum (economy.py)
        runtime.note_level(msg.seat, client.player.id)
        runtime.commit({"k": "sit", "seat": msg.seat, "player": client.player.id,
                        "nickname": client.player.nickname, "seq": msg.seq})
    for other in _watching(runtime, client):  # his other connections take the seat too
        other.seat = msg.seat
    client.seat = msg.seat
    runtime.disconnected_at.pop(msg.seat, None)
    return changed


def _watching(runtime: Runtime, client: Client) -> list[Client]:
    """The player's other connections to the room that sit nowhere."""
    return [c for c in runtime.clients
            if c is not client and c.seat is None and c.player.id == client.player.id]


async def _takeover(runtime: Runtime, client: Client, msg: Takeover) -> bool:
    seat = _seated(client)
    if not runtime.table.seats[seat].tuoguan:
        return False
    runtime.commit({"k": "tuoguan", "seat": seat, "on": False, "seq": msg.seq})
    return True


async def _next(runtime: Runtime, client: Client, msg: Next) -> bool:
    """A vote for the next hand. A person in 托管 who votes is back: he takes his seat
    over (a table whose people are all in 托管 pauses, and would never deal again)."""
    seat = client.seat
    if seat is None or not runtime.vote_next(seat):
        return False
    if runtime.table.seats[seat].tuoguan:
        runtime.commit({"k": "tuoguan", "seat": seat, "on": False, "seq": msg.seq})
        return True
    return False


async def _leave(runtime: Runtime, client: Client, msg: Leave) -> bool:
    seat = _seated(client)
    t = runtime.table
    assert t.match is not None
    crossed = msg.after is not None and _crossed_deal(runtime, seat, msg.after)
    if t.hand is not None and t.hand.ended and not runtime.end_shown():
        # the engine is a claim window ahead (a win on the card in play): the seat was
        # shown a hand in play, and the answer must not tell it otherwise (the same
        # answer as below, 托管 included)
        runtime.leave_later(seat, msg.seq)
        return crossed and _autoplay(runtime, seat, msg.seq)
    if t.hand is not None and not t.hand.ended:
        if crossed or t.hand_seat(seat) is None:
            # chosen between hands, after the end of hand ``after``, and a hand was dealt
            # meanwhile (played out by the seat's computer), or the 醒家/坐底 sitting this
            # hand out: the seat leaves when this hand ends, without an escape
            runtime.leave_later(seat, msg.seq)
            return _autoplay(runtime, seat, msg.seq)
        runtime.commit({"k": "escape", "seat": seat, "seq": msg.seq, "ends_match": True,
                        "frees": True})
        runtime.settle_if_needed()
        return True
    # between hands (or before the first): leaving ends the match (§3.1) and the seat is
    # freed (rules-notes N18)
    runtime.commit({"k": "leave", "seat": seat, "seq": msg.seq, "frees": True})
    runtime.record_match()  # its 大结算
    runtime.free_left_seats()  # (the hand he saw end was settled; else when it is)
    return True


LEAVE_CROSSING_SECONDS = 5.0
"""How long after a hand's deal a leave chosen before it (``after``) may arrive."""


def _crossed_deal(runtime: Runtime, seat: int, after: int) -> bool:
    """Whether a leave chosen between hands, after the end of hand ``after``, can have
    crossed the deal of the hand now in play (sent before the deal reached the seat):
    it names the hand just before, comes soon after this process dealt it, before any
    decision of the seat's own in it. Any other is a leave from the hand in play — the
    escape (§7.4): a forged ``after`` walked away from hands a red team disliked, its
    computer playing them out (−12 where the escape cost −30). Every condition is the
    seat's own knowledge, the same whether or not the engine has ended the hand on the
    card in play: the answer tells nothing of the others' cards."""
    t = runtime.table
    if t.hand is None or t.hand_seat(seat) is None:
        return False
    own = True in runtime.moves.get(t.hand_no, {}).get(seat, set())
    return after == t.hand_no - 1 and not own and bool(runtime.dealt_at) and \
        time.monotonic() - runtime.dealt_at <= LEAVE_CROSSING_SECONDS


def _autoplay(runtime: Runtime, seat: int, seq: int) -> bool:
    """A seat of the hand shown that leaves when it ends: its computer plays it out now,
    not after its timeouts (whether that was logged)."""
    t = runtime.table
    assert t.match is not None
    if seat not in t.match.hand_players or t.seats[seat].tuoguan:
        return False
    runtime.commit({"k": "tuoguan", "seat": seat, "on": True, "seq": seq})
    return True


async def _entropy(runtime: Runtime, client: Client, msg: Entropy) -> bool:
    seat = _seated(client)
    entry = runtime.table.verify_entropy(seat, msg.hand, msg.value)
    runtime.commit({**entry, "seq": msg.seq})
    return True


async def _resync(runtime: Runtime, client: Client, msg: Resync) -> bool:
    shown = runtime.delivery.current
    shown_no = shown.hand_no if shown is not None else 0
    hand_no = shown_no if msg.hand is None else msg.hand
    if hand_no == shown_no and msg.events is not None:
        client.events_hand, client.events_sent = shown_no, msg.events
        client.resync = False
    else:
        client.resync = True
    return False  # the state is sent once the room's lock is released (handle)


async def _chat(runtime: Runtime, client: Client, msg: Chat) -> bool:
    seat = _seated(client)
    said = phrase(msg.chat_id)  # ChatRefused: an unknown id
    runtime.server.chat.check(client.player.id)  # ChatRefused: too many
    runtime.say(seat, said["id"])
    return False


async def _ping(runtime: Runtime, client: Client, msg: Ping) -> bool:
    return False


async def _invalid(runtime: Runtime, client: Client, msg: Invalid) -> bool:
    if msg.kind in ("act", "takeover", "leave", "entropy", "chat"):
        _seated(client)  # "you do not sit at this table" comes first
    raise TableError(msg.reason)


Handler = Callable[[Runtime, Client, Any], Awaitable[bool]]
HANDLERS: dict[type, Handler] = {
    Sit: _sit, Takeover: _takeover, Next: _next, Leave: _leave,
    Entropy: _entropy, Resync: _resync, Chat: _chat, Ping: _ping, Invalid: _invalid,
}
"""The handler of each message type but :class:`Act` (``_act``: acknowledged early)."""


async def handle(runtime: Runtime, client: Client, msg: Message) -> None:
    """Apply one message under the room's lock: a duplicate is acknowledged as such, a
    refusal answered with an error (its ``seq`` counted), a change acknowledged after it
    is logged. The answers leave after the lock is released — but a decision's ack, handed
    to the socket (never awaited) once the decision is logged: its timing must not
    depend on what the engine does next. A client that does not read never holds the
    room up."""
    watching = _watching(runtime, client) if isinstance(msg, Sit) else []
    ack = EarlyAck(client, msg.seq)
    reply = await _apply(runtime, client, msg, ack)
    runtime.seen_at_seat(client)  # (a Sit has just given it its seat)
    if client.resync is not None:
        snapshot, client.resync = client.resync, None
        await runtime.send_state(client, snapshot=snapshot)
    if reply is None:
        await ack.delivered()
    else:
        await client.send_now(reply)
    if isinstance(msg, Sit):
        for other in watching:
            if other.seat is not None:
                await _welcome_seated(runtime, other)
        await runtime.announce_presence()  # a spectator took a seat


async def _welcome_seated(runtime: Runtime, client: Client) -> None:
    """Tell a connection that another connection of its player took a seat: a welcome
    again, with that seat and its last ``seq`` (its own count continues above it), then
    the state in full as that seat sees it."""
    seat = client.seat
    assert seat is not None
    await client.send_now({"type": "welcome", "player": player_json(client.player),
                           "room": runtime.table.code, "seat": seat, "cards": CARDS,
                           "last_seq": runtime.table.seats[seat].last_seq})
    await runtime.send_state(client, snapshot=True)


async def _apply(runtime: Runtime, client: Client, msg: Message,
                 ack: EarlyAck) -> dict[str, Any] | None:
    """The answer to ``msg``, None when it was acknowledged early (a decision: ``ack``)."""
    t = runtime.table
    async with runtime.lock:
        seat = client.seat
        last = t.seats[seat].last_seq if seat is not None else _last_before_sitting(t, client,
                                                                                  msg)
        if seat is not None and msg.seq <= last:
            return {"type": "ack", "seq": msg.seq, "duplicate": True}
        if (seat is not None or isinstance(msg, Sit)) and msg.seq > last + MAX_SEQ_STEP:
            # a spectator's sit is bounded too: its seq is counted for the seat it takes
            return {"type": "error", "seq": msg.seq, "message":
                    f"'seq' may be at most {MAX_SEQ_STEP} above the last one applied ({last})"}
        try:
            if isinstance(msg, Act):
                changed = await _act(runtime, client, msg, ack)
            else:
                changed = await HANDLERS[type(msg)](runtime, client, msg)
        except PaohuziError as exc:
            if ack.sent:  # refused after it was logged: a defect, not the player's error
                raise
            _count_seq(runtime, client, msg.seq)
            return error_message(exc, msg.seq)
        _count_seq(runtime, client, msg.seq)
        if changed:
            runtime.schedule()
        return None if ack.sent else {"type": "ack", "seq": msg.seq}


def _last_before_sitting(t: Table, client: Client, msg: Message) -> int:
    """The last ``seq`` of the seat an unseated connection's ``sit`` takes: that seat's if
    it is free or already the player's (never another player's: it would tell how much he
    sent), else 0."""
    if not isinstance(msg, Sit) or not 0 <= msg.seat < len(t.seats):
        return 0
    target = t.seats[msg.seat]
    return target.last_seq if target.player in (None, client.player.id) else 0


def _count_seq(runtime: Runtime, client: Client, seq: int) -> None:
    """The seat's last applied ``seq`` is at least ``seq`` (refused messages count)."""
    if client.seat is not None:
        seat = runtime.table.seats[client.seat]
        seat.last_seq = max(seat.last_seq, seq)


# ---- the connection loop ---------------------------------------------------------------

async def serve_socket(server: Server, ws: WebSocket) -> None:
    """One connection to ``/ws/{code}``, from accepting it to its end; what it holds open
    (its place under the caps per address and per account) is given back at its end."""
    held: list[tuple[str, str]] = []
    try:
        await _serve(server, ws, held)
    finally:
        for name, key in held:
            server.leave(name, key)


async def _serve(server: Server, ws: WebSocket, held: list[tuple[str, str]]) -> None:
    code = ws.path_params["code"]
    token = ws.query_params.get("token", "")
    await ws.accept()

    async def refuse(refused: str | BaseException, close_code: int) -> None:
        said = words_of(refused) if isinstance(refused, BaseException) else None
        body: dict[str, Any] = {"type": "error", "message": str(refused)}
        if said is not None:
            body["words"] = said
        if getattr(refused, "code", None) == "spectators_full":  # (the browser sits: `sit`)
            body["code"] = "spectators_full"
        await ws.send_json(body)
        await ws.close(code=close_code)

    cluster = server.cluster
    forwarded = cluster is not None and cluster.is_forwarded(ws)
    address = address_of(ws)
    if forwarded:  # its own address came with the cluster's secret
        from paohuzi.server.cluster import FORWARDED_FOR

        address = person_address(ws.headers.get(FORWARDED_FOR, ""))
    if not forwarded:
        site = room_address(address)  # an IPv6 /48: its /64s do not multiply the bound
        if not server.allow("connections_per_address", site):
            await refuse(refusal(PaohuziError, "connections_address_rate"), 1008)
            return
        if not server.enter("connections_per_address", address):  # open: by /64
            await refuse(refusal(PaohuziError, "connections_address_open"), 1008)
            return
        held.append(("connections_per_address", address))
    runtime = server.find_room(code)
    if runtime is None and cluster is not None and not forwarded:
        code = normal_room_code(code)  # as typed (spaces, full-width digits) → as stored
        owner = cluster.owner_address(code)
        if owner is not None and owner != cluster.address:  # served by another process
            from paohuzi.server.cluster import forward

            query = ws.url.query
            target = owner.replace("http://", "ws://", 1).replace("https://", "wss://", 1)
            await forward(ws, f"{target}/ws/{code}" + (f"?{query}" if query else ""),
                          cluster.secret, address)
            return
    rec = server.storage.player_by_token(token) if token else None
    if runtime is None or rec is None:
        await refuse("unknown room" if runtime is None else "unknown token",
                     4004 if runtime is None else 4001)
        return
    if not server.allow("connections_per_account", str(rec.id)):
        await refuse(refusal(PaohuziError, "connections_account_rate"), 1008)
        return
    if not server.enter("connections_per_account", str(rec.id)):
        await refuse(refusal(PaohuziError, "connections_account_open"), 1008)
        return
    held.append(("connections_per_account", str(rec.id)))
    t = runtime.table
    sitting = ws.query_params.get("sit") == "1" and t.seat_of_player(rec.id) is None
    refused = connection_refused(runtime, rec, server.limits.max_spectators, sitting)
    if refused is not None:
        await refuse(refused, 1008)
        return
    client = Client(ws, rec, t.seat_of_player(rec.id),
                    presence=ws.query_params.get("presence") == "1",
                    delta=ws.query_params.get("delta") == "1", address=address)
    watching: list[Client] = []
    if sitting and connection_refused(runtime, rec, server.limits.max_spectators) is not None:
        # past the spectators' cap only to take a free seat, as it comes
        try:
            async with runtime.lock:
                seat = free_seat(t)
                if seat is None:  # taken meanwhile
                    raise refusal(PaohuziError, "spectators_full")
                watching = _watching(runtime, client)
                await _sit(runtime, client, Sit(0, seat))
        except PaohuziError as exc:
            await refuse(exc, 1008)
            return
    runtime.connect(client)
    await client.send_now({"type": "welcome", "player": player_json(rec), "room": t.code,
                           "seat": client.seat, "cards": CARDS,
                           "last_seq": t.seats[client.seat].last_seq
                           if client.seat is not None else 0})
    await runtime.send_state(client, snapshot=True)
    await client.send_now({"type": "presence", "connected": runtime.connected_seats()})
    for other in watching:  # his other connections took the seat too: told so
        if other.seat is not None:
            await _welcome_seated(runtime, other)
    await runtime.announce_presence()
    if client.presence:
        await client.send_now(runtime.presence())
    async with runtime.lock:
        runtime.schedule()  # a room deals only while one of its people is connected
    try:
        await _receive(runtime, client)
    except WebSocketDisconnect:
        pass
    finally:
        runtime.disconnect(client)
        await runtime.announce_presence()


async def _receive(runtime: Runtime, client: Client) -> None:
    ws = client.ws
    server = runtime.server
    address = room_address(client.address)  # its frames count with its address's
    while not client.dropped:
        frame = await ws.receive()
        if frame["type"] == "websocket.disconnect":
            return
        await runtime.quiet(client.seat)  # every answer to it too, an error's included
        now = client.taken_up = time.monotonic()  # a decision's mask runs from here
        count = client.count_frame(now)  # binary frames count too
        budget = server.take_frame(address, now)  # all of the address's connections
        if count > 3 * RATE_PER_SECOND or budget == "close":
            await client.close_soon(1008)  # bounded: the peer may read nothing
            return
        raw = frame.get("text")
        if raw is None:
            await client.send_now({"type": "error",
                                   "message": "send JSON text, not binary frames"})
            continue
        if len(raw.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
            await client.send_now({"type": "error", "message": "message too large"})
            await client.close_soon(1009)  # (a 1013 already closing it wins)
            return
        if count > RATE_PER_SECOND or budget == "refuse":
            await client.send_now(error_message(
                refusal(PaohuziError, "too_many_messages"), seq_of(raw)))
            continue
        try:
            msg = parse_message(raw)
        except MessageError as exc:
            await client.send_now({"type": "error", "message": str(exc)})
            continue
        await handle(runtime, client, msg)


def connection_refused(runtime: Runtime, rec: PlayerRecord, max_spectators: int,
                       sitting: bool = False) -> PaohuziError | None:
    """Why a new connection is refused, if it is: 3 per player; connections without a
    seat capped, with room left for people taking a free seat — a seated player is never
    locked out by spectators, nor is one who comes to take a free seat (``sitting``: the
    connection's ``sit=1``; strangers holding every spectator's place locked the friend
    a private room waited for out of it, unseen — a red team)."""
    if sum(1 for c in runtime.clients if c.player.id == rec.id) >= MAX_CONNECTIONS_PER_PLAYER:
        return refusal(PaohuziError, "connections_player")
    if runtime.table.seat_of_player(rec.id) is not None:
        return None
    if runtime.spectator_room(max_spectators) <= 0 and \
            not (sitting and free_seat(runtime.table) is not None):
        return refusal(PaohuziError, "spectators_full")
    return None


def free_seat(table: Table) -> int | None:
    """The first person's seat nobody holds, if any."""
    return next(iter(table.free_seats()), None)


def address_of(conn: Any) -> str:
    """The peer address of an HTTP request or a WebSocket, as one person's
    (:func:`person_address`): what every bound and rule by address keys on."""
    return person_address(conn.client.host) if conn.client is not None else "unknown"


def person_address(host: str) -> str:
    """The address taken for one person's: an IPv4 address as it is; an IPv6 address as
    its /64 network, which a home line or a server is given whole (a red team: anyone
    with a /64 held a new address for every account, room cap and rate limit); an
    IPv4-mapped IPv6 address as its IPv4 one. Anything else is kept as it is.

    >>> person_address("2001:db8:1:2::a") == person_address("2001:db8:1:2:ffff::1")
    True
    >>> person_address("2001:db8:1:2::a"), person_address("2001:db8:1:3::a")
    ('2001:db8:1:2::/64', '2001:db8:1:3::/64')
    >>> person_address("::ffff:192.0.2.7"), person_address("192.0.2.7"), person_address("x")
    ('192.0.2.7', '192.0.2.7', 'x')
    """
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)
