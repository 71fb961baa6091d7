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

from collections.abc import Sequence
from itertools import product

from paohuzi.core.groups import SCORING_SENTENCE_HUXI, SCORING_VALUES, SENTENCE_VALUES

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

# For each value, the sentences of one size whose lowest card it is (groups' table):
# ``(value triple, packed code, shifts of the two higher values, 1 if it scores)``.
_STARTING: tuple[tuple[tuple[Shape, int, tuple[int, int], int], ...], ...] = tuple(
    tuple((values, sum(1 << (_BITS * v) for v in values),
           (_BITS * values[1], _BITS * values[2]), int(values in SCORING_VALUES))
          for values in SENTENCE_VALUES if values[0] == low)
    for low in range(10))

# Single-size memo: code -> max number of scoring sentences (一二三 and 二七十 of that
# size), or -1 if the cards do not split into sentences.
_single_memo: dict[int, int] = {0: 0}


def clear_caches() -> None:
    """Forget every memoised decomposition (for cold benchmarks)."""
    _single_memo.clear()
    _single_memo[0] = 0


def _pack(counts: Sequence[int]) -> int:
    code = 0
    for v in range(9, -1, -1):
        code = (code << _BITS) | counts[v]
    return code


def _single_best(code: int) -> int:
    """Max scoring sentences in a split of one size's cards into sentences, else -1."""
    found = _single_memo.get(code)
    if found is not None:
        return found
    low = ((code & -code).bit_length() - 1) // _BITS  # the lowest value present
    best = _IMPOSSIBLE
    for _, mask, (a, b), scores in _STARTING[low]:
        if (code >> a) & _FIELD and (code >> b) & _FIELD:
            r = _single_best(code - mask)
            if r >= 0 and r + scores > best:
                best = r + scores
    _single_memo[code] = best
    return best


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


def _search(counts: Sequence[int], need_pair: bool
            ) -> tuple[int, tuple[tuple[int, int, int], ...], int]:
    """Best ``(huxi, jiao_choice, pair_card)``; huxi -1 when impossible."""
    small_total = sum(counts[:10])
    big_total = sum(counts[10:])
    if (small_total + big_total - (2 if need_pair else 0)) % 3:
        return _IMPOSSIBLE, (), -1
    best = _IMPOSSIBLE
    best_choice: tuple[tuple[int, int, int], ...] = ()
    best_pair = -1
    small_huxi, big_huxi = SCORING_SENTENCE_HUXI
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
            side, other_code = (small, big) if pair_small else (big, small)
            other = _single_best(other_code)
            if other < 0:
                continue
            for v in range(10):
                if (side >> (_BITS * v)) & _FIELD >= 2:
                    r = _single_best(side - (2 << (_BITS * v)))
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
            rs = _single_best(small)
            if rs < 0:
                continue
            rb = _single_best(big)
            if rb < 0:
                continue
            total = rs * small_huxi + rb * big_huxi
            if total > best:
                best, best_choice = total, choice
    return best, best_choice, best_pair


def best_free_huxi(counts: Sequence[int], need_pair: bool) -> int:
    """Max 胡息 of a split of free cards into sentences, 绞 and (iff ``need_pair``) one pair.

    Returns -1 when the cards cannot be split that way.
    """
    return _search(counts, need_pair)[0]


def _single_split(c: list[int], offset: int) -> list[Shape]:
    """Reconstruct the best sentences of one size (``c`` must be feasible)."""
    shapes: list[Shape] = []
    while any(c):
        i = next(k for k in range(10) if c[k])
        target = _single_best(_pack(c))
        for shape, _, _, gain in _STARTING[i]:
            if not all(c[k] for k in shape):
                continue
            for k in shape:
                c[k] -= 1
            r = _single_best(_pack(c))
            if r >= 0 and r + gain == target:
                shapes.append(tuple(k + offset for k in shape))
                break
            for k in shape:
                c[k] += 1
        else:  # pragma: no cover - guarded by feasibility
            raise AssertionError("infeasible single-size split")
    return shapes


def best_free_split(counts: Sequence[int], need_pair: bool
                    ) -> tuple[int, list[tuple[str, Shape]]] | None:
    """Like :func:`best_free_huxi`, with the groups: ``(huxi, [(kind, cards), ...])``.

    ``kind`` is ``"sentence"``, ``"jiao"`` or ``"pair"``; ``None`` when impossible.

    >>> from paohuzi.core.cards import counts_of, parse_cards
    >>> best_free_split(counts_of(parse_cards("一二三 九九玖 五五")), need_pair=True)
    (3, [('jiao', (8, 8, 18)), ('pair', (4, 4)), ('sentence', (0, 1, 2))])
    """
    huxi, choice, pair = _search(counts, need_pair)
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
    groups.extend(("sentence", s) for s in _single_split(c[:10], 0))
    groups.extend(("sentence", s) for s in _single_split(c[10:], 10))
    return huxi, groups


# The two scoring sentences of a size (一二三, 二七十) share one value, the 2.
_SCORING_A, _SCORING_B = SCORING_VALUES
(_SHARED,) = set(_SCORING_A) & set(_SCORING_B)
_A1, _A2 = (v for v in _SCORING_A if v != _SHARED)
_B1, _B2 = (v for v in _SCORING_B if v != _SHARED)


def _size_scoring(c: Sequence[int]) -> int:
    """Most disjoint 一二三/二七十 among one size's ten counts (only free cards)."""
    return min(c[_SHARED], min(c[_A1], c[_A2]) + min(c[_B1], c[_B2]))


def partial_scoring_sentences(counts: Sequence[int]) -> int:
    """Most 胡息 from disjoint 一二三/二七十/壹贰叁/贰柒拾 in these cards (leftovers allowed).

    Per size, 一二三 and 二七十 share only the 2, so the best count is
    ``min(n2, min(n1, n3) + min(n7, n10))``.

    >>> from paohuzi.core.cards import counts_of, parse_cards
    >>> partial_scoring_sentences(counts_of(parse_cards("一二三 七十 二 壹贰叁四")))
    12
    """
    small, big = SCORING_SENTENCE_HUXI
    return small * _size_scoring(counts[:10]) + big * _size_scoring(counts[10:])


_SCORING_CARD_VALUES = frozenset(v for values in SCORING_VALUES for v in values)


def scoring_gain(counts: Sequence[int], card: int) -> int:
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
    c = list(counts[offset : offset + 10])
    before = _size_scoring(c)
    c[value] += 1
    return SCORING_SENTENCE_HUXI[offset > 0] * (_size_scoring(c) - before)


def partial_scoring_split(counts: Sequence[int]) -> list[Shape]:
    """The scoring sentences :func:`partial_scoring_sentences` counts, as card triples.

    Per size, as many 一二三 as fit, then 二七十 with the 2s left: optimal, since the
    two share only the 2.

    >>> from paohuzi.core.cards import counts_of, parse_cards, format_cards
    >>> [format_cards(s) for s in partial_scoring_split(counts_of(parse_cards("一二三 七十 二")))]
    ['一二三', '二七十']
    """
    left = list(counts)
    shapes: list[Shape] = []
    for offset in (0, 10):
        for values in SCORING_VALUES:
            shape = tuple(offset + v for v in values)
            n = min(left[c] for c in shape)
            for c in shape:
                left[c] -= n
            shapes.extend([shape] * n)
    return shapes
