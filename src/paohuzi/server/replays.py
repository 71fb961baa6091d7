"""Replay pages: a finished game step by step with every hand visible, and its shuffle check."""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from typing import Any

from paohuzi.core.errors import PaohuziError
from paohuzi.core.rules import Ruleset
from paohuzi.game.deal import Deal
from paohuzi.game.record import RecordError, replay_steps
from paohuzi.game.view import observe, view_json
from paohuzi.server.fairness import FORMULA, Shuffle, commitment

__all__ = ["ReplayCache", "public_record", "replay_pages", "shuffle_check"]


def public_record(record: dict[str, Any], names: list[str], viewer: int | None,
                  played: bool) -> dict[str, Any]:
    """A stored record as it is served (``GET /api/games/{id}``): the seats by ``names``
    (nicknames, as the room's 大结算 shows them), never by account id; ``you``, the hand's
    seat of ``viewer`` (his account id) if he played it; ``room`` only if he ``played`` in
    the room (room codes are never given out by a public endpoint).

    >>> public_record({"players": [7, None], "room": "123456"}, ["Ming", "电脑"], 7, True)
    {'names': ['Ming', '电脑'], 'you': 0, 'room': '123456'}
    >>> public_record({"players": [7, None], "room": "123456"}, ["Ming", "电脑"], None, False)
    {'names': ['Ming', '电脑'], 'you': None}
    """
    players = record.get("players") or []
    served = {k: v for k, v in record.items() if k not in ("players", "names", "room")}
    served["names"] = names
    served["you"] = players.index(viewer) if viewer is not None and viewer in players \
        else None
    if played and "room" in record:
        served["room"] = record["room"]
    return served


def replay_pages(record: dict[str, Any]) -> dict[str, Any]:
    """Every step of a finished game: each seat's view (all hands visible), the action
    that led to it, and whether the published shuffle commitment checks."""
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
    return {"rules": record["rules"], "result": record.get("result"), "steps": steps,
            "shuffle": shuffle_check(record), "names": record.get("names")}


def shuffle_check(record: dict[str, Any]) -> dict[str, Any]:
    """Recompute a record's shuffle: the commitment from the revealed secret (or, in an
    older record, seed) and salt; the seed (and a match's first dealer) from the secret
    and every seat's value; the deal from the seed."""
    shuffle = record.get("shuffle") or {}
    check: dict[str, Any] = {"available": bool(shuffle)}
    if not shuffle:
        return check
    check.update(shuffle)
    if "secret" in shuffle:
        again = Shuffle(str(shuffle["secret"]), str(shuffle["salt"]),
                        tuple(str(v) for v in shuffle["values"]))
        check["formula"] = FORMULA
        check["commitment_ok"] = again.commitment == shuffle["commitment"]
        check["seed_ok"] = again.digest == shuffle["digest"] and again.seed == shuffle["seed"]
        if "first_dealer" in shuffle:
            seats = len(again.values)  # one per match seat
            check["dealer_ok"] = again.dealer_of(seats) == shuffle["first_dealer"]
    else:
        check["commitment_ok"] = commitment(shuffle["seed"], shuffle["salt"]) == \
            shuffle["commitment"]
    rules = Ruleset.from_dict(record["rules"])
    deal = Deal.from_seed(int(shuffle["seed"]), rules, dealer=0)
    first = next(iter(replay_steps(record)))
    check["deal_ok"] = first.deal.hands == deal.hands and first.deal.wall == deal.wall
    return check


class ReplayCache:
    """Replay pages as JSON bytes, computed off the event loop and kept (records never
    change): the ``size`` most recently asked games are held, and so is why a record
    does not replay (a :class:`~paohuzi.game.record.RecordError` raised anew each time,
    without replaying it); concurrent requests for one game share one computation."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._pages: OrderedDict[str, bytes | str] = OrderedDict()
        """Each game's page, or the reason it does not replay (a text: an exception kept
        and raised again would grow its traceback, and hold each request, every time)."""
        self._pending: dict[str, asyncio.Future[bytes]] = {}

    def known(self, key: str) -> bool:
        """Whether ``key``'s page (or why it does not replay) is kept or being made: asking
        for it costs nothing more."""
        return key in self._pages or key in self._pending

    async def get(self, key: str, record: dict[str, Any]) -> bytes:
        found = self._pages.get(key)
        if found is not None:
            self._pages.move_to_end(key)
            if isinstance(found, str):
                raise RecordError(found)
            return found
        pending = self._pending.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self._pending[key] = future
        try:
            body = await asyncio.to_thread(_render, record)
            future.set_result(body)
        except (PaohuziError, KeyError, TypeError, ValueError) as exc:
            # the record's own fault (its rules, deal or an action no longer play): kept,
            # not redone, and told as a RecordError
            failed = RecordError(str(exc) if isinstance(exc, RecordError)
                                 else f"{type(exc).__name__}: {exc}")
            future.set_exception(failed)
            future.exception()  # retrieved: no "never retrieved" warning if nobody waits
            self._keep(key, str(failed))
            raise failed from None
        except Exception as exc:
            future.set_exception(exc)
            future.exception()
            raise
        finally:
            self._pending.pop(key, None)
            if not future.done():  # cancelled: the others waiting see it cancelled too
                future.cancel()
        self._keep(key, body)
        return body

    def _keep(self, key: str, page: bytes | str) -> None:
        self._pages[key] = page
        while len(self._pages) > self.size:
            self._pages.popitem(last=False)


def _render(record: dict[str, Any]) -> bytes:
    return json.dumps(replay_pages(record), ensure_ascii=False).encode("utf-8")
