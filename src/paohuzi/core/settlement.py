"""Settlement (积分计算, docs/rules.md §6.3, §6.4, §7 and §9): what an ended hand pays.

:func:`win_context` says how a hand was won (自摸, 海底, 天胡); :func:`settle` gives a
won hand's 底, 番 and 名堂; :func:`payout` gives every seat's points, the 醒家's
share and their beans for a win, a drawn hand (荒庄) or an escape (逃跑). Beans are
worked out here only (:func:`beans_of`).

>>> from paohuzi.core.cards import parse_cards, Card
>>> from paohuzi.core.rules import Ruleset
>>> from paohuzi.core.solver import solve
>>> from paohuzi.core.kinds import Source
>>> hand = parse_cards("一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖")
>>> win = solve(hand, [], Card.parse("拾"), Source.OTHER)
>>> s = settle(win, WinContext(), Ruleset())
>>> s.di, s.fan, [m.name for m in s.mingtang], s.loser_points, s.winner_points
(2, 3, ['假点胡'], -18, 36)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from paohuzi.core.errors import PaohuziError
from paohuzi.core.kinds import Source
from paohuzi.core.mingtang import Mingtang, facts_of, table_of
from paohuzi.core.rules import Ruleset
from paohuzi.core.solver import Arrangement

__all__ = [
    "WIN_SOURCES",
    "Huangzhuang",
    "Outcome",
    "Payout",
    "Settlement",
    "SettlementError",
    "Taopao",
    "WinContext",
    "Won",
    "beans_of",
    "di_of",
    "escape_penalty",
    "fan_factor",
    "payout",
    "settle",
    "split_escape_penalty",
    "win_context",
    "xingjia_unit",
]


class SettlementError(PaohuziError):
    """A hand outcome that cannot be settled: an unknown win source or a seat out of range."""


WIN_SOURCES: tuple[Source, ...] = tuple(Source)
"""Where a winning card came from (:class:`~paohuzi.core.kinds.Source`): the winner's own draw
(偎胡/提胡 included), another seat's shown draw, the 亮张 (§3.4), or none at all (a
mandatory 天胡, §6.4)."""


@dataclass(frozen=True, slots=True)
class WinContext:
    """How the hand was won, beyond its arrangement.

    Attributes:
        zimo: 自摸 — the winner drew the winning card himself (偎胡/提胡
            included; every 天胡 of the dealer and every mandatory 天胡, §6.4).
        haidi: 海底 — the winning card was the wall's last (§6.3).
        tianhu: 天胡 — a mandatory 3提/5坎 win or a win on the 亮张 (§6.4); under
            ``luzhou`` also the dealer's win with his 21 cards (§9.1).
        dihu: 地胡 — ``luzhou`` (§9.1): the dealer's 下家 won on the dealer's first
            discard.
    """

    zimo: bool = False
    haidi: bool = False
    tianhu: bool = False
    dihu: bool = False


def win_context(source: Source, *, dealer: bool = False, last: bool = False,
                dihu: bool = False) -> WinContext:
    """How a hand won from ``source`` (one of :data:`WIN_SOURCES`) counts (§6.3, §6.4).

    ``dealer``: the winner is the dealer; ``last``: the winning card was the wall's last.
    自摸 is a win on one's own draw, every 天胡 of the dealer and every mandatory 天胡
    (§6.4 [decision]); a mandatory 天胡 has no winning card, so no 海底.

    >>> win_context(Source.SELF, last=True)
    WinContext(zimo=True, haidi=True, tianhu=False, dihu=False)
    >>> win_context(Source.LIANGZHANG, dealer=False)
    WinContext(zimo=False, haidi=False, tianhu=True, dihu=False)
    >>> win_context(Source.LIANGZHANG, dealer=True) == WinContext(zimo=True, tianhu=True)
    True
    >>> win_context(Source.TIANHU, last=True)
    WinContext(zimo=True, haidi=False, tianhu=True, dihu=False)
    >>> win_context(Source.DISCARD)  # 泸州: another's discard (§9.1)
    WinContext(zimo=False, haidi=False, tianhu=False, dihu=False)
    >>> win_context("wall")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    paohuzi.core.settlement.SettlementError: unknown win source 'wall'; expected one of ...
    """
    if source == Source.TIANHU:
        return WinContext(zimo=True, tianhu=True)
    if source not in WIN_SOURCES:
        raise SettlementError(f"unknown win source {source!r}; expected one of "
                              f"{', '.join(WIN_SOURCES)}")
    tianhu = source == Source.LIANGZHANG
    return WinContext(zimo=source == Source.SELF or (tianhu and dealer), haidi=last,
                      tianhu=tianhu, dihu=dihu)


def beans_of(points: int, rules: Ruleset) -> int:
    """Beans (欢乐豆) for ``points``: points × the room's multiplier (§7.5).

    >>> beans_of(-18, Ruleset(multiplier=5))
    -90
    """
    return _beans(points, rules.multiplier)


def _beans(points: int, multiplier: int) -> int:
    """§7.5: the one place points become beans."""
    return points * multiplier


def xingjia_unit(rules: Ruleset) -> int:
    """What one payer gives the 醒家 (§9 hunan, rules-notes N12): one base score ``d``;
    0 without a 醒家 or when the seat sitting out is not paid (``luzhou`` 坐底, §9.1)."""
    return rules.base if rules.xingjia and rules.xingjia_paid else 0


@dataclass(frozen=True, slots=True)
class Settlement:
    """The settlement of a won hand.

    ``di`` is the scheme's base count (qq 底数 x, changde and luzhou 等, hunan 囤) with
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
    dihu: bool = False
    fan_times: int = 1
    """What the 天胡/地胡 multiplied the 番 by (:func:`fan_factor`; 1 without)."""

    @property
    def loser_beans(self) -> int:
        return _beans(self.loser_points, self.multiplier)

    @property
    def winner_beans(self) -> int:
        return _beans(self.winner_points, self.multiplier)


