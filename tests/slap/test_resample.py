"""Slap's hidden-card resampler (cardenvs/games/slap/resample.py) passes the four checks of
tests/resample_harness.py over positions of random and rule-based games, at every seat.

The consistent deals are enumerated independently of the record's ``seen`` marks: the cards no observation of the
seat has shown so far are permuted among their places in the dealt pack, each such pack is played again with the
same actions, and the deals that show the seat the same observations at every step are the consistent ones
(every card played opens a slap window, so with ``windows="every_card"`` the observations show every card played).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest

import cardenvs
from cardenvs.core.game import NO_PLAYER
from cardenvs.games.slap.cards import MAX_CARDS, card_id
from cardenvs.games.slap.observation import CARD_SLOTS, NONE_SLOT
from cardenvs.games.slap.rules import PHASE_WINDOW, TIEBREAK_REACTION_NOISE, pile_cards, stack_cards
from tests import resample_harness as harness

ENV_ID = "slap_v0"
GAME = cardenvs.get_game(ENV_ID)
PARAMS = list(GAME.example_params)
#: parameters whose every played card opens a window (the observations show every card played)
EVERY_CARD_PARAMS = [params for params in PARAMS if params.get("windows", "every_card") == "every_card"]
DROPPED_PARAMS = {"num_players": 3, "drop_remainder": True}  # one card of the pack stays out of the game
DROPPED_TWO_PARAMS = {"num_players": 5, "drop_remainder": True}  # two cards do
PILE_PLACE = 1_000  # place codes: a stack's card is seat * MAX_CARDS + depth, the pile's PILE_PLACE + depth
OUT_PLACE = -1  # a card out of the game
FEW_UNSEEN = 4  # the default test enumerates positions with at most this many unseen cards (4! deals)
FEW_UNSEEN_LONG = 5


def _positions(params: dict, seeds: range, count: int | None = None) -> list[tuple]:
    """The positions of random and rule-based games from ``seeds`` (``count`` of them if given, half from each
    kind of play, evenly spread)."""
    positions = []
    for rule_based in (False, True):
        found = _all_positions(tuple(sorted(params.items())), seeds, rule_based)
        share = None if count is None else count // 2
        positions += found if share is None else found[:: max(1, len(found) // share)][:share]
    return positions


@functools.cache
def _all_positions(items: tuple, seeds: range, rule_based: bool) -> list[tuple]:
    return harness.play_positions(ENV_ID, dict(items), seeds, rule_based)


def _hidden_key(record: np.record) -> tuple:
    """Every stack (top first) and the pile (bottom first): where every card in the game is."""
    n = int(record.num_players)
    return tuple(tuple(stack_cards(record, seat)) for seat in range(n)) + (tuple(pile_cards(record)),)


def _card_places(record: np.record) -> tuple[int, ...]:
    """Per card id of the pack, its place code (stack slot, pile slot or out of the game)."""
    places = [OUT_PLACE] * int(record.deck_size)
    for seat in range(int(record.num_players)):
        for depth, card in enumerate(stack_cards(record, seat)):
            places[card] = seat * MAX_CARDS + depth
    for depth, card in enumerate(pile_cards(record)):
        places[card] = PILE_PLACE + depth
    return tuple(places)


def _shown_cards(params, record: np.record, seat: int) -> set[int]:
    """The cards ``seat``'s observation of ``record`` shows (the top four face-up cards and the first one)."""
    obs, _ = harness.observed(GAME, params, record, seat)
    views = GAME.observation_layout(params).split(obs)
    blocks = [views["top_cards"].reshape(-1, CARD_SLOTS), views["first_face_up"].reshape(1, CARD_SLOTS)]
    return {int(card) for block in blocks for card in np.flatnonzero(block.max(axis=0)) if card != NONE_SLOT}


def _views(env, params) -> list[tuple[bytes, bytes]]:
    """Every seat's observation and legal mask now (with the seat to act, which every seat knows)."""
    record = env.unwrapped.state_record
    return [tuple(part.tobytes() for part in harness.observed(GAME, params, record, seat)) + (env.agent_selection,)
            for seat in range(int(record.num_players))]


def _replay(params: dict, seed: int, dealer: int, deck: list[int], actions: list[int]):
    """The env after ``actions`` from the chosen pack, and every seat's views before each action and at the end;
    None if an action is illegal on the way."""
    made = GAME.make_params(**params)
    env = cardenvs.env(ENV_ID, **params)
    env.reset(seed=seed, options={"deal": {"dealer": dealer, "deck": deck}})
    history = []
    for action in actions:
        history.append(_views(env, made))
        if not env.observe(env.agent_selection)["action_mask"][action]:
            return None
        env.step(action)
    history.append(_views(env, made))
    return env, history


