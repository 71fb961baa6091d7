"""Rulesets (docs/rules.md §9): one frozen, validated options object and its presets.

>>> Ruleset.preset("qq").min_huxi
15
>>> Ruleset.preset("two-player").players, Ruleset.preset("two-player").set_aside
(2, 20)
>>> Ruleset.preset("qq").replace(min_huxi=18).min_huxi
18
>>> Ruleset.preset("mahjong")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
paohuzi.core.errors.RulesetError: unknown preset 'mahjong'; presets: qq, changde, ..., luzhou
>>> lz = Ruleset.preset("luzhou")
>>> lz.seats, lz.players, lz.min_huxi, lz.huxi.name
(4, 3, 10, 'luzhou')
>>> Ruleset.preset("luzhou", players=3).seats, Ruleset.preset("luzhou", players=2).seats
(3, 2)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from paohuzi.core.errors import NotAChoice, OptionConflict, OutOfBounds, RulesetError
from paohuzi.core.groups import HUXI_TABLES, HuxiTable

__all__ = ["BOUNDS", "CHOICES", "HUAYANG_LEVELS", "LUZHOU_MODES", "NEEDS", "PRESETS", "Huayang",
           "LuzhouMode", "Ruleset", "SettlementScheme"]

SettlementScheme = Literal["qq", "changde", "hunan", "luzhou"]
_SCHEMES: tuple[str, ...] = ("qq", "changde", "hunan", "luzhou")
Huayang = Literal["basic", "half", "full"]
"""A ``changde`` 花样 level (§9): 基本花样, 半花样, 全花样."""
HUAYANG_LEVELS: tuple[str, ...] = ("basic", "half", "full")
LuzhouMode = Literal["deng", "hongwu"]
"""A ``luzhou`` scoring mode (§9.1): 等 only, or 等 with 红胡/乌胡 番."""
LUZHOU_MODES: tuple[str, ...] = ("deng", "hongwu")

BOUNDS: dict[str, tuple[int, int]] = {
    "players": (2, 3),
    "min_huxi": (10, 30),
    "set_aside": (0, 80),
    "zimo_huxi": (0, 15),
    "zimo_di": (0, 10),
    "base": (1, 10_000),
    "multiplier": (1, 1_000_000),
    "escape_bonus": (0, 100),
}
"""The range of every numeric option (a room may narrow the stakes further): every
number a player may choose is bounded, so no settlement can overflow."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Every rule option of a game, validated on creation.

    Attributes:
        name: the preset it came from (or a name of one's own).
        players: seats that play a hand (2 or 3).
        xingjia: a 4th seat, the 醒家, who sits out each hand and is paid by
            the losers (``hunan`` option; needs 3 players); the ``luzhou`` 坐底
            (§9.1, not paid: ``xingjia_paid``).
        min_huxi: 胡息 needed to win (15; the two-player preset uses 21).
        set_aside: cards put aside unseen after the deal (two-player: 20).
        settlement: how a win is scored: ``qq`` (底 × 番, §7), ``changde``
            (等 × 花样番), ``hunan`` (囤 × one 名堂 multiplier) or ``luzhou``
            (等 × 番, §9.1).
        chou_blocks_peng: whether a 臭 card also bars 碰 (``hunan``: 吃 only).
        zimo_huxi: 胡息 added for 自摸 before 囤 is counted (``hunan``: 3).
        zimo_di: 底/等 added for 自摸 (``qq`` and ``changde``: 1).
        base: the room's base score 房间底分 (d).
        multiplier: the room's bean multiplier 场次倍数.
        escape_bonus: the 8 of the escape penalty (§7.4).
        huangzhuang_passes_deal: the ``hunan`` dealer rule (§9): with three seats a
            drawn hand (荒庄) passes the deal to the dealer's 下家 at once, and with the
            醒家 the dealer keeps it; off (``qq``, ``changde``): the dealer keeps it and
            3 drawn hands in a row pass it (§3.1).
        huayang: the ``changde`` 花样 level (§9): ``basic`` (红胡, 点胡, 红乌, 乌胡),
            ``half`` (+ 对对胡, 乌对, 海底; the preset) or ``full`` (+ 大字胡, 小字胡);
            other schemes only take ``half``.
        win_on_ti_wei: whether a card the winner would have to 提 or 偎 may be won
            (提胡/偎胡); the ``changde`` option "不能胡任何人提或偎的牌" turns it off (§9).
        xingjia_paid: whether the seat sitting out (``xingjia``) is paid by the losers
            (``hunan`` 醒家); off for the ``luzhou`` 坐底, who is paid nothing (§9.1).
        huxi_table: the name of the 胡息 table groups score by (``qq`` §5, ``luzhou``
            §9.1); :attr:`huxi` is the table itself.
        liangzhang_shown: whether the dealer's 21st card is shown as the 亮张 and may
            be won (§3.2, §3.4); ``luzhou`` keeps it hidden in his hand (§9.1).
        dipai_shown: the ``luzhou`` 底牌 (§9.1): the wall's last card is shown to every
            seat and never won; red ones go to the top of the wall first.
        win_on_discard: whether a player may win on another player's discard
            (``luzhou``, §9.1); with the ``luzhou`` settlement the dealer's 下家 winning
            on the dealer's first discard is 地胡.
        luzhou_mode: the ``luzhou`` scoring mode (§9.1): ``hongwu`` (等 × 红胡 2 /
            乌胡 4; the preset) or ``deng`` (等 only); other schemes only take ``hongwu``.
    """

    name: str = "qq"
    players: int = 3
    xingjia: bool = False
    min_huxi: int = 15
    set_aside: int = 0
    settlement: SettlementScheme = "qq"
    chou_blocks_peng: bool = True
    zimo_huxi: int = 0
    zimo_di: int = 1
    base: int = 3
    multiplier: int = 1
    escape_bonus: int = 8
    huangzhuang_passes_deal: bool = False
    huayang: Huayang = "half"
    win_on_ti_wei: bool = True
    xingjia_paid: bool = True
    huxi_table: str = "qq"
    liangzhang_shown: bool = True
    dipai_shown: bool = False
    win_on_discard: bool = False
    luzhou_mode: LuzhouMode = "hongwu"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise RulesetError(f"name must be text, got {type(self.name).__name__}")
        for field in _FLAGS:
            if not isinstance(getattr(self, field), bool):
                raise RulesetError(f"{field} must be true or false, got {getattr(self, field)!r}")
        for field, (low, high) in BOUNDS.items():
            value = getattr(self, field)
            if not _is_int(value) or not low <= value <= high:
                raise OutOfBounds(field, low, high, value)
        if self.xingjia and self.players != 3:
            raise OptionConflict("a 醒家 (xingjia) 4th seat needs players=3", "xingjia",
                                 {"players": 3})
        for field, choices in CHOICES.items():
            value = getattr(self, field)
            if not isinstance(value, str) or value not in choices:
                raise NotAChoice(field, choices, value)
        if self.huayang != "half" and self.settlement != "changde":
            raise OptionConflict("huayang (花样 levels) applies to the changde settlement "
                                 "only", "huayang", {"settlement": "changde"})
        if self.luzhou_mode != "hongwu" and self.settlement != "luzhou":
            raise OptionConflict("luzhou_mode applies to the luzhou settlement only",
                                 "luzhou_mode", {"settlement": "luzhou"})
        most = 80 - (20 * self.players + 1) - 1
        if not 0 <= self.set_aside <= most:
            raise OutOfBounds("set_aside", 0, most, self.set_aside,
                              f"set_aside must leave at least one card in the wall: 0..{most}, "
                              f"got {self.set_aside!r}")

    @property
    def huxi(self) -> HuxiTable:
        """The 胡息 table every group of a hand under these rules scores by."""
        return HUXI_TABLES[self.huxi_table]

    @property
    def seats(self) -> int:
        """Seats at the table: the players, plus the 醒家 if there is one."""
        return self.players + (1 if self.xingjia else 0)

    @property
    def wall_size(self) -> int:
        """Cards in the wall (墩) after the deal, 亮张 and set-aside cards."""
        return 80 - 20 * self.players - 1 - self.set_aside

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Ruleset:
        """A named preset of §9, optionally with some options changed."""
        try:
            options = PRESETS[name]
        except (KeyError, TypeError):
            raise RulesetError(
                f"unknown preset {name!r}; presets: {', '.join(PRESETS)}"
            ) from None
        return cls.from_dict({**_preset_options(name, options, overrides), **overrides})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ruleset:
        """Build from a dict of options; unknown keys are an error."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RulesetError(
                f"unknown rule option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        return cls(**data)

    @classmethod
    def from_json(cls, data: str | dict[str, Any] | None) -> Ruleset:
        """A preset name, or a dict with an optional ``preset`` key plus overrides."""
        if data is None:
            return cls.preset("qq")
        if isinstance(data, str):
            return cls.preset(data)
        if isinstance(data, dict):
            options = dict(data)
            preset = options.pop("preset", None)
            name = options.get("name")
            if preset is None:
                preset = name if isinstance(name, str) and name in PRESETS else "qq"
            if not isinstance(preset, str) or preset not in PRESETS:
                raise RulesetError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
            return cls.from_dict({**_preset_options(preset, PRESETS[preset], options),
                                  **options})
        raise RulesetError(f"rules must be a preset name or an object, got {type(data).__name__}")

    def to_dict(self) -> dict[str, Any]:
        """Every option, for game records (round-trips through :meth:`from_dict`)."""
        return dataclasses.asdict(self)

    def replace(self, **changes: Any) -> Ruleset:
        """A copy with some options changed (validated again)."""
        return self.from_dict({**self.to_dict(), **changes})


_FLAGS: tuple[str, ...] = ("xingjia", "chou_blocks_peng", "huangzhuang_passes_deal",
                           "win_on_ti_wei", "xingjia_paid", "liangzhang_shown", "dipai_shown",
                           "win_on_discard")
CHOICES: dict[str, tuple[str, ...]] = {
    "settlement": _SCHEMES, "huayang": HUAYANG_LEVELS, "huxi_table": tuple(HUXI_TABLES),
    "luzhou_mode": LUZHOU_MODES}
"""The options whose value is one of a few names, and those names (a lobby's choices)."""


_DEFAULTS: dict[str, Any] = {f.name: f.default for f in dataclasses.fields(Ruleset)}
"""Every option's default (the ``qq`` preset's)."""

NEEDS: dict[str, dict[str, Any]] = {
    "xingjia": {"players": 3},
    "xingjia_paid": {"players": 3},
    "set_aside": {"players": 2},
}
"""Options that apply only while other options have these values (the 醒家/坐底 4th seat
needs three players, :class:`Ruleset`'s check; the set-aside cards are a two-seat
option). A preset's own value of such an option is dropped when an override breaks what
it needs (:func:`_preset_options`); a lobby hides it, and leaves it unsent, meanwhile."""


def _preset_options(name: str, options: dict[str, Any],
                    overrides: dict[str, Any]) -> dict[str, Any]:
    """A preset's options under ``overrides``. A preset whose default form has a seat
    sitting out (``luzhou``'s 坐底) drops it when another player count is chosen
    without saying ``xingjia`` (``players=3`` is luzhou's 3-seat form; rules-notes N19);
    any preset option set to do something that an override leaves without what it needs
    (:data:`NEEDS`: the ``two-player`` set-aside cards with three players) goes back to
    the default, unless it is overridden too.

    >>> _preset_options("two-player", PRESETS["two-player"], {"players": 3})["set_aside"]
    0
    """
    out = {**options, "name": name}
    if options.get("xingjia") and "players" in overrides and "xingjia" not in overrides:
        out["xingjia"] = False
    for key, needs in NEEDS.items():  # a preset's own value that does something (20
        # set-aside cards; not luzhou's xingjia_paid=False, which needs no seat to hold)
        if options.get(key) and key not in overrides and any(
                other in overrides and overrides[other] != value
                for other, value in needs.items()):
            out[key] = _DEFAULTS[key]
    return out


PRESETS: dict[str, dict[str, Any]] = {
    "qq": {},
    "changde": {"settlement": "changde"},
    "hunan": {"settlement": "hunan", "chou_blocks_peng": False, "zimo_huxi": 3, "zimo_di": 0,
              "huangzhuang_passes_deal": True},
    "two-player": {"players": 2, "set_aside": 20, "min_huxi": 21},
    "luzhou": {"players": 3, "xingjia": True, "xingjia_paid": False, "min_huxi": 10,
               "settlement": "luzhou", "huxi_table": "luzhou", "liangzhang_shown": False,
               "dipai_shown": True, "win_on_discard": True},
}
"""The presets of docs/rules.md §9, as option overrides of the defaults (= ``qq``)."""
