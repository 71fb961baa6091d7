"""Independent brute-force oracle for the Paohuzi (跑胡子) hand solver.

This module deliberately shares no code with ``src/paohuzi``: it restates the
rules of ``docs/rules.md`` §2, §5 and §6 in the plainest possible way and searches
every arrangement, so the fast solver's answers can be checked against it.

Cards are indices 0..19: 0..9 small 一..十 (values 1..10), 10..19 big 壹..拾
(values 1..10).

Public API
----------
``oracle_best_huxi(hand, melds, card, source) -> int | None``
    Maximum 胡息 (huxi, points) over every valid 7-门子 arrangement of
    hand + table melds + winning card, or ``None`` when no arrangement is
    valid. No 15-huxi threshold is applied.

``oracle_partial_best_huxi(hand, melds) -> int``
    Table melds' huxi + locked 坎/提 in the hand + the best set of disjoint
    scoring sentences (一二三, 二七十, 壹贰叁, 贰柒拾) among the other hand
    cards; leftover cards allowed.
"""

from __future__ import annotations

from functools import lru_cache

NUM_KINDS = 20
COPIES = 4

MELD_KINDS = ("chi", "peng", "wei", "chouwei", "pao", "ti")
SOURCES = ("self", "other", "discard", "liangzhang")


def is_big(card: int) -> bool:
    return card >= 10


def value(card: int) -> int:
    return card % 10 + 1


def kind_of(size_big: bool, val: int) -> int:
    return (10 if size_big else 0) + val - 1


# --------------------------------------------------------------------------
# Huxi of single groups (docs/rules.md §5)
# --------------------------------------------------------------------------

# huxi of identical-card groups: (small, big)
_SAME_KIND_HUXI = {
    "peng": (1, 3),
    "kan": (3, 6),
    "wei": (3, 6),
    "chouwei": (3, 6),
    "pao": (6, 9),
    "ti": (9, 12),
    "pair": (0, 0),
}


def same_kind_huxi(kind: str, card: int) -> int:
    small, big = _SAME_KIND_HUXI[kind]
    return big if is_big(card) else small


def is_sentence(cards) -> bool:
    """3 cards of one size: consecutive values, or 2-7-10."""
    if len(cards) != 3:
        return False
    sizes = {is_big(c) for c in cards}
    if len(sizes) != 1:
        return False
    vals = sorted(value(c) for c in cards)
    if vals == [2, 7, 10]:
        return True
    return vals[1] == vals[0] + 1 and vals[2] == vals[1] + 1


def is_jiao(cards) -> bool:
    """3 cards of one value, both sizes present (2+1)."""
    if len(cards) != 3:
        return False
    if len({value(c) for c in cards}) != 1:
        return False
    n_big = sum(1 for c in cards if is_big(c))
    return n_big in (1, 2)


def sentence_or_jiao_huxi(cards) -> int:
    """Huxi of a sentence or 绞: 一二三/二七十 3, 壹贰叁/贰柒拾 6, else 0."""
    vals = sorted(value(c) for c in cards)
    if is_sentence(cards) and vals in ([1, 2, 3], [2, 7, 10]):
        return 6 if is_big(cards[0]) else 3
    return 0


def meld_huxi(kind: str, cards) -> int:
    if kind == "chi":
        return sentence_or_jiao_huxi(cards)
    return same_kind_huxi(kind, cards[0])


def _validate_meld(kind: str, cards) -> None:
    if kind not in MELD_KINDS:
        raise ValueError(f"unknown meld kind {kind!r}")
    cards = list(cards)
    if kind == "chi":
        if not (is_sentence(cards) or is_jiao(cards)):
            raise ValueError(f"chi meld is not a sentence or jiao: {cards}")
        return
    want = 4 if kind in ("pao", "ti") else 3
    if len(cards) != want or len(set(cards)) != 1:
        raise ValueError(f"{kind} meld must be {want} identical cards: {cards}")


def _validate_cards(cards) -> None:
    for c in cards:
        if not isinstance(c, int) or not 0 <= c < NUM_KINDS:
            raise ValueError(f"bad card index {c!r}")


def _counts(cards) -> list[int]:
    cnt = [0] * NUM_KINDS
    for c in cards:
        cnt[c] += 1
    return cnt


# --------------------------------------------------------------------------
# Every possible free group shape (sentence, 2-7-10, both 绞 shapes, pair)
# --------------------------------------------------------------------------


