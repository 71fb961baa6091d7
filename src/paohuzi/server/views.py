"""What one viewer is sent, built once and kept: state bodies, their JSON and digest.

A viewer (a match seat, or ``None`` for every spectator) gets the same body on every one
of its connections, so a body is built once per viewer and moment
(:meth:`~paohuzi.server.table.Table.bodies`), with its JSON text and its digest; a
connection's message is then put together from that text
(:meth:`Body.message_text`) without encoding anything again. The parts that cost most
are kept across moments:

* :class:`EventLog`: the events of a hand as one viewer sees them, in match seat numbers,
  each with its JSON text: a hand's events only ever grow, so each is rendered once per
  viewer, not once per message;
* the viewer's seat view and 听牌 waits, kept while the hand's state is the same (the
  table builds a moment's bodies at a claim point and again after the change that
  reached it).

Nothing here decides what a viewer may see: the engine's seat view
(:func:`paohuzi.game.view.observe`) and :meth:`Event.visible_to
<paohuzi.game.engine.Event.visible_to>` do; this module only keeps their answers.

>>> body = Body("h1", {"you": None, "view": None}, '"you":null,"view":null')
>>> body.to_dict()
{'you': None, 'view': None, 'events_from': 0, 'events': [], 'hash': 'h1'}
>>> body.message_text(3, 0, None)
'{"type":"state","n":3,"you":null,"view":null,"events_from":0,"events":[],"hash":"h1","deadline":null,"next_deadline":null,"turn_deadline":null}'
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from paohuzi.game.engine import Hand
from paohuzi.game.view import (
    TAIL_KEYS,
    Observation,
    observe,
    seat_json,
    seat_key,
    seat_tail,
    view_head,
    view_tail,
)
from paohuzi.server.seats import match_event, match_view

__all__ = ["DELTA_DEPTH", "DELTA_MAX_SHARE", "Body", "EventLog", "KeptMembers", "SeatViews",
           "SharedEvents", "apply_changes", "changes", "digest_of", "dumps", "members_json"]

DELTA_MAX_SHARE = 0.5
"""A ``delta`` message is sent instead of a ``state`` one only when its changes are
shorter than this share of the full state's members (docs/protocol.md)."""
DELTA_DEPTH = 3
"""How deep :func:`changes` looks into objects and same-length lists before it sends a
changed member whole (``view.seats.1.pile`` is at depth 3)."""


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_encode_string = json.encoder.encode_basestring  # what _ENCODER does with a string
_FINITE_MAX = sys.float_info.max
_FINITE_MIN = -_FINITE_MAX


def dumps(value: Any) -> str:
    """The JSON text the server sends (UTF-8 characters kept, compact separators);
    strings, ``None``, booleans and integers without the encoder's per-call cost.

    >>> values = ("一\\"\\n", None, True, 7, 10**20, [1, "二"], {"a": 1.5}, 0.25, -1e300)
    >>> [dumps(v) for v in values] == [json.dumps(v, ensure_ascii=False,
    ...                                           separators=(",", ":")) for v in values]
    True
    """
    kind = type(value)
    if kind is str:
        return _encode_string(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float and _FINITE_MIN <= value <= _FINITE_MAX:  # a timer: no NaN or infinity
        return float.__repr__(value)
    return _ENCODER.encode(value)


def members_json(members: Sequence[tuple[str, str]]) -> str:
    """JSON object members from ``(key, JSON text)`` pairs, without the braces (the keys
    are the protocol's plain names: nothing in them to escape).

    >>> members_json([("a", "1"), ("b", '"x"')])
    '"a":1,"b":"x"'
    """
    return ",".join([f'"{key}":{text}' for key, text in members])


def digest_of(head_json: str, events_seen: int) -> str:
    """A digest of what one viewer sees: its body's members and how many events it has
    been shown (never anything hidden from it: the body is that viewer's own)."""
    text = f"{head_json}|{events_seen}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def changes(old: dict[str, Any], new: dict[str, Any], depth: int = DELTA_DEPTH,
            prefix: str = "") -> tuple[dict[str, Any], list[str]]:
    """What turns ``old`` into ``new``: ``(set, unset)``, paths of dot-joined keys (a
    list index is a key too), as :func:`apply_changes` applies them. Objects, and lists
    of objects of the same length, are compared member by member down to ``depth``
    levels; below, or where the shapes differ, a changed member is set whole.

    >>> old = {"view": {"wall": 40, "seats": [{"pile": "一"}, {"pile": ""}], "claim": 1}}
    >>> new = {"view": {"wall": 39, "seats": [{"pile": "一"}, {"pile": "五"}]}}
    >>> changes(old, new)
    ({'view.wall': 39, 'view.seats.1.pile': '五'}, ['view.claim'])
    >>> apply_changes(old, *changes(old, new)) == new
    True
    """
    set_: dict[str, Any] = {}
    unset: list[str] = []
    _diff(old, new, depth, prefix, set_, unset)
    return set_, unset


