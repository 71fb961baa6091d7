"""Hand.copy, Hand.resume and the resampling of hidden cards (issue 9, item 3)."""

from __future__ import annotations

import random

import pytest

from paohuzi.core.cards import ALL_CARDS, KINDS
from paohuzi.core.errors import CardCountError
from paohuzi.core.groups import Group, GroupKind
from paohuzi.core.rules import PRESETS, Ruleset
from paohuzi.game.engine import Hand, PositionError, SeatState
from paohuzi.game.resample import inconsistencies, is_consistent, resample_hand
from paohuzi.game.view import Observation, observe


def _random_step(hand: Hand, rng: random.Random) -> None:
    pending = hand.pending_seats()
    seat = pending[rng.randrange(len(pending))]
    legal = hand.legal_actions(seat)
    hand.act(seat, legal[rng.randrange(len(legal))])


def _resumable(obs: Observation) -> bool:
    return (obs.phase == "discard" and obs.turn == obs.seat) or (
        obs.claim is not None and obs.claim[2] in ("discard", "draw"))


def _observations(rules: Ruleset, games: int, seed: int,
                  every: int = 3) -> list[tuple[Hand, Observation]]:
    """(true hand, observation) at decisions of random games, the true hand copied."""
    found = []
    for g in range(games):
        rng = random.Random(seed * 1000 + g)
        hand = Hand.from_seed(seed * 1000 + g, rules, dealer=g % rules.players)
        step = 0
        while not hand.ended:
            step += 1
            if step % every == 0:
                seat = hand.pending_seats()[0]
                obs = observe(hand, seat)
                if _resumable(obs):
                    found.append((hand.copy(), obs))
            _random_step(hand, rng)
    return found


# ---- Hand.copy --------------------------------------------------------------------


def test_copy_is_independent_and_plays_like_the_original():
    copies = 0
    for g in range(12):
        hand = Hand.from_seed(600 + g, Ruleset())
        rng = random.Random(g)
        while not hand.ended:
            if rng.random() < 0.3:
                key, events = hand.state_key(), list(hand.events)
                twin = hand.copy()
                assert twin.state_key() == key
                seed = rng.getrandbits(32)
                a, b = random.Random(seed), random.Random(seed)
                while not twin.ended:
                    _random_step(twin, a)
                assert hand.state_key() == key and hand.events == events  # untouched
                # the original played the same way reaches the same end
                again = hand.copy()
                while not again.ended:
                    _random_step(again, b)
                assert again.state_key() == twin.state_key()
                copies += 1
            _random_step(hand, rng)
    assert copies > 100


def test_copy_keeps_claim_answers_apart():
    """A copy taken while a claim collects answers: answering on the copy leaves the
    original's claim waiting."""
    for seed in range(200):
        hand = Hand.from_seed(seed, Ruleset())
        rng = random.Random(seed)
        while not hand.ended and len(hand.pending_seats()) < 2:
            _random_step(hand, rng)
        if hand.ended:
            continue
        waiting = hand.pending_seats()
        twin = hand.copy()
        twin.act(waiting[0], twin.legal_actions(waiting[0])[0])
        assert hand.pending_seats() == waiting
        assert twin.pending_seats() != waiting
        return
    raise AssertionError("no claim with two deciding seats found")


# ---- Hand.resume ------------------------------------------------------------------


def test_resumed_hand_checks_its_cards_and_has_no_deal():
    hand = Hand.from_seed(3, Ruleset())
    obs = observe(hand, hand.pending_seats()[0])
    sample = resample_hand(obs, random.Random(0))
    with pytest.raises(PositionError, match="resumed"):
        _ = sample.deal
    seats = [st.copy() for st in sample.seats]
    with pytest.raises(CardCountError, match="79 cards"):
        Hand.resume(Ruleset(), dealer=0, liangzhang=ALL_CARDS[0], seats=seats,
                    wall=sample.wall[1:], turn=0, dealer_discards=1)
    with pytest.raises(PositionError, match="liangzhang"):
        Hand.resume(Ruleset(), dealer=0, liangzhang=ALL_CARDS[0], seats=seats,
                    wall=sample.wall, turn=0, shown=(ALL_CARDS[0], 0, "liangzhang"),
                    dealer_discards=1)
    with pytest.raises(CardCountError, match="0 to 4"):
        SeatState.restore([5] + [0] * (KINDS - 1))


def test_restore_keeps_the_running_totals():
    melds = [Group.identical(GroupKind.WEI, 3), Group.identical(GroupKind.TI, 15)]
    st = SeatState.restore([1] * 10 + [0] * 10, melds, chou=[2])
    assert st.owned == 17 and st.pao_ti == 1 and st.chou == {2}
    assert st.table_huxi == sum(m.huxi for m in melds)
    assert st.meld_of(3, (GroupKind.WEI,)) == 0


