"""Game records (JSON, documented in docs/records.md) and their replay.

A record holds the rules, the deal (a seed, or the cards written out), every
decision in order, and the result. Replaying it re-deals, re-applies each
decision through the engine's validation path and must reach the same result.

>>> from paohuzi.core.rules import Ruleset
>>> from paohuzi.game.engine import Hand
>>> hand = Hand.from_seed(5, Ruleset())
>>> while not hand.ended:
...     seat = hand.pending_seats()[0]
...     _ = hand.act(seat, hand.legal_actions(seat)[0])
>>> record = record_of(hand)
>>> replay(record).state_key() == hand.state_key()
True
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from paohuzi.core.errors import PaohuziError
from paohuzi.core.rules import Ruleset
from paohuzi.game.actions import Action
from paohuzi.game.deal import Deal
from paohuzi.game.engine import Event, Hand

__all__ = ["FORMAT", "RecordError", "describe", "load_record", "record_of", "replay",
           "replay_steps"]

FORMAT = "paohuzi-record/1"


class RecordError(PaohuziError):
    """A record that is malformed, or that does not replay to its stored result."""


def record_of(hand: Hand) -> dict[str, Any]:
    """The record of a hand (finished or not)."""
    deal: dict[str, Any] = {"seed": hand.deal.seed, "dealer": hand.deal.dealer}
    if hand.deal.seed is None:
        deal.update(hand.deal.to_json())
    record: dict[str, Any] = {
        "format": FORMAT,
        "rules": hand.rules.to_dict(),
        "deal": deal,
        "actions": [{"seat": seat, "action": action.text} for seat, action in hand.actions],
    }
    if hand.dipai is not None:  # §9.1 the shown 底牌 (the replay shows the same card)
        record["dipai"] = hand.dipai.text
    if hand.result is not None:
        record["result"] = hand.result.to_json()
    return record


def load_record(data: str | dict[str, Any]) -> dict[str, Any]:
    """Parse and check a record's shape (a JSON text or an already parsed object)."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise RecordError(f"record is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    if data.get("format") != FORMAT:
        raise RecordError(f"unknown record format {data.get('format')!r}; expected {FORMAT}")
    for key in ("rules", "deal", "actions"):
        if key not in data:
            raise RecordError(f"record has no {key!r}")
    if not isinstance(data["actions"], list):
        raise RecordError("'actions' must be a list")
    return data


def _hand_of(record: dict[str, Any]) -> Hand:
    rules_data = record["rules"]
    rules = Ruleset.from_json(rules_data) if isinstance(rules_data, str | dict) else None
    if rules is None:
        raise RecordError("'rules' must be a preset name or an options object")
    deal_data = record["deal"]
    if not isinstance(deal_data, dict):
        raise RecordError("'deal' must be an object")
    dealer = int(deal_data.get("dealer", 0))
    if deal_data.get("seed") is not None:
        deal = Deal.from_seed(int(deal_data["seed"]), rules, dealer)
    else:
        deal = Deal.from_json(deal_data, rules)
    return Hand(rules, deal)


def replay(record: str | dict[str, Any], *, check_result: bool = True,
           on_step: Any = None) -> Hand:
    """Replay a record through the engine; raise :class:`RecordError` on any mismatch.

    ``on_step(seat, action, events)`` is called after every decision.
    """
    data = load_record(record)
    hand = _hand_of(data)
    if "dipai" in data:
        shown = hand.dipai.text if hand.dipai is not None else None
        if shown != data["dipai"]:
            raise RecordError(f"replay shows the 底牌 {shown}, the record says {data['dipai']}")
    for i, step in enumerate(data["actions"]):
        if not isinstance(step, dict) or "seat" not in step or "action" not in step:
            raise RecordError(f"action {i}: expected {{'seat': n, 'action': text}}")
        try:
            action = Action.from_text(step["action"])
            events = hand.act(int(step["seat"]), action)
        except PaohuziError as exc:
            raise RecordError(f"action {i} ({step['action']!r} by seat {step['seat']}): "
                              f"{exc}") from None
        if on_step is not None:
            on_step(step["seat"], action, events)
    if check_result and "result" in data:
        got = hand.result.to_json() if hand.result is not None else None
        if got != data["result"] and got != _as_recorded_before_discard(data["result"]):
            raise RecordError(f"replay ends with {got}, the record says {data['result']}")
    return hand


def _as_recorded_before_discard(result: Any) -> Any:
    """A stored result as the engine writes it since the source ``discard`` exists (泸州's
    wins on a discard were recorded with the source ``other`` before 2026-12-04)."""
    if isinstance(result, dict) and result.get("source") == "other":
        return {**result, "source": "discard"}
    return result


def replay_steps(record: str | dict[str, Any]) -> Iterator[Hand]:
    """The hand after the deal and after every decision of a record (one object, advanced
    in place: read what you need from it before asking for the next step)."""
    data = load_record(record)
    hand = _hand_of(data)
    yield hand
    for i, step in enumerate(data["actions"]):
        try:
            hand.act(int(step["seat"]), Action.from_text(step["action"]))
        except (PaohuziError, KeyError, TypeError, ValueError) as exc:
            raise RecordError(f"action {i}: {exc}") from None
        yield hand


def _event_line(event: Event) -> str:
    return str(event)


def describe(record: str | dict[str, Any]) -> list[str]:
    """The replay as readable lines (Chinese card text), ending with the settlement."""
    data = load_record(record)
    hand = _hand_of(data)
    lines = [f"rules: {hand.rules.name}  dealer: seat {hand.dealer}  "
             f"seed: {data['deal'].get('seed')}"]
    lines.extend("  " + _event_line(e) for e in hand.events)

    def step(seat: int, action: Action, events: list[Event]) -> None:
        lines.append(f"seat {seat}: {action.text}")
        lines.extend("  " + _event_line(e) for e in events)

    final = replay(data, on_step=step)
    if final.result is not None:
        r = final.result
        lines.append(f"result: {r.reason}" + (f", winner seat {r.winner}" if r.winner is not
                                              None else ""))
        if r.settlement is not None:
            s = r.settlement
            names = "、".join(f"{m.name}{m.fan}番" for m in s.mingtang) or "平胡"
            flags = [name for name, on in (("自摸", s.zimo), ("海底", s.haidi),
                                           ("天胡", s.tianhu)) if on]
            lines.append(f"  胡息 {s.huxi}  底 {s.di}  番 {s.fan}  {names} {' '.join(flags)}")
        lines.append("  points: " + "  ".join(f"seat {i}: {p:+d}"
                                              for i, p in enumerate(r.points)))
    else:
        lines.append("result: (hand not finished)")
    return lines