def _diff(old: Any, new: Any, depth: int, prefix: str, set_: dict[str, Any],
          unset: list[str]) -> None:
    if isinstance(new, dict):
        get = old.get
        for key, value in new.items():
            was = get(key, _MISSING)
            if was is not value:  # most members are the very same object
                if was is _MISSING:
                    set_[prefix + key] = value
                else:
                    _member(was, value, depth, prefix + key, set_, unset)
        if not old.keys() <= new.keys():
            unset.extend([prefix + key for key in old if key not in new])
    else:
        for i, (was, value) in enumerate(zip(old, new, strict=True)):
            if was is not value:
                _member(was, value, depth, f"{prefix}{i}", set_, unset)


def _member(was: Any, value: Any, depth: int, path: str, set_: dict[str, Any],
            unset: list[str]) -> None:
    if was == value:
        return
    kind = type(value)
    if depth > 0 and type(was) is kind and (kind is dict or (
            kind is list and len(was) == len(value) and type(value[0]) in (dict, list))):
        _diff(was, value, depth - 1, path + ".", set_, unset)  # lists of objects only
    else:
        set_[path] = value


def apply_changes(state: dict[str, Any], set_: dict[str, Any], unset: list[str],
                  copy: bool = True) -> dict[str, Any]:
    """``state`` with :func:`changes`' ``set`` and ``unset`` applied (a new object:
    what is changed is copied, nothing in ``state`` is modified; ``copy=False``:
    ``state`` itself, changed in place, for a client that keeps no older state). What a
    client does with a ``delta`` message (docs/protocol.md).

    >>> state = {"view": {"wall": 40, "seats": [{"pile": ""}]}, "claim": 1}
    >>> new = apply_changes(state, {"view.wall": 39, "view.seats.0.pile": "五"}, ["claim"])
    >>> new, state["view"]["wall"]
    ({'view': {'wall': 39, 'seats': [{'pile': '五'}]}}, 40)
    >>> apply_changes(state, {"view.wall": 39}, ["claim"], copy=False) is state, state
    (True, {'view': {'wall': 39, 'seats': [{'pile': ''}]}})
    """
    if not copy:
        for path, value in set_.items():
            parent, key = _container(state, path)
            parent[key] = value
        for path in unset:
            parent, key = _container(state, path)
            del parent[key]
        return state
    out = dict(state)
    copied: set[int] = {id(out)}
    for path, value in set_.items():
        parent, key = _parent(out, path, copied)
        parent[key] = value
    for path in unset:
        parent, key = _parent(out, path, copied)
        del parent[key]
    return out


def _container(root: dict[str, Any], path: str) -> tuple[Any, Any]:
    """The container holding ``path``'s last key, and that key (nothing copied)."""
    steps = path.split(".")
    node: Any = root
    for step in steps[:-1]:
        node = node[int(step)] if type(node) is list else node[step]
    last = steps[-1]
    return node, int(last) if type(node) is list else last


