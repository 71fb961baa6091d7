"""``paohuzi evaluate``: one question about a hand in JSON, one answer in JSON.

The contract (see the README) in short: the input names the rules, the hand,
the table groups, the winning card and its source, and a few flags; the output
says whether the hand wins and, if so, its best arrangement and the full
settlement.

>>> answer = evaluate({"hand": "一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖",
...                    "card": "拾", "source": "other"})
>>> answer["hu"], answer["huxi"], answer["di"], answer["fan"], answer["points"]
(True, 18, 2, 3, {'winner': 36, 'loser': -18})
>>> evaluate({"hand": "一二三", "card": "Z"})
Traceback (most recent call last):
...
paohuzi.apps.evaluate.QuestionError: card: unknown card character 'Z' at position 0 in 'Z'
"""

from __future__ import annotations

from typing import Any

from paohuzi.core.cardcount import DEALT, most_owned, owned_count_ok
from paohuzi.core.cards import Card, counts_of, format_cards, parse_cards, validate_counts
from paohuzi.core.errors import PaohuziError
from paohuzi.core.groups import QQ_HUXI, Group, GroupKind, HuxiTable, is_jiao
from paohuzi.core.kinds import Source
from paohuzi.core.rules import Ruleset
from paohuzi.core.settlement import Won, payout, settle, win_context
from paohuzi.core.solver import SOURCES, Arrangement, solve, solve_tianhu, win_barred

__all__ = ["MELD_KINDS", "QuestionError", "evaluate", "parse_meld"]

MELD_KINDS = ("chi", "peng", "wei", "chouwei", "pao", "ti")
"""Kinds of table group a question may name (``chi``: a sentence or 绞 laid by 吃 or 比)."""

_KEYS = {"rules", "hand", "melds", "card", "source", "dealer", "last", "tianhu", "base",
         "multiplier", "dihu"}


class QuestionError(PaohuziError):
    """A malformed question: names the key and what is wrong with it."""


def _cards(value: Any, key: str) -> list[Card]:
    if not isinstance(value, str):
        raise QuestionError(f"{key}: expected card text, got {type(value).__name__}")
    try:
        return parse_cards(value)
    except PaohuziError as exc:
        raise QuestionError(f"{key}: {exc}") from None


def _flag(question: dict[str, Any], key: str) -> bool:
    value = question.get(key, False)
    if not isinstance(value, bool):
        raise QuestionError(f"{key}: expected true or false, got {value!r}")
    return value


def parse_meld(value: Any, where: str = "meld", table: HuxiTable = QQ_HUXI) -> Group:
    """A table group from ``{"kind": ..., "cards": ...}`` (kind one of :data:`MELD_KINDS`),
    scored by ``table`` (the ruleset's 胡息 table)."""
    if not isinstance(value, dict) or set(value) != {"kind", "cards"}:
        raise QuestionError(f"{where}: expected an object with exactly 'kind' and 'cards'")
    kind = value["kind"]
    if kind not in MELD_KINDS:
        raise QuestionError(f"{where}: unknown meld kind {kind!r}; expected one of "
                            f"{', '.join(MELD_KINDS)}")
    cards = _cards(value["cards"], f"{where}.cards")
    if kind == "chi":
        group_kind = GroupKind.JIAO if is_jiao(tuple(sorted(cards))) else GroupKind.SENTENCE
    else:
        group_kind = GroupKind(kind)
    try:
        return Group.make(group_kind, cards, table)
    except PaohuziError as exc:
        raise QuestionError(f"{where}: {exc}") from None


def _ruleset(question: dict[str, Any]) -> Ruleset:
    overrides = {}
    for key in ("base", "multiplier"):
        if key in question:
            value = question[key]
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise QuestionError(f"{key}: expected a positive integer, got {value!r}")
            overrides[key] = value
    try:
        rules = Ruleset.from_json(question.get("rules", "qq"))
        return rules.replace(**overrides) if overrides else rules
    except PaohuziError as exc:
        raise QuestionError(f"rules: {exc}") from None


def _group_json(arrangement: Arrangement) -> list[dict[str, Any]]:
    out = []
    for i, group in enumerate(arrangement.groups):
        item: dict[str, Any] = {"kind": group.kind.value, "cards": group.text,
                                "huxi": group.huxi, "table": arrangement.on_table[i]}
        if arrangement.winning_group == i:
            item["winning"] = True
        out.append(item)
    return out


