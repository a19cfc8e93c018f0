"""Gin Slaughtre's hidden-card resampler (cardenvs/games/gin_slaughtre/resample.py) passes the four checks of
tests/resample_harness.py over positions of random and rule-based games, at both seats, and keeps every piece of
evidence play showed about the opponent's hidden hand.

"Really resampled" compares the resampler with the exact posterior: a brute-force enumeration of every placement
of the unseen cards (the opponent's hidden hand, the downcard slots, the stock in order) that shows the seat the
same observation and legal actions, each weighted by the number of histories of the opponent's hand that agree
with what the seat saw (counted here independently of the resampler, backwards over the record's
``hand_events``), on positions with few unseen cards; on the others, where each unseen card goes is compared with
its exact probabilities. Chosen deals build the evidence itself (a draw when stuck, a Jack's draw, the starter
search after the first play): there the posterior has a closed form, which deals dealt again and replayed with the
same actions (every observation of the seat the same) confirm without the record's events. "Reads nothing hidden"
builds twins by dealing again with unseen cards moved to other places of the deck and replaying the same actions,
every observation of the seat the same."""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence

import numpy as np
import pytest
from scipy.stats import chisquare

import cardenvs
from cardenvs.games.gin_slaughtre import rules
from cardenvs.games.gin_slaughtre.actions import (
    ACTION_CARDS,
    ACTION_SIZE,
    ARRANGEMENTS,
    DRAW,
    HAND_SIZE,
    NUM_ARRANGEMENTS,
    NUM_UPCARDS,
    SINGLE_BASE,
    arrangement_action,
)
from cardenvs.games.gin_slaughtre.cards import (
    FIRST_JOKER,
    NO_CARD,
    NUM_CARDS,
    NUM_SUITS,
    RANK_FIVE,
    RANK_JACK,
    RANK_JOKER,
    RANK_KING,
    RANK_NINE,
    RANK_TWO,
    card_id,
    card_ids,
)
from cardenvs.games.gin_slaughtre.deal import deck_from_deal
from cardenvs.games.gin_slaughtre.params import NUM_PLAYERS
from cardenvs.games.gin_slaughtre.rules import LOC_DOWN, LOC_HAND, LOC_STOCK, LOC_UP, PHASE_ARRANGE
from tests import resample_harness as harness

ENV_ID = "gin_slaughtre_v0"
GAME = cardenvs.get_game(ENV_ID)
PARAMS = [{**params, "max_turns": 150} for params in GAME.example_params]
#: positions whose unseen cards are at most this many have every placement enumerated
SMALL_POOL = 6
ALL_CARDS = range(NUM_CARDS)


def _positions(params: dict, seeds: range) -> list[tuple]:
    return [position for rule_based in (False, True)
            for position in harness.play_positions(ENV_ID, params, seeds, rule_based)]


def _unseen(record: np.record, seat: int) -> list[int]:
    """The cards ``seat`` has not seen, in id order: the stock, every downcard and the opponent's hand cards that
    are not public."""
    location = np.asarray(record.location).astype(np.int64)
    opponent_hand = LOC_HAND + NUM_PLAYERS - 1 - seat
    hidden = (location == LOC_STOCK) | (location >= LOC_DOWN) | ((location == opponent_hand) & (record.known == 0))
    return np.flatnonzero(hidden).tolist()


def _placement(record: np.record) -> tuple:
    """Where every card is, the stock's order and the downcards' slots: the hidden part of a record."""
    return (tuple(int(x) for x in record.location), tuple(int(x) for x in record.stock[: record.stock_size]),
            tuple(int(x) for x in np.asarray(record.downcards).ravel()))


def _places(record: np.record, cards: Sequence[int]) -> tuple[int, ...]:
    """Per card of ``cards``: its location, or for a stock card how deep it lies (the next draw is deepest)."""
    places = []
    for card in cards:
        location = int(record.location[card])
        if location == LOC_STOCK:
            depth = int(np.flatnonzero(np.asarray(record.stock[: record.stock_size]) == card)[0])
            places.append(100 + int(record.stock_size) - 1 - depth)
        else:
            places.append(location)
    return tuple(places)


# ---------------------------------------------------------------- the exact posterior, counted backwards


def _card_type(record: np.record, card: int) -> tuple[int, bool]:
    """What every piece of evidence reads of a card: its rank, and for the starter's rank whether it is a lower
    suit than the starter card."""
    rank, starter = card // NUM_SUITS, int(record.starter_card)
    return rank, starter >= 0 and rank == starter // NUM_SUITS and card < starter


def _allows(record: np.record, event: int, card_type: tuple[int, bool]) -> bool:
    """Whether a hand could hold a card of ``card_type`` at a condition event (a draw when stuck, the starter
    search), written from the rules pages' words."""
    rank, lower_suit = card_type
    if rules.EVENT_STUCK <= event < rules.EVENT_STUCK_RESTRICTED:  # no single was legal on this floor
        return rank != RANK_JOKER and rank < event - rules.EVENT_STUCK and rank not in (RANK_TWO, RANK_NINE)
    if event == rules.EVENT_STUCK_RESTRICTED:  # nothing of 5 or lower, no 2 and no 9
        return rank == RANK_JOKER or (rank > RANK_FIVE and rank != RANK_NINE)
    order = [int(searched) for searched in rules.STARTER_RANK_ORDER]
    starter_rank = int(record.starter_card) // NUM_SUITS
    if order.index(rank) < order.index(starter_rank):
        return False
    case = event - rules.EVENT_STARTER
    return not (rank == starter_rank
                and (case == rules.STARTER_WHOLE_RANK or (case == rules.STARTER_LOWER_SUITS and lower_suit)))


