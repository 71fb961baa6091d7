"""Settlement (积分计算, RULES.md §7 and §9): 底, 番, points and beans of a won hand.

>>> from paohuzi.cards import parse_cards, Card
>>> from paohuzi.rules import Ruleset
>>> from paohuzi.solver import solve
>>> hand = parse_cards("一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖")
>>> win = solve(hand, [], Card.parse("拾"), "other")
>>> s = settle(win, WinContext(), Ruleset())
>>> s.di, s.fan, [m.name for m in s.mingtang], s.loser_points, s.winner_points
(2, 3, ['假点胡'], -18, 36)
"""

from __future__ import annotations

from dataclasses import dataclass

from paohuzi.mingtang import TABLES, Mingtang, facts_of
from paohuzi.rules import Ruleset
from paohuzi.solver import Arrangement

__all__ = [
    "Settlement",
    "WinContext",
    "escape_penalty",
    "settle",
    "split_escape_penalty",
]


@dataclass(frozen=True, slots=True)
class WinContext:
    """How the hand was won, beyond its arrangement.

    Attributes:
        zimo: 自摸 — the winner drew the winning card himself (偎胡/提胡
            included; every 天胡 of the dealer and every mandatory 天胡, §6.4).
        haidi: 海底 — the winning card was the wall's last (§6.3).
        tianhu: 天胡 — a mandatory 3提/5坎 win or a win on the 亮张 (§6.4).
    """

    zimo: bool = False
    haidi: bool = False
    tianhu: bool = False


@dataclass(frozen=True, slots=True)
class Settlement:
    """The settlement of a won hand.

    ``di`` is the scheme's base count (qq 底数 x, changde 等, hunan 囤) with
    自摸 and 天胡 applied; ``fan`` the 番 / multiplier (1 for 平胡, 海底
    included); ``loser_points`` what each loser pays (negative),
    ``winner_points`` what the winner gets, ``xingjia_points`` what each loser
    pays the 醒家 (hunan's 4th seat; 0 without one). Beans are points × the
    room's multiplier.
    """

    huxi: int
    di: int
    fan: int
    mingtang: tuple[Mingtang, ...]
    zimo: bool
    haidi: bool
    tianhu: bool
    loser_points: int
    winner_points: int
    xingjia_points: int
    multiplier: int

    @property
    def loser_beans(self) -> int:
        return self.loser_points * self.multiplier

    @property
    def winner_beans(self) -> int:
        return self.winner_points * self.multiplier


def settle(win: Arrangement, ctx: WinContext, rules: Ruleset) -> Settlement:
    """Settle a won hand under ``rules`` (its scheme, base score and multiplier)."""
    h = win.huxi
    table = TABLES[rules.settlement]
    mingtang = tuple(table.find(facts_of(win.cards, win.all_identical)))
    fan = table.fan(mingtang, haidi=ctx.haidi)
    if rules.settlement == "qq":
        # §7.1: x = (h - 12) // 3; 天胡 doubles the 胡息; 自摸 adds 1.
        di = ((2 * h if ctx.tianhu else h) - 12) // 3
    elif rules.settlement == "changde":
        # §9: 等 = 1 + (h - 15) // 3.
        di = 1 + (h - 15) // 3
    else:
        # §9 hunan: 囤 = 1 + (h - 15) // 3 with 自摸's 胡息 added.
        di = 1 + (h + (rules.zimo_huxi if ctx.zimo else 0) - 15) // 3
    if ctx.zimo:
        di += rules.zimo_di
    each = di * fan * rules.base
    losers = rules.players - 1
    return Settlement(
        huxi=h,
        di=di,
        fan=fan,
        mingtang=mingtang,
        zimo=ctx.zimo,
        haidi=ctx.haidi,
        tianhu=ctx.tianhu,
        loser_points=-each,
        winner_points=each * losers,
        xingjia_points=rules.base if rules.xingjia else 0,
        multiplier=rules.multiplier,
    )


def escape_penalty(others_huxi: int, rules: Ruleset) -> int:
    """What a player who leaves mid-hand (逃跑) pays, §7.4: ``(max(0, (H-12)//3) + 8) · d``.

    ``others_huxi`` is H: over the other players, their table 胡息 plus the best
    胡息 their hands can make (:func:`paohuzi.solver.best_partial_huxi`).

    >>> from paohuzi.rules import Ruleset
    >>> escape_penalty(30, Ruleset()), escape_penalty(5, Ruleset())
    (42, 24)
    """
    return (max(0, (others_huxi - 12) // 3) + rules.escape_bonus) * rules.base


def split_escape_penalty(penalty: int, receivers: int) -> list[int]:
    """Split the escape penalty among the others in turn order; the first take odd points.

    >>> split_escape_penalty(25, 2)
    [13, 12]
    """
    share, odd = divmod(penalty, receivers)
    return [share + (1 if i < odd else 0) for i in range(receivers)]
