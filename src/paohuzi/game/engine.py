"""The hand engine (docs/rules.md §3–§7): one hand of 跑胡子, pure and deterministic.

The engine performs every forced action itself (automatic 提 at the deal, 提,
偎 and 臭偎 on a draw, 跑, the mandatory 天胡) and asks the players only for
their choices: discard, 吃 with a 比 completion, 碰, 胡, pass. Decisions on a
shown card are simultaneous (§4.5): every seat with an option answers, then
the priority of §4.1/§4.2 picks what happens.

Each decision has one validation path: :meth:`Hand.verify` raises
:class:`IllegalActionError` naming what is wrong, :meth:`Hand.can` wraps it,
:meth:`Hand.act` applies it and returns the events it caused, and
:meth:`Hand.legal_actions` lists exactly the actions ``verify`` accepts.

>>> from paohuzi.core.rules import Ruleset
>>> hand = Hand.from_seed(3, Ruleset())
>>> while not hand.ended:  # every seat takes its first legal action (胡 comes first)
...     seat = hand.pending_seats()[0]
...     _ = hand.act(seat, hand.legal_actions(seat)[0])
>>> r = hand.result
>>> r.reason, r.winner, r.source, r.points, hand.card_total()
(<EndReason.HU: 'hu'>, 2, <Source.SELF: 'self'>, (-9, -9, 18), 80)
"""

from __future__ import annotations

import copy as _copy
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import cache
from itertools import chain, compress
from operator import getitem
from typing import Any, ClassVar, Final, NamedTuple

from paohuzi.core.cardcount import must_discard
from paohuzi.core.cards import ALL_CARDS, KINDS, Card, counts_of, format_cards
from paohuzi.core.chi import PLANS_COUNTS, chi_plan_shapes, plans_key, shape_group
from paohuzi.core.errors import CardCountError, PaohuziError
from paohuzi.core.groups import GROWABLE, Group, GroupKind, HuxiTable
from paohuzi.core.kinds import ClaimContext, EndReason, EventKind, Source
from paohuzi.core.native import mypyc_attr
from paohuzi.core.rules import Ruleset
from paohuzi.core.settlement import (
    Huangzhuang,
    Settlement,
    Taopao,
    WinContext,
    Won,
    payout,
    settle,
    win_context,
)
from paohuzi.core.solver import (
    Arrangement,
    best_partial_huxi,
    may_win_in_mask,
    may_win_mask,
    solve_counts,
    solve_tianhu,
    tianhu_kind_counts,
    win_barred,
    win_facts,
)
from paohuzi.game.actions import Action, Chi, Discard, Hu, Pass, Peng
from paohuzi.game.deal import Deal

__all__ = [
    "Claim",
    "Event",
    "Hand",
    "HandResult",
    "IllegalActionError",
    "Phase",
    "PositionError",
    "SeatState",
]


class IllegalActionError(PaohuziError):
    """An action that is not legal now for that seat; the state is unchanged."""


class PositionError(PaohuziError):
    """A mid-play position that cannot be resumed or resampled (or a question only a
    dealt hand can answer, asked of a resumed one)."""


class Phase(Enum):
    """What the hand waits for."""

    DISCARD = "discard"
    """One seat must discard (打牌)."""
    CLAIM = "claim"
    """Seats decide on a shown card (or the 亮张, or their own 提/偎 win)."""
    ENDED = "ended"


class Event(NamedTuple):
    """Something that happened. ``private`` cards are seen only by ``seat``.

    ``kind`` is one of :class:`~paohuzi.core.kinds.EventKind` (a 天胡 is a ``hu`` too: the
    result's reason tells). A seat's answer on a shown card makes no event: answers
    stay secret until the claim resolves.
    """

    kind: EventKind
    seat: int | None = None
    cards: tuple[Card, ...] = ()
    private: bool = False
    detail: str = ""

    def visible_to(self, viewer: int | None) -> dict[str, Any]:
        """This event as ``viewer`` may see it (``None``: a spectator)."""
        data: dict[str, Any] = {"kind": self.kind.value}
        if self.seat is not None:
            data["seat"] = self.seat
        if self.private and viewer != self.seat:
            data["hidden"] = len(self.cards)
        elif self.cards:
            data["cards"] = format_cards(self.cards)
        if self.detail and not (self.private and viewer != self.seat):
            data["detail"] = self.detail
        return data

    def __str__(self) -> str:
        who = f"seat {self.seat} " if self.seat is not None else ""
        cards = f" {format_cards(self.cards)}" if self.cards else ""
        detail = f" ({self.detail})" if self.detail else ""
        return f"{who}{self.kind}{cards}{detail}"


