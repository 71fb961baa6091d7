"""Fair shuffles both ways: the server's committed secret mixed with every seat's value.

Before a hand the server draws a secret and a salt and publishes the commitment
``SHA-256("{secret}:{salt}")``; then each seated person may send a random value
(lowercase hex, at most :data:`MAX_VALUE_HEX` digits). The hand's digest is

    SHA-256("paohuzi-shuffle-v1:{secret}:{v0}:{v1}:...")   (values in match-seat order,
                                                             "" for a seat that sent none)

the hand's seed is its first 15 hex digits, and the first dealer of a match is its last
8 hex digits modulo the number of seats. After the hand the record reveals secret, salt
and values, so anyone can recompute all three. The server cannot pick the seed (it is
bound to its secret before it sees the values), and no player can (the secret is hidden
until the hand is over).

>>> s = Shuffle("ab" * 32, "00" * 16, ("", "c0ffee", ""))
>>> s.commitment == commitment("ab" * 32, "00" * 16)
True
>>> s.seed == int(s.digest[:15], 16) and 0 <= s.dealer_of(3) < 3
True
>>> Shuffle("ab" * 32, "00" * 16, ("", "c0ffef", "")).seed != s.seed
True
>>> parse_value("C0FFEE")
Traceback (most recent call last):
...
paohuzi.server.fairness.EntropyError: 'value' must be 1..64 lowercase hex digits
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from typing import Any

from paohuzi.core.errors import PaohuziError

__all__ = ["MAX_VALUE_HEX", "EntropyError", "LegacyShuffle", "Shuffle", "commitment",
           "new_secret", "parse_value"]

MAX_VALUE_HEX = 64
"""Longest client value accepted (hex digits: 256 bits)."""
_HEX = re.compile(rf"[0-9a-f]{{1,{MAX_VALUE_HEX}}}")
FORMULA = ('digest = SHA-256("paohuzi-shuffle-v1:" + secret + ":" + values.join(":")); '
           "seed = the digest's first 15 hex digits; first dealer = its last 8 hex digits "
           "mod seats; commitment = SHA-256(secret + \":\" + salt)")
"""The formulas in words, as the replay page shows them."""


class EntropyError(PaohuziError):
    """A client's random value is malformed, late or sent twice."""


def commitment(secret: int | str, salt: str) -> str:
    """SHA-256 of ``"{secret}:{salt}"``: published before a hand, opened after it."""
    return hashlib.sha256(f"{secret}:{salt}".encode()).hexdigest()


def new_secret() -> tuple[str, str]:
    """A fresh server secret (256 bits) and salt (128 bits), hex, from :mod:`secrets`."""
    return secrets.token_hex(32), secrets.token_hex(16)


def parse_value(value: Any) -> str:
    """A client's value as sent: 1..64 lowercase hex digits, else :class:`EntropyError`."""
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        raise EntropyError(f"'value' must be 1..{MAX_VALUE_HEX} lowercase hex digits")
    return value


def digest_of(secret: str, values: tuple[str, ...]) -> str:
    """The hand's digest (see the module docstring)."""
    text = ":".join(("paohuzi-shuffle-v1", secret, *values))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Shuffle:
    """One hand's randomness: the server's secret and salt, the seats' values."""

    secret: str
    salt: str
    values: tuple[str, ...]

    @property
    def commitment(self) -> str:
        return commitment(self.secret, self.salt)

    @property
    def digest(self) -> str:
        return digest_of(self.secret, self.values)

    @property
    def seed(self) -> int:
        """The deal's seed: the digest's first 15 hex digits (60 bits)."""
        return int(self.digest[:15], 16)

    def dealer_of(self, seats: int) -> int:
        """The first dealer of a match dealt with this shuffle."""
        return int(self.digest[-8:], 16) % seats

    def revealed(self) -> dict[str, Any]:
        """Everything needed to check the hand, once it is over."""
        return {"commitment": self.commitment, "secret": self.secret, "salt": self.salt,
                "values": list(self.values), "digest": self.digest, "seed": self.seed}


@dataclass(frozen=True, slots=True)
class LegacyShuffle:
    """A hand of an older log: the server alone drew ``seed`` (kept so old logs replay)."""

    seed: int
    salt: str

    @property
    def commitment(self) -> str:
        return commitment(self.seed, self.salt)

    def revealed(self) -> dict[str, Any]:
        return {"commitment": self.commitment, "seed": self.seed, "salt": self.salt}