def _seat_history(history: list, seat: int) -> list:
    return [step[seat] for step in history]


def _consistent_deals(params: dict, record: np.record, actions: list[int], seed: int, unseen: list[int]) -> list:
    """Per seat, the hidden keys of every pack that permutes the ``unseen`` cards among their places in the dealt
    pack and shows that seat the same views at every step (brute force over the permutations)."""
    deck = [int(card) for card in record.deck[: int(record.deck_size)]]
    dealer = int(record.dealer)
    slots = [deck.index(card) for card in unseen]
    _, truth = _replay(params, seed, dealer, deck, actions)
    n = int(record.num_players)
    deals: list[set] = [set() for _ in range(n)]
    for order in itertools.permutations(unseen):
        candidate = list(deck)
        for slot, card in zip(slots, order, strict=True):
            candidate[slot] = card
        replayed = _replay(params, seed, dealer, candidate, actions)
        if replayed is None:
            continue
        env, history = replayed
        key = _hidden_key(env.unwrapped.state_record)
        for seat in range(n):
            if _seat_history(history, seat) == _seat_history(truth, seat):
                deals[seat].add(key)
    return [sorted(keys) for keys in deals]


def _small_positions(params: dict, seeds: range, few: int, limit: int) -> list[tuple]:
    """Up to ``limit`` positions (record, actions, seed, unseen cards) of random play with 2 to ``few`` cards no
    observation has shown yet, the unseen cards found from every seat's observations at every step so far."""
    made = GAME.make_params(**params)
    found = []
    for seed in seeds:
        shown: set[int] = set()
        for record, actions, game_seed in harness.play_positions(ENV_ID, params, [seed], rule_based=False):
            shown |= _shown_cards(made, record, 0)
            unseen = sorted(set(range(int(record.deck_size))) - shown)
            if 2 <= len(unseen) <= few:
                found.append((record, actions, game_seed, unseen))
        if len(found) >= limit:
            break
    return found[:: max(1, len(found) // limit)][:limit]


def _check_really_resampled(params: dict, seeds: range, few: int, limit: int, seed: int) -> int:
    made = GAME.make_params(**params)
    checked = 0
    for record, actions, game_seed, unseen in _small_positions(params, seeds, few, limit):
        shown = set(range(int(record.deck_size))) - set(unseen)
        assert set(np.flatnonzero(record.seen).tolist()) == shown, "seen is not what the observations showed"
        deals = _consistent_deals(params, record, actions, game_seed, unseen)
        out = int(record.deck_size) - int(record.cards_in_play)  # their order among themselves shows nowhere
        for seat in range(made.num_players):
            assert _hidden_key(record) in deals[seat], "the true deal is not among the consistent ones"
            assert len(deals[seat]) == math.factorial(len(unseen)) // math.factorial(out)
            harness.check_uniform_over(
                lambda rng, record=record, seat=seat: _hidden_key(GAME.resample(record, seat, rng)), deals[seat], seed)
            checked += 1
    return checked


def _check_seen_cards_stay(params: dict, positions: list[tuple], seed: int) -> None:
    """Every card marked seen keeps its place; the seat's own choice in an open window is kept."""
    rng = np.random.default_rng(seed)
    for record, _, _ in positions:
        seen = np.flatnonzero(record.seen)
        for seat in range(int(record.num_players)):
            resampled = GAME.resample(record, seat, rng)
            places, new_places = _card_places(record), _card_places(resampled)
            assert all(places[card] == new_places[card] for card in seen), f"seat {seat}: a seen card moved"
            assert np.array_equal(resampled.seen, record.seen)
            assert resampled.slap_choice[seat] == record.slap_choice[seat]
            if int(record.phase) != PHASE_WINDOW:
                assert np.array_equal(resampled.slap_choice, record.slap_choice)


def _other_choosers(record: np.record, seat: int) -> list[int]:
    """The seats other than ``seat`` that have chosen in the open window (none outside a window)."""
    if int(record.phase) != PHASE_WINDOW or record.terminated or record.truncated:
        return []
    return [int(other) for other in record.window_order[: int(record.window_index)] if int(other) != seat]


def _check_window_choices_uniform(params: dict, positions: list[tuple], limit: int, seed: int) -> int:
    """The other seats' choices so far in the open window come out as every SLAP/PASS combination alike."""
    checked = 0
    for record, _, _ in positions:
        seat = int(record.current_player)
        others = _other_choosers(record, seat)
        if not others:
            continue
        combinations = {combo: 1 / 2 ** len(others) for combo in itertools.product((0, 1), repeat=len(others))}
        harness.check_distribution(
            lambda rng, record=record, seat=seat, others=others: tuple(
                int(GAME.resample(record, seat, rng).slap_choice[other]) for other in others),
            combinations, seed + checked)
        checked += 1
        if checked == limit:
            break
    return checked


def _deck_twin(params: dict, record: np.record, actions: list[int], seed: int, seat: int, rng):
    """A record ``seat`` cannot tell from ``record``: the same actions from a pack with two never-seen cards
    swapped, every action legal and every view of ``seat`` the same. None where the pair tried breaks that."""
    deck = [int(card) for card in record.deck[: int(record.deck_size)]]
    unseen = [card for card in deck if not record.seen[card]]
    if len(unseen) < 2:
        return None
    first, second = (deck.index(int(card)) for card in rng.choice(unseen, 2, replace=False))
    twin_deck = list(deck)
    twin_deck[first], twin_deck[second] = deck[second], deck[first]
    _, truth = _replay(params, seed, int(record.dealer), deck, actions)
    replayed = _replay(params, seed, int(record.dealer), twin_deck, actions)
    if replayed is None or _seat_history(replayed[1], seat) != _seat_history(truth, seat):
        return None
    twin = replayed[0].unwrapped.state_record
    if twin.tobytes() == record.tobytes():
        return None
    return harness.record_copy(twin)


def _check_reads_nothing_hidden(params: dict, seeds: range, pairs: int, draws: int) -> None:
    rng = np.random.default_rng(5)
    positions = _positions(params, seeds)
    found = 0
    for index in rng.permutation(len(positions)):
        record, actions, seed = positions[index]
        seat = int(rng.integers(int(record.num_players)))
        twin = _deck_twin(params, record, actions, seed, seat, rng)
        if twin is None:
            continue
        harness.check_reads_nothing_hidden_exactly(GAME, record, twin, seat, seeds=range(3))
        harness.check_same_distribution(
            lambda draw, record=record, seat=seat: _card_places(GAME.resample(record, seat, draw)),
            lambda draw, twin=twin, seat=seat: _card_places(GAME.resample(twin, seat, draw)),
            draws, seed=int(index))
        found += 1
        if found == pairs:
            return
    assert found == pairs, f"only {found} indistinguishable pairs found"


def _check_window_twins(params: dict, positions: list[tuple], limit: int) -> int:
    """Records that differ only in another seat's choice of the open window (the same actions with that choice
    flipped; ``seat``'s views the same at every step) resample to byte-identical records."""
    made = GAME.make_params(**params)
    checked = 0
    for record, actions, seed in positions:
        seat = int(record.current_player)
        others = _other_choosers(record, seat)
        if not others:
            continue
        flipped = list(actions)
        at = len(actions) - int(record.window_index) + list(record.window_order).index(others[-1])
        flipped[at] = 1 - flipped[at]
        truth, twin = cardenvs.env(ENV_ID, **params), cardenvs.env(ENV_ID, **params)
        truth.reset(seed=seed)
        twin.reset(seed=seed)
        for action, other_action in zip(actions, flipped, strict=True):
            assert _views(truth, made)[seat] == _views(twin, made)[seat]
            truth.step(action)
            twin.step(other_action)
        assert _views(truth, made)[seat] == _views(twin, made)[seat]
        assert truth.unwrapped.state_record.slap_choice[others[-1]] != twin.unwrapped.state_record.slap_choice[
            others[-1]]
        harness.check_reads_nothing_hidden_exactly(
            GAME, truth.unwrapped.state_record, twin.unwrapped.state_record, seat, seeds=range(3))
        checked += 1
        if checked == limit:
            break
    return checked


def _check_reaction_twins(positions: list[tuple], limit: int) -> int:
    """Under reaction_noise, records that differ only in the last window's reaction times (the public winner still
    the fastest) and in the generator's counter resample to byte-identical records, whose winner is the fastest."""
    rng = np.random.default_rng(9)
    checked = 0
    for record, _, _ in positions:
        winner = int(record.last_winner)
        slappers = np.flatnonzero(record.last_slapped)
        if int(record.slap_tiebreak) != TIEBREAK_REACTION_NOISE or winner == NO_PLAYER or len(slappers) < 2:
            continue
        twin = harness.record_copy(record)
        times = np.sort(rng.exponential(size=len(slappers))).astype(np.float32)
        twin.reaction_time[slappers] = np.roll(times, int(np.flatnonzero(slappers == winner)[0]))
        twin.rng = record.rng + np.uint64(1)
        assert np.argmin(np.where(twin.last_slapped, twin.reaction_time, np.inf)) == winner
        for seat in range(int(record.num_players)):
            harness.check_reads_nothing_hidden_exactly(GAME, record, twin, seat, seeds=range(2))
            resampled = GAME.resample(record, seat, rng)
            times = np.where(resampled.last_slapped, resampled.reaction_time, np.inf)
            assert np.argmin(times) == winner and (resampled.reaction_time[slappers] > 0).all()
            assert not resampled.reaction_time[record.last_slapped == 0].any()
        checked += 1
        if checked == limit:
            break
    return checked


@pytest.mark.parametrize("params", PARAMS)
def test_same_observation(params):
    positions = _positions(params, range(2), count=60)
    harness.check_same_observation(ENV_ID, params, positions, draws=2, seed=1)
    _check_seen_cards_stay(params, positions, seed=11)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_same_observation_long(params):
    positions = _positions(params, range(10, 30), count=3000)
    assert len(positions) >= 1000
    harness.check_same_observation(ENV_ID, params, positions, draws=2, seed=2)
    _check_seen_cards_stay(params, positions, seed=12)


def test_really_resampled():
    assert _check_really_resampled(PARAMS[0], range(3), FEW_UNSEEN, limit=2, seed=3) > 0
    assert _check_really_resampled(DROPPED_PARAMS, range(1, 4), FEW_UNSEEN, limit=1, seed=3) > 0
    assert _check_window_choices_uniform(PARAMS[1], _positions(PARAMS[1], range(1)), limit=3, seed=3) == 3


@pytest.mark.slow
@pytest.mark.parametrize("params", [*EVERY_CARD_PARAMS, DROPPED_PARAMS, DROPPED_TWO_PARAMS])
def test_really_resampled_long(params):
    assert _check_really_resampled(params, range(20, 40), FEW_UNSEEN_LONG, limit=6, seed=4) > 0
    assert _check_window_choices_uniform(params, _positions(params, range(20, 22)), limit=20, seed=4) > 0


def test_reads_nothing_hidden():
    _check_reads_nothing_hidden(PARAMS[0], range(2), pairs=2, draws=300)
    assert _check_window_twins(PARAMS[1], _positions(PARAMS[1], range(1)), limit=3) == 3
    assert _check_reaction_twins(_positions(PARAMS[3], range(2)), limit=3) == 3


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_reads_nothing_hidden_long(params):
    _check_reads_nothing_hidden(params, range(30, 35), pairs=8, draws=1000)
    assert _check_window_twins(params, _positions(params, range(30, 32)), limit=20) > 0


@pytest.mark.parametrize("params", PARAMS)
def test_consistent(params):
    harness.check_consistent(ENV_ID, params, _positions(params, range(1), count=12), seed=6)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_consistent_long(params):
    harness.check_consistent(ENV_ID, params, _positions(params, range(60, 70), count=300), seed=7)


def test_cards_played_without_a_window_are_seen_and_stay():
    """With windows="slappable_only" the cards played while no window opens are seen all the same (face up on the
    table): here a whole game of them, won by seat 0, whose stack keeps its order; the pack's other cards, never in
    the game, stay out of it."""
    env = cardenvs.env(ENV_ID, num_players=2, windows="slappable_only")
    stacks = [["2c", "9c", "4c", "Kc"], ["5d", "7d", "Jh", "8s"]]
    env.reset(seed=0, options={"deal": {"dealer": 1, "stacks": stacks}})
    record = env.unwrapped.state_record
    assert record.terminated and int(record.cards_played) == 8
    assert sorted(np.flatnonzero(record.seen)) == sorted(card_id(card) for stack in stacks for card in stack)
    for seat in range(2):
        resampled = GAME.resample(record, seat, np.random.default_rng(seat))
        assert _hidden_key(resampled) == _hidden_key(record)
        assert np.array_equal(resampled.in_play, record.in_play)