def _parent(root: dict[str, Any], path: str, copied: set[int]) -> tuple[Any, Any]:
    """The container holding ``path``'s last key (copied on the way), and that key."""
    *steps, last = path.split(".")
    node: Any = root
    for step in steps:
        key: Any = int(step) if isinstance(node, list) else step
        child = node[key]
        if id(child) not in copied:
            child = list(child) if isinstance(child, list) else dict(child)
            copied.add(id(child))
            node[key] = child
        node = child
    return node, int(last) if isinstance(node, list) else last


class EventLog:
    """The events of one hand as one viewer sees them, rendered once each.

    ``hand_seat`` is the viewer's seat in the hand (``None``: a spectator, or a 醒家
    sitting the hand out); ``playing`` maps hand seats to match seats. ``shared``: the
    renderings every non-owner sees (an event's spectator view), one list for all the
    hand's viewers, so most events are rendered once per hand, not once per viewer.

    >>> from paohuzi.core.rules import Ruleset
    >>> hand = Hand.from_seed(3, Ruleset())
    >>> shared = SharedEvents(hand, (0, 1, 2))
    >>> logs = [EventLog(hand, s, (0, 1, 2), shared) for s in (None, 0, 1, 2)]
    >>> [log.catch_up() for log in logs] == [len(hand.events)] * 4
    True
    >>> all(log.dicts == [match_event(e.visible_to(log.hand_seat), (0, 1, 2))
    ...                   for e in hand.events] for log in logs)
    True
    """

    __slots__ = ("dicts", "hand", "hand_seat", "playing", "shared", "texts")

    def __init__(self, hand: Hand | None, hand_seat: int | None,
                 playing: tuple[int, ...], shared: SharedEvents | None = None) -> None:
        self.hand = hand
        self.hand_seat = hand_seat
        self.playing = playing
        self.shared = shared
        self.dicts: list[dict[str, Any]] = []
        self.texts: list[str] = []

    def fits(self, hand: Hand, hand_seat: int | None, playing: tuple[int, ...]) -> bool:
        """This log is the one of ``hand`` for that viewer."""
        return self.hand is hand and self.hand_seat == hand_seat and self.playing == playing

    def catch_up(self) -> int:
        """Render the hand's events not rendered yet; returns how many there are."""
        if self.hand is None:
            return 0
        events = self.hand.events
        shared = self.shared
        viewer = self.hand_seat
        for i in range(len(self.dicts), len(events)):
            event = events[i]
            if shared is not None and (not event.private or (
                    event.seat is not None and viewer != event.seat)):
                seen, text = shared.rendering(i)  # what every non-owner sees
            else:
                seen = match_event(event.visible_to(viewer), self.playing)
                text = dumps(seen)
            self.dicts.append(seen)
            self.texts.append(text)
        return len(self.dicts)


class SharedEvents:
    """A hand's events as a spectator sees them, in match seats, each rendered (and
    encoded) once: what :class:`EventLog` gives every viewer who is not the event's
    owner (for a public event: everyone)."""

    __slots__ = ("dicts", "hand", "playing", "texts")

    def __init__(self, hand: Hand, playing: tuple[int, ...]) -> None:
        self.hand = hand
        self.playing = playing
        self.dicts: list[dict[str, Any]] = []
        self.texts: list[str] = []

    def rendering(self, index: int) -> tuple[dict[str, Any], str]:
        """Event ``index`` as a spectator sees it, and its JSON."""
        events = self.hand.events
        while len(self.dicts) <= index:
            seen = match_event(events[len(self.dicts)].visible_to(None), self.playing)
            self.dicts.append(seen)
            self.texts.append(dumps(seen))
        return self.dicts[index], self.texts[index]


