"""How many cards a player owns: the card-count rules (docs/rules.md §4.4, §6.1).

``k`` is the number of 跑 and 提 a player owns, ``n`` the cards he owns (hand
and table). Between turns he owns at most ``20 + max(0, k − 1)`` cards, and
after an intake he discards exactly when he owns more (§4.4). A winning hand
is 7 门子 (§6.1): 21 cards, or ``20 + k`` when he owns ``k ≥ 1`` 跑/提 (each
is one card more than a 3-card 门子, and together they oblige a 2-card pair).

>>> [most_owned(k) for k in range(4)]
[20, 20, 21, 22]
>>> [menzi_cards(k) for k in range(4)]
[21, 21, 22, 23]
>>> must_discard(21, 1), must_discard(21, 2)
(True, False)
"""

from __future__ import annotations

from typing import Final

from paohuzi.core.groups import GroupKind

__all__ = [
    "DEALT",
    "MENZI_TO_WIN",
    "may_form_menzi",
    "menzi_cards",
    "most_owned",
    "must_discard",
    "owned_count_ok",
]

DEALT: Final = 20
"""Cards dealt to each player (the dealer's 亮张 aside), §3."""
MENZI_TO_WIN: Final = 7
"""A winning hand is exactly 7 门子 (§6.1)."""


def most_owned(pao_ti: int) -> int:
    """The most cards a player with ``pao_ti`` 跑/提 owns between turns (§4.4)."""
    return DEALT + max(0, pao_ti - 1)


def must_discard(owned: int, pao_ti: int) -> bool:
    """§4.4: after an intake a player discards exactly when he owns more than
    :func:`most_owned` cards."""
    return owned > most_owned(pao_ti)


def owned_count_ok(owned: int, pao_ti: int) -> bool:
    """Whether a player can own ``owned`` cards (hand + table) between turns (§4.4).

    >>> owned_count_ok(20, 0), owned_count_ok(21, 0), owned_count_ok(21, 2)
    (True, False, True)
    """
    return DEALT <= owned <= most_owned(pao_ti)


def menzi_cards(pao_ti: int) -> int:
    """Cards in a winning hand of 7 门子 holding ``pao_ti`` 跑/提 (§6.1), the pair included.

    >>> menzi_cards(7)
    Traceback (most recent call last):
    ...
    ValueError: 7 门子 hold 0 to 6 跑/提 (with the pair), not 7
    """
    if not 0 <= pao_ti < MENZI_TO_WIN:
        raise ValueError(f"{MENZI_TO_WIN} 门子 hold 0 to {MENZI_TO_WIN - 1} 跑/提 "
                         f"(with the pair), not {pao_ti}")
    if pao_ti == 0:
        return MENZI_TO_WIN * _THREE
    return pao_ti * _FOUR + _PAIR + (MENZI_TO_WIN - 1 - pao_ti) * _THREE


_THREE: Final = GroupKind.SENTENCE.size
_FOUR: Final = GroupKind.TI.size
_PAIR: Final = GroupKind.PAIR.size
_MENZI_CARDS: Final = (*(menzi_cards(k) for k in range(MENZI_TO_WIN)), -1)
"""menzi_cards by 跑/提 count, and -1 (no hand) for one more than a hand can hold."""


def may_form_menzi(owned: int, pao_ti: int) -> bool:
    """Whether ``owned`` cards, a new card included, can be 7 门子 (§6.1), for a player
    who owned ``pao_ti`` 跑/提 before the card (which may make one more).

    >>> may_form_menzi(21, 0), may_form_menzi(21, 1), may_form_menzi(22, 1), may_form_menzi(22, 0)
    (True, True, True, False)
    """
    if pao_ti >= MENZI_TO_WIN:
        return False
    return owned == _MENZI_CARDS[pao_ti] or owned == _MENZI_CARDS[pao_ti + 1]