class SeatState:
    """One seat's cards and memory (hidden from the others except the table).

    Attributes:
        hand: count vector of the hand (20 entries).
        melds: table groups (吃/比 sentences and 绞, 碰, 偎, 臭偎, 跑, 提).
        pile: cards that went to this seat's discard pile.
        chou: 臭 cards: no 吃 (nor 碰, by the rules' option) of these (§4.5).
        declined_peng: cards whose 碰 was declined (a later 偎 is a 臭偎).
        chouhu: card -> 当前得息数 when a win on it was passed (臭胡).
        xianggong: 相公 — could not discard; cannot win this hand (§4.4).

    The hand and the table change only through the methods below, which keep
    the running totals (cards owned, table 胡息, 跑/提 count) exact.
    """

    __slots__ = ("_facts", "_identical", "_mask_min", "_mask_table", "_mask_version",
                 "_may_win_mask", "chou", "chouhu", "declined_peng", "hand", "melds", "owned",
                 "pao_ti", "pile", "table_huxi", "version", "xianggong")

    def __new__(cls, *args: Any, **kwargs: Any) -> SeatState:
        """A blank seat that :meth:`copy` fills in (its own ``__new__`` lets the compiled
        build's native class be made like this)."""
        return super().__new__(cls)

    def __init__(self, hand: list[int]) -> None:
        self.hand = hand
        self.melds: list[Group] = []
        self.pile: list[Card] = []
        self.chou: set[int] = set()
        self.declined_peng: set[int] = set()
        self.chouhu: dict[int, int] = {}
        self.xianggong = False
        self.owned = sum(hand)
        """Cards owned, hand and table."""
        self.table_huxi = 0
        """当前得息数: the 胡息 of the table groups."""
        self.pao_ti = 0
        """跑 and 提 on the table."""
        self._identical: dict[int, int] = {}  # card -> index of its identical table group
        self.version = 0
        """Bumped whenever the hand or the table changes (a key for callers' caches)."""
        self._facts = _NO_FACTS
        self._may_win_mask = 0
        """The win prefilter's facts of the hand and the cards it may let through (bits),
        worked out for the version of the hand, 胡息 table and threshold below."""
        self._mask_version = -1
        self._mask_table: HuxiTable | None = None
        self._mask_min = 0

    @classmethod
    def restore(cls, hand: Sequence[int], melds: Iterable[Group] = (), *,
                pile: Iterable[Card] = (), chou: Iterable[int] = (),
                declined_peng: Iterable[int] = (), chouhu: Iterable[tuple[int, int]] = (),
                xianggong: bool = False) -> SeatState:
        """A seat in the middle of a hand, from its hand counts, table groups and memory
        (the running totals are worked out here).

        >>> st = SeatState.restore([0] * 19 + [2], [Group.identical(GroupKind.PENG, 0)])
        >>> st.owned, st.table_huxi, st.must_discard()
        (5, 1, False)
        """
        if len(hand) != KINDS or any(not 0 <= n <= 4 for n in hand):
            raise CardCountError(f"a hand is {KINDS} counts of 0 to 4, got {list(hand)}")
        st = cls(list(hand))
        for group in melds:
            st.lay(group, len(group.cards))
        st.pile = list(pile)
        st.chou = set(chou)
        st.declined_peng = set(declined_peng)
        st.chouhu = dict(chouhu)
        st.xianggong = xianggong
        return st

    def copy(self) -> SeatState:
        """An independent copy (containers copied; their items are immutable)."""
        twin = SeatState.__new__(SeatState)
        for name in _SEAT_FIELDS:
            value = getattr(self, name)
            if isinstance(value, list | set | dict):
                value = value.copy()
            setattr(twin, name, value)
        return twin

    @property
    def hand_cards(self) -> list[Card]:
        """The cards in hand, in card order."""
        return list(chain.from_iterable(map(getitem, _COPIES, self.hand)))

    def take(self, card: int, n: int = 1) -> None:
        """Remove ``n`` copies of ``card`` from the hand (they go elsewhere)."""
        assert self.hand[card] >= n
        self.hand[card] -= n
        self.owned -= n
        self.version += 1

    def receive(self, card: int) -> None:
        """A card joins the hand (the dealer's 亮张)."""
        self.hand[card] += 1
        self.owned += 1
        self.version += 1

    def lay(self, group: Group, new_cards: int) -> None:
        """Put a group on the table; ``new_cards`` of it came from outside the hand."""
        if group.kind.identical:
            self._identical[group.cards[0]] = len(self.melds)
        self.melds.append(group)
        self.owned += new_cards
        self.table_huxi += group.huxi
        self.pao_ti += group.is_pao_or_ti
        self.version += 1

    def grow(self, index: int, group: Group) -> None:
        """A table 偎/臭偎/碰 becomes a 提 or 跑 with one more card."""
        old = self.melds[index]
        self.melds[index] = group
        self.owned += 1
        self.table_huxi += group.huxi - old.huxi
        self.pao_ti += group.is_pao_or_ti - old.is_pao_or_ti
        self.version += 1

    def meld_of(self, card: int, kinds: tuple[GroupKind, ...]) -> int | None:
        """Index of the table group of identical ``card`` of one of ``kinds``, if any."""
        index = self._identical.get(card)
        if index is not None and self.melds[index].kind in kinds:
            return index
        return None

    def identical_kind(self, card: int) -> GroupKind | None:
        """The kind of the table group of identical ``card``, if there is one."""
        index = self._identical.get(card)
        return None if index is None else self.melds[index].kind

    def must_discard(self) -> bool:
        """Whether this seat discards after an intake (§4.4)."""
        return must_discard(self.owned, self.pao_ti)

    def may_win(self, card: int, min_huxi: int, table: HuxiTable) -> bool:
        """:func:`~paohuzi.core.solver.may_win` of this seat on ``card``, from the running
        totals and the hand's facts, worked out once per version of the hand with the
        cards they rule out at once (:func:`~paohuzi.core.solver.may_win_mask`)."""
        if self._mask_version != self.version or self._mask_table is not table \
                or self._mask_min != min_huxi:
            self._prefilter(min_huxi, table)
        if not self._may_win_mask >> card & 1:
            return False
        facts = self._facts
        index = self._identical.get(card)
        grows = index is not None and self.melds[index].kind in GROWABLE
        return may_win_in_mask(facts, self.hand, card, self.pao_ti, self.table_huxi, grows,
                               min_huxi, table)

    def ruled_out(self, card: int, min_huxi: int, table: HuxiTable) -> bool:
        """Whether the prefilter's mask, already worked out for this version of the hand,
        ``table`` and ``min_huxi``, rules a win on ``card`` out (``False`` when the mask is
        not known yet)."""
        return self._mask_version == self.version and self._mask_table is table \
            and self._mask_min == min_huxi and not self._may_win_mask >> card & 1

    def _prefilter(self, min_huxi: int, table: HuxiTable) -> None:
        facts = win_facts(self.hand, table)  # hand_facts' memo would rarely know the hand
        grows = 0
        for card, index in self._identical.items():
            if self.melds[index].kind in GROWABLE:
                grows |= 1 << card
        self._may_win_mask = may_win_mask(facts, self.hand, self.owned - facts.cards,
                                          self.pao_ti, self.table_huxi, grows, min_huxi, table)
        self._facts = facts
        self._mask_version, self._mask_table, self._mask_min = self.version, table, min_huxi


_SEAT_FIELDS: Final[tuple[str, ...]] = (getattr(SeatState, "__mypyc_attrs__", None)
                                         or getattr(SeatState, "__slots__"))  # noqa: B009
"""Every attribute of a seat: its ``__slots__``, or the compiled build's native attributes
(mypyc keeps no ``__slots__``)."""
_COPIES: Final = tuple(tuple((card,) * n for n in range(5)) for card in ALL_CARDS)
"""Per card, its 0 to 4 copies."""
_NO_FACTS: Final = win_facts([0] * KINDS)
"""A seat's prefilter facts before the first are worked out (its mask is never current)."""

_new_event: Final = tuple.__new__
"""Builds an :class:`Event` from its fields without a Python-level call (the hot paths
append their events with it: ``_new_event(Event, (kind, seat, cards, private, detail))``)."""

