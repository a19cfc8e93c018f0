"""Slabberjan's hidden-piece resampler (cardenvs/games/slabberjan/resample.py) passes the four checks of
tests/resample_harness.py over positions of random and rule-based games, at every seat.

The checks here are stricter than one observation: a resampled deal, dealt again by the rules (``apply_deal``) and
played through the round's actions so far, shows the seat the same observation after every step of the round and
ends in the resampled record, field for field. On two- and three-player tables every deal of the other seats'
originals is tried the same way (brute force), which gives each consistent deal's exact probability."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

import cardenvs
from cardenvs.games.slabberjan import rules
from cardenvs.games.slabberjan.deal import apply_deal
from cardenvs.games.slabberjan.params import COPIES, NUM_KINDS
from tests import resample_harness as harness

ENV_ID = "slabberjan_v0"
GAME = cardenvs.get_game(ENV_ID)
PARAMS = list(GAME.example_params)
#: tables whose consistent deals are enumerated (at most three seats in: 21 × 21 deals of the other two)
SMALL = [params for params in PARAMS if params["num_players"] <= 3] + [
    {"num_players": 3, "fool_knocks": True, "forced_swap": True},  # knocks and many swaps (Fools against Fools)
]
#: tables above this many seats get fewer positions in the short tests
BIG_TABLE = 7
#: every field but the generator, which resample reseeds
COMPARED = [name for name in GAME.state_dtype(GAME.make_params()).names if name != "rng"]


#: positions already played, by parameters and seeds (several tests read the same games)
_PLAYED: dict[tuple, list[tuple]] = {}


def _positions(params: dict, seeds: range) -> list[tuple]:
    """``(record, round start record, actions of the round so far)`` at every decision of random and rule-based
    games."""
    key = (tuple(sorted(params.items())), seeds.start, seeds.stop)
    if key not in _PLAYED:
        _PLAYED[key] = _play(params, seeds)
    return _PLAYED[key]


def _spread(positions: list[tuple], count: int) -> list[tuple]:
    """About ``count`` positions spread over the list."""
    return positions[:: max(1, len(positions) // count)]


def _play(params: dict, seeds: range) -> list[tuple]:
    found = []
    for rule_based in (False, True):
        positions = harness.play_positions(ENV_ID, params, seeds, rule_based)
        for index, (record, actions, seed) in enumerate(positions):
            start = index
            while (start > 0 and positions[start - 1][2] == seed
                   and positions[start - 1][0].round_number == record.round_number):
                start -= 1
            found.append((record, positions[start][0], actions[len(positions[start][1]):]))
    return found


def _deal_of(record: np.record) -> tuple[list[int], list[int]]:
    """Every seat's original (0 for seats out) and the bag, drawn first first."""
    pieces = [max(int(kind), 0) for kind in record.original]
    return pieces, [int(kind) for kind in record.bag[: record.bag_size][::-1]]


def _view(record: np.record, seat: int, made) -> bytes:
    obs, mask = harness.observed(GAME, made, record, seat)
    return obs.tobytes() + mask.tobytes()


def _replay(start: np.record, pieces: list[int], bag: list[int], actions: list[int], seat: int, made):
    """The round dealt again from ``start`` with the chosen deal and played through ``actions`` by the rules:
    ``seat``'s observation after every step (``None`` if the round ended on the way), and the final record."""
    record = harness.record_copy(start)
    apply_deal(record, made, {"dealer": int(start.dealer), "pieces": pieces, "bag": bag})
    views = [_view(record, seat, made)]
    for action in actions:
        before = int(record.round_number)
        rules.step(record, action)
        if int(record.round_number) != before or record.terminated:
            return None, record
        views.append(_view(record, seat, made))
    return views, record


def _differing(first: np.record, second: np.record) -> list[str]:
    return [name for name in COMPARED if not np.array_equal(first[name], second[name])]


