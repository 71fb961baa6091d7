"""Computer players (issue: computer players and the arena)."""

from __future__ import annotations

import copy
import dataclasses
import random
import re

import pytest

from paohuzi.core.cards import ALL_CARDS, KINDS
from paohuzi.core.rules import PRESETS, Ruleset
from paohuzi.game.actions import Discard, Hu
from paohuzi.game.engine import Hand
from paohuzi.game.resample import resample_hand
from paohuzi.game.view import Observation, observe
from paohuzi.players import LEVELS, PLAYER_NAMES, RandomPlayer, make_player
from paohuzi.players.arena import clustered_ci, run_arena, write_report
from paohuzi.players.heuristic import HeuristicPlayer, hand_value
from paohuzi.players.search import SearchPlayer


def play_with(hand: Hand, players, record=None) -> int:
    """Play a hand to its end; every choice must be one of the legal actions."""
    decisions = 0
    while not hand.ended:
        seat = hand.pending_seats()[0]
        legal = hand.legal_actions(seat)
        action = players[seat].choose(observe(hand, seat), legal)
        assert action in legal, (seat, action, legal)
        if record is not None:
            record.append((seat, action.text))
        hand.act(seat, action)
        decisions += 1
    return decisions


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_heuristic_only_chooses_legal_actions(preset):
    rules = Ruleset.preset(preset)
    decisions = 0
    for i in range(140):
        players = [HeuristicPlayer(i + s) for s in range(rules.players)]
        decisions += play_with(Hand.from_seed(7000 + i, rules, dealer=i % rules.players),
                               players)
    assert decisions >= 2_500  # ≥ 12,500 over the five presets (luzhou hands end sooner)


def test_search_and_levels_only_choose_legal_actions():
    """Every level, built by :func:`make_player` exactly as the game builds it, plays a
    whole hand choosing only legal actions."""
    decisions = 0
    for i, names in enumerate((["search", "easy", "random"], ["hard", "normal", "heuristic"])):
        players = [make_player(n, i) for n in names]
        decisions += play_with(Hand.from_seed(300 + i, Ruleset()), players)
    assert decisions > 20


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_levels_are_built_as_described(level):
    """:data:`LEVELS` describes each level; the player built for it matches the words."""
    player = make_player(level, 1)
    words = LEVELS[level]
    if level == "easy":
        percent = int(re.search(r"(\d+)% of its decisions taken at random", words)[1])
        assert type(player) is HeuristicPlayer and player.noise == percent / 100
    else:
        samples, candidates = map(int, re.search(r"(\d+) determinisations x (\d+) candidates",
                                                 words).groups())
        assert isinstance(player, SearchPlayer)
        assert (player.samples, player.candidates) == (samples, candidates)
        assert player.time_limit is None


def test_same_seed_same_choices():
    for cls in (HeuristicPlayer, lambda s: SearchPlayer(s, samples=2)):
        runs = []
        for _ in range(2):
            record: list[tuple[int, str]] = []
            play_with(Hand.from_seed(99, Ruleset()), [cls(1), cls(2), cls(3)], record)
            runs.append(record)
        assert runs[0] == runs[1]


def _twin_with_hidden_swap(hand: Hand, seat: int) -> Hand | None:
    """The same position with one card swapped between another seat's hand and the wall."""
    for other in range(hand.players):
        if other == seat:
            continue
        st = hand.seats[other]
        for a in range(KINDS):
            if not 0 < st.hand[a] <= 2:
                continue
            for i, b in enumerate(hand.wall):
                if b != a and st.hand[b] < 2:
                    twin = copy.deepcopy(hand)
                    twin.seats[other].hand[a] -= 1
                    twin.seats[other].hand[b] += 1
                    twin.seats[other].version += 1
                    twin.wall[i] = ALL_CARDS[a]
                    return twin
    return None


def test_search_decides_identically_on_views_differing_only_in_hidden_cards():
    compared = 0
    for seed in range(6):
        hand = Hand.from_seed(4000 + seed, Ruleset())
        rng = random.Random(seed)
        while not hand.ended and compared < 12:
            seat = hand.pending_seats()[0]
            legal = hand.legal_actions(seat)
            if len(legal) > 2 and not any(isinstance(a, Hu) for a in legal):
                twin = _twin_with_hidden_swap(hand, seat)
                if twin is not None:
                    assert twin.state_key() != hand.state_key()
                    a, b = observe(hand, seat), observe(twin, seat)
                    assert a == b
                    player = SearchPlayer(5, samples=3)
                    assert player.choose(a, legal) == SearchPlayer(5, samples=3).choose(b, legal)
                    compared += 1
            hand.act(seat, legal[rng.randrange(len(legal))])
    assert compared >= 6


