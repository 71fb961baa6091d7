"""Dealing (砌牌, docs/rules.md §3): a hand's cards, from a seed or given explicitly.

>>> from paohuzi.core.rules import Ruleset
>>> d = Deal.from_seed(7, Ruleset(), dealer=0)
>>> [len(h) for h in d.hands], len(d.wall), d.liangzhang in range(20)
([20, 20, 20], 19, True)
>>> Deal.from_seed(7, Ruleset(), dealer=0) == d
True
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from paohuzi.core.cards import ALL_CARDS, COPIES, KINDS, Card, counts_of, format_cards, parse_cards
from paohuzi.core.errors import CardCountError, PaohuziError
from paohuzi.core.native import mypyc_attr
from paohuzi.core.rules import Ruleset

__all__ = ["Deal", "DealError", "hand_seed", "shuffled"]


def hand_seed(seed: int, index: int) -> int:
    """The deal seed of hand ``index`` of a run seeded ``seed`` (stable across versions)."""
    return (seed * 1_000_003 + index) & ((1 << 63) - 1)


_DECK: Final = sorted(card for card in ALL_CARDS for _ in range(COPIES))
"""The 80 cards in order (a deal sorted is this)."""


_SHUFFLE_STEPS: Final = tuple((i, (i + 1).bit_length()) for i in range(len(_DECK) - 1, 0, -1))
"""Each step of the shuffle: the position filled, and the bits drawn for a position up
to it."""


def shuffled(cards: Sequence[Card], seed: int) -> list[Card]:
    """``cards`` shuffled as ``random.Random(seed).shuffle`` does it (Fisher-Yates from the
    end, each position drawn with ``getrandbits`` and rejection), fixed here so that deals
    stay the same across Python versions (and without its per-card calls).

    >>> deck = list(_DECK)
    >>> random.Random(5).shuffle(deck)
    >>> shuffled(_DECK, 5) == deck
    True
    """
    deck = list(cards)
    if len(deck) != len(_DECK):
        raise DealError(f"the deal shuffles the {len(_DECK)} cards, got {len(deck)}")
    getrandbits = random.Random(seed).getrandbits
    for i, bits in _SHUFFLE_STEPS:
        j = getrandbits(bits)
        while j > i:
            j = getrandbits(bits)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


class DealError(PaohuziError):
    """An explicit deal that is not a legal deal of the 80 cards."""


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Deal:
    """Everything dealt for one hand.

    Attributes:
        dealer: the dealer's seat (庄家, zhuang).
        hands: each seat's 20 cards (the dealer's without the 亮张).
        liangzhang: the dealer's 21st card, shown to everyone (亮张).
        wall: the wall (墩, dun), top card first.
        set_aside: cards put aside unseen (two-player preset).
        seed: the seed it was shuffled from, if any.
    """

    dealer: int
    hands: tuple[tuple[Card, ...], ...]
    liangzhang: Card
    wall: tuple[Card, ...]
    set_aside: tuple[Card, ...] = ()
    seed: int | None = None

    @classmethod
    def from_seed(cls, seed: int, rules: Ruleset, dealer: int = 0) -> Deal:
        """Shuffle the 80 cards with ``random.Random(seed)`` and deal (§3.2)."""
        deck = shuffled(_DECK, seed)
        n = rules.players
        hands = tuple(tuple(sorted(deck[20 * i: 20 * i + 20])) for i in range(n))
        liangzhang = deck[20 * n]
        rest = deck[20 * n + 1:]
        set_aside = tuple(rest[: rules.set_aside])
        wall = tuple(rest[rules.set_aside:])
        if not 0 <= dealer < n:
            raise DealError(f"dealer seat {dealer} is not a seat of {n}")
        return cls(dealer, hands, liangzhang, wall, set_aside, seed)  # 80 cards: valid

    @classmethod
    def from_cards(cls, rules: Ruleset, dealer: int, hands: Sequence[Sequence[int]],
                   liangzhang: int, wall_top: Sequence[int] = (),
                   set_aside: Sequence[int] = ()) -> Deal:
        """An explicit deal. ``wall_top`` is the top of the wall; the cards not named
        anywhere follow it in card order, so a scenario only writes what matters."""
        named = [c for h in hands for c in h] + [liangzhang, *wall_top, *set_aside]
        counts = counts_of(named)
        try:
            from paohuzi.core.cards import validate_counts

            validate_counts(counts, "the explicit deal")
        except CardCountError as exc:
            raise DealError(str(exc)) from None
        rest = [ALL_CARDS[c] for c in range(KINDS) for _ in range(COPIES - counts[c])]
        wall = tuple(ALL_CARDS[c] for c in wall_top) + tuple(rest)
        if len(set_aside) != rules.set_aside:
            # set-aside cards not named are taken from the bottom of the wall
            missing = rules.set_aside - len(set_aside)
            if missing < 0:
                raise DealError(f"{len(set_aside)} set-aside cards, the rules set aside "
                                f"{rules.set_aside}")
            set_aside = [*set_aside, *wall[len(wall) - missing:]]
            wall = wall[: len(wall) - missing]
        deal = cls(dealer, tuple(tuple(sorted(ALL_CARDS[c] for c in h)) for h in hands),
                   ALL_CARDS[liangzhang], wall, tuple(ALL_CARDS[c] for c in set_aside))
        deal.validate(rules)
        return deal

    def validate(self, rules: Ruleset) -> None:
        """Raise :class:`DealError` unless this is a deal of exactly the 80 cards."""
        if len(self.hands) != rules.players:
            raise DealError(f"{len(self.hands)} hands dealt for {rules.players} players")
        if not 0 <= self.dealer < rules.players:
            raise DealError(f"dealer seat {self.dealer} is not a seat of {rules.players}")
        for seat, hand in enumerate(self.hands):
            if len(hand) != 20:
                raise DealError(f"seat {seat} was dealt {len(hand)} cards, not 20")
        if len(self.set_aside) != rules.set_aside:
            raise DealError(f"{len(self.set_aside)} cards set aside, the rules say "
                            f"{rules.set_aside}")
        cards = [c for h in self.hands for c in h] + [self.liangzhang, *self.wall,
                                                       *self.set_aside]
        if sorted(cards) != _DECK:
            raise DealError("the deal does not hold each of the 20 cards exactly 4 times")

    def to_json(self) -> dict[str, Any]:
        return {
            "dealer": self.dealer,
            "hands": [format_cards(h) for h in self.hands],
            "liangzhang": self.liangzhang.text,
            "wall": format_cards(self.wall),
            "set_aside": format_cards(self.set_aside),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], rules: Ruleset) -> Deal:
        """Read :meth:`to_json`'s form; ``wall`` may name only its top cards."""
        try:
            hands = [parse_cards(h) for h in data["hands"]]
            (liangzhang,) = parse_cards(data["liangzhang"])
            wall = parse_cards(data.get("wall", ""))
            set_aside = parse_cards(data.get("set_aside", ""))
            dealer = int(data.get("dealer", 0))
        except (KeyError, TypeError, ValueError) as exc:
            raise DealError(f"malformed deal: {exc}") from None
        return cls.from_cards(rules, dealer, hands, liangzhang, wall, set_aside)