def _all_free_shapes() -> list[tuple[tuple[int, ...], bool, int]]:
    """(sorted cards, is_pair, huxi) for every group free cards may form."""
    shapes = []
    for big in (False, True):
        for v in range(1, 9):
            cards = tuple(sorted(kind_of(big, v + d) for d in range(3)))
            shapes.append((cards, False, sentence_or_jiao_huxi(cards)))
        cards = tuple(sorted(kind_of(big, v) for v in (2, 7, 10)))
        shapes.append((cards, False, sentence_or_jiao_huxi(cards)))
    for v in range(1, 11):
        s, b = kind_of(False, v), kind_of(True, v)
        shapes.append((tuple(sorted((s, s, b))), False, 0))
        shapes.append((tuple(sorted((s, b, b))), False, 0))
    for k in range(NUM_KINDS):
        shapes.append(((k, k), True, 0))
    # sanity: every shape really is a legal group
    for cards, pair, _ in shapes:
        if pair:
            assert len(cards) == 2 and cards[0] == cards[1]
        else:
            assert is_sentence(cards) or is_jiao(cards), cards
    return shapes


FREE_SHAPES = _all_free_shapes()


def _remove(sorted_cards: tuple[int, ...], group: tuple[int, ...]):
    """Remove the multiset ``group`` from ``sorted_cards``; None if absent."""
    rest = list(sorted_cards)
    for c in group:
        if c in rest:
            rest.remove(c)
        else:
            return None
    return tuple(rest)


def brute_force_decompositions(cards: tuple[int, ...]) -> dict[tuple[int, int], int]:
    """All complete partitions of the sorted free multiset ``cards``.

    Returns {(number_of_groups, number_of_pairs): best huxi}, keeping only
    partitions with at most one pair (more pairs can never be valid).
    The lowest remaining card must lie in some group; every shape containing
    it is tried.
    """
    if not cards:
        return {(0, 0): 0}
    lowest = cards[0]
    result: dict[tuple[int, int], int] = {}
    for shape, pair, huxi in FREE_SHAPES:
        if lowest not in shape:
            continue
        rest = _remove(cards, shape)
        if rest is None:
            continue
        for (groups, pairs), sub in free_decompositions(rest).items():
            key = (groups + 1, pairs + (1 if pair else 0))
            if key[1] > 1:
                continue
            total = sub + huxi
            if key not in result or total > result[key]:
                result[key] = total
    return result


free_decompositions = lru_cache(maxsize=2_000_000)(brute_force_decompositions)
"""The memoised search used by default (the recursion goes through this name, so
replacing it with :func:`brute_force_decompositions` gives a plain, unmemoised
brute force; see :func:`unmemoised`)."""


def unmemoised() -> None:
    """Switch the oracle to plain brute force: no result is remembered."""
    global free_decompositions
    free_decompositions = brute_force_decompositions  # type: ignore[assignment]


def memoised() -> None:
    """Switch the oracle back to its memoised search (the default)."""
    global free_decompositions
    free_decompositions = lru_cache(maxsize=2_000_000)(brute_force_decompositions)


# --------------------------------------------------------------------------
# Winning-card options
# --------------------------------------------------------------------------


def _winning_options(hand_cnt, melds, card, source):
    """Yield every legal way to place the winning card.

    Each option is (free_cards, hand_locked, table, win_group):
    free_cards -- hand cards (plus X when X is used freely) that must be
                  partitioned into sentences / 绞 / the pair;
    hand_locked -- [(kind, card)] locked 坎/提 of the hand, a 坎 of X
                   possibly turned into 提/跑;
    table -- [(kind, cards)] table melds, one of X possibly turned into 提/跑;
    win_group -- (kind, X) when X + a hand pair becomes 偎/碰, else None.
    """
    # locked hand groups and free hand cards
    hand_locked = []  # (kind, kind_index)
    hand_free = []
    for k in range(NUM_KINDS):
        n = hand_cnt[k]
        if n == 4:
            hand_locked.append(("ti", k))
        elif n == 3:
            hand_locked.append(("kan", k))
        else:
            hand_free.extend([k] * n)

    table = [(kind, list(cards)) for kind, cards in melds]

    def same_kind_meld_of(kinds):
        for i, (kind, cards) in enumerate(table):
            if kind in kinds and cards[0] == card:
                return i
        return None

    X = card
    kan_of_x = hand_cnt[X] == 3
    pair_of_x = hand_cnt[X] == 2
    wei_idx = same_kind_meld_of(("wei", "chouwei"))
    peng_idx = same_kind_meld_of(("peng",))

    def option_free():
        return ([*hand_free, X], hand_locked, table, None)

    def option_hand_kan_becomes(new_kind):
        locked = [(new_kind if (kd == "kan" and k == X) else kd, k) for kd, k in hand_locked]
        return (list(hand_free), locked, table, None)

    def option_table_becomes(idx, new_kind):
        new_table = list(table)
        new_table[idx] = (new_kind, [X] * 4)
        return (list(hand_free), hand_locked, new_table, None)

    def option_pair_becomes(new_kind):
        free = list(hand_free)
        free.remove(X)
        free.remove(X)
        return (free, hand_locked, table, (new_kind, X))

    if source == "self":
        if kan_of_x:
            yield option_hand_kan_becomes("ti")  # forced 提
        elif wei_idx is not None:
            yield option_table_becomes(wei_idx, "ti")  # forced 提
        elif pair_of_x:
            yield option_pair_becomes("wei")  # forced 偎
        elif peng_idx is not None:
            yield option_table_becomes(peng_idx, "pao")
            yield option_free()
        else:
            yield option_free()
    else:  # "other" / "discard" / "liangzhang"
        if kan_of_x:
            yield option_hand_kan_becomes("pao")
            yield option_free()
        elif wei_idx is not None:
            yield option_table_becomes(wei_idx, "pao")
            yield option_free()
        elif peng_idx is not None:
            if source != "discard":  # docs/rules.md §2: a discard never turns a 碰 into 跑
                yield option_table_becomes(peng_idx, "pao")
            yield option_free()
        elif pair_of_x:
            yield option_pair_becomes("peng")
            yield option_free()
        else:
            yield option_free()