def test_observation_holds_no_hidden_state():
    """A player gets an Observation: no engine object, no other seat's hand, no wall."""
    hand = Hand.from_seed(12, Ruleset())
    obs = observe(hand, 1)
    for f in dataclasses.fields(Observation):
        value = getattr(obs, f.name)
        assert not isinstance(value, Hand)
    assert obs.hand == tuple(hand.seats[1].hand)
    assert obs.wall == len(hand.wall) and isinstance(obs.wall, int)
    with pytest.raises(dataclasses.FrozenInstanceError):
        obs.wall = 3  # type: ignore[misc]


def test_samples_are_consistent_with_the_view():
    hand = Hand.from_seed(21, Ruleset())
    rng = random.Random(0)
    for _ in range(15):
        seat = hand.pending_seats()[0]
        hand.act(seat, hand.legal_actions(seat)[rng.randrange(len(hand.legal_actions(seat)))])
    seat = hand.pending_seats()[0]
    obs = observe(hand, seat)
    for k in range(20):
        sample = resample_hand(obs, random.Random(k))
        assert sample.card_total() == 80
        assert sample.seats[seat].hand == hand.seats[seat].hand
        assert [s.owned for s in sample.seats] == [s.owned for s in hand.seats]
        assert len(sample.wall) == len(hand.wall)
        assert observe(sample, seat).legal == obs.legal


def test_heuristic_values_shape_and_huxi():
    live = [4] * KINDS
    from paohuzi.core.cards import counts_of, parse_cards

    good = counts_of(parse_cards("一二三 壹贰叁 二七十 四五六 七八 九九 捌玖"))
    bad = counts_of(parse_cards("一一 四四 八八 叁叁 陆陆 玖玖 五 壹 拾 十 肆 柒"))
    assert hand_value(good, [], live) > hand_value(bad, [], live) + 5


def test_heuristic_beats_random_clearly():
    report = run_arena(["heuristic", "random", "random"], deals=60, seed=3)
    heuristic, rand1, rand2 = report.players
    assert heuristic.low > 0
    assert heuristic.hu_rate >= 3 * max(rand1.hu_rate, rand2.hu_rate, 0.001)


def test_levels_are_documented_and_buildable():
    assert set(LEVELS) == {"easy", "normal", "hard"}  # expert: not a level until stronger
    hand = Hand.from_seed(5, Ruleset())
    seat = hand.pending_seats()[0]
    legal = hand.legal_actions(seat)
    assert len(legal) > 1
    for name in PLAYER_NAMES:
        assert make_player(name, 1).choose(observe(hand, seat), legal) in legal, name
    with pytest.raises(ValueError, match="unknown player"):
        make_player("oracle", 1)
    assert isinstance(make_player("random", 1), RandomPlayer)


def test_clustered_ci_on_a_hand_made_sample():
    # mean 2, sd = sqrt(((1-2)^2 + (3-2)^2 + 0 + 0) / 3) = sqrt(2/3), n = 4
    mean, low, high = clustered_ci([1.0, 3.0, 2.0, 2.0])
    half = 1.959963984540054 * (2 / 3) ** 0.5 / 2
    assert mean == 2.0
    assert low == pytest.approx(2.0 - half) and high == pytest.approx(2.0 + half)
    assert clustered_ci([5.0])[1] == float("-inf")


