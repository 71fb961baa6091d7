"""The research environment (paohuzi.rl): PettingZoo and Gymnasium APIs, the action mask
against the engine, what an observation may hold, determinism and rewards."""

from __future__ import annotations

import random
import warnings

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

from paohuzi.core.chi import chi_options_counts  # noqa: E402
from paohuzi.core.kinds import ClaimContext  # noqa: E402
from paohuzi.core.rules import PRESETS, Ruleset  # noqa: E402
from paohuzi.game.engine import Hand, IllegalActionError, PositionError  # noqa: E402
from paohuzi.game.resample import resample_hand  # noqa: E402
from paohuzi.game.view import Observation, observe  # noqa: E402
from paohuzi.rl.actions import (  # noqa: E402
    CHI,
    CHI_PLANS,
    HU,
    N_ACTIONS,
    ActionIndexError,
    action_of,
    index_of,
)
from paohuzi.rl.env import PaohuziEnv  # noqa: E402
from paohuzi.rl.single import PaohuziSingleEnv  # noqa: E402

RULESETS = [*PRESETS, "hunan+xingjia"]


def rules_of(name: str) -> Ruleset:
    if name == "hunan+xingjia":
        return Ruleset.preset("hunan", xingjia=True)
    return Ruleset.preset(name)


def play(env: PaohuziEnv, rng: random.Random, check: bool = False) -> None:
    """Play the env's hand to its end with random legal actions (``check``: compare each
    mask with the engine's legal actions)."""
    while env.agents:
        agent = env.agent_selection
        obs, _, done, _, _ = env.last()
        if done:
            env.step(None)
            continue
        if check:
            check_mask(env, agent, obs["action_mask"])
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))


def check_mask(env: PaohuziEnv, agent: str, mask: object) -> None:
    hand = env.hand
    assert hand is not None
    seat = env.seat_of_agent[env.possible_agents.index(agent)]
    assert seat is not None
    engine_legal = hand.legal_actions(seat)
    card = None if hand.claim is None else int(hand.claim.card)
    assert sorted(index_of(a, card) for a in engine_legal) == list(np.flatnonzero(mask))
    for i in np.flatnonzero(mask):
        assert hand.can(seat, action_of(int(i), card))