def _chain_effects(event: int) -> tuple[tuple[bool, ...], bool]:
    """An EVENT_CHAIN's effects in order (True: draws until a low card, False: draws one) and whether the stock
    ran out during them."""
    code = event - rules.EVENT_CHAIN
    effects = code % rules.CHAIN_RAN_OUT
    count = effects.bit_length() - 1
    return tuple(bool(effects >> i & 1) for i in range(count)), code >= rules.CHAIN_RAN_OUT


def _next_effect(effects: tuple[bool, ...], effect: int, card_type: tuple[int, bool]) -> int | None:
    """The effect under way after a card of ``card_type`` is drawn under ``effect`` (None: nothing is drawn once
    every effect is done)."""
    if effect == len(effects):
        return None
    return effect + 1 if not effects[effect] or card_type[0] <= RANK_FIVE else effect


def _history_counter(record: np.record, owner: int) -> Callable[[Sequence[tuple[int, bool]]], int]:
    """The number of histories of ``owner``'s hidden hand that agree with its ``hand_events`` and leave it holding
    cards of the given types: counted backwards from now, each draw taking back one of the cards then held (any
    of them may be the one drawn), each shown card put back, each condition checked on the hand then, memoized
    on (event, effect under way, the hand's types)."""
    events = [int(event) for event in record.hand_events[owner, : record.hand_event_count[owner]]]
    steps: list[tuple[str, object]] = []
    for index, event in enumerate(events):
        if event < rules.EVENT_DRAWN:
            steps.append(("shown", _card_type(record, event)))
        elif event == rules.EVENT_DRAWN:
            steps.append(("drawn", None))
        elif event == rules.EVENT_CHAIN_DRAWN:
            steps.append(("chain_drawn", steps[-1][1]))
        elif event >= rules.EVENT_CHAIN:
            steps.append(("chain", _chain_effects(event)))
            if index + 1 == len(events) or events[index + 1] != rules.EVENT_CHAIN_DRAWN:
                steps.append(("chain_end", _chain_effects(event)))
        else:
            steps.append(("condition", event))
        if event == rules.EVENT_CHAIN_DRAWN and (index + 1 == len(events)
                                                 or events[index + 1] != rules.EVENT_CHAIN_DRAWN):
            steps.append(("chain_end", steps[-1][1]))

    def without(hand: tuple, card_type: tuple[int, bool]) -> tuple:
        counts = Counter(dict(hand))
        counts[card_type] -= 1
        return tuple(sorted((kind, n) for kind, n in counts.items() if n))

    @functools.cache
    def back(index: int, effect: int | None, hand: tuple) -> int:
        if index == 0:
            return int(not hand)
        kind, payload = steps[index - 1]
        if kind == "shown":
            return back(index - 1, effect, tuple(sorted((Counter(dict(hand)) + Counter([payload])).items())))
        if kind == "condition":
            return back(index - 1, effect, hand) if all(_allows(record, payload, t) for t, _ in hand) else 0
        if kind == "drawn":
            return sum(n * back(index - 1, effect, without(hand, t)) for t, n in hand)
        effects, ran_out = payload
        if kind == "chain_end":  # where the effects stopped: all done, or anywhere if the stock ran out
            return sum(back(index - 1, end, hand) for end in (range(len(effects) + 1) if ran_out else
                                                               [len(effects)]))
        if kind == "chain":
            return back(index - 1, None, hand) if effect == 0 else 0
        return sum(n * back(index - 1, before, without(hand, t))  # chain_drawn: the last card drawn and its effect
                   for t, n in hand for before in range(len(effects)) if _next_effect(effects, before, t) == effect)

    return lambda types: back(len(steps), None, tuple(sorted(Counter(types).items())))


def _hand_posterior(record: np.record, seat: int) -> dict[frozenset, float]:
    """The exact posterior of the opponent's hidden hand among the cards ``seat`` has not seen: every deal is
    equally likely, so each hand is as likely as the histories leading to it."""
    count = _history_counter(record, NUM_PLAYERS - 1 - seat)
    weights = {frozenset(hand): count([_card_type(record, card) for card in hand])
               for hand in itertools.combinations(_unseen(record, seat), len(_hidden_hand(record, seat)))}
    total = sum(weights.values())
    return {hand: weight / total for hand, weight in weights.items() if weight}


def _type_posterior(record: np.record, seat: int) -> list[tuple[Counter, float]]:
    """The exact posterior of how many cards of each type the opponent's hidden hand holds (the hands holding
    those counts are equally likely)."""
    count = _history_counter(record, NUM_PLAYERS - 1 - seat)
    types = Counter(_card_type(record, unseen) for unseen in _unseen(record, seat))
    kinds = sorted(types)
    weighted = []
    for hand in itertools.combinations_with_replacement(kinds, len(_hidden_hand(record, seat))):
        held = Counter(hand)
        if all(held[kind] <= types[kind] for kind in kinds):
            weighted.append((held, count(hand) * math.prod(math.comb(types[kind], held[kind]) for kind in kinds)))
    total = sum(weight for _, weight in weighted)
    return [(held, weight / total) for held, weight in weighted if weight]


def _in_hand_probability(record: np.record, seat: int, card: int, posterior: list[tuple[Counter, float]]) -> float:
    """The exact posterior probability that ``card`` (unseen by ``seat``) is in the opponent's hand, from the
    posterior of its types (:func:`_type_posterior`)."""
    kind = _card_type(record, card)
    of_kind = sum(_card_type(record, unseen) == kind for unseen in _unseen(record, seat))
    return sum(probability * held[kind] / of_kind for held, probability in posterior)