def _check_same_history(params: dict, positions: list[tuple], draws: int, seed: int, seats: int = 6) -> None:
    """A resampled deal played again by the rules shows the seat the same observations all round and ends in the
    resampled record (every hidden field, what the other seats know included, is the rules' own); for up to
    ``seats`` seats in per position."""
    made = GAME.make_params(**params)
    rng = np.random.default_rng(seed)
    for record, start, actions in positions:
        inside = np.flatnonzero(record.in_game)
        for seat in rng.choice(inside, min(seats, inside.size), replace=False).tolist():
            want, replayed = _replay(start, *_deal_of(record), actions, seat, made)
            assert not _differing(replayed, record), "the test's replay does not reach the record"
            for _ in range(draws):
                resampled = GAME.resample(record, seat, rng)
                got, replayed = _replay(start, *_deal_of(resampled), actions, seat, made)
                assert got == want, f"seat {seat}: the resampled deal shows another history"
                assert not _differing(replayed, resampled), f"seat {seat}: {_differing(replayed, resampled)}"


def _consistent_deals(record: np.record, start: np.record, actions: list[int], seat: int, made) -> dict:
    """Every deal of the other seats' originals that shows ``seat`` the round's history, by brute force, with its
    probability under a uniform deal of the 42 pieces (kinds that are left twice count twice)."""
    pieces, bag = _deal_of(record)
    want, _ = _replay(start, pieces, bag, actions, seat, made)
    others = [other for other in range(made.num_players) if other != seat and record.in_game[other]]
    weights = {}
    for kinds in itertools.product(range(NUM_KINDS), repeat=len(others)):
        left = np.full(NUM_KINDS, COPIES)
        left[pieces[seat]] -= 1
        weight = 1
        for kind in kinds:
            weight *= int(left[kind])
            left[kind] -= 1
        if weight == 0:
            continue
        trial = list(pieces)
        for other, kind in zip(others, kinds, strict=True):
            trial[other] = kind
        rest = [kind for kind in range(NUM_KINDS) for _ in range(int(left[kind]))]
        if _replay(start, trial, rest, actions, seat, made)[0] == want:
            weights[kinds] = weight
    total = sum(weights.values())
    return {kinds: weight / total for kinds, weight in weights.items()}


def _bag_top_probabilities(deals: dict, pieces: list[int], seat: int, others: list[int], bag_size: int) -> dict:
    """The exact distribution of the bag's next piece: uniform over what each consistent deal leaves in it."""
    top: Counter = Counter()
    for kinds, probability in deals.items():
        left = Counter({kind: COPIES for kind in range(NUM_KINDS)})
        left[pieces[seat]] -= 1
        left.subtract(kinds)
        for kind, count in left.items():
            if count:
                top[kind] += probability * count / bag_size
    return dict(top)


def _others_key(record: np.record, others: list[int]) -> tuple[int, ...]:
    return tuple(int(record.original[other]) for other in others)


def _check_really_resampled(params: dict, seeds: range, every: int, seed: int) -> int:
    made = GAME.make_params(**params)
    checked = 0
    for record, start, actions in _positions(params, seeds)[::every]:
        for seat in range(made.num_players):
            if not record.in_game[seat]:
                continue
            others = [other for other in range(made.num_players) if other != seat and record.in_game[other]]
            deals = _consistent_deals(record, start, actions, seat, made)
            assert _others_key(record, others) in deals, "the true deal is not among the consistent ones"
            harness.check_distribution(
                lambda rng, r=record, s=seat, o=others: _others_key(GAME.resample(r, s, rng), o), deals, seed)
            tops = _bag_top_probabilities(deals, _deal_of(record)[0], seat, others, int(record.bag_size))
            harness.check_distribution(
                lambda rng, r=record, s=seat: int(GAME.resample(r, s, rng).bag[r.bag_size - 1]), tops, seed + 1)
            checked += 1
    return checked


def _hidden(record: np.record) -> tuple[int, ...]:
    """What resampling may change that the search sees: the originals, the pieces and the bag's next two."""
    size = int(record.bag_size)
    return (*record.original.tolist(), *record.piece.tolist(), *record.bag[max(size - 2, 0): size].tolist())


