"""What the server says when it refuses a player, in each language the browser game
speaks: one table of words, so that a Chinese screen never shows an English refusal.

A refusal a player can meet through the game (a seat taken, a 场次's entry minimum, the
quick-match queue, a nickname, too many requests...) is raised with :func:`refusal`: its
English text is the exception's message (what API clients and logs always had), and the
exception carries ``words``, the text in every language. The HTTP API sends them as
``{"error": english, "words": {"en": ..., "zh": ...}}``, the WebSocket as ``{"type":
"error", "message": english, "words": {...}}`` (docs/protocol.md, "HTTP"); the browser
shows the words of its language. A refusal only a hand-made request can meet (malformed
JSON, an unknown field) stays in English: its reader is a developer.

>>> exc = refusal(ValueError, "seat_taken", seat=2)
>>> str(exc), exc.words["zh"]
('seat 2 is taken', '2 号座位已有人')
"""

from __future__ import annotations

import string
from collections.abc import Callable
from typing import TypeVar

__all__ = ["LANGUAGES", "WORDS", "refusal", "words", "words_of"]

LANGUAGES = ("en", "zh")
"""The languages of every refusal (the browser game's)."""

WORDS: dict[str, tuple[str, str]] = {
    # the bean economy (economy.py, hall.py)
    "entry_minimum": ("{title} ({english}) needs at least {entry} beans to sit; you hold "
                      "{beans}",
                      "{title}至少需要 {entry} 欢乐豆才能入座，你现有 {beans}"),
    "relief_not_due": ("the relief is for players holding under {below} beans; you hold "
                       "{beans}",
                       "救济豆只发给欢乐豆少于 {below} 的玩家，你现有 {beans}"),
    "relief_taken": ("you had today's relief already ({day}, UTC); the next one from "
                     "00:00 UTC",
                     "今天（{day}，UTC）的救济豆已领过，下一次从 UTC 0 点（北京时间 8 点）起"),
    # quick match (matchmaking.py)
    "already_queued": ("you are already in the quick-match queue ({title}, {preset}): "
                       "leave it first",
                       "你已在快速匹配的队列中（{title}，{preset}），请先退出"),
    "being_seated": ("you are being seated at a quick-match table: a moment",
                     "正在为你安排快速匹配的牌桌，请稍候"),
    # bounds on rooms and requests (roombounds.py, app.py)
    "server_full": ("the server is full ({rooms} rooms open): try again later",
                    "服务器已满（{rooms} 个房间开着），请稍后再试"),
    "too_many_open_rooms": ("too many open rooms: {who} has {open} {rooms} {which}, each "
                            "with someone connected or a match with other people; leave "
                            "one of them and try again",
                            "开着的房间太多：{who_zh}已有 {open} 个房间{which_zh}，每个都有人在线"
                            "或在与别人对局；请先离开其中一个再试"),
    "too_many_requests": ("too many {what} in a short time: wait a little and try again",
                          "{what_zh}太频繁，请稍后再试"),
    # nicknames and names shown to others (inputs.py)
    "nickname_kept": ("nicknames starting with 电脑/computer are kept for computer players",
                      "以“电脑”或“computer”开头的昵称留给电脑玩家"),
    "nickname_too_long": ("nickname too long: at most {most} characters",
                          "昵称太长：最多 {most} 个字"),
    "text_blank_character": ("{what} holds a blank character (U+{code}); use visible "
                             "characters",
                             "{what_zh}含有空白字符（U+{code}），请用看得见的字"),
    "text_hidden_character": ("{what} holds {kind} (U+{code}); use visible characters",
                              "{what_zh}含有看不见的字符（U+{code}），请用看得见的字"),
    "text_combining_start": ("{what} starts with a combining mark; start with a visible "
                             "character",
                             "{what_zh}不能以组合符号开头，请以看得见的字开头"),
    # at a table (table.py, protocol.py, quickchat.py)
    "seat_taken": ("seat {seat} is taken", "{seat} 号座位已有人"),
    "already_seated": ("you already sit at seat {seat}", "你已坐在 {seat} 号座位"),
    "not_seated": ("you do not sit at this table", "你没有坐在这张牌桌"),
    "not_your_decision": ("it is not your decision now", "现在不该你操作"),
    "sitting_out": ("you sit this hand out (醒家)", "你本局轮空（醒家/坐底），不出牌"),
    "no_hand": ("no hand in progress", "现在没有在打的一局"),
    "too_many_phrases": ("too many quick phrases: wait a few seconds",
                         "快捷语发得太快，请等几秒"),
    "too_many_messages": ("too many messages: slow down", "操作太快，请慢一点"),
    "room_not_found": ("room not found: no open room {code!r}",
                       "找不到房间：没有开着的房间 {code}"),
    "option_range": ("rules: {key} must be an integer {low}..{high}, got {value}",
                     "{key_zh}须为 {low} 到 {high} 的整数，填的是 {value}"),
}
"""Each refusal's words, English then Chinese, with ``{name}`` slots filled from the
same parameters (a parameter ending in ``_zh`` is the Chinese of another)."""

E = TypeVar("E", bound=BaseException)


def words(code: str, /, **params: object) -> dict[str, str]:
    """The words of refusal ``code`` in every language, its slots filled.

    >>> words("being_seated")["zh"]
    '正在为你安排快速匹配的牌桌，请稍候'
    """
    english, chinese = WORDS[code]
    return {"en": english.format(**params), "zh": chinese.format(**params)}


def refusal(kind: Callable[[str], E], code: str, /, **params: object) -> E:
    """An exception of ``kind`` (called with the English text) carrying the words of
    refusal ``code`` in every language (``words``)."""
    said = words(code, **params)
    exc = kind(said["en"])
    exc.words = said  # type: ignore[attr-defined]  # (PaohuziError declares it)
    return exc


def words_of(exc: BaseException) -> dict[str, str] | None:
    """The words an exception carries (:func:`refusal`), or None: English only."""
    said = getattr(exc, "words", None)
    return said if isinstance(said, dict) else None


def slots(template: str) -> set[str]:
    """The names of a template's ``{name}`` slots."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}
