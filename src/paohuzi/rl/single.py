"""A Gymnasium single-agent environment: one seat learns, built-in players take the others.

The learner is agent ``seat`` of :class:`~paohuzi.rl.env.PaohuziEnv` (same observation,
mask and action space); every other seat is played by
:func:`paohuzi.players.make_player` (``random``, ``heuristic``, ``easy``, ``normal``,
``hard``, ...), which sees only its own :func:`~paohuzi.game.view.observe`. An episode is
one hand; the reward is 0 until the hand ends, then the learner's points. A hand in which
the learner has no decision at all (it ends before his first one, or he is the 醒家 that
sits it out) is dealt again: ``reset`` always returns a position where he must act.

An action the mask forbids raises :class:`~paohuzi.game.engine.IllegalActionError`
(nothing changes); with ``illegal="replace"`` the lowest legal action is taken instead
and ``info["illegal"]`` says so (Gymnasium's environment checker steps with unmasked
samples).

>>> env = PaohuziSingleEnv("qq", opponents="random")
>>> obs, info = env.reset(seed=3)
>>> done = False
>>> while not done:
...     obs, reward, done, truncated, info = env.step(int(obs["action_mask"].argmax()))
>>> reward == env.aec.hand.result.points[env.aec.seat_of_agent[0]]
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import gymnasium as gym
import numpy as np
import numpy.typing as npt

from paohuzi.core.rules import Ruleset
from paohuzi.game.engine import IllegalActionError
from paohuzi.game.view import observe
from paohuzi.players import Player, make_player
from paohuzi.rl.actions import N_ACTIONS, action_name
from paohuzi.rl.env import PaohuziEnv

__all__ = ["PaohuziSingleEnv"]

ObsDict = dict[str, npt.NDArray[Any]]


class PaohuziSingleEnv(gym.Env[ObsDict, int]):
    """One seat (agent index ``seat``) against built-in players (``opponents``: one name for
    every other seat, or one per agent, the learner's entry ignored)."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (Gymnasium declares it so)

    def __init__(self, rules: Ruleset | str = "qq", opponents: str | Sequence[str] = "heuristic",
                 seat: int = 0, illegal: Literal["raise", "replace"] = "raise",
                 render_mode: str | None = None) -> None:
        self.aec = PaohuziEnv(rules, render_mode)
        n = self.aec.n_seats
        if not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat must be an agent index 0..{n - 1}, got {seat!r}")
        names = [opponents] * n if isinstance(opponents, str) else list(opponents)
        if len(names) != n:
            raise ValueError(f"opponents: one name, or one per agent ({n}), got {len(names)}")
        for name in names:
            make_player(name)  # an unknown name fails here, not at the first reset
        if illegal not in ("raise", "replace"):
            raise ValueError(f"illegal must be 'raise' or 'replace', got {illegal!r}")
        self.seat, self.names, self.illegal = seat, names, illegal
        self.agent = self.aec.possible_agents[seat]
        self.render_mode = render_mode
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self.players: list[Player] = []

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[ObsDict, dict[str, Any]]:
        super().reset(seed=seed)
        self.aec.reset(seed=int(self.np_random.integers(2**62)))
        self.players = [make_player(name, int(self.np_random.integers(2**62)))
                        for name in self.names]
        while not self._play_others():
            self.aec.reset()  # the learner had nothing to decide: deal again
        return self.aec.observe(self.agent), {}

    def _play_others(self) -> bool:
        """Let the built-in players act until the learner must; False if the hand ends."""
        aec = self.aec
        hand = aec.hand
        assert hand is not None
        while aec.agent_selection != self.agent:
            if hand.ended:
                return False
            index = aec.possible_agents.index(aec.agent_selection)
            seat = aec.seat_of_agent[index]
            assert seat is not None
            player = self.players[index]
            legal = hand.legal_actions(seat)
            view = observe(hand, seat) if getattr(player, "needs_view", True) else None
            aec.step_action(player.choose(view, legal))
        return not hand.ended

    def step(self, action: int) -> tuple[ObsDict, float, bool, bool, dict[str, Any]]:
        aec = self.aec
        if aec.hand is None or aec.hand.ended:
            raise IllegalActionError("the hand has ended: reset() first")
        info: dict[str, Any] = {}
        mask = aec.observe(self.agent)["action_mask"]
        index = int(action)
        if not (0 <= index < N_ACTIONS and mask[index]):
            if self.illegal == "raise":
                what = f"action {index} ({action_name(index)})" if 0 <= index < N_ACTIONS \
                    else f"action {index!r}"
                raise IllegalActionError(f"{what} is not legal now; legal: "
                                         f"{', '.join(map(str, np.flatnonzero(mask)))}")
            index = int(np.flatnonzero(mask)[0])
            info["illegal"] = True
        aec.step(index)
        ended = not self._play_others()
        reward = float(aec._cumulative_rewards[self.agent]) if ended else 0.0
        return aec.observe(self.agent), reward, ended, False, info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now, as booleans (the name sb3-contrib's maskable agents call)."""
        return self.aec.observe(self.agent)["action_mask"].astype(bool)

    def render(self) -> str | None:
        return self.aec.render()
