"""The table runtime: the async side of one room — its lock, what its connections are
shown and when (claim windows, delivery.py), the human timers, computer moves, dealing.

Every change is logged (committed) before it is applied and shown; a decision is
verified once, by :meth:`Table.verify_act`, before it is logged, so the log only ever
holds entries that apply.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from paohuzi.game.actions import Action, Pass
from paohuzi.game.engine import Hand, Phase
from paohuzi.players import choose_move, make_player, observation_for
from paohuzi.server import settlement
from paohuzi.server.connection import MAX_CONNECTIONS_PER_PLAYER, Client, to_json
from paohuzi.server.delivery import DECISION_PAD, Delivery, Frame
from paohuzi.server.economy import check_entry
from paohuzi.server.levels import level_of
from paohuzi.server.presence import PRESENCE_ENTRIES, Seating, presence_json
from paohuzi.server.refusals import refusal
from paohuzi.server.seen import Seen
from paohuzi.server.table import Table, TableError

if TYPE_CHECKING:
    from paohuzi.server.server import Server

__all__ = ["ENTROPY_WAIT", "MIN_COMPUTER_DELAY", "Runtime", "send_all", "wait_until"]

log = logging.getLogger("paohuzi.server")

TOUCH_EVERY = 60.0
"""Seconds between notes of a room's activity in storage (for idle expiry)."""
ENTROPY_WAIT = 1.0
"""Seconds after a hand's commitment is published that the deal waits for the values
of the seated people still missing (a silent one counts as an empty value)."""
MIN_COMPUTER_DELAY = 0.05
"""Seconds a computer waits at least before it discards, whatever the room's
``bot_delay`` (no computer-vs-computer marathon spins a core)."""
CLAIM_ANSWER_MARGIN = 0.15
"""Seconds of a claim window a searching computer leaves unused: it stops sampling
by ``claim_window`` minus this after the claim point (one more sample of ``hard`` and
the answer's way back fit in it), so its answer never holds the window open longer
than anyone's quick pass would (docs/protocol.md, "Claim windows")."""

SHORTEST_CLAIM_WINDOW = 3 * DECISION_PAD
"""The shortest claim window in effect, whatever a room asks (its own may be 0.01 s):
a computer's answer applied at a claim point holds what follows for ``DECISION_PAD``,
and in a shorter window that hold, not the window, set when the next message left —
later exactly when a computer could claim (a review: 21.8 ms against 10.7, AUC 0.98,
at 0.01 s)."""

ComputerMove = tuple[str, int, Any, list[Action], float | None]
"""A computer's decision to make: ``choose_move``'s arguments."""


MATCH_END_WAIT = 60.0
"""The least wait, in seconds, before a room deals the first hand of a new match after a
match played to its number of hands, unless every person pressed 下一局: its 大结算 is
shown until then (a room's own ``next_delay``, 8 s by default, took it away before it was
read). A match ended by a leave waits for someone to take the freed seat anyway."""


