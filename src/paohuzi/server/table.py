"""A table (room) of the server: seats, the match, the action log, 托管, the shuffle commitment.

The table's state changes only by applying *log entries*. Live, an entry is
validated, appended to the storage's log (committed), then applied; after a
restart the same entries are applied again in order, which rebuilds exactly
the same state (nothing random or time-dependent is decided while applying).

Entry kinds: ``sit`` (a player takes a human seat), ``commit`` (the server's secret
for the next hand, whose commitment is published at once), ``entropy`` (a seat's random
value for the next hand), ``start`` (a hand is dealt from the secret and the values: see
:mod:`paohuzi.server.fairness`), ``act`` (a decision, a player's or the
computer's), ``timeout`` (a seat's timer ran out), ``tuoguan`` (the computer
takes over a seat or gives it back), ``escape`` (a player left mid-hand, §7.4),
``leave`` (a seated player left between hands; like an escape it ends the match, §3.1:
the next hand starts a new match whose first dealer comes from that hand's shuffle),
``settled`` (the finished hand's side effects — game record, player totals —
are done, in the same transaction as this entry), and in a quick-match room (issue 16)
``hall`` (the room's 场次, preset and filling computer), ``join`` (a person takes a
computer seat) and ``free`` (an idle person's seat goes back to a computer), the last
two between hands only. No hand is dealt while the last one is unsettled.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from paohuzi.core.errors import NotAChoice, OptionConflict, OutOfBounds, PaohuziError
from paohuzi.core.options import label_of
from paohuzi.core.rules import PRESETS, Ruleset
from paohuzi.core.settlement import beans_of
from paohuzi.core.solver import waits
from paohuzi.game.actions import Action, Discard, Pass
from paohuzi.game.engine import Hand
from paohuzi.game.match import HandSummary, Match
from paohuzi.game.record import record_of
from paohuzi.players import PLAYER_NAMES
from paohuzi.server.economy import DEFAULT_CHANGCI, Changci, changci
from paohuzi.server.fairness import (
    EntropyError,
    LegacyShuffle,
    Shuffle,
    commitment,
    new_secret,
    parse_value,
)
from paohuzi.server.names import computer_name
from paohuzi.server.refusals import refusal
from paohuzi.server.views import (
    NO_EVENTS,
    Body,
    EventLog,
    KeptMembers,
    SeatViews,
    SharedEvents,
    digest_of,
    members_json,
)

__all__ = ["HANDS", "STAKES", "TIMINGS", "RoomConfig", "Table", "TableError", "commitment"]

_HAND_UNTOUCHED = frozenset(("sit", "commit", "entropy", "timeout", "tuoguan", "hall",
                             "settled", "leaving", "seen"))
"""Log entries that change no hand (its views are kept across them: Table.bodies)."""

HANDS: tuple[int, ...] = (0, 4, 8, 16)
"""The 局数 a room may be set to: a match of that many hands ending with a 大结算, or 0:
play on (a match ends only when a player leaves, §3.1)."""


class TableError(PaohuziError):
    """A request the table refuses (wrong seat, not your turn, a bad option...)."""


TIMINGS: dict[str, tuple[float, float, float]] = {
    "timer": (20.0, 0.5, 600.0), "grace": (15.0, 0.0, 300.0), "bot_delay": (0.6, 0.0, 10.0),
    "next_delay": (8.0, 0.0, 600.0), "claim_window": (1.0, 0.01, 10.0)}
"""A room's times in seconds: (default, lowest, highest)."""