class SeatViews:
    """A table's seat views (in match seats, without events) and their JSON texts, each
    seat's ``seats`` entry kept with its text while what it shows stays the same.

    What a viewer sees is the engine's :func:`~paohuzi.game.view.observe`; its entries
    are :func:`~paohuzi.game.view.seat_json`, a pure function of
    :func:`~paohuzi.game.view.seat_key`: an entry is reused (the same object, which also
    makes :func:`changes` cheap) whenever a viewer's key equals a kept one. Usually only
    one seat's entry changes per action, and a seat's entry is the same for every viewer
    but its owner (whose 偎 are face up to him).

    >>> from paohuzi.core.rules import Ruleset
    >>> from paohuzi.game.view import seat_view
    >>> from paohuzi.server.seats import match_view
    >>> hand = Hand.from_seed(3, Ruleset())
    >>> view, text = SeatViews().view(hand, 1, (0, 1, 2), 3)
    >>> fresh, _ = match_view({**seat_view(hand, 1), "events": []}, [], (0, 1, 2), 3)
    >>> del fresh["events"]
    >>> view == fresh and text == dumps(fresh)
    True
    """

    __slots__ = ("_entries", "_public", "_tails")

    KEEP = 2
    """Entries kept per hand seat (its owner's, and everyone else's)."""

    def __init__(self) -> None:
        self._entries: dict[int, list[tuple[tuple[Any, ...], dict[str, Any], str]]] = {}
        self._public: tuple[Any, _Public] | None = None
        self._tails: dict[int, tuple[tuple[Any, ...], dict[str, Any], dict[str, str]]] = {}

    def view(self, hand: Hand, hand_seat: int | None, playing: Sequence[int],
             seats: int, moment: Any = None) -> tuple[dict[str, Any], str]:
        """:meth:`view_part`'s view and text."""
        seen, text, _ = self.view_part(hand, hand_seat, playing, seats, moment)
        return seen, text

    def view_part(self, hand: Hand, hand_seat: int | None, playing: Sequence[int],
                  seats: int, moment: Any = None
                  ) -> tuple[dict[str, Any], str, _Public]:
        """``hand`` seen from ``hand_seat`` (``None``: a spectator), in match seats
        (:func:`~paohuzi.server.seats.match_view`), and its JSON text.

        ``moment``: a key of the hand's whole state (``None``: none); the public part of
        the view (the spectator's, :func:`~paohuzi.game.view.observe` with
        ``public=``) is built and encoded once per moment, and a seat's view reuses each
        of its members that the seat sees the same (only its own are encoded). Also
        returns that public view (:meth:`Body._change_pieces` uses it)."""
        public = self._public_part(hand, playing, seats, moment)
        if hand_seat is None:
            return public.seen, public.text, public
        obs = observe(hand, hand_seat, events=False, public=public.obs)
        tail, texts = self._tail(obs, hand_seat, playing, seats)
        mine = {**tail, "seat": playing[hand_seat], "phase": obs.phase}
        own = seat_key(obs, hand_seat)
        if own != public.keys[hand_seat]:  # his own 偎 face up: his own entry
            entry, text = self._entry(obs, hand_seat, own)
            at = playing[hand_seat]
            mine["seats"] = [entry if i == at else e for i, e in enumerate(public.seen["seats"])]
            listed = ",".join([text if i == at else t for i, t in enumerate(public.listed)])
            texts = {**texts, "seats": f'"seats":[{listed}]'}
        seen: dict[str, Any] = {}
        parts = []
        for part in public.layout("claim" in mine):
            if isinstance(part, str):  # a member the seat may see differently
                value = mine.get(part, _MISSING)
                if value is _MISSING:
                    seen[part] = public.seen[part]
                    parts.append(public.texts[part])
                else:
                    seen[part] = value
                    parts.append(texts.get(part) or f'"{part}":{dumps(value)}')
            else:  # public members, as every seat sees them
                seen.update(part[0])
                parts.append(part[1])
        return seen, "{" + ",".join(parts) + "}", public

    def _tail(self, obs: Observation, hand_seat: int, playing: Sequence[int], seats: int
              ) -> tuple[dict[str, Any], dict[str, str]]:
        """The seat's :func:`~paohuzi.game.view.seat_tail` in match seats, with each
        member's ``"key":value`` text; kept while what it is made of stays the same (it
        is a pure function of that)."""
        key = (obs.claim, obs.hand, obs.chou, obs.legal, tuple(playing), seats)
        kept = self._tails.get(hand_seat)
        if kept is not None and kept[0] == key:
            return kept[1], kept[2]
        tail = seat_tail(obs)
        if "claim" in tail:  # its source in match seats
            tail["claim"] = match_view({"seats": (), "claim": tail["claim"]}, [], playing,
                                       seats)[0]["claim"]
        texts = {k: f'"{k}":{dumps(v)}' for k, v in tail.items()}
        self._tails[hand_seat] = (key, tail, texts)
        return tail, texts

    def _public_part(self, hand: Hand, playing: Sequence[int], seats: int,
                     moment: Any) -> _Public:
        """The spectator's view at ``moment``, kept while the moment is the same."""
        key = (hand, tuple(playing), seats, moment)
        kept = self._public
        if moment is not None and kept is not None and kept[0][0] is hand \
                and kept[0][1:] == key[1:]:
            return kept[1]
        obs = observe(hand, None, events=False)
        seen, listed = self._seen(obs, playing, seats)
        texts = {k: f'"{k}":[{",".join(listed)}]' if k == "seats" else f'"{k}":{dumps(v)}'
                 for k, v in seen.items()}
        keys = tuple(seat_key(obs, s) for s in range(obs.players))
        public = _Public(obs, seen, texts, "{" + ",".join(texts.values()) + "}", keys,
                         listed)
        self._public = (key, public)
        return public

    def _seen(self, obs: Observation, playing: Sequence[int], seats: int
              ) -> tuple[dict[str, Any], tuple[str, ...]]:
        """The observation as JSON in match seats, and the text of each match seat's
        ``seats`` entry."""
        texts: dict[int, str] = {}
        entries = []
        for s in range(obs.players):
            entry, text = self._entry(obs, s, seat_key(obs, s))
            entries.append(entry)
            texts[id(entry)] = text
        seen, _ = match_view({**view_head(obs), "seats": entries, **view_tail(obs)}, [],
                             playing, seats)
        return seen, tuple("null" if e is None else texts[id(e)] for e in seen["seats"])

    def _entry(self, obs: Observation, seat: int, key: tuple[Any, ...]
               ) -> tuple[dict[str, Any], str]:
        kept = self._entries.setdefault(seat, [])
        for i, (was, entry, text) in enumerate(kept):
            if was == key:
                if i:
                    kept.insert(0, kept.pop(i))
                return entry, text
        entry = seat_json(obs, seat)
        text = dumps(entry)
        kept.insert(0, (key, entry, text))
        del kept[self.KEEP:]
        return entry, text


