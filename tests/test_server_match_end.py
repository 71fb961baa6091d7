"""docs/rules.md §3.1 [decision] at the server's table: a player leaving — by 逃跑 or between
hands — ends the match; the next hand starts a new match whose first dealer comes from
that hand's shuffle (the table's log entries applied directly, no network)."""

from __future__ import annotations

from typing import Any

from paohuzi.game.actions import Pass
from paohuzi.server.fairness import Shuffle
from paohuzi.server.table import RoomConfig, Table


def _table() -> Table:
    t = Table("ROOM42", RoomConfig.from_json({"rules": "qq",
                                              "seats": ["human", "heuristic", "heuristic"]}))
    t.apply({"k": "sit", "seat": 0, "player": 7, "nickname": "p"})
    return t


def _deal(t: Table, values: tuple[str, ...]) -> Shuffle:
    commit = t.new_commit_entry()
    t.apply(commit)
    for seat, value in enumerate(values):
        t.apply({"k": "entropy", "hand": commit["hand"], "seat": seat, "value": value})
    t.apply(t.new_start_entry())
    assert t.shuffle is not None and isinstance(t.shuffle, Shuffle)
    return t.shuffle


def _settle(t: Table) -> None:
    assert t.needs_settlement()
    t.apply({"k": "settled", "hand": t.finished_hands})


def _play_out(t: Table) -> None:
    hand = t.hand
    assert hand is not None
    while not hand.ended:
        seat = hand.pending_seats()[0]
        legal = hand.legal_actions(seat)
        action = Pass() if Pass() in legal else legal[0]
        t.apply({"k": "act", "seat": t.match_seat(seat), "action": action.text})


def _state(t: Table) -> tuple[Any, ...]:
    assert t.match is not None
    return (t.match.dealer, t.match.points, len(t.match.history), t.finished_hands)


def test_s3_1_escape_ends_the_match_next_dealer_from_that_hands_shuffle() -> None:
    t = _table()
    _deal(t, ("a", "b", "c"))
    first = t.match
    assert first is not None and t.hand is not None
    t.apply({"k": "escape", "seat": 0, "ends_match": True})
    assert first.over and first.points[0] < 0
    _settle(t)
    assert t.finished_hands == 1 and not t.needs_settlement()
    shuffle = _deal(t, ("d", "e", "f"))
    assert t.match is not first and t.match is not None and not t.match.over
    assert t.match.dealer == shuffle.dealer_of(3)  # drawn from this hand's shuffle
    assert t.match.points == [0, 0, 0]  # match totals reset
    assert t.match.drawn_in_a_row == 0 and t.hand_no == 2
    assert t.match.hand_players[0] == t.match.dealer
    _play_out(t)
    assert t.finished_hands == 2
    record = t.finished_record()
    assert record["hand_no"] == 2  # the table's count goes on
    assert record["shuffle"]["first_dealer"] == shuffle.dealer_of(3)  # checkable


def test_s3_1_leaving_between_hands_ends_the_match() -> None:
    t = _table()
    _deal(t, ("a", "b", "c"))
    _play_out(t)
    _settle(t)
    first = t.match
    assert first is not None and not first.over
    t.apply({"k": "leave", "seat": 1})
    assert first.over
    shuffle = _deal(t, ("x", "y", "z"))
    assert t.match is not first and t.match is not None
    assert t.match.dealer == shuffle.dealer_of(3)
    assert t.finished_hands == 1 and len(t.match.history) == 0


def test_an_escape_logged_before_the_rule_keeps_the_match() -> None:
    """Older logs replay as they were played: their escape did not end the match."""
    t = _table()
    _deal(t, ("a", "b", "c"))
    t.apply({"k": "escape", "seat": 0})
    _settle(t)
    first = t.match
    assert first is not None and not first.over
    _deal(t, ("d", "e", "f"))
    assert t.match is first and len(first.history) == 1


def test_replay_of_the_log_rebuilds_the_same_state() -> None:
    t = _table()
    log: list[dict[str, Any]] = []
    original = t.apply

    def logging_apply(entry: dict[str, Any]) -> None:
        log.append(entry)
        original(entry)

    t.apply = logging_apply  # type: ignore[method-assign]
    _deal(t, ("a", "b", "c"))
    t.apply({"k": "escape", "seat": 2, "ends_match": True})
    _settle(t)
    _deal(t, ("d", "e", "f"))
    again = Table("ROOM42", t.config)
    for entry in [{"k": "sit", "seat": 0, "player": 7, "nickname": "p"}, *log]:
        again.apply(entry)
    assert _state(again) == _state(t) and again.state_hash() == t.state_hash()
