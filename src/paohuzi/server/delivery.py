"""What a table's seats are shown, and when: frames released one claim window apart.

The engine resolves a shown card on which nobody has an option at once, and goes on
(to the pile, the next draw, the next shown card...); a card on which someone has an
option waits for the answers. Sent as it happens, the batching and the pauses would
tell every seat whether another seat holds a 吃/碰/胡 option. So the server captures a
*frame* — every viewer's message body — at each claim point of the hand (the 亮张, a
shown card, one's own 提/偎) and after every change, and releases the frames in order:
a frame that follows a claim point is released no sooner than ``window`` seconds after
that claim point was, whether or not anyone had an option. Every shown card thus reaches
a seat the same way: one message with the card in play, then, a window later (or when
the seats with an option have answered, if later), one message with what became of it.

Seats act on what they have been shown: a decision is open to a seat only once the
frame that shows it has been released (:meth:`Delivery.released`).

>>> d = Delivery(window=1.0)
>>> d.capture(Frame(1, {None: Body("a")}, {}, claim_point=True))
>>> d.capture(Frame(1, {None: Body("b")}, {}, claim_point=False))
>>> d.release(now=10.0).bodies[None].hash, d.due(now=10.5), d.due(now=11.0)
('a', False, True)
>>> d.release(now=11.0).bodies[None].hash, d.pending
('b', False)
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any

from paohuzi.server.views import Body

__all__ = ["DECISION_PAD", "Delivery", "Frame"]

DECISION_PAD = 0.02
"""Seconds after a decision is logged before the frame that follows it may be released.
What the engine does after a decision depends on hidden cards (a discard nobody may
claim goes on to the next draw and its claim point, one someone may claim stops), and
so does the time it takes; released as soon as it is built, the next frame would tell
the decider — by a millisecond or so — whether anyone had an option. Padded to a fixed
delay after the decision, it leaves at the same moment either way (unless building it
took longer than the pad: a server far past its capacity)."""

Viewer = int | None
"""A match seat, or ``None`` for a spectator."""


@dataclass(frozen=True)
class Frame:
    """The table as every viewer may see it at one moment.

    Attributes:
        hand_no: the hand shown.
        bodies: per viewer, what it is shown (views.py), every event of the hand in it.
        decisions: per match seat with a decision, the key of that decision.
        claim_point: the frame shows a claim point: the next one waits the window.
        between: the frame shows no hand in progress (before the first, or a hand's end).
        floor: not released before this (``time.monotonic()``): a decision's
            :data:`DECISION_PAD`, for the frames its application captured.
        claim_key: a claim point's frame: which one (hand number, events before it).
    """

    hand_no: int
    bodies: dict[Viewer, Body]
    decisions: dict[int, tuple[Any, ...]]
    claim_point: bool
    between: bool = False
    floor: float = 0.0
    claim_key: tuple[int, int] | None = None

    def same_as(self, other: Frame) -> bool:
        """Nothing any viewer sees differs (a secret answer, a settled marker...)."""
        return self.bodies.keys() == other.bodies.keys() and all(
            body.hash == other.bodies[v].hash for v, body in self.bodies.items()) \
            and self.decisions == other.decisions


@dataclass
class Delivery:
    """The frames of one table: the one released (what connections see now) and the
    ones captured but not released yet, in order."""

    window: float
    current: Frame | None = None
    queue: deque[Frame] = field(default_factory=deque)
    not_before: float = 0.0  # the claim window of the last claim point released
    floor: float = 0.0  # of the frames captured from now on (:meth:`hold`)

    @property
    def pending(self) -> bool:
        """Frames wait to be released: the engine is ahead of what seats were shown."""
        return bool(self.queue)

    def capture(self, frame: Frame) -> None:
        """Queue a frame (one that shows nothing new after the last is dropped, unless
        it opens a claim window)."""
        last = self.queue[-1] if self.queue else self.current
        if last is not None and not frame.claim_point and frame.same_as(last):
            return
        self.queue.append(replace(frame, floor=self.floor) if self.floor > frame.floor
                          else frame)

    def hold(self, until: float) -> None:
        """The frames captured from now on are released no sooner than ``until`` (a
        decision is being applied: :data:`DECISION_PAD`); frames queued before keep
        their time — another seat's decision, made while they wait, does not delay them.

        >>> d = Delivery(window=1.0)
        >>> d.hold(5.02); d.capture(Frame(1, {None: Body("a")}, {}, claim_point=True))
        >>> d.hold(5.03); d.capture(Frame(1, {None: Body("b")}, {}, claim_point=False))
        >>> d.due(now=5.0), d.due(now=5.02)
        (False, True)
        >>> d.release(now=5.02).bodies[None].hash, round(d.wait(now=5.5), 2)
        ('a', 0.52)
        """
        self.floor = max(self.floor, until)

    def _next_at(self) -> float:
        return max(self.not_before, self.queue[0].floor) if self.queue else self.not_before

    def due(self, now: float) -> bool:
        """The next frame may be released now."""
        return bool(self.queue) and now >= self._next_at()

    def wait(self, now: float) -> float:
        """Seconds until the next frame may be released."""
        return max(0.0, self._next_at() - now)

    def release(self, now: float) -> Frame:
        """Release the next frame (the caller checked :meth:`due`)."""
        frame = self.queue.popleft()
        self.current = frame
        if frame.claim_point:
            self.not_before = now + self.window
        return frame

    def window_end(self, now: float) -> float:
        """When the claim window of the last claim point queued will end, the frames
        being released as soon as they may be (a claim window after each claim point).

        >>> d = Delivery(window=1.0)
        >>> d.capture(Frame(1, {None: Body("a")}, {}, claim_point=True))
        >>> d.capture(Frame(1, {None: Body("b")}, {}, claim_point=True))
        >>> d.window_end(now=5.0)  # shown at 5 and 6: the second window ends at 7
        7.0
        """
        end = self.not_before
        for frame in self.queue:
            if frame.claim_point:
                end = max(now, end, frame.floor) + self.window
        return end

    def released(self, seat: int, key: tuple[Any, ...]) -> bool:
        """The decision ``key`` of ``seat`` has been shown to it."""
        return self.current is not None and self.current.decisions.get(seat) == key
