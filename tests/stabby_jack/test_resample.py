"""Stabby Jack's hidden-card resampler (cardenvs/games/stabby_jack/resample.py) passes the four checks of
tests/resample_harness.py over positions of random and rule-based games, at every seat.

The draw pile's order is the only hidden thing, so "really resampled" compares the kinds that come to the top and
the bottom of the pile with their exact probabilities (copies of a kind over the pile's size)."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from tests import resample_harness as harness

ENV_ID = "stabby_jack_v0"
GAME = cardenvs.get_game(ENV_ID)
PARAMS = [{**params, "max_turns": 40} for params in GAME.example_params]


def _positions(params: dict, seeds: range) -> list[tuple]:
    return [position for rule_based in (False, True)
            for position in harness.play_positions(ENV_ID, params, seeds, rule_based)]


def _ends(record: np.record) -> tuple[int, int]:
    """The kinds at the top and the bottom of the draw pile (-1 for an empty one)."""
    size = int(record.deck_size)
    return (int(record.deck[size - 1]), int(record.deck[0])) if size else (-1, -1)


def _check_really_resampled(params: dict, seeds: range, every: int, seed: int) -> None:
    for record, _, _ in _positions(params, seeds)[::every]:
        pile = record.deck[: record.deck_size].astype(np.int64)
        if pile.size < 2:
            continue
        kinds, copies = np.unique(pile, return_counts=True)
        probabilities = {int(kind): int(count) / pile.size for kind, count in zip(kinds, copies, strict=True)}
        seat = int(record.current_player)
        harness.check_distribution(lambda rng, r=record, s=seat: _ends(GAME.resample(r, s, rng))[0], probabilities,
                                   seed)
        harness.check_distribution(lambda rng, r=record, s=seat: _ends(GAME.resample(r, s, rng))[1], probabilities,
                                   seed + 1)
        resampled = GAME.resample(record, seat, np.random.default_rng(seed))
        assert (resampled.deck_counts == record.deck_counts).all()


def _check_reads_nothing_hidden(params: dict, seeds: range, pairs: int, draws: int) -> None:
    """A record and its twin with the draw pile in another order (an order no seat has seen, so their observation
    histories are the same) give the same distribution of pile ends."""
    rng = np.random.default_rng(8)
    positions = _positions(params, seeds)
    for index in rng.choice(len(positions), pairs, replace=False):
        record = positions[index][0]
        twin = harness.record_copy(record)
        twin.deck[: twin.deck_size] = rng.permutation(np.asarray(record.deck[: record.deck_size]))
        seat = int(rng.integers(int(record.num_players)))
        made = GAME.make_params(**params)
        for other in range(int(record.num_players)):
            views = harness.observed(GAME, made, record, other), harness.observed(GAME, made, twin, other)
            assert all(np.array_equal(a, b) for a, b in zip(*views, strict=True))
        harness.check_same_distribution(lambda draw, r=record, s=seat: _ends(GAME.resample(r, s, draw)),
                                        lambda draw, r=twin, s=seat: _ends(GAME.resample(r, s, draw)), draws,
                                        int(index))
        harness.check_reads_nothing_hidden_exactly(GAME, record, twin, seat, seeds=range(3))


@pytest.mark.parametrize("params", PARAMS)
def test_same_observation(params):
    harness.check_same_observation(ENV_ID, params, _positions(params, range(2))[::4], draws=2, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_same_observation_long(params):
    harness.check_same_observation(ENV_ID, params, _positions(params, range(10, 40)), draws=3, seed=2)


def test_really_resampled():
    _check_really_resampled(PARAMS[0], range(1), every=25, seed=3)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_really_resampled_long(params):
    _check_really_resampled(params, range(20, 25), every=5, seed=4)


def test_reads_nothing_hidden():
    _check_reads_nothing_hidden(PARAMS[0], range(2), pairs=2, draws=400)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_reads_nothing_hidden_long(params):
    _check_reads_nothing_hidden(params, range(30, 35), pairs=10, draws=1500)


@pytest.mark.parametrize("params", PARAMS)
def test_consistent(params):
    harness.check_consistent(ENV_ID, params, _positions(params, range(1))[::6], seed=6)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_consistent_long(params):
    harness.check_consistent(ENV_ID, params, _positions(params, range(60, 70)), seed=7)
