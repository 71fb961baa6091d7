"""The server speaks match seats everywhere (issue 10): views, events, results and
refusals never carry the engine's hand seat numbers — hunan with a 醒家 has four match
seats and hands of three. And a message is parsed once into a typed value."""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

import pytest

from paohuzi.core.cards import ALL_CARDS
from paohuzi.game.actions import Discard, Pass
from paohuzi.server.messages import (
    MAX_SEQ,
    Act,
    Entropy,
    Invalid,
    MessageError,
    Ping,
    Resync,
    Sit,
    parse_message,
)
from paohuzi.server.server import Server
from paohuzi.server.storage import SQLiteStorage
from paohuzi.server.table import RoomConfig, Table, TableError


def _hunan(code: str) -> Table:
    table = Table(code, RoomConfig.from_json({"preset": "hunan", "xingjia": True,
                                              "seats": ["human"] * 4}))
    for s in range(4):
        table.apply({"k": "sit", "seat": s, "player": s + 1})
    return table


def _check_view(table: Table, viewer: int | None) -> dict[str, Any]:
    body = table.view_for(viewer)
    view, events = body["view"], body["events"]
    assert table.match is not None
    playing = set(table.match.hand_players or table.match.playing_seats())
    xingjia = table.match.xingjia
    assert xingjia is not None and xingjia not in playing and len(playing) == 3
    assert "playing" not in body  # nothing to map back
    assert len(view["seats"]) == 4 and view["seats"][xingjia] is None
    assert all(view["seats"][s] is not None for s in playing)
    assert view["dealer"] == body["table"]["dealer"] == table.match.dealer
    assert view["seat"] == (viewer if viewer in playing else None)
    if view["turn"] is not None:
        assert view["turn"] in playing
    if "claim" in view:
        assert view["claim"]["source"] in playing
    for event in events:
        if "seat" in event:
            assert event["seat"] in playing
        if event["kind"] == "deal" and "cards" in event:
            assert event["seat"] == viewer  # one's own deal only, under one's own number
    result = view.get("result")
    if result is not None:
        assert len(result["points"]) == 4 and result["points"][xingjia] is None
        for key in ("winner", "leaver"):
            if key in result:
                assert result[key] in playing
    return body


@pytest.mark.parametrize("code", ["a", "b", "c", "d", "e", "f"])
def test_hunan_views_speak_match_seats(code):
    table = _hunan(code)
    table.apply({"k": "start", "seed": sum(map(ord, code)), "salt": "x"})
    rng = random.Random(code)
    hand = table.hand
    assert hand is not None
    while not hand.ended:
        for viewer in (None, 0, 1, 2, 3):
            _check_view(table, viewer)
        seat = table.match_seat(hand.pending_seats()[0])
        legal = hand.legal_actions(table.hand_seat(seat) or 0)
        action = legal[rng.randrange(len(legal))]
        table.verify_act(seat, action)
        table.apply({"k": "act", "seat": seat, "action": action.text, "player": seat + 1})
    for viewer in (None, 0, 1, 2, 3):
        _check_view(table, viewer)


def test_refusals_name_no_seat():
    """Every refusal of a decision is worded without a seat number (the engine's would
    be a hand seat, meaningless to the room) — and the 醒家 is told he sits out."""
    table = _hunan("refusals")
    table.apply({"k": "start", "seed": 7, "salt": "x"})
    assert table.match is not None and table.hand is not None
    xingjia = table.match.xingjia
    assert xingjia is not None
    words = []
    for seat in range(4):
        for action in [Pass(), *(Discard(c) for c in ALL_CARDS)]:
            try:
                table.verify_act(seat, action)
            except TableError as exc:
                words.append(str(exc))
                assert not re.search(r"seat\s*\d", str(exc)), exc
                assert not table.can_act(seat, action)
            else:
                assert table.can_act(seat, action)
    with pytest.raises(TableError, match="sit this hand out"):
        table.verify_act(xingjia, Pass())
    assert any("holds no" in w for w in words) and any("may not" in w for w in words)


def test_a_computer_decision_is_verified_before_it_is_logged(tmp_path):
    """One path for every decision (Runtime.act): an illegal one raises and logs nothing."""
    asyncio.run(_one_path(tmp_path))


async def _one_path(tmp_path: Any) -> None:
    server = Server(SQLiteStorage(tmp_path / "one.db"))
    table = server.create_room({"seats": ["human", "random", "random"]})
    runtime = server.runtimes[table.code]
    runtime.commit({"k": "sit", "seat": 0, "player": 1, "nickname": "p"})
    runtime.commit({"k": "start", "seed": 3, "salt": "x"})
    hand = table.hand
    assert hand is not None
    seat = table.match_seat(hand.pending_seats()[0])
    logged = server.storage.load_log(table.code)
    with pytest.raises(TableError):
        runtime.act(seat, Pass(), player=None)  # the dealer must discard
    idle = next(s for s in range(3) if s != seat)
    with pytest.raises(TableError, match="not your decision"):
        runtime.act(idle, hand.legal_actions(table.hand_seat(seat) or 0)[0], player=None)
    assert server.storage.load_log(table.code) == logged
    action = hand.legal_actions(table.hand_seat(seat) or 0)[0]
    runtime.act(seat, action, player=None)
    entry = server.storage.load_log(table.code)[-1]
    assert entry == {"k": "act", "seat": seat, "action": action.text, "player": None,
                     "auto": True}
    runtime.stop()
    server.pool.close()


def test_messages_parse_once_into_typed_values():
    assert parse_message('{"type": "act", "seq": 2, "action": "discard d10"}') == \
        Act(2, Discard(next(c for c in ALL_CARDS if c.ascii == "d10")))
    assert parse_message('{"type": "sit", "seq": 1, "seat": 3}') == Sit(1, 3)
    assert parse_message('{"type": "entropy", "seq": 4, "hand": 2, "value": "ab"}') == \
        Entropy(4, 2, "ab")
    assert parse_message('{"type": "ping", "seq": 9}') == Ping(9)
    assert parse_message('{"type": "resync", "seq": 5}') == Resync(5, None, 0)
    assert parse_message('{"type": "resync", "seq": 5, "hand": 2, "events": 7}') == \
        Resync(5, 2, 7)
    assert parse_message('{"type": "resync", "seq": 5, "events": -1}') == \
        Resync(5, None, None)
    for raw, reason in (('{"type": "act", "seq": 1}', "'action' must be text"),
                        ('{"type": "act", "seq": 1, "action": "gang"}', "unknown action"),
                        ('{"type": "sit", "seq": 1, "seat": true}', "seat number"),
                        ('{"type": "entropy", "seq": 1, "hand": 1, "value": "XY"}', "hex"),
                        ('{"type": "entropy", "seq": 1, "hand": "1", "value": "ab"}',
                         "hand number"),
                        ('{"type": "dance", "seq": 1}', "unknown message type 'dance'")):
        msg = parse_message(raw)
        assert isinstance(msg, Invalid) and msg.seq == 1 and reason in msg.reason, msg
    for raw, reason in (("{", "malformed JSON"), ("[1]", "JSON object"),
                        ('{"type": "ping"}', "'seq'"),
                        (f'{{"type": "ping", "seq": {MAX_SEQ + 1}}}', "'seq'"),
                        ('{"type": "ping", "seq": true}', "'seq'")):
        with pytest.raises(MessageError, match=reason):
            parse_message(raw)
