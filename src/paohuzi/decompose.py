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

>>> from paohuzi.cards import counts_of, parse_cards
>>> best_free_huxi(counts_of(parse_cards("一二三 二七十 壹贰叁 九九玖")), need_pair=False)
12
>>> best_free_huxi(counts_of(parse_cards("一二三 四")), need_pair=False)
-1
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

from paohuzi.groups import SCORING_SENTENCE_HUXI

__all__ = [
    "best_free_huxi",
    "best_free_split",
    "clear_caches",
    "partial_scoring_sentences",
]

_IMPOSSIBLE = -1
Shape = tuple[int, ...]

# One size's ten counts are packed into an int, 3 bits a value (counts 0..4):
# ``code = sum(count[v] << 3 * v)``. Removing a sentence is one subtraction.
_BITS = 3
_FIELD = 7
_RUN = (1 << 0) | (1 << 3) | (1 << 6)  # one card at v, v+1, v+2
_ERQISHI = (1 << 3) | (1 << 18) | (1 << 27)  # 二七十: values 2, 7, 10

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
    shift = ((code & -code).bit_length() - 1) // _BITS * _BITS  # lowest value present
    best = _IMPOSSIBLE
    if shift <= 21 and (code >> (shift + 3)) & _FIELD and (code >> (shift + 6)) & _FIELD:
        r = _single_best(code - (_RUN << shift))
        if r >= 0:
            best = r + (1 if shift == 0 else 0)
    if shift == 3 and (code >> 18) & _FIELD and (code >> 27) & _FIELD:
        r = _single_best(code - _ERQISHI)
        if r >= 0 and r + 1 > best:
            best = r + 1
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
        candidates: list[tuple[int, int, int]] = []
        if i <= 7 and c[i + 1] and c[i + 2]:
            candidates.append((i, i + 1, i + 2))
        if i == 1 and c[6] and c[9]:
            candidates.append((1, 6, 9))
        for shape in candidates:
            for k in shape:
                c[k] -= 1
            gain = 1 if shape in ((0, 1, 2), (1, 6, 9)) else 0
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

    >>> from paohuzi.cards import counts_of, parse_cards
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


def partial_scoring_sentences(counts: Sequence[int]) -> int:
    """Most 胡息 from disjoint 一二三/二七十/壹贰叁/贰柒拾 in these cards (leftovers allowed).

    Per size, 一二三 and 二七十 share only the 2, so the best count is
    ``min(n2, min(n1, n3) + min(n7, n10))``.

    >>> from paohuzi.cards import counts_of, parse_cards
    >>> partial_scoring_sentences(counts_of(parse_cards("一二三 七十 二 壹贰叁四")))
    12
    """
    total = 0
    for offset, huxi in ((0, SCORING_SENTENCE_HUXI[0]), (10, SCORING_SENTENCE_HUXI[1])):
        c = counts[offset : offset + 10]
        total += huxi * min(c[1], min(c[0], c[2]) + min(c[6], c[9]))
    return total
