"""Seeded random hands reduced to one digest per rule form: the proof that a change to the
engine changed no behaviour (``tests/test_engine_golden.py`` holds the digests of the
engine as it was; ``benchmarks/engine.py --check N --src OLD/src`` compares two trees).

Only plain data goes into a digest (action texts, event fields as ints and strings, the
record, the result's JSON), so that any tree's engine gives the same text for the same
behaviour.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from paohuzi.core.rules import Ruleset
from paohuzi.game.engine import Hand
from paohuzi.game.record import record_of

FORMS: dict[str, dict[str, Any]] = {
    "qq": {},
    "changde": {},
    "hunan": {},
    "two-player": {},
    "luzhou": {},
    "luzhou/3": {"players": 3},
    "luzhou/2": {"players": 2},
    "hunan/xingjia": {"xingjia": True},
    "qq/no-ti-wei-win": {"win_on_ti_wei": False},
}
"""The rule forms digested: each preset and the seat forms (``name/...``: the
preset with these options)."""


def rules_of(form: str) -> Ruleset:
    """The rules of a form of :data:`FORMS`."""
    return Ruleset.preset(form.split("/")[0], **FORMS[form])


def _plain(event: Any) -> list[Any]:
    return [event.kind.value, event.seat, [int(c) for c in event.cards], event.private,
            event.detail]


def hand_digest(seed: int, rules: Any, dealer: int = 0) -> str:
    """Play one seeded random hand; the SHA-256 of all it showed (legal actions at each
    step in order, the events each action returned, every event (some hands end with
    a seat's escape), the record, result with its settlement), in plain data only so
    that any tree's engine gives the same text for the same behaviour."""
    hand = Hand.from_seed(seed, rules, dealer=dealer)
    rng = random.Random(seed)
    steps: list[Any] = []
    escape_at = seed % 40 if seed % 7 == 0 else -1  # some hands end by an escape
    while not hand.ended:
        seat = hand.pending_seats()[0]
        legal = hand.legal_actions(seat)
        if len(steps) == escape_at:
            steps.append(["escape", [_plain(e) for e in hand.escape(seat)]])
            break
        caused = hand.act(seat, legal[rng.randrange(len(legal))])
        steps.append([hand.pending_seats(), [a.text for a in legal], [_plain(e) for e in caused]])
    events = [_plain(e) for e in hand.events]
    result = hand.result.to_json() if hand.result is not None else None
    text = json.dumps([steps, events, record_of(hand), result, repr(hand.state_key())],
                      ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def form_digest(form: str, games: int, seed: int = 2026) -> str:
    """One digest over ``games`` hands of a rule form (dealers in turn)."""
    rules = rules_of(form)
    h = hashlib.sha256()
    for i in range(games):
        h.update(hand_digest(seed * 100_003 + i, rules, dealer=i % rules.players).encode())
    return h.hexdigest()
