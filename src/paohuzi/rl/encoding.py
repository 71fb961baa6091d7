"""One seat's :class:`~paohuzi.game.view.Observation` as a flat numeric vector.

The vector holds exactly what the observation holds (the engine's per-seat view: the
others' hands, their face-down 偎 and the wall are never in it), laid out for a table of
``slots`` seats (the ruleset's :attr:`~paohuzi.core.rules.Ruleset.seats`, the 醒家
included) seen from the observer: slot 0 is the observer, slot 1 his 下家, and so on.
Every entry is a small non-negative count or a 0/1 flag (``float32``).

The layout (docs/rl.md has the table): first the observer's own block ::

    hand[20] chou[20] declined_peng[20] chouhu[20] liangzhang[20] dipai[20] in_play[20]
    claim_card[20] claim_source[slots] claim_context[4] phase[4] turn[slots]
    dealer[slots] wall[1]

then for each slot ::

    sentences[20] triples[20] quads[20] pile[20] hidden_wei[1] table_huxi[1]
    hand_size[1] xianggong[1] xingjia[1]

>>> from paohuzi.core.rules import Ruleset
>>> from paohuzi.game.engine import Hand
>>> from paohuzi.game.view import observe
>>> layout = Layout(3)
>>> layout.size, layout.offsets["wall"], layout.slot_offset(1)
(433, 177, 263)
>>> vec = layout.encode(observe(Hand.from_seed(3, Ruleset()), 0, events=False), (0, 1, 2))
>>> int(vec[:20].sum()), vec.shape  # the dealer took the 亮张: 21 cards
(21, (433,))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from paohuzi.core.cards import COPIES, KINDS
from paohuzi.core.groups import Group, GroupKind
from paohuzi.core.kinds import ClaimContext
from paohuzi.game.view import Observation

__all__ = ["CONTEXTS", "PHASES", "Layout"]

PHASES: tuple[str, ...] = ("discard", "claim", "play", "ended")
"""The phases an observation shows (``play``: someone else decides on a card)."""
CONTEXTS: tuple[ClaimContext, ...] = tuple(ClaimContext)

_PENG, _WEI, _CHOUWEI = GroupKind.PENG, GroupKind.WEI, GroupKind.CHOUWEI
"""Kinds of a table group laid in ``triples``."""
_PAO, _TI = GroupKind.PAO, GroupKind.TI
"""Kinds of a table group laid in ``quads`` (the others: ``sentences``)."""
_PER_SLOT = ("sentences", "triples", "quads", "pile")
_SLOT_SCALARS = ("hidden_wei", "table_huxi", "hand_size", "xianggong", "xingjia")
_MAX_HUXI = 255
"""The largest entry a byte holds: more than any table scores (7 groups of at most 12 胡息)."""


class Layout:
    """Offsets and bounds of the observation vector for ``slots`` seats."""

    def __init__(self, slots: int) -> None:
        self.slots = slots
        sizes = [("hand", KINDS), ("chou", KINDS), ("declined_peng", KINDS),
                 ("chouhu", KINDS), ("liangzhang", KINDS), ("dipai", KINDS),
                 ("in_play", KINDS),
                 ("claim_card", KINDS), ("claim_source", slots), ("claim_context", len(CONTEXTS)),
                 ("phase", len(PHASES)), ("turn", slots), ("dealer", slots), ("wall", 1)]
        self.offsets: dict[str, int] = {}
        at = 0
        for name, size in sizes:
            self.offsets[name] = at
            at += size
        self.own_size = at
        self.slot_offsets: dict[str, int] = {}
        at = 0
        for name in _PER_SLOT:
            self.slot_offsets[name] = at
            at += KINDS
        for name in _SLOT_SCALARS:
            self.slot_offsets[name] = at
            at += 1
        self.slot_size = at
        self.size = self.own_size + slots * self.slot_size
        high = np.ones(self.size, dtype=np.float32)
        o = self.offsets
        high[o["hand"]: o["hand"] + KINDS] = COPIES
        high[o["wall"]] = 80
        for slot in range(slots):
            base = self.slot_offset(slot)
            for name in ("sentences", "pile"):
                start = base + self.slot_offsets[name]
                high[start: start + KINDS] = COPIES
            high[base + self.slot_offsets["hidden_wei"]] = 7
            high[base + self.slot_offsets["table_huxi"]] = _MAX_HUXI
            high[base + self.slot_offsets["hand_size"]] = 21
        self.high = high
        """The largest value of each entry (the low bound is 0)."""
        self._phase = {p: o["phase"] + i for i, p in enumerate(PHASES)}
        self._context = {c: o["claim_context"] + i for i, c in enumerate(CONTEXTS)}
        so = self.slot_offsets
        self._sentences, self._triples, self._quads, self._pile = (
            so["sentences"], so["triples"], so["quads"], so["pile"])
        self._hidden_wei, self._xingjia = so["hidden_wei"], so["xingjia"]
        self._blocks: dict[tuple[Any, ...], tuple[bytes, tuple[Group | None, ...]]] = {}

    def slot_offset(self, slot: int) -> int:
        """Where the block of ``slot`` starts (0: the observer)."""
        return self.own_size + slot * self.slot_size

    def encode(self, obs: Observation, slot_of_seat: Sequence[int],
               xingjia_slot: int | None = None) -> npt.NDArray[np.float32]:
        """The vector of ``obs``; ``slot_of_seat[s]``: the slot of hand seat ``s`` as
        seen by the observer, ``xingjia_slot``: the 醒家's slot, if any."""
        # Filled as bytes (every entry is 0..255), turned into floats once: a tenth of the
        # time of setting numpy items one by one.
        vec = bytearray(self.size)
        o = self.offsets
        if obs.seat is not None:
            at = o["hand"]
            vec[at: at + KINDS] = bytes(obs.hand)
            for c in obs.chou:
                vec[o["chou"] + c] = 1
            for c in obs.declined_peng:
                vec[o["declined_peng"] + c] = 1
            if obs.chouhu:
                own_huxi = obs.table_huxi(obs.seat)
                for c, huxi in obs.chouhu:
                    if huxi == own_huxi:  # 臭胡 bars a win on it while the table stays so
                        vec[o["chouhu"] + c] = 1
        if obs.liangzhang is not None:  # luzhou keeps the 21st card hidden (§9.1)
            vec[o["liangzhang"] + obs.liangzhang] = 1
        if obs.dipai is not None:  # luzhou's 底牌, shown to every seat
            vec[o["dipai"] + obs.dipai] = 1
        if obs.in_play is not None:
            vec[o["in_play"] + obs.in_play] = 1
        if obs.claim is not None:
            card, source, context = obs.claim
            vec[o["claim_card"] + card] = 1
            vec[o["claim_source"] + slot_of_seat[source]] = 1
            vec[self._context[context]] = 1
        vec[self._phase[obs.phase]] = 1
        if obs.turn is not None:
            vec[o["turn"] + slot_of_seat[obs.turn]] = 1
        vec[o["dealer"] + slot_of_seat[obs.dealer]] = 1
        vec[o["wall"]] = obs.wall
        for seat in range(obs.players):
            self._encode_seat(vec, obs, seat, self.slot_offset(slot_of_seat[seat]))
        if xingjia_slot is not None:
            vec[self.slot_offset(xingjia_slot) + self._xingjia] = 1
        return np.frombuffer(vec, dtype=np.uint8).astype(np.float32)

    def _encode_seat(self, vec: bytearray, obs: Observation, seat: int, base: int) -> None:
        melds, pile = obs.melds[seat], obs.piles[seat]
        # A seat's block changes only when its visible table, its pile, its hand size or
        # its 相公 flag does: reuse it. The cached melds keep their groups alive, so the
        # ids in the key cannot be taken by other groups meanwhile.
        key = (seat, tuple(map(id, melds)), len(pile), obs.hand_sizes[seat],
               obs.xianggong[seat])
        found = self._blocks.get(key)
        if found is None:
            if len(self._blocks) > 4096:
                self._blocks.clear()
            found = self._blocks[key] = (self._seat_block(obs, seat), melds)
        vec[base: base + self.slot_size] = found[0]

    def clear(self) -> None:
        """Forget the blocks reused within a hand (call it when a new hand starts)."""
        self._blocks.clear()

    def _seat_block(self, obs: Observation, seat: int) -> bytes:
        vec = bytearray(self.slot_size)
        sentences, triples, quads = self._sentences, self._triples, self._quads
        hidden = huxi = 0
        for meld in obs.melds[seat]:
            if meld is None:
                hidden += 1
                continue
            huxi += meld.huxi
            kind = meld.kind  # compared by identity: an Enum's hash is slow
            if kind is _PAO or kind is _TI:
                vec[quads + meld.cards[0]] = 1
            elif kind is _PENG or kind is _WEI or kind is _CHOUWEI:
                vec[triples + meld.cards[0]] = 1
            else:
                for c in meld.cards:
                    vec[sentences + c] += 1
        pile = self._pile
        for c in obs.piles[seat]:
            vec[pile + c] += 1
        at = self._hidden_wei  # hidden_wei, table_huxi, hand_size, xianggong
        vec[at: at + 4] = bytes((hidden, huxi, obs.hand_sizes[seat], obs.xianggong[seat]))
        return bytes(vec)
