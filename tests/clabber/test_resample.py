"""Clabber's hidden-card resampler (cardenvs/games/clabber/resample.py) passes the checks of
tests/resample_harness.py over positions of random and rule-based single hands, at every seat: the same
observation, every consistent deal drawn uniformly (against a brute-force enumeration that replays the whole hand
through the engine, so what earlier tricks showed counts), byte-identical results for records the seat cannot tell
apart (twins played from chosen deals), and records that restore and play on."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import cardenvs
from cardenvs.games.clabber import rules
from cardenvs.games.clabber.cards import NUM_CARDS
from cardenvs.games.clabber.deal import deal_order
from cardenvs.games.clabber.melds import best_melds
from cardenvs.games.clabber.params import NUM_PLAYERS
from cardenvs.games.clabber.resample import known_cards
from tests import resample_harness as harness
from tests.clabber.table import Table

ENV_ID = "clabber_v0"
GAME = cardenvs.get_game(ENV_ID)
PARAMS = [{**params, "single_hand": True} for params in GAME.example_params[1:]]
SMALL_FROM_TRICK = 4  # from this trick on the unseen cards are few enough to enumerate every deal
TWIN_SEEDS = range(4)  # generator seeds each twin pair is resampled with
PAIRS_TRIED = 40  # swaps of two unseen cards tried per position and seat when looking for twins


def _positions(params: dict, seeds: range) -> list[tuple]:
    return [position for rule_based in (False, True)
            for position in harness.play_positions(ENV_ID, params, seeds, rule_based)]


def _dealt_key(record: np.record) -> tuple[int, ...]:
    return tuple(int(cards) for cards in record.dealt)


def _bits(cards: int) -> list[int]:
    return [card for card in range(NUM_CARDS) if cards >> card & 1]


def _start(params: dict, seed: int) -> tuple[int, list[int]]:
    """The dealer and deal order of the first hand of the game ``seed`` starts."""
    env = cardenvs.env(ENV_ID, **params)
    env.reset(seed=seed)
    record = env.unwrapped.state_record
    return int(record.dealer), [int(card) for card in record.deck]


def _events(params: dict, seed: int, actions: list[int]) -> list[int]:
    """Every move of the hand under way after the game ``seed`` started was played with ``actions``: the agents'
    and those the rules made for them (rule:forced_moves), in order, as ``rules.step`` makes them."""
    env = cardenvs.env(ENV_ID, **params)
    env.reset(seed=seed)
    state = harness.record_copy(env.unwrapped.state_record)
    events: list[int] = []
    for action in actions:
        while action >= 0:
            deals = int(state.hands_dealt)
            rules._apply(state, action)
            events = [] if int(state.hands_dealt) != deals else [*events, action]
            action = -1 if state.phase == rules.PHASE_OVER else int(rules._forced_action(state))
    return events


def _replay(params: dict, dealer: int, hands: list[int], turn_up: int, events: list[int]) -> np.record | None:
    """The hand dealt ``hands`` (card masks per seat) played with ``events`` through the engine, or None if a move
    is illegal there. A declaring phase is public (the table shows the seat deciding), so a deal in which a seat
    decides where the true game had it play, or plays where it decided, does not replay."""
    table = Table(**params)
    GAME.apply_deal(table.state, table.params, {"dealer": dealer, "hands": [_bits(h) for h in hands],
                                                "turn_up": turn_up})
    state, mask = table.state, table.mask
    for event in events:
        rules.legal_mask(state, mask)
        if not mask[event]:
            return None
        rules._apply(state, event)
    return state


def _consistent_deals(record: np.record, seat: int, params: dict, events: list[int]) -> list[tuple[int, ...]]:
    """Every deal of the unseen cards that shows ``seat`` the same, by brute force through the engine: each
    assignment of them to the other seats (as many as each had) from which the whole hand so far replays legally,
    move by move, and ends in the same observation and legal mask for ``seat`` with a real choice for the seat to
    act."""
    made = GAME.make_params(**params)
    known = known_cards(record, seat)
    pool = [card for card in range(NUM_CARDS) if not any(cards >> card & 1 for cards in known)]
    others = [other for other in range(NUM_PLAYERS) if other != seat]
    counts = [int(record.dealt[other]).bit_count() - known[other].bit_count() for other in others]
    want = harness.observed(GAME, made, record, seat)
    deals = []
    for first in itertools.combinations(pool, counts[0]):
        rest = [card for card in pool if card not in first]
        for second in itertools.combinations(rest, counts[1]):
            third = [card for card in rest if card not in second]
            hands = list(known)
            for other, cards in zip(others, (first, second, third), strict=True):
                hands[other] |= sum(1 << card for card in cards)
            end = _replay(params, int(record.dealer), hands, int(record.turn_up), events)
            if end is None:
                continue
            got = harness.observed(GAME, made, end, seat)
            if not (np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])):
                continue
            try:
                GAME.check_invariants(end, made)
            except AssertionError:
                continue
            deals.append(tuple(hands))
    return sorted(deals)


def _excluded_bites(record: np.record, seat: int) -> bool:
    """Whether another seat's excluded cards take in unseen ones (earlier tricks narrow the deal)."""
    known = known_cards(record, seat)
    unseen = ((1 << NUM_CARDS) - 1) & ~np.bitwise_or.reduce(known)
    return any(int(record.excluded[other]) & unseen for other in range(NUM_PLAYERS) if other != seat)


