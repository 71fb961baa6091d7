"""The room's seat numbers in what leaves the server.

The engine numbers a hand's seats 0..players-1 (the dealer's first); a room numbers its
*match seats* 0..seats-1, and in hunan with a 醒家 four match seats play hands of three.
Everything the protocol sends speaks match seats: :func:`match_view` renumbers an
engine seat view (``paohuzi.game.view.view_json``) and its events, so that no client maps
numbers back.

>>> view = {"seat": 0, "players": 3, "dealer": 0, "turn": 2, "seats": ["a", "b", "c"],
...         "claim": {"card": "三", "source": 1, "context": "discard"},
...         "result": {"reason": "hu", "winner": 2, "points": [-3, -3, 6],
...                    "beans": [-1, -1, 2]}}
>>> seen, events = match_view(view, [{"kind": "discard", "seat": 1}], (1, 2, 3), 4)
>>> seen["seat"], seen["dealer"], seen["turn"], seen["claim"]["source"]
(1, 1, 3, 2)
>>> seen["seats"], seen["result"]["winner"], seen["result"]["points"], events
([None, 'a', 'b', 'c'], 3, [None, -3, -3, 6], [{'kind': 'discard', 'seat': 2}])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["match_event", "match_view"]

_SEAT_KEYS = ("seat", "dealer", "turn")
_RESULT_SEAT_KEYS = ("winner", "leaver")
_RESULT_LISTS = ("points", "beans")


def match_view(view: dict[str, Any], events: list[dict[str, Any]], playing: Sequence[int],
               seats: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``view`` and ``events`` with every hand seat number made the match seat it is
    (``playing[hand_seat]``); per-seat lists get one entry per match seat, ``None``
    for a seat that sits the hand out. Nothing is changed in place."""

    def seat(hand_seat: Any) -> Any:
        return playing[hand_seat] if isinstance(hand_seat, int) else hand_seat

    def spread(per_hand_seat: list[Any]) -> list[Any]:
        out: list[Any] = [None] * seats
        for hand_seat, value in enumerate(per_hand_seat):
            out[playing[hand_seat]] = value
        return out

    seen = dict(view)
    for key in _SEAT_KEYS:
        if key in seen:
            seen[key] = seat(seen[key])
    seen["seats"] = spread(view["seats"])
    if "claim" in view:
        seen["claim"] = {**view["claim"], "source": seat(view["claim"]["source"])}
    if "result" in view:
        result = dict(view["result"])
        for key in _RESULT_SEAT_KEYS:
            if key in result:
                result[key] = seat(result[key])
        for key in _RESULT_LISTS:
            result[key] = spread(result[key])
        seen["result"] = result
    if "revealed_hands" in view:
        seen["revealed_hands"] = spread(view["revealed_hands"])
    return seen, [match_event(e, playing) for e in events]


def match_event(event: dict[str, Any], playing: Sequence[int]) -> dict[str, Any]:
    """An event (``Event.visible_to``) with its hand seat made the match seat it is.

    >>> match_event({"kind": "draw", "seat": 0, "hidden": 1}, (1, 2, 3))
    {'kind': 'draw', 'seat': 1, 'hidden': 1}
    """
    hand_seat = event.get("seat")
    if not isinstance(hand_seat, int):
        return event
    return {**event, "seat": playing[hand_seat]}