def di_of(huxi: int, rules: Ruleset, *, zimo: bool = False, tianhu: bool = False) -> int:
    """The scheme's base count of a win with ``huxi`` 胡息 (qq 底数 x, changde and luzhou
    等, hunan 囤), 自摸 and (qq) 天胡 applied: what :func:`settle` multiplies by the 番
    and the base score.

    >>> from paohuzi.core.rules import Ruleset
    >>> [di_of(h, Ruleset()) for h in (15, 17, 18, 30)], di_of(15, Ruleset(), zimo=True)
    ([1, 1, 2, 6], 2)
    >>> di_of(15, Ruleset(), tianhu=True), di_of(29, Ruleset.preset("luzhou"))
    (6, 2)

    A win below 15 胡息 (a room's ``min_huxi`` of 10–14, the project's own option) counts
    as one at 15: the formulas start there (rules-notes N62).

    >>> [di_of(h, Ruleset(min_huxi=10)) for h in (10, 12, 14, 15)]
    [1, 1, 1, 1]
    >>> di_of(10, Ruleset.preset("changde", min_huxi=10), zimo=True)
    2
    """
    if rules.settlement == "qq":
        # §7.1: x = (h - 12) // 3; 天胡 doubles the 胡息; 自摸 adds 1.
        di = ((2 * huxi if tianhu else huxi) - 12) // 3
    elif rules.settlement == "changde":
        # §9: 等 = 1 + (h - 15) // 3.
        di = 1 + (huxi - 15) // 3
    elif rules.settlement == "luzhou":
        # §9.1 [decision]: 1 等 at 10 胡息, 1 more per further 10 (天胡, 地胡: settle).
        di = 1 + max(0, huxi - 10) // 10
    else:
        # §9 hunan: 囤 = 1 + (h - 15) // 3 with 自摸's 胡息 added.
        di = 1 + (huxi + (rules.zimo_huxi if zimo else 0) - 15) // 3
    # N62: the formulas start at 15 胡息; a win allowed below (min_huxi 10–14) counts 1
    return max(1, di) + (rules.zimo_di if zimo else 0)


def fan_factor(rules: Ruleset, *, tianhu: bool = False, dihu: bool = False) -> int:
    """What a 天胡 or a 地胡 multiplies the 番 by: 2 each under ``luzhou`` (§9.1,
    rules-notes N60); 1 elsewhere (``qq``'s 天胡 doubles the 胡息 instead: :func:`di_of`).

    >>> from paohuzi.core.rules import Ruleset
    >>> fan_factor(Ruleset.preset("luzhou"), tianhu=True, dihu=True)
    4
    >>> fan_factor(Ruleset(), tianhu=True)
    1
    """
    if rules.settlement != "luzhou":
        return 1
    return (2 if tianhu else 1) * (2 if dihu else 1)


def settle(win: Arrangement, ctx: WinContext, rules: Ruleset) -> Settlement:
    """Settle a won hand under ``rules`` (its scheme, base score and multiplier)."""
    h = win.huxi
    table = table_of(rules)
    mingtang = tuple(table.find(facts_of(win.cards, win.all_identical)))
    fan = table.fan(mingtang, haidi=ctx.haidi)
    di = di_of(h, rules, zimo=ctx.zimo, tianhu=ctx.tianhu)
    fan *= fan_factor(rules, tianhu=ctx.tianhu, dihu=ctx.dihu)
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
        xingjia_points=xingjia_unit(rules),
        multiplier=rules.multiplier,
        dihu=ctx.dihu,
        fan_times=fan_factor(rules, tianhu=ctx.tianhu, dihu=ctx.dihu),
    )


