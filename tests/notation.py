"""Test helpers that read like the rules: ``H("一二三")``, ``C("拾")``, ``M("peng", "七七七")``."""

from __future__ import annotations

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