def _consistent_placements(record: np.record, seat: int, params) -> list[tuple]:
    """Every placement of the unseen cards that shows ``seat`` the same observation and legal actions and keeps
    the game's invariants, by brute force over every order of them into the opponent's hand, the downcard slots
    and the stock."""
    pool = _unseen(record, seat)
    opponent_hand = LOC_HAND + NUM_PLAYERS - 1 - seat
    want = harness.observed(GAME, params, record, seat)
    placements = set()
    for order in itertools.permutations(pool):
        candidate = harness.record_copy(record)
        cards = iter(order)
        for card in pool:
            if int(record.location[card]) == opponent_hand:
                candidate.location[next(cards)] = opponent_hand
        for owner in range(NUM_PLAYERS):
            for slot in range(int(record.num_downcards)):
                if int(record.downcards[owner, slot]) != NO_CARD:
                    card = next(cards)
                    candidate.downcards[owner, slot] = card
                    candidate.location[card] = LOC_DOWN + owner
        for index in range(int(record.stock_size)):
            card = next(cards)
            candidate.stock[index] = card
            candidate.location[card] = LOC_STOCK
        got = harness.observed(GAME, params, candidate, seat)
        if not (np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])):
            continue
        try:
            GAME.check_invariants(candidate, params)
        except AssertionError:
            continue
        placements.add(_placement(candidate))
    return sorted(placements)


