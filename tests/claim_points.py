"""What a seat must receive for each claim point of a finished hand (test helpers).

The engine's claim points (Hand.on_claim_point: the 亮张, every shown card, one's own
提/偎) are replayed from a game record; the server must have delivered each of them as
its own message — never batched with what became of the card — to every seat, the same
way whether or not another seat had an option on it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from paohuzi.core.rules import Ruleset
from paohuzi.game.actions import Action
from paohuzi.game.deal import Deal
from paohuzi.game.engine import Hand
from paohuzi.game.view import observe, view_json
from paohuzi.server.seats import match_view


@dataclass(frozen=True)
class ShownCard:
    """A shown card (a discard or a shown draw) of a replayed hand."""

    event: int  # index of its discard/show event in the hand's events
    card: str
    options: frozenset[int]  # hand seats with an option on it


def replayed(record: dict[str, Any], hand_seat: int | None
             ) -> tuple[list[tuple[str, list[Any]]], list[ShownCard]]:
    """(view JSON without events, events) at every claim point and after every decision,
    in order, in match seat numbers as the server sends them (the record's
    ``match_seats``); and the hand's shown cards (in hand seats)."""
    rules = Ruleset.from_json(record["rules"])
    playing = record.get("match_seats") or list(range(rules.seats))
    deal = Deal.from_seed(int(record["deal"]["seed"]), rules, int(record["deal"]["dealer"]))
    views: list[tuple[str, list[Any]]] = []
    shown: list[ShownCard] = []

    def snap(hand: Hand) -> None:
        view = json.loads(json.dumps(view_json(observe(hand, hand_seat)), ensure_ascii=False))
        view, events = match_view(view, view.pop("events"), playing, rules.seats)
        views.append((json.dumps(view, sort_keys=True, ensure_ascii=False), events))

    def claim_point(hand: Hand) -> None:
        snap(hand)
        claim = hand.claim
        if claim is not None and claim.context in ("discard", "draw"):
            shown.append(ShownCard(len(hand.events) - 1, claim.card.text,
                                   frozenset(claim.options)))

    hand = Hand(rules, deal, on_claim_point=claim_point)
    snap(hand)
    for step in record["actions"]:
        hand.act(int(step["seat"]), Action.from_text(step["action"]))
        snap(hand)
    return views, shown


def shown_card_signatures(messages: list[dict[str, Any]], times: list[float] | None,
                          hand_no: int, shown: list[ShownCard], hand_seat: int | None
                          ) -> dict[bool, list[tuple[Any, ...]]]:
    """For each shown card on which ``hand_seat`` had no option: what the seat received
    for it, keyed by whether another seat had an option. A signature is (phase, turn,
    the card in play, a claim shown, the card's event is the message's last, the next
    message goes straight on with what became of the card), plus the seconds between
    the two messages when ``times`` are given."""
    states = [(i, m) for i, m in enumerate(messages) if m.get("type") == "state"
              and m.get("view") is not None and m["table"]["hand_no"] == hand_no]
    out: dict[bool, list[tuple[Any, ...]]] = {True: [], False: []}
    for card in shown:
        if hand_seat in card.options:
            continue
        for k, (i, msg) in enumerate(states):
            start = msg["events_from"]
            end = start + len(msg["events"])
            if not start <= card.event < end:
                continue
            if k == 0 or states[k - 1][1]["events_from"] + len(states[k - 1][1]["events"]) \
                    != start:
                break  # a snapshot (reconnect, resync): not a live delivery
            view = msg["view"]
            after = states[k + 1][1] if k + 1 < len(states) else None
            sig: tuple[Any, ...] = (
                view["phase"], view["turn"], view.get("in_play") == card.card,
                "claim" in view, card.event == end - 1,
                after is not None and after["events_from"] == end and bool(after["events"]))
            if times is not None and after is not None:
                sig = (*sig, times[states[k + 1][0]] - times[i])
            out[bool(card.options - {hand_seat})].append(sig)
            break
    return out


UNIFORM = ("play", None, True, False, True, True)
"""The one way a seat without an option receives a shown card."""