class KeptMembers:
    """Body members kept by their JSON text: a member whose text is the one last kept
    under its key is given back as the kept object, so that :func:`changes` finds it
    unchanged by identity instead of comparing it member by member.

    >>> kept = KeptMembers()
    >>> a, b = kept.member("t", "table", {"x": [1]}), kept.member("t", "table", {"x": [1]})
    >>> a[1] is b[1], b[2]
    (True, '{"x":[1]}')
    """

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: dict[Any, tuple[Any, str]] = {}

    def member(self, key: Any, name: str, value: Any) -> tuple[str, Any, str]:
        """``(name, value, JSON text)``, ``value`` the kept equal object if any (an
        equal value is not encoded again: a member's values keep their types, so equal
        values have equal texts)."""
        kept = self._kept.get(key)
        if kept is not None and (kept[0] is value or (type(kept[0]) is type(value)
                                                      and kept[0] == value)):
            return name, kept[0], kept[1]
        text = dumps(value)
        if kept is not None and kept[1] == text:
            return name, kept[0], text
        self._kept[key] = (value, text)
        return name, value, text


_MISSING = object()
_SERIALS = itertools.count()


@dataclass(frozen=True, slots=True)
class _Public:
    """A moment's public view: the spectator's observation, its JSON in match seats, each
    member's ``"key":value`` text, and the whole text."""

    obs: Observation
    seen: dict[str, Any]
    texts: dict[str, str]
    text: str
    keys: tuple[tuple[Any, ...], ...]
    """Each hand seat's :func:`~paohuzi.game.view.seat_key`."""
    listed: tuple[str, ...]
    """The text of each match seat's ``seats`` entry (``null``: sitting the hand out)."""
    layouts: dict[bool, tuple[str | tuple[dict[str, Any], str], ...]] = field(
        default_factory=dict)
    """:meth:`layout`'s answers, made when first asked for."""
    serial: int = field(default_factory=lambda: next(_SERIALS))
    """Tells this moment's public view from every other (a key for :attr:`diffs`)."""
    diffs: dict[int, dict[str, tuple[list[str], list[str]]]] = field(default_factory=dict)
    """:meth:`changes_from`'s answers, by the older public view's :attr:`serial`."""

    def changes_from(self, old: _Public) -> dict[str, tuple[list[str], list[str]]]:
        """What changed in each view member since ``old``, as the encoded ``set`` and
        ``unset`` pieces of a ``delta`` (:func:`_piece`), by member: worked out once per
        pair of moments, for every viewer to whom both members are the public ones."""
        found = self.diffs.get(old.serial)
        if found is None:
            found = {}
            was_seen = old.seen
            for key, value in self.seen.items():
                was = was_seen.get(key, _MISSING)
                if was is not value and was is not _MISSING:
                    found[key] = _member_pieces(was, value, DELTA_DEPTH - 1, "view." + key)
            if len(self.diffs) >= 4:  # the viewers' bases are mostly one moment
                self.diffs.clear()
            self.diffs[old.serial] = found
        return found

    def layout(self, claim: bool) -> tuple[str | tuple[dict[str, Any], str], ...]:
        """A seat's view, in order (:func:`_layout`; ``claim``: of a seat that must
        decide on a claim)."""
        found = self.layouts.get(claim)
        if found is None:
            found = self.layouts[claim] = _layout(self.seen, self.texts, claim)
        return found


