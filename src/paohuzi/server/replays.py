"""Replay pages: a finished game step by step with every hand visible, and its shuffle check."""

from __future__ import annotations

from typing import Any

from paohuzi.deal import Deal
from paohuzi.record import replay_steps
from paohuzi.rules import Ruleset
from paohuzi.view import observe, view_json

__all__ = ["replay_pages"]


def replay_pages(record: dict[str, Any]) -> dict[str, Any]:
    """Every step of a finished game: each seat's view (all hands visible), the action
    that led to it, and whether the published shuffle commitment checks."""
    from paohuzi.server.table import commitment

    steps = []
    actions = record.get("actions", [])
    for i, hand in enumerate(replay_steps(record)):
        seats = []
        for seat in range(hand.players):
            view = view_json(observe(hand, seat))
            view.pop("events", None)
            seats.append(view)
        steps.append({"action": actions[i - 1] if i else None, "seats": seats,
                      "wall": len(hand.wall)})
    shuffle = record.get("shuffle") or {}
    check: dict[str, Any] = {"available": bool(shuffle)}
    if shuffle:
        rules = Ruleset.from_dict(record["rules"])
        deal = Deal.from_seed(int(shuffle["seed"]), rules, dealer=0)
        check["commitment_ok"] = commitment(shuffle["seed"], shuffle["salt"]) == \
            shuffle["commitment"]
        first = next(iter(replay_steps(record)))
        check["deal_ok"] = first.deal.hands == deal.hands and first.deal.wall == deal.wall
        check.update(shuffle)
    return {"rules": record["rules"], "result": record.get("result"), "steps": steps,
            "shuffle": check, "players": record.get("players")}
