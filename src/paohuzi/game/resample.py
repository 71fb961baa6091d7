"""Hidden cards resampled from one seat's observation (determinisation).

:func:`resample_hand` deals the cards a seat cannot see — the others' hands,
their face-down 偎, the wall, the set-aside cards — at random, but only in
ways the hand could really have come to (as OpenSpiel's
``resample_from_infostate``), and returns a full engine :class:`Hand` resumed
at the observer's decision. What the seat knows rules worlds out, because a
hand card never comes back into a hand after the deal (a drawn or taken card
goes to the table or the pile):

* another seat never holds 4 of a card (the deal or the draw would have made a 提);
* a card shown (discarded, or drawn face up) by another seat: no 坎 of it — the
  holder would have had to 跑 it (§4.1, §4.2);
* a card the seat itself discarded or drew face up: at most one in its hand
  (a 坎 cannot be discarded; a drawn card with a pair makes a 偎, with a 坎 a 提);
* a face-down 偎 is 3 unseen copies of a card never shown (while held as a pair,
  a shown copy offers a 碰, and a declined 碰 makes the 偎 a face-up 臭偎; once a
  偎, a shown copy must be 跑'd), and its owner holds none of it in hand;
  nor does anyone hold a card beside his own 碰/偎 of it.

Another seat's 臭 cards are its own discards and a pair it holds of a card shown
by someone else (it passed the 碰). :func:`inconsistencies` states these rules
about a full hand (a test checks real hands satisfy them and samples do too).

>>> import random
>>> from paohuzi.game.engine import Hand
>>> from paohuzi.core.rules import Ruleset
>>> from paohuzi.game.view import observe
>>> hand = Hand.from_seed(5, Ruleset())
>>> seat = hand.pending_seats()[0]
>>> sample = resample_hand(observe(hand, seat), random.Random(1))
>>> inconsistencies(observe(hand, seat), sample), sample.card_total()
([], 80)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from paohuzi.core.cards import ALL_CARDS, KINDS, parse_cards
from paohuzi.core.groups import Group, GroupKind
from paohuzi.core.kinds import ClaimContext, EventKind
from paohuzi.game.actions import Chi, Peng
from paohuzi.game.engine import Hand, PositionError, SeatState
from paohuzi.game.view import Observation, observe

__all__ = ["Shown", "inconsistencies", "is_consistent", "resample_hand"]

_SHOWING = (EventKind.DISCARD, EventKind.SHOW)
_HOLDS_ALL = (GroupKind.PENG, GroupKind.WEI, GroupKind.CHOUWEI)
"""Table groups whose owner holds no further copy of their card in hand."""
_TRIES = 64


@dataclass(frozen=True, slots=True)
class Shown:
    """Which cards each seat showed (discarded, or drew face up), from the events.

    ``past``: per seat, the cards it showed before the card now decided on.
    ``peng_asked``: per seat, the cards another seat showed before in a way that asks
    a pair holder to 碰 or pass — all but a drawn card its drawer 吃'd himself, for
    his 下家, who may have answered 吃 and been pre-empted (§4.5: no 臭 then).
    ``current``: the card now decided on and its source. ``pao_free``: the observer's
    options prove nobody must 跑 it (a 吃 or 碰 is offered only then).
    """

    past: tuple[frozenset[int], ...]
    peng_asked: tuple[frozenset[int], ...]
    current: tuple[int, int] | None
    pao_free: bool

    @classmethod
    def of(cls, view: Observation) -> Shown:
        events = list(view.events)
        current = None
        if view.claim is not None:
            last = max((i for i, e in enumerate(events) if e["kind"] in _SHOWING),
                       default=None)
            if last is not None:
                del events[last]
            current = (int(view.claim[0]), view.claim[1])
        past: list[set[int]] = [set() for _ in range(view.players)]
        asked: list[set[int]] = [set() for _ in range(view.players)]
        for i, e in enumerate(events):
            if e["kind"] not in _SHOWING:
                continue
            source = e["seat"]
            cards = {int(c) for c in parse_cards(e.get("cards", ""))}
            past[source] |= cards
            after = events[i + 1] if i + 1 < len(events) else {}
            own_chi = e["kind"] == "show" and after.get("kind") == "chi" \
                and after.get("seat") == source
            for seat in range(view.players):
                if seat != source and not (own_chi and seat == (source + 1) % view.players):
                    asked[seat] |= cards
        pao_free = any(isinstance(a, Chi | Peng) for a in view.legal)
        return cls(tuple(map(frozenset, past)), tuple(map(frozenset, asked)), current,
                   pao_free)

    def by_itself(self, seat: int, card: int) -> bool:
        """``seat`` showed ``card``: it holds at most one now."""
        return card in self.past[seat] or self.current == (card, seat)

    def by_another(self, seat: int, card: int) -> bool:
        """Another seat showed ``card`` while ``seat`` would have had to 跑 a 坎 or 偎 of
        it."""
        if any(card in s for o, s in enumerate(self.past) if o != seat):
            return True
        return self.pao_free and self.current is not None and self.current[0] == card \
            and self.current[1] != seat

    def hand_caps(self, seat: int) -> list[int]:
        """The most copies of each card ``seat`` can hold in hand now."""
        return [1 if self.by_itself(seat, c) else 2 if self.by_another(seat, c) else 3
                for c in range(KINDS)]

    def passed_peng(self, seat: int, counts: Sequence[int]) -> set[int]:
        """Cards ``seat`` holds a pair of and was asked to 碰: it passed (臭)."""
        return {c for c in self.peng_asked[seat] if counts[c] == 2}

    def hidden_wei_possible(self, seat: int, card: int) -> bool:
        """Whether ``seat`` can hold a face-down 偎 of ``card``: it held a pair of it all
        along, so a 碰 it was asked and passed would make the 偎 a face-up 臭偎."""
        if self.by_itself(seat, card) or card in self.peng_asked[seat]:
            return False
        return not (self.pao_free and self.current is not None
                    and self.current[0] == card)


def _check_view(view: Observation) -> int:
    if view.seat is None:
        raise PositionError("a spectator's observation has no seat to resample for")
    if not view.events:
        raise PositionError("the observation has no events (observe with events=True): "
                            "they tell which cards were shown")
    if view.phase == "discard" and view.turn == view.seat:
        return view.seat
    if view.claim is not None and view.claim[2] in (ClaimContext.DISCARD, ClaimContext.DRAW):
        return view.seat
    raise PositionError("resampling needs the observer to discard or to decide on a "
                        f"discarded or drawn card (phase {view.phase!r})")


def _draw_hand(pool: list[int], size: int, caps: Sequence[int],
               rng: random.Random) -> list[int] | None:
    """``size`` cards from ``pool`` within ``caps`` (uniform by rejection, then drawn
    card by card among the cards still allowed); the pool loses them."""
    if size > len(pool):
        return None
    for _ in range(_TRIES):
        picks = rng.sample(range(len(pool)), size)
        counts = [0] * KINDS
        for i in picks:
            counts[pool[i]] += 1
        if all(n <= cap for n, cap in zip(counts, caps, strict=True)):
            break
    else:
        counts = [0] * KINDS
        picks = []
        for _ in range(size):
            allowed = [i for i, c in enumerate(pool)
                       if counts[c] < caps[c] and i not in picks]
            if not allowed:
                return None
            i = rng.choice(allowed)
            picks.append(i)
            counts[pool[i]] += 1
    for i in sorted(picks, reverse=True):
        del pool[i]
    return counts


def _try_sample(view: Observation, me: int, shown: Shown, rng: random.Random) -> Hand | None:
    unseen = view.unseen_counts()
    melds: list[list[Group]] = []
    for seat in range(view.players):
        seat_melds = []
        for m in view.melds[seat]:
            if m is None:  # another's face-down 偎
                options = [c for c in range(KINDS)
                           if unseen[c] >= 3 and shown.hidden_wei_possible(seat, c)]
                if not options:
                    return None
                card = rng.choice(options)
                unseen[card] -= 3
                m = Group.identical(GroupKind.WEI, card, view.rules.huxi)
            seat_melds.append(m)
        melds.append(seat_melds)
    pool = [c for c in range(KINDS) for _ in range(unseen[c])]
    seats: list[SeatState] = []
    for seat in range(view.players):
        if seat == me:
            seats.append(SeatState.restore(view.hand, melds[seat], pile=view.piles[seat],
                                           chou=view.chou, declined_peng=view.declined_peng,
                                           chouhu=view.chouhu,
                                           xianggong=view.xianggong[seat]))
            continue
        caps = shown.hand_caps(seat)
        for m in melds[seat]:
            if m.kind in _HOLDS_ALL:
                caps[m.cards[0]] = 0
        counts = _draw_hand(pool, view.hand_sizes[seat], caps, rng)
        if counts is None:
            return None
        passed = shown.passed_peng(seat, counts)
        discarded = {int(c) for c in view.discards(seat)}
        seats.append(SeatState.restore(counts, melds[seat], pile=view.piles[seat],
                                       chou=discarded | passed, declined_peng=passed,
                                       xianggong=view.xianggong[seat]))
    rng.shuffle(pool)
    if len(pool) != view.wall + view.rules.set_aside:
        raise PositionError(f"{len(pool)} unseen cards left for a wall of {view.wall} and "
                            f"{view.rules.set_aside} set aside")
    wall = [ALL_CARDS[c] for c in pool[: view.wall]]
    if view.dipai is not None and view.dipai in wall:  # §9.1: the shown 底牌 stays last
        wall.remove(view.dipai)
        wall.append(view.dipai)
    set_aside = [ALL_CARDS[c] for c in pool[view.wall:]]
    turn = me if view.claim is None else view.claim[1]
    liangzhang = view.liangzhang if view.liangzhang is not None else ALL_CARDS[0]
    return Hand.resume(view.rules, dealer=view.dealer, liangzhang=liangzhang,
                       seats=seats, wall=wall, turn=turn, shown=view.claim,
                       set_aside=set_aside,
                       dealer_discards=len(view.discards(view.dealer)))


def resample_hand(view: Observation, rng: random.Random) -> Hand:
    """A full hand, the cards hidden from ``view``'s seat dealt at random consistently
    with what it knows (module docstring); the same ``rng`` state gives the same hand.

    Raises :class:`~paohuzi.game.engine.PositionError` for an observation it cannot resume:
    a spectator's, one without events, or one where the seat has no discard or decision
    on a discarded or drawn card.
    """
    me = _check_view(view)
    shown = Shown.of(view)
    for _ in range(_TRIES):
        hand = _try_sample(view, me, shown, rng)
        if hand is not None:
            return hand
    raise PositionError("no deal of the hidden cards fits this observation")


_SAME_FIELDS = ("players", "dealer", "liangzhang", "wall", "phase", "turn", "hand", "melds",
                "piles", "hand_sizes", "xianggong", "chou", "declined_peng", "chouhu", "claim",
                "in_play", "legal")


def inconsistencies(view: Observation, hand: Hand) -> list[str]:
    """Why ``hand`` cannot be the hand ``view`` was observed in (empty: it can be).

    ``hand`` must look to the seat exactly as ``view`` does, hold the 80 cards, and
    every other seat's hidden cards must obey the module docstring's rules.
    """
    me = view.seat
    if me is None:
        raise PositionError("a spectator's observation has no seat to check for")
    problems: list[str] = []
    seen = observe(hand, me, events=False)
    problems += [f"the seat would see another {name}" for name in _SAME_FIELDS
                 if getattr(seen, name) != getattr(view, name)]
    if hand.rules != view.rules:
        problems.append("other rules")
    if hand.card_total() != 80:
        problems.append(f"{hand.card_total()} cards, not 80")
    shown = Shown.of(view)
    for seat, st in enumerate(hand.seats):
        if seat == me:
            continue
        for c in range(KINDS):
            name = f"seat {seat} holds {st.hand[c]} {ALL_CARDS[c].text}"
            if st.hand[c] >= 4:
                problems.append(f"{name}: it would have made a 提")
            elif st.hand[c] >= 2 and shown.by_itself(seat, c):
                problems.append(f"{name}: it showed that card itself")
            elif st.hand[c] == 3 and shown.by_another(seat, c):
                problems.append(f"{name}: a 坎 of a card shown by another seat is 跑'd")
        for m in st.melds:
            card = m.cards[0]
            if m.kind is GroupKind.WEI and not shown.hidden_wei_possible(seat, card):
                problems.append(f"seat {seat} has a face-down 偎 of the shown card "
                                f"{ALL_CARDS[card].text}")
            if m.kind in _HOLDS_ALL and st.hand[card]:
                problems.append(f"seat {seat} holds {ALL_CARDS[card].text} beside its "
                                f"{m.kind.value} of it")
    return problems


def is_consistent(view: Observation, hand: Hand) -> bool:
    """Whether ``hand`` could be the hand ``view`` was observed in."""
    return not inconsistencies(view, hand)