_HU, _PASS, _PENG = Hu(), Pass(), Peng()
_DISCARDS = [Discard(card) for card in ALL_CARDS]
_DISCARDABLE: Final = bytes(0 < n <= 2 for n in range(256))
"""By the count a card is held, whether it may be discarded (not a 坎's or 提's, §2): a
table for ``bytes.translate`` of a hand's counts."""


_WEI_KINDS = (GroupKind.WEI, GroupKind.CHOUWEI)
_SELF, _OTHER, _DISCARD = Source.SELF, Source.OTHER, Source.DISCARD


# Enum members the hot paths use, bound once (a member lookup on its class is slow on 3.11).
_DISCARDING: Final = Phase.DISCARD
_CLAIMING: Final = Phase.CLAIM
_ENDED: Final = Phase.ENDED
_ON_DRAW: Final = ClaimContext.DRAW
_ON_DISCARD: Final = ClaimContext.DISCARD
_ON_OWN: Final = ClaimContext.OWN
_ON_LIANGZHANG: Final = ClaimContext.LIANGZHANG
_TI: Final = GroupKind.TI
_PENG_GROUP: Final = GroupKind.PENG
_PAO: Final = GroupKind.PAO
_WEI: Final = GroupKind.WEI
_CHOUWEI: Final = GroupKind.CHOUWEI
_EV_DRAW: Final = EventKind.DRAW
_EV_SHOW: Final = EventKind.SHOW
_EV_DISCARD: Final = EventKind.DISCARD
_EV_TO_PILE: Final = EventKind.TO_PILE
_EV_PENG: Final = EventKind.PENG
_EV_CHI: Final = EventKind.CHI
_EV_PAO: Final = EventKind.PAO
_EV_TI: Final = EventKind.TI
_EV_WEI: Final = EventKind.WEI
_EV_CHOUWEI: Final = EventKind.CHOUWEI
_EV_NO_DISCARD: Final = EventKind.NO_DISCARD
_EV_XIANGGONG: Final = EventKind.XIANGGONG


@mypyc_attr(native_class=False)
@dataclass(slots=True)
class Claim:
    """A pending decision on one card.

    ``seat``: the seat whose card it is (the discarder, the drawer, the dealer for the
    亮张); ``context``: why the seats decide (:class:`~paohuzi.core.kinds.ClaimContext`).
    """

    card: Card
    seat: int
    context: ClaimContext
    options: dict[int, list[Action]]
    answers: dict[int, Action] = field(default_factory=dict)
    forced_pao: int | None = None
    wins: dict[int, Arrangement] = field(default_factory=dict)
    last: bool = False
    dihu: bool = False
    """The dealer's first discard (a win on it by his 下家 is 地胡, §9.1)."""


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class HandResult:
    """How the hand ended and what each seat scores."""

    reason: EndReason
    winner: int | None = None
    card: Card | None = None
    source: Source | None = None
    arrangement: Arrangement | None = None
    settlement: Settlement | None = None
    points: tuple[int, ...] = ()
    beans: tuple[int, ...] = ()
    xingjia_points: int = 0
    leaver: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"reason": self.reason.value, "points": list(self.points),
                                "beans": list(self.beans)}
        if self.winner is not None:
            data["winner"] = self.winner
        if self.card is not None:
            data["card"] = self.card.text
        if self.source is not None:
            data["source"] = self.source.value
        if self.leaver is not None:
            data["leaver"] = self.leaver
        if self.xingjia_points:
            data["xingjia_points"] = self.xingjia_points
        if self.arrangement is not None:
            data["huxi"] = self.arrangement.huxi
            data["groups"] = [{"kind": g.kind.value, "cards": g.text, "huxi": g.huxi}
                              for g in self.arrangement.groups]
            if self.arrangement.leftover:
                data["leftover"] = format_cards(self.arrangement.leftover)
        if self.settlement is not None:
            s = self.settlement
            data.update(di=s.di, fan=s.fan, zimo=s.zimo, haidi=s.haidi, tianhu=s.tianhu,
                        mingtang=[{"name": m.name, "fan": m.fan} for m in s.mingtang])
            if s.dihu:
                data["dihu"] = True
            if s.fan_times > 1:  # 泸州's 天胡/地胡 double the 番 (§9.1)
                data["fan_times"] = s.fan_times
        return data


