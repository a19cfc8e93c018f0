"""experiments/clabber_ceiling.py: a clairvoyant partnership's best expected lead in a Clabber hand against random."""

import numpy as np
import pytest

from cardenvs.games.clabber.cards import HAND_POINTS
from cardenvs.games.clabber.rules import NAME_SUIT, PASS, PHASE_BID_SECOND, PHASE_PLAY, team_of
from experiments import clabber_ceiling
from experiments.clabber_ceiling import Search


def _brute_force(search: Search, states: np.recarray, team: int, hands_dealt: int, hands_played: int,
                 choosing: bool = True) -> float:
    """The same expectation, without a memo: every order of play searched on copies of the record (with
    ``choosing=False``, ``team`` plays at random too). A scored hand ends the single-hand game, whose reward to
    a seat is its team's lead / 162; a throw-in deals again and counts 0."""
    record = states[0]
    if record.terminated:
        # seat ``team`` is in team ``team``; a float32 reward holds a whole number of points to within rounding
        return float(round(float(record.rewards[team]) * HAND_POINTS))
    if record.hands_dealt != hands_dealt:
        return 0.0
    mask = np.zeros(search.masks.shape[1], np.int8)
    search.game.legal_mask(record, mask)
    values = []
    for action in np.flatnonzero(mask):
        child = states.copy()
        search.game.step(child[0], int(action))
        values.append(_brute_force(search, child, team, hands_dealt, hands_played, choosing))
    if choosing and team_of(record.current_player) == team:
        return max(values)
    return float(np.mean(values))


def _play_randomly_to(search: Search, seed: int, tricks_done: int, trick_size: int) -> None:
    """Deal, then pick random legal actions until at least ``tricks_done`` tricks and ``trick_size`` cards of the
    next are played (forced cards are played for the seat, so the exact count may be passed by)."""
    rng = np.random.default_rng(seed)
    search.deal(seed)
    root = search.root
    while not (root.phase == PHASE_PLAY and (root.tricks_done, root.trick_size) >= (tricks_done, trick_size)):
        assert not root.terminated, "the hand ended before the position was reached; pick another seed"
        search.game.legal_mask(root, search.masks[0])
        search.game.step(root, int(rng.choice(np.flatnonzero(search.masks[0]))))


@pytest.fixture(scope="module")
def search() -> Search:
    return Search()


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("team", [0, 1])
@pytest.mark.parametrize("trick_size", [0, 2])
def test_the_memoised_search_equals_a_search_of_every_order_of_play(search, seed, team, trick_size):
    """From two tricks into a hand, the search with its trick-boundary memo finds the same expectation as one
    that searches every order of the remaining four tricks, for either partnership: the memo merges only
    positions that are the same."""
    _play_randomly_to(search, seed, tricks_done=2, trick_size=trick_size)
    root = search.root
    expected = _brute_force(search, search.stack[:1].copy(), team, root.hands_dealt, root.hands_played)
    assert search.expected_lead(team) == pytest.approx(expected, abs=1e-9)


def test_the_search_leaves_the_position_as_it_was(search):
    _play_randomly_to(search, 7, tricks_done=3, trick_size=1)
    before = search.raw[0].copy()
    search.expected_lead()
    np.testing.assert_array_equal(search.raw[0], before)


@pytest.mark.parametrize("team", [0, 1])
def test_choosing_does_better_than_random_play_on_some_position(search, team):
    """The search's choices are worth something: never less than playing at random, and more on some position."""
    gains = []
    for seed in range(4):
        _play_randomly_to(search, seed, tricks_done=2, trick_size=0)
        root = search.root
        at_random = _brute_force(search, search.stack[:1].copy(), team, root.hands_dealt, root.hands_played,
                                 choosing=False)
        gains.append(search.expected_lead(team) - at_random)
    assert min(gains) >= -1e-9
    assert max(gains) > 0


def _pass_to_the_last_bid(search: Search, dealer_team: int) -> None:
    """The first deal (by seed) whose dealer is in ``dealer_team`` and may name a suit, every other seat having
    passed twice: the dealer's choice is the hand's last bid."""
    for seed in range(100):
        search.deal(seed)
        root = search.root
        if team_of(root.dealer) != dealer_team:
            continue
        while root.phase != PHASE_PLAY and not (root.phase == PHASE_BID_SECOND and root.current_player == root.dealer):
            search.game.step(root, PASS)
        if root.phase == PHASE_BID_SECOND and root.hands_dealt == 1:
            return
    raise AssertionError("no such deal among the first 100 seeds")


@pytest.mark.parametrize("dealer_team", [0, pytest.param(1, marks=pytest.mark.slow)])  # the other team with --runslow
def test_the_last_bid_weighs_a_throw_in_as_nothing(search, dealer_team):
    """At the dealer's last bid, passing throws the hand in for no score: the partnership's expectation is the
    best of 0 and each suit it may name when the dealer is its own, their average when the dealer is random."""
    _pass_to_the_last_bid(search, dealer_team)
    position = search.raw[0].copy()
    search.game.legal_mask(search.root, search.masks[0])
    named = [int(action) for action in np.flatnonzero(search.masks[0]) if action >= NAME_SUIT]
    assert named and search.masks[0][PASS]
    leads = [0.0]  # the pass
    for action in named:
        search.raw[0] = position
        search.game.step(search.root, action)
        leads.append(search.expected_lead())
    search.raw[0] = position
    expected = max(leads) if dealer_team == 0 else float(np.mean(leads))
    assert search.expected_lead() == pytest.approx(expected, abs=1e-9)


def test_main_prints_the_mean_lead_and_rejects_bad_arguments(capsys):
    assert clabber_ceiling.main(["--deals", "1", "--seed", "1", "--no-progress-bar"]) == 0
    line = capsys.readouterr().out.strip()
    assert line.startswith("clairvoyant partnership against random, 1 deals: best expected lead +")
    assert line.endswith("+- inf points a deal (a throw-in counting 0)")
    assert clabber_ceiling.main(["--deals", "0"]) == 2
    assert "deals must be 1 or more" in capsys.readouterr().err
