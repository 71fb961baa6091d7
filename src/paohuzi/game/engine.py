"""The hand engine (RULES.md §3–§7): one hand of 跑胡子, pure and deterministic.

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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, NamedTuple

from paohuzi.core.cardcount import must_discard
from paohuzi.core.cards import ALL_CARDS, KINDS, Card, counts_of, format_cards
from paohuzi.core.chi import chi_options_counts, plans_key
from paohuzi.core.errors import CardCountError, PaohuziError
from paohuzi.core.groups import GROWABLE, Group, GroupKind
from paohuzi.core.kinds import ClaimContext, EndReason, EventKind, Source
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
    may_win,
    solve_counts,
    solve_tianhu,
    tianhu_kind,
    win_barred,
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

    __slots__ = ("_identical", "chou", "chouhu", "declined_peng", "hand", "melds", "owned",
                 "pao_ti", "pile", "table_huxi", "version", "xianggong")

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
        for name in SeatState.__slots__:
            value = getattr(self, name)
            if isinstance(value, list | set | dict):
                value = value.copy()
            setattr(twin, name, value)
        return twin

    @property
    def hand_cards(self) -> list[Card]:
        return [ALL_CARDS[c] for c in range(KINDS) for _ in range(self.hand[c])]

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

    def must_discard(self) -> bool:
        """Whether this seat discards after an intake (§4.4)."""
        return must_discard(self.owned, self.pao_ti)


_HU, _PASS, _PENG = Hu(), Pass(), Peng()
_DISCARDS = [Discard(card) for card in ALL_CARDS]


_WEI_KINDS = (GroupKind.WEI, GroupKind.CHOUWEI)
_PENG_KIND = (GroupKind.PENG,)


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
        return data


class Hand:
    """One hand of 跑胡子 from the deal to its end."""

    use_filters = True
    """Skip 胡 checks that cheap necessary conditions rule out (a test turns this off
    and checks that the games are unchanged)."""

    on_claim_point: Callable[[Hand], None] | None = None
    """Called at every claim point — the 亮张, a shown card (a discard or a shown draw),
    one's own 提/偎 — once the options on it are worked out and *before* a card nobody
    may claim is resolved (the hand then goes on at once). The game server delivers
    the table as it is at each such point, so that the batching of what a seat
    receives never tells whether another seat had an option. Nothing changes when it
    is ``None`` (the default)."""

    def __init__(self, rules: Ruleset, deal: Deal, *,
                 on_claim_point: Callable[[Hand], None] | None = None) -> None:
        deal.validate(rules)
        self.on_claim_point = on_claim_point
        self.rules = rules
        self.table = rules.huxi
        """The 胡息 table every group of this hand scores by (§5, §9.1)."""
        self._deal: Deal | None = deal
        self.set_aside: tuple[Card, ...] = deal.set_aside
        self.players = rules.players
        self._orders = [[(s + i) % self.players for i in range(self.players)]
                        for s in range(self.players)]
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
        self.phase = Phase.CLAIM
        self.turn = self.dealer
        self.claim: Claim | None = None
        self.result: HandResult | None = None
        self.events: list[Event] = []
        self.actions: list[tuple[int, Action]] = []
        self._start()

    @classmethod
    def from_seed(cls, seed: int, rules: Ruleset, dealer: int = 0) -> Hand:
        """A hand dealt from a seed (see :meth:`Deal.from_seed`)."""
        return cls(rules, Deal.from_seed(seed, rules, dealer))

    @classmethod
    def resume(cls, rules: Ruleset, *, dealer: int, liangzhang: Card,
               seats: Sequence[SeatState], wall: Sequence[Card], turn: int,
               shown: tuple[Card, int, ClaimContext] | None = None,
               set_aside: Sequence[Card] = ()) -> Hand:
        """A hand in the middle of play, from every seat's state and the wall (the
        determinisations of :func:`paohuzi.game.resample.resample_hand`).

        With ``shown = (card, source, context)`` the card has just been shown
        (``context`` ``discard`` or ``draw``) and every seat's options on it are
        worked out as in play; otherwise seat ``turn`` must discard. The hand takes
        the seat states over (it does not copy them). A resumed hand has no
        :attr:`deal` and no events before it.
        """
        if len(seats) != rules.players:
            raise PositionError(f"{len(seats)} seats, the rules have {rules.players}")
        for name, seat in (("dealer", dealer), ("turn", turn)):
            if not 0 <= seat < rules.players:
                raise PositionError(f"{name}: there is no seat {seat!r}")
        if len(set_aside) != rules.set_aside:
            raise PositionError(f"{len(set_aside)} cards set aside, the rules say "
                                f"{rules.set_aside}")
        hand = cls.__new__(cls)
        hand.on_claim_point = None
        hand.rules = rules
        hand.table = rules.huxi
        hand.dipai = wall[-1] if rules.dipai_shown and wall else None
        hand.liangzhang_pending = False
        hand._dealer_discards = 1
        hand.players = rules.players
        hand._orders = [[(s + i) % hand.players for i in range(hand.players)]
                        for s in range(hand.players)]
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
        hand.phase = Phase.DISCARD
        if shown is not None:
            card, seat, context = shown
            if context not in (ClaimContext.DISCARD, ClaimContext.DRAW):
                raise PositionError(f"a resumed hand shows a discarded or drawn card, "
                                    f"not a {context!r} one")
            hand.in_play = card
        total = hand.card_total()
        if total != 80:
            raise CardCountError(f"the position holds {total} cards, not the 80 of the deck")
        if hand._copies_over_four():
            raise CardCountError("the position holds more than 4 copies of a card")
        if shown is not None:
            hand._open_claim([], card, seat, ClaimContext(context),
                            context == ClaimContext.DRAW and not wall)
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
        twin = Hand.__new__(Hand)
        twin.__dict__.update(self.__dict__)  # immutable values are shared
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

    def next_seat(self, seat: int) -> int:
        """下家: the player after ``seat``."""
        return (seat + 1) % self.players

    def order_from(self, seat: int) -> list[int]:
        """Seats in turn order starting at ``seat`` (the priority order of §4.2, §6.2)."""
        return self._orders[seat]

    @property
    def ended(self) -> bool:
        return self.phase is Phase.ENDED

    def pending_seats(self) -> list[int]:
        """The seats whose decision the hand waits for, in priority order."""
        if self.phase is Phase.DISCARD:
            return [self.turn]
        if self.phase is Phase.CLAIM and self.claim is not None:
            return [s for s in self.order_from(self.claim.seat)
                    if s in self.claim.options and s not in self.claim.answers]
        return []

    # ---- the start of the hand (§3) ------------------------------------------------

    def _emit(self, events: list[Event], event: Event) -> None:
        events.append(event)
        self.events.append(event)

    def _start(self) -> None:
        events: list[Event] = []
        shown = self.rules.liangzhang_shown
        for seat in range(self.players):
            dealt = tuple(self.seats[seat].hand_cards)
            if seat == self.dealer and not shown:  # §9.1: the 21st card is not shown
                dealt = tuple(sorted((*dealt, self.liangzhang)))
            self._emit(events, Event(EventKind.DEAL, seat, dealt, private=True))
        if shown:
            self._emit(events, Event(EventKind.LIANGZHANG, self.dealer, (self.liangzhang,)))
        if self.rules.dipai_shown:
            self._show_dipai(events)
        # §3.3 mandatory 天胡: dealer first (with his 亮张), then 下家, then 上家.
        for seat in self.order_from(self.dealer):
            cards = self.seats[seat].hand_cards
            if seat == self.dealer:
                cards = [*cards, self.liangzhang]
            if tianhu_kind(cards) is not None:
                arrangement = solve_tianhu(cards, table=self.table)
                assert arrangement is not None
                self._win(events, seat, None, Source.TIANHU, arrangement,
                          win_context(Source.TIANHU))
                return
        # §3.4 optional 亮张胡; §9.1 (亮张 hidden): the dealer's 天胡 with his 21 cards.
        options: dict[int, list[Action]] = {}
        wins: dict[int, Arrangement] = {}
        for seat in self.order_from(self.dealer) if shown else [self.dealer]:
            win = self._win_check(seat, self.liangzhang, Source.LIANGZHANG)
            if win is not None:
                options[seat] = [Hu(), Pass()]
                wins[seat] = win
        if options:
            self.claim = Claim(self.liangzhang, self.dealer, ClaimContext.LIANGZHANG, options,
                               wins=wins)
            self.phase = Phase.CLAIM
            self._claim_point()
            return
        self._claim_point()
        self._after_liangzhang(events)

    def _show_dipai(self, events: list[Event]) -> None:
        """§9.1 底牌: the wall's last card is shown; a red one goes to the top of the wall
        and the next bottom card is shown, until a black one is (rules-notes N20)."""
        for _ in range(len(self.wall)):
            card = self.wall[-1]
            red = card.is_red
            self._emit(events, Event(EventKind.DIPAI, None, (card,),
                                     detail="red: to the top" if red else ""))
            if not red:
                break
            self.wall.insert(0, self.wall.pop())
        self.dipai = self.wall[-1] if self.wall else None

    def _winnable(self, last: bool) -> bool:
        """Whether a drawn card may be won: never the shown 底牌 (§9.1)."""
        return not (last and self.rules.dipai_shown)

    def _after_liangzhang(self, events: list[Event]) -> None:
        dealer = self.seats[self.dealer]
        dealer.receive(self.liangzhang)
        self.in_play = None
        self.liangzhang_pending = False
        # §3.5 automatic 提 of every 4-of-a-kind.
        for seat in self.order_from(self.dealer):
            st = self.seats[seat]
            for c in range(KINDS):
                if st.hand[c] == 4:
                    st.take(c, 4)
                    st.lay(Group.identical(GroupKind.TI, c, self.table), 4)
                    self._emit(events, Event(EventKind.TI, seat, (ALL_CARDS[c],), detail="dealt"))
        # §3.6 the dealer discards unless the discard rule says he has no extra card.
        self._after_intake(events, self.dealer)

    # ---- flow ----------------------------------------------------------------------

    def _after_intake(self, events: list[Event], seat: int) -> None:
        """§4.4: discard exactly when holding an extra card; otherwise the 下家 draws."""
        st = self.seats[seat]
        if st.must_discard():
            if any(0 < n <= 2 for n in st.hand):
                self.phase = Phase.DISCARD
                self.turn = seat
                self.claim = None
                return
            st.xianggong = True  # §4.4 [decision] 相公: only 坎 cards, cannot discard
            self._emit(events, Event(EventKind.XIANGGONG, seat))
        else:
            self._emit(events, Event(EventKind.NO_DISCARD, seat))
        self._draw(events, self.next_seat(seat))

    def _draw(self, events: list[Event], seat: int) -> None:
        if not self.wall:
            self._emit(events, Event(EventKind.HUANGZHUANG))
            self._end_drawn(events)
            return
        card = self.wall.pop(0)
        last = not self.wall
        st = self.seats[seat]
        self.turn = seat
        self._emit(events, Event(EventKind.DRAW, seat, (card,), private=True))
        wei_index = st.meld_of(card, _WEI_KINDS)
        if st.hand[card] == 3 or wei_index is not None:
            # §4.2.1 提: forced; a win with it is 提胡 (破跑不破提).
            win = self._win_check(seat, card, Source.SELF) if self._winnable(last) else None
            if st.hand[card] == 3:
                st.take(card, 3)
                st.lay(Group.identical(GroupKind.TI, card, self.table), 4)
            else:
                assert wei_index is not None
                st.grow(wei_index, Group.identical(GroupKind.TI, card, self.table))
            self._emit(events, Event(EventKind.TI, seat, (card,)))
            self._own_claim(events, seat, card, win, last)
            return
        if st.hand[card] == 2:
            # §4.2.1 偎 (臭偎 after a declined 碰): forced, face down.
            win = self._win_check(seat, card, Source.SELF) if self._winnable(last) else None
            st.take(card, 2)
            chou = card in st.declined_peng
            kind = GroupKind.CHOUWEI if chou else GroupKind.WEI
            st.lay(Group.identical(kind, card, self.table), 3)
            event = EventKind.CHOUWEI if chou else EventKind.WEI
            self._emit(events, Event(event, seat, (card,) * 3, private=not chou))
            self._own_claim(events, seat, card, win, last)
            return
        self._emit(events, Event(EventKind.SHOW, seat, (card,)))
        self.in_play = card
        self._open_claim(events, card, seat, ClaimContext.DRAW, last)

    def _own_claim(self, events: list[Event], seat: int, card: Card,
                   win: Arrangement | None, last: bool) -> None:
        if win is not None:
            self.claim = Claim(card, seat, ClaimContext.OWN, {seat: [Hu(), Pass()]},
                               wins={seat: win},
                               last=last)
            self.phase = Phase.CLAIM
            self._claim_point()
            return
        self._claim_point()
        self._after_intake(events, seat)

    def _claim_point(self) -> None:
        if self.on_claim_point is not None:
            self.on_claim_point(self)

    def _win_check(self, seat: int, card: int, source: Source) -> Arrangement | None:
        """The winning arrangement of ``seat`` on ``card``, or None (§6.1 conditions)."""
        st = self.seats[seat]
        if st.xianggong:
            return None
        if st.chouhu.get(card) == st.table_huxi:  # §4.5 臭胡
            return None
        if win_barred(self.rules, st.hand, st.melds, card, source, dealer=seat == self.dealer):
            return None  # §9 changde option: no win on a card he would 提 or 偎
        if self.use_filters and not may_win(st.hand, st.melds, card, self.rules.min_huxi,
                                            self.table):
            return None
        return solve_counts(st.hand, st.melds, card, source, min_huxi=self.rules.min_huxi,
                            trusted=True, dealer=seat == self.dealer, table=self.table)

    def _open_claim(self, events: list[Event], card: Card, owner: int, context: ClaimContext,
                    last: bool) -> None:
        """``owner`` shows a card (discarded or drawn): find every seat's options (§4.1, §4.2)."""
        drawn = context is ClaimContext.DRAW
        options: dict[int, list[Action]] = {}
        wins: dict[int, Arrangement] = {}
        if drawn and self._winnable(last):  # 1. 胡, drawer first (§4.1: never on a discard)
            for seat in self.order_from(owner):
                win = self._win_check(seat, card, Source.SELF if seat == owner else Source.OTHER)
                if win is not None:
                    wins[seat] = win
                    options[seat] = [_HU]
        elif not drawn and self.rules.win_on_discard:  # §9.1: 胡 on another's discard
            for seat in self.order_from(owner)[1:]:
                win = self._win_check(seat, card, Source.OTHER)
                if win is not None:
                    wins[seat] = win
                    options[seat] = [_HU]
        forced_pao = None  # 2. 跑 (forced)
        peng_seat = None
        for seat in self.order_from(owner):
            st = self.seats[seat]
            held = st.hand[card]
            if seat != owner:
                if held == 3 or st.meld_of(card, _WEI_KINDS) is not None:
                    forced_pao = seat
                elif held == 2 and not (self.rules.chou_blocks_peng and card in st.chou):
                    peng_seat = seat
            if drawn and st.meld_of(card, _PENG_KIND) is not None:
                forced_pao = seat
        if forced_pao is None:
            if peng_seat is not None:  # 3. 碰 (one seat at most can hold a pair of it)
                options.setdefault(peng_seat, []).append(_PENG)
            eaters = [owner, self.next_seat(owner)] if drawn else [self.next_seat(owner)]
            for seat in eaters:  # 4. 吃
                st = self.seats[seat]
                if card in st.chou:
                    continue
                plans = _chi_actions(st.hand, card)
                if plans:
                    options.setdefault(seat, []).extend(plans)
        for seat in options:
            options[seat].append(_PASS)
        dihu = not drawn and owner == self.dealer and self._dealer_discards == 1
        self.claim = Claim(card, owner, context, options, forced_pao=forced_pao, wins=wins,
                           last=last, dihu=dihu)
        self.phase = Phase.CLAIM
        self._claim_point()
        if not options:
            self._resolve(events)

    # ---- the validation path -------------------------------------------------------

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (empty when nothing is asked of it)."""
        if self.phase is Phase.DISCARD and seat == self.turn:
            st = self.seats[seat]
            return [_DISCARDS[c] for c, n in enumerate(st.hand) if 0 < n <= 2]
        claim = self.claim
        if self.phase is Phase.CLAIM and claim is not None and seat in claim.options \
                and seat not in claim.answers:
            return list(claim.options[seat])
        return []

    def verify(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalActionError` unless ``seat`` may take ``action`` now."""
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalActionError(f"there is no seat {seat!r}")
        if not isinstance(action, Action):
            raise IllegalActionError(f"not an action: {action!r}")
        if self.phase is Phase.ENDED:
            raise IllegalActionError("the hand has ended")
        if self.phase is Phase.DISCARD:
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
        claim = self.claim
        assert claim is not None
        if seat not in claim.options:
            raise IllegalActionError(f"seat {seat} has no decision on {claim.card.text}")
        if seat in claim.answers:
            raise IllegalActionError(f"seat {seat} has already answered")
        if action not in claim.options[seat]:
            allowed = ", ".join(a.text for a in claim.options[seat])
            raise IllegalActionError(f"seat {seat} may not {action.text} on "
                                     f"{claim.card.text}; allowed: {allowed}")

    def can(self, seat: int, action: Action) -> bool:
        try:
            self.verify(seat, action)
        except IllegalActionError:
            return False
        return True

    def act(self, seat: int, action: Action) -> list[Event]:
        """Apply a decision; returns the events it caused (verified first: on an error
        nothing changes)."""
        self.verify(seat, action)
        self.actions.append((seat, action))
        events: list[Event] = []
        if self.phase is Phase.DISCARD:
            assert isinstance(action, Discard)
            self._discard(events, seat, action.card)
            return events
        claim = self.claim
        assert claim is not None
        claim.answers[seat] = action  # kept secret until the claim resolves
        if all(s in claim.answers for s in claim.options):
            self._resolve(events)
        return events

    # ---- applying ------------------------------------------------------------------

    def _discard(self, events: list[Event], seat: int, card: Card) -> None:
        st = self.seats[seat]
        st.take(card)
        st.chou.add(card)  # §4.5 (a): one's own discard is 臭
        if seat == self.dealer:
            self._dealer_discards += 1
        self.in_play = card
        self._emit(events, Event(EventKind.DISCARD, seat, (card,)))
        self._open_claim(events, card, seat, ClaimContext.DISCARD, False)

    def _resolve(self, events: list[Event]) -> None:
        claim = self.claim
        assert claim is not None
        card, answers = claim.card, claim.answers
        if not claim.options:  # nobody had a choice: a forced 跑, or the card is piled
            self.claim = None
            self.in_play = None
            if claim.forced_pao is not None:
                self._pao(events, claim.forced_pao, card)
                self._after_intake(events, claim.forced_pao)
            else:
                self.seats[claim.seat].pile.append(card)
                self._emit(events, Event(EventKind.TO_PILE, claim.seat, (card,)))
                self._draw(events, self.next_seat(claim.seat))
            return
        winner = next((s for s in self.order_from(claim.seat)
                       if isinstance(answers.get(s), Hu)), None)
        # 臭胡: a seat that could win and did not (§4.5).
        for seat in claim.wins:
            if seat != winner and not isinstance(answers.get(seat), Hu):
                self.seats[seat].chouhu[card] = self.seats[seat].table_huxi
        if winner is not None:
            self._win_on_claim(events, claim, winner)
            return
        if claim.context is ClaimContext.LIANGZHANG:
            self.claim = None
            self._after_liangzhang(events)
            return
        if claim.context is ClaimContext.OWN:
            self.claim = None
            self._after_intake(events, claim.seat)
            return
        taker: int | None = None
        if claim.forced_pao is not None:
            taker = claim.forced_pao
            self._pao(events, taker, card)
        else:
            peng_seat = next((s for s, a in answers.items() if isinstance(a, Peng)), None)
            chi_seat = next((s for s in self.order_from(claim.seat)
                             if isinstance(answers.get(s), Chi)), None)
            if peng_seat is not None:
                taker = peng_seat
                self._peng(events, peng_seat, card)
            elif chi_seat is not None:
                taker = chi_seat
                chi = answers[chi_seat]
                assert isinstance(chi, Chi)
                self._chi(events, chi_seat, card, chi)
        # §4.5 (b): passing on a 吃/碰 makes the card 臭; being pre-empted does not.
        for seat, action in answers.items():
            if isinstance(action, Pass):
                opts = claim.options[seat]
                if any(isinstance(a, Chi | Peng) for a in opts):
                    self.seats[seat].chou.add(card)
                if any(isinstance(a, Peng) for a in opts):
                    self.seats[seat].declined_peng.add(card)
        self.claim = None
        self.in_play = None
        if taker is None:
            self.seats[claim.seat].pile.append(card)
            self._emit(events, Event(EventKind.TO_PILE, claim.seat, (card,)))
            self._draw(events, self.next_seat(claim.seat))
        else:
            self._after_intake(events, taker)

    def _pao(self, events: list[Event], seat: int, card: Card) -> None:
        st = self.seats[seat]
        index = st.meld_of(card, GROWABLE)
        if index is not None:
            st.grow(index, Group.identical(GroupKind.PAO, card, self.table))
        else:
            st.take(card, 3)
            st.lay(Group.identical(GroupKind.PAO, card, self.table), 4)
        self._emit(events, Event(EventKind.PAO, seat, (card,) * 4))

    def _peng(self, events: list[Event], seat: int, card: Card) -> None:
        st = self.seats[seat]
        st.take(card, 2)
        st.lay(Group.identical(GroupKind.PENG, card, self.table), 3)
        self._emit(events, Event(EventKind.PENG, seat, (card,) * 3))

    def _chi(self, events: list[Event], seat: int, card: Card, chi: Chi) -> None:
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
        cards = tuple(c for g in (chi.eat, *chi.bi) for c in g.cards)
        self._emit(events, Event(EventKind.CHI, seat, cards, detail=chi.text))

    def _win_on_claim(self, events: list[Event], claim: Claim, winner: int) -> None:
        if claim.context is ClaimContext.LIANGZHANG:
            source = Source.LIANGZHANG
        else:
            own = claim.context is ClaimContext.OWN or winner == claim.seat
            source = Source.SELF if own else Source.OTHER
        dihu = claim.dihu and winner == self.next_seat(self.dealer)
        ctx = win_context(source, dealer=winner == self.dealer, last=claim.last, dihu=dihu)
        self._win(events, winner, claim.card, source, claim.wins[winner], ctx)

    def _win(self, events: list[Event], winner: int, card: Card | None, source: Source,
             arrangement: Arrangement, ctx: WinContext) -> None:
        s = settle(arrangement, ctx, self.rules)
        paid = payout(Won(winner, s), self.rules)
        self.result = HandResult(
            EndReason.TIANHU if source is Source.TIANHU else EndReason.HU, winner=winner,
            card=card, source=source, arrangement=arrangement, settlement=s, points=paid.points,
            beans=paid.beans, xingjia_points=paid.xingjia_points)
        self._emit(events, Event(EventKind.HU, winner, tuple(arrangement.cards),
                                 detail=str(arrangement)))
        self._finish()

    def _end_drawn(self, events: list[Event]) -> None:
        paid = payout(Huangzhuang(self.dealer), self.rules)
        self.result = HandResult(EndReason.HUANGZHUANG, points=paid.points, beans=paid.beans,
                                 xingjia_points=paid.xingjia_points)
        self._finish()

    def _finish(self) -> None:
        self.phase = Phase.ENDED
        self.claim = None

    def escape(self, seat: int) -> list[Event]:
        """逃跑: ``seat`` leaves mid-hand and pays the §7.4 penalty; the hand ends."""
        if self.phase is Phase.ENDED:
            raise IllegalActionError("the hand has ended")
        if not 0 <= seat < self.players:
            raise IllegalActionError(f"there is no seat {seat!r}")
        h = sum(best_partial_huxi(st.hand_cards, st.melds, self.table)
                for s, st in enumerate(self.seats) if s != seat)
        paid = payout(Taopao(seat, h), self.rules)
        self.result = HandResult(EndReason.ESCAPE, points=paid.points, beans=paid.beans,
                                 xingjia_points=paid.xingjia_points, leaver=seat)
        events: list[Event] = []
        self._emit(events, Event(EventKind.ESCAPE, seat, detail=f"H={h}"))
        self._finish()
        return events

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


_chi_memo: dict[int, tuple[Chi, ...]] = {}


def _chi_actions(hand: list[int], card: int) -> tuple[Chi, ...]:
    """The 吃 actions (with every 比 completion) of ``card`` for this hand, memoised on the
    counts of the cards that share a shape with it."""
    key = plans_key(hand, card)
    found = _chi_memo.get(key)
    if found is None:
        found = tuple(Chi(p.eat, p.bi) for p in chi_options_counts(hand, card))
        _chi_memo[key] = found
    return found

