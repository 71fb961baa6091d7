"""跑胡子 (Paohuzi, 字牌): the rules of docs/rules.md as a pure-Python library.

>>> import paohuzi
>>> hand = paohuzi.parse_cards("一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖")
>>> paohuzi.solve(hand, [], paohuzi.Card.parse("拾"), "other").huxi
18
"""

from paohuzi.core.cards import ALL_CARDS, Card, counts_of, format_cards, parse_cards
from paohuzi.core.chi import ChiOption, chi_options
from paohuzi.core.errors import (
    CardCountError,
    CardTextError,
    MeldError,
    PaohuziError,
    RulesetError,
)
from paohuzi.core.groups import Group, GroupKind
from paohuzi.core.kinds import ClaimContext, EndReason, EventKind, Source, TianhuKind
from paohuzi.core.mingtang import Mingtang
from paohuzi.core.native import compiled
from paohuzi.core.rules import PRESETS, Ruleset
from paohuzi.core.settlement import (
    Payout,
    Settlement,
    WinContext,
    escape_penalty,
    payout,
    settle,
    win_context,
)
from paohuzi.core.solver import (
    Arrangement,
    Wait,
    best_partial_huxi,
    can_hu,
    solve,
    solve_tianhu,
    tianhu_kind,
    waits,
)

__version__ = "0.1.0"

__all__ = [
    "ALL_CARDS",
    "PRESETS",
    "Arrangement",
    "Card",
    "CardCountError",
    "CardTextError",
    "ChiOption",
    "ClaimContext",
    "EndReason",
    "EventKind",
    "Group",
    "GroupKind",
    "MeldError",
    "Mingtang",
    "PaohuziError",
    "Payout",
    "Ruleset",
    "RulesetError",
    "Settlement",
    "Source",
    "TianhuKind",
    "Wait",
    "WinContext",
    "best_partial_huxi",
    "can_hu",
    "chi_options",
    "compiled",
    "counts_of",
    "escape_penalty",
    "format_cards",
    "parse_cards",
    "payout",
    "settle",
    "solve",
    "solve_tianhu",
    "tianhu_kind",
    "waits",
    "win_context",
]
