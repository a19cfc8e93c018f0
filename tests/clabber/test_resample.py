"""Clabber's hidden-card resampler (cardenvs/games/clabber/resample.py) passes the four checks of
tests/resample_harness.py over positions of random and rule-based single hands, at every seat."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import cardenvs
from cardenvs.games.clabber import rules
from cardenvs.games.clabber.cards import KING, NUM_CARDS, NUM_RANKS, QUEEN
from cardenvs.games.clabber.params import NUM_PLAYERS
from cardenvs.games.clabber.resample import known_cards
from tests import resample_harness as harness

ENV_ID = "clabber_v0"
GAME = cardenvs.get_game(ENV_ID)
PARAMS = [{**params, "single_hand": True} for params in GAME.example_params[1:]]
SMALL_FROM_TRICK = 4  # from this trick on the unseen cards are few enough to enumerate every deal


def _positions(params: dict, seeds: range) -> list[tuple]:
    return [position for rule_based in (False, True)
            for position in harness.play_positions(ENV_ID, params, seeds, rule_based)]


def _dealt_key(record: np.record) -> tuple[int, ...]:
    return tuple(int(cards) for cards in record.dealt)


def _trick_replays(candidate: np.record, original: np.record) -> bool:
    """The current trick, played again by the rules from its first card on the candidate's hands, is legal at
    every card and ends as the original's."""
    size = int(original.trick_size)
    if size == 0:
        return True
    start = harness.record_copy(candidate)
    for position in range(size):
        player = (int(original.leader) + position) % NUM_PLAYERS
        card = int(original.trick[position])
        start.hand[player] = int(start.hand[player]) | 1 << card
        start.played[player] = int(start.played[player]) & ~(1 << card)
    start.trick[:] = -1
    start.trick_size = 0
    start.current_player = original.leader
    mask = np.zeros(rules.NUM_ACTIONS_WITH_DECLARE, np.int8)
    for position in range(size):
        card = int(original.trick[position])
        rules.legal_mask(start, mask)
        if int(start.current_player) != (int(original.leader) + position) % NUM_PLAYERS or not mask[card]:
            return False
        rules._play_card(start, int(start.current_player), card)  # forced moves too: the trick shows them played
    return _dealt_key(start) == _dealt_key(candidate) and bytes(start.trick.tobytes()) == original.trick.tobytes()


def _consistent_deals(record: np.record, seat: int, params) -> list[tuple[int, ...]]:
    """Every deal of the unseen cards that shows ``seat`` the same, by brute force: each assignment of them to the
    other seats (as many as each had) that gives the same observation and legal mask, keeps the game's
    invariants, replays the current trick, and agrees with the bids and the Bell."""
    known = known_cards(record, seat)
    pool = [card for card in range(NUM_CARDS) if not any(cards >> card & 1 for cards in known)]
    others = [other for other in range(NUM_PLAYERS) if other != seat]
    counts = [int(record.dealt[other]).bit_count() - known[other].bit_count() for other in others]
    want = harness.observed(GAME, params, record, seat)
    deals = set()
    for order in itertools.permutations(pool):
        candidate = harness.record_copy(record)
        start = 0
        for other, count in zip(others, counts, strict=True):
            candidate.dealt[other] = known[other] | sum(1 << card for card in order[start:start + count])
            candidate.hand[other] = int(candidate.dealt[other]) & ~int(record.played[other])
            start += count
        if _dealt_key(candidate) in deals or not _agrees(candidate, record, seat, params, want):
            continue
        deals.add(_dealt_key(candidate))
    return sorted(deals)


def _agrees(candidate: np.record, record: np.record, seat: int, params, want) -> bool:
    trump = int(record.trump)
    bell = (1 << (trump * NUM_RANKS + KING)) | (1 << (trump * NUM_RANKS + QUEEN))
    holders = [other for other in range(NUM_PLAYERS) if int(candidate.dealt[other]) & bell == bell]
    candidate.bell_holder = holders[0] if holders else -1
    if holders and int(candidate.played[holders[0]]) & bell == bell and not candidate.bell_points[holders[0] % 2]:
        return False
    maker = int(record.maker)
    if int(record.bid_second[maker]) == rules.BID_NAME and not int(candidate.dealt[maker]) >> (trump * NUM_RANKS) & (
            (1 << NUM_RANKS) - 1):
        return False
    for other in range(NUM_PLAYERS):  # automatic declaring: a seat whose moment passed undeclared has no melds
        skipped = int(record.meld_status[other]) == rules.MELD_SKIPPED and not record.optional_declare
        if skipped and rules.best_melds(np.int64(candidate.dealt[other]), trump, int(record.seq_tiebreak))[1]:
            return False
    got = harness.observed(GAME, params, candidate, seat)
    if not (np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])):
        return False
    try:
        GAME.check_invariants(candidate, params)
    except AssertionError:
        return False
    return _trick_replays(candidate, record)


