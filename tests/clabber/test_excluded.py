"""Clabber's public ``excluded`` cards (params.state_fields, rules.shown_absent): what each card played shows every
seat about the hand it left, kept for the hand so that the resampler honours it.

The defining property, checked at every card of random play over every example parameter set: a card ``c`` played
to a trick is legal from a hand ``H`` holding it exactly when ``H`` holds none of ``shown_absent``, and the cards the
engine adds to the seat's ``excluded`` are those, less the cards already played.
"""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.core.snapshot import snapshot_record
from cardenvs.games.clabber import GAME, rules
from cardenvs.games.clabber.cards import ALL_CARDS, NUM_CARDS, NUM_RANKS
from cardenvs.games.clabber.params import NUM_PLAYERS
from tests.clabber.table import Table, cards
from tests.resample_harness import record_copy

PARAM_SETS = [pytest.param(params, id=str(i)) for i, params in enumerate(GAME.example_params)]
#: hypothetical hands tried per card played
HANDS_PER_PLAY = 12
# how a card played relates to the trick, for the coverage check
LEAD, FOLLOW, NO_TRUMP, OVERTRUMP, UNDERTRUMP, EXEMPT = range(6)


def bits(text: str) -> int:
    return sum(1 << card for card in cards(text))


def _kind(before: np.record, player: int, card: int) -> int:
    """Which case of the rules ``card`` is, played by ``player`` to the trick of ``before``."""
    if int(before.trick_size) == 0:
        return LEAD
    led, suit, trump = int(before.trick[0]) // NUM_RANKS, card // NUM_RANKS, int(before.trump)
    if suit == led and led != trump:
        return FOLLOW
    winner = (int(before.leader) + int(rules.winning_position(before))) % NUM_PLAYERS
    if led != trump and before.partner_exemption and winner == (player + 2) % NUM_PLAYERS:
        return EXEMPT
    if suit != trump:
        return NO_TRUMP
    return OVERTRUMP if int(rules.higher_trumps(before)) >> card & 1 else UNDERTRUMP


def _legal_from(before: np.record, player: int, hand: int) -> int:
    probe = record_copy(before)
    probe.hand[player] = hand
    return int(rules.legal_cards(probe, player))


def _check_play(before: np.record, after: np.record, player: int, card: int, rng: np.random.Generator) -> None:
    """The engine's new exclusions for ``player`` are exactly what its play showed, by the definition."""
    absent = int(rules.shown_absent(before, player, card))
    gone = 0
    for seat in range(NUM_PLAYERS):
        gone |= int(after.played[seat])
    # by the definition: a card whose presence beside ``card`` would have made ``card`` illegal
    defined = sum(1 << other for other in range(NUM_CARDS)
                  if other != card and not _legal_from(before, player, 1 << card | 1 << other) >> card & 1)
    assert absent == defined, f"seat {player} playing {card}: {absent:b} != {defined:b}"
    assert int(after.excluded[player]) == int(before.excluded[player]) | (absent & ~gone)
    for seat in range(NUM_PLAYERS):
        if seat != player:
            assert int(after.excluded[seat]) == int(before.excluded[seat])
    # legal from a hand exactly when the hand holds none of them (hands of the size the seat had)
    size = bin(int(before.hand[player])).count("1")
    unplayed = [other for other in range(NUM_CARDS) if not gone >> other & 1 and other != card]
    for _ in range(HANDS_PER_PLAY):
        hand = 1 << card
        for other in rng.choice(unplayed, min(size - 1, len(unplayed)), replace=False):
            hand |= 1 << int(other)
        assert bool(_legal_from(before, player, hand) >> card & 1) == (hand & absent == 0)


def _play_and_check(params: dict, seed: int, kinds: set[int]) -> None:
    """One game of random play; every card played (forced ones too) checked by :func:`_check_play`."""
    table = Table(seed=seed, **params)
    rng = np.random.default_rng(seed)
    state = table.state
    while not (state.terminated or state.truncated):
        if int(state.phase) != rules.PHASE_PLAY:
            assert not state.excluded.any() or int(state.phase) == rules.PHASE_DECLARE
        action = int(rng.choice(table.legal()))
        while True:  # rules.step, one action at a time, forced ones included
            player = int(state.current_player)
            before = record_copy(state)
            rules._apply(state, action)
            if int(before.phase) == rules.PHASE_PLAY:
                kinds.add(_kind(before, player, action))
                if int(state.hands_played) == int(before.hands_played):
                    _check_play(before, state, player, action, rng)
            if int(state.phase) == rules.PHASE_OVER:
                break
            action = int(rules._forced_action(state))
            if action < 0:
                break
        GAME.check_invariants(state, table.params)