@pytest.mark.parametrize("name", RULESETS)
def test_api_test_passes(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the dict observation's advice, as chess gets
        api_test(PaohuziEnv(rules_of(name)), num_cycles=200)


@pytest.mark.parametrize("name", RULESETS)
def test_mask_is_exactly_the_engines_legal_actions(name: str) -> None:
    env, rng = PaohuziEnv(rules_of(name)), random.Random(5)
    env.reset(seed=11)
    for _ in range(15):
        if not env.agents:
            env.reset()
        play(env, rng, check=True)


def test_every_chi_the_engine_offers_has_a_plan() -> None:
    rng = random.Random(2)
    for _ in range(3000):
        counts = [0] * 20
        for c in rng.sample([c for c in range(20) for _ in range(4)], 18):
            counts[c] += 1
        card = rng.randrange(20)
        for option in chi_options_counts(counts, card):
            from paohuzi.game.actions import Chi

            index = index_of(Chi(option.eat, option.bi), card)
            assert CHI <= index < N_ACTIONS and action_of(index, card) == Chi(option.eat,
                                                                              option.bi)


def test_bad_indices_are_refused_clearly() -> None:
    with pytest.raises(ActionIndexError, match="outside"):
        action_of(N_ACTIONS, None)
    eaten = CHI_PLANS[0][0]
    with pytest.raises(ActionIndexError, match="eats"):
        action_of(CHI, eaten + 1)
    env = PaohuziEnv("qq")
    env.reset(seed=4)
    mask = env.observe(env.agent_selection)["action_mask"]
    wrong = int(np.flatnonzero(mask == 0)[0])
    before = env.hand.state_key()
    with pytest.raises(IllegalActionError, match=f"action {wrong}"):
        env.step(wrong)
    assert env.hand.state_key() == before


def test_a_given_hand_is_checked() -> None:
    env = PaohuziEnv("qq")
    with pytest.raises(PositionError, match="other rules"):
        env.start(Hand.from_seed(1, Ruleset.preset("two-player")))
    with pytest.raises(PositionError, match="dealer"):
        env.start(Hand.from_seed(1, Ruleset(), dealer=1))
    with pytest.raises(PositionError, match="agent index"):
        env.start(Hand.from_seed(1, Ruleset()), dealer=3)
    env.start(Hand.from_seed(1, Ruleset()), dealer=2)
    assert env.agent_of_seat == [2, 0, 1] and env.agents == env.possible_agents


def test_seating_puts_the_xingjia_opposite_the_dealer() -> None:
    env = PaohuziEnv(rules_of("hunan+xingjia"))
    seen = set()
    for seed in range(12):
        env.reset(seed=seed)
        dealer = env.agent_of_seat[0]
        assert env.xingjia == (dealer + 2) % 4 and env.xingjia not in env.agent_of_seat
        seen.add(env.xingjia)
        assert not env.observe(env.possible_agents[env.xingjia])["action_mask"].any()
    assert len(seen) > 1


def resamplable(view: Observation) -> bool:
    """Whether :func:`resample_hand` takes this position (a discard, or a shown card)."""
    return view.phase == "discard" or (
        view.claim is not None and view.claim[2] in (ClaimContext.DISCARD, ClaimContext.DRAW))


@pytest.mark.parametrize("name", ["qq", "two-player", "hunan+xingjia"])
def test_observation_never_tells_hidden_cards(name: str) -> None:
    """Re-deal what an agent cannot see (the others' hands, 偎, the wall): its observation
    stays the same, while the re-dealt seats' own observations change."""
    rules, rng = rules_of(name), random.Random(8)
    env = PaohuziEnv(rules)
    env.reset(seed=21)
    changed = compared = 0
    for step in range(400):
        if not env.agents:
            env.reset()
        agent = env.agent_selection
        obs, _, done, _, _ = env.last()
        if done:
            env.step(None)
            continue
        view = observe(env.hand, env.seat_of_agent[env.possible_agents.index(agent)])
        if step % 3 == 0 and resamplable(view):
            seat = view.seat
            redealt = resample_hand(view, rng)
            twin = PaohuziEnv(rules)
            twin.start(redealt, dealer=env.agent_of_seat[0])
            for key in ("observation", "action_mask"):
                assert np.array_equal(twin.observe(agent)[key], obs[key]), key
            other = env.possible_agents[env.agent_of_seat[(seat + 1) % rules.players]]
            compared += 1
            changed += not np.array_equal(twin.observe(other)["observation"],
                                          env.observe(other)["observation"])
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    assert compared > 50 and changed > compared // 2  # the test can see a difference


@pytest.mark.parametrize("name", ["qq", "hunan+xingjia"])
def test_a_seed_fixes_the_episode(name: str) -> None:
    seed_test(lambda: PaohuziEnv(rules_of(name)), num_cycles=50)

    def trace(seed: int) -> list[object]:
        env, rng, out = PaohuziEnv(rules_of(name)), random.Random(0), []
        env.reset(seed=seed)
        for _ in range(3):
            play(env, rng)
            out.append((env.agent_of_seat, [a.text for _, a in env.hand.actions],
                            repr(env.hand.result.to_json())))
            env.reset()
        return out

    assert trace(5) == trace(5)
    assert trace(5) != trace(6)


@pytest.mark.parametrize("name", RULESETS)
def test_rewards_are_the_settlement_points(name: str) -> None:
    rules, rng = rules_of(name), random.Random(3)
    env = PaohuziEnv(rules)
    env.reset(seed=1)
    nonzero = 0
    for _ in range(40):
        totals = dict.fromkeys(env.possible_agents, 0)
        while env.agents:
            agent = env.agent_selection
            obs, reward, done, _, _ = env.last()
            totals[agent] += reward
            if done:
                env.step(None)
                continue
            assert reward == 0
            legal = np.flatnonzero(obs["action_mask"])
            # win whenever possible, so that hands are won and points move
            env.step(HU if obs["action_mask"][HU] else int(legal[rng.randrange(len(legal))]))
        result = env.hand.result
        want = [0] * rules.seats
        for seat, points in enumerate(result.points):
            want[env.agent_of_seat[seat]] = points
        if env.xingjia is not None:
            want[env.xingjia] = result.xingjia_points
        assert [totals[a] for a in env.possible_agents] == want
        nonzero += any(want)
        env.reset()
    assert nonzero >= 2


@pytest.mark.parametrize("name", RULESETS)
def test_single_agent_env_passes_the_checker(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no spec: render modes are not tried
        check_env(PaohuziSingleEnv(rules_of(name), opponents="random", illegal="replace"))


def test_single_agent_env_plays_against_builtin_players() -> None:
    env = PaohuziSingleEnv("qq", opponents=["random", "heuristic", "easy"], seat=0)
    rewards = []
    for seed in range(4):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            assert obs["action_mask"].any()
            assert (env.action_masks() == obs["action_mask"].astype(bool)).all()
            obs, reward, done, truncated, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
            assert not truncated
        hand = env.aec.hand
        assert reward == hand.result.points[env.aec.seat_of_agent[0]]
        rewards.append(reward)
    again = PaohuziSingleEnv("qq", opponents=["random", "heuristic", "easy"], seat=0)
    obs, _ = again.reset(seed=3)
    done = False
    while not done:
        obs, reward, done, _, _ = again.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert reward == rewards[3]


def test_single_agent_env_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="unknown player"):
        PaohuziSingleEnv("qq", opponents="grandmaster")
    with pytest.raises(ValueError, match="seat"):
        PaohuziSingleEnv("two-player", seat=2)
    env = PaohuziSingleEnv("qq", opponents="random")
    obs, _ = env.reset(seed=0)
    wrong = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(wrong)


def test_hands_nobody_decides_are_dealt_again() -> None:
    """A mandatory 天胡 at the deal asks nobody anything: reset deals another hand."""
    rules = Ruleset()
    seed = next(s for s in range(20000) if Hand.from_seed(s, rules).ended)
    env = PaohuziEnv(rules)

    class Fixed(random.Random):
        def getrandbits(self, k: int) -> int:
            self.calls = getattr(self, "calls", 0) + 1
            return seed if self.calls == 1 else super().getrandbits(k)

    env._rng = Fixed(1)
    env.reset()
    assert not env.hand.ended and env.hand.deal.seed != seed


def test_the_docs_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "rl.md").read_text("utf-8")
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict[str, object] = {}
    exec(compile(code, "docs/rl.md", "exec"), scope)
    assert "discard" in capsys.readouterr().out
    assert scope["done"] is True and isinstance(scope["reward"], float)
