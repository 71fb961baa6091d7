"""Scenario helper: a hand from an explicit deal, played by a list of decisions.

A scenario is written as a game record (docs/records.md) with an explicit deal,
so every scenario test is also a replayable record::

    hand = play({"hands": ["...20 cards...", "...", "..."], "liangzhang": "五",
                 "wall": "三四..."},            # top of the wall; the rest follows
                [(1, "chi 三四五"), (1, "discard 九"), ...], rules="qq")
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paohuzi.core.rules import Ruleset
from paohuzi.game.actions import Pass
from paohuzi.game.engine import Hand
from paohuzi.game.record import FORMAT, record_of, replay


def record(deal: dict[str, Any], actions: list[tuple[int, str]],
           rules: str | dict[str, Any] = "qq") -> dict[str, Any]:
    """A record with an explicit deal (dealer defaults to seat 0)."""
    return {
        "format": FORMAT,
        "rules": Ruleset.from_json(rules).to_dict(),
        "deal": {"dealer": 0, **deal},
        "actions": [{"seat": seat, "action": text} for seat, text in actions],
    }


def play(deal: dict[str, Any], actions: list[tuple[int, str]],
         rules: str | dict[str, Any] = "qq") -> Hand:
    """Replay the scenario and check that its own record replays to the same state."""
    hand = replay(record(deal, actions, rules), check_result=False)
    again = replay(record_of(hand), check_result=True)
    assert again.state_key() == hand.state_key()
    return hand


def kinds(hand: Hand, seat: int) -> list[tuple[str, str]]:
    """A seat's table groups as (kind, cards text)."""
    return [(m.kind.value, m.text) for m in hand.seats[seat].melds]


def event_kinds(hand: Hand) -> list[str]:
    return [e.kind for e in hand.events]


def pass_until(hand: Hand, done: Callable[[Hand], bool], limit: int = 500
               ) -> list[tuple[int, str]]:
    """Everyone declines everything (pass) and a seat that must discard throws its lowest
    card, until ``done(hand)``; returns the decisions taken."""
    taken: list[tuple[int, str]] = []
    while not done(hand):
        assert not hand.ended and len(taken) < limit, "the hand ended or never got there"
        seat = hand.pending_seats()[0]
        legal = hand.legal_actions(seat)
        action = Pass() if Pass() in legal else legal[0]
        hand.act(seat, action)
        taken.append((seat, action.text))
    return taken
