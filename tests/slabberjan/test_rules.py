"""Scenario tests for the rules of docs/rules/slabberjan.md, each from a chosen deal; a test is named after its rule's
slug (``test_rule_<slug>__<what>``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs.games.slabberjan import GAME
from cardenvs.games.slabberjan.params import rank_table
from cardenvs.games.slabberjan.pieces import BIRD, CAT, FOOL, INN, KIND_NAMES, KNIGHT, NO_PIECE
from cardenvs.games.slabberjan.rules import (
    DEALER_SWAP_LEFT,
    EXCHANGE,
    PHASE_DEALER,
    PHASE_OVER,
    PHASE_TURNS,
    STAND,
)
from tests.slabberjan.table import Table

K = Table.kind


def test_rule_pieces_and_ranks():
    assert len(KIND_NAMES) == 21
    table = Table(5)
    counts = np.bincount(table.state.bag[: table.state.bag_size], minlength=21)
    counts += np.bincount(table.state.piece, minlength=21)
    assert (counts == 2).all()
    seed_ranks = rank_table("seed")
    order = ["knight", "bird", "cat", "inn", *[str(n) for n in range(12, -1, -1)],
             "white bread", "chamber pot", "scary face", "fool"]
    assert [seed_ranks[K(name)] for name in order] == list(range(20, -1, -1))
    sheet = rank_table("rule_sheet")
    assert sheet[K("scary face")] > sheet[K("chamber pot")] > sheet[K("fool")]
    assert sheet[K("white bread")] > sheet[K("scary face")]


def test_rule_players_and_chips():
    for players in (2, 42):
        assert (Table(players, start_chips=4).state.chips == 4).all()
    for bad in (1, 43):
        with pytest.raises(ValueError, match="2 to 42"):
            cardenvs.env("slabberjan_v0", num_players=bad)


def test_rule_deal__one_piece_each_random_first_dealer():
    dealers = {int(Table(6, seed=s).state.dealer) for s in range(40)}
    assert len(dealers) == 6
    table = Table(6, seed=3)
    assert table.state.bag_size == 42 - 6
    assert (table.state.piece == table.state.original).all()
    assert table.state.current_player == (table.state.dealer + 1) % 6


def test_rule_turn_order__non_dealers_then_dealer():
    table = Table(4).deal(2, ["5", "6", "7", "8"])
    seen = []
    while table.state.phase == PHASE_TURNS:
        seen.append(int(table.state.current_player))
        table.act(STAND)
    assert seen == [3, 0, 1]
    assert table.state.phase == PHASE_DEALER and table.state.current_player == 2


def test_rule_non_dealer_choice__stand_or_swap_and_forced_swap():
    assert Table(3).deal(0, ["5", "6", "7"]).legal() == [STAND, EXCHANGE]
    assert Table(3, forced_swap=True).deal(0, ["5", "6", "7"]).legal() == [EXCHANGE]


def test_rule_exchange__with_a_non_matador_and_what_both_learn():
    table = Table(4).deal(3, ["3", "7", "9", "10"]).act(EXCHANGE)
    assert table.pieces()[:2] == ["7", "3"]
    assert table.state.original[0] == K("3")  # the dealt piece is remembered
    seat0, seat1, seat2 = table.observe(0), table.observe(1), table.observe(2)
    # relative seat 1 of player 0 is player 1, which now holds player 0's old 3
    assert seat0["known_pieces"][22 + K("3")] == 1
    assert seat1["known_pieces"][3 * 22 + K("7")] == 1  # player 1 sees player 0 (relative 3) holds the 7
    assert seat2["known_pieces"][2 * 22 + 21] == 1  # player 2 learnt nothing about player 0


def test_rule_matadors_refuse__announce_own_matador_gives_no_protection():
    table = Table(4).deal(3, ["3", "bird", "9", "10"]).act(EXCHANGE)
    assert table.pieces()[:2] == ["3", "bird"]
    assert table.state.announced[1] == BIRD
    for viewer in range(4):
        assert table.state.known[viewer, 1] == BIRD
        assert table.observe(viewer)["announced"][((1 - viewer) % 4) * 4 + (BIRD - INN)] == 1
    table = Table(4).deal(3, ["cat", "5", "9", "10"]).act(EXCHANGE)
    assert table.pieces()[:2] == ["5", "cat"]


def test_rule_inn__skips_wraps_and_can_reach_the_dealer():
    table = Table(4).deal(3, ["3", "inn", "9", "10"]).act(EXCHANGE)
    assert table.pieces() == ["9", "inn", "3", "10"]
    assert table.state.announced[1] == INN
    table = Table(3).deal(2, ["3", "inn", "inn"]).act(EXCHANGE)  # wraps back to the attacker: no cost
    assert table.pieces() == ["3", "inn", "inn"] and table.state.chips[0] == 3
    table = Table(3).deal(2, ["3", "inn", "9"]).act(EXCHANGE)  # the dealer is the target
    assert table.pieces() == ["9", "inn", "3"]


def test_rule_cat__costs_the_attacker_and_undoes_every_exchange():
    table = Table(5).deal(4, ["3", "7", "cat", "9", "10"])
    table.act(EXCHANGE)  # 0 swaps with 1
    assert table.pieces()[:2] == ["7", "3"]
    table.act(EXCHANGE)  # 1 runs into the cat
    assert table.pieces() == ["3", "7", "cat", "9", "10"]
    assert table.state.chips[1] == 2 and table.state.pot == 1
    assert table.state.current_player == 2  # play goes on left of the attacker
    assert table.state.known[0, 1] == NO_PIECE  # knowledge from the undone exchange is void


def test_rule_cat__past_inns_undoes_exchanges_on_both_sides_play_goes_on_left_of_the_attacker():
    dealt = ["4", "6", "cat", "inn", "inn", "3", "9", "10"]
    table = Table(8).deal(7, dealt)
    table.act(EXCHANGE)  # 0 swaps its 4 for 1's 6: an exchange right of the later attacker
    table.act(STAND)
    table.act(EXCHANGE)  # 2 swaps its cat away past both inns to 5: an exchange across the later attacker
    assert table.pieces() == ["6", "4", "3", "inn", "inn", "cat", "9", "10"]
    table.act(EXCHANGE)  # 3 (an inn) goes by the inn at 4 into the cat at 5, two seats away
    assert table.state.announced[5] == CAT
    assert table.pieces() == dealt  # both exchanges undone, on both sides of the attacker
    assert table.state.chips.tolist() == [3, 3, 3, 2, 3, 3, 3, 3] and table.state.pot == 1
    # play goes on left of the attacker (the inn at 4), not at or after the cat
    assert table.state.phase == PHASE_TURNS and table.state.current_player == 4
    for viewer, seat in ((0, 1), (1, 0), (2, 5), (5, 2)):  # what the exchanges taught is void
        assert table.state.known[viewer, seat] == NO_PIECE
    assert table.observe(5)["known_pieces"][5 * 22 + 21] == 1  # seat 2 (relative 5 of seat 5): unknown again
    assert table.observe(5)["own_piece"][K("3")] == 1


def test_rule_bird__ends_the_turns_dealer_still_acts():
    table = Table(5).deal(4, ["3", "bird", "7", "9", "10"]).act(EXCHANGE)
    assert table.state.phase == PHASE_DEALER and table.state.current_player == 4
    assert table.state.chips[0] == 3
    paying = Table(5, bird_attempter_pays=True).deal(4, ["3", "bird", "7", "9", "10"]).act(EXCHANGE)
    assert paying.state.chips[0] == 2


def test_rule_knight__costs_the_attacker_and_ends_the_round_at_once():
    table = Table(4).deal(3, ["8", "knight", "3", "10"]).act(EXCHANGE)
    assert table.state.round_number == 2  # the showdown came and a new round was dealt
    assert list(table.state.shown) == [K("8"), K("knight"), K("3"), K("10")]
    assert table.state.chips.tolist() == [2, 3, 2, 3]  # the attacker and the lowest (the 3) paid


def test_rule_fool_over_fool__redeals_with_the_same_dealer():
    table = Table(4).deal(3, ["fool", "fool", "7", "8"])
    table.act(EXCHANGE)
    state = table.state
    assert state.round_number == 2 and state.dealer == 3
    assert state.phase == PHASE_TURNS and state.current_player == 0
    assert state.acted.tolist() == [0, 0, 0, 0] and state.bag_size == 42 - 4  # a fresh deal
    assert state.chips.tolist() == [3, 3, 3, 3] and state.pot == 0


def test_rule_fool_over_fool__earlier_payments_and_debts_stand():
    table = Table(7).deal(6, ["5", "cat", "6", "cat", "fool", "fool", "9"])
    table.state.chips[2] = 0  # seat 2 starts the round with no chips
    table.state.pot = 3
    table.act(EXCHANGE)  # 0 runs into the cat at 1 and pays a chip
    table.act(STAND)
    table.act(EXCHANGE)  # 2 runs into the cat at 3 with no chips: owes
    table.act(STAND)
    assert table.state.chips.tolist() == [2, 3, 0, 3, 3, 3, 3] and table.state.pot == 4
    table.act(EXCHANGE)  # fool over fool: the round is dealt again
    state = table.state
    assert state.round_number == 2 and state.dealer == 6 and state.current_player == 0
    assert state.chips.tolist() == [2, 3, 0, 3, 3, 3, 3] and state.pot == 4  # the cat's chip stays paid
    assert state.owes.tolist() == [0, 0, 1, 0, 0, 0, 0]  # and the debt stays owed
    while state.round_number == 2:
        table.act(STAND)
    assert state.in_game[2] == 0 and state.out_order[2] == 1  # out at the end of the redealt round


def test_rule_paying__with_no_chips_means_out_at_round_end():
    table = Table(3, start_chips=1).deal(2, ["3", "knight", "9"])
    table.state.chips[0] = 0
    table.state.pot = 1
    table.act(EXCHANGE)  # 0 owes for the knight, and is lowest too
    assert table.state.in_game[0] == 0 and table.state.out_order[0] == 1
    assert table.state.piece[0] == NO_PIECE


def test_rule_dealer_choice__stand_bag_or_swap_left():
    table = Table(3).deal(2, ["5", "6", "7"]).act(STAND, STAND)
    assert table.legal() == [STAND, EXCHANGE]
    variant = Table(3, dealer_may_swap_left=True).deal(2, ["5", "6", "7"]).act(STAND, STAND)
    assert variant.legal() == [STAND, EXCHANGE, DEALER_SWAP_LEFT]
    variant.act(DEALER_SWAP_LEFT)
    assert list(variant.state.shown) == [K("7"), K("6"), K("5")]
    pieces = [KIND_NAMES[k] for k in range(21)] * 2
    full = Table(42).deal(41, pieces)
    assert full.state.bag_size == 0
    while full.state.phase == PHASE_TURNS:
        full.act(STAND)
    assert full.legal() == [STAND]


def test_rule_bag_draw__takes_a_plain_piece_and_sets_the_old_aside():
    table = Table(3).deal(2, ["5", "6", "2"], bag=_bag_starting_with(["12"], ["5", "6", "2"]))
    table.act(STAND, STAND, EXCHANGE)
    assert table.state.shown[2] == K("12")
    # the 2 was set aside face up; at the showdown the 5 (now lowest) paid
    assert table.state.chips.tolist() == [2, 3, 3]
    # A showdown that ends the game deals no new round, so this round's set-aside pieces stay on record.
    last = Table(2).deal(1, ["5", "2"], bag=_bag_starting_with(["12"], ["5", "2"]))
    last.state.chips[0] = 0  # the 5 will owe at the showdown and go out
    last.state.pot = 3
    last.act(STAND, EXCHANGE)
    state = last.state
    assert state.terminated and state.shown.tolist() == [K("5"), K("12")]
    assert np.flatnonzero(state.set_aside).tolist() == [K("2")] and state.set_aside[K("2")] == 1
    assert state.bag_size == 42 - 3
    assert state.bag[: state.bag_size].tolist().count(K("2")) == 1  # only the other 2 is still in the bag
    for viewer in (0, 1):  # set aside face up: public
        assert np.flatnonzero(last.observe(viewer)["set_aside"]).tolist() == [K("2")]


def test_rule_bag_draw__through_the_env_the_old_piece_is_set_aside_face_up():
    env = cardenvs.env("slabberjan_v0", num_players=2, start_chips=1)
    dealt = ["5", "cat"]
    env.reset(seed=0, options={"deal": {"dealer": 1, "pieces": dealt, "bag": _bag_starting_with(["12"], dealt)}})
    env.step(EXCHANGE)  # player_0 runs into the dealer's cat and pays its only chip
    assert env.agent_selection == "player_1"
    env.step(EXCHANGE)  # the dealer draws the 12; its cat is set aside face up
    assert all(env.terminations.values())  # player_0 owed at the showdown: the game is over
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}
    state = env.unwrapped.snapshot()["state"]
    assert state["shown"] == [K("5"), K("12")]
    assert [kind for kind, count in enumerate(state["set_aside"]) if count] == [CAT]
    assert state["set_aside"][CAT] == 1
    assert state["bag"][: state["bag_size"]].count(CAT) == 1  # only the other cat is still in the bag
    layout = env.unwrapped.layout
    for agent in env.possible_agents:
        set_aside = layout.split(env.observe(agent)["observation"])["set_aside"]
        assert np.flatnonzero(set_aside).tolist() == [CAT]


def _bag_starting_with(first: list[str], dealt: list[str]) -> list[str]:
    remaining = [KIND_NAMES[k] for k in range(21)] * 2
    for name in dealt + first:
        remaining.remove(name)
    return first + remaining


def test_rule_bag_matadors__as_holder_and_variants():
    dealt = ["5", "6", "2"]
    inn_knight = Table(3).deal(2, dealt, bag=_bag_starting_with(["inn", "knight"], dealt))
    inn_knight.act(STAND, STAND)
    before = inn_knight.state.round_number
    inn_knight.act(EXCHANGE)
    assert inn_knight.state.round_number == before + 1
    assert inn_knight.state.shown[2] == K("2")  # the knight refused the exchange
    assert inn_knight.state.chips[2] == 1  # paid for the knight and again as the lowest
    cat = Table(3).deal(2, dealt, bag=_bag_starting_with(["cat"], dealt))
    cat.act(EXCHANGE)  # 0 swaps 5 for 6 with player 1
    cat.act(STAND, EXCHANGE)  # the dealer draws the cat: exchanges undone, dealer pays
    assert list(cat.state.shown) == [K("5"), K("6"), K("2")]
    bird = Table(3).deal(2, dealt, bag=_bag_starting_with(["bird"], dealt)).act(STAND, STAND, EXCHANGE)
    assert bird.state.shown[2] == K("2") and bird.state.chips[2] == 2  # refused, paid only as lowest
    gnav = Table(3, bag_matador_rule="inn_redraw_only").deal(2, dealt, bag=_bag_starting_with(["inn", "knight"], dealt))
    gnav.act(STAND, STAND, EXCHANGE)
    assert gnav.state.shown[2] == K("knight")
    keep = Table(3, bag_matador_rule="keep_any").deal(2, dealt, bag=_bag_starting_with(["inn"], dealt))
    keep.act(STAND, STAND, EXCHANGE)
    assert keep.state.shown[2] == K("inn")


def test_rule_empty_bag_redraw__keeps_the_piece():
    pieces = [KIND_NAMES[k] for k in range(21)] * 2
    pieces.remove("inn")
    pieces.remove("inn")
    table = Table(40).deal(39, pieces)
    assert sorted(table.state.bag[: table.state.bag_size].tolist()) == [INN, INN]
    while table.state.phase == PHASE_TURNS:
        table.act(STAND)
    dealer_piece = int(table.state.piece[39])
    table.act(EXCHANGE)
    assert table.state.shown[39] == dealer_piece


def test_rule_fool_knock__makes_dealt_fools_public():
    table = Table(4, fool_knocks=True).deal(3, ["5", "fool", "7", "8"])
    assert table.state.fool_knocked.tolist() == [0, 1, 0, 0]
    view = table.observe(0)
    assert view["fool_knocked"][1] == 1 and view["known_pieces"][22 + FOOL] == 1
    plain = Table(4).deal(3, ["5", "fool", "7", "8"])
    assert plain.observe(0)["known_pieces"][22 + 21] == 1


def test_rule_showdown_without_fools__the_lowest_pay_ties_all_pay():
    table = Table(4).deal(3, ["3", "3", "9", "white bread"]).act(STAND, STAND, STAND, STAND)
    assert table.state.paid.tolist() == [0, 0, 0, 1]
    tie = Table(3).deal(2, ["3", "3", "9"]).act(STAND, STAND, STAND)
    assert tie.state.paid.tolist() == [1, 1, 0]


def test_rule_showdown_with_fools__fools_pay_with_the_next_lowest():
    one = Table(4).deal(3, ["fool", "2", "2", "7"]).act(STAND, STAND, STAND, STAND)
    assert one.state.paid.tolist() == [1, 1, 1, 0]  # one fool: the lowest non-fool rank, ties included
    two = Table(5).deal(4, ["fool", "fool", "5", "7", "9"]).act(*[STAND] * 5)
    assert two.state.paid.tolist() == [1, 1, 1, 1, 0]
    few = Table(3).deal(2, ["fool", "fool", "9"]).act(STAND, STAND, STAND)
    assert few.state.paid.tolist() == [1, 1, 1]


def test_rule_eliminations__out_at_round_end_piece_still_counts():
    table = Table(3).deal(2, ["3", "knight", "2"])
    table.state.chips[0] = 0
    table.act(EXCHANGE)  # 0 owes for the knight; the showdown still counts its 3 (the 2 is lowest)
    assert table.state.paid.tolist() == [0, 0, 1]
    assert table.state.in_game.tolist() == [0, 1, 1]


def test_rule_next_round__the_deal_passes_left_skipping_players_out():
    table = Table(4).deal(0, ["5", "3", "7", "8"])
    table.state.chips[1] = 0
    table.act(STAND, STAND, STAND, STAND)
    assert table.state.in_game.tolist() == [1, 0, 1, 1]
    assert table.state.dealer == 2


def test_rule_end_and_rewards__winner_draw_and_placement():
    table = Table(2, start_chips=1).deal(1, ["3", "9"])
    table.state.chips[0] = 0
    table.act(STAND, STAND)
    assert table.state.phase == PHASE_OVER and table.state.terminated
    assert table.state.rewards.tolist() == [-1.0, 1.0]
    draw = Table(3, start_chips=1).deal(2, ["3", "3", "9"])
    draw.state.chips[:] = [0, 0, 0]
    draw.act(STAND, STAND, STAND)  # the two 3s go out together, the 9 is left and wins
    assert draw.state.rewards.tolist() == [-1.0, -1.0, 1.0]
    together = Table(2, start_chips=1).deal(1, ["3", "3"])
    together.state.chips[:] = [0, 0]
    together.act(STAND, STAND)
    assert together.state.terminated and together.state.rewards.tolist() == [0.0, 0.0]
    placement = Table(3, reward_scheme="placement").deal(2, ["3", "5", "9"])
    placement.state.chips[:] = [0, 3, 3]
    placement.act(STAND, STAND, STAND)
    placement.state.chips[1] = 0
    GAME.apply_deal(placement.state, placement.params, {"dealer": 1, "pieces": ["5", "4", "9"]})
    while not placement.state.terminated:
        placement.act(STAND)
    assert placement.state.rewards.tolist() == [-1.0, 0.0, 1.0]


def test_rule_illegal_actions__penalty_ends_the_game():
    env = cardenvs.env("slabberjan_v0", num_players=3, illegal_action="penalize")
    env.reset(seed=0)
    offender = env.agent_selection
    env.step(7)
    assert env.rewards[offender] == -1.0
    assert all(env.terminations.values())
    assert sum(env.rewards.values()) == -1.0


def test_rule_hidden_information__observation_hides_other_players_pieces():
    first = Table(5).deal(4, ["5", "6", "7", "8", "9"])
    second = Table(5).deal(4, ["5", "9", "8", "7", "6"])
    for name in ("own_piece", "known_pieces", "chips", "phase"):
        assert np.array_equal(first.observe(0)[name], second.observe(0)[name])
    full = first.observe(0)
    other = second.observe(0)
    for key in full:
        assert np.array_equal(full[key], other[key]), key


def test_observation_table_in_docs_matches_the_code():
    doc = (Path(__file__).parents[2] / "docs" / "rules" / "slabberjan.md").read_text()
    layout = GAME.observation_layout(GAME.make_params())
    assert layout.markdown() in doc


def test_every_matador_and_phase_constant_is_distinct():
    assert len({INN, CAT, BIRD, KNIGHT}) == 4 and min(INN, CAT, BIRD, KNIGHT) > K("12")
    assert len({PHASE_TURNS, PHASE_DEALER, PHASE_OVER}) == 3
    assert NO_PIECE not in (INN, CAT, BIRD, KNIGHT, FOOL)
