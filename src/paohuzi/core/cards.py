"""Cards (牌, docs/rules.md §1) and their compact notation (§11).

There are 20 kinds of card, four copies each. A :class:`Card` is an ``int``
0..19: 0..9 are the small cards 一..十 (小字), 10..19 the big cards 壹..拾
(大字). Every function that takes card text accepts the Chinese characters
(simplified and the traditional forms 貳 陸 叄 參 and the like) and the ASCII
form ``x1``..``x10`` / ``d1``..``d10``; whitespace is optional.

>>> parse_cards("一二三 贰柒拾")
[Card('一'), Card('二'), Card('三'), Card('贰'), Card('柒'), Card('拾')]
>>> format_cards(parse_cards("x1 x2 d10"))
'一二拾'
>>> format_cards(parse_cards("一二三"), ascii=True)
'x1 x2 x3'
>>> Card.parse("陸").point, Card.parse("陸").is_big
(6, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from paohuzi.core.errors import CardCountError, CardTextError

__all__ = [
    "ALL_CARDS",
    "COPIES",
    "DECK_SIZE",
    "KINDS",
    "Card",
    "Counts",
    "counts_of",
    "format_cards",
    "format_counts",
    "full_deck",
    "parse_cards",
    "validate_counts",
]

KINDS: Final = 20
"""Number of card kinds: 10 small + 10 big."""
COPIES: Final = 4
"""Copies of each kind in the deck."""
DECK_SIZE: Final = KINDS * COPIES

Counts = tuple[int, ...]
"""A count vector: ``counts[i]`` copies of card ``i`` (length 20)."""

SMALL_TEXT: Final = "一二三四五六七八九十"
BIG_TEXT: Final = "壹贰叁肆伍陆柒捌玖拾"
_RED_POINTS: Final = frozenset({2, 7, 10})

_CHAR_TO_INDEX: dict[str, int] = {ch: i for i, ch in enumerate(SMALL_TEXT)}
_CHAR_TO_INDEX.update({ch: 10 + i for i, ch in enumerate(BIG_TEXT)})
# Traditional and variant forms of the big cards (§1).
_CHAR_TO_INDEX.update({"貳": 11, "貮": 11, "叄": 12, "參": 12, "叁": 12, "陸": 15})
# Full-width and "capital" digits sometimes typed for small cards are not accepted:
# the notation is exactly §1 and §11.


class Card(int):
    """One of the 20 card kinds (牌). ``Card(0)`` is 一, ``Card(19)`` is 拾.

    >>> Card(19).text, Card(19).ascii, Card(19).point, Card(19).is_red
    ('拾', 'd10', 10, True)
    >>> Card.parse("x7") == Card.parse("七")
    True
    """

    __slots__ = ()

    def __new__(cls, index: int) -> Card:
        if not 0 <= index < KINDS:
            raise ValueError(f"card index must be 0..19, got {index}")
        return super().__new__(cls, index)

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse exactly one card."""
        cards = parse_cards(text)
        if len(cards) != 1:
            raise CardTextError(text, 0, f"expected exactly one card, found {len(cards)}")
        return cards[0]

    @classmethod
    def of(cls, point: int, big: bool) -> Card:
        """The card of value ``point`` (1..10) and the given size."""
        if not 1 <= point <= 10:
            raise ValueError(f"card point must be 1..10, got {point}")
        return ALL_CARDS[point - 1 + (10 if big else 0)]

    @property
    def point(self) -> int:
        """The value 牌点, 1..10, regardless of size."""
        return int(self) % 10 + 1

    @property
    def is_big(self) -> bool:
        """True for 大字 (壹..拾), False for 小字 (一..十)."""
        return int(self) >= 10

    @property
    def is_red(self) -> bool:
        """红字: 2, 7 and 10 of both sizes."""
        return self.point in _RED_POINTS

    @property
    def other_size(self) -> Card:
        """The card of the same value and the other size (小二 ↔ 大贰)."""
        return ALL_CARDS[(int(self) + 10) % 20]

    @property
    def text(self) -> str:
        """The simplified Chinese character."""
        return (BIG_TEXT if self.is_big else SMALL_TEXT)[self.point - 1]

    @property
    def ascii(self) -> str:
        """The ASCII form, ``x1``..``x10`` (small) or ``d1``..``d10`` (big)."""
        return ("d" if self.is_big else "x") + str(self.point)

    def __repr__(self) -> str:
        return f"Card({self.text!r})"

    def __str__(self) -> str:
        return self.text