class Hand:
    """One hand of 跑胡子 from the deal to its end."""

    use_filters: ClassVar[bool] = True
    """Skip 胡 checks that cheap necessary conditions rule out (a test turns this off
    and checks that the games are unchanged)."""

    on_claim_point: Callable[[Hand], None] | None = None
    """Called at every claim point — the 亮张, a shown card (a discard or a shown draw),
    one's own 提/偎 — once the options on it are worked out and *before* a card nobody
    may claim is resolved (the hand then goes on at once). The game server delivers
    the table as it is at each such point, so that the batching of what a seat
    receives never tells whether another seat had an option. Nothing changes when it
    is ``None`` (the default)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Hand:
        """A blank hand that :meth:`from_seed`, :meth:`resume`, copies and pickles fill in
        (its own ``__new__`` lets the compiled build's native class be made like this)."""
        return super().__new__(cls)

    def __init__(self, rules: Ruleset, deal: Deal, *,
                 on_claim_point: Callable[[Hand], None] | None = None) -> None:
        deal.validate(rules)
        self._deal_in(rules, deal, on_claim_point)

    def _deal_in(self, rules: Ruleset, deal: Deal,
                 on_claim_point: Callable[[Hand], None] | None) -> None:
        """Set the hand up from a valid deal and play its start (§3)."""
        self.on_claim_point = on_claim_point
        self.rules = rules
        self.table = rules.huxi
        """The 胡息 table every group of this hand scores by (§5, §9.1)."""
        self._deal: Deal | None = deal
        self.set_aside: tuple[Card, ...] = deal.set_aside
        self.players = rules.players
        self._set_orders()
        self.dealer = deal.dealer
        self.seats = [SeatState(counts_of(cards)) for cards in deal.hands]
        self.wall: list[Card] = list(deal.wall)
        self.liangzhang = deal.liangzhang
        self.in_play: Card | None = deal.liangzhang if rules.liangzhang_shown else None
        """The shown card nobody owns yet (the 亮张 at the start, a discard, a shown draw)."""
        self.dipai: Card | None = None
        """The wall's last card, shown to every seat (``luzhou`` 底牌, §9.1)."""
        self.liangzhang_pending = not rules.liangzhang_shown
        """The hidden 21st card (§9.1) is not yet in the dealer's hand (nor in play)."""
        self._dealer_discards = 0
        self.phase = _CLAIMING
        self.turn = self.dealer
        self.claim: Claim | None = None
        self.result: HandResult | None = None
        self.events: list[Event] = []
        self.actions: list[tuple[int, Action]] = []
        self._start(deal)

    @classmethod
    def from_seed(cls, seed: int, rules: Ruleset, dealer: int = 0) -> Hand:
        """A hand dealt from a seed (see :meth:`Deal.from_seed`)."""
        hand = cls.__new__(cls)
        hand._deal_in(rules, Deal.from_seed(seed, rules, dealer), None)  # valid: the 80 cards
        return hand

    @classmethod
    def resume(cls, rules: Ruleset, *, dealer: int, liangzhang: Card,
               seats: Sequence[SeatState], wall: Sequence[Card], turn: int,
               shown: tuple[Card, int, ClaimContext] | None = None,
               set_aside: Sequence[Card] = (), dealer_discards: object) -> Hand:
        """A hand in the middle of play, from every seat's state and the wall (the
        determinisations of :func:`paohuzi.game.resample.resample_hand`).

        With ``shown = (card, source, context)`` the card has just been shown
        (``context`` ``discard`` or ``draw``) and every seat's options on it are
        worked out as in play; otherwise seat ``turn`` must discard. The hand takes
        the seat states over (it does not copy them). A resumed hand has no
        :attr:`deal` and no events before it. ``dealer_discards``: how many cards the
        dealer has discarded so far (:attr:`dealer_discards`; a shown discard of his
        included): a win on his first discard is 地胡 where the rules have it (§9.1).
        """
        if len(seats) != rules.players:
            raise PositionError(f"{len(seats)} seats, the rules have {rules.players}")
        for name, seat in (("dealer", dealer), ("turn", turn)):
            if not 0 <= seat < rules.players:
                raise PositionError(f"{name}: there is no seat {seat!r}")
        if len(set_aside) != rules.set_aside:
            raise PositionError(f"{len(set_aside)} cards set aside, the rules say "
                                f"{rules.set_aside}")
        if type(dealer_discards) is not int or dealer_discards < 0:
            raise PositionError(f"dealer_discards: {dealer_discards!r} is not a count of "
                                f"discards")
        if shown is not None and shown[1] == dealer and shown[2] == _ON_DISCARD \
                and dealer_discards < 1:
            raise PositionError("the shown card is a discard of the dealer's: "
                                "dealer_discards must count it")
        hand = cls.__new__(cls)
        hand.on_claim_point = None
        hand.rules = rules
        hand.table = rules.huxi
        hand.dipai = wall[-1] if rules.dipai_shown and wall else None
        hand.liangzhang_pending = False
        hand._dealer_discards = dealer_discards
        hand.players = rules.players
        hand._set_orders()
        hand.dealer = dealer
        hand._deal = None
        hand.set_aside = tuple(set_aside)
        hand.seats = list(seats)
        hand.wall = list(wall)
        hand.liangzhang = liangzhang
        hand.in_play = None
        hand.result = None
        hand.events = []
        hand.actions = []
        hand.claim = None
        hand.turn = turn
        hand.phase = _DISCARDING
        if shown is not None:
            card, seat, context = shown
            if context not in (_ON_DISCARD, _ON_DRAW):
                raise PositionError(f"a resumed hand shows a discarded or drawn card, "
                                    f"not a {context!r} one")
            hand.in_play = card
        total = hand.card_total()
        if total != 80:
            raise CardCountError(f"the position holds {total} cards, not the 80 of the deck")
        if hand._copies_over_four():
            raise CardCountError("the position holds more than 4 copies of a card")
        if shown is not None:
            hand._open_claim(card, seat, ClaimContext(context),
                            context == _ON_DRAW and not wall)
        return hand

    def _copies_over_four(self) -> bool:
        counts = [0] * KINDS
        cards = [*self.wall, *self.set_aside, *([] if self.in_play is None else [self.in_play])]
        for st in self.seats:
            cards.extend(st.pile)
            cards.extend(c for m in st.melds for c in m.cards)
            for c in range(KINDS):
                counts[c] += st.hand[c]
        for c in cards:
            counts[c] += 1
        return max(counts) > 4

    @property
    def dealer_discards(self) -> int:
        """How many cards the dealer has discarded this hand (public: every discard is
        shown); the first one may be won as 地胡 (§9.1)."""
        return self._dealer_discards

    @property
    def deal(self) -> Deal:
        """The deal this hand started from (a resumed hand has none)."""
        if self._deal is None:
            raise PositionError("this hand was resumed mid-play (Hand.resume): its deal "
                                "is unknown")
        return self._deal

    def copy(self) -> Hand:
        """An independent copy of the hand in progress: acting on the copy never changes
        the original (seat states, wall, claim and its answers, events, result).

        >>> from paohuzi.core.rules import Ruleset
        >>> hand = Hand.from_seed(4, Ruleset())
        >>> twin = hand.copy()
        >>> seat = twin.pending_seats()[0]
        >>> _ = twin.act(seat, twin.legal_actions(seat)[0])
        >>> twin.state_key() != hand.state_key(), hand.copy().state_key() == hand.state_key()
        (True, True)
        """
        twin = _copy.copy(self)  # immutable values are shared
        twin.seats = [st.copy() for st in self.seats]
        twin.wall = list(self.wall)
        twin.events = list(self.events)
        twin.actions = list(self.actions)
        if self.claim is not None:
            claim = self.claim
            twin.claim = replace(claim, options={s: list(a) for s, a in claim.options.items()},
                                 answers=dict(claim.answers), wins=dict(claim.wins))
        return twin

    # ---- seats and order -----------------------------------------------------------

    def _set_orders(self) -> None:
        """Each seat's priority order (itself first), and what the claims read off it
        (shared by every hand of as many players: tuples, never changed)."""
        self._orders, self._others, self._nexts, self._eaters = _seat_orders(self.players)

    def next_seat(self, seat: int) -> int:
        """下家: the player after ``seat``."""
        return (seat + 1) % self.players

    def order_from(self, seat: int) -> list[int]:
        """Seats in turn order starting at ``seat`` (the priority order of §4.2, §6.2)."""
        return list(self._orders[seat])

    @property
    def ended(self) -> bool:
        return self.phase is _ENDED

    def pending_seats(self) -> list[int]:
        """The seats whose decision the hand waits for, in priority order."""
        if self.phase is _DISCARDING:
            return [self.turn]
        claim = self.claim
        if self.phase is _CLAIMING and claim is not None:
            options, answers = claim.options, claim.answers
            if not answers and len(options) == 1:  # one seat asked: no order to keep
                return list(options)
            return [s for s in self._orders[claim.seat] if s in options and s not in answers]
        return []

    # ---- the start of the hand (§3) ------------------------------------------------

    def _emit(self, kind: EventKind, seat: int | None = None, cards: tuple[Card, ...] = (),
              private: bool = False, detail: str = "") -> None:
        self.events.append(_new_event(Event, (kind, seat, cards, private, detail)))

    def _start(self, deal: Deal) -> None:
        shown = self.rules.liangzhang_shown
        for seat, dealt in enumerate(deal.hands):  # each sorted: the hand's cards in order
            if seat == self.dealer and not shown:  # §9.1: the 21st card is not shown
                dealt = tuple(sorted((*dealt, self.liangzhang)))
            self._emit(EventKind.DEAL, seat, dealt, private=True)
        if shown:
            self._emit(EventKind.LIANGZHANG, self.dealer, (self.liangzhang,))
        if self.rules.dipai_shown:
            self._show_dipai()
        # §3.3 mandatory 天胡: dealer first (with his 亮张), then 下家, then 上家.
        for seat in self._orders[self.dealer]:
            counts = self.seats[seat].hand
            if seat == self.dealer:
                counts = list(counts)
                counts[self.liangzhang] += 1
            if tianhu_kind_counts(counts) is not None:
                cards = [ALL_CARDS[c] for c in range(KINDS) for _ in range(counts[c])]
                arrangement = solve_tianhu(cards, table=self.table)
                assert arrangement is not None
                self._win(seat, None, Source.TIANHU, arrangement,
                          win_context(Source.TIANHU))
                return
        # §3.4 optional 亮张胡; §9.1 (亮张 hidden): the dealer's 天胡 with his 21 cards.
        options: dict[int, list[Action]] = {}
        wins: dict[int, Arrangement] = {}
        for seat in self._orders[self.dealer] if shown else (self.dealer,):
            win = self._win_check(seat, self.liangzhang, Source.LIANGZHANG)
            if win is not None:
                options[seat] = [Hu(), Pass()]
                wins[seat] = win
        if options:
            self.claim = Claim(self.liangzhang, self.dealer, _ON_LIANGZHANG, options,
                               wins=wins)
            self.phase = _CLAIMING
            self._claim_point()
            return
        self._claim_point()
        self._after_liangzhang()

    def _show_dipai(self) -> None:
        """§9.1 底牌: the wall's last card is shown; a red one goes to the top of the wall
        and the next bottom card is shown, until a black one is (rules-notes N20)."""
        for _ in range(len(self.wall)):
            card = self.wall[-1]
            red = card.is_red
            self._emit(EventKind.DIPAI, None, (card,),
                       detail="red: to the top" if red else "")
            if not red:
                break
            self.wall.insert(0, self.wall.pop())
        self.dipai = self.wall[-1] if self.wall else None

    def _winnable(self, last: bool) -> bool:
        """Whether a drawn card may be won: never the shown 底牌 (§9.1)."""
        return not (last and self.rules.dipai_shown)

    def _after_liangzhang(self) -> None:
        dealer = self.seats[self.dealer]
        dealer.receive(self.liangzhang)
        self.in_play = None
        self.liangzhang_pending = False
        # §3.5 automatic 提 of every 4-of-a-kind.
        for seat in self._orders[self.dealer]:
            st = self.seats[seat]
            if 4 not in st.hand:
                continue
            for c in range(KINDS):
                if st.hand[c] == 4:
                    st.take(c, 4)
                    st.lay(Group.identical(_TI, c, self.table), 4)
                    self._emit(_EV_TI, seat, (ALL_CARDS[c],), detail="dealt")
        # §3.6 the dealer discards unless the discard rule says he has no extra card.
        self._after_intake(self.dealer)

    # ---- flow ----------------------------------------------------------------------

    def _after_intake(self, seat: int) -> None:
        """§4.4: discard exactly when holding an extra card; otherwise the 下家 draws."""
        st = self.seats[seat]
        if st.must_discard():
            if 1 in st.hand or 2 in st.hand:  # a card outside the 坎 to discard
                self.phase = _DISCARDING
                self.turn = seat
                self.claim = None
                return
            st.xianggong = True  # §4.4 [decision] 相公: only 坎 cards, cannot discard
            self._emit(_EV_XIANGGONG, seat)
        else:
            self.events.append(_new_event(Event, (_EV_NO_DISCARD, seat, (), False, "")))
        self._draw((seat + 1) % self.players)

    def _draw(self, seat: int) -> None:
        if not self.wall:
            self._emit(EventKind.HUANGZHUANG)
            self._end_drawn()
            return
        card = self.wall.pop(0)
        last = not self.wall
        st = self.seats[seat]
        self.turn = seat
        events = self.events
        events.append(_new_event(Event, (_EV_DRAW, seat, (card,), True, "")))
        held = st.hand[card]
        # a table 偎 of the card leaves no copy of it in hand
        wei_index = None if held else st.meld_of(card, _WEI_KINDS)
        if held == 3 or wei_index is not None:
            # §4.2.1 提: forced; a win with it is 提胡 (破跑不破提).
            win = self._win_check(seat, card, _SELF) if self._winnable(last) else None
            if held == 3:
                st.take(card, 3)
                st.lay(Group.identical(_TI, card, self.table), 4)
            else:
                assert wei_index is not None
                st.grow(wei_index, Group.identical(_TI, card, self.table))
            self._emit(_EV_TI, seat, (card,))
            self._own_claim(seat, card, win, last)
            return
        if held == 2:
            # §4.2.1 偎 (臭偎 after a declined 碰): forced, face down.
            win = self._win_check(seat, card, _SELF) if self._winnable(last) else None
            st.take(card, 2)
            chou = card in st.declined_peng
            kind = _CHOUWEI if chou else _WEI
            st.lay(Group.identical(kind, card, self.table), 3)
            event = _EV_CHOUWEI if chou else _EV_WEI
            self._emit(event, seat, (card,) * 3, private=not chou)
            self._own_claim(seat, card, win, last)
            return
        events.append(_new_event(Event, (_EV_SHOW, seat, (card,), False, "")))
        self.in_play = card
        self._open_claim(card, seat, _ON_DRAW, last)

    def _own_claim(self, seat: int, card: Card,
                   win: Arrangement | None, last: bool) -> None:
        if win is not None:
            self.claim = Claim(card, seat, _ON_OWN, {seat: [Hu(), Pass()]},
                               wins={seat: win},
                               last=last)
            self.phase = _CLAIMING
            self._claim_point()
            return
        self._claim_point()
        self._after_intake(seat)

    def _claim_point(self) -> None:
        if self.on_claim_point is not None:
            self.on_claim_point(self)

    def _win_check(self, seat: int, card: int, source: Source) -> Arrangement | None:
        """The winning arrangement of ``seat`` on ``card``, or None (§6.1 conditions)."""
        st = self.seats[seat]
        if self.use_filters and not st.may_win(card, self.rules.min_huxi, self.table):
            return None  # the prefilter rules it out: no search
        return self._solve_win(st, seat, card, source)

    def _solve_win(self, st: SeatState, seat: int, card: int,
                   source: Source) -> Arrangement | None:
        """:meth:`_win_check` once the prefilter has let the card through."""
        if st.xianggong or st.chouhu.get(card) == st.table_huxi:  # 相公 (§4.4), 臭胡 (§4.5)
            return None
        if win_barred(self.rules, st.hand, st.melds, card, source, dealer=seat == self.dealer):
            return None  # §9 changde option: no win on a card he would 提 or 偎
        return solve_counts(st.hand, st.melds, card, source, min_huxi=self.rules.min_huxi,
                            trusted=True, dealer=seat == self.dealer, table=self.table)

    def _open_claim(self, card: Card, owner: int, context: ClaimContext,
                    last: bool) -> None:
        """``owner`` shows a card (discarded or drawn): find every seat's options (§4.1, §4.2)."""
        drawn = context is _ON_DRAW
        options: dict[int, list[Action]] = {}
        wins: dict[int, Arrangement] = {}
        order = self._orders[owner]
        # 1. 胡: on a drawn card, drawer first (§4.1: never on a discard, but §9.1)
        if self._winnable(last) if drawn else self.rules.win_on_discard:
            self._offer_wins(options, wins, card, owner, order if drawn else self._others[owner],
                             drawn)
        forced_pao, pair = self._pao_or_pair(card, owner, drawn)  # 2. 跑 (forced)
        if forced_pao is None:
            if pair is not None and not (  # 3. 碰, unless 臭
                    self.rules.chou_blocks_peng and card in self.seats[pair].chou):
                options.setdefault(pair, []).append(_PENG)
            eaters = self._eaters[owner] if drawn else self._nexts[owner]
            self._offer_chi(options, card, eaters)  # 4. 吃
        if not options and forced_pao is None and self.on_claim_point is None:
            # Nobody may take the card and nobody watches the claim point: as _resolve
            # would do with this claim, without making it.
            self.phase = _CLAIMING
            self.claim = None
            self.in_play = None
            self._to_pile(owner, card)
            return
        for opts in options.values():
            opts.append(_PASS)
        dihu = not drawn and owner == self.dealer and self._dealer_discards == 1
        # every field in order (card, seat, context, options, answers, forced_pao, wins,
        # last, dihu): a positional call is quicker on this hot path
        self.claim = Claim(card, owner, context, options, {}, forced_pao, wins, last, dihu)
        self.phase = _CLAIMING
        if self.on_claim_point is not None:  # _claim_point, on this hot path
            self.on_claim_point(self)
        if not options:
            self._resolve()

    def _offer_wins(self, options: dict[int, list[Action]], wins: dict[int, Arrangement],
                    card: int, owner: int, seats: Sequence[int], drawn: bool) -> None:
        min_huxi, table, filters = self.rules.min_huxi, self.table, self.use_filters
        other = _OTHER if drawn else _DISCARD  # a discard: 泸州 only (§9.1)
        for seat in seats:
            st = self.seats[seat]
            if filters and not st.may_win(card, min_huxi, table):
                continue
            win = self._solve_win(st, seat, card, _SELF if seat == owner else other)
            if win is not None:
                wins[seat] = win
                options[seat] = [_HU]

    def _pao_or_pair(self, card: int, owner: int, drawn: bool) -> tuple[int | None, int | None]:
        """The seat that must 跑 ``card`` (§4.2), if any: another seat holding a 坎 of it
        or a table 偎; on a drawn card, a seat (the drawer too) with a table 碰 of it. And
        the seat that may 碰 it, if any: the other seat holding a pair of it (one at most)."""
        forced = pair = None
        for seat in self._orders[owner]:
            st = self.seats[seat]
            held = st.hand[card]
            # a table group of the card leaves none of it in hand (4 copies in all)
            index = None if held else st._identical.get(card)
            if index is None:  # no table group of it: a hand 坎 or pair of another seat
                if seat != owner:
                    if held == 3:
                        forced = seat
                    elif held == 2:
                        pair = seat
                continue
            kind = st.melds[index].kind
            if (seat != owner and kind in _WEI_KINDS) or (drawn and kind is _PENG_GROUP):
                forced = seat
        return forced, pair

    def _offer_chi(self, options: dict[int, list[Action]], card: int,
                   eaters: Sequence[int]) -> None:
        memo, read_counts = _chi_memo[card], PLANS_COUNTS[card]
        for seat in eaters:
            st = self.seats[seat]
            if card in st.chou:
                continue
            counts = read_counts(st.hand)
            plans = memo.get(counts)
            if plans is None:
                plans = memo[counts] = _chi_actions(st.hand, card)
            if plans:
                options.setdefault(seat, []).extend(plans)

    # ---- the validation path -------------------------------------------------------

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (empty when nothing is asked of it)."""
        if self.phase is _DISCARDING and seat == self.turn:
            return list(compress(_DISCARDS, bytes(self.seats[seat].hand).translate(_DISCARDABLE)))
        claim = self.claim
        if self.phase is _CLAIMING and claim is not None and seat in claim.options \
                and seat not in claim.answers:
            return list(claim.options[seat])
        return []

    def verify(self, seat: object, action: object) -> None:
        """Raise :class:`IllegalActionError` unless ``seat`` may take ``action`` now."""
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalActionError(f"there is no seat {seat!r}")
        if not isinstance(action, Action):
            raise IllegalActionError(f"not an action: {action!r}")
        phase = self.phase
        if phase is _DISCARDING:
            if seat != self.turn:
                raise IllegalActionError(f"seat {seat} may not act: seat {self.turn} discards")
            if not isinstance(action, Discard):
                raise IllegalActionError(f"seat {seat} must discard, not {action.text}")
            n = self.seats[seat].hand[action.card]
            if n == 0:
                raise IllegalActionError(f"seat {seat} holds no {action.card.text}")
            if n >= 3:
                raise IllegalActionError(f"{action.card.text} is part of a 坎 and cannot be "
                                         "discarded (§2)")
            return
        if phase is _ENDED:
            raise IllegalActionError("the hand has ended")
        claim = self.claim
        assert claim is not None
        options = claim.options.get(seat)
        if options is None:
            raise IllegalActionError(f"seat {seat} has no decision on {claim.card.text}")
        if seat in claim.answers:
            raise IllegalActionError(f"seat {seat} has already answered")
        if not _offered(action, options):
            allowed = ", ".join(a.text for a in options)
            raise IllegalActionError(f"seat {seat} may not {action.text} on "
                                     f"{claim.card.text}; allowed: {allowed}")

    def can(self, seat: object, action: object) -> bool:
        try:
            self.verify(seat, action)
        except IllegalActionError:
            return False
        return True

    def act(self, seat: object, action: object) -> list[Event]:
        """Apply a decision; returns the events it caused (verified first: on an error
        nothing changes)."""
        self.verify(seat, action)
        assert isinstance(seat, int) and isinstance(action, Action)  # verify checked them
        self.actions.append((seat, action))
        start = len(self.events)
        if self.phase is _DISCARDING:
            assert isinstance(action, Discard)
            self._discard(seat, action.card)
            return self.events[start:]
        claim = self.claim
        assert claim is not None
        claim.answers[seat] = action  # kept secret until the claim resolves
        if len(claim.answers) == len(claim.options):  # every seat asked has answered
            self._resolve()
        return self.events[start:]

    # ---- applying ------------------------------------------------------------------

    def _discard(self, seat: int, card: Card) -> None:
        st = self.seats[seat]
        st.take(card)
        st.chou.add(card)  # §4.5 (a): one's own discard is 臭
        if seat == self.dealer:
            self._dealer_discards += 1
        self.in_play = card
        self.events.append(_new_event(Event, (_EV_DISCARD, seat, (card,), False, "")))
        self._open_claim(card, seat, _ON_DISCARD, False)

    def _resolve(self) -> None:
        claim = self.claim
        assert claim is not None
        card, answers = claim.card, claim.answers
        if not claim.options:  # nobody had a choice: a forced 跑, or the card is piled
            self.claim = None
            self.in_play = None
            if claim.forced_pao is not None:
                self._pao(claim.forced_pao, card)
                self._after_intake(claim.forced_pao)
            else:
                self._to_pile(claim.seat, card)
            return
        if claim.wins and self._resolve_wins(claim):
            return
        if claim.context is _ON_LIANGZHANG:
            self.claim = None
            self._after_liangzhang()
            return
        if claim.context is _ON_OWN:
            self.claim = None
            self._after_intake(claim.seat)
            return
        taker = claim.forced_pao
        if taker is not None:
            self._pao(taker, card)
        else:
            taker = self._take(claim)
        for seat, action in answers.items():
            if isinstance(action, Pass):
                self._passed(seat, card, claim.options[seat])
        self.claim = None
        self.in_play = None
        if taker is None:
            self._to_pile(claim.seat, card)
        else:
            self._after_intake(taker)

    def _passed(self, seat: int, card: Card, options: list[Action]) -> None:
        """§4.5 (b): passing on a 吃/碰 makes the card 臭 (a declined 碰 also makes a
        later 偎 of it a 臭偎); being pre-empted does not."""
        chi = peng = False
        for option in options:
            if isinstance(option, Chi):
                chi = True
            elif isinstance(option, Peng):
                peng = True
        if chi or peng:
            self.seats[seat].chou.add(card)
        if peng:
            self.seats[seat].declined_peng.add(card)

    def _to_pile(self, seat: int, card: Card) -> None:
        """Nobody took ``card``: it goes to ``seat``'s pile and his 下家 draws."""
        self.seats[seat].pile.append(card)
        self.events.append(_new_event(Event, (_EV_TO_PILE, seat, (card,), False, "")))
        self._draw((seat + 1) % self.players)

    def _resolve_wins(self, claim: Claim) -> bool:
        """A 胡 answered wins (the first in priority order); whoever could win and did not
        gets a 臭胡 (§4.5). Whether the hand was won."""
        answers = claim.answers
        winner = next((s for s in self._orders[claim.seat] if isinstance(answers.get(s), Hu)),
                      None)
        # (the §9.1 dealer's 21 cards, his 21st card unshown: no card was offered, so a
        # pass bars none — rules-notes N63)
        if claim.context is not _ON_LIANGZHANG or self.rules.liangzhang_shown:
            for seat in claim.wins:
                if seat != winner and not isinstance(answers.get(seat), Hu):
                    self.seats[seat].chouhu[claim.card] = self.seats[seat].table_huxi
        if winner is None:
            return False
        self._win_on_claim(claim, winner)
        return True

    def _take(self, claim: Claim) -> int | None:
        """Apply an answered 碰 (before any 吃), else the first 吃 in priority order; the
        seat that took the card, if any."""
        answers = claim.answers
        for seat, action in answers.items():
            if isinstance(action, Peng):
                self._peng(seat, claim.card)
                return seat
        for seat in self._orders[claim.seat]:
            chi = answers.get(seat)
            if isinstance(chi, Chi):
                self._chi(seat, claim.card, chi)
                return seat
        return None

    def _pao(self, seat: int, card: Card) -> None:
        st = self.seats[seat]
        index = st.meld_of(card, GROWABLE)
        if index is not None:
            st.grow(index, Group.identical(_PAO, card, self.table))
        else:
            st.take(card, 3)
            st.lay(Group.identical(_PAO, card, self.table), 4)
        self._emit(_EV_PAO, seat, (card,) * 4)

    def _peng(self, seat: int, card: Card) -> None:
        st = self.seats[seat]
        st.take(card, 2)
        st.lay(Group.identical(_PENG_GROUP, card, self.table), 3)
        self._emit(_EV_PENG, seat, (card,) * 3)

    def _chi(self, seat: int, card: Card, chi: Chi) -> None:
        st = self.seats[seat]
        used = list(chi.eat.cards)
        used.remove(card)
        for g in chi.bi:
            used.extend(g.cards)
        for c in used:
            st.take(c)
        st.lay(chi.eat.scored_by(self.table), 3)
        for g in chi.bi:
            st.lay(g.scored_by(self.table), 3)
        cards = chi.eat.cards
        for g in chi.bi:
            cards += g.cards
        self._emit(_EV_CHI, seat, cards, detail=chi.text)

    def _win_on_claim(self, claim: Claim, winner: int) -> None:
        if claim.context is _ON_LIANGZHANG:
            source = Source.LIANGZHANG
        else:
            own = claim.context is _ON_OWN or winner == claim.seat
            source = Source.SELF if own else \
                Source.DISCARD if claim.context is _ON_DISCARD else Source.OTHER
        dihu = claim.dihu and winner == self.next_seat(self.dealer)
        ctx = win_context(source, dealer=winner == self.dealer, last=claim.last, dihu=dihu)
        self._win(winner, claim.card, source, claim.wins[winner], ctx)

    def _win(self, winner: int, card: Card | None, source: Source,
             arrangement: Arrangement, ctx: WinContext) -> None:
        s = settle(arrangement, ctx, self.rules)
        paid = payout(Won(winner, s), self.rules)
        self.result = HandResult(
            EndReason.TIANHU if source is Source.TIANHU else EndReason.HU, winner=winner,
            card=card, source=source, arrangement=arrangement, settlement=s, points=paid.points,
            beans=paid.beans, xingjia_points=paid.xingjia_points)
        self._emit(EventKind.HU, winner, tuple(arrangement.cards), detail=str(arrangement))
        self._finish()

    def _end_drawn(self) -> None:
        paid = payout(Huangzhuang(self.dealer), self.rules)
        self.result = HandResult(EndReason.HUANGZHUANG, points=paid.points, beans=paid.beans,
                                 xingjia_points=paid.xingjia_points)
        self._finish()

    def _finish(self) -> None:
        self.phase = _ENDED
        self.claim = None

    def escape(self, seat: int) -> list[Event]:
        """逃跑: ``seat`` leaves mid-hand and pays the §7.4 penalty; the hand ends."""
        if self.phase is _ENDED:
            raise IllegalActionError("the hand has ended")
        if not 0 <= seat < self.players:
            raise IllegalActionError(f"there is no seat {seat!r}")
        h = sum(best_partial_huxi(st.hand_cards, st.melds, self.table)
                for s, st in enumerate(self.seats) if s != seat)
        paid = payout(Taopao(seat, h), self.rules)
        self.result = HandResult(EndReason.ESCAPE, points=paid.points, beans=paid.beans,
                                 xingjia_points=paid.xingjia_points, leaver=seat)
        self._emit(EventKind.ESCAPE, seat, detail=f"H={h}")
        self._finish()
        return self.events[-1:]

    # ---- inspection ----------------------------------------------------------------

    def card_total(self) -> int:
        """Every card accounted for: hands, tables, piles, wall, set aside, the card in play."""
        n = sum(st.owned + len(st.pile) for st in self.seats)
        return (n + len(self.wall) + len(self.set_aside) + (self.in_play is not None)
                + self.liangzhang_pending)

    def state_key(self) -> tuple[Any, ...]:
        """A full, hashable snapshot of the state (for determinism and replay checks)."""
        return (
            self.phase.value, self.turn, tuple(self.wall), self.in_play,
            tuple((tuple(st.hand), tuple((m.kind.value, m.cards) for m in st.melds),
                   tuple(st.pile), tuple(sorted(st.chou)), tuple(sorted(st.declined_peng)),
                   tuple(sorted(st.chouhu.items())), st.xianggong) for st in self.seats),
            None if self.claim is None else (self.claim.card, self.claim.seat,
                                             self.claim.context.value,
                                             tuple(sorted(self.claim.answers.items(),
                                                          key=lambda kv: kv[0]))),
            None if self.result is None else repr(self.result.to_json()),
        )


SeatOrders = tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...],
                   tuple[tuple[int], ...], tuple[tuple[int, int], ...]]


