"""Settling a finished hand: its game record, the players' totals and the table's
``settled`` entry, written in one storage transaction (:meth:`Storage.settle_hand`).

The record is built from the finished hand alone (its own shuffle, never the live
hand's). A settlement that fails is retried by the table's runtime; after
:data:`FULL_ATTEMPTS` failures it is written without the players' totals (the record
says ``"totals": false``), so a table never stays stuck on a hand it cannot count.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from paohuzi.game.match import HandSummary
from paohuzi.server.storage import PlayerUpdate, RatingMovedError, Storage
from paohuzi.server.table import Table

__all__ = ["FULL_ATTEMPTS", "RETRY_DELAYS", "Rater", "settle"]

log = logging.getLogger("paohuzi.server")

FULL_ATTEMPTS = 3
"""Failed settlements with the players' totals before one without them."""
RETRY_DELAYS = (0.2, 1.0, 2.0, 5.0)
"""Seconds before the n-th retry (the last one repeats)."""
RATE_TRIES = 5
"""Settlements tried at once, each rated again, while another process keeps changing a
player's rating meanwhile (:class:`~paohuzi.server.storage.RatingMovedError`)."""

Rater = Callable[[Table, HandSummary], list[PlayerUpdate]]
"""The players' updates for a finished hand (totals and ratings)."""


def settle(storage: Storage, table: Table, rate: Rater | None) -> int | None:
    """Settle the table's finished, unsettled hand; the record's id (None: no record).

    ``rate`` None settles without the players' totals. Raises what a step raises,
    having changed nothing (the storage transaction rolls back)."""
    summary = table.last_summary
    assert summary is not None and table.needs_settlement()
    hand_no = table.finished_hands
    record = table.finished_record() if rate is not None else _record_or_none(table)
    players: list[int] = []
    if record is not None:
        record["totals"] = rate is not None
        players = [p for p in record["players"] if p is not None]
        if summary.xingjia is not None:  # the 醒家's history holds the hands he was paid for
            xingjia = table.seats[summary.xingjia].player
            if xingjia is not None:
                players.append(xingjia)
    for attempt in range(1, RATE_TRIES + 1):
        entry: dict[str, Any] = {"k": "settled", "hand": hand_no}
        updates = rate(table, summary) if rate is not None else []
        try:
            game_id = storage.settle_hand(table.code, hand_no, record, players, updates, entry)
        except RatingMovedError:
            if attempt == RATE_TRIES:
                raise
            continue
        break
    table.apply(entry)
    return game_id


def _record_or_none(table: Table) -> dict[str, Any] | None:
    with contextlib.suppress(Exception):
        return table.finished_record()
    log.error("table %s: the record of hand %d could not be built; settled without it",
              table.code, table.finished_hands)
    return None