@pytest.mark.parametrize("params", PARAM_SETS)
def test_excluded_is_exactly_what_each_play_showed(params):
    kinds: set[int] = set()
    for seed in range(3):
        _play_and_check({**params, "max_hands": 3}, seed, kinds)
    expected = {LEAD, FOLLOW, NO_TRUMP, OVERTRUMP, UNDERTRUMP}
    if params.get("partner_exemption"):
        expected.add(EXEMPT)
    assert kinds >= expected, f"cases never played: {expected - kinds}"


@pytest.mark.slow
@pytest.mark.parametrize("params", PARAM_SETS)
def test_excluded_is_exactly_what_each_play_showed_long(params):
    kinds: set[int] = set()
    for seed in range(10, 40):
        _play_and_check({**params, "max_hands": 5}, seed, kinds)


def test_excluded_voids_trumps_and_higher_trumps():
    # Hearts trump (the dealer's turn-up; seat 0 accepts). Seat 1 has neither clubs nor hearts, seat 3 every heart.
    deal = {0: "AC KC QC 10D 9D 9S", 1: "AD KD QD JD AS KS", 2: "JC 10C 9C JS 10S QS", 3: "AH KH QH JH 10H 9H"}
    table = Table().deal(3, deal, turn_up="QH").accept()
    table.act("AC", "AS")  # seat 1 discards: no club and no trump
    assert int(table.state.excluded[1]) == bits("KC QC JC 10C 9C AH KH QH JH 10H 9H")  # AC is played
    table.act("9C")  # seat 2 follows: nothing shown
    assert int(table.state.excluded[2]) == 0
    table.act("QH")  # seat 3 trumps (no trump in the trick yet, so any trump overtrumps): no club
    assert int(table.state.excluded[3]) == bits("KC QC JC 10C")
    assert table.state.leader == 3 and int(table.state.excluded[0]) == 0  # a lead shows nothing
    table.act("9H", "9S")  # trumps led: seat 0 discards, so it holds no trump
    assert int(table.state.excluded[0]) == bits("AH KH JH 10H")


def test_excluded_undertrump_shows_no_higher_trump():
    # Spades trump: seat 1 trumps with the 9, seat 2 cannot follow hearts nor beat the 9 and plays the Queen.
    deal = {0: "AH KC QC 9D 10D 9C", 1: "9S 10S AC AD KD QD", 2: "QS KS AS JC 10C JD", 3: "KH QH JH 10H 9H JS"}
    table = Table().deal(3, deal, turn_up="JS").accept().act("AH", "9S")
    assert int(table.state.excluded[1]) == bits("KH QH JH 10H 9H")  # ruffing shows a void in hearts only
    table.act("QS")
    assert int(table.state.excluded[2]) == bits("KH QH JH 10H 9H JS")  # no heart, no trump above the 9


def test_excluded_partner_exemption_shows_only_the_void():
    deal = {0: "AH KC QC 9D 10D 9C", 1: "QH AC AD KD QD JD", 2: "JS AS JC 10C KS 10S", 3: "9S QS JH 10H 9H KH"}
    loose = Table(partner_exemption=True).deal(3, deal, turn_up="9S").accept().act("AH")  # seat 1's QH is forced
    loose.act("JC")  # partner seat 0 wins: seat 2 may discard, and shows only its heart void
    assert int(loose.state.excluded[2]) == bits("KH JH 10H 9H")
    strict = Table().deal(3, deal, turn_up="9S").accept().act("AH", "10S")
    assert int(strict.state.excluded[2]) == bits("KH JH 10H 9H")  # trumping over nothing: any trump was legal


def test_excluded_is_reset_by_each_deal():
    table = Table(seed=2)
    rng = np.random.default_rng(2)
    while int(table.state.hands_played) == 0 and not table.state.excluded.any():
        table.play_random(rng)
    assert table.state.excluded.any()
    table.play_out_hand(rng)
    if not (table.state.terminated or table.state.truncated):
        assert int(table.state.tricks_done) == 0 and not table.state.played.any()
        assert not table.state.excluded.any()


def test_a_record_excluding_a_seats_own_card_is_refused():
    env = cardenvs.env("clabber_v0", single_hand=True)
    env.reset(seed=3)
    snapshot = env.unwrapped.snapshot()
    record = env.unwrapped.state_record
    seat = int(record.current_player)
    tampered = record_copy(record)
    tampered.excluded[seat] = int(record.hand[seat]) & -int(record.hand[seat])  # its lowest card
    with pytest.raises(ValueError, match="excluded"):
        env.unwrapped.restore({**snapshot, "state": snapshot_record(tampered)})
    assert env.unwrapped.state_record.tobytes() == record.tobytes()
    tampered = record_copy(record)
    tampered.excluded[(seat + 1) % NUM_PLAYERS] = ALL_CARDS & ~int(record.dealt[(seat + 1) % NUM_PLAYERS])
    with pytest.raises(ValueError, match="excluded"):  # nothing played yet, so nothing shown
        env.unwrapped.restore({**snapshot, "state": snapshot_record(tampered)})
