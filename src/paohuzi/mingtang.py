"""名堂 (mingtang, scoring patterns), each a small registered class (RULES.md §7.2, §9).

A pattern looks at the facts of a won hand (how many red, big and small cards
the winner owns, whether every 门子 is of identical cards) and gives its 番
(fan) or 0. Each settlement scheme has its own list of patterns:

* ``qq`` (§7.2): the fans of every pattern that applies add up;
* ``changde`` (§9): its 花样 add up too, except that 乌胡 with 对对胡 is 10;
* ``hunan`` (§9): exactly one 名堂 applies — the largest multiplier among
  红胡, 点胡, 红乌, 对对胡, 乌胡 and their 对 combinations.

>>> facts = HandFacts(red=10, big=7, small=14, all_identical=False)
>>> [(m.name, m.fan) for m in find_mingtang("qq", facts)]
[('假点胡', 3)]
>>> [(m.name, m.fan) for m in find_mingtang("hunan", HandFacts(0, 9, 12, True))]
[('乌对', 10)]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

__all__ = ["REGISTRY", "HandFacts", "Mingtang", "Pattern", "facts_of", "find_mingtang"]


@dataclass(frozen=True, slots=True)
class HandFacts:
    """What the 名堂 look at: counts over every card the winner owns, winning card included."""

    red: int
    big: int
    small: int
    all_identical: bool
    """对对胡's condition: every 门子 of identical cards (坎/碰/偎/臭偎/跑/提/the pair)."""


def facts_of(cards: Sequence[int], all_identical: bool) -> HandFacts:
    """The facts of a set of cards (ints 0..19)."""
    red = sum(1 for c in cards if c % 10 in (1, 6, 9))
    big = sum(1 for c in cards if c >= 10)
    return HandFacts(red, big, len(cards) - big, all_identical)


@dataclass(frozen=True, slots=True)
class Mingtang:
    """A 名堂 found in a hand: its Chinese name and its 番."""

    name: str
    fan: int


class Pattern:
    """One 名堂: ``fan(facts)`` gives its 番 when it applies, else 0."""

    name: ClassVar[str]

    def fan(self, facts: HandFacts) -> int:
        raise NotImplementedError


REGISTRY: dict[str, list[Pattern]] = {"qq": [], "changde": []}
"""The patterns of each additive scheme, in display order."""


def register(*schemes: str) -> Callable[[type[Pattern]], type[Pattern]]:
    def add(cls: type[Pattern]) -> type[Pattern]:
        for scheme in schemes:
            REGISTRY[scheme].append(cls())
        return cls
    return add


# ---- qq (RULES.md §7.2) --------------------------------------------------------------

@register("qq")
class HongHu(Pattern):
    """红胡: 4, 7, 11 or 12 red cards (taken literally from the sources) — 2 番."""

    name = "红胡"

    def fan(self, facts: HandFacts) -> int:
        return 2 if facts.red in (4, 7, 11, 12) else 0


@register("qq")
class ZhenDianHu(Pattern):
    """真点胡: exactly one red card — 4 番."""

    name = "真点胡"

    def fan(self, facts: HandFacts) -> int:
        return 4 if facts.red == 1 else 0


@register("qq")
class JiaDianHu(Pattern):
    """假点胡: exactly ten red cards — 3 番."""

    name = "假点胡"

    def fan(self, facts: HandFacts) -> int:
        return 3 if facts.red == 10 else 0


@register("qq")
class HongWu(Pattern):
    """红乌: 13 or more red — 4 番, plus 1 per red card above 13."""

    name = "红乌"

    def fan(self, facts: HandFacts) -> int:
        return 4 + facts.red - 13 if facts.red >= 13 else 0


@register("qq")
class WuHu(Pattern):
    """乌胡: no red card — 5 番."""

    name = "乌胡"

    def fan(self, facts: HandFacts) -> int:
        return 5 if facts.red == 0 else 0


