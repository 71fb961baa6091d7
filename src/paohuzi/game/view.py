"""What one seat may see of a hand (its observation). The only way state leaves the engine.

A seat sees its own hand, every table group — another seat's 偎 face down,
臭偎 and 提 with their one face-up card (which names the card) —, the discard
piles, the 亮张, the wall count, whether it must decide and its own legal
actions, its own 臭 cards, and the events as it may see them. A spectator
(``seat=None``) sees no hand at all.

:func:`observe` gives a structured :class:`Observation` (what computer players
read); :func:`seat_view` is the same observation as JSON (what people and the
network see).

>>> from paohuzi.game.engine import Hand
>>> from paohuzi.core.rules import Ruleset
>>> v = seat_view(Hand.from_seed(3, Ruleset()), 1)
>>> v["seat"], len(v["hand"]) > 0, "hand" in seat_view(Hand.from_seed(3, Ruleset()), None)
(1, True, False)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from paohuzi.core.cards import ALL_CARDS, COPIES, KINDS, Card, format_cards, format_counts
from paohuzi.core.errors import PaohuziError
from paohuzi.core.groups import LABELS, Group, GroupKind
from paohuzi.core.kinds import ClaimContext, EventKind
from paohuzi.core.rules import Ruleset
from paohuzi.game.actions import Action
from paohuzi.game.engine import Hand, HandResult, Phase

__all__ = ["TAIL_KEYS", "Observation", "ViewError", "meld_view", "observe", "seat_json", "seat_key",
           "seat_tail", "seat_view", "view_head", "view_json", "view_tail"]


@dataclass(frozen=True, slots=True)
class Observation:
    """One seat's observation of a hand. Hidden groups are ``None`` in ``melds``.

    Attributes:
        seat: the observer (``None`` for a spectator).
        hand: the observer's hand as a 20-entry count vector (empty for a spectator).
        melds: per seat, its table groups; another seat's 偎 is ``None``.
        piles: per seat, the cards in its discard pile.
        hand_sizes: per seat, how many cards it holds in hand.
        chou: the observer's 臭 cards.
        declined_peng: cards whose 碰 the observer declined (a later 偎 is 臭偎).
        chouhu: the observer's 臭胡 marks, ``(card, 当前得息数 when passed)``.
        claim: ``(card, seat, context)`` when the observer must decide on a card ``seat``
            showed (:class:`~paohuzi.core.kinds.ClaimContext`).
        in_play: the shown card nobody owns yet, if any.
        legal: the observer's legal actions now.
        events: the events as the observer may see them (JSON-ready dicts).
        liangzhang: the 亮张; ``None`` where the rules keep the dealer's 21st card
            hidden (``luzhou``, §9.1).
        dipai: the wall's last card, shown to every seat (``luzhou`` 底牌, §9.1).
    """

    seat: int | None
    rules: Ruleset
    players: int
    dealer: int
    liangzhang: Card | None
    wall: int
    phase: str
    turn: int | None
    hand: tuple[int, ...]
    melds: tuple[tuple[Group | None, ...], ...]
    piles: tuple[tuple[Card, ...], ...]
    hand_sizes: tuple[int, ...]
    xianggong: tuple[bool, ...]
    chou: frozenset[int]
    declined_peng: frozenset[int]
    chouhu: tuple[tuple[int, int], ...]
    claim: tuple[Card, int, ClaimContext] | None
    in_play: Card | None
    legal: tuple[Action, ...]
    events: tuple[dict[str, Any], ...]
    result: HandResult | None
    revealed_hands: tuple[tuple[Card, ...], ...] | None  # every hand, once the hand is over
    dipai: Card | None = None

    def table_huxi(self, seat: int) -> int:
        """A seat's table 胡息 as far as the observer can tell (another's 偎 unknown)."""
        return sum(m.huxi for m in self.melds[seat] if m is not None)

    def discards(self, seat: int) -> list[Card]:
        """The cards ``seat`` discarded this hand (public)."""
        return [ALL_CARDS[c] for e in self.events if e["kind"] == EventKind.DISCARD
                and e.get("seat") == seat for c in _cards_of(e)]

    def visible_counts(self) -> list[int]:
        """How many copies of each card the observer can see (own hand included)."""
        counts = list(self.hand) if self.hand else [0] * KINDS
        for melds in self.melds:
            for m in melds:
                if m is not None:
                    for c in m.cards:
                        counts[c] += 1
        for pile in self.piles:
            for c in pile:
                counts[c] += 1
        if self.in_play is not None:
            counts[self.in_play] += 1
        return counts

    def unseen_counts(self) -> list[int]:
        """Copies of each card the observer cannot see (others' hands, 偎, the wall)."""
        return [COPIES - n for n in self.visible_counts()]


def _cards_of(event: dict[str, Any]) -> list[int]:
    from paohuzi.core.cards import parse_cards

    return [int(c) for c in parse_cards(event.get("cards", ""))]


def meld_view(meld: Group | None) -> dict[str, Any]:
    """A table group as JSON: a hidden 偎 is three face-down cards."""
    if meld is None:
        return {"kind": GroupKind.WEI.value, "hidden": 3}
    return {"kind": meld.kind.value, "cards": format_cards(meld.cards), "huxi": meld.huxi}


def observe(hand: Hand, seat: int | None, *, events: bool = True,
            public: Observation | None = None) -> Observation:
    """The observation of ``hand`` for ``seat`` (``None``: a spectator).

    ``events=False`` leaves the event list out (cheaper, for players that don't read it).
    ``public``: the spectator's observation of the same hand at the same moment
    (``observe(hand, None, events=False)``), whose public part is reused instead of
    built again: one public part per moment serves every seat (the server's views).

    >>> from paohuzi.core.rules import Ruleset
    >>> hand = Hand.from_seed(3, Ruleset())
    >>> spectator = observe(hand, None, events=False)
    >>> observe(hand, 1, events=False, public=spectator) == observe(hand, 1, events=False)
    True
    >>> observe(hand, 1, public=observe(hand, 0))
    Traceback (most recent call last):
    ...
    paohuzi.game.view.ViewError: public must be a spectator's observation (seat None), not seat 0's
    """
    if public is not None and public.seat is not None:
        raise ViewError("public must be a spectator's observation (seat None), "
                        f"not seat {public.seat}'s")
    if public is None:
        public = _observe_public(hand)
    if seat is None:
        return public if not events else _with(public, events=_events(hand, None))
    st = hand.seats[seat]
    legal = tuple(hand.legal_actions(seat))
    claim = hand.claim
    claim_seen = None
    phase = public.phase
    if claim is not None and legal and hand.phase is Phase.CLAIM:
        # Only a seat asked to decide learns that a decision is open (who else may
        # act on a card would tell what they hold).
        claim_seen = (claim.card, claim.seat, claim.context)
        phase = hand.phase.value
    melds = public.melds
    if public.revealed_hands is None and any(m.kind is GroupKind.WEI for m in st.melds):
        melds = tuple(tuple(st.melds) if s == seat else seen
                      for s, seen in enumerate(public.melds))  # his own 偎, face up
    return Observation(
        seat=seat, rules=public.rules, players=public.players, dealer=public.dealer,
        liangzhang=public.liangzhang, wall=public.wall, phase=phase, turn=public.turn,
        hand=tuple(st.hand), melds=melds, piles=public.piles, hand_sizes=public.hand_sizes,
        xianggong=public.xianggong, chou=frozenset(st.chou),
        declined_peng=frozenset(st.declined_peng), chouhu=tuple(sorted(st.chouhu.items())),
        claim=claim_seen, in_play=public.in_play, legal=legal,
        events=_events(hand, seat) if events else (), result=public.result,
        revealed_hands=public.revealed_hands, dipai=public.dipai)


class ViewError(PaohuziError):
    """An observation asked for with arguments that do not fit together."""


def _events(hand: Hand, seat: int | None) -> tuple[dict[str, Any], ...]:
    return tuple(e.visible_to(seat) for e in hand.events)


def _with(obs: Observation, **changed: Any) -> Observation:
    return replace(obs, **changed)


def _observe_public(hand: Hand) -> Observation:
    """What every seat sees (a spectator's observation, without events)."""
    # Once the hand is over every hand and every 偎 is shown (the settlement and the
    # replay show them all face up); while it is played, nobody else's.
    revealed = None
    if hand.result is not None:
        revealed = tuple(tuple(st.hand_cards) for st in hand.seats)
    return Observation(
        seat=None,
        rules=hand.rules,
        players=hand.players,
        dealer=hand.dealer,
        liangzhang=hand.liangzhang if hand.rules.liangzhang_shown else None,
        wall=len(hand.wall),
        # A seat without a decision sees no "claim" phase: it would tell that someone
        # else holds an option on the card.
        phase=hand.phase.value if hand.phase is not Phase.CLAIM else "play",
        turn=hand.turn if hand.phase is Phase.DISCARD else None,
        hand=(),
        melds=tuple(tuple(st.melds) if revealed is not None
                    else tuple(None if m.kind is GroupKind.WEI else m for m in st.melds)
                    for st in hand.seats),
        piles=tuple(tuple(st.pile) for st in hand.seats),
        hand_sizes=tuple(sum(st.hand) for st in hand.seats),
        xianggong=tuple(st.xianggong for st in hand.seats),
        chou=frozenset(),
        declined_peng=frozenset(),
        chouhu=(),
        claim=None,
        in_play=hand.in_play,
        legal=(),
        events=(),
        result=hand.result,
        revealed_hands=revealed,
        dipai=hand.dipai,
    )


def seat_view(hand: Hand, seat: int | None) -> dict[str, Any]:
    """The JSON-ready view of ``hand`` for ``seat`` (``None``: a spectator)."""
    return view_json(observe(hand, seat))


def view_json(obs: Observation) -> dict[str, Any]:
    """An observation as JSON: :func:`view_head`, the ``seats`` (:func:`seat_json`), the
    ``events``, then :func:`view_tail`, in that order."""
    view = view_head(obs)
    view["seats"] = [seat_json(obs, s) for s in range(obs.players)]
    view["events"] = list(obs.events)
    view.update(view_tail(obs))
    return view


def view_head(obs: Observation) -> dict[str, Any]:
    """The members of :func:`view_json` before ``seats``."""
    return {
        "seat": obs.seat,
        "players": obs.players,
        "dealer": obs.dealer,
        "rules": obs.rules.name,
        "liangzhang": None if obs.liangzhang is None else obs.liangzhang.text,
        "wall": obs.wall,
        "phase": obs.phase,
        "turn": obs.turn,
    }


def seat_key(obs: Observation, seat: int) -> tuple[Any, ...]:
    """Everything :func:`seat_json` reads of ``seat``: equal keys, equal entries (a key
    for callers' caches)."""
    return (obs.melds[seat], obs.piles[seat], obs.hand_sizes[seat], obs.xianggong[seat])


def seat_json(obs: Observation, seat: int) -> dict[str, Any]:
    """One seat's entry of :func:`view_json`'s ``seats``, as the observer sees it (a pure
    function of :func:`seat_key`)."""
    return {
        "melds": [meld_view(m) for m in obs.melds[seat]],
        "pile": format_cards(obs.piles[seat]),
        "hand_count": obs.hand_sizes[seat],
        "table_huxi": obs.table_huxi(seat),
        "xianggong": obs.xianggong[seat],
    }


TAIL_KEYS = ("labels", "claim", "in_play", "dipai", "hand", "chou", "legal_actions", "to_act",
             "result", "revealed_hands")
"""The members :func:`view_tail` may give, in their order."""


def view_tail(obs: Observation) -> dict[str, Any]:
    """The members of :func:`view_json` after ``events`` (:data:`TAIL_KEYS`, in that
    order): the public ones and the observer's own (:func:`seat_tail`)."""
    view: dict[str, Any] = {}
    labels = obs.rules.huxi.labels
    if labels != LABELS:  # the region's group names (luzhou: 提 垅, 跑 招, 句 列), display only
        view["labels"] = {kind.value: label for kind, label in labels.items()}
    own = seat_tail(obs)
    if "claim" in own:
        view["claim"] = own.pop("claim")
    if obs.in_play is not None:
        view["in_play"] = obs.in_play.text
    if obs.dipai is not None:
        view["dipai"] = obs.dipai.text
    view.update(own)
    if obs.result is not None:
        view["result"] = obs.result.to_json()
        if obs.revealed_hands is not None:
            view["revealed_hands"] = [format_cards(h) for h in obs.revealed_hands]
    return view


def seat_tail(obs: Observation) -> dict[str, Any]:
    """The members of :func:`view_tail` that only the observing seat has (none for a
    spectator): the claim it must decide on, its hand, 臭 cards and legal actions.

    >>> from paohuzi.core.rules import Ruleset
    >>> hand = Hand.from_seed(3, Ruleset())
    >>> list(seat_tail(observe(hand, 0))), seat_tail(observe(hand, None))
    (['hand', 'chou', 'legal_actions', 'to_act'], {})
    """
    view: dict[str, Any] = {}
    if obs.claim is not None:
        card, seat, context = obs.claim  # "source": the protocol's name for the seat
        view["claim"] = {"card": card.text, "source": seat, "context": context.value}
    if obs.seat is not None:
        view["hand"] = format_counts(obs.hand)
        view["chou"] = format_cards(sorted(obs.chou))
        view["legal_actions"] = [a.text for a in obs.legal]
        view["to_act"] = bool(obs.legal)
    return view
