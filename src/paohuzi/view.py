"""What one seat may see of a hand (its observation). The only way state leaves the engine.

A seat sees its own hand, every table group — another seat's 偎 face down,
臭偎 and 提 with their one face-up card (which names the card) —, the discard
piles, the 亮张, the wall count, whether it must decide and its own legal
actions, its own 臭 cards, and the events as it may see them. A spectator
(``seat=None``) sees no hand at all.

>>> from paohuzi.engine import Hand
>>> from paohuzi.rules import Ruleset
>>> v = seat_view(Hand.from_seed(3, Ruleset()), 1)
>>> v["seat"], len(v["hand"]) > 0, "hand" in seat_view(Hand.from_seed(3, Ruleset()), None)
(1, True, False)
"""

from __future__ import annotations

from typing import Any

from paohuzi.cards import format_cards
from paohuzi.engine import Hand, Phase
from paohuzi.groups import Group, GroupKind

__all__ = ["meld_view", "seat_view", "visible_table_huxi"]


def meld_view(meld: Group, owner: int, viewer: int | None) -> dict[str, Any]:
    """A table group as ``viewer`` sees it: another's 偎 is three face-down cards."""
    if meld.kind is GroupKind.WEI and viewer != owner:
        return {"kind": "wei", "hidden": 3}
    return {"kind": meld.kind.value, "cards": format_cards(meld.cards), "huxi": meld.huxi}


def visible_table_huxi(hand: Hand, owner: int, viewer: int | None) -> int:
    """The 当前得息数 of ``owner`` as far as ``viewer`` can tell (another's 偎 unknown)."""
    return sum(m.huxi for m in hand.seats[owner].melds
               if not (m.kind is GroupKind.WEI and viewer != owner))


def seat_view(hand: Hand, seat: int | None) -> dict[str, Any]:
    """The JSON-ready view of ``hand`` for ``seat`` (``None``: a spectator)."""
    view: dict[str, Any] = {
        "seat": seat,
        "players": hand.players,
        "dealer": hand.dealer,
        "rules": hand.rules.name,
        "liangzhang": hand.liangzhang.text,
        "wall": len(hand.wall),
        "phase": hand.phase.value,
        "turn": hand.turn if hand.phase is Phase.DISCARD else None,
        "seats": [
            {
                "melds": [meld_view(m, s, seat) for m in st.melds],
                "pile": format_cards(st.pile),
                "hand_count": sum(st.hand),
                "table_huxi": visible_table_huxi(hand, s, seat),
                "xianggong": st.xianggong,
            }
            for s, st in enumerate(hand.seats)
        ],
        "events": [e.visible_to(seat) for e in hand.events],
    }
    claim = hand.claim
    if claim is not None and seat is not None and hand.legal_actions(seat):
        # Only a seat asked to decide learns that a decision is open (who else may
        # act on a card would tell what they hold).
        view["claim"] = {"card": claim.card.text, "source": claim.source,
                         "context": claim.context}
    if hand.in_play is not None:
        view["in_play"] = hand.in_play.text
    if seat is not None:
        st = hand.seats[seat]
        view["hand"] = format_cards(st.hand_cards)
        view["chou"] = format_cards(sorted(st.chou))
        view["legal_actions"] = [a.text for a in hand.legal_actions(seat)]
        view["to_act"] = bool(view["legal_actions"])
    if hand.result is not None:
        view["result"] = hand.result.to_json()
        if hand.result.reason == "huangzhuang":
            view["revealed_hands"] = [format_cards(s.hand_cards) for s in hand.seats]
    return view