@dataclass(frozen=True)
class RoomConfig:
    """A room's options: the rules, the seats, the timer."""

    rules: dict[str, Any]
    seats: tuple[str, ...]  # per match seat: "human" or a computer player name/level
    timer: float = 20.0  # seconds per decision
    grace: float = 15.0  # seconds a disconnected player's timer waits, once per hand
    bot_delay: float = 0.6  # seconds before a computer discards (so people can follow)
    next_delay: float = 8.0  # seconds after a hand before the next starts anyway
    claim_window: float = 1.0  # seconds every claim point stays open, options or not
    hands: int = 0  # 局数: hands of a match (HANDS; 0: play on)
    changci: str = DEFAULT_CHANGCI  # the 场次 (economy.CHANGCI): multiplier, entry minimum

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoomConfig:
        if not isinstance(data, dict):
            raise TableError("room options must be an object")
        known = {"rules", "preset", "base", "multiplier", "escape_bonus", "timer", "seats",
                 "grace", "bot_delay", "next_delay", "xingjia", "claim_window", "hands",
                 "changci"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise TableError(f"unknown room option(s): {', '.join(unknown)}")
        rules_in = data.get("rules", data.get("preset", "qq"))
        overrides = {k: data[k] for k in ("base", "multiplier", "escape_bonus", "xingjia")
                     if k in data}
        try:
            tier = changci(data.get("changci", DEFAULT_CHANGCI))
        except PaohuziError as exc:
            raise TableError(str(exc)) from None
        if "multiplier" not in overrides and not (
                isinstance(rules_in, dict) and "multiplier" in rules_in):
            overrides["multiplier"] = tier.multiplier  # §7.5: the 场次's 倍数
        try:
            rules = Ruleset.from_json(rules_in)
            if overrides:
                rules = rules.replace(**overrides)
        except OutOfBounds as exc:  # a number the room form lets a player type
            # (a stake's bounds are the room's, narrower than the core's: a stake of the
            # wrong type is refused with them — a review was told 1..10000, then 1..100)
            least, most = STAKES.get(exc.field, (exc.low, exc.high))
            raise refusal(TableError, "option_range", key=exc.field,
                          key_zh=label_of(exc.field)["zh"], low=least, high=most,
                          value=repr(exc.value)) from None
        except NotAChoice as exc:
            raise refusal(TableError, "option_choice", key=exc.field,
                          key_zh=label_of(exc.field)["zh"], choices=", ".join(exc.choices),
                          choices_zh="、".join(label_of(f"{exc.field}.{c}")["zh"]
                                              for c in exc.choices),
                          value=repr(exc.value)) from None
        except OptionConflict as exc:
            raise refusal(TableError, "option_needs", key=exc.field,
                          key_zh=label_of(exc.field)["zh"], **_needs_words(exc.needs)) from None
        except PaohuziError as exc:  # (only a hand-made request: unknown names, types)
            raise refusal(TableError, "rules_invalid", detail=str(exc)) from None
        hands = data.get("hands", 0)
        if hands not in HANDS or isinstance(hands, bool):
            raise TableError(f"hands (局数): expected one of {', '.join(map(str, HANDS))} "
                             f"(0: play on), got {hands!r}")
        _check_stakes(rules)
        seats = data.get("seats", ["human"] + ["normal"] * (rules.seats - 1))
        if not isinstance(seats, list) or len(seats) != rules.seats:
            raise TableError(f"seats: expected a list of {rules.seats} entries")
        for s in seats:
            if s != "human" and s not in PLAYER_NAMES:
                raise TableError(f"seats: {s!r} is neither 'human' nor a computer player "
                                 f"({', '.join(PLAYER_NAMES)})")
        numbers = {}
        for key, (default, low, high) in TIMINGS.items():
            value = data.get(key, default)
            if not isinstance(value, int | float) or isinstance(value, bool) \
                    or not low <= value <= high:
                from paohuzi.server.hall import ROOM_LABELS  # (hall imports this module)

                raise refusal(TableError, "timing_range", key=key, low=low, high=high,
                              key_zh=ROOM_LABELS[key]["zh"])
            numbers[key] = float(value)
        return cls(rules.to_dict(), tuple(seats), **numbers, hands=int(hands),
                   changci=tier.key)

    def to_json(self) -> dict[str, Any]:
        return {"rules": self.rules, "seats": list(self.seats), "timer": self.timer,
                "grace": self.grace, "bot_delay": self.bot_delay, "next_delay": self.next_delay,
                "claim_window": self.claim_window, "hands": self.hands,
                "changci": self.changci}

    @cached_property
    def ruleset(self) -> Ruleset:
        """The room's rules (parsed once: the config is frozen, and so is a Ruleset)."""
        return Ruleset.from_dict(self.rules)

    @property
    def tier(self) -> Changci:
        """The room's 场次."""
        return changci(self.changci)

    @property
    def standard_stakes(self) -> bool:
        """Whether the room plays its preset exactly — stakes (base, multiplier, escape
        bonus) and every scoring option (自摸 底 and 胡息, the 胡息 to win...); only the
        醒家 seat may be added, and the multiplier is the room's 场次's. Only such rooms
        count toward lifetime points, beans, levels and ratings: no option a player
        chooses can buy a level."""
        rules = self.ruleset
        standard = Ruleset.preset(rules.name) if rules.name in PRESETS else Ruleset()
        if standard.xingjia and rules.players != standard.players:
            # a preset whose default form has a seat sitting out (luzhou's 坐底) has
            # other seat forms too (§9.1): compare with the form of this room
            standard = Ruleset.preset(rules.name, players=rules.players)
        standard = standard.replace(multiplier=self.tier.multiplier)
        return rules.replace(name=standard.name, xingjia=standard.xingjia) == standard


STAKES: dict[str, tuple[int, int]] = {"base": (1, 100), "multiplier": (1, 1000),
                                      "escape_bonus": (0, 100)}
"""The stakes a room may set, with their bounds (docs/protocol.md)."""
MAX_RULES_NAME = 32


def _needs_words(needs: dict[str, object]) -> dict[str, str]:
    """What an option needs (:class:`~paohuzi.core.errors.OptionConflict`), said in each
    language: ``players=3`` and “人数”为 3.

    >>> _needs_words({"settlement": "luzhou"})["needs_zh"]
    '“计分方式”为“等 × 番 (泸州)”'
    """
    def said_zh(key: str, value: object) -> str:
        named = label_of(f"{key}.{value}")["zh"] if isinstance(value, str) else str(value)
        return f"“{label_of(key)['zh']}”为" + (f"“{named}”" if isinstance(value, str)
                                               else f" {named} ")
    return {"needs": ", ".join(f"{k}={v}" for k, v in needs.items()),
            "needs_zh": "、".join(said_zh(k, v) for k, v in needs.items())}


def _check_stakes(rules: Ruleset) -> None:
    """Refuse stakes out of bounds (and an overlong rules name).

    >>> _check_stakes(Ruleset(base=1000))
    Traceback (most recent call last):
    ...
    paohuzi.server.table.TableError: rules: base must be an integer 1..100, got 1000
    """
    for key, (low, high) in STAKES.items():
        value = getattr(rules, key)
        if not low <= value <= high:
            raise refusal(TableError, "option_range", key=key, key_zh=label_of(key)["zh"],
                          low=low, high=high, value=value)
    if not 1 <= len(rules.name) <= MAX_RULES_NAME:
        raise TableError(f"rules: name must be 1..{MAX_RULES_NAME} characters")
    # shown to every seat and spectator, as a nickname is: held to the same characters
    from paohuzi.server.inputs import check_visible  # (inputs imports this module)

    check_visible(rules.name, "rules: name", spaces=" ")
    if not rules.name.strip():  # white space only (no-break, ideographic): shows nothing
        raise TableError("rules: name must hold a visible character")


@dataclass
class SeatInfo:
    kind: str  # "human" or a computer name
    player: int | None = None
    nickname: str = ""
    timeouts: int = 0
    tuoguan: bool = False
    last_seq: int = 0
    level: dict[str, Any] | None = None  # the player's §8 level, set by the runtime


@dataclass
class Table:
    """One room's live state, rebuilt from its log after a restart."""

    code: str
    config: RoomConfig
    seats: list[SeatInfo] = field(default_factory=list)
    match: Match | None = None
    hand: Hand | None = None
    hand_no: int = 0
    shuffle: Shuffle | LegacyShuffle | None = None  # the current (or last) hand's
    settled: int = 0  # hands whose side effects are done
    next_secret: tuple[int, str, str] | None = None  # (hand number, secret, salt) committed
    entropy: dict[int, str] = field(default_factory=dict)  # match seat -> value, next hand
    finished_shuffle: Shuffle | LegacyShuffle | None = None  # the last finished hand's
    version: int = 0  # bumps on every applied entry
    last_summary: HandSummary | None = None
    last_hand: Hand | None = None
    hands_before: int = 0  # hands of the table's earlier matches (§3.1: a leaver ends one)
    match_no: int = 1  # the table's matches, this one included
    match_end: str | None = None  # why the match is over: "hands" (局数), "left", "seat"
    match_beans: list[int | None] = field(default_factory=list)  # beans moved, per seat
    last_beans: list[int | None] = field(default_factory=list)  # ... in the last hand
    hall: dict[str, str] | None = None  # a quick-match room: changci, preset, computer
    leaving: dict[int, int] = field(default_factory=dict)
    """Leaves waiting for the end of a hand to be shown (``leaving`` entries, logged so a
    restart keeps them): seat -> the leave's seq (:meth:`Runtime.leave_later
    <paohuzi.server.runtime.Runtime.leave_later>`)."""
    names_at_end: list[tuple[str, str, int | None]] | None = None
    """Each seat's kind, shown name and player when its match ended, kept once a seat
    changes hands after it (the 大结算 still shown names who played, not who sits now)."""
    left: dict[int, tuple[int | None, bool]] = field(default_factory=dict)
    """Seats whose player left the table (``leave``/``escape`` entries marked ``frees``):
    seat -> (that player, whether by an escape). The seat stays his while the hand he
    left is shown and settled; the runtime frees it then (after an escape: when the
    next hand would be dealt, his settlement shown to him first; :meth:`Runtime.
    free_left_seats <paohuzi.server.runtime.Runtime.free_left_seats>`), so he is never
    dealt in again."""
    on_claim_point: Callable[[Hand], None] | None = field(default=None, compare=False,
                                                          repr=False)
    """Called with the hand at each of its claim points (see Hand.on_claim_point) while
    entries are applied live; the server sets it, a replay after a restart does not."""

    def __post_init__(self) -> None:
        if not self.seats:
            self.seats = [SeatInfo(kind) for kind in self.config.seats]
        self.match_beans = [None] * len(self.seats)
        self.last_beans = [None] * len(self.seats)
        if self.match is None:
            # a placeholder: the first hand's shuffle draws the real first dealer (§3.1)
            self.match = Match(self.config.ruleset, seed=0, first_dealer=0)

    # ---- what the hand's seats are -------------------------------------------------

    def hand_seat(self, match_seat: int) -> int | None:
        """The seat in the current hand of a match seat (None for the 醒家 sitting out)."""
        assert self.match is not None
        players = self.match.playing_seats() if self.hand is None or self.hand.ended \
            else self._playing
        return players.index(match_seat) if match_seat in players else None

    def match_seat(self, hand_seat: int) -> int:
        return self._playing[hand_seat]

    @property
    def _playing(self) -> tuple[int, ...]:
        assert self.match is not None
        return self.match.hand_players or self.match.playing_seats()

    def free_seats(self) -> list[int]:
        """The persons' seats nobody holds (a private room's wait for someone to sit)."""
        return [i for i, s in enumerate(self.seats) if s.kind == "human" and s.player is None]

    def ready_to_deal(self) -> bool:
        return (self.hand is None or self.hand.ended) and not self.needs_settlement() and \
            not self.free_seats()

    def leavers_seated(self, escapes: bool = True) -> list[int]:
        """The seats still held by a player who left the table (:attr:`left`; those left
        by an escape only with ``escapes``)."""
        return [seat for seat, (player, escaped) in sorted(self.left.items())
                if (escapes or not escaped) and self.seats[seat].kind == "human"
                and self.seats[seat].player == player]

    def needs_settlement(self) -> bool:
        """A finished hand whose record and player totals are not yet written."""
        assert self.match is not None
        return self.settled < self.finished_hands

    @property
    def finished_hands(self) -> int:
        assert self.match is not None
        return self.hands_before + len(self.match.history)

    def seat_of_player(self, player_id: int) -> int | None:
        for i, s in enumerate(self.seats):
            if s.kind == "human" and s.player == player_id:
                return i
        return None

    @property
    def paused(self) -> bool:
        """Every person at the table is in 托管: the computers do not play on alone (the
        table waits for one to take over, or to vote for the next hand)."""
        leaving = {*self.leaving, *self.leavers_seated()}  # not waited for: they left
        humans = [s for seat, s in enumerate(self.seats)
                  if s.kind == "human" and seat not in leaving]
        return bool(humans) and all(s.tuoguan for s in humans)

    def controlled_by_computer(self, match_seat: int) -> bool:
        s = self.seats[match_seat]
        return s.kind != "human" or s.tuoguan

    def shown_name(self, match_seat: int) -> str:
        """The seat's name as everyone sees it: its nickname, or the computer's name with
        its level (:func:`~paohuzi.server.names.computer_name`). Never an account id."""
        s = self.seats[match_seat]
        return s.nickname if s.kind == "human" else computer_name(match_seat, s.kind)

    def computer_name(self, match_seat: int) -> str:
        kind = self.seats[match_seat].kind
        return kind if kind != "human" else "heuristic"

    # ---- validation (nothing changes) ----------------------------------------------

    def verify_act(self, match_seat: int, action: Action) -> None:
        """Raise :class:`TableError` unless ``match_seat`` may take ``action`` now (nothing
        changes). The words never name a seat: the engine numbers the hand's seats, the
        protocol the room's, and what a seat is refused must not tell what others decide.
        """
        if self.hand is None or self.hand.ended:
            raise refusal(TableError, "no_hand")
        hand_seat = self.hand_seat(match_seat)
        if hand_seat is None:
            raise refusal(TableError, "sitting_out")
        legal = self.hand.legal_actions(hand_seat)
        if not legal:
            # said the same way whatever the others are deciding (nothing hidden in it)
            raise refusal(TableError, "not_your_decision")
        if not self.hand.can(hand_seat, action):
            raise _refusal(self.hand, hand_seat, action, legal)

    def can_act(self, match_seat: int, action: Action) -> bool:
        """Whether :meth:`verify_act` lets ``match_seat`` take ``action`` now."""
        try:
            self.verify_act(match_seat, action)
        except TableError:
            return False
        return True

    def verify_entropy(self, match_seat: int, hand_no: object, value: object) -> dict[str, Any]:
        """The log entry for a seat's random value for the next hand (nothing changes)."""
        if self.next_secret is None or hand_no != self.next_secret[0]:
            raise EntropyError(f"no shuffle is open for hand {hand_no!r}")
        if match_seat in self.entropy:
            raise EntropyError(f"your value for hand {hand_no} is already in")
        return {"k": "entropy", "hand": hand_no, "seat": match_seat,
                "value": parse_value(value)}

    def verify_sit(self, match_seat: int, player_id: int) -> None:
        if not 0 <= match_seat < len(self.seats):
            raise TableError(f"there is no seat {match_seat}")
        seat = self.seats[match_seat]
        if seat.kind != "human":
            raise TableError(f"seat {match_seat} is a computer seat")
        if seat.player is not None and seat.player != player_id:
            raise refusal(TableError, "seat_taken", seat=match_seat)
        other = self.seat_of_player(player_id)
        if other is not None and other != match_seat:
            raise refusal(TableError, "already_seated", seat=other)

    # ---- applying log entries (deterministic) --------------------------------------

    def apply(self, entry: dict[str, Any]) -> None:
        self.shown_at_claim_point = False
        try:
            self._apply(entry)
        finally:
            if entry.get("k") not in _HAND_UNTOUCHED:
                self._note_change(entry)

    def _apply(self, entry: dict[str, Any]) -> None:
        kind = entry["k"]
        assert self.match is not None
        if kind == "seen":  # who held a seat, from where: the runtime's (seen.py)
            return
        if kind == "sit":
            s = self.seats[entry["seat"]]
            s.player, s.nickname = entry["player"], entry.get("nickname", "")
        elif kind == "commit":
            self.next_secret = (int(entry["hand"]), str(entry["secret"]), str(entry["salt"]))
            self.entropy = {}
        elif kind == "entropy":
            self.entropy[int(entry["seat"])] = str(entry["value"])
        elif kind == "start":
            self._start(entry)
        elif kind == "act":
            assert self.hand is not None
            seat = self.seats[entry["seat"]]
            action = Action.from_text(entry["action"])
            if entry.get("player") is not None:
                if not isinstance(action, Pass):
                    # (a pass is secret: that it reset the missed discards, and so put
                    # off 托管, told the others he had had an option — a review)
                    seat.timeouts = 0
                if isinstance(action, Discard):
                    # 托管 ends on the player's own discard (public anyway) or takeover;
                    # never on a claim answer, which would tell who had an option
                    seat.tuoguan = False
            hand_seat = self.hand_seat(entry["seat"])
            assert hand_seat is not None
            self.hand.act(hand_seat, action)
            if self.hand.ended:
                self._finish()
        elif kind == "timeout":
            self.seats[entry["seat"]].timeouts += 1
        elif kind == "tuoguan":
            self.seats[entry["seat"]].tuoguan = bool(entry["on"])
            if not entry["on"]:
                self.seats[entry["seat"]].timeouts = 0
        elif kind == "escape":
            self.match.escape(entry["seat"])
            if not entry.get("ends_match"):  # logged before §3.1's rule: the match went on
                self.match.over = False
            self.last_hand = self.hand
            self.last_summary = self.match.history[-1]
            self.finished_shuffle = self.shuffle
            self.match_end = "left" if self.match.over else self.match_end
            self._note_leaver(entry)
        elif kind == "leaving":
            self.leaving[int(entry["seat"])] = int(entry.get("seq", 0))
        elif kind == "leave":
            self.leaving.pop(int(entry["seat"]), None)
            if self.match.history and not self.match.over:  # §3.1: it ends the match
                self.match.leave(entry["seat"])
                self.match_end = "left"
            self._note_leaver(entry)
        elif kind in ("join", "free"):  # a hall room's seat changes hands (N41)
            self._change_seat(int(entry["seat"]), "human" if kind == "join" else
                              str(entry["kind"]), entry.get("player"),
                              str(entry.get("nickname", "")))
        elif kind == "hall":
            self.hall = {k: str(entry[k]) for k in ("changci", "preset", "computer")}
        elif kind == "settled":
            self.settled = int(entry["hand"])
            self._book_beans(entry.get("beans"))
        else:
            raise TableError(f"unknown log entry {kind!r}")
        seat_no = entry.get("seat")
        if entry.get("seq") and isinstance(seat_no, int) and 0 <= seat_no < len(self.seats):
            self.seats[seat_no].last_seq = max(self.seats[seat_no].last_seq, int(entry["seq"]))
        self.version += 1

    def _note_leaver(self, entry: dict[str, Any]) -> None:
        """A leave or escape marked ``frees`` (logged since leavers are unseated): the seat
        is to be freed once the hand is settled (:attr:`left`)."""
        seat = int(entry["seat"])
        if entry.get("frees") and self.seats[seat].player is not None:
            self.left[seat] = (self.seats[seat].player, entry["k"] == "escape")

    def _change_seat(self, seat: int, kind: str, player: int | None, nickname: str) -> None:
        """A person takes a computer seat, or a computer an idle person's, between hands
        (rules-notes N41), or a seat is freed after its player left the table (N18): a
        match under way ends as when a player leaves."""
        assert self.match is not None
        self.left.pop(seat, None)
        self.leaving.pop(seat, None)
        self.entropy.pop(seat, None)  # the next shuffle's value is the new occupant's
        if self.match.over and self.match.history and self.names_at_end is None:
            self.names_at_end = [(s.kind, self.shown_name(i), s.player)
                                 for i, s in enumerate(self.seats)]
        s = self.seats[seat]
        s.kind, s.player, s.nickname = kind, player, nickname
        s.tuoguan, s.timeouts, s.last_seq, s.level = False, 0, 0, None
        if self.match.history and not self.match.over:
            self.match.over = True
            self.match_end = "seat"

    def verify_seat_change(self) -> None:
        """Raise :class:`TableError` unless a seat may change hands now (between hands,
        the last one settled)."""
        if (self.hand is not None and not self.hand.ended) or self.needs_settlement():
            raise TableError("a seat changes hands only between hands")

    def _start(self, entry: dict[str, Any]) -> None:
        assert self.match is not None
        if self.match.over:  # §3.1: a player left (or 局数): this hand starts a new match
            self.hands_before += len(self.match.history)
            self.match = self.match.next_match(first_dealer=0)  # the shuffle draws it below
            self.match_no += 1
            self.match_end = None
            self.names_at_end = None
            self.match_beans = [None] * len(self.seats)
        first = not self.match.history and self.match.hand is None
        shuffle: Shuffle | LegacyShuffle
        if "seed" in entry:  # an older log: the server alone drew the seed
            shuffle = LegacyShuffle(int(entry["seed"]), str(entry["salt"]))
            if first:  # ... and the first dealer came from the room code
                digest = hashlib.sha256(self.code.encode()).hexdigest()
                self.match.dealer = int(digest, 16) % len(self.seats)
        else:
            if self.next_secret is None or self.next_secret[0] != self.hand_no + 1:
                raise TableError("no committed shuffle for this hand")
            _, secret, salt = self.next_secret
            shuffle = Shuffle(secret, salt, tuple(str(v) for v in entry["values"]))
            if first:  # §3.1: the first dealer is drawn from the hand's committed randomness
                self.match.dealer = shuffle.dealer_of(len(self.seats))
        self.shuffle = shuffle
        self.next_secret, self.entropy = None, {}
        self.hand_no += 1  # first: the deal's own claim point shows the new number
        for s in self.seats:
            s.timeouts = 0
        self.hand = self.match.start_hand(seed=shuffle.seed, on_claim_point=self._claim_point)
        if self.hand.ended:  # a mandatory 天胡 (§3.3) ends the hand at the deal
            self._finish()

    def _claim_point(self, hand: Hand) -> None:
        self._moment += 1  # the hand has changed since the last one (bodies())
        self._at_claim = (hand, hand.claim, len(hand.events), self._moment)
        if self.on_claim_point is not None:
            self.on_claim_point(hand)

    def _note_change(self, entry: dict[str, Any]) -> None:
        """Count a change of the hand for bodies(): ``_moment`` when the table may look
        different to anyone; only the answering seat's own count for an answer to a
        claim that stays open (answers are secret: nobody else sees a thing); nothing
        for a discard that stopped at its claim point (the views of that moment hold,
        and :attr:`shown_at_claim_point` says so)."""
        hand, at = self.hand, self._at_claim
        if entry["k"] == "act" and hand is not None and at is not None and \
                hand is at[0] and not hand.ended and hand.claim is not None and \
                hand.claim is at[1] and len(hand.events) == at[2] and self._moment == at[3]:
            answered = hand.claim.answers
            if not answered:
                self.shown_at_claim_point = True
                return
            seat = self.hand_seat(entry["seat"])
            if seat is not None and seat in answered:
                self._seat_moments[seat] = self._seat_moments.get(seat, 0) + 1
                return
        self._moment += 1

    def _finish(self) -> None:
        assert self.match is not None
        self.last_hand = self.hand
        self.last_summary = self.match.finish_hand()
        self.finished_shuffle = self.shuffle
        if self.config.hands and len(self.match.history) >= self.config.hands:
            self.match.over = True  # 局数 reached: the match ends with its 大结算
            self.match_end = "hands"

    def _book_beans(self, moved: dict[str, int] | None) -> None:
        """The beans actually moved by the hand just settled (player id → beans, written
        by the settlement; rules-notes N25), per match seat."""
        self.last_beans = [None] * len(self.seats)
        summary = self.last_summary
        if not moved or summary is None:
            return
        seated = [*summary.players, *([summary.xingjia] if summary.xingjia is not None else [])]
        for seat in seated:
            player = self.seats[seat].player
            if self.seats[seat].kind == "human" and str(player) in moved:
                beans = int(moved[str(player)])
                self.last_beans[seat] = beans
                self.match_beans[seat] = (self.match_beans[seat] or 0) + beans

    def match_summary(self) -> dict[str, Any] | None:
        """The 大结算 of the match once it is over (局数 reached, or a player left): each
        seat's total points, beans actually moved (None: a computer), wins and best hand.
        Public: every total in it was shown hand by hand."""
        assert self.match is not None
        if not self.match.over or not self.match.history:
            return None
        rows = []
        for seat, s in enumerate(self.seats):
            best: dict[str, Any] | None = None
            for h in self.match.history:
                if seat in h.players or seat == h.xingjia:
                    won = h.result.winner is not None and h.players[h.result.winner] == seat
                    if best is None or h.points[seat] > best["points"]:
                        best = {"hand": self.hands_before + h.number, "points": h.points[seat],
                                "huxi": h.result.arrangement.huxi
                                if won and h.result.arrangement is not None else None}
            kind, name, player = self.names_at_end[seat] if self.names_at_end is not None \
                else (s.kind, self.shown_name(seat), s.player)
            rows.append({"seat": seat, "kind": kind,  # never the account's id: public
                         "nickname": name,
                         # the seat changed hands since (a browser names this row, not
                         # its seat's new occupant, and never as "you")
                         "changed": (kind, player) != (s.kind, s.player),
                         "points": self.match.points[seat], "beans": self.match_beans[seat],
                         "wins": sum(1 for h in self.match.history if h.result.winner is not None
                                     and h.players[h.result.winner] == seat),
                         "best": best})
        return {"match": self.match_no, "reason": self.match_end or "left",
                "hands": len(self.match.history), "first_hand": self.hands_before + 1,
                "seats": rows}

    def new_commit_entry(self) -> dict[str, Any]:
        """The server's secret for the next hand (live only, then logged)."""
        secret, salt = new_secret()
        return {"k": "commit", "hand": self.hand_no + 1, "secret": secret, "salt": salt}

    def new_start_entry(self) -> dict[str, Any]:
        """Deal the committed hand with the values in (``""`` for a seat that sent none)."""
        return {"k": "start", "hand": self.hand_no + 1,
                "values": [self.entropy.get(s, "") for s in range(len(self.seats))]}

    # ---- what leaves the table -----------------------------------------------------

    def state_hash(self) -> str:
        """A digest of the whole table state (equal after a restart that lost nothing).

        It covers hidden cards, so it never goes to a player: tests read it through the
        debug endpoint the server offers only when ``PAOHUZI_DEBUG_STATE_HASH=1``."""
        if self._hash_version == self.version:
            return self._hash
        self._hash = self._compute_hash()
        self._hash_version = self.version
        return self._hash

    _hash_version: int = -1
    _hash: str = ""
    _waits_cache: dict[int, tuple[tuple[int, int, int], list[dict[str, Any]]]] = field(
        default_factory=dict)
    _seat_parts: dict[int | None, tuple[Any, tuple[Any, str, Any, str, Any]]] = field(
        default_factory=dict, compare=False, repr=False)
    _shared: SharedEvents | None = field(default=None, compare=False, repr=False)
    _event_logs: dict[int | None, EventLog] = field(default_factory=dict, compare=False,
                                                    repr=False)
    _seat_views: SeatViews = field(default_factory=SeatViews, compare=False, repr=False)
    _bodies: dict[int | None, tuple[Any, Body]] = field(default_factory=dict, compare=False,
                                                       repr=False)
    _kept: KeptMembers = field(default_factory=KeptMembers, compare=False, repr=False)
    _moment: int = field(default=0, compare=False, repr=False)
    """Counts the changes of the table's hands: every applied entry and claim point (the
    hands change only there), so a hand's views are kept while it stays the same."""
    _at_claim: tuple[Any, ...] | None = field(default=None, compare=False, repr=False)
    """The hand, its claim, its event count and the moment at its last claim point."""
    _seat_moments: dict[int, int] = field(default_factory=dict, compare=False, repr=False)
    """Per hand seat, the changes only that seat sees (its secret answers on a claim)."""
    shown_at_claim_point: bool = field(default=False, compare=False, repr=False)
    """The last applied entry left the table exactly as at the claim point it reached
    (a discard or draw that stopped at its claim point, everything else applied before
    it): the frame of that claim point shows it all, so no frame after it is needed."""
    _commitment: tuple[Any, str] = field(default=(None, ""), compare=False, repr=False)
    """The next hand's commitment, kept with the ``next_secret`` it is of."""

    def _compute_hash(self) -> str:
        assert self.match is not None
        parts = [self.code, self.hand_no, self.settled, self.hands_before, self.match.over,
                 tuple(self.match.points),
                 tuple(self.match.beans), len(self.match.history), self.match.dealer,
                 self.match.drawn_in_a_row,
                 tuple((s.kind, s.player, s.timeouts, s.tuoguan) for s in self.seats),
                 self.next_secret, sorted(self.entropy.items()),
                 None if self.hand is None else self.hand.state_key()]
        return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]

    def shown_hand(self) -> Hand | None:
        """The hand to show: the one in progress, else the last finished one."""
        if self.hand is not None and not self.hand.ended:
            return self.hand
        return self.last_hand

    def view_for(self, match_seat: int | None, events_from: int = 0,
                 hand: Hand | None = None) -> dict[str, Any]:
        """Everything one seat (``None``: a spectator) may see, as a message body, in
        match seat numbers (seats.py).

        Built from the engine's seat view only; events from ``events_from`` on. ``hand``:
        the hand in progress as it is at one of its claim points (default: as it is now).
        """
        return self.bodies([match_seat], hand)[match_seat].to_dict(events_from)

    def bodies(self, viewers: Iterable[int | None], hand: Hand | None = None
               ) -> dict[int | None, Body]:
        """Each viewer's :class:`~paohuzi.server.views.Body` now (``hand``: as at one of
        its claim points): the parts every viewer shares are built once, and each
        viewer's seat view, waits and events are kept while they stay the same."""
        assert self.match is not None
        if hand is None or hand.ended:
            hand = self.shown_hand()
        table = {
            "code": self.code,
            "hand_no": self.hand_no,
            "seats": [{"kind": s.kind, "nickname": self.shown_name(i), "tuoguan": s.tuoguan,
                       "points": self.match.points[i], "beans": self.match.beans[i]}
                      for i, s in enumerate(self.seats)],
            "dealer": self.match.dealer if self.hand_no else None,  # drawn with hand 1
            "xingjia": self.match.xingjia,
            "rules": self.config.rules,
            "timer": self.config.timer,
            "paused": self.paused,
            **self._hall_view(hand),
        }
        table_member = self._kept.member("table", "table", table)
        if hand is None:
            return {v: self._body(v, [table_member, ("you", v, _seat_json(v)),
                                      self._next_shuffle_member(v), ("view", None, "null")],
                                  NO_EVENTS) for v in viewers}
        in_progress = not hand.ended
        playing = tuple(self._playing if in_progress or self.last_summary is None
                        else self.last_summary.players)
        state = (hand, playing, self._moment)
        shown = self.shuffle if in_progress else self.finished_shuffle
        shuffle = None if shown is None else \
            {"commitment": shown.commitment} if in_progress else shown.revealed()
        shuffle_member = self._kept.member("shuffle", "shuffle", shuffle)
        out = {}
        for v in viewers:
            hand_seat = playing.index(v) if v in playing else None
            view, view_text, waits, waits_text, public = self._seat_part(state, hand_seat,
                                                                        in_progress)
            log = self._event_logs.get(hand_seat)
            if log is None or not log.fits(hand, hand_seat, playing):
                log = self._event_logs[hand_seat] = EventLog(
                    hand, hand_seat, playing, self._shared_events(hand, playing))
            out[v] = self._body(v, [table_member, ("you", v, _seat_json(v)),
                                    self._next_shuffle_member(v), ("view", view, view_text),
                                    ("waits", waits, waits_text), shuffle_member], log,
                                public)
        return out

    def _body(self, viewer: int | None, members: list[tuple[str, Any, str]],
              log: EventLog, public: Any = None) -> Body:
        """The viewer's body: its last one again while every member's text and its
        events are the same (a frame after a change no viewer can see). ``public``: the
        public view its ``view`` member was built on (:class:`~paohuzi.server.views.Body`)."""
        count = log.catch_up()
        key = (tuple([text for _, _, text in members]), count)
        kept = self._bodies.get(viewer)
        if kept is not None and kept[1].log is log and kept[0] == key:
            return kept[1]
        head_json = members_json([(name, text) for name, _, text in members])
        body = Body(digest_of(head_json, count), {name: value for name, value, _ in members},
                    head_json, log, count, public)
        self._bodies[viewer] = (key, body)
        return body

    def _shared_events(self, hand: Hand, playing: tuple[int, ...]) -> SharedEvents:
        """The renderings of ``hand``'s events that every non-owner sees (one per hand)."""
        shared = self._shared
        if shared is None or shared.hand is not hand or shared.playing != playing:
            shared = self._shared = SharedEvents(hand, playing)
        return shared

    def _next_shuffle_member(self, viewer: int | None) -> tuple[str, Any, str]:
        return self._kept.member(("next_shuffle", viewer), "next_shuffle",
                                 self._next_shuffle(viewer))

    def _seat_part(self, state: tuple[Hand, tuple[int, ...], Any], hand_seat: int | None,
                   in_progress: bool) -> tuple[Any, str, Any, str, Any]:
        """A hand seat's view (``None``: a spectator's) and waits, with their JSON; kept
        while the hand, its seats, its whole state and what only this seat sees of it
        stay the same."""
        hand, playing, moment = state
        own = self._seat_moments.get(hand_seat, 0) if hand_seat is not None else 0
        key = (hand, playing, moment, own)  # own: the changes only this seat sees
        cached = self._seat_parts.get(hand_seat)
        if cached is not None and cached[0][0] is hand and cached[0][1:] == key[1:]:
            return cached[1]
        view, view_text, public = self._seat_views.view_part(hand, hand_seat, playing,
                                                             len(self.seats), moment)
        waits = self._waits(hand, hand_seat) if in_progress else []
        _, waits, waits_text = self._kept.member(("waits", hand_seat), "waits", waits)
        part = (view, view_text, waits, waits_text, public)
        self._seat_parts[hand_seat] = (key, part)
        return part

    def _hall_view(self, hand: Hand | None) -> dict[str, Any]:
        """What the table view adds for the hall (issue 11): each seat's level, the 场次,
        the match (局数), the last hand's settlement in match seats and the 大结算.
        ``hand``: the hand shown — at a claim point of its deal (提 and a shown draw before
        the dealer's discard) it is not ``self.hand`` yet, and the frame must still count
        it as played (it once showed the last hand's count, then changed mid-window)."""
        assert self.match is not None
        in_hand = hand is not None and not hand.ended
        played = len(self.match.history) + (1 if in_hand else 0)
        return {
            "levels": [s.level if s.kind == "human" else None for s in self.seats],
            "changci": self.config.tier.to_json(),
            "match": {"number": self.match_no, "hands": self.config.hands, "played": played,
                      "over": self.match.over},
            "settlement": None if in_hand else self._settlement_view(),
            "summary": self.match_summary(),
        }

    def _settlement_view(self) -> dict[str, Any] | None:
        """The last finished hand for the settlement window, per match seat: who played
        (the dealer first), the 醒家 who sat out, everyone's points (his share included),
        the beans the rules give and those actually moved (None until settled, or for a
        computer), and each seat's level title."""
        summary = self.last_summary
        if summary is None:
            return None
        rules = self.config.ruleset
        settled = self.settled >= self.hands_before + summary.number
        return {"hand": self.hands_before + summary.number, "dealer": summary.dealer,
                "players": list(summary.players), "xingjia": summary.xingjia,
                "points": list(summary.points),
                "beans": [beans_of(p, rules) for p in summary.points],
                "moved": list(self.last_beans) if settled else None,
                "settled": settled}

    def _next_shuffle(self, match_seat: int | None) -> dict[str, Any] | None:
        """The next hand's published commitment, and whether this seat's value is in
        (never the other seats' values: those are revealed with the hand's record)."""
        if self.next_secret is None:
            return None
        if self._commitment[0] != self.next_secret:
            self._commitment = (self.next_secret, commitment(*self.next_secret[1:]))
        return {"hand": self.next_secret[0], "commitment": self._commitment[1],
                "sent": match_seat in self.entropy}

    def _waits(self, hand: Hand, hand_seat: int | None) -> list[dict[str, Any]]:
        """听牌 hint for the seat itself: the cards its hand waits on, with their 胡息 (the
        solver's answer; empty while the seat holds a card to discard): ``self`` on its
        own draw, ``other`` on another's, and where the rules win on a discard (泸州)
        ``discard`` on another's discard (``None``: that card wins on a draw only)."""
        if hand_seat is None:
            return []
        st = hand.seats[hand_seat]
        if st.must_discard() or st.xianggong:
            return []
        key = (self.hand_no, hand_seat, st.version)
        cached = self._waits_cache.get(hand_seat)
        if cached is None or cached[0] != key:
            rules = self.config.ruleset
            found = [{"card": w.card.text, "self": w.huxi_self, "other": w.huxi_other}
                     | ({"discard": w.huxi_discard} if rules.win_on_discard else {})
                     for w in waits(st.hand_cards, st.melds, rules)]
            cached = (key, found)
            self._waits_cache[hand_seat] = cached
        return cached[1]

    def finished_record(self) -> dict[str, Any]:
        """The engine record of the last finished hand, with the shuffle's proof."""
        assert self.last_hand is not None and self.last_summary is not None
        record = record_of(self.last_hand)
        record["room"] = self.code
        record["match_seats"] = list(self.last_summary.players)
        record["players"] = [self.seats[s].player for s in self.last_summary.players]
        record["names"] = [self.shown_name(s) for s in self.last_summary.players]
        record["hand_no"] = self.hands_before + self.last_summary.number
        # the finished hand's own shuffle, never the current one's
        shuffle = self.finished_shuffle
        record["shuffle"] = None if shuffle is None else shuffle.revealed()
        if shuffle is not None and self.last_summary.number == 1 \
                and isinstance(shuffle, Shuffle):
            record["shuffle"]["first_dealer"] = self.last_summary.dealer
        return record

    def computer_spec(self, match_seat: int) -> tuple[str, int]:
        """The name and seed of the computer player deciding for a seat (a computer seat,
        or one in 托管) next: what a worker process needs to make the same player
        (:func:`~paohuzi.players.choose_move`)."""
        name = self.computer_name(match_seat)
        assert self.hand is not None
        return (name if name in PLAYER_NAMES else "heuristic", self.computer_seed(match_seat))

    def computer_seed(self, match_seat: int) -> int:
        """The randomness of a computer's next decision (its random moves, the search's
        sampled worlds): drawn from the hand's server secret, hidden until the hand ends,
        with the seat and the decision's number. From the room code and the hand's
        public move count alone (as it used to be) anyone could foresee a computer's
        random choices — which of its legal actions, in the order of its hidden hand,
        it takes — and read its cards from them. A restored room gives the same seeds
        (the secret is in its log); a hand without a shuffle (none is dealt without one)
        falls back to the room code."""
        assert self.hand is not None
        shuffle = self.shuffle
        secret = self.code if shuffle is None else \
            shuffle.secret if isinstance(shuffle, Shuffle) else str(shuffle.seed)
        text = f"{secret}:computer:{self.hand_no}:{match_seat}:{len(self.hand.actions)}"
        return int(hashlib.sha256(text.encode()).hexdigest()[:15], 16)


def _seat_json(viewer: int | None) -> str:
    """A match seat number (``None``: a spectator) as JSON."""
    return "null" if viewer is None else str(viewer)


def _refusal(hand: Hand, hand_seat: int, action: Action, legal: list[Action]) -> TableError:
    """Why a seat with a decision may not take ``action``, in words naming no seat."""
    if isinstance(action, Discard) and any(isinstance(a, Discard) for a in legal):
        if hand.seats[hand_seat].hand[action.card] == 0:
            return refusal(TableError, "no_card_in_hand", card=action.card.text)
        return refusal(TableError, "card_in_kan", card=action.card.text)
    return refusal(TableError, "action_not_allowed", action=action.text,
                   allowed=", ".join(a.text for a in legal))