def _twins(record: np.record, start: np.record, actions: list[int], seat: int, made, rng) -> list[np.record]:
    """Records that give ``seat`` the same history with other hidden pieces, built by the rules from chosen deals:
    the same originals with the bag in another order, and another consistent deal (found by resampling and
    checked by replaying it)."""
    pieces, bag = _deal_of(record)
    want, _ = _replay(start, pieces, bag, actions, seat, made)
    shuffled_bag = [int(kind) for kind in rng.permutation(bag)]
    twins = [_replay(start, pieces, shuffled_bag, actions, seat, made)[1]]
    for _ in range(20):
        other_pieces, other_bag = _deal_of(GAME.resample(record, seat, rng))
        if other_pieces != pieces:
            break
    views, twin = _replay(start, other_pieces, [int(kind) for kind in rng.permutation(other_bag)], actions, seat,
                          made)
    assert views == want, "a resampled deal shows another history"
    twins.append(twin)
    for twin in twins:
        twin.rng = record.rng  # the generator is hidden too; the twin differs only in the pieces
    return twins


def _check_reads_nothing_hidden(params: dict, seeds: range, pairs: int, draws: int, seed: int) -> None:
    made = GAME.make_params(**params)
    rng = np.random.default_rng(seed)
    positions = _positions(params, seeds)
    for index in rng.choice(len(positions), min(pairs, len(positions)), replace=False):
        record, start, actions = positions[index]
        seat = int(rng.choice(np.flatnonzero(record.in_game)))
        for twin in _twins(record, start, actions, seat, made, rng):
            harness.check_reads_nothing_hidden_exactly(GAME, record, twin, seat, range(3))
            harness.check_same_distribution(lambda draw, r=record, s=seat: _hidden(GAME.resample(r, s, draw)),
                                            lambda draw, r=twin, s=seat: _hidden(GAME.resample(r, s, draw)),
                                            draws, int(index))


@pytest.mark.parametrize("params", [pytest.param(params, marks=() if index == 0 else pytest.mark.slow)
                                    for index, params in enumerate(PARAMS)])
def test_same_observation(params):
    positions = _positions(params, range(1))
    harness.check_same_observation(ENV_ID, params, _spread(positions, 40), draws=2, seed=1)
    _check_same_history(params, _spread(positions, 15), draws=2, seed=2)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_same_observation_long(params):
    positions = _positions(params, range(10, 40))
    harness.check_same_observation(ENV_ID, params, positions, draws=3, seed=3)
    _check_same_history(params, positions[::3], draws=3, seed=4)


def test_really_resampled():
    assert _check_really_resampled(SMALL[1], range(1), every=3, seed=5) > 0


@pytest.mark.slow
@pytest.mark.parametrize("params", SMALL)
def test_really_resampled_long(params):
    assert _check_really_resampled(params, range(20, 26), every=1, seed=6) > 0


def test_reads_nothing_hidden():
    _check_reads_nothing_hidden(PARAMS[2], range(2), pairs=3, draws=300, seed=7)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_reads_nothing_hidden_long(params):
    _check_reads_nothing_hidden(params, range(30, 35), pairs=10, draws=1500, seed=8)


@pytest.mark.parametrize("params", PARAMS)
def test_consistent(params):
    count = 25 if params["num_players"] <= BIG_TABLE else 4  # a 42-seat game played to its end takes a while
    harness.check_consistent(ENV_ID, params, _spread(_positions(params, range(1)), count), seed=9)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_consistent_long(params):
    harness.check_consistent(ENV_ID, params, _positions(params, range(60, 70)),
                             seed=10)


def test_finished_game_keeps_its_pieces():
    """After the last showdown nothing is hidden that can still matter: the pieces stay, the bag keeps its
    contents in a new order, and the generator is reseeded."""
    env = cardenvs.env(ENV_ID, num_players=3, start_chips=1)
    env.reset(seed=11)
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(np.flatnonzero(observation["action_mask"])[0]))
    record = harness.record_copy(env.unwrapped.state_record)
    assert record.terminated
    resampled = GAME.resample(record, 0, np.random.default_rng(12))
    assert _differing(resampled, record) in ([], ["bag"])
    size = int(record.bag_size)
    assert sorted(resampled.bag[:size].tolist()) == sorted(record.bag[:size].tolist())
    assert resampled.rng != record.rng
