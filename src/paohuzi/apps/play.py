"""``paohuzi play``: a hand-after-hand game in the terminal, you against two computer players.

You are seat 0. The screen shows only your seat's view (the engine's
:func:`~paohuzi.game.view.seat_view`), so the terminal game sees exactly what a
player at the table may see. Choose an action by its number; ``q`` leaves the
game (a hand in progress counts as an escape, §7.4).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, TextIO

from paohuzi.core.kinds import EventKind
from paohuzi.core.rules import Ruleset
from paohuzi.game.actions import Action
from paohuzi.game.match import Match
from paohuzi.game.view import seat_view
from paohuzi.players import RandomPlayer

__all__ = ["play", "render"]

_EVENT_WORDS: dict[EventKind, str] = {
    EventKind.DEAL: "起牌", EventKind.LIANGZHANG: "亮张", EventKind.DRAW: "摸牌",
    EventKind.SHOW: "翻出", EventKind.DISCARD: "打出", EventKind.TI: "提", EventKind.WEI: "偎",
    EventKind.CHOUWEI: "臭偎", EventKind.PAO: "跑", EventKind.PENG: "碰", EventKind.CHI: "吃",
    EventKind.TO_PILE: "弃", EventKind.HU: "胡", EventKind.XIANGGONG: "相公",
    EventKind.NO_DISCARD: "八块不打牌", EventKind.HUANGZHUANG: "荒庄", EventKind.ESCAPE: "逃跑",
    EventKind.DIPAI: "亮底牌",
}
"""Each :class:`~paohuzi.core.kinds.EventKind` as the terminal game shows it."""


def _seat_name(seat: int, me: int) -> str:
    return "你" if seat == me else f"电脑{seat}"


def render(view: dict[str, Any], new_events: list[dict[str, Any]]) -> list[str]:
    """The lines shown to the player for a view (and the events since the last screen)."""
    me = view["seat"]
    lines = []
    for e in new_events:
        if e["kind"] == EventKind.DEAL:
            continue
        who = _seat_name(e["seat"], me) if "seat" in e else ""
        what = _EVENT_WORDS.get(e["kind"], e["kind"])
        cards = e.get("cards", "暗" * e.get("hidden", 0) if e.get("hidden") else "")
        lines.append(f"  {who} {what} {cards}".rstrip())
    lines.append(f"墩 {view['wall']} 张   亮张 {view['liangzhang'] or '—'}   庄家 "
                 f"{_seat_name(view['dealer'], me)}"
                 + (f"   底牌 {view['dipai']} (不能胡)" if view.get("dipai") else ""))
    for seat, info in enumerate(view["seats"]):
        melds = " ".join(m.get("cards", "▮▮▮") for m in info["melds"]) or "-"
        lines.append(f"  {_seat_name(seat, me)}: 桌面 {melds}  ({info['table_huxi']} 胡息)  "
                     f"弃牌 {info['pile'] or '-'}  手牌 {info['hand_count']} 张")
    lines.append(f"你的手牌: {view['hand']}")
    return lines


def play(stdin: TextIO, stdout: TextIO, rules: Ruleset, seed: int | None = None,
         hands: int | None = None, ask: Callable[[str], str] | None = None) -> int:
    """Play until ``hands`` hands are done (or the player quits)."""
    seed = random.randrange(1 << 31) if seed is None else seed
    match = Match(rules, seed, first_dealer=0)
    bots = [RandomPlayer(seed + i) for i in range(rules.players)]
    me = 0

    def read(prompt: str) -> str:
        if ask is not None:
            return ask(prompt)
        stdout.write(prompt)
        stdout.flush()
        line = stdin.readline()
        return line.strip() if line else "q"

    played = 0
    stdout.write(f"跑胡子 — {rules.name} — 种子 {seed}\n")
    while hands is None or played < hands:
        hand = match.start_hand()
        seen = 0
        while not hand.ended:
            seat = hand.pending_seats()[0]
            legal = hand.legal_actions(seat)
            if match.playing_seats()[seat] != me:
                hand.act(seat, bots[seat].choose(None, legal))
                continue
            view = seat_view(hand, seat)
            stdout.write("\n".join(render(view, view["events"][seen:])) + "\n")
            seen = len(view["events"])
            for i, option in enumerate(legal):
                stdout.write(f"  [{i}] {option.text}\n")
            choice = read("选择 (q 退出): ")
            if choice == "q":
                match.escape(match.playing_seats()[seat])
                stdout.write(f"你逃跑了。积分: {match.points}\n")
                return 0
            try:
                action: Action = legal[int(choice)]
            except (ValueError, IndexError):
                stdout.write(f"请输入 0 到 {len(legal) - 1} 之间的数字\n")
                continue
            hand.act(seat, action)
        summary = match.finish_hand()
        view = seat_view(hand, me)
        stdout.write("\n".join(render(view, view["events"][seen:])) + "\n")
        result = summary.result
        if result.winner is not None and result.settlement is not None:
            s = result.settlement
            names = "、".join(f"{m.name} {m.fan}番" for m in s.mingtang) or "平胡"
            stdout.write(f"{_seat_name(result.winner, me)} 胡! 胡息 {s.huxi}  底 {s.di}  "
                         f"番 {s.fan} ({names})\n")
        else:
            stdout.write("荒庄\n")
        stdout.write(f"本局: {list(summary.points)}   总分: {match.points}\n")
        played += 1
    return 0