def test_arena_report_structure_and_determinism(tmp_path):
    a = run_arena(["heuristic", "random", "easy"], deals=8, seed=4, jobs=2)
    b = run_arena(["heuristic", "random", "easy"], deals=8, seed=4, jobs=1)
    assert [(p.mean, p.hu_rate) for p in a.players] == [(p.mean, p.hu_rate) for p in b.players]
    assert a.hands == 24
    assert sum(p.mean for p in a.players) == pytest.approx(0.0, abs=1e-9)
    paths = write_report(a, tmp_path)
    text = (tmp_path / "report.md").read_text()
    assert "| seat slot | player | points / hand | 95% CI (by deal)" in text
    assert "| decision p50 | p99 | CPU p50 | CPU p99 | decisions |" in text
    heuristic = a.players[0]
    assert 0 < heuristic.cpu_p50_ms <= heuristic.cpu_p99_ms
    assert [len(s) for s in a.cpu_samples] == [p.decisions for p in a.players]
    assert [len(s) for s in a.wall_samples] == [p.decisions for p in a.players]
    assert text.count("| heuristic |") == 1 and "| easy |" in text
    assert (tmp_path / "cumulative.png") in paths
    assert (tmp_path / "cumulative.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def searched_position() -> tuple[Observation, list]:
    """The first decision of a seeded hand where the search weighs two candidates or
    more (no 胡 to take, several actions)."""
    for seed in range(50):
        hand = Hand.from_seed(seed, Ruleset())
        rng = random.Random(seed)
        while not hand.ended:
            seat = hand.pending_seats()[0]
            legal = hand.legal_actions(seat)
            view = observe(hand, seat)
            if len(legal) > 2 and not any(isinstance(a, Hu) for a in legal) and \
                    len(SearchPlayer(1)._ranked(view, legal)[:3]) >= 2:
                return view, legal
            hand.act(seat, rng.choice(legal))
    raise AssertionError("no searched position in 50 hands")


def counting_rollouts(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = SearchPlayer._rollout

    def rollout(self, *args):
        calls.append(1)
        return real(self, *args)

    monkeypatch.setattr(SearchPlayer, "_rollout", rollout)
    return calls


def test_a_search_with_no_time_left_samples_nothing_and_plays_its_favourite(monkeypatch):
    view, legal = searched_position()
    calls = counting_rollouts(monkeypatch)
    untimed = SearchPlayer(1, samples=4, candidates=3)
    untimed.choose(view, legal)
    assert len(calls) == 4 * 3
    calls.clear()
    rushed = SearchPlayer(1, samples=4, candidates=3, time_limit=0.0)
    assert rushed.choose(view, legal) == rushed._ranked(view, legal)[0]
    assert calls == []


def test_choose_move_stops_a_search_by_its_deadline(monkeypatch):
    """The server gives a computer's claim answer a deadline inside the claim window:
    a searching level past it samples nothing (its favourite move, at once)."""
    import time

    from paohuzi.players import choose_move

    view, legal = searched_position()
    calls = counting_rollouts(monkeypatch)
    favourite = SearchPlayer(1)._ranked(view, legal)[0]
    assert choose_move("hard", 1, view, legal, deadline=time.monotonic()) == favourite
    assert calls == []
    choose_move("hard", 1, view, legal, deadline=time.monotonic() + 60)
    with_deadline = len(calls)
    calls.clear()
    make_player("hard", 1).choose(view, legal)
    # a distant deadline leaves the search as it was
    assert with_deadline == len(calls) >= 2 * len(SearchPlayer(1)._ranked(view, legal)[:3])


def recording_rollouts(monkeypatch) -> list[tuple[object, int]]:
    """Every roll-out's candidate and the decisions it took."""
    calls: list[tuple[object, int]] = []
    real = SearchPlayer._rollout

    def rollout(self, hand, me, action, seed):
        points, used = real(self, hand, me, action, seed)
        calls.append((action, used))
        return points, used

    monkeypatch.setattr(SearchPlayer, "_rollout", rollout)
    return calls


def test_a_search_budget_bounds_the_rollouts_decisions(monkeypatch):
    """``budget``: no sample starts that would take the roll-outs' decisions past it at
    the pace of those before; without it the same search plays every sample."""
    view, legal = searched_position()
    calls = recording_rollouts(monkeypatch)
    SearchPlayer(1, samples=30, candidates=3).choose(view, legal)
    unbounded = list(calls)
    calls.clear()
    player = SearchPlayer(1, samples=30, candidates=3, budget=60)
    player.choose(view, legal)
    per_sample = len(player._ranked(view, legal)[:3])
    assert len(unbounded) == 30 * per_sample
    assert 0 < len(calls) < len(unbounded)
    assert len(calls) % per_sample == 0  # whole samples only
    decisions = [used for _, used in calls]
    # the last sample started within the budget at the pace of the samples before it
    before, rollouts_before = sum(decisions[:-per_sample]), len(decisions) - per_sample
    assert before + per_sample * before / max(1, rollouts_before) <= 60
    # and one more at the pace of them all would have passed it
    assert sum(decisions) + per_sample * sum(decisions) / len(decisions) > 60
    # deterministic: the same choice again
    assert player.choose(view, legal) == SearchPlayer(1, samples=30, candidates=3,
                                                      budget=60).choose(view, legal)



def test_the_search_weighs_the_heuristics_best_claims_not_the_first_by_name():
    """At a claim with more options than the search has candidates (several 吃 plans),
    its candidates are the heuristic's favourite and then its next best, by value."""
    found = 0
    for seed in range(80):
        hand = Hand.from_seed(seed, Ruleset())
        rng = random.Random(seed)
        while not hand.ended and found < 12:
            seat = hand.pending_seats()[0]
            legal = hand.legal_actions(seat)
            view = observe(hand, seat)
            if len(legal) > 3 and not any(isinstance(a, (Hu, Discard)) for a in legal):
                heuristic = HeuristicPlayer(1)
                values = heuristic.claim_values(view, legal)
                ranked = SearchPlayer(1)._ranked(view, legal)
                assert ranked[0] == heuristic.choose(view, legal)
                assert sorted(ranked, key=str) == sorted(legal, key=str)
                by_value = dict((a, v) for v, a in values)
                assert [by_value[a] for a in ranked[:3]] == \
                    sorted((v for v, _ in values), reverse=True)[:3]
                found += 1
            hand.act(seat, rng.choice(legal))
    assert found >= 12