@cache
def _seat_orders(players: int) -> SeatOrders:
    """Per seat: the seats in priority order from it (itself first), the others in that
    order (who may claim its discard), its 下家 alone (who may 吃 its discard) and itself
    with its 下家 (who may 吃 its drawn card)."""
    orders = tuple(tuple((s + i) % players for i in range(players)) for s in range(players))
    return (orders, tuple(order[1:] for order in orders), tuple((order[1],) for order in orders),
            tuple((order[0], order[1]) for order in orders))


def _offered(action: Action, options: list[Action]) -> bool:
    """Whether ``action`` is one of ``options``: the very object (what ``legal_actions``
    handed out) found first, an equal one otherwise (a parsed action)."""
    for option in options:
        if option is action:
            return True
    return action in options


_chi_memo: list[dict[tuple[int, ...], tuple[Chi, ...]]] = [{} for _ in ALL_CARDS]
"""Per card, its 吃 actions by the counts the plans depend on (:data:`PLANS_COUNTS`)."""
_chi_by_key: list[dict[tuple[int, ...], tuple[Chi, ...]]] = [{} for _ in ALL_CARDS]
"""Per card, its 吃 actions by :func:`plans_key` (coarser: many counts, one key)."""

ChiShapes = tuple[tuple[int, int, int], tuple[tuple[int, int, int], ...]]
_chi_of_shapes: dict[ChiShapes, Chi] = {}
"""The 吃 action of each plan (eating shape, 比 shapes), made once: many hands share it."""


def _chi_actions(hand: list[int], card: int) -> tuple[Chi, ...]:
    """The 吃 actions (with every 比 completion) of ``card`` for this hand, memoised per card
    on :func:`plans_key` (:meth:`Hand._offer_chi` keeps them by the counts too)."""
    memo = _chi_by_key[card]
    key = plans_key(hand, card)
    found = memo.get(key)
    if found is None:
        found = memo[key] = tuple([_chi_of(plan) for plan in chi_plan_shapes(hand, card)])
    return found


def _chi_of(plan: ChiShapes) -> Chi:
    chi = _chi_of_shapes.get(plan)
    if chi is None:
        eat, bi = plan
        chi = _chi_of_shapes[plan] = Chi(shape_group(eat), tuple([shape_group(s) for s in bi]))
    return chi