_OWN = frozenset(("seat", "phase", "seats", "claim", "hand", "chou", "legal_actions",
                  "to_act"))
"""The members a seat may see differently from a spectator: its number, the phase (a
claim it must decide on), its own 偎 face up, and :func:`~paohuzi.game.view.seat_tail`."""


def _layout(seen: dict[str, Any], texts: dict[str, str], claim: bool
            ) -> tuple[str | tuple[dict[str, Any], str], ...]:
    """A seat's view's members in their order (the spectator's ``seen``, then
    :data:`~paohuzi.game.view.TAIL_KEYS`), as the names of those it may see differently
    (:data:`_OWN`, ``claim`` among them or not) and runs of public members, each run
    with its ``"key":value`` text.

    >>> _layout({"seat": None, "wall": 3, "turn": 1, "seats": []},
    ...         {"wall": '"wall":3', "turn": '"turn":1'}, claim=False)[:3]
    ('seat', ({'wall': 3, 'turn': 1}, '"wall":3,"turn":1'), 'seats')
    """
    tail = frozenset(TAIL_KEYS)
    own = _OWN if claim else _OWN - {"claim"}
    order = [k for k in seen if k not in tail] + [k for k in TAIL_KEYS
                                                  if k in seen or k in own]
    out: list[str | tuple[dict[str, Any], str]] = []
    run: dict[str, Any] = {}
    for key in order:
        if key in own:
            if run:
                out.append((run, ",".join([texts[k] for k in run])))
                run = {}
            out.append(key)
        else:
            run[key] = seen[key]
    if run:
        out.append((run, ",".join([texts[k] for k in run])))
    return tuple(out)


NO_EVENTS = EventLog(None, None, ())
"""The log of a table without a hand."""


