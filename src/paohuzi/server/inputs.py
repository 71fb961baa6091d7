"""What comes in over HTTP, checked before anything is stored: bodies, JSON, nicknames.

Every refusal is a :class:`BadInput` with the HTTP status to answer and a message
naming what was wrong.

>>> parse_json(b'{"nickname": "Ming"}')
{'nickname': 'Ming'}
>>> parse_json(b'[' * 40 + b']' * 40)
Traceback (most recent call last):
...
paohuzi.server.inputs.BadInput: JSON nested deeper than 16 levels
>>> clean_nickname("  A\\u0301 li  ")
'Á li'
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import re
import unicodedata
from typing import Any

from starlette.requests import ClientDisconnect, Request

from paohuzi.server.refusals import refusal
from paohuzi.server.table import TableError

__all__ = ["MAX_DEPTH", "MAX_NICKNAME", "BadInput", "check_text", "check_visible",
           "clean_nickname", "parse_json", "read_body"]

MAX_DEPTH = 16
"""Deepest nesting of arrays/objects a JSON body may have."""
MAX_NICKNAME = 24
"""Longest nickname, in characters (after normalisation)."""
RESERVED_PREFIXES = ("电脑", "computer")
"""Nicknames may not start with these (:func:`reserved_fold`): they are how computer seats
are named."""

_IGNORABLE = re.compile("[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f"
                        "\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f"
                        "\ufeff\uffa0\U000e0000-\U000e0fff]")
"""Unicode's default-ignorable code points (DerivedCoreProperties): drawn as nothing.
Variation selectors among them are allowed in a name (an emoji's ❤️), never inside a
reserved prefix."""

_HAN_LOOKALIKES = {"電": "电", "腦": "脑", "脳": "脑", "甩": "电"}
"""Han characters drawn like those of 电脑: traditional and Japanese forms, and 甩 (电
with a hook). Unicode's confusables list none of them."""
_SMALL_LETTER = re.compile(r"(?:LATIN LETTER SMALL CAPITAL|MODIFIER LETTER (?:SMALL|CAPITAL)"
                           r"|LATIN (?:SMALL|CAPITAL) LETTER)( REVERSED| TURNED)? ([A-Z])$")

_PHONETIC_BLOCKS = ((0x0250, 0x0300), (0x1D00, 0x1E00), (0x2C60, 0x2D00), (0xA700, 0xA800),
                    (0xAB30, 0xAB70), (0x10780, 0x107C0))
"""The blocks holding small-capital and modifier forms of Latin letters (IPA, phonetic
extensions, Latin Extended-C to -F)."""


@functools.cache
def _lookalikes() -> dict[int, str]:
    """Each character drawn like an ASCII letter or digit, as that letter: Unicode's
    confusables (the ``confusable_homoglyphs`` package's copy of UTS #39's list: Cyrillic,
    Greek, Cherokee, Coptic, Deseret, mathematical letters...) plus every small-capital and
    modifier form of a Latin letter by its character name (ᴍ, ʀ: the list links them to
    other look-alikes, not to the letter)."""
    from confusable_homoglyphs.confusables import confusables_data

    table: dict[int, str] = {}
    for char, homoglyphs in confusables_data.items():
        if len(char) != 1:
            continue
        for homoglyph in homoglyphs:
            other = homoglyph["c"]
            if char.isascii() and char.isalnum() and len(other) == 1 and not other.isascii():
                table.setdefault(ord(other), char.lower())
            elif other.isascii() and other.isalnum() and not char.isascii():
                table.setdefault(ord(char), other.lower())
    for code in itertools.chain.from_iterable(range(*block) for block in _PHONETIC_BLOCKS):
        match = _SMALL_LETTER.match(unicodedata.name(chr(code), ""))
        if match and not match.group(1):
            table.setdefault(code, match.group(2).lower())
    table.update({ord(han): simple for han, simple in _HAN_LOOKALIKES.items()})
    table[ord("0")] = "o"
    return table


def reserved_fold(text: str) -> str:
    """``text`` as the reserved-prefix check reads it: look-alike letters as the ones they
    imitate (before and after NFKC, which turns some of them into other look-alikes: ϲ into
    σ), casefolded, without white space or default-ignorable characters.

    >>> reserved_fold("電 腦·阿福"), reserved_fold("Cо\u034fmрuter"), reserved_fold("cornputer")
    ('电脑·阿福', 'computer', 'computer')
    >>> reserved_fold("ϲᴏᴍᴘᴜᴛᴇʀ"), reserved_fold("电脳")
    ('computer', '电脑')
    """
    lookalikes = _lookalikes()
    folded = unicodedata.normalize("NFKC", text.translate(lookalikes)).casefold()
    folded = "".join(_IGNORABLE.sub("", folded).split())
    return folded.translate(lookalikes).replace("rn", "m")


_BANNED_CATEGORIES = {"Cc": ("a control character", "控制字符"),
                      "Cf": ("an invisible formatting character", "看不见的格式字符"),
                      "Cs": ("a lone surrogate", "不成对的代理字符"),
                      "Co": ("a private-use character", "私用区字符"),
                      "Cn": ("an unassigned character", "本服务器还不认识的字符"),
                      "Zl": ("a line separator", "换行符"),
                      "Zp": ("a paragraph separator", "分段符")}


class BadInput(TableError):
    """A request refused before anything is stored; ``status`` is the HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


async def read_body(request: Request, limit: int, timeout: float) -> bytes:
    """The body, read as it streams in and refused (413) as soon as it passes ``limit``
    bytes: a big body is never held in memory. A declared Content-Length above the limit
    is refused before anything is read; a body slower than ``timeout`` seconds gets 408."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not (declared.isascii() and declared.isdigit()):
            raise BadInput("Content-Length must be a number of bytes")
        if int(declared) > limit:
            raise BadInput(f"request body too large: at most {limit} bytes", 413)
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(timeout):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise BadInput(f"request body too large: at most {limit} bytes", 413)
                chunks.append(chunk)
    except TimeoutError:
        raise BadInput(f"request body not received within {timeout:g} s", 408) from None
    except ClientDisconnect:
        raise BadInput("the request body was cut off") from None
    return b"".join(chunks)


def parse_json(raw: bytes) -> dict[str, Any]:
    """A JSON object from UTF-8 bytes (empty: ``{}``), every string in it valid Unicode."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadInput(f"the body must be UTF-8 (bad byte at offset {exc.start})") from None
    if _depth(text) > MAX_DEPTH:
        raise BadInput(f"JSON nested deeper than {MAX_DEPTH} levels")
    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError as exc:
        raise BadInput(f"malformed JSON: {exc}") from None
    if not isinstance(data, dict):
        raise BadInput("expected a JSON object")
    _check_strings(data)
    return data


def _depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` outside strings (checked before parsing, so a
    deep body never reaches the recursive parser)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _check_strings(value: Any, where: str = "body") -> None:
    if isinstance(value, str):
        check_text(value, where)
    elif isinstance(value, dict):
        for key, item in value.items():
            check_text(key, where)
            _check_strings(item, f"{where}.{key}" if where != "body" else key)
    elif isinstance(value, list):
        for item in value:
            _check_strings(item, where)


def check_text(text: str, where: str) -> None:
    """Refuse text that cannot be stored or sent as UTF-8 (a lone surrogate)."""
    for ch in text:
        if 0xD800 <= ord(ch) <= 0xDFFF:
            raise BadInput(f"{where}: text holds a lone surrogate (U+{ord(ch):04X}); "
                           "send valid Unicode")


BLANK_LOOKALIKES = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5")
"""Characters that render as nothing (Hangul fillers, the braille blank, Khmer inherent
vowels) while their categories pass: they would hide a name or a reserved prefix.
(Wide and no-break spaces are white space: folded into one plain space.)"""


_WHAT_ZH = {"nickname": "昵称", "rules: name": "规则名称"}
"""The Chinese of :func:`check_visible`'s ``what`` (a player's refusal words)."""


def check_visible(text: str, what: str, spaces: str = "") -> None:
    """Refuse (:class:`BadInput`) text shown to other people that holds control, bidi or
    zero-width characters, lone surrogates, private-use or unassigned characters, blank
    look-alikes, or starts with a combining mark (``spaces``: white space allowed).

    >>> try:
    ...     check_visible("qq\u202e", "name")
    ... except BadInput as exc:
    ...     print(exc)
    name holds an invisible formatting character (U+202E); use visible characters
    """
    for ch in text:
        category = unicodedata.category(ch)
        if category in _BANNED_CATEGORIES and ch not in spaces:
            raise refusal(BadInput, "text_hidden_character", what=what,
                          what_zh=_WHAT_ZH.get(what, what), code=f"{ord(ch):04X}",
                          kind=_BANNED_CATEGORIES[category][0],
                          kind_zh=_BANNED_CATEGORIES[category][1])
        if ch in BLANK_LOOKALIKES:
            raise refusal(BadInput, "text_blank_character", what=what,
                          what_zh=_WHAT_ZH.get(what, what), code=f"{ord(ch):04X}")
    if text and unicodedata.category(text.lstrip()[:1] or "a") in ("Mn", "Me"):
        raise refusal(BadInput, "text_combining_start", what=what,
                      what_zh=_WHAT_ZH.get(what, what))


def clean_nickname(value: Any) -> str:
    """A nickname as stored: NFC, runs of spaces as one, no control, bidi or zero-width
    characters (refused, not dropped), at most :data:`MAX_NICKNAME` characters, not
    looking like a computer seat ("电脑 (hard)"). Empty becomes "玩家"."""
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise BadInput("nickname must be text")
    text = unicodedata.normalize("NFC", value)
    check_visible(text, "nickname", spaces=" \t\n")
    text = " ".join(text.split())
    if len(text) > MAX_NICKNAME:
        raise refusal(BadInput, "nickname_too_long", most=MAX_NICKNAME)
    if reserved_fold(text).startswith(RESERVED_PREFIXES):
        raise refusal(BadInput, "nickname_kept")
    return text or "玩家"
