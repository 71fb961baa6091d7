"""Seeded random positions for tests, benchmarks and research.

A :class:`Position` is a player's hand, table groups, a winning card and its
source, as :func:`paohuzi.core.solver.solve` takes them. :func:`random_positions`
mixes two kinds, so that both winning and non-winning questions are asked:

* *built* positions: 7 random 门子 (with a pair when a 跑/提 is drawn), some
  of them moved to the table as melds, one hand card taken out as the winning
  card — most of these win (unless the solver is asked with a source that
  forces another grouping);
* *dealt* positions: 20 random cards and a random 21st — these rarely win.

:func:`concealed_positions` asks harder questions: winning hands of concealed cards
with few identical cards (7 sentences and 绞, no card held more than twice), where
many values hold both sizes and so offer several 绞.

Every position respects the deck (at most 4 copies of a card).

>>> ps = random_positions(7, 4)
>>> len(ps), all(len(p.hand) + sum(len(m.cards) for m in p.melds) >= 20 for p in ps)
(4, True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from paohuzi.core.cards import ALL_CARDS, COPIES, KINDS, Card, format_cards
from paohuzi.core.groups import JIAOS, SENTENCES, Group, GroupKind
from paohuzi.core.kinds import Source

__all__ = ["Position", "concealed_positions", "random_positions"]


@dataclass(frozen=True, slots=True)
class Position:
    """A question for the solver."""

    hand: tuple[Card, ...]
    melds: tuple[Group, ...]
    card: Card
    source: Source

    def __str__(self) -> str:
        melds = " ".join(str(m) for m in self.melds)
        return f"hand={format_cards(self.hand)} melds=[{melds}] card={self.card} {self.source}"




def _take(deck: list[int], cards: tuple[int, ...]) -> bool:
    need = {c: cards.count(c) for c in set(cards)}
    if any(deck[c] < n for c, n in need.items()):
        return False
    for c in cards:
        deck[c] -= 1
    return True


def _built(rng: random.Random) -> Position | None:
    deck = [COPIES] * KINDS
    n_four = rng.choice((0, 0, 0, 1, 1, 2))
    groups: list[tuple[str, tuple[int, ...]]] = []
    tries = 0
    while len(groups) < 7 - (1 if n_four else 0) and tries < 200:
        tries += 1
        roll = rng.random()
        if sum(1 for g in groups if g[0] in ("pao", "ti")) < n_four:
            x = rng.randrange(KINDS)
            kind = rng.choice(("pao", "ti", "ti_hand"))
            cards: tuple[int, ...] = (x,) * 4
        elif roll < 0.45:
            kind, cards = "sentence", rng.choice(SENTENCES)
        elif roll < 0.6:
            kind, cards = "jiao", rng.choice(JIAOS)
        else:
            x = rng.randrange(KINDS)
            kind, cards = rng.choice(("kan", "peng", "wei", "chouwei", "kan")), (x,) * 3
        if _take(deck, cards):
            groups.append((kind, cards))
    if n_four:
        x = rng.randrange(KINDS)
        if not _take(deck, (x, x)):
            return None
        groups.append(("pair", (x, x)))
    if len(groups) != 7:
        return None
    hand: list[int] = []
    melds: list[Group] = []
    candidates: list[int] = []
    for kind, cards in groups:
        to_table = kind in ("peng", "wei", "chouwei", "pao", "ti") or (
            kind in ("sentence", "jiao") and rng.random() < 0.25)
        if to_table:
            table_kind = GroupKind.JIAO if kind == "jiao" else GroupKind(kind)
            melds.append(Group.make(table_kind, cards))
        else:
            hand.extend(cards)
            if kind in ("sentence", "jiao", "pair"):
                candidates.extend(cards)
    if not candidates:
        return None
    card = rng.choice(candidates)
    hand.remove(card)
    source = rng.choice((Source.SELF, Source.OTHER, Source.OTHER, Source.LIANGZHANG))
    return Position(tuple(ALL_CARDS[c] for c in sorted(hand)), tuple(melds), ALL_CARDS[card],
                    source)


def _dealt(rng: random.Random) -> Position:
    deck = [c for c in range(KINDS) for _ in range(COPIES)]
    rng.shuffle(deck)
    hand = sorted(deck[:20])
    return Position(tuple(ALL_CARDS[c] for c in hand), (), ALL_CARDS[deck[20]],
                    rng.choice((Source.SELF, Source.OTHER)))


def random_positions(seed: int, n: int, built_share: float = 0.5) -> list[Position]:
    """``n`` positions from ``seed``: about ``built_share`` built, the rest dealt."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        if rng.random() < built_share:
            built = _built(rng)
            if built is not None:
                out.append(built)
        else:
            out.append(_dealt(rng))
    return out


_MOST_HELD: Final = 2
"""A concealed position's hand holds no card more than twice (no 坎, few pairs)."""


def _concealed(rng: random.Random, jiao_share: float) -> Position | None:
    held = [0] * KINDS
    hand: list[int] = []
    for _ in range(7):
        cards = rng.choice(JIAOS) if rng.random() < jiao_share else rng.choice(SENTENCES)
        for c in cards:
            held[c] += 1
        hand.extend(cards)
    if max(held) > _MOST_HELD:
        return None
    card = rng.choice(hand)
    hand.remove(card)
    return Position(tuple(ALL_CARDS[c] for c in sorted(hand)), (), ALL_CARDS[card],
                    rng.choice((Source.SELF, Source.OTHER)))


def concealed_positions(seed: int, n: int, jiao_share: float = 0.3) -> list[Position]:
    """``n`` winning positions from ``seed``, all cards concealed: 7 random sentences and
    绞 (about ``jiao_share`` of them 绞) in the hand, none of its cards held more than
    twice, one of them taken out as the winning card.

    >>> ps = concealed_positions(7, 3)
    >>> [(len(p.hand), len(p.melds)) for p in ps]
    [(20, 0), (20, 0), (20, 0)]
    >>> all(max(p.hand.count(c) for c in p.hand) <= 2 for p in ps)
    True
    """
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        position = _concealed(rng, jiao_share)
        if position is not None:
            out.append(position)
    return out