@dataclass(frozen=True, slots=True)
class Body:
    """One viewer's state at one moment: every member but the events (``head``), their
    JSON text, the hand's events as this viewer sees them (the first ``count`` of
    ``log``), and the digest of it all."""

    hash: str
    head: dict[str, Any] = field(default_factory=dict)
    head_json: str = ""
    log: EventLog = NO_EVENTS
    count: int = 0
    public: _Public | None = field(default=None, compare=False, repr=False)
    """The public view the ``view`` member was built on (its members that are the public
    ones are diffed once for every viewer: :meth:`_Public.changes_from`)."""
    deltas: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)
    """Kept :meth:`delta_text` changes, by the base body's digest (usually one: the
    viewer's last body; the digest stands for its content, and holds no body alive)."""

    def start(self, events_from: int) -> int:
        """Where events from ``events_from`` start (0 if that index is out of range)."""
        return events_from if 0 <= events_from <= self.count else 0

    def to_dict(self, events_from: int = 0) -> dict[str, Any]:
        """The body as a message body, with the events from ``events_from``."""
        start = self.start(events_from)
        return {**self.head, "events_from": start,
                "events": self.log.dicts[start:self.count], "hash": self.hash}

    def message_text(self, n: int, events_from: int, deadline: float | None,
                     next_deadline: float | None = None,
                     turn_deadline: float | None = None) -> str:
        """A ``state`` message's JSON text: state number ``n``, events from
        ``events_from``, the viewer's ``deadline``, the room's ``next_deadline`` and the
        public ``turn_deadline`` (the discarding seat's clock)."""
        start = self.start(events_from)
        events = ",".join(self.log.texts[start:self.count])
        head = f"{self.head_json}," if self.head_json else ""
        return (f'{{"type":"state","n":{n},{head}"events_from":{start},'
                f'"events":[{events}],"hash":"{self.hash}",'
                f'{_clocks(deadline, next_deadline, turn_deadline)}}}')

    def delta_text(self, base: Body, n: int, events_from: int, deadline: float | None,
                   next_deadline: float | None = None,
                   turn_deadline: float | None = None) -> str | None:
        """A ``delta`` message's JSON text: what changed since ``base`` (the body of the
        connection's state ``n - 1``), or ``None`` where the full state is about as
        short (:data:`DELTA_MAX_SHARE`).

        >>> hand = "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾" * 3
        >>> a = Body("h1", {"you": 0, "view": {"wall": 40, "hand": hand}})
        >>> b = Body("h2", {"you": 0, "view": {"wall": 39, "hand": hand}},
        ...          members_json([("you", "0"), ("view", dumps({"wall": 39, "hand": hand}))]))
        >>> b.delta_text(a, 5, 0, None)
        '{"type":"delta","n":5,"base":4,"set":{"view.wall":39},"unset":[],"events_from":0,"events":[],"hash":"h2","deadline":null,"next_deadline":null,"turn_deadline":null}'
        """
        if base.hash in self.deltas:
            text = self.deltas[base.hash]
        else:
            sets, unsets = self._change_pieces(base)
            text = f'"set":{{{",".join(sets)}}},"unset":[{",".join(unsets)}]'
            if len(text) >= DELTA_MAX_SHARE * len(self.head_json):
                text = None
            if len(self.deltas) >= 4:  # a viewer's connections mostly share their base
                self.deltas.clear()
            self.deltas[base.hash] = text
        if text is None:
            return None
        start = self.start(events_from)
        events = ",".join(self.log.texts[start:self.count])
        return (f'{{"type":"delta","n":{n},"base":{n - 1},{text},"events_from":{start},'
                f'"events":[{events}],"hash":"{self.hash}",'
                f'{_clocks(deadline, next_deadline, turn_deadline)}}}')

    def _change_pieces(self, base: Body) -> tuple[list[str], list[str]]:
        """:func:`changes` from ``base`` to this body, encoded: the ``set`` members
        (``"path":value``) and the ``unset`` paths, in :func:`changes`' order. The
        ``view`` members both bodies have from their public views take the changes
        worked out once per pair of moments (:meth:`_Public.changes_from`).

        >>> from paohuzi.core.rules import Ruleset
        >>> hand, views = Hand.from_seed(3, Ruleset()), SeatViews()
        >>> def body(moment, seat):
        ...     view, _, public = views.view_part(hand, seat, (0, 1, 2), 3, moment)
        ...     return Body(str(moment), {"you": seat, "view": view}, public=public)
        >>> old = [body(0, s) for s in (None, 0, 1, 2)]
        >>> _ = hand.act(hand.pending_seats()[0], hand.legal_actions(hand.pending_seats()[0])[0])
        >>> new = [body(1, s) for s in (None, 0, 1, 2)]
        >>> all(b._change_pieces(a) == _pieces(*changes(a.head, b.head))
        ...     for a, b in zip(old, new))
        True
        """
        public, old_public = self.public, base.public
        if public is None or old_public is None:
            return _pieces(*changes(base.head, self.head))

        def public_change(key: str, was: Any, value: Any) -> tuple[list[str], list[str]] | None:
            """A view member that is the public one in both views: the public change."""
            if value is public.seen.get(key, _MISSING) and \
                    was is old_public.seen.get(key, _MISSING):
                return public.changes_from(old_public)[key]
            return None

        def view_change(key: str, was: Any, value: Any) -> tuple[list[str], list[str]] | None:
            """The ``view`` member, walked with :func:`public_change`."""
            if key != "view" or type(was) is not dict or type(value) is not dict:
                return None
            pieces: tuple[list[str], list[str]] = ([], [])
            _dict_pieces(was, value, DELTA_DEPTH - 1, "view.", pieces, public_change)
            return pieces

        pieces: tuple[list[str], list[str]] = ([], [])
        _dict_pieces(base.head, self.head, DELTA_DEPTH, "", pieces, view_change)
        return pieces


