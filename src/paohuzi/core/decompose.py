"""The fast core of the solver: split free hand cards into groups for the most 胡息.

"Free" cards are the hand cards outside 坎 and 提 (those are locked whole,
docs/rules.md §2). Free cards form only 一句话 (sentences), 绞 and — exactly when a
跑/提 is owned — one pair; of these only 一二三 / 二七十 and 壹贰叁 / 贰柒拾 score
(§5; how much, the 胡息 table says).

How the speed is reached: one search, value by value, memoised on what is left.

* The cards of the lowest value left must all be used by groups that hold no lower
  card: 绞 of that value, the pair, and sentences *starting* there (a run, or
  二七十 at the 2). So one step decides everything at that value, both sizes at
  once, and removes those groups whole; what is left holds only higher values.
* Every state (the counts left, 3 bits a card, and whether the pair is still owed)
  is solved once and remembered with its best step, in dicts shared by every query.
  Different 绞 choices that leave the same cards meet in one state, so the cost
  grows with the number of distinct states, not with the product of the 绞
  choices; the best arrangement is read back along the remembered steps.
* The steps of each (value, small count, big count) are worked out once per 胡息
  table, with their 胡息 and their groups, so a step is one subtraction, one
  borrow test and one lookup.
* A state fits a machine word (60 bits), so the compiled build's search runs on C
  integers, and a step is a native object there: no tuple is unboxed or built.

>>> from paohuzi.core.cards import counts_of, parse_cards
>>> best_free_huxi(counts_of(parse_cards("一二三 二七十 壹贰叁 九九玖")), need_pair=False)
12
>>> best_free_huxi(counts_of(parse_cards("一二三 四")), need_pair=False)
-1
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import lshift
from typing import Final, NamedTuple

from paohuzi.core.cards import ALL_CARDS, KINDS
from paohuzi.core.errors import CardCountError
from paohuzi.core.groups import (
    QQ_HUXI,
    SCORING_VALUES,
    SENTENCE_VALUES,
    Group,
    GroupKind,
    HuxiTable,
)

__all__ = [
    "best_free_groups",
    "best_free_huxi",
    "best_free_split",
    "best_packed_groups",
    "best_packed_huxi",
    "clear_caches",
    "pack_free",
    "packed",
    "partial_scoring_sentences",
    "partial_scoring_split",
    "scoring_gain",
]

_IMPOSSIBLE: Final = -1
Shape = tuple[int, ...]

# The counts are packed into one int, 3 bits a card, the two sizes of a value side by
# side: card ``v`` (small) at bit ``6 * v``, card ``v + 10`` (big) at ``6 * v + 3``: 60
# bits, a machine word for the compiled build. A step subtracts its cards from the code
# and fits exactly when no field borrowed from the one above it: the bits where
# ``code ^ removed ^ rest`` is set are the borrows, so none may be a field's lowest bit
# (nor the bit above the last field: the code went negative).
_FIELD: Final = 3
_VALUE_BITS: Final = 2 * _FIELD
_VALUE_MASK: Final = (1 << _VALUE_BITS) - 1
_BORROWS: Final = sum(1 << (_FIELD * i) for i in range(1, KINDS + 1))
_MOST: Final = 4
"""The most copies of a card the search takes (the deck's)."""


def _bit(card: int) -> int:
    """The shift of ``card``'s field in a packed code."""
    return _VALUE_BITS * (card % 10) + _FIELD * (card >= 10)


def _pack(counts: Sequence[int]) -> int:
    """The packed code of a count vector (the fields are disjoint: a sum is an or).

    >>> _pack([1] + [0] * 9 + [2] + [0] * 9) == 1 | 2 << 3
    True
    >>> _pack([5] + [0] * 19)
    Traceback (most recent call last):
    ...
    paohuzi.core.errors.CardCountError: free cards hold 0 to 4 of each card, got 5 of 一
    """
    if len(counts) != KINDS or min(counts) < 0 or max(counts) > _MOST:
        raise CardCountError(_bad_counts(counts))
    return sum(map(lshift, counts, _BIT))


def pack_free(counts: Sequence[int]) -> int:
    """:func:`_pack` of counts the caller knows to be valid (20 counts of 0 to 4), unchecked
    (for the engine's trusted path).

    >>> pack_free([1] + [0] * 9 + [2] + [0] * 9) == packed(0) + packed(10, 2)
    True
    """
    code = 0
    for card, n in enumerate(counts):  # a loop: machine-word arithmetic when compiled
        code += n << _BIT[card]
    return code


def packed(card: int, n: int = 1) -> int:
    """``n`` copies of ``card`` as a packed code (negative ``n``: to take them off one).

    >>> packed(1, 2) == 2 << 6
    True
    """
    return n << _BIT[card]


def _bad_counts(counts: Sequence[int]) -> str:
    """What is wrong with a count vector :func:`_pack` refuses."""
    if len(counts) != KINDS:
        return f"free cards are {KINDS} counts, got {len(counts)}"
    card = next(c for c in range(KINDS) if not 0 <= counts[c] <= _MOST)
    return (f"free cards hold 0 to {_MOST} of each card, got {counts[card]} of "
            f"{ALL_CARDS[card].text}")


_BIT: Final = tuple(_bit(c) for c in range(KINDS))

class Step:
    """One step at the lowest value: the packed cards it removes, their 胡息 and groups,
    and whether it takes the owed pair. (A native class in the compiled build: the search
    reads its fields without unboxing a tuple.)"""

    def __init__(self, removed: int, huxi: int, groups: tuple[Group, ...], pair: bool
                 ) -> None:
        self.removed = removed
        self.huxi = huxi
        self.groups = groups
        self.pair = pair


class _Steps(NamedTuple):
    """The steps of one 胡息 table, by value and by ``small | big << 3`` (the counts
    there): without the pair, and while it is owed."""

    plain: tuple[tuple[tuple[Step, ...], ...], ...]
    owing: tuple[tuple[tuple[Step, ...], ...], ...]


_STARTING: Final = tuple(tuple(v for v in SENTENCE_VALUES if v[0] == low) for low in range(10))
"""Per value, one size's sentences (value triples) whose lowest card it is (§2)."""


def _sentence_starts(value: int, n: int) -> list[tuple[int, ...]]:
    """The ways ``n`` cards of one size at ``value`` start sentences: how many of each
    sentence of :data:`_STARTING` (none when ``n`` cards can't)."""
    shapes = len(_STARTING[value])
    if shapes == 0:
        return [()] if n == 0 else []
    ways: list[tuple[int, ...]] = [(n,)]
    for _ in range(shapes - 1):
        ways = [(*w[:-1], k, w[-1] - k) for w in ways for k in range(w[-1] + 1)]
    return ways


def _value_steps(value: int, small: int, big: int, owing: bool, table: HuxiTable
                 ) -> list[Step]:
    """Every way to use ``small`` small and ``big`` big cards of ``value``, all of them."""
    steps: list[Step] = []
    for k1 in range(small // 2 + 1):  # 绞 of two small and one big (九九玖)
        for k2 in range(big // 2 + 1):  # 绞 of one small and two big (九玖玖)
            s, b = small - 2 * k1 - k2, big - k1 - 2 * k2
            if s < 0 or b < 0:
                continue
            jiao = (k1, k2)
            pairs = [(0, 0)]  # (small pairs, big pairs) of this value
            if owing and s >= 2:
                pairs.append((1, 0))
            if owing and b >= 2:
                pairs.append((0, 1))
            for pair_small, pair_big in pairs:
                for small_starts in _sentence_starts(value, s - 2 * pair_small):
                    for big_starts in _sentence_starts(value, b - 2 * pair_big):
                        steps.append(_step(value, small, big, jiao, (pair_small, pair_big),
                                           (small_starts, big_starts), table))
    return steps


def _step(value: int, small: int, big: int, jiao: tuple[int, int], pair: tuple[int, int],
          starts: tuple[tuple[int, ...], tuple[int, ...]], table: HuxiTable) -> Step:
    """The removed cards, 胡息 and groups of one way to use the cards of ``value``."""
    removed = (small << _BIT[value]) | (big << _BIT[value + 10])
    groups: list[Group] = []
    k1, k2 = jiao
    groups += [Group(GroupKind.JIAO, (ALL_CARDS[value],) * 2 + (ALL_CARDS[value + 10],),
                     table)] * k1
    groups += [Group(GroupKind.JIAO, (ALL_CARDS[value],) + (ALL_CARDS[value + 10],) * 2,
                     table)] * k2
    for size, has_pair in enumerate(pair):
        if has_pair:
            groups.append(Group.identical(GroupKind.PAIR, value + 10 * size, table))
    huxi = 0
    for size, counts in enumerate(starts):
        for values, n in zip(_STARTING[value], counts, strict=True):
            if not n:
                continue
            cards = tuple(ALL_CARDS[v + 10 * size] for v in values)
            for card in cards[1:]:
                removed += n << _BIT[card]
            group = Group(GroupKind.SENTENCE, cards, table)
            groups += [group] * n
            huxi += n * group.huxi
    return Step(removed, huxi, tuple(groups), pair != (0, 0))


def _steps(table: HuxiTable) -> _Steps:
    """Every step of every (value, small count, big count), scored by ``table``."""
    plain: list[tuple[tuple[Step, ...], ...]] = []
    owing: list[tuple[tuple[Step, ...], ...]] = []
    for value in range(10):
        row_plain: list[tuple[Step, ...]] = []
        row_owing: list[tuple[Step, ...]] = []
        for index in range(1 << _VALUE_BITS):
            small, big = index & ((1 << _FIELD) - 1), index >> _FIELD
            if small > _MOST or big > _MOST:
                row_plain.append(())
                row_owing.append(())
                continue
            row_plain.append(tuple(_value_steps(value, small, big, False, table)))
            row_owing.append(tuple(_value_steps(value, small, big, True, table)))
        plain.append(tuple(row_plain))
        owing.append(tuple(row_owing))
    return _Steps(tuple(plain), tuple(owing))


_LOWEST_VALUE: Final = (-1, *(b // _VALUE_BITS for b in range(KINDS * _FIELD)))
"""The value of a code's lowest card, by the bit length of its lowest set bit."""


class _Search:
    """One 胡息 table's memoised value-by-value search (see the module): its steps, and
    the memos (best 胡息 and best step of each state), without the pair and while it is
    owed. (A native class in the compiled build: its attributes and methods are C.)"""

    def __init__(self, table: HuxiTable) -> None:
        steps = _steps(table)
        self.by_plain = steps.plain
        self.by_owing = steps.owing
        self.memo_plain: dict[int, int] = {0: 0}
        self.memo_owing: dict[int, int] = {0: _IMPOSSIBLE}
        self.step_plain: dict[int, Step] = {}
        self.step_owing: dict[int, Step] = {}

    def plain(self, code: int) -> int:
        """The most 胡息 of ``code``'s cards in sentences and 绞, or -1 (``code`` unseen)."""
        value = _LOWEST_VALUE[(code & -code).bit_length()]
        memo = self.memo_plain
        borrows = _BORROWS
        best = _IMPOSSIBLE
        chosen: Step | None = None
        for step in self.by_plain[value][(code >> value * _VALUE_BITS) & _VALUE_MASK]:
            removed = step.removed
            rest = code - removed
            if (code ^ removed ^ rest) & borrows:  # a count went below 0: no fit
                continue
            r = memo.get(rest)
            if r is None:
                r = self.plain(rest)
            if r >= 0 and r + step.huxi > best:
                best, chosen = r + step.huxi, step
        memo[code] = best
        if chosen is not None:
            self.step_plain[code] = chosen
        return best

    def owing(self, code: int) -> int:
        """:meth:`plain` with one pair owed (``code`` unseen)."""
        value = _LOWEST_VALUE[(code & -code).bit_length()]
        memo = self.memo_owing
        memo_plain = self.memo_plain
        borrows = _BORROWS
        best = _IMPOSSIBLE
        chosen: Step | None = None
        for step in self.by_owing[value][(code >> value * _VALUE_BITS) & _VALUE_MASK]:
            removed = step.removed
            rest = code - removed
            if (code ^ removed ^ rest) & borrows:
                continue
            if step.pair:
                r = memo_plain.get(rest)
                if r is None:
                    r = self.plain(rest)
            else:
                r = memo.get(rest)
                if r is None:
                    r = self.owing(rest)
            if r >= 0 and r + step.huxi > best:
                best, chosen = r + step.huxi, step
        memo[code] = best
        if chosen is not None:
            self.step_owing[code] = chosen
        return best


_searches: dict[HuxiTable, _Search] = {}
_MEMO_LIMIT: Final = 1 << 17
"""A table's memos are emptied when they hold this many states together (a bound on
their memory: about 110 bytes a state)."""


def _search_of(table: HuxiTable) -> _Search:
    found = _searches.get(table)
    if found is None:
        found = _searches[table] = _Search(table)
    return found


_QQ: Final = _search_of(QQ_HUXI)


def clear_caches() -> None:
    """Forget every memoised state (for cold benchmarks)."""
    for search in _searches.values():
        _clear(search)


def _clear(search: _Search) -> None:
    for memo in (search.memo_plain, search.memo_owing):
        memo.clear()
    search.memo_plain[0] = 0
    search.memo_owing[0] = _IMPOSSIBLE
    search.step_plain.clear()
    search.step_owing.clear()


def _solve(code: int, need_pair: bool, search: _Search) -> int:
    """The best 胡息 of the packed cards ``code`` (-1 if none), its states remembered."""
    memo = search.memo_owing if need_pair else search.memo_plain
    found = memo.get(code)
    if found is not None:
        return found
    if len(search.memo_plain) + len(search.memo_owing) >= _MEMO_LIMIT:
        _clear(search)
    return search.owing(code) if need_pair else search.plain(code)


def best_free_huxi(counts: Sequence[int], need_pair: bool, table: HuxiTable = QQ_HUXI) -> int:
    """Max 胡息 of a split of free cards into sentences, 绞 and (iff ``need_pair``) one pair,
    scored by ``table``.

    Returns -1 when the cards cannot be split that way.

    >>> from paohuzi.core.cards import counts_of, parse_cards
    >>> from paohuzi.core.groups import LUZHOU_HUXI
    >>> best_free_huxi(counts_of(parse_cards("一二三 二七十 贰柒拾")), False, LUZHOU_HUXI)
    18
    """
    code = _pack(counts)
    if (sum(counts) - 2 * need_pair) % 3:
        return _IMPOSSIBLE
    return _solve(code, need_pair, _QQ if table is QQ_HUXI else _search_of(table))


def best_packed_huxi(code: int, need_pair: bool, table: HuxiTable = QQ_HUXI) -> int:
    """:func:`best_free_huxi` of packed free cards (:func:`pack_free`) whose number, less
    the pair when ``need_pair``, the caller has checked to be a multiple of 3.

    >>> from paohuzi.core.cards import counts_of, parse_cards
    >>> best_packed_huxi(pack_free(counts_of(parse_cards("一二三 二七十 壹贰叁"))), False)
    12
    """
    return _solve(code, need_pair, _QQ if table is QQ_HUXI else _search_of(table))


def best_free_groups(counts: Sequence[int], need_pair: bool, table: HuxiTable = QQ_HUXI
                     ) -> tuple[int, list[Group]] | None:
    """:func:`best_free_huxi` with its groups (scored by ``table``), or ``None``.

    The search runs once (or not at all, when :func:`best_free_huxi` was just asked the
    same): the groups are read back along the best step remembered for each state.

    >>> from paohuzi.core.cards import counts_of, parse_cards
    >>> huxi, groups = best_free_groups(counts_of(parse_cards("一二三 九九玖 五五")), True)
    >>> huxi, [str(g) for g in groups]
    (3, ['sentence:一二三', 'pair:五五', 'jiao:九九玖'])
    """
    code = _pack(counts)
    if (sum(counts) - 2 * need_pair) % 3:
        return None
    return best_packed_groups(code, need_pair, table)


def best_packed_groups(code: int, need_pair: bool, table: HuxiTable = QQ_HUXI
                       ) -> tuple[int, list[Group]] | None:
    """:func:`best_free_groups` of packed free cards, as :func:`best_packed_huxi` takes them.

    >>> from paohuzi.core.cards import counts_of, parse_cards
    >>> huxi, groups = best_packed_groups(pack_free(counts_of(parse_cards("一二三 五五"))), True)
    >>> huxi, [str(g) for g in groups]
    (3, ['sentence:一二三', 'pair:五五'])
    """
    search = _QQ if table is QQ_HUXI else _search_of(table)
    huxi = _solve(code, need_pair, search)
    if huxi < 0:
        return None
    groups: list[Group] = []
    owed = need_pair
    while code:
        if owed:
            step = search.step_owing[code]
            owed = not step.pair
        else:
            step = search.step_plain[code]
        groups += step.groups
        code -= step.removed  # the step fits: no borrow
    return huxi, groups


def best_free_split(counts: Sequence[int], need_pair: bool, table: HuxiTable = QQ_HUXI
                    ) -> tuple[int, list[tuple[str, Shape]]] | None:
    """Like :func:`best_free_huxi`, with the groups: ``(huxi, [(kind, cards), ...])``.

    ``kind`` is ``"sentence"``, ``"jiao"`` or ``"pair"``; ``None`` when impossible.

    >>> from paohuzi.core.cards import counts_of, parse_cards
    >>> best_free_split(counts_of(parse_cards("一二三 九九玖 五五")), need_pair=True)
    (3, [('sentence', (0, 1, 2)), ('pair', (4, 4)), ('jiao', (8, 8, 18))])
    """
    found = best_free_groups(counts, need_pair, table)
    if found is None:
        return None
    huxi, groups = found
    return huxi, [(g.kind.value, tuple(int(c) for c in g.cards)) for g in groups]


# The two scoring sentences of a size (一二三, 二七十) share one value, the 2.
_SCORING_A, _SCORING_B = SCORING_VALUES
(_SHARED,) = set(_SCORING_A) & set(_SCORING_B)
_A1, _A2 = (v for v in _SCORING_A if v != _SHARED)
_B1, _B2 = (v for v in _SCORING_B if v != _SHARED)


def _size_scoring(c: Sequence[int], offset: int, weight_a: int, weight_b: int) -> int:
    """Most 胡息 of disjoint 一二三 (``weight_a`` each) and 二七十 (``weight_b``) among one
    size's free counts (``c[offset:offset + 10]``): as many of the better one as fit, then
    the other with the 2s left — optimal, since the two share only the 2."""
    a1, a2, b1, b2 = c[offset + _A1], c[offset + _A2], c[offset + _B1], c[offset + _B2]
    a = a1 if a1 < a2 else a2  # conditional expressions: quicker than min() here
    b = b1 if b1 < b2 else b2
    twos = c[offset + _SHARED]
    if weight_a < weight_b:
        a, b, weight_a, weight_b = b, a, weight_b, weight_a
    first = a if a < twos else twos
    twos -= first
    return weight_a * first + weight_b * (b if b < twos else twos)


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
    small_a, big_a = table.yi_er_san
    small_b, big_b = table.er_qi_shi
    return (_size_scoring(counts, 0, small_a, small_b)
            + _size_scoring(counts, 10, big_a, big_b))


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
    weight_a, weight_b = table.yi_er_san[big], table.er_qi_shi[big]
    c = list(counts[offset : offset + 10])
    before = _size_scoring(c, 0, weight_a, weight_b)
    c[value] += 1
    return _size_scoring(c, 0, weight_a, weight_b) - before


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
