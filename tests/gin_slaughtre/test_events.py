"""The public events a step announces to people at the table (``GAME.describe_step``), never a hidden card."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.games.gin_slaughtre import GAME
from cardenvs.games.gin_slaughtre.actions import SLOT_BASE, TAKE_PILE, arrangement_action
from cardenvs.games.gin_slaughtre.cards import NUM_CARDS, card_id, card_ids, pretty_name
from cardenvs.games.gin_slaughtre.rules import LOC_BURNT, LOC_HAND, LOC_PILE, LOC_UP
from tests.gin_slaughtre.table import Table, trick

PRETTY_NAMES = {pretty_name(card): card for card in range(NUM_CARDS)}
RANDOM_GAMES = 12
PARAM_SETS = ({}, {"num_downcards": 3, "min_set_size": 2, "stack_effects": True, "quartet_rule": "rank_or_suit"})


def events(table: Table, action: int) -> list[str]:
    before = table.state.copy()
    table.act(action)
    return GAME.describe_step(before, table.state.copy(), table.params)


def play(table: Table, *cards: str) -> list[str]:
    return events(table, trick(*cards))


def test_a_nine_burns_and_the_player_plays_again():
    table = Table().position(hands=[["9D", "4C", "6C"], ["KD"]], pile=["KC", "QC"], stock=["8H"])
    assert play(table, "9D") == ["player_0 burns the pile (a 9)", "player_0 plays again"]


def test_four_of_a_rank_completed_by_the_opponent_burn():
    table = Table().position(hands=[["7H", "KS"], ["7S", "QS"]], pile=["7C", "7D"])
    assert play(table, "7H") == []
    assert play(table, "7S") == ["player_1 burns the pile (four 7s)", "player_1 plays again"]
    table = Table().position(hands=[["QC", "QD", "QH", "QS", "3C"], ["KS"]], pile=["4C"])
    assert play(table, "QC", "QD", "QH", "QS") == ["player_0 burns the pile (four Queens)", "player_0 plays again"]


def test_four_of_a_suit_burn_with_rank_or_suit():
    table = Table(quartet_rule="rank_or_suit").position(hands=[["10C", "KS"], ["QS"]], pile=["3C", "5C", "8C"])
    assert play(table, "10C") == ["player_0 burns the pile (four ♣)", "player_0 plays again"]


def test_taking_the_pile_counts_the_cards():
    table = Table().position(hands=[["9C", "KD"], ["QH"]], pile=["5C", "8D", "8S"])
    assert events(table, TAKE_PILE) == ["player_0 picks up the pile (3 cards)"]


def test_a_joker_makes_the_opponent_pick_up_and_the_player_plays_again():
    table = Table().position(hands=[["JO1", "3C", "3D", "3H"], ["KH"]], pile=["7C", "8D"], stock=["4S"])
    assert play(table, "JO1") == ["player_1 picks up the pile (3 cards)", "player_0 plays again"]
    table = Table(joker_consumes_turn=False).position(hands=[["JO2", "3C"], ["KH"]])
    assert play(table, "JO2") == ["player_1 picks up the pile (1 card)"]


def test_forced_draws_are_counted_never_named():
    table = Table().position(hands=[["JC", "KD", "KH", "KS"], ["QH"]], pile=["8H"], stock=["KC", "10S", "4C", "6H"])
    lines = play(table, "JC")
    assert lines == ["player_1 draws 3 cards from the stock"]
    table = Table().position(hands=[["5S", "KD", "KH", "KS"], ["QH"]], pile=["4H"], stock=["8C", "9D"])
    assert play(table, "5S") == ["player_1 draws 1 card from the stock"]


def test_a_red_five_announces_the_restriction():
    table = Table().position(hands=[["5D", "KD"], ["3C", "QH"]], pile=["4H"])
    assert play(table, "5D") == ["player_1 must play 5 or lower (or 2s or 9s)"]
    assert play(table, "3C") == []


def test_the_winner_is_announced():
    table = Table().position(hands=[[], ["3S"]], upcards=[["KS"], []], pile=["QD"])
    assert play(table, "KS") == ["player_0 has no cards left and wins"]


def test_truncation_is_announced():
    table = Table(max_turns=3)
    table.act(0, 0)
    assert events(table, table.legal()[0])[-1] == "the game stops after 3 turns: a draw"


def test_the_starter_is_announced_once_both_arrangements_are_revealed():
    hands = [["3D", "QC", "JC", "10C"], ["3C", "QD", "JD", "10D"]]
    upcards = [["8C", "8H", "8S"], ["9C", "9D", "9H"]]
    table = Table().deal(hands, upcards, dealer=0, arrange=False)
    keep = [arrangement_action(card_ids(hands[s] + upcards[s]), card_ids(upcards[s])) for s in (0, 1)]
    assert events(table, keep[0]) == []  # seat 0's choice stays hidden
    assert events(table, keep[1]) == [
        "both players reveal their upcards", "player_1 starts with the lowest card, 3♣ (declared from the hand)"]
    table = Table().deal(hands, [["3H", "8H", "8S"], ["9C", "9D", "9H"]], dealer=0, arrange=False)
    table.act(arrangement_action(card_ids(hands[0] + ["3H", "8H", "8S"]), card_ids(["3H", "8H", "8S"])))
    assert events(table, keep[1])[-1] == "player_0 starts with the lowest card, 3♥ (an upcard)"
    table = Table(starter_rule="left_of_dealer").deal(hands, upcards, dealer=0, arrange=False)
    table.act(keep[0])
    assert events(table, keep[1])[-1] == "player_1 starts (left of the dealer)"


def test_turned_downcards_are_named_once_face_up():
    downs = [["KC", "3D", "9H"], ["2C", "2D", "2H"]]
    table = Table(num_downcards=3).position(hands=[[], ["AS", "KS"]], pile=["QD"], downcards=downs)
    assert events(table, SLOT_BASE) == ["player_0 turns over K♣ and plays it"]
    play(table, "KS")
    assert events(table, SLOT_BASE + 1) == [
        "player_0 turns over 3♦, which cannot be played", "player_0 picks up the pile (3 cards)"]


def _named_cards(line: str) -> list[int]:
    return [PRETTY_NAMES[word] for word in line.replace(",", " ").replace("(", " ").split() if word in PRETTY_NAMES]


def _public(state, card: int) -> bool:
    location = int(state.location[card])
    in_hand = LOC_HAND <= location < LOC_UP
    return location in (LOC_PILE, LOC_BURNT) or LOC_UP <= location < LOC_UP + 2 or (in_hand and state.known[card])


@pytest.mark.parametrize("params", PARAM_SETS, ids=["default", "variants"])
def test_rule_hidden_information__events_name_only_public_cards(params):
    rng = np.random.default_rng(11)
    env = cardenvs.env("gin_slaughtre_v0", **params)
    game = env.unwrapped.game
    announced = named = 0
    for seed in range(RANDOM_GAMES):
        env.reset(seed=seed)
        for _ in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            before = env.unwrapped.state_record.copy()
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            after = env.unwrapped.state_record.copy()
            for line in game.describe_step(before, after, env.unwrapped.params):
                announced += 1
                for card in _named_cards(line):
                    named += 1
                    assert _public(after, card), f"{line!r} names {pretty_name(card)}, which is hidden"
    assert announced > 100 and named >= RANDOM_GAMES  # a starter card per game at least: the check has work


def test_card_names_in_events_are_the_tables():
    assert _named_cards("player_0 turns over 10♥, which cannot be played") == [card_id("10H")]