def _check_uniform(params: dict, seeds: range, seed: int) -> tuple[int, int]:
    """Checked (position, seat) pairs, and how many of them had unseen cards some seat was excluded from."""
    checked = bites = 0
    for record, actions, game_seed in _positions(params, seeds):
        if int(record.tricks_done) < SMALL_FROM_TRICK:
            continue
        events = _events(params, game_seed, actions)
        for seat in range(NUM_PLAYERS):
            deals = _consistent_deals(record, seat, params, events)
            assert _dealt_key(record) in deals, "the true deal is not among the consistent ones"
            harness.check_uniform_over(
                lambda rng, record=record, seat=seat: _dealt_key(GAME.resample(record, seat, rng)), deals, seed)
            checked += 1
            bites += _excluded_bites(record, seat)
    return checked, bites


def _twins(params: dict, deal: dict, actions: list[int], seat: int, most: int) -> list[np.record]:
    """Records ``seat`` cannot tell from the one ``actions`` reach from ``deal``: the same actions played from the
    deal with two cards it has not seen swapped between two other seats, every action legal and every
    observation of ``seat`` (and the seat to act) the same at every step. At most ``most`` of them."""
    first = cardenvs.env(ENV_ID, **params)
    first.reset(seed=0, options={"deal": deal})
    for action in actions:
        first.step(action)
    record = first.unwrapped.state_record
    known = known_cards(record, seat)
    deck = [int(card) for card in deal["deck"]]
    holder = {card: next(s for s in range(NUM_PLAYERS) if int(record.dealt[s]) >> card & 1) for card in deck}
    hidden = [i for i, card in enumerate(deck) if not any(cards >> card & 1 for cards in known)]
    pairs = [(i, j) for i, j in itertools.combinations(hidden, 2) if holder[deck[i]] != holder[deck[j]]]
    twins = []
    for i, j in pairs[:PAIRS_TRIED]:
        swapped = list(deck)
        swapped[i], swapped[j] = swapped[j], swapped[i]
        twin = _replayed_twin(params, deal, {**deal, "deck": swapped}, actions, seat)
        if twin is not None:
            twins.append(twin)
        if len(twins) == most:
            break
    return twins


def _replayed_twin(params: dict, deal: dict, other_deal: dict, actions: list[int], seat: int) -> np.record | None:
    first, twin = cardenvs.env(ENV_ID, **params), cardenvs.env(ENV_ID, **params)
    first.reset(seed=0, options={"deal": deal})
    twin.reset(seed=0, options={"deal": other_deal})
    for action in actions:
        if not harness.same_view(first, twin, seat) or not twin.unwrapped._mask[action]:
            return None
        first.step(action)
        twin.step(action)
    if not harness.same_view(first, twin, seat):
        return None
    return harness.record_copy(twin.unwrapped.state_record)



def _chosen_deals(params: dict, seeds: range) -> list[tuple[dict, dict]]:
    """(parameters, deal): the game's example deals, and the first deals of the games ``seeds`` start, as chosen
    deals in deal order."""
    chosen = []
    for overrides, example in GAME.example_deals:
        dealer, deck = deal_order(example)
        chosen.append(({**params, **overrides}, {"dealer": dealer, "deck": deck}))
    for seed in seeds:
        dealer, deck = _start(params, seed)
        chosen.append((params, {"dealer": dealer, "deck": deck}))
    return chosen


def _check_twins(params: dict, seeds: range, stride: int, most: int) -> tuple[int, int]:
    """Twin pairs checked exactly (``check_reads_nothing_hidden_exactly``) over games played by random legal
    actions from chosen deals, and how many of them had unseen cards some seat was excluded from."""
    checked = bites = 0
    for index, (made, deal) in enumerate(_chosen_deals(params, seeds)):
        env = cardenvs.env(ENV_ID, **made)
        env.reset(seed=0, options={"deal": deal})
        rng = np.random.default_rng(index)
        actions: list[int] = []
        while True:
            observation, _, terminated, truncated, _ = env.last()
            state = env.unwrapped.state_record
            if terminated or truncated or int(state.hands_played) > 0 or int(state.hands_dealt) > 1:
                break  # twins differ in the first deal only
            if len(actions) % stride == 0:
                record = harness.record_copy(env.unwrapped.state_record)
                for seat in range(NUM_PLAYERS):
                    for twin in _twins(made, deal, actions, seat, most):
                        assert twin.tobytes() != record.tobytes()
                        assert np.array_equal(twin.excluded, record.excluded)  # public: the same plays showed it
                        harness.check_reads_nothing_hidden_exactly(GAME, record, twin, seat, TWIN_SEEDS)
                        checked += 1
                        bites += _excluded_bites(record, seat)
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            env.step(action)
            actions.append(action)
    return checked, bites


