"""The PettingZoo AEC environment: one hand of 跑胡子 per episode, for any ruleset.

Agents ``player_0`` .. ``player_{n-1}`` are the ruleset's
:attr:`~paohuzi.core.rules.Ruleset.seats`; with the ``hunan`` 醒家 option the seat opposite
the dealer sits the hand out (no turns; he is paid by the losers at the end). Every reset
draws the dealer and the shuffle from the environment's generator (seeded by
``reset(seed=...)``), so a seed fixes the whole episode given the actions. A deal the engine
ends at once (the mandatory 天胡 of §3.3) asks nobody anything and is dealt again.

The agent to act is the first seat the engine waits for (:meth:`Hand.pending_seats`; seats
deciding on one shown card answer in priority order and none sees another's answer). Its
observation is ``{"observation": float32 vector, "action_mask": int8 vector}``, built from
:func:`paohuzi.game.view.observe` for that seat only (:mod:`paohuzi.rl.encoding`); the
action space is :mod:`paohuzi.rl.actions`. Rewards are 0 until the hand ends, then each
agent's points of the settlement (:attr:`HandResult.points`, the 醒家's
:attr:`HandResult.xingjia_points`).

>>> env = PaohuziEnv("qq")
>>> env.reset(seed=7)
>>> agent = env.agent_selection
>>> obs = env.observe(agent)
>>> obs["observation"].shape, obs["action_mask"].shape, int(obs["action_mask"].sum()) > 0
((433,), (911,), True)
>>> while env.agents:
...     obs, reward, done, _, _ = env.last()
...     env.step(None if done else int(obs["action_mask"].argmax()))
>>> sum(env.hand.result.points)
0
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from paohuzi.core.rules import Ruleset
from paohuzi.game.actions import Action
from paohuzi.game.engine import Hand, IllegalActionError, Phase, PositionError
from paohuzi.game.view import observe
from paohuzi.rl.actions import N_ACTIONS, action_name, index_of
from paohuzi.rl.encoding import Layout

__all__ = ["PaohuziEnv", "env", "raw_env"]

ObsDict = dict[str, npt.NDArray[Any]]


class PaohuziEnv(AECEnv):  # type: ignore[misc]
    """A PettingZoo AEC environment of one hand (``rules``: a preset name or a
    :class:`Ruleset`)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "paohuzi_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, rules: Ruleset | str = "qq", render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.rules = Ruleset.preset(rules) if isinstance(rules, str) else rules
        self.n_seats = self.rules.seats
        self.possible_agents = [f"player_{i}" for i in range(self.n_seats)]
        self.layout = Layout(self.n_seats)
        obs_space = spaces.Dict({
            "observation": spaces.Box(0, self.layout.high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
        })
        act_space = spaces.Discrete(N_ACTIONS)
        self._obs_spaces = {a: obs_space for a in self.possible_agents}
        self._act_spaces = {a: act_space for a in self.possible_agents}
        self._rng = random.Random()
        self._seat_agents(0)
        self.hand: Hand | None = None
        self._cache: dict[int, tuple[ObsDict, dict[int, Action]]] = {}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_spaces[agent]

    # ---- seats ---------------------------------------------------------------------

    def _seat_agents(self, dealer: int) -> None:
        """Map hand seats (0 = the dealer) to agent indices, as a match does."""
        n = self.n_seats
        self.xingjia = (dealer + 2) % n if self.rules.xingjia else None
        order = [(dealer + i) % n for i in range(n)]
        self.agent_of_seat = [a for a in order if a != self.xingjia]
        self.seat_of_agent: list[int | None] = [None] * n
        for seat, a in enumerate(self.agent_of_seat):
            self.seat_of_agent[a] = seat
        # slot of each hand seat as seen by each agent (0 = the agent himself)
        self._slots = [tuple((a - viewer) % n for a in self.agent_of_seat)
                       for viewer in range(n)]

    # ---- the AEC API ---------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        while True:
            dealer = self._rng.randrange(self.n_seats)
            hand = Hand.from_seed(self._rng.getrandbits(63), self.rules)
            if not hand.ended:
                break
        self.start(hand, dealer)

    def start(self, hand: Hand, dealer: int | None = None) -> None:
        """Play ``hand`` (for these rules, hand seat 0 the dealer, not ended) from where it
        is: a given deal, or a position (``Hand.resume``). ``dealer``: the dealer's agent
        index (default: keep the seating of the last reset)."""
        if hand.rules != self.rules:
            raise PositionError("the hand is played by other rules than the environment's")
        if hand.ended:
            raise PositionError("the hand has already ended")
        if hand.dealer != 0:
            raise PositionError(f"hand seat 0 must be the dealer, not seat {hand.dealer}")
        if dealer is not None:
            if not isinstance(dealer, int) or not 0 <= dealer < self.n_seats:
                raise PositionError(f"dealer must be an agent index 0..{self.n_seats - 1}, "
                                    f"got {dealer!r}")
            self._seat_agents(dealer)
        self.hand = hand
        self._cache.clear()
        self.layout.clear()
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.agent_of_seat[hand.pending_seats()[0]]]

    def observe(self, agent: str) -> ObsDict:
        return self._view(self.possible_agents.index(agent))[0]

    def _view(self, index: int) -> tuple[ObsDict, dict[int, Action]]:
        found = self._cache.get(index)
        if found is None:
            found = self._cache[index] = self._encode(index)
        return found

    def _encode(self, index: int) -> tuple[ObsDict, dict[int, Action]]:
        hand = self.hand
        assert hand is not None, "reset() first"
        seat = self.seat_of_agent[index]
        obs = observe(hand, seat, events=False)
        xingjia = None if self.xingjia is None else (self.xingjia - index) % self.n_seats
        vec = self.layout.encode(obs, self._slots[index], xingjia)
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        legal: dict[int, Action] = {}
        if obs.legal:
            card = None if obs.claim is None else int(obs.claim[0])
            for action in obs.legal:
                i = index_of(action, card)
                legal[i] = action
                mask[i] = 1
        return {"observation": vec, "action_mask": mask}, legal

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        legal = self._view(self.possible_agents.index(agent))[1]
        chosen = legal.get(int(action)) if action is not None else None
        if chosen is None:
            what = "no action" if action is None else f"action {action} ({action_name(action)})"
            raise IllegalActionError(
                f"{agent} may not take {what} now; legal: "
                f"{', '.join(str(i) for i in sorted(legal))}")
        self._apply(agent, chosen)

    def step_action(self, action: Action) -> None:
        """Step the selected agent with an engine action (as a built-in player gives it);
        the engine checks it (:class:`IllegalActionError`, nothing changes)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            raise IllegalActionError(f"{agent} has no decision: the hand has ended")
        self._apply(agent, action)

    def _apply(self, agent: str, action: Action) -> None:
        hand = self.hand
        assert hand is not None
        seat = self.seat_of_agent[self.possible_agents.index(agent)]
        assert seat is not None
        hand.act(seat, action)
        self._cumulative_rewards[agent] = 0
        self._cache.clear()
        if hand.phase is Phase.ENDED:
            self._finish(hand)
        else:
            self.agent_selection = self.possible_agents[
                self.agent_of_seat[hand.pending_seats()[0]]]
        self._accumulate_rewards()

    def _finish(self, hand: Hand) -> None:
        result = hand.result
        assert result is not None
        for seat, points in enumerate(result.points):
            self.rewards[self.possible_agents[self.agent_of_seat[seat]]] = points
        if self.xingjia is not None:
            self.rewards[self.possible_agents[self.xingjia]] = result.xingjia_points
        for a in self.agents:
            self.terminations[a] = True
            self.infos[a] = {"reason": result.reason.value}

    def render(self) -> str | None:
        if self.render_mode is None or self.hand is None:
            return None
        hand = self.hand
        lines = [f"wall {len(hand.wall)}, phase {hand.phase.value}"]
        for seat, st in enumerate(hand.seats):
            melds = " ".join(m.text for m in st.melds)
            lines.append(f"{self.possible_agents[self.agent_of_seat[seat]]}: "
                         f"{len(st.hand_cards)} cards in hand | {melds}")
        return "\n".join(lines)

    def close(self) -> None:
        self._cache.clear()


def raw_env(rules: Ruleset | str = "qq", render_mode: str | None = None) -> PaohuziEnv:
    """The environment without wrappers (PettingZoo's naming)."""
    return PaohuziEnv(rules, render_mode)


def env(rules: Ruleset | str = "qq", render_mode: str | None = None) -> PaohuziEnv:
    """The environment (PettingZoo's naming; it needs no wrapper: an illegal action is an
    error, and the action mask says which are legal)."""
    return PaohuziEnv(rules, render_mode)
