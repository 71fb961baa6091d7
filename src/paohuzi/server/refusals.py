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

__all__ = ["LANGUAGES", "WORDS", "refusal", "slots", "words", "words_of"]

LANGUAGES = ("en", "zh")
"""The languages of every refusal (the browser game's)."""

WORDS: dict[str, tuple[str, str]] = {
    # the bean economy (economy.py, hall.py)
    "entry_minimum": ("{title} ({english}) needs at least {entry} beans to sit; you hold "
                      "{beans}",
                      "{title}入场至少需要 {entry} 欢乐豆，你现有 {beans} 欢乐豆"),
    "relief_not_due": ("the relief is for players holding under {below} beans; you hold "
                       "{beans}",
                       "救济豆只发给欢乐豆少于 {below} 的玩家，你现有 {beans} 欢乐豆"),
    "relief_taken": ("you had today's relief already ({day}, UTC); the next one from "
                     "00:00 UTC",
                     "今天的救济豆已经领过（按 UTC 日期 {day} 计），北京时间早上 8 点后可再领"),
    # quick match (matchmaking.py)
    "already_queued": ("you are already in the quick-match queue ({title}, {preset}): "
                       "leave it first",
                       "你已经在{title}（{preset_zh}）快速开始的队列里了，请先取消"),
    "being_seated": ("you are being seated at a quick-match table: a moment",
                     "正在为你安排快速开始的牌桌，请稍候"),
    # bounds on rooms, connections and requests (roombounds.py, protocol.py, app.py)
    "server_full": ("the server is full ({rooms} rooms open): try again later",
                    "服务器已满（{rooms} 个房间在用），请稍后再试"),
    "too_many_open_rooms": ("too many open rooms: {who} has {open} {rooms} {which}, each "
                            "with someone connected or a match with other people; leave "
                            "one of them and try again",
                            "同时开的房间太多：{who_zh}已有 {open} 个{which_zh}房间，而且都还"
                            "在用；请先离开其中一个再试"),
    "too_many_requests": ("too many {what} in a short time: wait a little and try again",
                          "{what_zh}太频繁，请稍后再试"),
    "connections_address_rate": ("too many connections from your address: slow down",
                                 "你的网络地址连接太频繁，请稍后再试"),
    "connections_address_open": ("too many open connections from your address: close some",
                                 "你的网络地址同时开的连接太多，请关掉一些页面"),
    "connections_account_rate": ("too many connections by your account: slow down",
                                 "你的账号连接太频繁，请稍后再试"),
    "connections_account_open": ("too many open connections by your account: close some",
                                 "你的账号同时开的连接太多，请关掉一些页面"),
    "connections_player": ("too many connections",
                           "你在这个房间开的页面太多，请关掉一些"),
    "spectators_full": ("too many connections: this room's spectator places are full",
                        "这个房间的观战位已满"),
    # nicknames and names shown to others (inputs.py)
    "nickname_kept": ("nicknames starting with 电脑/computer are kept for computer players",
                      "以“电脑”或“computer”开头的昵称留给电脑玩家"),
    "nickname_too_long": ("nickname too long: at most {most} characters",
                          "昵称太长：最多 {most} 个字"),
    "text_blank_character": ("{what} holds a blank character (U+{code}); use visible "
                             "characters",
                             "{what_zh}含有空白字符（U+{code}），请使用可见字符"),
    "text_hidden_character": ("{what} holds {kind} (U+{code}); use visible characters",
                              "{what_zh}含有{kind_zh}（U+{code}），请使用可见字符"),
    "text_combining_start": ("{what} starts with a combining mark; start with a visible "
                             "character",
                             "{what_zh}不能以组合符号开头，请以可见字符开头"),
    # a room's options (table.py)
    "option_range": ("rules: {key} must be an integer {low}..{high}, got {value}",
                     "“{key_zh}”应为 {low} 到 {high} 之间的整数，当前为 {value}"),
    "timing_range": ("{key}: expected a number of seconds {low}..{high}",
                     "“{key_zh}”应为 {low} 到 {high} 秒"),
    "option_choice": ("rules: {key} must be one of {choices}, got {value}",
                      "“{key_zh}”应为以下之一：{choices_zh}；当前为 {value}"),
    "option_needs": ("rules: {key} applies only with {needs}",
                     "“{key_zh}”只能在{needs_zh}时选用"),
    "rules_invalid": ("rules: {detail}", "玩法设置不成立：{detail}"),
    # at a table (table.py, protocol.py, quickchat.py)
    "seat_taken": ("seat {seat} is taken", "{seat} 号座位已有人"),
    "already_seated": ("you already sit at seat {seat}", "你已坐在 {seat} 号座位"),
    "not_seated": ("you do not sit at this table", "你没有在这张牌桌就座"),
    "not_your_decision": ("it is not your decision now", "现在不该你操作"),
    "sitting_out": ("you sit this hand out (醒家)", "你本局轮空（醒家/坐底），不出牌"),
    "no_hand": ("no hand in progress", "当前没有进行中的牌局"),
    "no_card_in_hand": ("your hand holds no {card}", "你手里没有{card}"),
    "card_in_kan": ("{card} is part of a 坎 and cannot be discarded (§2)",
                    "{card}在坎里，不能打出"),
    "action_not_allowed": ("you may not {action} now; allowed: {allowed}",
                           "现在不能这样操作，请按提示重新选择"),
    "too_many_phrases": ("too many quick phrases: wait a few seconds",
                         "快捷语发得太快，请等几秒"),
    "too_many_messages": ("too many messages: slow down", "操作太快，请慢一点"),
    "room_not_found": ("room not found: no open room {code!r}",
                       "找不到房间 {code}：没有这个房间，或它已经结束"),
    # games and replays (app.py)
    "game_not_found": ("no game {game!r}", "找不到这局牌（{game}）"),
    "game_private": ("a game is readable only by its players until its room ends",
                     "房间结束之前，这局牌只有它的玩家能看"),
    "game_unreplayable": ("game {game} does not replay with this version's rules "
                          "({detail}); its record is still at /api/games/{game}",
                          "这局牌无法按当前版本的规则回放（{detail}）"),
}
"""Each refusal's words, English then Chinese, with ``{name}`` slots filled from the
same parameters (a parameter ending in ``_zh`` is the Chinese of another)."""

E = TypeVar("E", bound=BaseException)


def words(code: str, /, **params: object) -> dict[str, str]:
    """The words of refusal ``code`` in every language, its slots filled.

    >>> words("being_seated")["zh"]
    '正在为你安排快速开始的牌桌，请稍候'
    """
    english, chinese = WORDS[code]
    return {"en": english.format(**params), "zh": chinese.format(**params)}


def refusal(kind: Callable[[str], E], code: str, /, **params: object) -> E:
    """An exception of ``kind`` (called with the English text) carrying the words of
    refusal ``code`` in every language (``words``)."""
    said = words(code, **params)
    exc = kind(said["en"])
    exc.words = said  # type: ignore[attr-defined]  # (PaohuziError declares it)
    exc.code = code  # type: ignore[attr-defined]
    return exc


def words_of(exc: BaseException) -> dict[str, str] | None:
    """The words an exception carries (:func:`refusal`), or None: English only."""
    said = getattr(exc, "words", None)
    return said if isinstance(said, dict) else None


def slots(template: str) -> set[str]:
    """The names of a template's ``{name}`` slots."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}