def _check_honours_exclusions(params: dict, seeds: range, draws: int) -> int:
    """No resampled deal gives a seat a card it showed it does not hold; returns the draws where that narrowed
    the deal."""
    rng = np.random.default_rng(9)
    narrowed = 0
    for record, _, _ in _positions(params, seeds):
        for seat in range(NUM_PLAYERS):
            bites = _excluded_bites(record, seat)
            for _ in range(draws):
                resampled = GAME.resample(record, seat, rng)
                for other in range(NUM_PLAYERS):
                    assert int(resampled.dealt[other]) & int(record.excluded[other]) == 0
                assert np.array_equal(resampled.excluded, record.excluded)
                narrowed += bites
    return narrowed


@pytest.mark.parametrize("params", PARAMS)
def test_same_observation(params):
    harness.check_same_observation(ENV_ID, params, _positions(params, range(2)), draws=2, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_same_observation_long(params):
    harness.check_same_observation(ENV_ID, params, _positions(params, range(10, 60)), draws=5, seed=2)


def test_really_resampled():
    checked, bites = _check_uniform(PARAMS[0], range(2), seed=3)
    assert checked > 0 and bites > 0, (checked, bites)


def _declined(params: dict, seeds: range) -> int:
    """How many positions of ``seeds``'s hands (late enough to enumerate) have a seat that chose SKIP."""
    return sum(int(record.tricks_done) >= SMALL_FROM_TRICK and bool(record.meld_declined.any())
               for record, _, _ in _positions(params, seeds))


def test_really_resampled_optional_declare():
    """With optional_declare the brute force replays every SKIP and DECLARE (the declaring phase is public): the
    resampler draws uniformly among the deals in which exactly the seats seen deciding held melds."""
    params = PARAMS[-1]
    assert params["optional_declare"] and _declined(params, range(2)) > 0
    checked, _ = _check_uniform(params, range(2), seed=5)
    assert checked > 0


DECLINING = {0: "AH KH QH 9D 10D 9C", 1: "JH 10H 9H AD KD QD", 2: "AS QS 10S AC QC 10C", 3: "KS JS 9S KC JC JD"}


def test_a_skip_shows_melds_and_no_decision_shows_none():
    """Seat 0 holds a sequence and chooses SKIP in front of the table; seat 1 holds a sequence and declares it; seat
    2 and seat 3 hold none and are never asked. Every deal the resampler draws for seat 2 gives seat 0 melds and
    seat 3 none."""
    table = Table(single_hand=True, optional_declare=True).deal(3, DECLINING, turn_up="JD").accept()
    assert table.state.phase == rules.PHASE_DECLARE and table.state.current_player == 0
    table.act(rules.SKIP, "AH")
    assert table.state.phase == rules.PHASE_DECLARE and table.state.current_player == 1
    table.act(rules.DECLARE)
    assert table.state.phase == rules.PHASE_PLAY and table.state.current_player == 1
    while int(table.state.tricks_done) == 0:  # seats 2 and 3 play without deciding: no melds
        assert table.state.phase == rules.PHASE_PLAY
        table.act(table.legal()[0])
    state = table.state
    assert list(state.meld_declined) == [1, 0, 0, 0]
    assert int(state.meld_status[3]) == rules.MELD_SKIPPED and not state.meld_declined[3]
    rng = np.random.default_rng(0)
    for _ in range(300):
        resampled = GAME.resample(state, 2, rng)
        points = [best_melds(np.int64(resampled.dealt[seat]), int(state.trump), int(state.seq_tiebreak))[1]
                  for seat in range(NUM_PLAYERS)]
        assert points[0] > 0 and points[3] == 0, points
        assert np.array_equal(resampled.meld_declined, state.meld_declined)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_really_resampled_long(params):
    checked, bites = _check_uniform(params, range(20, 30), seed=4)
    assert checked > 0 and bites > 0, (checked, bites)


@pytest.mark.parametrize("params", PARAMS)
def test_no_seat_gets_a_card_it_showed_it_lacks(params):
    assert _check_honours_exclusions(params, range(2), draws=5) > 0


def test_reads_nothing_hidden_exactly():
    checked, bites = _check_twins(PARAMS[0], range(2), stride=3, most=1)
    assert checked > 0 and bites > 0, (checked, bites)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_reads_nothing_hidden_exactly_long(params):
    checked, bites = _check_twins(params, range(10, 15), stride=2, most=2)
    assert checked > 0 and bites > 0, (checked, bites)


@pytest.mark.parametrize("params", PARAMS)
def test_consistent(params):
    harness.check_consistent(ENV_ID, params, _positions(params, range(2))[::3], seed=6)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_consistent_long(params):
    harness.check_consistent(ENV_ID, params, _positions(params, range(60, 90)), seed=7)