def _check_exact_small(params: dict, seeds: range, limit: int, seed: int) -> tuple[int, int]:
    """On up to ``limit`` positions with 2 to SMALL_POOL unseen cards (spread over the games), the resampler draws
    every consistent placement at its exact posterior probability (the placements that show the seat the same,
    weighted by the histories of the opponent's hidden hand; among those with the same hand, uniformly), and none
    that evidence rules out. Returns the positions checked and those whose posterior is not uniform."""
    made = GAME.make_params(**params)
    small = [(record, seat) for record, _, _ in _positions(params, seeds) for seat in range(NUM_PLAYERS)
             if 2 <= len(_unseen(record, seat)) <= SMALL_POOL]
    checked = skewed = 0
    for record, seat in small[:: max(1, len(small) // limit)][:limit]:
        placements = _consistent_placements(record, seat, made)
        assert _placement(record) in placements, "the true placement is not among the consistent ones"
        posterior = _hand_posterior(record, seat)
        opponent_hand = LOC_HAND + NUM_PLAYERS - 1 - seat
        unseen = _unseen(record, seat)
        by_hand = Counter(_placed_hand(placement, opponent_hand, unseen) for placement in placements)
        assert set(posterior) <= set(by_hand), "a hand the histories allow shows the seat something else"
        probabilities = {placement: posterior[hand] / by_hand[hand] for placement in placements
                         if (hand := _placed_hand(placement, opponent_hand, unseen)) in posterior}
        assert _placement(record) in probabilities, "the true placement has no history"
        harness.check_distribution(
            lambda rng, r=record, s=seat: _placement(GAME.resample(r, s, rng)), probabilities, seed + checked)
        checked += 1
        skewed += len({round(p, 12) for p in probabilities.values()}) > 1
    return checked, skewed


def _placed_hand(placement: tuple, opponent_hand: int, unseen: list[int]) -> frozenset:
    """The opponent's hidden hand cards of a placement (its first entry: every card's location)."""
    return frozenset(card for card in unseen if placement[0][card] == opponent_hand)


NEXT_DRAW = 100  # place class of the stock's top card
DEEPER = -1  # place class of any other stock card


def _place_class(record: np.record, card: int) -> int:
    """Where ``card`` is: its location, NEXT_DRAW for the stock's top card, DEEPER for another stock card."""
    location = int(record.location[card])
    if location != LOC_STOCK:
        return location
    return NEXT_DRAW if int(record.stock[record.stock_size - 1]) == card else DEEPER


def _place_probabilities(record: np.record, seat: int, card: int, in_hand: float) -> dict[int, float]:
    """Where an unseen ``card`` lies, given the probability that it is in the opponent's hand: otherwise in each of
    the other unseen places alike (a downcard slot of either seat, the top of the stock, deeper)."""
    pool = _unseen(record, seat)
    elsewhere = (1 - in_hand) / (len(pool) - len(_hidden_hand(record, seat)))
    probabilities = {LOC_HAND + NUM_PLAYERS - 1 - seat: in_hand, NEXT_DRAW: elsewhere * (record.stock_size > 0),
                     DEEPER: elsewhere * max(int(record.stock_size) - 1, 0)}
    for owner in range(NUM_PLAYERS):
        probabilities[LOC_DOWN + owner] = elsewhere * int(record.down_count[owner])
    return {place: p for place, p in probabilities.items() if p > 0}


#: the largest hidden hand whose posterior over card types :func:`_check_places` sums
MAX_SUMMED_HAND = 5


def _check_places(params: dict, seeds: range, every: int, seed: int) -> int:
    """On larger positions each of two unseen cards lands in the opponent's hand, a downcard slot of either seat,
    at the top of the stock or deeper with its exact probability (the posterior of the hand, summed over how many
    cards of each type it holds; the other places alike)."""
    checked = 0
    for record, _, _ in _positions(params, seeds)[::every]:
        seat = checked % NUM_PLAYERS
        pool = _unseen(record, seat)
        if len(pool) <= SMALL_POOL or len(_hidden_hand(record, seat)) > MAX_SUMMED_HAND:
            continue
        posterior = _type_posterior(record, seat)
        for card in (pool[0], pool[-1]):
            probabilities = _place_probabilities(record, seat, card, _in_hand_probability(record, seat, card,
                                                                                          posterior))
            harness.check_distribution(lambda rng, r=record, s=seat, c=card: _place_class(GAME.resample(r, s, rng), c),
                                       probabilities, seed + checked)
        checked += 1
    return checked


def _check_arrangement_redrawn(params: dict, seeds: range, seed: int) -> int:
    """The opponent's chosen arrangement (an index into seven cards the seat has not all seen) is drawn uniformly
    from the 35; the seat's own choice is kept."""
    checked = 0
    uniform = {action: 1 / NUM_ARRANGEMENTS for action in range(NUM_ARRANGEMENTS)}
    for record, _, _ in _positions(params, seeds)[:: 37]:
        for seat in range(NUM_PLAYERS):
            opponent = NUM_PLAYERS - 1 - seat
            if record.pending_arrangement[opponent] < 0:
                continue
            harness.check_distribution(
                lambda rng, r=record, s=seat, o=opponent: int(GAME.resample(r, s, rng).pending_arrangement[o]),
                uniform, seed + checked)
            own = GAME.resample(record, seat, np.random.default_rng(seed)).pending_arrangement[seat]
            assert own == record.pending_arrangement[seat]
            checked += 1
    return checked


def _starter_search(record: np.record) -> tuple[int, int]:
    """The starter card and seat the engine's starter search (rule:starter) finds on ``record``'s cards."""
    copy = harness.record_copy(record)
    rules._choose_starter(copy)
    return int(copy.starter_card), int(copy.current_player)


def _excluded_by_search(record: np.record, seat: int) -> set[int]:
    """The unseen cards that, put into the opponent's hand in place of one of its hidden cards, would change what
    the starter search finds: found by running the engine's search, card by card."""
    hidden = _hidden_hand(record, seat)
    want = _starter_search(record)
    excluded = set()
    for card in set(_unseen(record, seat)) - set(hidden):
        swapped = harness.record_copy(record)
        swapped.location[card], swapped.location[hidden[0]] = record.location[hidden[0]], record.location[card]
        if _starter_search(swapped) != want:
            excluded.add(card)
    return excluded


def _check_starter_evidence(params: dict, seeds: range, draws: int, seed: int) -> int:
    """At the first decision of play the opponent's hidden hand is drawn among the cards the starter search allows
    there: each resampled record's search finds the same starter, and an excluded card and an allowed one land in
    each place with their exact probabilities."""
    checked = 0
    for record, _, _ in _positions(params, seeds):
        if int(record.phase) == PHASE_ARRANGE or int(record.step_count) != NUM_PLAYERS:
            continue
        for seat in range(NUM_PLAYERS):
            rng = np.random.default_rng(seed + checked)
            for _ in range(draws):
                assert _starter_search(GAME.resample(record, seat, rng)) == _starter_search(record)
            excluded = _excluded_by_search(record, seat)
            pool = _unseen(record, seat)
            hidden_in_hand = len(_hidden_hand(record, seat))
            opponent_hand = LOC_HAND + NUM_PLAYERS - 1 - seat
            for card in (min(excluded & set(pool), default=None), min(set(pool) - excluded)):
                if card is None:
                    continue
                in_hand = 0.0 if card in excluded else hidden_in_hand / (len(pool) - len(excluded & set(pool)))
                elsewhere = (1 - in_hand) / (len(pool) - hidden_in_hand)
                probabilities = {opponent_hand: in_hand, NEXT_DRAW: elsewhere * (record.stock_size > 0),
                                 DEEPER: elsewhere * max(int(record.stock_size) - 1, 0)}
                for owner in range(NUM_PLAYERS):
                    probabilities[LOC_DOWN + owner] = elsewhere * int(record.down_count[owner])
                probabilities = {place: p for place, p in probabilities.items() if p > 0}
                harness.check_distribution(
                    lambda draw, r=record, s=seat, c=card: _place_class(GAME.resample(r, s, draw), c),
                    probabilities, seed + checked)
            checked += bool(excluded)
    return checked


def _seven_cards(record: np.record, seat: int) -> list[int]:
    location = np.asarray(record.location)
    return np.flatnonzero((location == LOC_HAND + seat) | (location == LOC_UP + seat)).tolist()


def _step_twins(first, twin, actions: list[int], seat: int) -> bool:
    """Play ``actions`` in ``first`` and the matching actions in ``twin`` (an arrangement choosing, from the twin's
    seven cards, the upcards it chose in ``first``); False as soon as ``seat`` sees the two differently before a
    step or an action is not legal in the twin."""
    for action in actions:
        if not harness.same_view(first, twin, seat):
            return False
        mine, theirs = first.unwrapped.state_record, twin.unwrapped.state_record
        twin_action = action
        if mine.phase == PHASE_ARRANGE:
            player = int(mine.current_player)
            order = sorted(_seven_cards(mine, player))
            upcards = [order[int(i)] for i in ARRANGEMENTS[action]]
            if not set(upcards) <= set(_seven_cards(theirs, player)):
                return False
            twin_action = arrangement_action(_seven_cards(theirs, player), upcards)
        if not twin.unwrapped._mask[twin_action]:
            return False
        first.step(action)
        twin.step(twin_action)
    return True


def _replayed_twin(record: np.record, actions: list[int], seed: int, params: dict, seat: int,
                   rng: np.random.Generator) -> np.record | None:
    """A record ``seat`` cannot tell from ``record``: the same game dealt again with the cards ``seat`` has not seen
    by now moved among their places in the deck (all at once, or two of them), replayed with the same actions
    (each arrangement choosing the same upcards), every action legal and every observation and legal mask of
    ``seat`` the same. None if the tried deal breaks that."""
    first = cardenvs.env(ENV_ID, **params)
    first.reset(seed=seed)
    deck = [int(card) for card in first.unwrapped.state_record.stock[::-1]]  # top first, as dealt
    dealer = int(first.unwrapped.state_record.dealer)
    positions = [deck.index(card) for card in _unseen(record, seat)]
    if len(positions) < 2:
        return None
    moved = rng.permutation(positions) if rng.random() < 0.5 else rng.choice(positions, 2, replace=False)
    chosen = sorted(int(i) for i in moved)
    cards = [deck[i] for i in moved]
    for position, card in zip(chosen, cards, strict=True):
        deck[position] = card
    twin = cardenvs.env(ENV_ID, **params)
    twin.reset(seed=seed, options={"deal": {"dealer": dealer, "deck": deck}})
    if not _step_twins(first, twin, actions, seat):
        return None
    if not harness.same_view(first, twin, seat) or _placement(twin.unwrapped.state_record) == _placement(record):
        return None
    return harness.record_copy(twin.unwrapped.state_record)



def _check_reads_nothing_hidden(params: dict, seeds: range, pairs: int, draws: int) -> None:
    """Twins give byte-identical resampled records from the same generator seed, and the same distribution of
    where every card goes."""
    rng = np.random.default_rng(5)
    found = 0
    positions = _positions(params, seeds)
    for index in rng.permutation(len(positions)):
        record, actions, seed = positions[index]
        seat = int(rng.integers(NUM_PLAYERS))
        twin = _replayed_twin(record, actions, seed, params, seat, rng)
        if twin is None:
            continue
        harness.check_reads_nothing_hidden_exactly(GAME, record, twin, seat, range(5))
        harness.check_same_distribution(lambda draw, r=record, s=seat: _places(GAME.resample(r, s, draw), ALL_CARDS),
                                        lambda draw, r=twin, s=seat: _places(GAME.resample(r, s, draw), ALL_CARDS),
                                        draws, seed=int(index))
        found += 1
        if found == pairs:
            return
    assert found == pairs, f"only {found} indistinguishable pairs found"


def _check_first_play_twins(params: dict, seeds: range, tries: int) -> int:
    """At the first decision of play (where the starter search is used), twins dealt again and replayed give
    byte-identical resampled records."""
    rng = np.random.default_rng(9)
    found = 0
    for record, actions, seed in _positions(params, seeds):
        if int(record.phase) == PHASE_ARRANGE or int(record.step_count) != NUM_PLAYERS:
            continue
        for seat in range(NUM_PLAYERS):
            for _ in range(tries):
                twin = _replayed_twin(record, actions, seed, params, seat, rng)
                if twin is not None:
                    harness.check_reads_nothing_hidden_exactly(GAME, record, twin, seat, range(3))
                    found += 1
                    break
    return found


@pytest.mark.parametrize("params", PARAMS)
def test_same_observation(params):
    harness.check_same_observation(ENV_ID, params, _positions(params, range(2))[::3], draws=2, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_same_observation_long(params):
    harness.check_same_observation(ENV_ID, params, _positions(params, range(10, 40)), draws=3, seed=2)


@pytest.mark.parametrize("params", PARAMS)
def test_really_resampled(params):
    assert _check_exact_small(params, range(3), limit=4, seed=3)[0] > 0
    assert _check_places(params, range(1), every=40, seed=30) > 0
    assert _check_arrangement_redrawn(params, range(1), seed=31) > 0


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_really_resampled_long(params):
    checked, skewed = _check_exact_small(params, range(20, 35), limit=60, seed=4)
    assert checked > 0 and skewed > 0, (checked, skewed)
    assert _check_places(params, range(20, 25), every=7, seed=40) > 0
    assert _check_arrangement_redrawn(params, range(20, 25), seed=41) > 0


@pytest.mark.parametrize("params", PARAMS[:2])
def test_really_resampled_starter_evidence(params):
    assert _check_starter_evidence(params, range(3), draws=50, seed=32) > 0


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS[:2])
def test_really_resampled_starter_evidence_long(params):
    assert _check_starter_evidence(params, range(40, 60), draws=200, seed=42) > 0


@pytest.mark.parametrize("params", PARAMS)
def test_reads_nothing_hidden(params):
    _check_reads_nothing_hidden(params, range(3), pairs=3, draws=300)


@pytest.mark.parametrize("params", PARAMS[:2])
def test_reads_nothing_hidden_at_first_play(params):
    assert _check_first_play_twins(params, range(3), tries=5) > 0


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_reads_nothing_hidden_long(params):
    _check_reads_nothing_hidden(params, range(30, 40), pairs=15, draws=1000)


@pytest.mark.parametrize("params", PARAMS)
def test_consistent(params):
    harness.check_consistent(ENV_ID, params, _positions(params, range(2))[::6], seed=6)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_consistent_long(params):
    harness.check_consistent(ENV_ID, params, _positions(params, range(60, 70)), seed=7)


# ---------------------------------------------------------------- evidence from play, measured


def _playable(record: np.record, card: int, restricted: bool) -> bool:
    """Whether ``card`` could be laid as a single on ``record``'s pile (rule:equal_or_higher, rule:red_five)."""
    if card >= FIRST_JOKER:
        return not restricted
    rank = card // NUM_SUITS
    return bool(rules.trick_allowed(record, rank, rank, restricted))


def _hidden_hand(record: np.record, seat: int) -> list[int]:
    opponent_hand = LOC_HAND + NUM_PLAYERS - 1 - seat
    return [card for card in _unseen(record, seat) if int(record.location[card]) == opponent_hand]


def _stuck_draw_broken(before: np.record, seat: int) -> Callable[[np.record], bool]:
    """After the opponent drew because it could not play on ``before``: every hidden card it held then is
    unplayable there, so at most one of its hidden cards (the one drawn) is playable."""
    return lambda after: sum(_playable(before, card, bool(before.restricted))
                             for card in _hidden_hand(after, seat)) >= 2


def _jack_chain_broken(before: np.record, after: np.record, seat: int, action: int) -> Callable[[np.record], bool]:
    """After ``seat``'s Jack made the opponent draw ``k`` cards: k − 1 of them are above 5 (a Joker counts) and,
    unless the stock ran out, the last is 5 or lower; so the opponent's hidden hand holds at least that many."""
    opponent = NUM_PLAYERS - 1 - seat
    drawn = int(after.hand_count[opponent]) - int(before.hand_count[opponent])
    refilled = int(after.hand_count[seat]) - (int(before.hand_count[seat]) - int(ACTION_SIZE[action]))
    ended_low = drawn > 0 and int(after.stock_size) + refilled > 0  # the stock lasted past the chain

    def broken(resampled: np.record) -> bool:
        ranks = [card // NUM_SUITS for card in _hidden_hand(resampled, seat)]
        high = sum(rank > RANK_FIVE for rank in ranks)
        return high < drawn - 1 or (ended_low and high == len(ranks))

    return broken


def _starter_excluded(record: np.record, seat: int) -> set[int]:
    """The cards the starter search (rule:starter) showed were not in the opponent's hand when play began: every
    card of a rank searched before the starter's; of the starter's rank, when it was found in a hand, the lower
    suits if that hand is the opponent's, and all of them if it is the seat's own and the opponent, on the
    dealer's left, was searched first."""
    starter = int(record.starter_card)
    rank = starter // NUM_SUITS
    order = [int(r) for r in rules.STARTER_RANK_ORDER]
    of_rank = [card for card in range(rank * NUM_SUITS, (rank + 1) * NUM_SUITS) if card < NUM_CARDS]
    excluded = {card for r in order[: order.index(rank)] for card in range(r * NUM_SUITS, (r + 1) * NUM_SUITS)
                if card < NUM_CARDS}
    location = int(record.location[starter])
    opponent = NUM_PLAYERS - 1 - seat
    if location == LOC_HAND + opponent:
        excluded |= {card for card in of_rank if card < starter}
    elif location == LOC_HAND + seat and seat == int(record.dealer):
        excluded |= set(of_rank)
    return excluded


def _ignored_evidence(params: dict, seeds: range, draws: int) -> dict[str, tuple[int, float, float]]:
    """Per kind of evidence from play (the starter search, used at the first decision of play; draws when stuck and
    Jack's draws, which the record forgets), right after it is shown: (positions, share of the true records
    that contradict it, share of resampled records that do). The true share is 0 when the check is right; the
    resampled share bounds the resampler's total-variation distance from the posterior given the whole history
    from below."""
    made = GAME.make_params(**params)
    rng = np.random.default_rng(0)
    found: dict[str, list[tuple[np.record, int, Callable[[np.record], bool]]]] = {
        "starter": [], "stuck_draw": [], "jack_chain": []}
    positions = _positions(params, seeds)
    for (before, _, game), (after, actions, next_game) in itertools.pairwise(positions):
        if game != next_game or len(actions) == 0:
            continue
        action, player = actions[-1], int(before.current_player)
        if int(before.phase) == PHASE_ARRANGE and int(after.phase) != PHASE_ARRANGE:
            if made.starter_rule == "lowest_card":
                for seat in range(NUM_PLAYERS):
                    excluded = _starter_excluded(after, seat)
                    found["starter"].append(
                        (after, seat, lambda r, s=seat, x=excluded: bool(set(_hidden_hand(r, s)) & x)))
        elif action == DRAW:
            seat = NUM_PLAYERS - 1 - player
            found["stuck_draw"].append((after, seat, _stuck_draw_broken(before, seat)))
        elif not made.stack_effects and int(ACTION_SIZE[action]) and int(before.burnt_count) == int(after.burnt_count):
            top = int(ACTION_CARDS[action, int(ACTION_SIZE[action]) - 1])
            rank = top // NUM_SUITS
            red_five = rank == RANK_FIVE and top % NUM_SUITS in (1, 2) and made.red5_rule == "draw_until_leq5"
            if top < FIRST_JOKER and (rank == RANK_JACK or red_five):
                found["jack_chain"].append((after, player, _jack_chain_broken(before, after, player, action)))
    measured = {}
    for kind, cases in found.items():
        true_share = np.mean([broken(record) for record, _, broken in cases]) if cases else 0.0
        resampled = [broken(GAME.resample(record, seat, rng)) for record, seat, broken in cases for _ in range(draws)]
        measured[kind] = (len(cases), float(true_share), float(np.mean(resampled)) if resampled else 0.0)
    return measured


#: the kinds of evidence, each seen on the true records of the quick run's games
EVIDENCE_KINDS = ("starter", "stuck_draw", "jack_chain")


def test_evidence_from_play_holds_in_resampled_records():
    """The checks of the evidence never flag the true record, and no resampled record breaks any of them: a hand
    that drew when stuck held nothing playable, a Jack's draw stopped where it did, the starter search found what
    it found."""
    measured = _ignored_evidence(PARAMS[0], range(4), draws=10)
    assert set(measured) == set(EVIDENCE_KINDS)
    for kind, (positions, true_share, resampled_share) in measured.items():
        assert positions > 0, f"no position shows {kind}"
        assert true_share == 0.0, f"the {kind} check flags true records"
        assert resampled_share == 0.0, (kind, positions, resampled_share)


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAMS)
def test_evidence_from_play_holds_in_resampled_records_long(params):
    """The same over seeds 100–139 of every parameter set, 20 resamples each (the rules page's table)."""
    measured = _ignored_evidence(params, range(100, 140), draws=20)
    for kind, (positions, true_share, resampled_share) in measured.items():
        assert true_share == 0.0, f"the {kind} check flags true records"
        assert resampled_share == 0.0, (kind, positions, resampled_share)


# ---------------------------------------------------------------- evidence built from chosen deals


def _known_positions(params: dict, deal: dict, actions: list[int], seat: int) -> set[int]:
    """The deck positions (top first) whose card ``seat`` knows after ``actions``: its own dealt hand and upcards,
    the opponent's dealt upcards (dealt face up) and every stock card it drew."""
    made = GAME.make_params(**params)
    dealer, deck = deck_from_deal(made, deal)
    dealt_each = made.num_downcards + NUM_UPCARDS + HAND_SIZE  # in the deal's order: downcards, up, hand
    known = set()
    for position in range(NUM_PLAYERS * dealt_each):
        owner = (dealer + 1 + position // dealt_each) % NUM_PLAYERS
        within = position % dealt_each
        face_up = made.num_downcards <= within < made.num_downcards + NUM_UPCARDS
        if face_up or (owner == seat and within >= made.num_downcards):
            known.add(position)
    env = cardenvs.env(ENV_ID, **params)
    env.reset(seed=0, options={"deal": deal})
    for action in actions:
        before = np.asarray(env.unwrapped.state_record.location).copy()
        env.step(action)
        after = np.asarray(env.unwrapped.state_record.location)
        known |= {deck.index(card) for card in np.flatnonzero((before == LOC_STOCK) & (after == LOC_HAND + seat))}
    return known


def _replayed_posterior(params: dict, deal: dict, actions: list[int], seat: int, draws: int,
                        rng: np.random.Generator) -> list[np.record]:
    """``draws`` records from the exact posterior of the position ``actions`` reach from ``deal``, found without
    the record's events: the cards at the deck positions ``seat`` does not know are dealt again uniformly, the game
    replayed with the same actions (each arrangement choosing the same upcards), and a deal kept only if every
    action is legal and every observation and legal mask of ``seat`` are the same (rejection sampling)."""
    dealer, deck = deck_from_deal(GAME.make_params(**params), deal)
    unknown = sorted(set(range(NUM_CARDS)) - _known_positions(params, deal, actions, seat))
    kept: list[np.record] = []
    while len(kept) < draws:
        shuffled = list(deck)
        for position, card in zip(unknown, rng.permutation([deck[i] for i in unknown]), strict=True):
            shuffled[position] = int(card)
        twin = _replayed_deal(params, deal, {"dealer": dealer, "deck": shuffled}, actions, seat)
        if twin is not None:
            kept.append(twin)
    return kept


def _replayed_deal(params: dict, deal: dict, other_deal: dict, actions: list[int], seat: int) -> np.record | None:
    """The record ``actions`` reach from ``other_deal`` (each arrangement choosing the upcards it chose from
    ``deal``), or None unless every action is legal there and ``seat`` sees the same at every step."""
    first, twin = cardenvs.env(ENV_ID, **params), cardenvs.env(ENV_ID, **params)
    first.reset(seed=0, options={"deal": deal})
    twin.reset(seed=0, options={"deal": other_deal})
    if not _step_twins(first, twin, actions, seat):
        return None
    return harness.record_copy(twin.unwrapped.state_record) if harness.same_view(first, twin, seat) else None


def _keep_dealt_upcards(deal: dict) -> list[int]:
    """The two arrangement actions (seat 0's, then seat 1's) that keep each seat's dealt upcards."""
    return [arrangement_action(card_ids(deal["hands"][seat]) + card_ids(deal["upcards"][seat]),
                               card_ids(deal["upcards"][seat])) for seat in range(NUM_PLAYERS)]


def _play(name: str) -> int:
    return SINGLE_BASE + card_id(name)


#: seat 0 leads from its upcard 3♣ (the dealer's left, searched first) and lays K♠; seat 1 holds nothing to lay on a
#: King (all below it, no 2, 9 or Joker), so it draws
STUCK_DEAL = {"dealer": 1, "hands": [["KS", "4C", "5C", "6C"], ["4D", "6H", "7D", "QD"]],
              "upcards": [["3C", "8C", "10C"], ["4S", "6S", "7S"]]}
STUCK_ACTIONS = [*_keep_dealt_upcards(STUCK_DEAL), _play("KS"), DRAW]
#: seat 0 leads J♠; seat 1 draws until 5 or lower: 8♦, K♣, then 3♥
JACK_DEAL = {"dealer": 1, "hands": [["JS", "4C", "5C", "6C"], ["4D", "6H", "7D", "QD"]],
             "upcards": [["3C", "8C", "10C"], ["4S", "6S", "7S"]], "stock": ["8D", "KC", "3H", "AS"]}
JACK_ACTIONS = [*_keep_dealt_upcards(JACK_DEAL), _play("JS")]
#: no 3 face up: the search finds 3♥ in the hand of seat 1 (the dealer's left, searched first), so that hand held
#: no 3♣ or 3♦; seat 1 leads 3♥ and refills one card
STARTER_DEAL = {"dealer": 0, "hands": [["KS", "4H", "5H", "6H"], ["3H", "8D", "10H", "QD"]],
                "upcards": [["4C", "8C", "10C"], ["5S", "6S", "7S"]]}
STARTER_ACTIONS = [*_keep_dealt_upcards(STARTER_DEAL), _play("3H")]


def _position(deal: dict, actions: list[int]) -> np.record:
    env = cardenvs.env(ENV_ID)
    env.reset(seed=0, options={"deal": deal})
    for action in actions:
        assert env.unwrapped._mask[action], action
        env.step(action)
    return harness.record_copy(env.unwrapped.state_record)


def _count_of(cards: set[int], seat: int) -> Callable[[np.record], int]:
    """How many of ``cards`` the opponent of ``seat`` holds hidden in a record."""
    return lambda record: len(cards & set(_hidden_hand(record, seat)))


def _closed_form(weights: dict[int, float]) -> dict[int, float]:
    total = sum(weights.values())
    return {outcome: weight / total for outcome, weight in weights.items() if weight}


def _stuck_posterior(record: np.record, seat: int) -> tuple[set[int], dict[int, float]]:
    """After the draw when stuck on a King: the unseen cards that could not be laid on it (below a King, no 2, 9
    or Joker) and the exact distribution of how many of the opponent's 5 hidden cards are others. The 4 held when
    it drew were all such cards; the one drawn is any: a hand of 5 such cards has 5 histories (any of them was the
    one drawn), a hand with one other card has 1 (it was drawn), a hand with two others none."""
    unseen = _unseen(record, seat)
    stuck = {card for card in unseen
             if card < FIRST_JOKER and card // NUM_SUITS < RANK_KING and card // NUM_SUITS not in (RANK_TWO, RANK_NINE)}
    allowed, others = len(stuck), len(unseen) - len(stuck)
    return set(unseen) - stuck, _closed_form({0: 5 * math.comb(allowed, 5), 1: math.comb(allowed, 4) * others})


def _jack_posterior(record: np.record, seat: int) -> tuple[set[int], dict[int, float]]:
    """After the Jack's draw of 3 cards: the unseen low cards (A–5) and the exact distribution of how many of the
    opponent's 7 hidden cards are low. The 4 it held are any cards; of the 3 drawn the first two are high and the
    last low: a hand with ``low`` low cards has (7 − low)(6 − low) · low histories."""
    unseen = _unseen(record, seat)
    low = {card for card in unseen if card < FIRST_JOKER and card // NUM_SUITS <= RANK_FIVE}
    lows, highs = len(low), len(unseen) - len(low)
    return low, _closed_form({k: math.comb(lows, k) * math.comb(highs, 7 - k) * (7 - k) * (6 - k) * k
                              for k in range(8)})


def _starter_posterior(record: np.record, seat: int) -> tuple[set[int], dict[int, float]]:
    """After the starter 3♥ was laid and one card refilled: the cards the search excluded (3♣, 3♦) and the exact
    distribution of how many of them the opponent's 4 hidden cards hold: the 3 it kept from the deal are none of
    them, the card drawn is any; a hand without them has 4 histories, one with one of them 1."""
    unseen = _unseen(record, seat)
    excluded = {card_id("3C"), card_id("3D")} & set(unseen)
    allowed = len(unseen) - len(excluded)
    return excluded, _closed_form({0: 4 * math.comb(allowed, 4), 1: len(excluded) * math.comb(allowed, 3)})


EVIDENCE_DEALS = {
    "stuck_draw": (STUCK_DEAL, STUCK_ACTIONS, _stuck_posterior),
    "jack_chain": (JACK_DEAL, JACK_ACTIONS, _jack_posterior),
    "starter_after_play": (STARTER_DEAL, STARTER_ACTIONS, _starter_posterior),
}
#: the seat whose view is kept: seat 0 watches seat 1's hand
WATCHER = 0


@pytest.mark.parametrize("kind", EVIDENCE_DEALS)
def test_evidence_from_chosen_deals(kind):
    """The position each deal builds holds one piece of evidence (a draw when stuck, a Jack's draw of three cards,
    the starter search after the first play) and the resampler draws the opponent's hand at its exact posterior
    (the closed form, chi-square), never a hand the evidence rules out."""
    deal, actions, posterior = EVIDENCE_DEALS[kind]
    record = _position(deal, actions)
    cards, probabilities = posterior(record, WATCHER)
    assert _count_of(cards, WATCHER)(record) in probabilities, "the true hand is impossible in the closed form"
    harness.check_distribution(lambda rng: _count_of(cards, WATCHER)(GAME.resample(record, WATCHER, rng)),
                               probabilities, seed=11)
    assert probabilities == pytest.approx(_closed_form(_history_weights(record, cards)), rel=1e-9)


def _history_weights(record: np.record, cards: set[int]) -> dict[int, float]:
    """The posterior of how many of ``cards`` (whole card types) the hidden hand holds, from the backward count of
    histories."""
    types = {_card_type(record, card) for card in cards}
    weights: Counter = Counter()
    for held, probability in _type_posterior(record, WATCHER):
        weights[sum(held[kind] for kind in types)] += probability
    return weights


#: replayed deals kept per chosen deal by the check of the closed forms
REPLAYED_DRAWS = 400


@pytest.mark.slow
@pytest.mark.parametrize("kind", EVIDENCE_DEALS)
def test_closed_forms_agree_with_replayed_deals(kind):
    """The closed forms the evidence tests use, checked without the record's events: deals dealt again at the
    positions the seat does not know and replayed with the same actions, kept when they show the seat the same,
    fall at the closed form's frequencies (chi-square)."""
    deal, actions, posterior = EVIDENCE_DEALS[kind]
    record = _position(deal, actions)
    cards, probabilities = posterior(record, WATCHER)
    replayed = iter(_replayed_posterior({}, deal, actions, WATCHER, REPLAYED_DRAWS, np.random.default_rng(12)))
    counts = Counter(_count_of(cards, WATCHER)(next(replayed)) for _ in range(REPLAYED_DRAWS))
    assert set(counts) <= set(probabilities), f"the replayed deals hold hands the closed form excludes: {counts}"
    outcomes = sorted(probabilities)
    assert chisquare([counts[k] for k in outcomes], [probabilities[k] * REPLAYED_DRAWS for k in outcomes]).pvalue \
        > harness.MIN_P_VALUE
