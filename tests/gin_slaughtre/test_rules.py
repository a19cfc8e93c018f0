"""Scenario tests of the rules of docs/rules/gin_slaughtre.md (``test_rule_<slug>…``), from chosen deals or positions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs.core.game import NO_PLAYER
from cardenvs.games.gin_slaughtre import GAME
from cardenvs.games.gin_slaughtre.actions import (
    ACTION_CARDS,
    ACTION_SIZE,
    DRAW,
    NUM_ARRANGEMENTS,
    RUN_BASE,
    SLOT_BASE,
    TAKE_PILE,
    arrangement_action,
    run_action,
)
from cardenvs.games.gin_slaughtre.cards import NUM_CARDS, card_id, card_ids, card_name
from cardenvs.games.gin_slaughtre.rules import (
    EVENT_CHAIN,
    EVENT_CHAIN_DRAWN,
    EVENT_DRAWN,
    EVENT_SHOWN,
    EVENT_STARTER,
    EVENT_STUCK,
    LOC_BURNT,
    LOC_STOCK,
    PHASE_ARRANGE,
    PHASE_OVER,
    PHASE_PLAY,
    STARTER_RANK_ORDER,
    STARTER_RANKS_BEFORE,
    rank_of,
)
from tests.gin_slaughtre.table import Table, names, trick

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules" / "gin_slaughtre.md"


def known_in_opponent_hand(table: Table, observer: int) -> set[str]:
    view = table.observe(observer)["opponent_known_hand"]
    return {card_name(c) for c in np.flatnonzero(view)}


def test_rule_players_and_ranking__two_players_54_cards_ace_low_joker_high():
    assert GAME.num_players(GAME.make_params()) == 2
    with pytest.raises(ValueError, match="from 2 to 2"):
        cardenvs.env("gin_slaughtre_v0", num_players=3)
    assert [card_name(c) for c in (0, 3, 4, 51, 52, 53)] == ["AC", "AS", "2C", "KS", "JO1", "JO2"]
    ranks = [rank_of(card_id(n)) for n in ("AH", "2H", "5H", "9H", "10H", "JH", "QH", "KH", "JO2")]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    table = Table(seed=4)
    assert sorted(np.bincount(table.state.location, minlength=9).tolist()) == sorted([40, 0, 0, 4, 4, 3, 3, 0, 0])


def test_rule_chance__dealer_and_shuffle_come_from_the_seed():
    dealers = {int(Table(seed=s).state.dealer) for s in range(30)}
    assert dealers == {0, 1}
    first, again, other = Table(seed=9), Table(seed=9), Table(seed=10)
    assert np.array_equal(first.state.stock, again.state.stock) and first.state.dealer == again.state.dealer
    assert not np.array_equal(first.state.stock, other.state.stock)


def test_rule_deal__three_upcards_four_hand_cards_forty_in_stock():
    table = Table(seed=3)
    assert table.state.hand_count.tolist() == [4, 4] and table.state.up_count.tolist() == [3, 3]
    assert table.state.stock_size == 40 and table.state.phase == PHASE_ARRANGE
    hands = [["3C", "4C", "5C", "6C"], ["3D", "4D", "5D", "6D"]]
    upcards = [["KC", "QC", "JC"], ["KD", "QD", "JD"]]
    table.deal(hands, upcards, stock=["AS", "2S"], dealer=0, arrange=False)
    assert table.hand(0) == names(hands[0]) and table.upcards(1) == names(upcards[1])
    assert card_name(int(table.state.stock[table.state.stock_size - 1])) == "AS"  # drawn first
    deck = ["KD", "QD", "JD", "3D", "4D", "5D", "6D", "KC", "QC", "JC", "3C", "4C", "5C", "6C", "AS", "2S"]
    deck += [card_name(c) for c in range(NUM_CARDS) if card_name(c) not in deck]
    same = Table(seed=5)
    GAME.apply_deal(same.state, same.params, {"dealer": 0, "deck": deck})
    assert np.array_equal(same.state.location, table.state.location)
    assert np.array_equal(same.state.stock, table.state.stock)
    with pytest.raises(ValueError, match="exactly once"):
        GAME.apply_deal(same.state, same.params, {"dealer": 0, "deck": deck[:-1] + deck[:1]})


def test_rule_arranging__simultaneous_and_hidden():
    table = Table()
    hands = [["3C", "4C", "5C", "6C"], ["3D", "4D", "5D", "6D"]]
    upcards = [["KC", "QC", "JC"], ["KD", "QD", "JD"]]
    table.deal(hands, upcards, dealer=1, arrange=False)
    assert table.legal() == list(range(NUM_ARRANGEMENTS)) and table.state.current_player == 0
    before = table.observe(1)
    table.act(arrangement_action(card_ids(hands[0] + upcards[0]), card_ids(["3C", "4C", "5C"])))
    assert table.state.current_player == 1 and table.state.phase == PHASE_ARRANGE
    after = table.observe(1)
    for view in ("own_hand", "own_upcards", "opponent_upcards", "opponent_known_hand"):
        assert np.array_equal(before[view], after[view]), view  # seat 0's choice is not visible yet
    assert table.upcards(0) == names(upcards[0])
    table.act(arrangement_action(card_ids(hands[1] + upcards[1]), card_ids(upcards[1])))
    assert table.state.phase == PHASE_PLAY
    assert table.upcards(0) == names(["3C", "4C", "5C"]) and table.hand(0) == names(["6C", "KC", "QC", "JC"])
    assert table.upcards(1) == names(upcards[1])
    # Cards that lay face up and went into the hand stay known to the opponent.
    assert known_in_opponent_hand(table, 1) == names(["KC", "QC", "JC"])
    assert known_in_opponent_hand(table, 0) == set()


def test_rule_starter__lowest_card_upcards_first():
    assert [int(r) for r in STARTER_RANK_ORDER] == [*range(2, 14), 0, 1]  # 3 … K, Joker, Ace, 2
    rest = [["KC", "QC", "JC", "10C"], ["KD", "QD", "JD", "10D"]]
    # a 3 among seat 0's upcards beats a 3 in the hand of seat 1, who sits left of dealer 0
    table = Table().deal([["4S", *rest[0][1:]], ["3C", *rest[1][1:]]], [["3H", "8H", "8S"], ["9C", "9D", "9H"]],
                         dealer=0)
    assert table.state.current_player == 0 and card_name(int(table.state.starter_card)) == "3H"
    # 3s only in hands: the dealer's left (seat 1) starts and its 3 becomes public
    table = Table().deal([["3D", *rest[0][1:]], ["3C", *rest[1][1:]]], [["8C", "8H", "8S"], ["9C", "9D", "9H"]],
                         dealer=0)
    assert table.state.current_player == 1 and known_in_opponent_hand(table, 0) == {"3C"}
    # no 3 dealt: the lowest 4 decides
    table = Table().deal([["4D", *rest[0][1:]], ["5C", *rest[1][1:]]], [["8C", "8H", "8S"], ["9C", "9D", "9H"]],
                         dealer=1)
    assert table.state.current_player == 0 and card_name(int(table.state.starter_card)) == "4D"
    # only Kings, Jokers, Aces and 2s: Kings come before them
    table = Table().deal([["KC", "KD", "KH", "KS"], ["AC", "AD", "2C", "2D"]],
                         [["JO1", "JO2", "2S"], ["AH", "AS", "2H"]], dealer=1)
    assert table.state.current_player == 0 and known_in_opponent_hand(table, 1) == {"KC"}
    table = Table(starter_rule="left_of_dealer").deal(
        [["3D", *rest[0][1:]], ["5C", *rest[1][1:]]], [["3C", "8H", "8S"], ["9C", "9D", "9H"]], dealer=0
    )
    assert table.state.current_player == 1


def test_rule_trick_source__hand_cards_first_no_mixing_with_upcards():
    table = Table().position(hands=[["7C"], ["3D", "4D"]], upcards=[["8C", "9C", "10C"], ["QH", "QS", "KH"]])
    assert table.legal_names() == {"play 7C"}
    assert run_action(0, 6, 3) not in table.legal()  # 7C (hand) + 8C 9C (upcards) is no trick
    table.play("7C")
    assert table.legal() == [TAKE_PILE]  # nothing of seat 1's beats the 7 and the stock is empty
    table.act(TAKE_PILE)
    # seat 0's hand is empty and so is the stock: the upcards are the source now, runs of them included
    assert table.legal_names() == {"play 8C", "play 9C", "play 10C", "run 8C-10C"}


def test_rule_tricks__single_set_of_3_or_4_run_of_3_plus():
    hand = ["5C", "5D", "5H", "5S", "6S", "7S", "8S", "JO1", "JO2"]
    table = Table().position(hands=[hand, ["KD"]])
    legal = table.legal_names()
    assert {f"play {c}" for c in hand} <= legal
    assert {"set 5C 5D 5H", "set 5C 5D 5S", "set 5C 5H 5S", "set 5D 5H 5S", "set 5C 5D 5H 5S"} <= legal
    assert {"run 5S-7S", "run 5S-8S", "run 6S-8S"} <= legal
    assert len(legal) == 9 + 5 + 3  # no pairs, no Joker set, no take (empty pile), no draw
    pairs = Table(min_set_size=2).position(hands=[hand, ["KD"]]).legal_names()
    assert len(pairs) == 17 + 6 + 1 and "set JO1 JO2" in pairs and "set 5D 5S" in pairs
    table.play("5S", "5C", "5D")
    assert table.pile() == ["5C", "5D", "5S"]  # a set is laid in suit order: its top is the highest suit
    assert Table().position(hands=[["QH", "KH", "AH", "2H"], ["KD"]]).legal_names() == {
        "play QH", "play KH", "play AH", "play 2H"}  # no wrap: Q-K-A is no run, A-2 too short
    for action in range(RUN_BASE, TAKE_PILE):  # every run action: one suit, consecutive, ascending
        cards = ACTION_CARDS[action, : ACTION_SIZE[action]].tolist()
        assert len(cards) >= 3 and len({c % 4 for c in cards}) == 1
        assert [c // 4 for c in cards] == list(range(cards[0] // 4, cards[0] // 4 + len(cards)))


def test_rule_equal_or_higher__judged_on_the_lowest_card():
    hand = ["7C", "8H", "QC", "3S", "6D", "7D", "8D"]
    table = Table().position(hands=[hand, ["KD"]], pile=["8C"])
    assert table.legal_names() == {"play 8H", "play QC", "play 8D", "take the pile"}
    table = Table().position(hands=[hand, ["KD"]], pile=["5C"])
    assert "run 6D-8D" in table.legal_names() and "play 3S" not in table.legal_names()
    table.play("6D", "7D", "8D")
    assert table.pile()[-1] == "8D"  # the run's last card is the new top


def test_rule_twos__on_anything_and_anything_on_a_two():
    table = Table().position(hands=[["2D", "5C", "KD"], ["3H", "4H"]], pile=["KC"])
    assert table.legal_names() == {"play 2D", "play KD", "take the pile"}
    table.play("2D")
    assert table.legal_names() == {"play 3H", "play 4H", "take the pile"}


def test_rule_nines__any_time_burn_and_play_again():
    table = Table().position(hands=[["9D", "4C", "6C"], ["KD"]], pile=["KC", "QC"], stock=["8H", "8S"])
    assert "play 9D" in table.legal_names() and "play 4C" not in table.legal_names()
    table.play("9D")
    assert table.pile() == [] and names(["KC", "QC", "9D"]) <= table.cards_at(LOC_BURNT)
    assert table.state.current_player == 0 and table.hand(0) == names(["4C", "6C", "8H", "8S"])
    table = Table().position(hands=[["7H", "8H", "9H", "KS"], ["KD"]], pile=["5C"])
    table.play("7H", "8H", "9H")  # a run ending in a 9 burns too
    assert table.pile() == [] and table.state.current_player == 0


def test_rule_nines__through_the_env():
    env = cardenvs.env("gin_slaughtre_v0")
    hands = [["9D", "4C", "6C", "KC"], ["3H", "5S", "7S", "8S"]]
    upcards = [["QH", "QS", "KH"], ["JH", "JS", "KS"]]
    env.reset(seed=0, options={"deal": {"dealer": 1, "hands": hands, "upcards": upcards, "stock": ["2C", "2D"]}})
    for seat in (0, 1):  # both keep the upcards as dealt
        env.step(arrangement_action(card_ids(hands[seat] + upcards[seat]), card_ids(upcards[seat])))
    assert env.agent_selection == "player_1"  # the only 3 dealt is in seat 1's hand
    env.step(trick("3H"))
    assert env.agent_selection == "player_0"
    env.step(trick("9D"))
    assert env.agent_selection == "player_0"  # the 9 burnt the pile: the same player plays again
    layout = env.unwrapped.layout
    views = layout.split(env.observe("player_0")["observation"])
    assert {card_name(c) for c in np.flatnonzero(views["burnt"])} == {"3H", "9D"}
    assert views["pile_size"][0] == 0
    assert {card_name(c) for c in np.flatnonzero(views["own_hand"])} == {"4C", "6C", "KC", "2D"}  # refilled
    mask = env.observe("player_0")["action_mask"]
    assert mask[trick("4C")] and not mask[TAKE_PILE]  # anything goes on the empty pile; nothing to take


def test_rule_quartets__four_of_a_rank_on_top_burn():
    table = Table().position(hands=[["7C", "7D", "7H", "7S", "4D"], ["KD"]], pile=["3C"], stock=["KH", "KS", "QH"])
    table.play("7C", "7D", "7H", "7S")
    assert table.pile() == [] and table.state.current_player == 0
    table = Table().position(hands=[["7H", "KS"], ["7S", "QS"]], pile=["7C", "7D"])
    table.play("7H").play("7S")  # completed over several plays and players
    assert table.pile() == [] and table.state.current_player == 1
    table = Table().position(hands=[["7D", "7H", "7S", "KS"], ["QS"]], pile=["7C"])
    table.play("7D", "7H", "7S")
    assert table.pile() == []
    for rule, burnt in (("rank", False), ("rank_or_suit", True)):
        table = Table(quartet_rule=rule).position(hands=[["10C", "KS"], ["QS"]], pile=["3C", "5C", "8C"])
        table.play("10C")
        assert (table.pile() == []) == burnt


def test_rule_burning__no_effect_burner_refills_and_leads():
    table = Table().position(hands=[["5C", "5D", "5H", "5S", "6C"], ["QH"]], pile=["4H"], stock=["KC", "KD", "KH"])
    table.play("5C", "5D", "5H", "5S")  # top card 5S is black, but the pile is burnt: no draw
    assert table.hand(1) == {"QH"} and not table.state.restricted
    assert table.state.current_player == 0 and table.hand(0) == names(["6C", "KC", "KD", "KH"])
    table = Table().position(hands=[["9C"], ["QH"]], pile=["4H"])
    table.play("9C")  # nothing left to refill with: the burner has won
    assert table.state.terminated and table.state.rewards.tolist() == [1.0, -1.0]


def test_rule_effects__only_the_top_card_acts_once_unless_stack_effects():
    table = Table().position(hands=[["4C", "5C", "6C", "KD"], ["QH"]], stock=["2C", "2D", "2H", "2S"])
    table.play("4C", "5C", "6C")  # a black 5 inside a run does nothing
    assert table.hand(1) == {"QH"} and table.hand(0) == names(["KD", "2C", "2D", "2H"])
    table = Table().position(hands=[["5C", "5D", "5H", "KD"], ["QH"]], stock=["2C", "2D", "2H", "2S"])
    table.play("5C", "5D", "5H")  # top 5H is red: a restriction, no draw from the black 5C
    assert table.hand(1) == {"QH"} and table.state.restricted
    for stack, drawn in ((False, 1), (True, 2)):
        table = Table(stack_effects=stack).position(hands=[["5C", "5D", "5S", "KD"], ["QH"]], stock=["2C", "2D", "2H"])
        table.play("5C", "5D", "5S")
        assert table.state.hand_count[1] == 1 + drawn
    for stack, drawn in ((False, 0), (True, 2)):  # a Jack inside a run acts only with stack_effects
        table = Table(stack_effects=stack).position(hands=[["JC", "QC", "KC"], ["QH"]], stock=["KD", "AS", "2S"])
        table.play("JC", "QC", "KC")
        assert table.state.hand_count[1] == 1 + drawn


def test_rule_black_five__opponent_draws_one():
    table = Table().position(hands=[["5C", "KD", "KH", "KS"], ["QH"]], pile=["4H"], stock=["8C", "9D"])
    table.play("5C")
    assert table.hand(1) == names(["QH", "8C"]) and table.hand(0) == names(["KD", "KH", "KS", "9D"])
    assert table.state.current_player == 1 and not table.state.restricted
    table = Table().position(hands=[["5S", "KD"], ["QH"]], pile=["4H"])
    table.play("5S")  # an empty stock: nothing to draw
    assert table.hand(1) == {"QH"}


def test_rule_red_five__restricts_the_next_action_to_five_or_lower():
    hand1 = ["3C", "7C", "2H", "9S", "JO1"]
    table = Table().position(hands=[["5D", "KD"], hand1], pile=["4H"])
    table.play("5D")
    assert table.state.restricted and table.observe(0)["restricted"][0] == 1
    assert table.legal_names() == {"play 3C", "play 2H", "play 9S", "take the pile"}
    table.play("3C")
    assert not table.state.restricted and "play KD" in table.legal_names()  # back to equal-or-higher
    table = Table().position(hands=[["5D", "KD"], hand1], pile=["4H"])
    table.play("5D").act(TAKE_PILE)  # the restriction ends with the turn, whatever was done
    assert not table.state.restricted and table.state.current_player == 0
    table = Table().position(hands=[["5D", "KD"], hand1], pile=["4H"])
    table.play("5D").play("9S")  # a burn starts fresh
    assert table.state.current_player == 1 and {"play 7C", "play JO1"} <= table.legal_names()
    table = Table().position(hands=[["5H", "KD"], ["3C", "4C", "5C", "6C"]], pile=["4H"])
    table.play("5H")
    assert {"run 3C-5C"} == {n for n in table.legal_names() if n.startswith("run")}
    table = Table(red5_rule="draw_until_leq5").position(hands=[["5D", "KD"], ["QH"]], pile=["4H"],
                                                         stock=["KC", "4S", "QD"])
    table.play("5D")
    assert table.hand(1) == names(["QH", "KC", "4S"]) and not table.state.restricted


def test_rule_jack__opponent_draws_until_five_or_lower():
    table = Table().position(hands=[["JC", "KD", "KH", "KS"], ["QH"]], pile=["8H"], stock=["KC", "10S", "4C", "6H"])
    table.play("JC")
    assert table.hand(1) == names(["QH", "KC", "10S", "4C"]) and table.hand(0) == names(["KD", "KH", "KS", "6H"])
    assert table.state.current_player == 1
    table = Table().position(hands=[["JC", "KD"], ["QH"]], pile=["8H"], stock=["JO1", "AC", "2C"])
    table.play("JC")  # a Joker is not 5 or lower; an Ace is
    assert table.hand(1) == names(["QH", "JO1", "AC"])
    table = Table().position(hands=[["JC", "KD", "KH", "KS"], ["QH"]], pile=["8H"], stock=["KC", "QC"])
    table.play("JC")  # the stock runs out: the drawing stops and the Jack's player cannot refill
    assert table.hand(1) == names(["QH", "KC", "QC"]) and table.state.hand_count[0] == 3


def test_rule_joker__opponent_takes_the_pile_and_the_player_leads_again():
    table = Table().position(hands=[["JO1", "3C", "3D", "3H"], ["KH"]], pile=["7C", "8D"], stock=["4S"])
    table.play("JO1")
    assert table.hand(1) == names(["KH", "7C", "8D", "JO1"]) and table.pile() == []
    assert table.state.current_player == 0 and table.hand(0) == names(["3C", "3D", "3H", "4S"])
    assert known_in_opponent_hand(table, 0) == names(["7C", "8D", "JO1"])
    table = Table(joker_consumes_turn=False).position(hands=[["JO1", "3C"], ["KH"]], pile=["7C"])
    table.play("JO1")
    assert table.state.current_player == 1 and table.hand(1) == names(["KH", "7C", "JO1"])


def test_rule_refill__to_four_after_the_opponents_forced_draws():
    table = Table().position(hands=[["5C", "6C", "7C", "8C"], ["QH"]], stock=["4D", "KS"])
    table.play("5C")
    assert "4D" in table.hand(1) and "KS" in table.hand(0)  # the opponent drew first
    table = Table().position(hands=[["6C", "7C", "8C", "9D"], ["QH"]], stock=["KS"])
    table.play("6C")
    assert table.state.hand_count[0] == 4 and table.state.stock_size == 0
    table = Table().position(hands=[["6C", "7C", "8C", "9D", "10D", "JD"], ["QH"]], stock=["KS"])
    table.play("6C")  # more than four in hand: no refill
    assert table.state.hand_count[0] == 5 and table.state.stock_size == 1
    table = Table().position(hands=[["6C", "7C", "8C", "9D"], ["QH"]])
    table.play("6C")  # no stock: the hand stays short
    assert table.state.hand_count[0] == 3


def test_rule_take_pile__always_allowed_on_a_pile():
    table = Table().position(hands=[["9C", "KD", "2S", "3S"], ["QH"]], pile=["5C", "8D"])
    assert {"play KD", "take the pile"} <= table.legal_names()
    table.act(TAKE_PILE)
    assert table.hand(0) == names(["9C", "KD", "2S", "3S", "5C", "8D"]) and table.state.current_player == 1
    assert known_in_opponent_hand(table, 1) == names(["5C", "8D"])
    assert TAKE_PILE not in table.legal()  # the pile is empty now


def test_rule_draw_when_stuck__only_when_no_trick_is_legal():
    table = Table().position(hands=[["3C", "4C", "6C", "7C"], ["QH"]], pile=["KD"], stock=["8S", "QS"])
    assert table.legal() == [TAKE_PILE, DRAW]
    table.act(DRAW)
    assert table.hand(0) == names(["3C", "4C", "6C", "7C", "8S"]) and table.state.current_player == 1
    assert known_in_opponent_hand(table, 1) == set()  # a drawn card stays private
    table = Table().position(hands=[["3C", "4C", "6C", "7C"], ["QH"]], pile=["KD"])
    assert table.legal() == [TAKE_PILE]  # no stock: the pile must be taken
    table = Table().position(hands=[["3C", "KC"], ["QH"]], pile=["KD"], stock=["8S"])
    assert DRAW not in table.legal()


def test_rule_upcards_endgame__a_pickup_goes_back_to_the_hand():
    table = Table().position(hands=[[], ["3S", "AS"]], upcards=[["4C", "9D", "KS"], []], pile=["QD"])
    assert table.legal_names() == {"play 9D", "play KS", "take the pile"}
    table.act(TAKE_PILE).play("3S")
    assert table.legal_names() == {"play QD", "take the pile"}  # hand cards before the upcards again


def test_rule_downcards__turned_over_blind():
    table = Table(num_downcards=3, seed=2)
    assert table.state.down_count.tolist() == [3, 3] and table.state.stock_size == 34
    downs = [["KC", "3D", "9H"], ["2C", "2D", "2H"]]
    table = Table(num_downcards=3).position(hands=[[], ["AS", "KS"]], pile=["QD"], downcards=downs)
    assert table.legal() == [TAKE_PILE, SLOT_BASE, SLOT_BASE + 1, SLOT_BASE + 2]
    table.act(SLOT_BASE)  # KC beats the Q: played
    assert table.pile() == ["QD", "KC"] and table.state.current_player == 1
    table.play("KS")
    table.act(SLOT_BASE + 1)  # 3D does not: it goes to the hand with the pile, face up
    assert table.hand(0) == names(["3D", "QD", "KC", "KS"]) and known_in_opponent_hand(table, 1) == table.hand(0)
    assert table.state.current_player == 1 and table.state.down_count[0] == 1
    observed = table.observe(1)["downcards"]
    assert observed.tolist() == [1, 1, 1, 0, 0, 1]  # own slots first, then the opponent's


def test_rule_winning__the_first_player_without_cards_wins():
    table = Table().position(hands=[[], ["3S"]], upcards=[["KS"], []], pile=["QD"])
    table.play("KS")
    assert table.state.terminated and table.state.phase == PHASE_OVER and table.state.winner == 0
    assert table.state.rewards.tolist() == [1.0, -1.0] and table.state.current_player == NO_PLAYER
    table = Table().position(hands=[["KS"], ["3S"]], pile=["QD"], stock=["3C"])
    table.play("KS")  # the stock refills the hand: no win
    assert not table.state.terminated and table.hand(0) == {"3C"}
    table = Table().position(hands=[["JC"], ["3S"]], pile=["8H"], stock=["KC", "QC"])
    table.play("JC")  # the Jack's draws empty the stock: nothing to refill, the player is out and wins
    assert table.state.terminated and table.state.winner == 0


def test_rule_truncation__after_max_turns():
    table = Table(max_turns=3)
    table.act(0, 0)
    table.act(table.legal()[0])
    assert table.state.truncated and not table.state.terminated and table.state.step_count == 3
    assert table.state.rewards.tolist() == [0.0, 0.0] and table.state.current_player == NO_PLAYER
    assert table.legal() == []
    with pytest.raises(ValueError, match="max_turns"):
        cardenvs.env("gin_slaughtre_v0", max_turns=0)


def test_rule_illegal_actions__raise_or_are_penalised():
    env = cardenvs.env("gin_slaughtre_v0")
    env.reset(seed=1)
    with pytest.raises(cardenvs.IllegalActionError, match="legal actions"):
        env.step(TAKE_PILE)  # an arrangement is due
    env = cardenvs.env("gin_slaughtre_v0", illegal_action="penalize")
    env.reset(seed=1)
    env.step(DRAW)
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0} and env.terminations["player_0"]
    for bad in ({"min_set_size": 4}, {"num_downcards": 2}, {"red5_rule": "x"}, {"stack_effects": 1}):
        with pytest.raises(ValueError, match="not allowed"):
            cardenvs.env("gin_slaughtre_v0", **bad)


def test_rule_hidden_information__observation_shows_public_and_own_cards_only():
    public = {"upcards": [["4C"], ["5D"]], "pile": ["7C", "8D", "8S"]}
    first = Table().position(hands=[["KC", "QC"], ["2D", "3D", "JH"]], stock=["AS", "AH", "6S"], **public)
    second = Table().position(hands=[["KC", "QC"], ["AS", "AH", "6S"]], stock=["JH", "3D", "2D"], **public)
    one, two = first.observe(0), second.observe(0)
    assert np.array_equal(one["flat"], two["flat"])  # the opponent's unknown cards and the stock order are hidden
    assert {card_name(c) for c in np.flatnonzero(one["own_hand"])} == {"KC", "QC"}
    top = one["pile_top"].reshape(4, NUM_CARDS + 1)
    assert [card_name(int(np.argmax(row))) if np.argmax(row) < NUM_CARDS else "-" for row in top] == [
        "8S", "8D", "7C", "-"]
    assert one["pile_size"][0] == 3 and one["pile_top_same_rank"][0] == 2
    assert one["hand_sizes"].tolist() == [2, 3] and one["stock_size"][0] == 3
    assert one["to_act"].tolist() == [1, 0] and first.observe(1)["to_act"].tolist() == [0, 1]
    assert one["mask"].any() and not first.observe(1)["mask"].any()
    assert first.observe(1)["opponent_upcards"][card_id("4C")] == 1
    assert one["burnt"].sum() == NUM_CARDS - 13 and int(first.state.location[card_id("AS")]) == LOC_STOCK


def _hand_events(table: Table, seat: int) -> list[int]:
    return [int(event) for event in table.state.hand_events[seat, : table.state.hand_event_count[seat]]]


def test_rule_hidden_information__hand_events_note_what_the_other_seat_saw():
    # seat 0 (the dealer's left) starts from its upcard 3♣; the stock gives A♣, 9♦, 8♦, K♣, 3♥ in that order
    table = Table().deal(hands=[["KS", "2S", "JS", "6C"], ["4D", "6H", "7D", "QD"]],
                         upcards=[["3C", "8C", "10C"], ["4S", "6S", "7S"]], stock=["AC", "9D", "8D", "KC", "3H"])
    starter = EVENT_STARTER + STARTER_RANKS_BEFORE  # found among the upcards: no 3 in a hand is excluded
    for seat in range(2):
        assert _hand_events(table, seat) == [EVENT_DRAWN] * 4 + [starter]
    table.play("KS")  # seat 0 shows K♠ and refills A♣ unseen
    assert _hand_events(table, 0)[-2:] == [EVENT_SHOWN + card_id("KS"), EVENT_DRAWN]
    table.act(DRAW)  # seat 1 cannot lay on the King: its floor noted, then the card it drew (9♦)
    assert _hand_events(table, 1)[-2:] == [EVENT_STUCK + rank_of(card_id("KS")), EVENT_DRAWN]
    table.play("2S").play("4D")  # seat 0 refills 8♦; seat 1 holds 5 cards, so it does not refill
    assert _hand_events(table, 1)[-1] == EVENT_SHOWN + card_id("4D")
    table.play("JS")  # seat 1 draws until 5 or lower: K♣, then 3♥
    one_draw_until_low = (1 << 1) | 1  # one effect (the leading bit), and it draws until a low card
    assert _hand_events(table, 1)[-3:] == [EVENT_CHAIN + one_draw_until_low] + [EVENT_CHAIN_DRAWN] * 2
    assert table.hand(1) == {"6H", "7D", "QD", "9D", "KC", "3H"}


def test_docs_contain_the_generated_observation_table():
    layout = GAME.observation_layout(GAME.make_params())
    assert layout.markdown() in DOC.read_text()


def test_action_space_sizes_follow_the_parameters():
    assert GAME.num_actions(GAME.make_params()) == 420
    assert GAME.num_actions(GAME.make_params(num_downcards=3)) == 423
    assert GAME.num_actions(GAME.make_params(min_set_size=2)) == 502
    assert all(GAME.action_name(GAME.make_params(min_set_size=2), a) for a in range(502))