def _check_uniform(params: dict, seeds: range, seed: int) -> int:
    made = GAME.make_params(**params)
    checked = 0
    for record, _, _ in _positions(params, seeds):
        if int(record.tricks_done) < SMALL_FROM_TRICK:
            continue
        for seat in range(NUM_PLAYERS):
            deals = _consistent_deals(record, seat, made)
            assert _dealt_key(record) in deals, "the true deal is not among the consistent ones"
            harness.check_uniform_over(
                lambda rng, record=record, seat=seat: _dealt_key(GAME.resample(record, seat, rng)), deals, seed)
            checked += 1
    return checked


def _swapped_twin(record: np.record, actions: list[int], seed: int, params: dict, seat: int, rng) -> np.record | None:
    """A record ``seat`` cannot tell from ``record``: the same hand played from a deal with two of the cards it has
    not seen swapped between two other seats, every action legal and every observation of ``seat`` the same.
    None if the pair tried breaks that."""
    first = cardenvs.env(ENV_ID, **params)
    first.reset(seed=seed)
    deck = [int(card) for card in first.unwrapped.state_record.deck]
    dealer = int(first.unwrapped.state_record.dealer)
    known = known_cards(record, seat)
    hidden = [i for i, card in enumerate(deck) if not any(cards >> card & 1 for cards in known)]
    if len(hidden) < 2:
        return None
    i, j = (int(k) for k in rng.choice(hidden, 2, replace=False))
    deck[i], deck[j] = deck[j], deck[i]
    twin = cardenvs.env(ENV_ID, **params)
    twin.reset(seed=seed, options={"deal": {"dealer": dealer, "deck": deck}})
    for action in actions:
        if not _same_view(first, twin, seat) or not twin.unwrapped._mask[action]:
            return None
        first.step(action)
        twin.step(action)
    if not _same_view(first, twin, seat) or twin.unwrapped.state_record.tobytes() == record.tobytes():
        return None
    return harness.record_copy(twin.unwrapped.state_record)


def _same_view(first, second, seat: int) -> bool:
    agent = first.possible_agents[seat]
    a, b = first.observe(agent), second.observe(agent)
    return (np.array_equal(a["observation"], b["observation"]) and np.array_equal(a["action_mask"], b["action_mask"])
            and first.agent_selection == second.agent_selection)


def _holders(record: np.record) -> tuple[int, ...]:
    return tuple(next(s for s in range(NUM_PLAYERS) if int(record.dealt[s]) >> card & 1) for card in range(NUM_CARDS))


def _check_reads_nothing_hidden(params: dict, seeds: range, pairs: int, draws: int) -> None:
    rng = np.random.default_rng(5)
    found = 0
    positions = _positions(params, seeds)
    for index in rng.permutation(len(positions)):
        record, actions, seed = positions[index]
        seat = int(rng.integers(NUM_PLAYERS))
        twin = _swapped_twin(record, actions, seed, params, seat, rng)
        if twin is None:
            continue
        harness.check_same_distribution(
            lambda draw, record=record, seat=seat: _holders(GAME.resample(record, seat, draw)),
            lambda draw, twin=twin, seat=seat: _holders(GAME.resample(twin, seat, draw)),
            draws, seed=int(index),
        )
        found += 1
        if found == pairs:
            return
    assert found == pairs, f"only {found} indistinguishable pairs found"


@pytest.mark.parametrize("params", PARAMS)
def test_same_observation(params):
    harness.check_same_observation(ENV_ID, params, _positions(params, range(2)), draws=2, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_same_observation_long(params):
    harness.check_same_observation(ENV_ID, params, _positions(params, range(10, 60)), draws=5, seed=2)


def test_really_resampled():
    assert _check_uniform(PARAMS[0], range(2), seed=3) > 0


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_really_resampled_long(params):
    assert _check_uniform(params, range(20, 30), seed=4) > 0


def test_reads_nothing_hidden():
    _check_reads_nothing_hidden(PARAMS[0], range(3), pairs=2, draws=300)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_reads_nothing_hidden_long(params):
    _check_reads_nothing_hidden(params, range(30, 40), pairs=10, draws=1000)


@pytest.mark.parametrize("params", PARAMS)
def test_consistent(params):
    harness.check_consistent(ENV_ID, params, _positions(params, range(2))[::3], seed=6)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_consistent_long(params):
    harness.check_consistent(ENV_ID, params, _positions(params, range(60, 90)), seed=7)
