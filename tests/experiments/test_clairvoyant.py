"""experiments/clairvoyant.py: the Slabberjan player who sees every piece, an analysis of the 95 % target."""

import pytest

from cardenvs.games.slabberjan import rules
from cardenvs.games.slabberjan.pieces import CAT, INN, kind_id
from experiments import clairvoyant


def _table_with(pieces: list[int], dealer: int = 3) -> clairvoyant.Table:
    table = clairvoyant.Table()
    table.deal(0)
    record = table.states[0]
    record.piece[:] = pieces
    record.original[:] = pieces
    record.dealer = dealer
    return table


def test_a_non_dealer_exchanges_only_for_a_better_piece_past_inns_and_never_into_a_cat():
    low, high = kind_id("2"), kind_id("9")
    table = _table_with([low, high, low, low])
    assert clairvoyant.one_look_choice(table, table.states, 0) == rules.EXCHANGE
    table = _table_with([high, low, low, low])
    assert clairvoyant.one_look_choice(table, table.states, 0) == rules.STAND
    table = _table_with([low, INN, high, low])  # the Inn passes the attempt on to seat 2
    assert clairvoyant.one_look_choice(table, table.states, 0) == rules.EXCHANGE
    table = _table_with([low, CAT, high, low])
    assert clairvoyant.one_look_choice(table, table.states, 0) == rules.STAND


def test_trying_an_action_leaves_the_game_as_it_was():
    table = _table_with([kind_id("2"), kind_id("9"), kind_id("3"), kind_id("4")])
    before = table.states.copy()
    table.after(table.states, rules.EXCHANGE)
    assert table.states.tobytes() == before.tobytes()


def test_the_clairvoyant_player_beats_random_far_more_often_than_chance():
    """Two seats of four win half the games by chance; seeing everything wins nearly all."""
    result = clairvoyant.play_match(200, seed=3)
    assert result.games == 200 and result.wins + result.draws <= 200
    assert result.win_rate > 0.85
    assert 0 < result.ci95 < 0.1
    assert clairvoyant.play_match(20, rollouts=2, seed=3).win_rate > 0.5


def test_a_match_refuses_impossible_sizes():
    with pytest.raises(ValueError, match="games must be 1 or more"):
        clairvoyant.play_match(0)
    assert clairvoyant.main(["--games", "0"]) == 2


def test_the_script_prints_its_match(capsys):
    assert clairvoyant.main(["--games", "20"]) == 0
    assert "clairvoyant against random, 20 games: wins" in capsys.readouterr().out


def test_the_dealer_picks_what_leaves_it_more_chips_at_the_known_showdown():
    """Holding the lowest piece, the dealer draws when the bag's next piece saves it, and stands otherwise."""
    table = _table_with([kind_id("5"), kind_id("6"), kind_id("7"), kind_id("fool")])
    record = table.states[0]
    record.phase = rules.PHASE_DEALER
    record.current_player = 3
    record.bag[record.bag_size - 1] = kind_id("12")
    assert clairvoyant.one_look_choice(table, table.states, 3) == rules.EXCHANGE
    record.piece[3] = record.original[3] = kind_id("12")
    record.bag[record.bag_size - 1] = kind_id("fool")
    assert clairvoyant.one_look_choice(table, table.states, 3) == rules.STAND
