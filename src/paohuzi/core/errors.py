"""The exceptions of :mod:`paohuzi`.

Every error is a :class:`ValueError` subclass, so callers that only care about
"bad input" can catch :class:`ValueError`; callers that care about *what* was
wrong catch the precise class.
"""

from __future__ import annotations


class PaohuziError(ValueError):
    """Base class of every error this package raises on bad input.

    ``words``: the message in each language a player may read it in (``{"en": ...,
    "zh": ...}``), where the server says it to a player (``paohuzi.server.refusals``);
    ``None``: the English message alone. ``code``: which refusal it is, where the server
    made it (a client may act on it: e.g. ``spectators_full``).
    """

    words: dict[str, str] | None = None
    code: str | None = None


class CardTextError(PaohuziError):
    """Card text that does not parse: names the offending character and its position."""

    def __init__(self, text: str, position: int, reason: str) -> None:
        self.text = text
        self.position = position
        self.reason = reason
        super().__init__(f"{reason} at position {position} in {text!r}")


class CardCountError(PaohuziError):
    """More copies of a card than the deck holds, or an impossible number of cards."""


class RulesetError(PaohuziError):
    """An unknown preset, an unknown option, or options that contradict each other."""


class OutOfBounds(RulesetError):
    """A numeric rule option outside its bounds (``field``, ``low``..``high``, ``value``).

    >>> str(OutOfBounds("min_huxi", 10, 30, 99))
    'min_huxi must be an integer 10..30, got 99'
    """

    def __init__(self, field: str, low: int, high: int, value: object,
                 message: str | None = None) -> None:
        self.field, self.low, self.high, self.value = field, low, high, value
        super().__init__(message or f"{field} must be an integer {low}..{high}, got {value!r}")


class NotAChoice(RulesetError):
    """A rule option given none of its choices (``field``, ``choices``, ``value``).

    >>> str(NotAChoice("huayang", ("basic", "half", "full"), "most"))
    "huayang must be one of basic, half, full, got 'most'"
    """

    def __init__(self, field: str, choices: tuple[str, ...], value: object) -> None:
        self.field, self.choices, self.value = field, choices, value
        super().__init__(f"{field} must be one of {', '.join(choices)}, got {value!r}")


class OptionConflict(RulesetError):
    """A rule option set where it does not apply: ``field`` applies only while the
    options of ``needs`` have those values.

    >>> exc = OptionConflict("huayang applies to changde only", "huayang",
    ...                      {"settlement": "changde"})
    >>> exc.field, exc.needs
    ('huayang', {'settlement': 'changde'})
    """

    def __init__(self, message: str, field: str, needs: dict[str, object]) -> None:
        self.field, self.needs = field, needs
        super().__init__(message)


class MeldError(PaohuziError):
    """A table group (meld) whose kind is unknown or whose cards do not form that kind."""