def escape_penalty(others_huxi: int, rules: Ruleset) -> int:
    """What a player who leaves mid-hand (逃跑) pays, §7.4: ``(max(0, (H-12)//3) + 8) · d``.

    ``others_huxi`` is H: over the other players, their table 胡息 plus the best
    胡息 their hands can make (:func:`paohuzi.core.solver.best_partial_huxi`).

    >>> from paohuzi.core.rules import Ruleset
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


# ---- the payout of an ended hand ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Won:
    """A won hand: hand seat ``winner`` and the :func:`settle` of his arrangement."""

    winner: int
    settlement: Settlement


@dataclass(frozen=True, slots=True)
class Huangzhuang:
    """A drawn hand (荒庄, §4.6) dealt by hand seat ``dealer``."""

    dealer: int


@dataclass(frozen=True, slots=True)
class Taopao:
    """逃跑 (§7.4): hand seat ``leaver`` left mid-hand; ``others_huxi`` is H, the table
    胡息 plus the best hand 胡息 of the other seats."""

    leaver: int
    others_huxi: int


Outcome: TypeAlias = Won | Huangzhuang | Taopao
"""How a hand ended, as far as paying goes."""


@dataclass(frozen=True, slots=True)
class Payout:
    """What an ended hand pays, by hand seat.

    ``points[i]`` is what seat ``i`` wins (negative: pays), the 醒家 units included;
    ``xingjia_points`` what the 醒家 (hunan's 4th seat, who sits the hand out) gets
    in all. Everything adds up to zero. Beans are points × the room's multiplier.
    """

    points: tuple[int, ...]
    xingjia_points: int
    multiplier: int
    dihu: bool = False

    @property
    def beans(self) -> tuple[int, ...]:
        return tuple(_beans(p, self.multiplier) for p in self.points)

    @property
    def xingjia_beans(self) -> int:
        return _beans(self.xingjia_points, self.multiplier)


def payout(outcome: Outcome, rules: Ruleset) -> Payout:
    """Points per seat, the 醒家's share and beans of an ended hand (§7.3–§7.5, §9).

    * A win: each loser pays the settlement's ``loser_points`` and, with a 醒家,
      one unit ``d`` to him; the winner gets ``winner_points``.
    * A drawn hand pays nothing, except that the dealer pays the 醒家 ``d``
      (rules-notes N12).
    * An escape: the leaver pays :func:`escape_penalty`, shared by the others in
      turn order from his 下家 (:func:`split_escape_penalty`); the 醒家 gets nothing.

    >>> hunan = Ruleset.preset("hunan", xingjia=True, multiplier=2)
    >>> p = payout(Huangzhuang(dealer=1), hunan)
    >>> p.points, p.xingjia_points, p.beans, p.xingjia_beans
    ((0, -3, 0), 3, (0, -6, 0), 6)
    >>> payout(Taopao(leaver=1, others_huxi=30), Ruleset()).points
    (21, -42, 21)
    >>> payout(Huangzhuang(dealer=3), Ruleset())
    Traceback (most recent call last):
    ...
    paohuzi.core.settlement.SettlementError: dealer: there is no seat 3 (3 players)
    """
    players = rules.players
    points = [0] * players
    xingjia = 0
    if isinstance(outcome, Won):
        _check_seat(outcome.winner, "winner", players)
        s = outcome.settlement
        points = [s.loser_points - s.xingjia_points] * players
        points[outcome.winner] = s.winner_points
        xingjia = s.xingjia_points * (players - 1)
    elif isinstance(outcome, Huangzhuang):
        _check_seat(outcome.dealer, "dealer", players)
        xingjia = xingjia_unit(rules)
        points[outcome.dealer] = -xingjia
    else:
        _check_seat(outcome.leaver, "leaver", players)
        penalty = escape_penalty(outcome.others_huxi, rules)
        others = [(outcome.leaver + i) % players for i in range(1, players)]
        points[outcome.leaver] = -penalty
        for seat, share in zip(others, split_escape_penalty(penalty, len(others)), strict=True):
            points[seat] = share
    return Payout(tuple(points), xingjia, rules.multiplier)


def _check_seat(seat: int, what: str, players: int) -> None:
    if not 0 <= seat < players:
        raise SettlementError(f"{what}: there is no seat {seat} ({players} players)")
