"""The typed kinds (paohuzi.core.kinds): what the engine emits, and the strings records carry."""

from __future__ import annotations

import json

import pytest

from paohuzi.apps.play import _EVENT_WORDS
from paohuzi.core.cards import Card, parse_cards
from paohuzi.core.kinds import ClaimContext, EndReason, EventKind, Source, TianhuKind
from paohuzi.core.rules import Ruleset
from paohuzi.core.solver import solve, tianhu_kind
from paohuzi.game.actions import Discard
from paohuzi.game.engine import Hand
from paohuzi.game.record import record_of
from paohuzi.game.view import observe, seat_view
from paohuzi.players import make_player, play_hand

# The strings are the record and protocol format (docs/records.md, docs/protocol.md):
# renaming one would break stored records and the browser.
FORMAT_STRINGS = {
    EventKind: {"deal", "liangzhang", "ti", "wei", "chouwei", "pao", "peng", "chi",
                "discard", "draw", "show", "to_pile", "hu", "xianggong", "no_discard",
                "huangzhuang", "escape", "dipai"},
    ClaimContext: {"discard", "draw", "liangzhang", "own"},
    Source: {"self", "other", "discard", "liangzhang", "tianhu"},
    EndReason: {"hu", "tianhu", "huangzhuang", "escape"},
    TianhuKind: {"3ti", "5kan"},
}


@pytest.mark.parametrize("kind", list(FORMAT_STRINGS), ids=lambda k: k.__name__)
def test_the_values_are_the_format_strings(kind: type) -> None:
    assert {member.value for member in kind} == FORMAT_STRINGS[kind]  # type: ignore[attr-defined]
    assert all(kind(value) == value for value in FORMAT_STRINGS[kind])


def _played_hands() -> list[Hand]:
    hands = []
    for preset in ("qq", "hunan", "two-player"):
        rules = Ruleset.preset(preset)
        for seed in range(6):
            hand = Hand.from_seed(seed, rules, dealer=seed % rules.players)
            play_hand(hand, [make_player("heuristic", seed + k) for k in range(rules.players)])
            hands.append(hand)
    return hands


def test_played_hands_carry_typed_kinds_and_plain_strings_in_json() -> None:
    seen: set[EventKind] = set()
    reasons: set[EndReason] = set()
    for hand in _played_hands():
        result = hand.result
        assert result is not None
        assert type(result.reason) is EndReason
        reasons.add(result.reason)
        if result.winner is None:
            assert result.source is None
        else:
            assert type(result.source) is Source
        for event in hand.events:
            assert type(event.kind) is EventKind, event
            seen.add(event.kind)
        # JSON-ready output holds plain strings, equal to the members.
        data = record_of(hand)["result"]
        assert type(data["reason"]) is str and data["reason"] == result.reason
        for seat in (*range(hand.players), None):
            for e in seat_view(hand, seat)["events"]:
                assert type(e["kind"]) is str and EventKind(e["kind"]) in seen
        assert json.loads(json.dumps(record_of(hand))) == record_of(hand)
    assert {EventKind.DEAL, EventKind.LIANGZHANG, EventKind.DISCARD, EventKind.DRAW,
            EventKind.HU} <= seen
    assert EndReason.HU in reasons


def test_claim_seat_is_the_seat_that_showed_the_card() -> None:
    for seed in range(40):
        hand = Hand.from_seed(seed, Ruleset())
        while not hand.ended:
            seat = hand.pending_seats()[0]
            action = hand.legal_actions(seat)[-1]
            hand.act(seat, action)
            claim = hand.claim
            if isinstance(action, Discard) and claim is not None:
                assert claim.seat == seat and claim.context is ClaimContext.DISCARD
                deciding = hand.pending_seats()[0]
                assert observe(hand, deciding).claim == (claim.card, seat, claim.context)
                view = seat_view(hand, deciding)["claim"]
                assert view == {"card": claim.card.text, "source": seat, "context": "discard"}
                return
    pytest.fail("no discard was claimable in 40 seeded hands")


def test_every_event_kind_has_words_in_the_terminal_game() -> None:
    assert set(_EVENT_WORDS) == set(EventKind)


def test_tianhu_kind_is_typed() -> None:
    assert tianhu_kind(parse_cards("一一一一 二二二二 三三三三 四五六七八九")) is TianhuKind.SAN_TI
    assert tianhu_kind(parse_cards("一一一一 二二二二 三三三 四四四 五五五")) is TianhuKind.WU_KAN


@pytest.mark.parametrize("source", [Source.SELF, Source.OTHER, Source.DISCARD, Source.LIANGZHANG])
def test_the_solver_takes_members_and_plain_strings_alike(source: Source) -> None:
    hand = parse_cards("一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌捌")
    for dealer in (False, True):
        by_member = solve(hand, [], Card.parse("捌"), source, dealer=dealer)
        by_text = solve(hand, [], Card.parse("捌"), source.value, dealer=dealer)  # type: ignore[arg-type]
        assert by_member is not None and by_member == by_text
