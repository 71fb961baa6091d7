"""The decisions a player makes (docs/rules.md §4): small frozen values that round-trip to text.

Forced actions (提, 偎, 跑, the 天胡 of 3提/5坎) are done by the engine; a
player only ever discards, eats (吃, with the 比 completion he chooses),
pongs (碰), wins (胡) or passes.

>>> Action.from_text("discard 三")
Discard(card=Card('三'))
>>> Action.from_text("chi 二贰贰 比一二三 比二三四").text
'chi 二贰贰 比一二三 比二三四'
>>> Action.from_text("peng"), Action.from_text("hu"), Action.from_text("pass")
(Peng(), Hu(), Pass())
>>> Action.from_text("gang")
Traceback (most recent call last):
...
paohuzi.game.actions.ActionTextError: unknown action 'gang'; expected discard, chi, peng, hu or pass
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from paohuzi.core.cards import Card, parse_cards
from paohuzi.core.errors import PaohuziError
from paohuzi.core.groups import Group, GroupKind, is_jiao
from paohuzi.core.native import mypyc_attr

__all__ = ["Action", "ActionTextError", "Chi", "Discard", "Hu", "Pass", "Peng"]


class ActionTextError(PaohuziError):
    """Action text that does not parse."""


@mypyc_attr(native_class=False)
class Action:
    """Base of every decision; ``text`` and :meth:`from_text` round-trip."""

    verb: ClassVar[str]

    @property
    def text(self) -> str:
        return self.verb

    def __str__(self) -> str:
        return self.text

    @staticmethod
    def from_text(text: object) -> Action:
        """Parse ``discard X`` / ``chi ABC [比DEF ...]`` / ``peng`` / ``hu`` / ``pass``."""
        if not isinstance(text, str):
            raise ActionTextError(f"action must be text, got {type(text).__name__}")
        words = text.strip().split(None, 1)
        if not words:
            raise ActionTextError("empty action")
        verb, rest = words[0].lower(), (words[1] if len(words) > 1 else "")
        simple: dict[str, Action] = {"peng": Peng(), "hu": Hu(), "pass": Pass()}
        if verb in simple:
            if rest.strip():
                raise ActionTextError(f"'{verb}' takes no argument, got {rest.strip()!r}")
            return simple[verb]
        try:
            if verb == "discard":
                cards = parse_cards(rest)
                if len(cards) != 1:
                    raise ActionTextError(f"discard needs exactly one card, got {rest.strip()!r}")
                return Discard(cards[0])
            if verb == "chi":
                return Chi.from_groups_text(rest)
        except ActionTextError:
            raise
        except PaohuziError as exc:
            raise ActionTextError(f"{verb}: {exc}") from None
        raise ActionTextError(
            f"unknown action {verb!r}; expected discard, chi, peng, hu or pass")


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Discard(Action):
    """打牌: discard one hand card (not of a 坎)."""

    card: Card
    verb: ClassVar[str] = "discard"

    @property
    def text(self) -> str:
        return f"discard {self.card.text}"


def _chi_group(cards: list[Card]) -> Group:
    kind = GroupKind.JIAO if is_jiao(tuple(sorted(cards))) else GroupKind.SENTENCE
    return Group.make(kind, cards)


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Chi(Action):
    """吃 (chi, eat): the eating group and the 比 (bi) groups chosen, as laid on the table."""

    eat: Group
    bi: tuple[Group, ...] = ()
    verb: ClassVar[str] = "chi"
    _text: str = field(init=False, repr=False, compare=False)
    """:attr:`text`, worked out once (the engine records it with every 吃)."""

    def __post_init__(self) -> None:
        text = " ".join(["chi " + self.eat.text] + ["比" + g.text for g in self.bi])
        object.__setattr__(self, "_text", text)

    @classmethod
    def from_groups_text(cls, text: str) -> Chi:
        parts = text.replace("比", " 比").split()
        if not parts or parts[0].startswith("比"):
            raise ActionTextError("chi needs its eating group first, e.g. 'chi 一二三 比一壹壹'")
        eat = _chi_group(parse_cards(parts[0]))
        bi = []
        for part in parts[1:]:
            if not part.startswith("比"):
                raise ActionTextError(f"chi: expected a 比 group, got {part!r}")
            bi.append(_chi_group(parse_cards(part[1:])))
        return cls(eat, tuple(sorted(bi, key=lambda g: g.cards)))

    @property
    def text(self) -> str:
        """``chi`` and the eating group, then each 比 group (``chi 二贰贰 比一二三``)."""
        return self._text


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Peng(Action):
    """碰 (peng): take the shown card onto a hand pair."""

    verb: ClassVar[str] = "peng"


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Hu(Action):
    """胡 (hu): win on the card."""

    verb: ClassVar[str] = "hu"


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Pass(Action):
    """过 (pass): take no option on the card (it may become 臭 for you, §4.5)."""

    verb: ClassVar[str] = "pass"