def oracle_best_huxi(hand, melds, card, source):
    """Max huxi over all valid 7-门子 winning arrangements, or None."""
    hand = list(hand)
    melds = [(kind, list(cards)) for kind, cards in melds]
    _validate_cards(hand)
    _validate_cards([card])
    for kind, cards in melds:
        _validate_cards(cards)
        _validate_meld(kind, cards)
    if source not in SOURCES:
        raise ValueError(f"unknown source {source!r}")
    all_cnt = _counts(hand + [card] + [c for _, cs in melds for c in cs])
    if max(all_cnt) > COPIES:
        raise ValueError("more than 4 copies of a card")

    hand_cnt = _counts(hand)
    best = None
    for free, locked, table, win_group in _winning_options(hand_cnt, melds, card, source):
        fixed_huxi = 0
        fixed_groups = 0
        has_pao_or_ti = False
        for kind, cards in table:
            fixed_huxi += meld_huxi(kind, cards)
            fixed_groups += 1
            if kind in ("pao", "ti"):
                has_pao_or_ti = True
        for kind, k in locked:
            fixed_huxi += same_kind_huxi(kind, k)
            fixed_groups += 1
            if kind in ("pao", "ti"):
                has_pao_or_ti = True
        if win_group is not None:
            kind, k = win_group
            fixed_huxi += same_kind_huxi(kind, k)
            fixed_groups += 1
            if kind in ("pao", "ti"):
                has_pao_or_ti = True

        want_pairs = 1 if has_pao_or_ti else 0
        for (groups, pairs), huxi in free_decompositions(tuple(sorted(free))).items():
            if pairs != want_pairs:
                continue
            if fixed_groups + groups != 7:
                continue
            total = fixed_huxi + huxi
            if best is None or total > best:
                best = total
    return best


# --------------------------------------------------------------------------
# Partial (leftover cards allowed) best huxi
# --------------------------------------------------------------------------


def oracle_partial_best_huxi(hand, melds) -> int:
    """Table + locked 坎/提 + best disjoint scoring sentences, leftovers ok."""
    hand = list(hand)
    _validate_cards(hand)
    total = 0
    for kind, cards in melds:
        cards = list(cards)
        _validate_cards(cards)
        _validate_meld(kind, cards)
        total += meld_huxi(kind, cards)
    cnt = _counts(hand)
    free_cnt = [0] * NUM_KINDS
    for k in range(NUM_KINDS):
        if cnt[k] == 4:
            total += same_kind_huxi("ti", k)
        elif cnt[k] == 3:
            total += same_kind_huxi("kan", k)
        else:
            free_cnt[k] = cnt[k]
    for big in (False, True):
        one, two, three = (kind_of(big, v) for v in (1, 2, 3))
        seven, ten = kind_of(big, 7), kind_of(big, 10)
        per = 6 if big else 3
        best = 0
        # a = number of 一二三, b = number of 二七十 (each at most 2 copies)
        for a in range(0, 3):
            for b in range(0, 3):
                if a > free_cnt[one] or a > free_cnt[three]:
                    continue
                if b > free_cnt[seven] or b > free_cnt[ten]:
                    continue
                if a + b > free_cnt[two]:
                    continue
                best = max(best, (a + b) * per)
        total += best
    return total


# --------------------------------------------------------------------------
# Text helpers for tests (Chinese card names)
# --------------------------------------------------------------------------

SMALL_NAMES = "一二三四五六七八九十"
BIG_NAMES = "壹贰叁肆伍陆柒捌玖拾"


def parse(text: str) -> list[int]:
    """Chinese card text (spaces ignored) -> card indices."""
    out = []
    for ch in text:
        if ch.isspace():
            continue
        if ch in SMALL_NAMES:
            out.append(SMALL_NAMES.index(ch))
        elif ch in BIG_NAMES:
            out.append(10 + BIG_NAMES.index(ch))
        else:
            raise ValueError(f"unknown card {ch!r}")
    return out