class Runtime:
    """The async side of a table: connections, what they are shown and when, timers,
    computer moves."""

    def __init__(self, server: Server, table: Table) -> None:
        self.server = server
        self.table = table
        self.lock = asyncio.Lock()
        self.clients: set[Client] = set()
        self.seen = Seen()
        """Per table hand, the seats held while it was dealt and the addresses each was
        played from (:meth:`seen_at_seat`), logged as they are noted (seen.py)."""
        self.moves: dict[int, dict[int, set[bool]]] = {}
        """Per table hand, for each person's match seat, whether its decisions were his
        own (True) or the computer's for him (False: 托管, a timeout): :meth:`computer_played`."""
        self.timer_task: asyncio.Task[None] | None = None
        self.timer_wake: asyncio.TimerHandle | None = None  # starts timer_task when due
        self.bot_task: asyncio.Task[None] | None = None
        self.next_task: asyncio.Task[None] | None = None
        self.deliver_task: asyncio.Task[None] | None = None
        self.disconnected_at: dict[int, float] = {}
        self.grace_used: set[tuple[int, int]] = set()
        self.next_votes: set[int] = set()
        self.deadlines: dict[int, tuple[tuple[Any, ...], float]] = {}
        self.last_active = time.time()
        self.made_at = self.last_active  # when it was made, or restored (wall time)
        self.connected_ever = False
        """Whether any connection (a seat or a spectator) has come since it was made or
        restored (a restored room people came to is marked so by the server)."""
        self._touched = 0.0
        self.settle_failures = 0
        self.settle_retry: asyncio.TimerHandle | None = None
        self.committed_at = 0.0  # when the next hand's commitment was published
        self.dealt_at = 0.0
        """When this process dealt the hand now in play (monotonic; 0: not this one):
        a leave chosen between hands that crossed its deal (``after``) comes soon after."""
        self.next_at: float | None = None  # when the next hand is dealt anyway (monotonic)
        self.presence_sent: list[int] = []  # the connected seats last announced
        self._claim_frame: Frame | None = None  # the frame of the last claim point
        self._claim_key: tuple[int, int] | None = None
        self._claim_deadline = 0.0  # by when computers answer at the last claim point
        self.masks: list[tuple[float, float, int | None]] = []
        """Stretches of time (monotonic, end, the match seat whose connections they hold
        or None for all) that begin at a moment those connections can tell (a turn's
        discard; one's own claim answer; a claim point shown, a claim window less
        CLAIM_ANSWER_MARGIN later, and its window's end) and hold the work that depends on
        hidden cards: a message taken up within one waits for its end (:meth:`quiet`)."""
        self.held: dict[int, tuple[tuple[Any, ...], Action, tuple[int, int], int]] = {}
        """Computers' claim answers made before their claim point's time: seat →
        (decision key, answer, the claim point's key, which of its two times), applied
        then (:meth:`_apply_held`)."""
        self.answer_at: dict[tuple[int, int], tuple[float, float]] = {}
        """When the answers at each claim point shown are applied: a claim window less
        CLAIM_ANSWER_MARGIN after it was shown, or (late ones) at the window's end."""
        self.claim_shown = asyncio.Event()
        self.held_task: asyncio.Task[None] | None = None
        self.delivery = Delivery(self.claim_window)
        self.seating = Seating()  # a hall room's seat changes between hands (issue 16)
        self.presence_task: asyncio.Task[None] | None = None
        self.refresh_levels()  # a restored table's players (not in its log)
        self.delivery.current = self.frame(None, claim_point=False)
        self.caught_up = asyncio.Event()  # set while every frame has been released
        self.caught_up.set()
        self.changed = asyncio.Event()
        """Set on every applied entry, vote and connection change (what :meth:`_next_hand`
        waits on: one waiter, the room's one dealing task)."""
        table.on_claim_point = self._claim_point

    # ---- logging and applying ----------------------------------------------------

    def commit(self, entry: dict[str, Any],
               logged: Callable[[], object] | None = None,
               taken_up: float | None = None) -> None:
        """Log (committed), then apply, then queue what the seats will be shown. The
        caller holds the lock and has verified the entry (a decision: :meth:`act`).
        ``logged``: called once the entry is in the log, before it is applied.
        ``taken_up``: when a person's message began to be handled (else now)."""
        hand = self.table.hand
        claim = hand is not None and hand.phase is Phase.CLAIM
        start = time.monotonic() if taken_up is None else taken_up
        self.server.storage.append_log(self.table.code, entry)
        if entry["k"] == "start":
            self.dealt_at = time.monotonic()
        if entry["k"] == "act":  # what follows a decision is not shown sooner,
            end = time.monotonic() + DECISION_PAD
            self.delivery.hold(end)
            # nor answered what its work delays: every connection's after a turn's
            # discard (its moment is public), only the decider's after a claim answer
            # (its moment is his secret: a stall seen elsewhere would tell it)
            if not claim:
                self.mask(start, end)
            elif entry.get("player") is not None:
                self.mask(start, end, seat=entry["seat"])
        if logged is not None:
            logged()
        self.table.apply(entry)
        self.note_activity()
        self.changed.set()
        if not self.table.shown_at_claim_point:  # else the claim point's frame shows it
            self._capture(self.frame(None, claim_point=False))
        if entry["k"] in PRESENCE_ENTRIES:
            self.presence_changed()

    def act(self, seat: int, action: Action, *, player: int | None,
            seq: int | None = None, acknowledge: Callable[[], object] | None = None,
            taken_up: float | None = None) -> None:
        """A decision for match seat ``seat``: verified once (:meth:`Table.verify_act`,
        which raises :class:`TableError`), then logged and applied, then settled if it
        ended the hand. ``player``: the person who decided, None for the computer.

        ``acknowledge`` (a person's message): called once the decision is logged, before
        the engine applies it — it hands the ack to the socket. What the engine does next
        depends on the others' hidden cards (a discard nobody may claim goes on to the
        next draw and its claim point; one someone may claim waits), and so does its
        time: an ack sent after that work would tell the decider by its delay
        (docs/protocol.md, "Claim windows")."""
        self.table.verify_act(seat, action)
        entry: dict[str, Any] = {"k": "act", "seat": seat, "action": action.text,
                                 "player": player}
        if player is None:
            entry["auto"] = True
        self._note_move(seat, own=player is not None)
        if seq is not None:
            entry["seq"] = seq
        self.commit(entry, acknowledge, taken_up)
        self.settle_if_needed()

    def verify_shown(self, seat: int) -> None:
        """Raise :class:`TableError` unless ``seat`` has been shown a decision it must take:
        a person acts on what he has been shown (the engine may be a claim window ahead),
        and is told so in the same words whatever the others may decide."""
        t = self.table
        in_hand = t.hand is not None and not t.hand.ended
        if (self.delivery.pending or in_hand) and not self.decision_open(seat):
            raise refusal(TableError, "not_your_decision")

    def mask(self, start: float, end: float, seat: int | None = None) -> None:
        """Hold what the room's connections (``seat``'s only, if given) send from
        ``start`` to ``end`` (see masks)."""
        now = time.monotonic()
        self.masks = [m for m in self.masks if m[1] > now]
        self.masks.append((start, end, seat))

    async def quiet(self, seat: int | None = None) -> None:
        """Wait while a mask runs. What the engine does after a decision or at a claim
        point's deadline depends on hidden cards, and so does how long it keeps the event
        loop: a message taken up right after it (a ping behind one's discard, from any
        connection to the room) would be answered later when nobody could claim the card
        than when someone could. Taken up at the mask's end instead, it is answered then,
        whatever the work was (docs/protocol.md, "Claim windows")."""
        while self.masks:
            now = time.monotonic()
            end = max((e for s, e, only in self.masks
                       if s <= now < e and (only is None or only == seat)), default=None)
            if end is None:
                return
            await asyncio.sleep(end - now)

    def note_activity(self) -> None:
        """The room is in use: noted in memory, and in storage once a minute."""
        self.last_active = time.time()
        if self.last_active - self._touched >= TOUCH_EVERY:
            self._touched = self.last_active
            self.server.storage.touch_room(self.table.code, self.last_active)

    def idle_for(self, now: float) -> float:
        """Seconds since anything happened, 0 while a person is connected."""
        return 0.0 if self.clients else now - self.last_active

    def unjoined_for(self, now: float) -> float:
        """Seconds since the room was made (or restored) while nobody has ever connected
        to it; 0 once somebody has, or while a hand is in progress."""
        if self.connected_ever or self.clients or self.playing_hand():
            return 0.0
        return now - self.made_at

    def playing_hand(self) -> bool:
        """A hand is dealt and not over, in a match not over."""
        t = self.table
        return t.hand is not None and not t.hand.ended and t.match is not None \
            and not t.match.over

    def stop(self) -> None:
        for task in (self.timer_task, self.bot_task, self.next_task, self.deliver_task,
                     self.held_task):
            if task is not None:
                task.cancel()
        if self.timer_wake is not None:
            self.timer_wake.cancel()
        if self.settle_retry is not None:
            self.settle_retry.cancel()

    def abandon(self, creator: int | None) -> None:
        """The room ends for good with nobody connected (the caller holds the lock): a hand
        in progress is settled as the escape (§7.4) of a person who walked away from it
        (``creator``, the room's creator's account, if he plays it, else the first person
        who does) and a finished one is settled. A room ended with its hand unsettled let
        a person look at each deal and drop the bad ones for free (a red team: a leave
        cost -27, ending the room by opening others nothing)."""
        t = self.table
        hand = t.hand
        if hand is not None and not hand.ended and t.match is not None and not t.match.over:
            people = [s for s, seat in enumerate(t.seats) if seat.kind == "human"
                      and seat.player is not None and t.hand_seat(s) is not None]
            mine = [s for s in people if t.seats[s].player == creator]
            if people:
                self.commit({"k": "escape", "seat": (mine or people)[0], "ends_match": True})
        self.settle_if_needed(showing=True)

    def settle_if_needed(self, *, showing: bool = False) -> None:
        """Side effects of a finished hand, once and in one transaction: game record,
        player totals, rating, ``settled`` (settlement.py). A failure is logged (its
        type only: no card detail) and retried later; it never reaches the caller.
        While frames wait to be shown, :meth:`_deliver` settles just before it releases
        the last one (``showing``): a record in ``/api/me`` or the next hand's commitment
        must not tell a seat how a shown card resolved before the table does."""
        t = self.table
        if not t.needs_settlement():
            return
        if self.delivery.pending and not showing and _loop_running():
            return
        full = self.settle_failures < settlement.FULL_ATTEMPTS

        def rate(table: Table, summary: Any) -> list[Any]:
            hand_no = table.hands_before + summary.number
            return self.server.rate(table, summary, sharing=self.sharing_seats(hand_no),
                                    computer_played=self.computer_played(
                                        hand_no, summary.xingjia))

        try:
            settlement.settle(self.server.storage, t, rate if full else None)
        except Exception as exc:
            self.settle_failures += 1
            log.error("table %s: settling hand %d failed (%s, attempt %d)%s", t.code,
                      t.finished_hands, type(exc).__name__, self.settle_failures,
                      "" if full else " without the players' totals")
            self._retry_settlement()
            return
        self.settle_failures = 0
        self.after_settlement()

    # ---- the hall (issue 11): entry minimum, levels, 大结算 --------------------------

    def check_entry(self, player_id: int) -> None:
        """Refuse (:class:`~paohuzi.server.economy.EntryRefused`) a player who holds fewer
        beans than the room's 场次 asks to sit."""
        rec = self.server.storage.player(player_id)
        check_entry(self.table.config.tier, rec.beans if rec is not None else 0)

    def note_level(self, seat: int, player_id: int | None) -> None:
        """Note the §8 level of the player at ``seat`` (shown at the table)."""
        rec = self.server.storage.player(player_id) if player_id is not None else None
        self.table.seats[seat].level = None if rec is None else level_of(rec.points)

    def refresh_levels(self) -> None:
        for seat, s in enumerate(self.table.seats):
            if s.kind == "human":
                self.note_level(seat, s.player)

    def after_settlement(self) -> None:
        """A hand was settled: the levels may have changed, the beans actually moved are
        known, a match may be over (its 大结算 is stored): show it all."""
        try:
            self.refresh_levels()
            self.record_match()
            self.note_idle()
            self.free_left_seats()  # who left between hands, or when his hand ended
        except Exception as exc:  # the hand is settled; what is shown must not fail it
            log.error("table %s: after the settlement (%s)", self.table.code,
                      type(exc).__name__)
        if _loop_running():
            self._capture(self.frame(None, claim_point=False))
        elif not self.delivery.pending:  # a direct call (a restore): shown as it is
            self.delivery.current = self.frame(None, claim_point=False)

    def record_match(self) -> None:
        """Store the match's 大结算 once it is over and its last hand settled (once)."""
        t = self.table
        summary = t.match_summary()
        if summary is not None and not t.needs_settlement():
            self.server.storage.save_match(t.code, t.match_no, summary)

    def _retry_settlement(self) -> None:
        if self.settle_retry is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a direct call): the next change retries
            return
        delays = settlement.RETRY_DELAYS
        delay = delays[min(self.settle_failures, len(delays)) - 1]
        self.settle_retry = loop.call_later(
            delay, lambda: self._spawn(self._settle_later()))

    async def _settle_later(self) -> None:
        async with self.lock:
            self.settle_retry = None
            self.settle_if_needed()
            self.schedule()
        await self.broadcast()

    # ---- what the seats are shown, and when (delivery.py) ----------------------------

    def frame(self, hand: Hand | None, claim_point: bool) -> Frame:
        """Every viewer's message body now (``hand``: as it is at a claim point)."""
        t = self.table
        # a spectator's body too, watched or not: one built only when a spectator came
        # was built at once while the table waited on a claim and held to the last
        # frame's release while it ran ahead past a card nobody could claim — a new
        # spectator's wait told which (a review's probe, 24 of 24)
        viewers: list[int | None] = [i for i, s in enumerate(t.seats) if s.kind == "human"]
        viewers.append(None)
        bodies = t.bodies(viewers, hand)
        shown = hand if hand is not None else t.hand
        decisions: dict[int, tuple[Any, ...]] = {}
        if shown is not None and not shown.ended:
            for hand_seat in shown.pending_seats():
                seat = t.match_seat(hand_seat)
                decisions[seat] = (t.hand_no, len(shown.events), shown.phase.value, seat)
        at_claim = self._claim_frame
        if not claim_point and at_claim is not None and shown is not None and \
                shown.phase is Phase.CLAIM and self._claim_key == self._key_of(shown):
            # A seat that has answered an open claim keeps the view it was shown at the
            # claim point until the card resolves: whether the claim is still open (another
            # seat is deciding) or resolved at once must not show in what it receives.
            for seat in at_claim.decisions:
                if seat not in decisions and seat in bodies and seat in at_claim.bodies:
                    bodies[seat] = at_claim.bodies[seat]
        return Frame(t.hand_no, bodies, decisions, claim_point,
                     between=shown is None or shown.ended)

    def _key_of(self, hand: Hand) -> tuple[int, int]:
        """Identifies one claim point of the hand (answers add no event)."""
        return (self.table.hand_no, len(hand.events))

    def _claim_point(self, hand: Hand) -> None:
        frame = dataclasses.replace(self.frame(hand, claim_point=True),
                                    claim_key=self._key_of(hand))
        self._claim_frame, self._claim_key = frame, frame.claim_key
        self._capture(frame)
        # every computer answering this card answers by then, however many they are
        self._claim_deadline = \
            self.delivery.window_end(time.monotonic()) - CLAIM_ANSWER_MARGIN

    def _capture(self, frame: Frame) -> None:
        self.delivery.capture(frame)
        if self.delivery.pending:
            self.caught_up.clear()
            if self.deliver_task is None or self.deliver_task.done():
                self.deliver_task = self._spawn(self._deliver())

    async def _deliver(self) -> None:
        """Release the frames in order, a claim window after each claim point."""
        d = self.delivery
        settled_before_showing = False
        while d.pending:
            wait = d.wait(time.monotonic())
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            if len(d.queue) == 1 and not settled_before_showing and \
                    self.table.needs_settlement():
                # the hand's end is shown now: its record and the players' totals are
                # written first (tried once here; a failure retries on its own), so
                # whoever sees the result finds them
                settled_before_showing = True
                async with self.lock:
                    self.settle_if_needed(showing=True)
                    self.schedule()  # the next hand may be dealt now
                continue  # the settled entry may have queued a frame: look again
            settled_before_showing = False
            now = time.monotonic()
            shown = d.release(now)
            if shown.claim_key is not None:
                self._answers_due(shown.claim_key, now)
            if self.table.leaving and self.end_shown():
                async with self.lock:
                    try:
                        self._leave_now()
                    except Exception as exc:  # the end is shown all the same
                        log.error("table %s: a leave waiting for the end of its hand "
                                  "failed (%s)", self.table.code, type(exc).__name__)
            if not d.pending:
                self.caught_up.set()
            self._arm_timers()  # a human's clock starts when his decision is shown
            await self.broadcast()

    @property
    def claim_window(self) -> float:
        """The room's claim window in effect (:data:`SHORTEST_CLAIM_WINDOW` at least)."""
        return max(self.table.config.claim_window, SHORTEST_CLAIM_WINDOW)

    def _answers_due(self, claim_key: tuple[int, int], shown_at: float) -> None:
        """A claim point is shown: the computers' answers to it are applied a claim window
        less CLAIM_ANSWER_MARGIN later, under a mask, whether there are any or not — when
        they are applied tells nothing of whether anyone could claim. A late answer is
        applied at the second time, two ``DECISION_PAD`` before the window ends: what it
        leads to is ready when the window ends, as a card nobody could claim is (at the
        window's end itself it was 20 ms later: a review read AUC 0.70 with ``hard``
        computers whose answers came late on a busy machine)."""
        window = self.claim_window
        at = max(shown_at, shown_at + window - CLAIM_ANSWER_MARGIN)
        late = max(at + DECISION_PAD, shown_at + window - 2 * DECISION_PAD)
        self.mask(at, at + DECISION_PAD)
        self.mask(late, late + DECISION_PAD)
        self.answer_at[claim_key] = (at, late)
        while len(self.answer_at) > 64:  # the oldest claim points' are done with
            del self.answer_at[next(iter(self.answer_at))]
        self.claim_shown.set()

    def decision_open(self, seat: int) -> bool:
        """``seat`` must decide now and has been shown that decision."""
        return seat in self.pending_match_seats() and \
            self.delivery.released(seat, self.decision_key(seat))

    async def send_state(self, client: Client, snapshot: bool = False) -> None:
        """Send ``client`` what it is shown now, if that changed (``snapshot``: in full);
        returns once its socket has taken it."""
        text = self.state_text(client, snapshot)
        if text is not None:
            await client.send_text(text)

    def state_text(self, client: Client, snapshot: bool = False) -> str | None:
        """The state (or delta) message ``client`` is to be sent now, counted as sent;
        None if what it can see has not changed."""
        frame = self.delivery.current
        if frame is None:
            return None
        if snapshot or client.events_hand != frame.hand_no:
            client.events_sent = 0
            client.events_hand = frame.hand_no
        # a seat without a body of its own (a spectator) sees the spectator's, which
        # every frame has (:meth:`frame`)
        body = frame.bodies.get(client.seat) if client.seat is not None else None
        if body is None:
            body = frame.bodies[None]
        start = body.start(client.events_sent)
        if not snapshot and body.hash == client.last_hash and start == body.count:
            return None  # nothing this seat can see changed (e.g. another seat's secret answer)
        client.last_hash = body.hash
        client.events_sent = body.count
        client.sent += 1
        deadline = self.deadline_for(client.seat)
        next_deadline = self.next_deadline()  # the room's next timer (the settlement's)
        turn_deadline = self.turn_deadline()  # the discarding seat's, shown to everyone
        text = None
        if client.delta and not snapshot and client.base is not None:
            text = body.delta_text(client.base, client.sent, start, deadline, next_deadline,
                                   turn_deadline)
        client.base = body
        return text or body.message_text(client.sent, start, deadline, next_deadline,
                                         turn_deadline)

    async def broadcast(self) -> None:
        """Send every connection what it is shown now (what changed for it); returns
        once every socket has taken its message (at once, unless one reads slowly)."""
        waiting = []
        for client in list(self.clients):
            text = self.state_text(client)
            writer = client.post(text) if text is not None else None
            if writer is not None:
                waiting.append(writer)
        if waiting:
            await asyncio.wait(waiting)

    def deadline_for(self, seat: int | None) -> float | None:
        """Seconds left to decide — told only to the seat that must decide."""
        if seat is None or seat not in self.deadlines:
            return None
        if seat not in self.pending_humans():
            return None
        return max(0.0, self.deadlines[seat][1] - time.monotonic())

    def turn_deadline(self) -> float | None:
        """Seconds left to the seat that must discard, for every viewer: whose turn it is
        is public, and so is when it was shown. Only a discard: in a claim window (who
        may claim is secret, and so is who has answered) it is None, as it is for a
        computer's turn or a seat in 托管 (they have no clock)."""
        t = self.table
        if t.hand is None or t.hand.ended or t.hand.phase is not Phase.DISCARD:
            return None
        pending = self.pending_match_seats()
        if len(pending) != 1:
            return None
        return self.deadline_for(pending[0])

    def next_deadline(self) -> float | None:
        """Seconds until the next hand is dealt even if not everyone pressed "next"
        (between hands only; shown as the settlement's countdown)."""
        t = self.table
        if self.next_at is None or t.hand is None or not t.hand.ended or \
                self.next_task is None or self.next_task.done():
            return None
        if t.hall is None and (t.leavers_seated() or t.free_seats()):
            return None  # no hand comes while a private room's seat waits for someone (a
            # review saw "next hand in 8 s" after the only other person had left); a
            # hall room's goes to its computer as the hand is dealt
        return max(0.0, self.next_at - time.monotonic())

    # ---- scheduling: computers, timers, the next hand ------------------------------

    def pending_match_seats(self) -> list[int]:
        t = self.table
        if t.hand is None or t.hand.ended:
            return []
        return [t.match_seat(s) for s in t.hand.pending_seats()]

    def pending_humans(self) -> list[int]:
        """Human seats that must decide and have been shown it."""
        t = self.table
        return [s for s in self.pending_match_seats() if not t.controlled_by_computer(s)
                and self.delivery.released(s, self.decision_key(s))]

    def decision_key(self, seat: int) -> tuple[Any, ...]:
        """Identifies the decision a seat faces (another seat's secret answer changes
        nothing in it; a new event, a new phase or a new hand does)."""
        t = self.table
        hand = t.hand
        assert hand is not None
        return (t.hand_no, len(hand.events), hand.phase.value, seat)

    def paused(self) -> bool:
        """Every person at the table is in 托管: the computers do not play on alone (one
        who is leaving or has left is not waited for: :attr:`Table.paused
        <paohuzi.server.table.Table.paused>`)."""
        return self.table.paused

    def computer_seat(self) -> int | None:
        """The seat a computer must decide for now, if any (none while paused)."""
        if self.paused():
            return None
        t = self.table
        bots = [s for s in self.pending_match_seats() if t.controlled_by_computer(s)
                and not self._answer_held(s)]
        return bots[0] if bots else None

    def _answer_held(self, seat: int) -> bool:
        held = self.held.get(seat)
        return held is not None and self._still_deciding(seat, held[0])

    def _still_deciding(self, seat: int, key: tuple[Any, ...]) -> bool:
        """``seat`` still faces the decision ``key`` in a hand in progress."""
        hand = self.table.hand
        return hand is not None and not hand.ended and self.decision_key(seat) == key

    def schedule(self) -> None:
        """After every change: computer moves, the human timers, the next hand (and the
        tasks that held answers and queued frames wait on, if one ended by a failure)."""
        if self.computer_seat() is not None and (self.bot_task is None or self.bot_task.done()):
            self.bot_task = self._spawn(self._bot_move())
        self._apply_held_later()
        if self.delivery.pending and (self.deliver_task is None or self.deliver_task.done()):
            self.caught_up.clear()
            self.deliver_task = self._spawn(self._deliver())
        self.schedule_except_bots()

    def ready_to_deal(self) -> bool:
        """Every human seat taken and at least one of its players connected, and not
        everyone in 托管: an abandoned room stops dealing."""
        return self.table.ready_to_deal() and not self.paused() and any(
            c.seat is not None and self.table.seats[c.seat].kind == "human"
            for c in self.clients)

    def _spawn(self, coro: Any) -> asyncio.Task[None]:
        task = asyncio.create_task(coro)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[None]) -> None:
        if task.cancelled() or task.exception() is None:
            return
        # never log the exception text: it may name cards or options
        log.error("a task of table %s failed (%s); rescheduling", self.table.code,
                  type(task.exception()).__name__)
        asyncio.get_running_loop().call_later(0.5, self.schedule)

    def _arm_timers(self) -> None:
        """Each pending human seat gets its own deadline when its decision is shown to
        it; one seat's answer never moves another's deadline."""
        now = time.monotonic()
        humans = self.pending_humans()
        changed = False
        for seat in list(self.deadlines):
            if seat not in humans:
                del self.deadlines[seat]
                changed = True
        for seat in humans:
            key = self.decision_key(seat)
            if seat not in self.deadlines or self.deadlines[seat][0] != key:
                self.deadlines[seat] = (key, now + self.table.config.timer)
                changed = True
        running = self.timer_wake is not None or (
            self.timer_task is not None and not self.timer_task.done())
        if running and not changed:
            return
        if self.timer_wake is not None:
            self.timer_wake.cancel()
            self.timer_wake = None
        if self.timer_task is not None and not self.timer_task.done():
            self.timer_task.cancel()
        if self.deadlines:
            # a timer, not a sleeping task: most decisions come before their deadline,
            # and moving a timer costs far less than cancelling a task
            first = min(deadline for _, deadline in self.deadlines.values())
            self.timer_wake = asyncio.get_running_loop().call_later(
                max(0.0, first - now), self._timer_due)

    def _timer_due(self) -> None:
        self.timer_wake = None
        self.timer_task = self._spawn(self._timer())

    def _still_due(self, seat: int, key: tuple[Any, ...]) -> bool:
        return self.deadlines.get(seat, (None,))[0] == key and \
            seat in self.pending_humans() and self.decision_key(seat) == key

    async def _timer(self) -> None:
        t = self.table
        while self.deadlines:
            seat, (key, deadline) = min(self.deadlines.items(), key=lambda kv: kv[1][1])
            wait = deadline - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            grace_key = (t.hand_no, seat)
            if seat in self.disconnected_at and grace_key not in self.grace_used \
                    and t.config.grace > 0:
                # a disconnected player's first grace period of a hand does not count
                self.grace_used.add(grace_key)
                self.deadlines[seat] = (key, time.monotonic() + t.config.grace)
                continue
            async with self.lock:
                if not self._still_due(seat, key):
                    self._arm_timers()
                    return
                assert t.hand is not None
                if t.hand.phase is not Phase.DISCARD:
                    # a missed claim answer is a pass, nothing more: no computer decides
                    # it, and it does not count toward 托管 (that would tell who had one)
                    del self.deadlines[seat]
                    self.act(seat, Pass(), player=None)
                    self.timer_task = None
                    self.schedule()
                    return
                move = self._computer_move(seat)
            # a missed discard (public anyway): the computer discards, off the event loop
            action = await self.server.pool.run(t.code, choose_move, *move,
                                                fallback=_quick_move(move))
            async with self.lock:
                if not self._still_due(seat, key):
                    self._arm_timers()
                    return
                del self.deadlines[seat]
                self.commit({"k": "timeout", "seat": seat})
                if t.seats[seat].timeouts >= 2 and not t.seats[seat].tuoguan:
                    self.commit({"k": "tuoguan", "seat": seat, "on": True})
                self.act(seat, action, player=None)
                self.timer_task = None
                self.schedule()
            return

    def _computer_move(self, seat: int) -> ComputerMove:
        """What the seat's computer decides from now: its player's name and seed, its
        observation, its legal actions and, on a claim, the time by which it answers (the
        arguments of ``choose_move``)."""
        t = self.table
        hand_seat = t.hand_seat(seat)
        assert t.hand is not None and hand_seat is not None
        name, seed = t.computer_spec(seat)
        deadline = None if t.hand.phase is Phase.DISCARD else self._answer_by(t.hand)
        return (name, seed, observation_for(make_player(name, seed), t.hand, hand_seat),
                t.hand.legal_actions(hand_seat), deadline)

    def _answer_by(self, hand: Hand) -> float:
        """When a computer's answer at the hand's claim point is due: a margin before its
        claim window ends (the same time for every computer answering that card)."""
        if self._claim_key == self._key_of(hand):
            return self._claim_deadline
        return time.monotonic() + max(0.0, self.claim_window
                                      - CLAIM_ANSWER_MARGIN)

    async def _bot_move(self) -> None:
        """One computer decision at a time for this room, on the shared fair pool.

        A computer's answer on a claim is made at once: it is hidden in the claim window
        like anyone's (and done, for the quick levels, long before the card is shown:
        ``DECISION_PAD``). A computer's discard (its turn is public) comes once the turn
        has been shown, after the room's ``bot_delay`` (at least MIN_COMPUTER_DELAY)."""
        t = self.table
        while True:
            async with self.lock:
                seat = self.computer_seat()
                if seat is None:
                    return
                key = self.decision_key(seat)
                assert t.hand is not None
                discarding = t.hand.phase is Phase.DISCARD
                move = self._computer_move(seat)
            if discarding:
                await self.caught_up.wait()
                await asyncio.sleep(max(t.config.bot_delay, MIN_COMPUTER_DELAY))
            # a claim answer still queued behind other moves at its deadline is made
            # then, with no time to think (the queue never holds the window open)
            action = await self.server.pool.run(t.code, choose_move, *move,
                                                fallback=_quick_move(move),
                                                deadline=move[4],
                                                expired=functools.partial(choose_move, *move))
            async with self.lock:
                if t.hand is None or t.hand.ended or self.decision_key(seat) != key or \
                        self.computer_seat() != seat:
                    continue
                slot = self._answer_slot(move[4] is not None)
                if slot is not None:
                    # a claim answer is applied when its claim point's mask begins, not
                    # when it came: when computers answer must tell no more than what
                    assert self._claim_key is not None
                    self.held[seat] = (key, action, self._claim_key, slot)
                    self._apply_held_later()
                    continue
                self.act(seat, action, player=None)
                self.schedule_except_bots()

    def _answer_slot(self, claim_answer: bool) -> int | None:
        """Which of its claim point's two times (:meth:`_answers_due`) a computer's answer
        made now waits for: the first if it is not past, else the window's end if that is
        not; None (applied now) if both are past or it answers no shown claim point."""
        t = self.table
        if not claim_answer or self._claim_key is None or t.hand is None or \
                self._key_of(t.hand) != self._claim_key:
            return None
        times = self.answer_at.get(self._claim_key)
        now = time.monotonic()
        if times is None or now < times[0]:
            return 0
        return 1 if now < times[1] else None

    def _apply_held_later(self) -> None:
        if self.held and (self.held_task is None or self.held_task.done()):
            self.held_task = self._spawn(self._apply_held())

    async def _apply_held(self) -> None:
        """Apply the computers' held claim answers when their claim point's mask begins
        (:meth:`_answers_due`), those still for the decision they answered; then go on."""
        t = self.table
        while self.held:
            for seat in [s for s, (key, _, _, _) in self.held.items()
                         if not self._still_deciding(s, key)]:
                del self.held[seat]  # the decision moved on without it
            known = [self.answer_at[ck][slot] for _, _, ck, slot in self.held.values()
                     if ck in self.answer_at]
            now = time.monotonic()
            if not known:  # the claim point is not shown yet
                self.claim_shown.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.claim_shown.wait(), timeout=1.0)
                continue
            if min(known) > now:
                await asyncio.sleep(min(known) - now)
                continue
            async with self.lock:
                now = time.monotonic()
                for seat in sorted(self.held):
                    key, action, claim_key, slot = self.held[seat]
                    if self.answer_at.get(claim_key, (math.inf, math.inf))[slot] > now:
                        continue
                    del self.held[seat]
                    if not self._still_deciding(seat, key) \
                            or not t.controlled_by_computer(seat) \
                            or seat not in self.pending_match_seats():
                        continue  # the decision moved on, or its person took it back
                    self.act(seat, action, player=None)
                self.schedule()

    def schedule_except_bots(self) -> None:
        t = self.table
        if t.leaving and (t.hand is None or t.hand.ended) and self.end_shown():
            self._leave_now()  # (after a restart: no frame is released to do it)
            return
        self.change_seats()
        self._arm_timers()
        if (t.hand is None or t.hand.ended) and self.ready_to_deal() and (
                self.next_task is None or self.next_task.done()):
            delay = 0.0 if t.hand is None else t.config.next_delay
            if t.match is not None and t.match.over and t.match_end == "hands":
                delay = max(delay, MATCH_END_WAIT)  # the 大结算 is read before it goes
            self.next_at = time.monotonic() + delay
            self.next_task = self._spawn(self._next_hand(t.hand_no, delay))

    async def _next_hand(self, hand_no: int, delay: float) -> None:
        t = self.table
        await self._publish_commitment(hand_no)
        humans = {i for i, s in enumerate(t.seats) if s.kind == "human"} \
            - set(t.leavers_seated())  # who left votes for nothing
        await wait_until(self.changed, lambda: bool(humans) and humans <= self.next_votes,
                         delay)
        await self._collect_entropy(hand_no)
        async with self.lock:
            if t.hand_no == hand_no and t.leavers_seated():
                self.free_left_seats(escapes=True)  # a private room's waits for someone
                self._capture(self.frame(None, claim_point=False))
                self.schedule()
            if t.hand_no != hand_no or not self.ready_to_deal() or t.next_secret is None:
                return
            self.next_votes.clear()
            try:  # the last match's 大结算, if a failure kept it unstored (else nothing)
                self.record_match()
            except Exception as exc:  # the next hand is dealt all the same
                log.error("table %s: its match summary is not stored (%s)", t.code,
                          type(exc).__name__)
            self.commit(t.new_start_entry())
            self.committed_at = 0.0
            for client in list(self.clients):  # who holds each seat as it is dealt
                self.seen_at_seat(client, t.hand_no)  # (a 天胡 may have ended it)
            self.settle_if_needed()  # a mandatory 天胡 ends a hand at its deal
            self.schedule()

    def end_shown(self) -> bool:
        """The table has been shown that no hand is in progress. The engine may be a claim
        window ahead: a hand won on the card in play is over for it before the seats are
        shown the card's fate, and nothing they are sent may tell it sooner."""
        current = self.delivery.current
        return current is not None and current.between

    def leave_later(self, seat: int, seq: int) -> None:
        """``seat`` leaves once the hand now dealt has ended and its end is shown
        (:meth:`_leave_now`), between hands (no escape): a hand the engine has ended but
        the table has not been shown to end yet (won on the card in play: nothing the
        seat gets may tell that sooner), a hand dealt after the one whose end the
        seat saw when it chose to leave, or a hand the seat sits out (the 醒家/坐底)."""
        t = self.table
        self.commit({"k": "leaving", "seat": seat, "seq": seq, "hand": t.hand_no})

    def _leave_now(self) -> None:
        """Log the leaves waiting for the end of their hand to be shown (the caller holds
        the lock, between hands); each frees its seat (:meth:`free_left_seats`)."""
        t = self.table
        if t.hand is not None and not t.hand.ended:
            return  # (a hand dealt since: they leave when it ends)
        while t.leaving:
            seat = min(t.leaving)
            seq = t.leaving[seat]
            self.commit({"k": "leave", "seat": seat, "seq": seq, "frees": True})
            self.record_match()  # its 大结算
        self.free_left_seats()
        self.schedule()

    def vote_next(self, seat: int) -> bool:
        """``seat`` is ready for the next hand (counted between hands only, once the hand's
        end has been shown: a vote counted sooner would tell that the hand is over).
        Whether it was counted."""
        t = self.table
        if (t.hand is None or t.hand.ended) and self.end_shown():
            self.next_votes.add(seat)
            self.changed.set()
            self.presence_changed()
            return True
        return False

    def seen_at_seat(self, client: Client, hand_no: int | None = None) -> None:
        """Note the address ``client`` plays its seat from in table hand ``hand_no``
        (default: the hand now dealt, or between hands the next one):
        :meth:`sharing_seats` reads them (an unknown address is not noted). While a hand
        is dealt (or at its deal), the seat is noted present in it unless in 托管
        (:meth:`computer_played`). What is new is logged (a ``seen`` entry): a process
        that restores the room settles the hand by the same rule."""
        if client.seat is None:
            return
        dealt = hand_no is not None
        if hand_no is None:
            hand_no = self.table.hand_no
            hand = self.table.hand
            # a hand the engine has ended but whose end the table has not shown yet (won on
            # the card in play) is still the hand dealt: what is noted, and whether a log
            # entry is written in the message's way, must not tell it sooner (a review)
            dealt = hand is not None and (not hand.ended or not self.end_shown())
            if not dealt:
                hand_no += 1  # between hands: the one to be dealt
        present = dealt and not self.table.seats[client.seat].tuoguan
        entry = self.seen.note(hand_no, seat=client.seat, address=client.address or "",
                               present=present)
        if entry is None:
            return
        try:
            self.server.storage.append_log(self.table.code, entry)
        except Exception as exc:  # noted here all the same; the message is handled (a
            # lost lease too: the room's next commit meets it, where it is handled)
            if "key" in entry:
                self.seen.key_logged = False  # the next entry carries it
            log.error("table %s: who held seat %d is not logged (%s)", self.table.code,
                      client.seat, type(exc).__name__)

    def _note_move(self, seat: int, own: bool) -> None:
        """Note who made a decision of a person's seat in the hand now dealt."""
        if self.table.seats[seat].kind == "human":
            self.note_move(self.table.hand_no, seat, own)

    def note_move(self, hand_no: int, seat: int, own: bool) -> None:
        """Note who made a decision of person's seat ``seat`` in table hand ``hand_no``
        (also from the log, when a room is restored: its ``act`` entries say)."""
        self.moves.setdefault(hand_no, {}).setdefault(seat, set()).add(own)
        for old in [h for h in self.moves if h < hand_no - 2]:
            del self.moves[old]

    def computer_played(self, hand_no: int, sat_out: int | None = None) -> set[int]:
        """The persons' match seats whose every decision of table hand ``hand_no`` the
        computer made for them (托管, timeouts): they gain nothing lifetime from it
        (:meth:`~paohuzi.server.server.Server.rate`). A red team farmed with a seat
        taken over HTTP that never connected: the computer won for it, and no address
        of it was ever noted for the same-address rule.

        ``sat_out``: the seat that sat the hand out (the 醒家), which decides nothing: it
        counts too unless a connection held it, not in 托管, while the hand was dealt
        (:attr:`Seen.present`) — a seat taken over HTTP that never connected was paid its
        醒家 unit every time the deal put it opposite the dealer."""
        seats = {seat for seat, made in self.moves.get(hand_no, {}).items() if True not in made}
        if sat_out is not None and sat_out not in self.seen.present.get(hand_no, ()):
            seats.add(sat_out)
        return seats

    def sharing_seats(self, hand_no: int) -> set[int]:
        """The match seats of table hand ``hand_no`` played from an address another of its
        seats was played from too (connections held or messages sent while it was dealt):
        they gain nothing lifetime from it (:meth:`~paohuzi.server.server.Server.rate`)."""
        return self.seen.sharing(hand_no)

    def connect(self, client: Client) -> None:
        self.clients.add(client)
        self.connected_ever = True
        self.seen_at_seat(client)
        if client.seat is not None:
            self.disconnected_at.pop(client.seat, None)
        self.changed.set()
        self.presence_changed()

    def disconnect(self, client: Client) -> None:
        self.clients.discard(client)
        self.last_active = max(self.last_active, time.time())  # idle from now on
        if client.seat is not None and not any(c.seat == client.seat for c in self.clients):
            self.disconnected_at[client.seat] = time.monotonic()
        self.changed.set()
        self.presence_changed()

    # ---- the hall (issue 16): presence, quick chat, seats changing hands -----------------

    def presence(self) -> dict[str, Any]:
        """The ``presence`` message now (presence.py)."""
        return presence_json(self.table, (c.seat for c in self.clients), self.next_votes,
                             between=self.end_shown())

    def presence_changed(self) -> None:
        """Send the presence to the connections that asked for it, once the current
        change is done (one send for several changes)."""
        if not _loop_running() or not any(c.presence for c in self.clients):
            return
        if self.presence_task is None or self.presence_task.done():
            self.presence_task = self._spawn(self._send_presence())

    async def _send_presence(self) -> None:
        await asyncio.sleep(0)
        await send_all([c for c in self.clients if c.presence], self.presence())

    def say(self, seat: int, chat_id: str) -> None:
        """A quick phrase or emote of ``seat`` to everyone at the table (its id only)."""
        message = {"type": "chat", "seat": seat, "id": chat_id}
        self._spawn(send_all(list(self.clients), message))

    def reserve_seat(self, player: int, nickname: str) -> int | None:
        """A computer seat of this hall room for ``player``, taken between hands (now if
        the table is between hands); None if none is free."""
        if self.table.hall is None:
            return None
        return self.seating.reserve(self.table, player, nickname)

    def note_idle(self) -> None:
        """After a settled hand of a hall room: count who ended it idle (托管, or not
        connected)."""
        t = self.table
        summary = t.last_summary
        if t.hall is None or summary is None or t.settled <= self.seating.counted:
            return
        self.seating.counted = t.settled
        connected = {c.seat for c in self.clients}
        seated = [*summary.players, *([summary.xingjia] if summary.xingjia is not None else [])]
        self.seating.note_hand({seat: t.seats[seat].tuoguan or seat not in connected
                                for seat in seated if t.seats[seat].kind == "human"})

    def spectator_room(self, max_spectators: int | None = None) -> int:
        """How many more connections without a seat the room takes (negative: how many
        too many): ``max_spectators`` (the server's limit by default), and as many per
        free person's seat as one player may hold."""
        t = self.table
        most = self.server.limits.max_spectators if max_spectators is None else max_spectators
        free = len(t.free_seats())
        watching = sum(1 for c in self.clients if c.seat is None)
        return most + free * MAX_CONNECTIONS_PER_PLAYER - watching

    def trim_spectators(self, unseated: list[Client]) -> None:
        """Close the connections just left without a seat (a seat freed) that put the room
        over its spectators' places: a player who came past the cap to sit (``sit=1``),
        or filled the places kept for a free seat, then left, kept them all as
        spectators — a review grew 28 spectators against a cap of 19 so."""
        over = -self.spectator_room()
        for client in unseated[:max(0, over)]:
            client.close_soon(1008)

    def free_left_seats(self, escapes: bool = False) -> None:
        """Once the hand they left is shown and settled, the seats of players who left
        the table are freed (the caller holds the lock): a hall room's to its computer, a
        private room's for the next person to sit (rules-notes N18). An escape's seat
        (``escapes``) when the next hand would be dealt: his settlement is shown to him
        first. Nobody is dealt a hand at a table he left."""
        t = self.table
        if (t.hand is not None and not t.hand.ended) or t.needs_settlement():
            return
        unseated: list[Client] = []
        for seat in t.leavers_seated(escapes):
            kind = t.hall["computer"] if t.hall is not None else "human"
            self.commit({"k": "free", "seat": seat, "kind": kind})
            for client in self.clients:
                if client.seat == seat:
                    client.seat = None
                    unseated.append(client)
            self.next_votes.discard(seat)
            self.seating.idle.pop(seat, None)
            self.disconnected_at.pop(seat, None)
        self.trim_spectators(unseated)

    def change_seats(self) -> None:
        """Between hands, a hall room's reserved seats are taken and idle ones freed
        (the caller holds the lock)."""
        t = self.table
        if t.hall is None or (t.hand is not None and not t.hand.ended) or \
                t.needs_settlement():
            return
        entries = self.seating.entries(t, t.hall["computer"])
        unseated: list[Client] = []
        for entry in entries:
            t.verify_seat_change()
            assert t.match is not None
            if t.match.history and not t.match.over:
                # the match ends first, its 大结算 stored with the seats as they were
                self.commit({"k": "leave", "seat": entry["seat"]})
                self.record_match()
            self.commit(entry)
            seat = entry["seat"]
            for client in self.clients:
                if entry["k"] == "join" and client.player.id == entry["player"]:
                    client.seat = seat
                elif entry["k"] == "free" and client.seat == seat:
                    client.seat = None
                    unseated.append(client)
            self.note_level(seat, entry.get("player"))
            self.next_votes.discard(seat)
        if entries:
            self.record_match()
            self._capture(self.frame(None, claim_point=False))  # with the levels
        self.trim_spectators(unseated)

    def connected_seats(self) -> list[int]:
        """The match seats with at least one connection (who is at the table)."""
        return sorted({c.seat for c in self.clients if c.seat is not None})

    async def announce_presence(self) -> None:
        """Tell every connection who is connected, when that changed (a ``presence``
        message: docs/protocol.md); a connection's first one comes with its welcome."""
        seats = self.connected_seats()
        if seats == self.presence_sent:
            return
        self.presence_sent = seats
        await send_all(list(self.clients), {"type": "presence", "connected": seats})

    async def _publish_commitment(self, hand_no: int) -> None:
        """The server's secret for the next hand, committed and published before any
        seat's value is taken."""
        t = self.table
        async with self.lock:
            if t.hand_no != hand_no or not self.ready_to_deal():
                return
            if t.next_secret is not None:  # published before (or before a restart)
                self.committed_at = self.committed_at or time.monotonic()
                return
            self.commit(t.new_commit_entry())
            self.committed_at = time.monotonic()
        await self.broadcast()

    async def _collect_entropy(self, hand_no: int) -> None:
        """Wait, until ENTROPY_WAIT after the commitment at most, for the value of every
        connected human seat."""
        t = self.table

        def all_in() -> bool:
            connected = {c.seat for c in self.clients if c.seat is not None
                         and t.seats[c.seat].kind == "human"}
            return t.hand_no != hand_no or connected <= set(t.entropy)

        await wait_until(self.changed, all_in,
                         self.committed_at + ENTROPY_WAIT - time.monotonic())


