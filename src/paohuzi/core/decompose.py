"""The fast core of the solver: split free hand cards into groups for the most 胡息.

"Free" cards are the hand cards outside 坎 and 提 (those are locked whole,
RULES.md §2). Free cards form only 一句话 (sentences), 绞 and — exactly when a
跑/提 is owned — one pair; of these only 一二三 / 二七十 (3 胡息) and 壹贰叁 /
贰柒拾 (6 胡息) score (§5).

How the speed is reached:

* Sentences never mix sizes, so a decomposition is fixed by (a) which 绞 are
  taken at each value, (b) which card is the pair, and then (c) two independent
  single-size problems. (a) and (b) are enumerated (few options: a 绞 needs both
  sizes of one value present), with a mod-3 card-count check pruning most of
  them at once.
* Each single-size problem (a 10-count tuple) is solved by anchoring on its
  lowest card: the lowest card can only start a sentence (or, for value 2, the
  二七十), so the search hardly branches. Results are memoised in a dict keyed
  on the count tuple, shared by every query: the table of single-size
  decompositions fills up quickly and then every query is a handful of
  lookups.

>>> from paohuzi.core.cards import counts_of, parse_cards
>>> best_free_huxi(counts_of(parse_cards("一二三 二七十 壹贰叁 九九玖")), need_pair=False)
12
>>> best_free_huxi(counts_of(parse_cards("一二三 四")), need_pair=False)
-1
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import product
from math import gcd
from typing import NamedTuple

from paohuzi.core.groups import QQ_HUXI, SCORING_VALUES, SENTENCE_VALUES, HuxiTable

__all__ = [
    "best_free_huxi",
    "best_free_split",
    "clear_caches",
    "partial_scoring_sentences",
    "partial_scoring_split",
    "scoring_gain",
]

_IMPOSSIBLE = -1
Shape = tuple[int, ...]

# One size's ten counts are packed into an int, 3 bits a value (counts 0..4):
# ``code = sum(count[v] << 3 * v)``. Removing a sentence is one subtraction.
_BITS = 3
_FIELD = 7

Starting = tuple[tuple[tuple[Shape, int, tuple[int, int], int], ...], ...]
_YI_ER_SAN, _ER_QI_SHI = SCORING_VALUES


def _starting(weights: tuple[int, int]) -> Starting:
    """For each value, the sentences of one size whose lowest card it is (groups' table):
    ``(value triple, packed code, shifts of the two higher values, its weight)`` — the
    weight of 一二三 and 二七十 given by ``weights``, 0 for the others."""
    return tuple(
        tuple((values, sum(1 << (_BITS * v) for v in values),
               (_BITS * values[1], _BITS * values[2]),
               weights[0] if values == _YI_ER_SAN else weights[1] if values == _ER_QI_SHI
               else 0)
              for values in SENTENCE_VALUES if values[0] == low)
        for low in range(10))


def _make_single_best(starting: Starting, memo: dict[int, int]) -> Callable[[int], int]:
    """The single-size solver for one weighting of the scoring sentences, memoised in
    ``memo`` (code -> the most weight, or -1 if the cards do not split into sentences)."""

    def single_best(code: int) -> int:
        """Max weight of the scoring sentences in a split of one size's cards, else -1."""
        found = memo.get(code)
        if found is not None:
            return found
        low = ((code & -code).bit_length() - 1) // _BITS  # the lowest value present
        best = _IMPOSSIBLE
        for _, mask, (a, b), scores in starting[low]:
            if (code >> a) & _FIELD and (code >> b) & _FIELD:
                r = single_best(code - mask)
                if r >= 0 and r + scores > best:
                    best = r + scores
        memo[code] = best
        return best

    return single_best


class _Side(NamedTuple):
    """How one size's sentences score: the solver of its weights and the 胡息 unit."""

    single: Callable[[int], int]
    starting: Starting
    unit: int


class _Scoring(NamedTuple):
    small: _Side
    big: _Side


_memos: dict[tuple[int, int], dict[int, int]] = {}
_sides: dict[tuple[int, int], tuple[Callable[[int], int], Starting]] = {}


def _side(yi_er_san: int, er_qi_shi: int) -> _Side:
    unit = gcd(yi_er_san, er_qi_shi) or 1
    weights = (yi_er_san // unit, er_qi_shi // unit)
    if weights not in _sides:
        memo = _memos[weights] = {0: 0}
        starting = _starting(weights)
        _sides[weights] = (_make_single_best(starting, memo), starting)
    single, starting = _sides[weights]
    return _Side(single, starting, unit)


_scorings: dict[str, _Scoring] = {}


def _scoring(table: HuxiTable) -> _Scoring:
    """The free-card scoring of a 胡息 table (worked out once per table)."""
    found = _scorings.get(table.name)
    if found is None:
        found = _scorings[table.name] = _Scoring(
            _side(table.yi_er_san[0], table.er_qi_shi[0]),
            _side(table.yi_er_san[1], table.er_qi_shi[1]))
    return found


_QQ = _scoring(QQ_HUXI)
# Single-size memo of the qq weights (一二三 and 二七十 score alike: the number of them).
_single_memo = _memos[(1, 1)]
_single_best = _QQ.small.single
_STARTING = _QQ.small.starting


def clear_caches() -> None:
    """Forget every memoised decomposition (for cold benchmarks)."""
    for memo in _memos.values():
        memo.clear()
        memo[0] = 0


def _pack(counts: Sequence[int]) -> int:
    code = 0
    for v in range(9, -1, -1):
        code = (code << _BITS) | counts[v]
    return code


def _jiao_options(counts: Sequence[int]) -> list[list[tuple[int, int, int]]]:
    """Per value with a possible 绞: the (value, n_small_heavy, n_big_heavy) choices.

    A small-heavy 绞 is 2 small + 1 big (九九玖), a big-heavy one 1 small + 2 big.
    """
    options: list[list[tuple[int, int, int]]] = []
    for v in range(10):
        a = counts[v]
        b = counts[v + 10]
        if a == 0 or b == 0 or a + b < 3:
            continue
        choices = [(v, k1, k2) for k1 in range(a // 2 + 1) for k2 in range(b // 2 + 1)
                   if 2 * k1 + k2 <= a and k1 + 2 * k2 <= b]
        options.append(choices)
    return options


def _search(counts: Sequence[int], need_pair: bool, scoring: _Scoring = _QQ
            ) -> tuple[int, tuple[tuple[int, int, int], ...], int]:
    """Best ``(huxi, jiao_choice, pair_card)``; huxi -1 when impossible."""
    small_total = sum(counts[:10])
    big_total = sum(counts[10:])
    if (small_total + big_total - (2 if need_pair else 0)) % 3:
        return _IMPOSSIBLE, (), -1
    best = _IMPOSSIBLE
    best_choice: tuple[tuple[int, int, int], ...] = ()
    best_pair = -1
    small_side, big_side = scoring
    small_huxi, big_huxi = small_side.unit, big_side.unit
    small_best, big_best = small_side.single, big_side.single
    small0 = _pack(counts[:10])
    big0 = _pack(counts[10:])
    options = _jiao_options(counts)
    for choice in product(*options) if options else ((),):
        small, big, s_left = small0, big0, small_total
        for v, k1, k2 in choice:
            small -= (2 * k1 + k2) << (_BITS * v)
            big -= (k1 + 2 * k2) << (_BITS * v)
            s_left -= 2 * k1 + k2
        if need_pair:
            # the pair's size is forced by the card counts mod 3
            rem = s_left % 3
            if rem == 1:
                continue
            pair_small = rem == 2
            if pair_small:
                side, other_code, side_best, other_best = small, big, small_best, big_best
            else:
                side, other_code, side_best, other_best = big, small, big_best, small_best
            other = other_best(other_code)
            if other < 0:
                continue
            for v in range(10):
                if (side >> (_BITS * v)) & _FIELD >= 2:
                    r = side_best(side - (2 << (_BITS * v)))
                    if r < 0:
                        continue
                    if pair_small:
                        total = r * small_huxi + other * big_huxi
                    else:
                        total = other * small_huxi + r * big_huxi
                    if total > best:
                        best, best_choice = total, choice
                        best_pair = v if pair_small else v + 10
        else:
            if s_left % 3:
                continue
            rs = small_best(small)
            if rs < 0:
                continue
            rb = big_best(big)
            if rb < 0:
                continue
            total = rs * small_huxi + rb * big_huxi
            if total > best:
                best, best_choice = total, choice
    return best, best_choice, best_pair


def best_free_huxi(counts: Sequence[int], need_pair: bool, table: HuxiTable = QQ_HUXI) -> int:
    """Max 胡息 of a split of free cards into sentences, 绞 and (iff ``need_pair``) one pair,
    scored by ``table``.

    Returns -1 when the cards cannot be split that way.

    >>> from paohuzi.core.cards import counts_of, parse_cards
    >>> from paohuzi.core.groups import LUZHOU_HUXI
    >>> best_free_huxi(counts_of(parse_cards("一二三 二七十 贰柒拾")), False, LUZHOU_HUXI)
    18
    """
    return _search(counts, need_pair, _QQ if table is QQ_HUXI else _scoring(table))[0]


def _single_split(c: list[int], offset: int, side: _Side) -> list[Shape]:
    """Reconstruct the best sentences of one size (``c`` must be feasible)."""
    single_best, starting = side.single, side.starting
    shapes: list[Shape] = []
    while any(c):
        i = next(k for k in range(10) if c[k])
        target = single_best(_pack(c))
        for shape, _, _, gain in starting[i]:
            if not all(c[k] for k in shape):
                continue
            for k in shape:
                c[k] -= 1
            r = single_best(_pack(c))
            if r >= 0 and r + gain == target:
                shapes.append(tuple(k + offset for k in shape))
                break
            for k in shape:
                c[k] += 1
        else:  # pragma: no cover - guarded by feasibility
            raise AssertionError("infeasible single-size split")
    return shapes


def best_free_split(counts: Sequence[int], need_pair: bool, table: HuxiTable = QQ_HUXI
                    ) -> tuple[int, list[tuple[str, Shape]]] | None:
    """Like :func:`best_free_huxi`, with the groups: ``(huxi, [(kind, cards), ...])``.

    ``kind`` is ``"sentence"``, ``"jiao"`` or ``"pair"``; ``None`` when impossible.

    >>> from paohuzi.core.cards import counts_of, parse_cards
    >>> best_free_split(counts_of(parse_cards("一二三 九九玖 五五")), need_pair=True)
    (3, [('jiao', (8, 8, 18)), ('pair', (4, 4)), ('sentence', (0, 1, 2))])
    """
    scoring = _scoring(table)
    huxi, choice, pair = _search(counts, need_pair, scoring)
    if huxi < 0:
        return None
    c = list(counts)
    groups: list[tuple[str, Shape]] = []
    for v, k1, k2 in choice:
        for _ in range(k1):
            groups.append(("jiao", (v, v, v + 10)))
        for _ in range(k2):
            groups.append(("jiao", (v, v + 10, v + 10)))
        c[v] -= 2 * k1 + k2
        c[v + 10] -= k1 + 2 * k2
    if need_pair:
        groups.append(("pair", (pair, pair)))
        c[pair] -= 2
    groups.extend(("sentence", s) for s in _single_split(c[:10], 0, scoring.small))
    groups.extend(("sentence", s) for s in _single_split(c[10:], 10, scoring.big))
    return huxi, groups


# The two scoring sentences of a size (一二三, 二七十) share one value, the 2.
_SCORING_A, _SCORING_B = SCORING_VALUES
(_SHARED,) = set(_SCORING_A) & set(_SCORING_B)
_A1, _A2 = (v for v in _SCORING_A if v != _SHARED)
_B1, _B2 = (v for v in _SCORING_B if v != _SHARED)


def _size_scoring(c: Sequence[int], weight_a: int, weight_b: int) -> int:
    """Most 胡息 of disjoint 一二三 (``weight_a`` each) and 二七十 (``weight_b``) among one
    size's ten counts (only free cards): as many of the better one as fit, then the other
    with the 2s left — optimal, since the two share only the 2."""
    a, b = min(c[_A1], c[_A2]), min(c[_B1], c[_B2])
    twos = c[_SHARED]
    if weight_a >= weight_b:
        first = min(a, twos)
        return weight_a * first + weight_b * min(b, twos - first)
    first = min(b, twos)
    return weight_b * first + weight_a * min(a, twos - first)


def partial_scoring_sentences(counts: Sequence[int], table: HuxiTable = QQ_HUXI) -> int:
    """Most 胡息 from disjoint 一二三/二七十/壹贰叁/贰柒拾 in these cards (leftovers allowed),
    scored by ``table``.

    >>> from paohuzi.core.cards import counts_of, parse_cards
    >>> from paohuzi.core.groups import LUZHOU_HUXI
    >>> partial_scoring_sentences(counts_of(parse_cards("一二三 七十 二 壹贰叁四")))
    12
    >>> partial_scoring_sentences(counts_of(parse_cards("一二三 七十")), LUZHOU_HUXI)
    6
    """
    return (_size_scoring(counts[:10], table.yi_er_san[0], table.er_qi_shi[0])
            + _size_scoring(counts[10:], table.yi_er_san[1], table.er_qi_shi[1]))


_SCORING_CARD_VALUES = frozenset(v for values in SCORING_VALUES for v in values)


def scoring_gain(counts: Sequence[int], card: int, table: HuxiTable = QQ_HUXI) -> int:
    """How much one more ``card`` adds to :func:`partial_scoring_sentences` of ``counts``.

    >>> from paohuzi.core.cards import counts_of, parse_cards, Card
    >>> counts = counts_of(parse_cards("一二 七 壹贰"))
    >>> [scoring_gain(counts, Card.parse(c)) for c in "三十叁四"]
    [3, 3, 6, 0]
    >>> scoring_gain(counts_of(parse_cards("一二三 七")), Card.parse("十"))  # one 二 only
    0
    """
    value = card % 10
    if value not in _SCORING_CARD_VALUES:
        return 0
    offset = card - value
    big = offset > 0
    weights = table.yi_er_san[big], table.er_qi_shi[big]
    c = list(counts[offset : offset + 10])
    before = _size_scoring(c, *weights)
    c[value] += 1
    return _size_scoring(c, *weights) - before


def partial_scoring_split(counts: Sequence[int], table: HuxiTable = QQ_HUXI) -> list[Shape]:
    """The scoring sentences :func:`partial_scoring_sentences` counts, as card triples.

    Per size, as many of the better-scoring of 一二三 / 二七十 as fit (一二三 on a tie),
    then the other with the 2s left: optimal, since the two share only the 2.

    >>> from paohuzi.core.cards import counts_of, parse_cards, format_cards
    >>> [format_cards(s) for s in partial_scoring_split(counts_of(parse_cards("一二三 七十 二")))]
    ['一二三', '二七十']
    """
    left = list(counts)
    shapes: list[Shape] = []
    for offset in (0, 10):
        big = offset > 0
        order = list(SCORING_VALUES)
        if table.er_qi_shi[big] > table.yi_er_san[big]:
            order.reverse()
        for values in order:
            shape = tuple(offset + v for v in values)
            n = min(left[c] for c in shape)
            for c in shape:
                left[c] -= n
            shapes.extend([shape] * n)
    return shapes