@register("qq")
class DuiDuiHu(Pattern):
    """对对胡: every 门子 of identical cards, no sentence, no 绞 — 5 番."""

    name = "对对胡"

    def fan(self, facts: HandFacts) -> int:
        return 5 if facts.all_identical else 0


@register("qq")
class DaZiHu(Pattern):
    """大字胡: 18 or more big cards — 6 番, plus 1 per big card above 18."""

    name = "大字胡"

    def fan(self, facts: HandFacts) -> int:
        return 6 + facts.big - 18 if facts.big >= 18 else 0


@register("qq")
class XiaoZiHu(Pattern):
    """小字胡: 16 or more small cards — 8 番, plus 1 per small card above 16."""

    name = "小字胡"

    def fan(self, facts: HandFacts) -> int:
        return 8 + facts.small - 16 if facts.small >= 16 else 0


# ---- changde 花样 (RULES.md §9) ------------------------------------------------------

@register("changde")
class ChangdeHongHu(Pattern):
    """红胡 (常德): 10 to 12 red — ×2."""

    name = "红胡"

    def fan(self, facts: HandFacts) -> int:
        return 2 if 10 <= facts.red <= 12 else 0


@register("changde")
class ChangdeDianHu(Pattern):
    """点胡 (常德): exactly one red — ×3."""

    name = "点胡"

    def fan(self, facts: HandFacts) -> int:
        return 3 if facts.red == 1 else 0


@register("changde")
class ChangdeHongWu(Pattern):
    """红乌 (常德): 13 or more red — ×4."""

    name = "红乌"

    def fan(self, facts: HandFacts) -> int:
        return 4 if facts.red >= 13 else 0


@register("changde")
class ChangdeWuHu(Pattern):
    """乌胡 (常德): no red — ×5 (with 对对胡 they make one 乌对 of 10)."""

    name = "乌胡"

    def fan(self, facts: HandFacts) -> int:
        return 5 if facts.red == 0 else 0


@register("changde")
class ChangdeDuiDuiHu(Pattern):
    """对对胡 (常德): every 门子 of identical cards — ×4."""

    name = "对对胡"

    def fan(self, facts: HandFacts) -> int:
        return 4 if facts.all_identical else 0


_CHANGDE_WU_DUI = 10
"""常德: 乌胡 and 对对胡 together count 10 (not 5 + 4)."""


# ---- hunan (RULES.md §9): exactly one 名堂 multiplies the 囤 ---------------------------

_HUNAN_TABLE: dict[tuple[str | None, bool], tuple[str, int]] = {
    ("红胡", False): ("红胡", 2),
    ("点胡", False): ("点胡", 3),
    ("红乌", False): ("红乌", 4),
    ("乌胡", False): ("乌胡", 5),
    (None, True): ("对对胡", 4),
    ("点胡", True): ("对对胡", 4),
    ("红胡", True): ("红对", 6),
    ("红乌", True): ("红乌对", 8),
    ("乌胡", True): ("乌对", 10),
}


def _hunan_red_class(red: int) -> str | None:
    if red == 0:
        return "乌胡"
    if red == 1:
        return "点胡"
    if 10 <= red <= 12:
        return "红胡"
    if red >= 13:
        return "红乌"
    return None


def find_mingtang(scheme: str, facts: HandFacts) -> list[Mingtang]:
    """The 名堂 that apply to a won hand under a settlement scheme (empty for 平胡)."""
    if scheme == "hunan":
        found = _HUNAN_TABLE.get((_hunan_red_class(facts.red), facts.all_identical))
        return [Mingtang(*found)] if found else []
    found_list = [Mingtang(p.name, f) for p in REGISTRY[scheme] if (f := p.fan(facts))]
    if scheme == "changde" and {m.name for m in found_list} >= {"乌胡", "对对胡"}:
        found_list = [m for m in found_list if m.name not in ("乌胡", "对对胡")]
        found_list.append(Mingtang("乌对", _CHANGDE_WU_DUI))
    return found_list
