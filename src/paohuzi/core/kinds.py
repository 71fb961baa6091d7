"""The named kinds of the game: events, claim contexts, win sources, end reasons, 天胡.

Each kind is a :class:`~enum.StrEnum`: a member *is* its string (``EventKind.HU ==
"hu"``), so records, JSON views, the protocol and the browser carry exactly the
strings listed here (docs/records.md and docs/protocol.md point to this module).
Code compares with the members, never with bare strings.

>>> EventKind.TO_PILE == "to_pile", str(EndReason.HUANGZHUANG), Source("self")
(True, 'huangzhuang', <Source.SELF: 'self'>)
>>> [k.value for k in TianhuKind]
['3ti', '5kan']
>>> Source("wall")
Traceback (most recent call last):
...
ValueError: 'wall' is not a valid Source
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["ClaimContext", "EndReason", "EventKind", "Source", "TianhuKind"]


class EventKind(StrEnum):
    """What happened in a hand (``Event.kind``; the ``kind`` of an event in a view).

    A seat's answer on a shown card makes no event: answers stay secret until the
    claim resolves.
    """

    DEAL = "deal"
    """起牌 — dealt: a seat's dealt hand (private to that seat)."""
    LIANGZHANG = "liangzhang"
    """亮张 — the dealer's shown 21st card."""
    DIPAI = "dipai"
    """底牌 — ``luzhou`` (§9.1): the wall's last card shown to every seat (``detail``
    ``"red: to the top"`` when it is red and goes to the top of the wall)."""
    TI = "ti"
    """提 — four of a kind laid down (at the deal: ``detail`` ``"dealt"``)."""
    WEI = "wei"
    """偎 — a drawn card onto a hand pair, face down (private to the seat)."""
    CHOUWEI = "chouwei"
    """臭偎 — a 偎 after a declined 碰, face up."""
    PAO = "pao"
    """跑 — a shown card onto a 坎, 偎 or 碰: four of a kind."""
    PENG = "peng"
    """碰 — pong: a shown card onto a hand pair."""
    CHI = "chi"
    """吃 — eat: a shown card into a sentence (with its 比 groups; ``detail`` the action)."""
    DISCARD = "discard"
    """打出 — a discard."""
    DRAW = "draw"
    """摸牌 — a draw from the wall (private to the drawer)."""
    SHOW = "show"
    """翻出 — the drawn card is shown to the table."""
    TO_PILE = "to_pile"
    """弃 — nobody took the shown card: it goes to a discard pile."""
    HU = "hu"
    """胡 — a win (a 天胡 too: the result's reason tells)."""
    XIANGGONG = "xianggong"
    """相公 — the seat cannot discard (only 坎 cards) and may not win this hand."""
    NO_DISCARD = "no_discard"
    """八块不打牌 — after an intake the seat holds no extra card (§4.4): no discard."""
    HUANGZHUANG = "huangzhuang"
    """荒庄 — the wall ran out: a drawn hand."""
    ESCAPE = "escape"
    """逃跑 — a seat left mid-hand (``detail`` ``"H=..."``: the penalty's 胡息)."""


class ClaimContext(StrEnum):
    """Why seats decide on a card (``Claim.context``; ``context`` of a view's claim)."""

    DISCARD = "discard"
    """打出 — a discarded card."""
    DRAW = "draw"
    """翻出 — a drawn card shown to the table."""
    LIANGZHANG = "liangzhang"
    """亮张 — win on the dealer's shown card, or not (§3.4)."""
    OWN = "own"
    """自己的提/偎 — the drawer's own 提 or 偎 may win."""


class Source(StrEnum):
    """Where a winning card came from (``HandResult.source``; the solver's ``source``)."""

    SELF = "self"
    """自摸 — the winner's own draw (偎胡/提胡 included)."""
    OTHER = "other"
    """another seat's drawn, shown card."""
    DISCARD = "discard"
    """another seat's discard, won where the rules allow it (泸州, §9.1); unlike a drawn
    card it never makes the winner's table 碰 a 跑 (§2)."""
    LIANGZHANG = "liangzhang"
    """亮张 — the dealer's shown 21st card (§3.4): the dealer's own card for him."""
    TIANHU = "tianhu"
    """天胡 — no card at all: a mandatory 3提/5坎 win at the deal (§6.4)."""


class EndReason(StrEnum):
    """How a hand ended (``HandResult.reason``)."""

    HU = "hu"
    """胡 — a win in play (the 亮张 included)."""
    TIANHU = "tianhu"
    """天胡 — a mandatory 3提/5坎 win at the deal (§3.3)."""
    HUANGZHUANG = "huangzhuang"
    """荒庄 — the wall ran out with nobody winning."""
    ESCAPE = "escape"
    """逃跑 — a seat left mid-hand and paid the §7.4 penalty."""


class TianhuKind(StrEnum):
    """The mandatory 天胡 of a dealt hand (§6.4; :func:`paohuzi.core.solver.tianhu_kind`)."""

    SAN_TI = "3ti"
    """三提 — three or more 提."""
    WU_KAN = "5kan"
    """五坎 — five or more 提 and 坎 together (a 提 counts as a 坎)."""