def evaluate(question: dict[str, Any]) -> dict[str, Any]:
    """Answer one question (a parsed JSON object); raise :class:`QuestionError` if malformed."""
    if not isinstance(question, dict):
        raise QuestionError(f"the question must be a JSON object, got {type(question).__name__}")
    unknown = sorted(set(question) - _KEYS)
    if unknown:
        raise QuestionError(
            f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(_KEYS))}")
    rules = _ruleset(question)
    if "hand" not in question:
        raise QuestionError("hand: missing")
    hand = _cards(question["hand"], "hand")
    melds_value = question.get("melds", [])
    if not isinstance(melds_value, list):
        raise QuestionError("melds: expected a list of {kind, cards} objects")
    melds = [parse_meld(m, f"melds[{i}]", rules.huxi) for i, m in enumerate(melds_value)]
    dealer = _flag(question, "dealer")
    last = _flag(question, "last")
    tianhu = _flag(question, "tianhu")
    dihu = _flag(question, "dihu")
    if dihu and not rules.win_on_discard:
        raise QuestionError("dihu: these rules have no 地胡 (no win on a discard)")
    given = question.get("source", Source.OTHER.value)
    if given not in SOURCES:
        raise QuestionError(f"source: expected {', '.join(SOURCES[:-1])} or {SOURCES[-1]}, "
                            f"got {given!r}")
    source = Source(given)
    if source is Source.DISCARD and not rules.win_on_discard:
        raise QuestionError("source: these rules never win on a discard")
    if source is Source.LIANGZHANG and not rules.liangzhang_shown and not dealer:
        raise QuestionError("source: these rules show no 亮张 (only the dealer's own 21 "
                            "cards may win at the deal: dealer true)")
    if source is Source.LIANGZHANG and last:
        raise QuestionError("last: the 亮张 is never the wall's last card")
    if dihu and (source is not Source.DISCARD or dealer or tianhu):
        raise QuestionError("dihu: 地胡 is the dealer's 下家 winning on the dealer's first "
                            "discard (source discard, not the dealer, not a 天胡)")
    card: Card | None = None
    if question.get("card") is not None:
        cards = _cards(question["card"], "card")
        if len(cards) != 1:
            raise QuestionError(f"card: expected exactly one card, got {len(cards)}")
        card = cards[0]
    elif not tianhu:
        raise QuestionError("card: missing (only a 天胡 question may leave it out)")

    all_cards = list(hand) + [c for m in melds for c in m.cards] + ([card] if card else [])
    try:
        validate_counts(counts_of(all_cards), "hand, melds and card together")
    except PaohuziError as exc:
        raise QuestionError(str(exc)) from None
    counts = counts_of(hand)
    n_owned = len(hand) + sum(len(m.cards) for m in melds)
    pao_ti = sum(1 for m in melds if m.is_pao_or_ti) + sum(1 for n in counts if n == 4)

    if tianhu:
        if any(m.kind is not GroupKind.TI for m in melds):
            raise QuestionError("melds: at the deal only 提 (ti) can lie on the table")
        dealt = list(hand) + ([card] if card is not None else [])
        expected = DEALT + 1 if dealer else DEALT  # the dealer with his 亮张
        if len(dealt) + sum(len(m.cards) for m in melds) != expected:
            raise QuestionError(
                f"hand: a {'dealer' if dealer else 'non-dealer'}'s dealt hand holds {expected} "
                f"cards (the dealer's with the 亮张), got {len(dealt) + 4 * len(melds)}")
        win = solve_tianhu(dealt, melds, table=rules.huxi)
        if win is None:
            return {"hu": False, "reason": "no mandatory 天胡: needs 3 提, or 5 提 and 坎 together"}
        ctx = win_context(Source.TIANHU)
    else:
        assert card is not None
        if not owned_count_ok(n_owned, pao_ti):
            most = most_owned(pao_ti)
            allowed = f"exactly {DEALT}" if most == DEALT else f"{DEALT} to {most}"
            raise QuestionError(
                f"hand: impossible card count: hand and table hold {n_owned} cards with "
                f"{pao_ti} 跑/提, where a player holds {allowed} between turns "
                "(docs/rules.md §4.4)")
        if win_barred(rules, counts, melds, card, source, dealer=dealer):
            return {"hu": False, "reason": "these rules allow no win on a card the winner "
                    "would 提 or 偎 (win_on_ti_wei off)"}
        if last and rules.dipai_shown:
            return {"hu": False, "reason": "the wall's last card is shown and can never be "
                    "won (底牌, dipai_shown)"}
        win = solve(hand, melds, card, source, dealer=dealer, table=rules.huxi)
        if win is None:
            return {"hu": False, "reason": "the cards do not form 7 门子 "
                    "(every card in a group, one pair exactly when a 跑/提 is owned)"}
        if win.huxi < rules.min_huxi:
            return {"hu": False, "huxi": win.huxi,
                    "reason": f"{win.huxi} 胡息 is below the {rules.min_huxi} needed to win"}
        ctx = win_context(source, dealer=dealer, last=last, dihu=dihu)
    s = settle(win, ctx, rules)
    answer: dict[str, Any] = {
        "hu": True,
        "huxi": win.huxi,
        "groups": _group_json(win),
        "zimo": s.zimo,
        "haidi": s.haidi,
        "tianhu": s.tianhu,
        "dihu": s.dihu,
        "di": s.di,
        "fan": s.fan,
        "mingtang": [{"name": m.name, "fan": m.fan} for m in s.mingtang],
        "points": {"winner": s.winner_points, "loser": s.loser_points},
        "beans": {"winner": s.winner_beans, "loser": s.loser_beans},
        "rules": rules.name,
    }
    if win.leftover:
        answer["leftover"] = format_cards(win.leftover)
    if rules.xingjia:
        paid = payout(Won(0, s), rules)
        answer["points"]["xingjia"] = paid.xingjia_points
        answer["beans"]["xingjia"] = paid.xingjia_beans
    return answer