ALL_CARDS: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(KINDS))
_TEXTS: Final = SMALL_TEXT + BIG_TEXT
"""Each card's text by index (what :func:`format_cards` looks up: views format many)."""


def parse_cards(text: str) -> list[Card]:
    """Parse card text (Chinese or ASCII, mixed freely, whitespace optional).

    Raises :class:`~paohuzi.core.errors.CardTextError` naming the offending
    character and its position.

    >>> parse_cards("x10d1 九")
    [Card('十'), Card('壹'), Card('九')]
    >>> parse_cards("一二Q")
    Traceback (most recent call last):
    ...
    paohuzi.core.errors.CardTextError: unknown card character 'Q' at position 2 in '一二Q'
    """
    if not isinstance(text, str):
        raise CardTextError(repr(text), 0, f"card text must be a string, not {type(text).__name__}")
    cards: list[Card] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace() or ch in ",，":
            i += 1
            continue
        index = _CHAR_TO_INDEX.get(ch)
        if index is not None:
            cards.append(ALL_CARDS[index])
            i += 1
            continue
        if ch in "xXdD":
            j = i + 1
            while j < n and text[j].isascii() and text[j].isdigit():
                j += 1
            digits = text[i + 1 : j]
            # "x10" is ten; "x1" followed by "0" is impossible as 0 is no card.
            if not digits:
                raise CardTextError(text, i, f"ASCII card {ch!r} needs a value 1..10")
            if len(digits) > 1 and digits[:2] == "10":
                value, j = 10, i + 3
            else:
                value, j = int(digits[0]), i + 2
            if not 1 <= value <= 10:
                raise CardTextError(text, i + 1, f"card value {digits[0]!r} is not 1..10")
            cards.append(Card.of(value, ch in "dD"))
            i = j
            continue
        raise CardTextError(text, i, f"unknown card character {ch!r}")
    return cards


def format_cards(cards: Iterable[int], *, ascii: bool = False) -> str:
    """Card text: Chinese characters run together, or ASCII separated by spaces."""
    if ascii:
        return " ".join(ALL_CARDS[c].ascii for c in cards)
    return "".join([_TEXTS[c] for c in cards])


def format_counts(counts: Iterable[int]) -> str:
    """The text of a count vector's cards in card order: ``format_cards`` of every copy.

    >>> format_counts([0, 2] + [0] * 17 + [1]) == format_cards([1, 1, 19])
    True
    """
    return "".join([_TEXTS[c] * n for c, n in enumerate(counts) if n])


def counts_of(cards: Iterable[int]) -> list[int]:
    """The 20-entry count vector of some cards (a fresh, mutable list)."""
    counts = [0] * KINDS
    for c in cards:
        counts[c] += 1
    return counts


def validate_counts(counts: Sequence[int], what: str = "cards") -> None:
    """Raise :class:`CardCountError` if any card appears more than 4 times."""
    for index, n in enumerate(counts):
        if n > COPIES:
            raise CardCountError(
                f"{what} hold {n} copies of {ALL_CARDS[index].text}; the deck has only {COPIES}"
            )


def full_deck() -> list[Card]:
    """All 80 cards in index order (shuffle a copy to deal)."""
    return [card for card in ALL_CARDS for _ in range(COPIES)]
