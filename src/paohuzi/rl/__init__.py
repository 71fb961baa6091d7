"""A research environment (issue 15): 跑胡子 as a PettingZoo AEC environment and a
Gymnasium single-agent environment, for every preset.

It needs the ``rl`` extra (numpy, pettingzoo, gymnasium); nothing outside this package
imports it. docs/rl.md describes the action space, the observation and the rewards.
"""

try:
    import gymnasium  # noqa: F401
    import numpy  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise ImportError(f"paohuzi.rl needs the rl extra (numpy, pettingzoo, gymnasium): "
                      f"pip install 'paohuzi[rl]' ({exc})") from exc

from paohuzi.rl.actions import CHI_PLANS, N_ACTIONS, ActionIndexError, action_name
from paohuzi.rl.env import PaohuziEnv, env, raw_env
from paohuzi.rl.single import PaohuziSingleEnv

__all__ = ["CHI_PLANS", "N_ACTIONS", "ActionIndexError", "PaohuziEnv", "PaohuziSingleEnv",
           "action_name", "env", "raw_env"]
