"""Who held each seat of a hand, and from which addresses: what the players' lifetime
totals ask of a settled hand (:meth:`~paohuzi.server.server.Server.rate`) — seats played
from an address another seat of the hand was played from gain nothing, nor does a 醒家
no connection held while the hand was dealt.

What is noted is written to the table's log as it is noted (a ``seen`` entry), so that a
process that restores the room after a crash, or takes it over from a dead one, settles
a hand the dead process had dealt by the same rule. Addresses are never written as they
are: each is a digest (scrypt, n=1024: ~3 ms, 12 bytes) salted with a key of the room's,
itself in the log — the digests of one room compare with each other and with nothing
else. Someone holding the database can still test guesses, one room at a time, at ~3 ms
a guess: all of IPv4 takes months of CPU, one provider's /16 a few minutes. Each
address's digest is computed once per room (:attr:`Seen.digests`).

>>> seen = Seen(key=bytes(16))
>>> entry = seen.note(3, seat=1, address="10.0.0.7", present=True)
>>> entry["k"], entry["hand"], entry["seat"], entry["present"], len(entry["addr"])
('seen', 3, 1, True, 24)
>>> seen.note(3, seat=1, address="10.0.0.7", present=True) is None  # nothing new
True
>>> _ = seen.note(3, seat=2, address="10.0.0.7", present=False)
>>> sorted(seen.sharing(3)), sorted(seen.present[3])
([1, 2], [1])
>>> again = Seen()
>>> for e in [entry]: again.restore(e)
>>> again.key == seen.key and again.addresses == {3: {1: {entry["addr"]}}}
True
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

KEPT_HANDS = 2
"""How many hands before the latest noted one are kept (a hand is settled as it ends, or
soon after a crash: older ones are never asked about)."""


KEPT_DIGESTS = 64
"""How many addresses' digests a room keeps computed (a room sees a few addresses)."""


class Seen:
    """Per table hand: the match seats a connection held, not in 托管, while it was dealt
    (:attr:`present`), and the address digests each seat was played from
    (:attr:`addresses`)."""

    def __init__(self, key: bytes | None = None) -> None:
        self.key = key if key is not None else secrets.token_bytes(16)
        self.key_logged = False
        """Whether a log entry holds :attr:`key` (the first ``seen`` entry written does)."""
        self.addresses: dict[int, dict[int, set[str]]] = {}
        self.present: dict[int, set[int]] = {}
        self.digests: dict[str, str] = {}
        """Each address's digest, computed once (at most :data:`KEPT_DIGESTS`)."""

    def digest(self, address: str) -> str:
        """``address``'s digest under the room's key (hex)."""
        found = self.digests.get(address)
        if found is None:
            found = hashlib.scrypt(address.encode(), salt=self.key, n=1024, r=8, p=1,
                                   dklen=12).hex()
            if len(self.digests) >= KEPT_DIGESTS:
                self.digests.clear()
            self.digests[address] = found
        return found

    def note(self, hand_no: int, *, seat: int, address: str,
             present: bool) -> dict[str, Any] | None:
        """Note that ``seat`` was held in table hand ``hand_no`` from ``address`` (empty:
        unknown, not noted), ``present`` if it was held while the hand was dealt and not
        in 托管. The log entry recording what is new, or None if nothing is."""
        entry: dict[str, Any] = {"k": "seen", "hand": hand_no, "seat": seat}
        if present and seat not in self.present.get(hand_no, ()):
            self.present.setdefault(hand_no, set()).add(seat)
            entry["present"] = True
        if address:
            digest = self.digest(address)
            mine = self.addresses.setdefault(hand_no, {}).setdefault(seat, set())
            if digest not in mine:
                mine.add(digest)
                entry["addr"] = digest
        self.forget_before(hand_no - KEPT_HANDS)
        if len(entry) == 3:
            return None
        if not self.key_logged:
            entry["key"] = self.key.hex()
            self.key_logged = True
        return entry

    def restore(self, entry: dict[str, Any]) -> None:
        """Take a ``seen`` entry back from the log (a room restored). Raises
        ``ValueError``/``KeyError``/``TypeError`` on an entry that is not one."""
        if "key" in entry:
            self.key = bytes.fromhex(str(entry["key"]))
            self.key_logged = True
            self.digests.clear()
        hand_no, seat = int(entry["hand"]), int(entry["seat"])
        if entry.get("present") is True:
            self.present.setdefault(hand_no, set()).add(seat)
        if "addr" in entry:
            self.addresses.setdefault(hand_no, {}).setdefault(seat, set()).add(
                str(entry["addr"]))

    def forget_before(self, hand_no: int) -> None:
        """Drop what was noted of the hands before ``hand_no``."""
        for noted in (self.present, self.addresses):
            for old in [h for h in noted if h < hand_no]:
                del noted[old]

    def sharing(self, hand_no: int) -> set[int]:
        """The seats of ``hand_no`` played from an address another of its seats was
        played from too."""
        seats = self.addresses.get(hand_no, {})
        return {seat for seat, mine in seats.items()
                if any(mine & theirs for other, theirs in seats.items() if other != seat)}