def _dict_pieces(was: dict[str, Any], new: dict[str, Any], depth: int, prefix: str,
                 pieces: tuple[list[str], list[str]],
                 known: Callable[[str, Any, Any], tuple[list[str], list[str]] | None]
                 ) -> None:
    """:func:`_diff` of two objects, encoded into ``pieces`` (``set`` members, ``unset``
    paths); ``known(key, old, new)`` gives a member's changes worked out elsewhere, or
    ``None`` for :func:`_member_pieces` to work them out."""
    sets, unsets = pieces
    get = was.get
    for key, value in new.items():
        old = get(key, _MISSING)
        if old is value:
            continue
        if old is _MISSING:
            sets.append(_piece(prefix + key, value))
            continue
        found = known(key, old, value) or _member_pieces(old, value, depth, prefix + key)
        sets += found[0]
        unsets += found[1]
    if not was.keys() <= new.keys():
        unsets += [_encode_string(prefix + key) for key in was if key not in new]


def _member_pieces(was: Any, value: Any, depth: int, path: str
                   ) -> tuple[list[str], list[str]]:
    """:func:`_member`'s changes of one member, encoded (:func:`_pieces`)."""
    set_: dict[str, Any] = {}
    unset: list[str] = []
    _member(was, value, depth, path, set_, unset)
    return _pieces(set_, unset)


def _pieces(set_: dict[str, Any], unset: list[str]) -> tuple[list[str], list[str]]:
    """:func:`changes`' answer encoded: ``"path":value`` members and ``"path"`` texts."""
    return [_piece(path, value) for path, value in set_.items()], \
        [_encode_string(path) for path in unset]


def _piece(path: str, value: Any) -> str:
    """One ``set`` member of a ``delta``: ``"path":value``."""
    return f"{_encode_string(path)}:{dumps(value)}"


def _clocks(deadline: float | None, next_deadline: float | None,
            turn_deadline: float | None) -> str:
    """A message's timers, as JSON members (read at send time, never part of a body).

    >>> _clocks(1.5, None, 1.5)
    '"deadline":1.5,"next_deadline":null,"turn_deadline":1.5'
    """
    return (f'"deadline":{_number(deadline)},"next_deadline":{_number(next_deadline)},'
            f'"turn_deadline":{_number(turn_deadline)}')


def _number(value: float | None) -> str:
    """A timer as JSON (most are ``null``: no encoder call for those)."""
    return "null" if value is None else dumps(value)
