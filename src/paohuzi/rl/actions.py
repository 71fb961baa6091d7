"""The fixed action space of the environment: every decision of :mod:`paohuzi.game.actions`
as one index of a ``Discrete(N_ACTIONS)`` space.

=================  ===================================================================
index              action
=================  ===================================================================
0 .. 19            discard the card of that index (一..十 = 0..9, 壹..拾 = 10..19)
20                 碰 (peng)
21                 胡 (hu)
22                 过 (pass)
23 .. 23+887       吃 (chi) plan number ``index - 23`` of :data:`CHI_PLANS`
=================  ===================================================================

A 吃 plan is the eaten card, its eating group and its 比 groups (§4.3). The list is
derived from :mod:`paohuzi.core.chi`: for every card, every eating shape of
:func:`~paohuzi.core.groups.shapes_with` and every multiset of up to two 比 shapes (a hand
holds at most two free copies of the eaten card, and each 比 group lays at least one), the
plan is kept when :func:`~paohuzi.core.chi.chi_options_counts` offers it for the hand of
exactly the cards it lays down. Any legal 吃 lays down every free copy, so it is a plan of
that smallest hand too: the list holds every 吃 the engine can offer. The order is stable:
by eaten card, eating group, then 比 groups.

>>> N_ACTIONS, len(CHI_PLANS)
(911, 888)
>>> from paohuzi.game.actions import Action
>>> index_of(Action.from_text("chi 一二三 比一壹壹"), 0) == CHI + CHI_PLANS.index(
...     (0, Action.from_text("chi 一二三 比一壹壹")))
True
>>> action_of(DISCARD + 12, None), action_of(PASS, 3)
(Discard(card=Card('叁')), Pass())
>>> action_of(CHI, None)
Traceback (most recent call last):
...
paohuzi.rl.actions.ActionIndexError: action 23 is a 吃 and needs the card being eaten
"""

from __future__ import annotations

import itertools
from typing import Final

from paohuzi.core.cards import ALL_CARDS, KINDS
from paohuzi.core.chi import chi_options_counts
from paohuzi.core.errors import PaohuziError
from paohuzi.core.groups import shapes_with
from paohuzi.game.actions import Action, Chi, Discard, Hu, Pass, Peng

__all__ = [
    "CHI",
    "CHI_PLANS",
    "DISCARD",
    "HU",
    "N_ACTIONS",
    "PASS",
    "PENG",
    "ActionIndexError",
    "action_name",
    "action_of",
    "index_of",
]


class ActionIndexError(PaohuziError):
    """An action index outside the space, or one that names no action here."""


DISCARD: Final = 0
PENG: Final = KINDS
HU: Final = KINDS + 1
PASS: Final = KINDS + 2
CHI: Final = KINDS + 3


def _lays_down(eat: tuple[int, ...], bi: tuple[tuple[int, ...], ...], card: int) -> list[int]:
    counts = [0] * KINDS
    for c in (*eat, *(c for g in bi for c in g)):
        counts[c] += 1
    counts[card] -= 1  # the eaten card comes from the table
    return counts


def _chi_plans() -> tuple[tuple[int, Chi], ...]:
    plans: list[tuple[int, Chi]] = []
    for card in range(KINDS):
        shapes = shapes_with(card)
        for eat in shapes:
            for size in range(3):
                for bi in itertools.combinations_with_replacement(shapes, size):
                    offered = chi_options_counts(_lays_down(eat, bi, card), card)
                    plans.extend((card, Chi(o.eat, o.bi)) for o in offered
                                 if o.eat.cards == eat and
                                 tuple(g.cards for g in o.bi) == tuple(sorted(bi)))
    return tuple(sorted(set(plans), key=lambda p: (p[0], p[1].eat.cards,
                                                   tuple(g.cards for g in p[1].bi))))


CHI_PLANS: Final = _chi_plans()
"""Every 吃 plan ``(eaten card, Chi)``, in the stable order of the action space."""
N_ACTIONS: Final = CHI + len(CHI_PLANS)

_CHI_INDEX: Final = {plan: CHI + i for i, plan in enumerate(CHI_PLANS)}
_SIMPLE: Final[dict[Action, int]] = {Peng(): PENG, Hu(): HU, Pass(): PASS}
_SIMPLE.update({Discard(card): DISCARD + card for card in ALL_CARDS})
_BY_INDEX: Final[list[Action]] = [Discard(card) for card in ALL_CARDS] + [Peng(), Hu(), Pass()]


def index_of(action: Action, card: int | None) -> int:
    """The index of ``action``; ``card``: the card on the table (needed for a 吃)."""
    kind = type(action)  # dispatch on the type: hashing a dataclass action is slow
    if kind is Discard:
        assert isinstance(action, Discard)
        return DISCARD + action.card
    if kind is Chi and card is not None:
        assert isinstance(action, Chi)
        found = _chi_seen.get(id(action))
        if found is not None and found[0] is action and found[1] == card:
            return found[2]
        index = _CHI_INDEX.get((card, action))
        if index is not None:
            if len(_chi_seen) > 100_000:
                _chi_seen.clear()
            _chi_seen[id(action)] = (action, card, index)
            return index
    found_simple = _SIMPLE.get(action)
    if found_simple is not None:
        return found_simple
    raise ActionIndexError(f"{action.text} (on card {card!r}) has no index in the space")


_chi_seen: dict[int, tuple[Chi, int, int]] = {}
"""Index of each 吃 action object seen (the engine reuses them), checked by identity."""


def action_of(index: int, card: int | None) -> Action:
    """The action at ``index``; ``card``: the card on the table (checked for a 吃)."""
    if not 0 <= index < N_ACTIONS:
        raise ActionIndexError(f"action {index!r} is outside 0..{N_ACTIONS - 1}")
    if index < CHI:
        return _BY_INDEX[index]
    eaten, chi = CHI_PLANS[index - CHI]
    if card is None:
        raise ActionIndexError(f"action {index} is a 吃 and needs the card being eaten")
    if card != eaten:
        raise ActionIndexError(f"action {index} eats {ALL_CARDS[eaten].text}, "
                               f"the card is {ALL_CARDS[card].text}")
    return chi


def action_name(index: int) -> str:
    """Text of the action at ``index`` (a 吃 names its eaten card).

    >>> action_name(3), action_name(PENG), action_name(CHI)
    ('discard 四', 'peng', 'chi 一一壹 (eats 一)')
    """
    if not 0 <= index < N_ACTIONS:
        raise ActionIndexError(f"action {index!r} is outside 0..{N_ACTIONS - 1}")
    if index < CHI:
        return _BY_INDEX[index].text
    eaten, chi = CHI_PLANS[index - CHI]
    return f"{chi.text} (eats {ALL_CARDS[eaten].text})"