async def wait_until(event: asyncio.Event, done: Callable[[], bool], timeout: float) -> bool:
    """Wait until ``done()`` holds, looking again each time ``event`` is set, for
    ``timeout`` seconds at most; returns ``done()``. Meant for one waiter per event (it
    clears the event).

    >>> asyncio.run(wait_until(asyncio.Event(), lambda: True, 0.0))
    True
    >>> asyncio.run(wait_until(asyncio.Event(), lambda: False, 0.01))
    False
    """
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not done():
        left = end - loop.time()
        if left <= 0:
            return False
        event.clear()  # nothing runs between this and the check above: no lost wake-up
        try:
            async with asyncio.timeout(left):
                await event.wait()
        except TimeoutError:
            return done()
    return True


async def send_all(clients: list[Client], message: dict[str, Any]) -> None:
    """Send ``message`` to each of ``clients`` (encoded once); returns once every socket
    has taken it."""
    text = to_json(message)
    waiting = [w for w in (c.post(text) for c in clients) if w is not None]
    if waiting:
        await asyncio.wait(waiting)


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _quick_move(move: ComputerMove) -> Callable[[], Action]:
    """The move made in the server where worker processes fail: the heuristic's (a few
    ms), not the same search again (what broke a worker may break the server)."""
    _, seed, obs, legal, _ = move
    return lambda: choose_move("heuristic", seed, obs, legal)
