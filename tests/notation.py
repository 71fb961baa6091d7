"""Test helpers that read like the rules: ``H("一二三")``, ``C("拾")``, ``M("peng", "七七七")``."""

from __future__ import annotations

import random

from paohuzi.core.cards import Card, parse_cards
from paohuzi.core.groups import Group


def H(text: str) -> list[Card]:
    """Cards from text."""
    return parse_cards(text)


def C(text: str) -> Card:
    """One card from text."""
    return Card.parse(text)


def M(kind: str, text: str) -> Group:
    """A table group."""
    return Group.parse(kind, text)


def random_counts(rng: random.Random, low: int, high: int) -> list[int]:
    """A random hand as 20 counts: ``rng.randrange(low, high)`` random cards drawn, a
    card already held 4 times skipped."""
    counts = [0] * 20
    for _ in range(rng.randrange(low, high)):
        card = rng.randrange(20)
        if counts[card] < 4:
            counts[card] += 1
    return counts