# ---- resampling -------------------------------------------------------------------


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_real_hands_satisfy_the_consistency_rules(preset):
    """The rules the checker states hold in every real hand (so they are not too strict)."""
    rules = Ruleset.preset(preset)
    pairs = _observations(rules, 150, seed=len(preset), every=1)
    assert len(pairs) > 2500
    for hand, obs in pairs:
        assert inconsistencies(obs, hand) == []


def _uniform_world(obs: Observation, rng: random.Random) -> Hand | None:
    """The hidden cards dealt uniformly, counting cards only (the sampler search used
    before): a baseline the checker must catch."""
    assert obs.seat is not None
    unseen = obs.unseen_counts()
    melds = []
    for seat in range(obs.players):
        row = []
        for m in obs.melds[seat]:
            if m is None:
                card = rng.choice([c for c in range(KINDS) if unseen[c] >= 3])
                unseen[card] -= 3
                m = Group.identical(GroupKind.WEI, card)
            row.append(m)
        melds.append(row)
    pool = [c for c in range(KINDS) for _ in range(unseen[c])]
    rng.shuffle(pool)
    seats = []
    for seat in range(obs.players):
        counts = list(obs.hand)
        if seat != obs.seat:
            counts = [0] * KINDS
            for c in pool[: obs.hand_sizes[seat]]:
                counts[c] += 1
            del pool[: obs.hand_sizes[seat]]
            if max(counts) >= 4:
                return None
        mine = seat == obs.seat
        seats.append(SeatState.restore(
            counts, melds[seat], pile=obs.piles[seat],
            chou=obs.chou if mine else [int(c) for c in obs.discards(seat)],
            declined_peng=obs.declined_peng if mine else (), chouhu=obs.chouhu if mine else (),
            xianggong=obs.xianggong[seat]))
    cards = [ALL_CARDS[c] for c in pool]
    return Hand.resume(obs.rules, dealer=obs.dealer, liangzhang=obs.liangzhang, seats=seats,
                       wall=cards[: obs.wall], set_aside=cards[obs.wall:],
                       turn=obs.seat if obs.claim is None else obs.claim[1], shown=obs.claim,
                       dealer_discards=len(obs.discards(obs.dealer)))


def test_no_sample_is_impossible_and_the_uniform_baseline_is_caught():
    pairs = [p for preset in sorted(PRESETS)
             for p in _observations(Ruleset.preset(preset), 20, seed=77)]
    assert len(pairs) > 300
    samples = baseline = caught = 0
    for k, (_, obs) in enumerate(pairs):
        for j in range(4):
            sample = resample_hand(obs, random.Random(k * 10 + j))
            assert inconsistencies(obs, sample) == [], obs
            samples += 1
            naive = _uniform_world(obs, random.Random(k * 10 + j))
            if naive is not None:
                baseline += 1
                caught += not is_consistent(obs, naive)
    assert samples == 4 * len(pairs)
    assert caught > 0.01 * baseline  # the checker does catch impossible worlds


def test_same_seed_same_sample_and_seeds_differ():
    pairs = _observations(Ruleset(), 6, seed=5)
    differ = 0
    for k, (_, obs) in enumerate(pairs):
        a = resample_hand(obs, random.Random(k)).state_key()
        assert resample_hand(obs, random.Random(k)).state_key() == a
        differ += resample_hand(obs, random.Random(k + 1)).state_key() != a
    assert differ > len(pairs) // 2


def test_sampled_opponents_remember_their_discards_and_passed_peng():
    for _, obs in _observations(Ruleset(), 10, seed=9):
        sample = resample_hand(obs, random.Random(1))
        assert obs.seat is not None
        for seat, st in enumerate(sample.seats):
            if seat == obs.seat:
                assert st.chou == set(obs.chou)
                continue
            assert {int(c) for c in obs.discards(seat)} <= st.chou
            assert st.declined_peng <= st.chou
            assert all(st.hand[c] == 2 for c in st.declined_peng)


def test_unresumable_observations_are_refused():
    hand = Hand.from_seed(3, Ruleset())
    seat = hand.pending_seats()[0]
    with pytest.raises(PositionError, match="no events"):
        resample_hand(observe(hand, seat, events=False), random.Random(0))
    with pytest.raises(PositionError, match="spectator"):
        resample_hand(observe(hand, None), random.Random(0))
    idle = next(s for s in range(hand.players) if s not in hand.pending_seats())
    with pytest.raises(PositionError, match="discard or to decide"):
        resample_hand(observe(hand, idle), random.Random(0))


def test_resume_names_a_missing_seat():
    sample = resample_hand(observe(Hand.from_seed(3, Ruleset()), 0), random.Random(0))
    with pytest.raises(PositionError, match="turn: there is no seat 5"):
        Hand.resume(Ruleset(), dealer=0, liangzhang=ALL_CARDS[0], seats=sample.seats,
                    wall=sample.wall, turn=5, dealer_discards=0)
    with pytest.raises(PositionError, match="2 seats"):
        Hand.resume(Ruleset(), dealer=0, liangzhang=ALL_CARDS[0], seats=sample.seats[:2],
                    wall=sample.wall, turn=0, dealer_discards=0)
