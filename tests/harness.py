"""The random-game harness: plays seeded random games and checks invariants at every step.

Checked after every decision:
* the 80 cards are all accounted for (hands, tables, piles, wall, set aside, card in play);
* every legal action verifies, and random illegal actions are refused with the state unchanged;
* each seat's view holds nothing that seat may not see (structural checks, and the view
  is unchanged when cards hidden from that seat are swapped);
and per game: the record replays to the identical state, and the same seed gives the same game.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field

from paohuzi.core.cards import ALL_CARDS, KINDS
from paohuzi.core.groups import Group, GroupKind
from paohuzi.core.rules import Ruleset
from paohuzi.game.actions import Action, Chi, Discard, Hu, Pass, Peng
from paohuzi.game.engine import Hand, IllegalActionError
from paohuzi.game.record import record_of, replay
from paohuzi.game.view import seat_view

PRIVATE_EVENT_KINDS = {"deal", "draw", "wei"}
"""Events whose cards only their own seat may see (§4.2.1: a 偎 is face down)."""


@dataclass
class HarnessStats:
    games: int = 0
    steps: int = 0
    illegal_refused: int = 0
    leak_checks: int = 0
    reasons: dict[str, int] = field(default_factory=dict)


def _random_illegal(hand: Hand, rng: random.Random) -> tuple[int, Action] | None:
    """An action that is not legal now (or None if every guess happened to be legal)."""
    for _ in range(6):
        seat = rng.randrange(hand.players)
        card = ALL_CARDS[rng.randrange(KINDS)]
        choice = rng.randrange(5)
        action: Action
        if choice == 0:
            action = Discard(card)
        elif choice == 1:
            action = Peng()
        elif choice == 2:
            action = Hu()
        elif choice == 3:
            action = Pass()
        else:
            v = card % 10
            start = min(v, 7) + (10 if card >= 10 else 0)
            action = Chi(Group(GroupKind.SENTENCE, tuple(ALL_CARDS[start + k] for k in range(3))))
        if action not in hand.legal_actions(seat):
            return seat, action
    return None


def check_view(hand: Hand, seat: int | None) -> None:
    """Structural check that ``seat``'s view shows only what it may see."""
    view = seat_view(hand, seat)
    if seat is None:
        assert "hand" not in view and "legal_actions" not in view
    else:
        own = sorted(c.text for c in hand.seats[seat].hand_cards)
        assert sorted(view["hand"]) == own
    if hand.result is None:
        assert "revealed_hands" not in view
    for owner, seat_info in enumerate(view["seats"]):
        assert "hand" not in seat_info
        for meld, true_meld in zip(seat_info["melds"], hand.seats[owner].melds, strict=True):
            if true_meld.kind is GroupKind.WEI and owner != seat and hand.result is None:
                # hidden while the hand is played; every hand is shown once it is over
                assert "cards" not in meld, (owner, meld)
    for event, true_event in zip(view["events"], hand.events, strict=True):
        if true_event.kind in PRIVATE_EVENT_KINDS and true_event.seat != seat:
            assert "cards" not in event and "detail" not in event, event
    assert "wall_cards" not in view and not any(isinstance(v, list) and len(v) == len(hand.wall)
                                                and hand.wall and v == hand.wall
                                                for v in view.values())


def check_hidden_swap(hand: Hand, seat: int, rng: random.Random) -> bool:
    """Swap a card between another seat's hand and the wall (both hidden from ``seat``):
    ``seat``'s view must not change. Returns whether a swap was possible."""
    others = [s for s in range(hand.players) if s != seat]
    other = rng.choice(others)
    st = hand.seats[other]
    mine = [c for c in range(KINDS) if 0 < st.hand[c] <= 2]
    wall_cards = {int(c) for c in hand.wall}
    pairs = [(a, b) for a in mine for b in wall_cards if a != b and st.hand[b] < 2]
    if not pairs:
        return False
    a, b = rng.choice(pairs)
    twin = copy.deepcopy(hand)
    tst = twin.seats[other]
    tst.hand[a] -= 1
    tst.hand[b] += 1
    tst.version += 1
    i = next(i for i, c in enumerate(twin.wall) if c == b)
    twin.wall[i] = ALL_CARDS[a]
    assert seat_view(twin, seat) == seat_view(hand, seat), "a hidden card changed the view"
    return True


def play_checked(seed: int, rules: Ruleset, stats: HarnessStats, *, dealer: int = 0,
                 swap_checks: bool = True) -> Hand:
    """One random game with every per-step invariant checked."""
    rng = random.Random(seed)
    hand = Hand.from_seed(seed, rules, dealer=dealer % rules.players)
    assert hand.card_total() == 80
    while not hand.ended:
        pending = hand.pending_seats()
        assert pending, "the hand waits for nobody"
        seat = pending[rng.randrange(len(pending))]  # any answer order must work
        legal = hand.legal_actions(seat)
        assert legal
        for action in legal:
            hand.verify(seat, action)
        illegal = _random_illegal(hand, rng)
        if illegal is not None:
            before = hand.state_key()
            try:
                hand.act(*illegal)
            except IllegalActionError:
                stats.illegal_refused += 1
            else:
                raise AssertionError(f"illegal {illegal[1].text} by seat {illegal[0]} accepted")
            assert hand.state_key() == before
        hand.act(seat, legal[rng.randrange(len(legal))])
        stats.steps += 1
        assert hand.card_total() == 80, hand.card_total()
        if stats.steps % 7 == 0:
            viewer = rng.randrange(hand.players)
            check_view(hand, viewer)
            check_view(hand, None)
            # once the hand is over every hand is shown (the settlement): nothing to hide
            if swap_checks and not hand.ended and check_hidden_swap(hand, viewer, rng):
                stats.leak_checks += 1
    assert hand.result is not None
    assert sum(hand.result.points) + hand.result.xingjia_points == 0
    for seat in range(hand.players):
        check_view(hand, seat)
    again = replay(record_of(hand))
    assert again.state_key() == hand.state_key()
    stats.games += 1
    stats.reasons[hand.result.reason] = stats.reasons.get(hand.result.reason, 0) + 1
    return hand


def run(games: int, rules: Ruleset, seed: int = 0) -> HarnessStats:
    stats = HarnessStats()
    for i in range(games):
        play_checked(seed * 100_003 + i, rules, stats, dealer=i)
    return stats
