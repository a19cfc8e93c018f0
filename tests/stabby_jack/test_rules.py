"""Scenario tests for the rules of docs/rules/stabby_jack.md (named test_rule_<slug>…), each from a chosen deal."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.core.game import NO_PLAYER
from cardenvs.games.stabby_jack.cards import card_name
from cardenvs.games.stabby_jack.params import StabbyJackParams, total_cards
from cardenvs.games.stabby_jack.rules import (
    ACE_TARGET_BASE,
    DECLINE,
    FIGHT,
    LEVEL_UP,
    NO_SHIELD,
    PAY_MONARCH,
    PAY_MONSTER,
    PHASE_ACE_OWN,
    PHASE_ACE_TARGET,
    PHASE_GAIN_FULL,
    PHASE_MAIN,
    PHASE_OVER,
    PHASE_PAY,
    PHASE_REPLACE,
    PHASE_SHIELD,
    REST,
    SHIELD,
    SLOT_BASE,
    TRAIN,
)
from tests.stabby_jack.table import BASE_STATS, Table

SLOTS4 = {SLOT_BASE + i for i in range(4)}
TEN_XP = ["2D", "4D", "5D", "6D", "7D", "8D", "9D", "10D", "3H", "4H"]


def slot(i: int) -> int:
    return SLOT_BASE + i


def ace_target(rel: int, target_slot: int) -> int:
    return ACE_TARGET_BASE + (rel - 1) * 8 + target_slot


def test_rule_decks_and_seats():
    for players, decks in ((2, 1), (3, 2), (4, 2), (5, 3), (8, 4)):
        assert total_cards(StabbyJackParams(num_players=players, max_players=8)) == 52 * decks
        assert total_cards(StabbyJackParams(num_players=players, jokers=True)) == 54 * decks
    for dealer, first in ((2, 0), (0, 1), (1, 2)):
        table = Table({"dealer": dealer}, num_players=3, jokers=True)
        assert table.to_act == first and table.state.total_cards == 108
    env = cardenvs.env("stabby_jack_v0")
    dealers = set()
    for seed in range(30):
        env.reset(seed=seed)
        dealers.add(int(env.state_record.dealer))
        assert env.state_record.current_player == (env.state_record.dealer + 1) % 2
    assert dealers == {0, 1}


def test_rule_deal__four_numbered_stats_from_the_dealers_left_discarding_specials():
    deck = ["5H", "JS", "7D", "AC", "9S", "2C", "3H", "4D", "8C", "KD", "6S"]
    table = Table({"dealer": 1, "deck": deck})
    assert table.stats(0) == ["5H", "9S", "3H", "8C"]
    assert table.stats(1) == ["7D", "2C", "4D", "6S"]
    assert table.discard() == ["JS", "AC", "KD"]
    assert list(table.state.damage) == [0, 0] and list(table.state.xp) == [0, 0]


def test_rule_stats__suits_give_stats_and_no_heart_means_one_hp():
    table = Table({"stats": [["5H", "7D", "2S", "9C"], ["6D", "3S", "8C", "2D"]]})
    state = table.state
    assert (state.hit_points[0], state.magic[0], state.attack[0], state.luck[0]) == (5, 7, 2, 9)
    assert (state.hit_points[1], state.magic[1], state.attack[1], state.luck[1]) == (1, 8, 3, 8)
    table = Table({"stats": [["5H", "7H", "2S", "9C"], ["6D", "3S", "8C", "2D"]]})
    assert table.state.hit_points[0] == 12


def test_rule_turn__the_main_action_is_declared_before_the_draw():
    table = Table({"stats": BASE_STATS, "xp": [["2D", "3D", "4D", "5D"], []], "deck": ["8S"]})
    assert table.legal() == {TRAIN, FIGHT, REST}  # 4 XP: no Level Up
    table.play(TRAIN)
    assert table.state.phase == PHASE_REPLACE and table.state.pending >= 0  # the 8S is a Stat candidate
    table = Table({"stats": BASE_STATS, "xp": [["2D", "3D", "4D", "5D", "10D"], []], "deck": ["8S"]})
    assert table.legal() == {TRAIN, FIGHT, REST, LEVEL_UP}
    table.play(FIGHT)  # the same 8S is now a monster: attack 2 < 8
    assert table.state.damage[0] == 1 and table.to_act == 1


def test_rule_training__must_replace_a_stat_even_when_it_hurts():
    table = Table({"stats": BASE_STATS, "deck": ["4S"]})
    table.play(TRAIN)
    assert table.state.phase == PHASE_REPLACE
    assert table.legal() == SLOTS4  # no way to refuse the card
    table.play(slot(1))  # 7D out: magic 7 -> 0 ("injured in training")
    assert table.stats(0) == ["5H", "4S", "2S", "9C"]
    assert (table.state.magic[0], table.state.attack[0]) == (0, 6)
    assert table.discard()[-1] == "7D" and table.to_act == 1


def test_rule_rest__heals_one_and_is_a_pass_without_damage():
    table = Table({"stats": BASE_STATS, "damage": [2, 0]})
    table.play(REST)
    assert table.state.damage[0] == 1 and table.to_act == 1
    table.play(REST)
    assert table.state.damage[1] == 0 and table.to_act == 0


def test_rule_level_up__pays_least_overpayment_and_is_a_free_pre_action():
    deal = {"stats": BASE_STATS, "xp": [["10S", "QS", "3D", "4D", "KD"], []], "deck": ["JH", "9H"]}
    table = Table(deal)
    assert table.state.xp[0] == 7
    table.play(LEVEL_UP)
    assert table.xp_row(0) == ["KD"] and table.state.xp[0] == 2  # 3 monsters + oldest Monarch: exactly 5
    assert table.stats(0) == [*BASE_STATS[0], "9H"]
    assert table.discard() == ["10S", "QS", "3D", "4D", "JH"]  # the Jack passed without effect
    assert table.state.damage[0] == 0
    assert table.to_act == 0 and table.state.phase == PHASE_MAIN and LEVEL_UP not in table.legal()
    table = Table(deal, level_up_is_action=True)
    table.play(LEVEL_UP)
    assert table.to_act == 1 and table.stats(0) == [*BASE_STATS[0], "9H"]
    table = Table({"stats": BASE_STATS, "xp": [["QS", "KD", "QD"], []]})  # only Monarchs: 6 paid, 1 lost
    table.play(LEVEL_UP)
    assert table.state.xp[0] == 0 and table.state.stats_count[0] == 5


def test_rule_level_up__equal_payments_use_the_fewest_monarchs():
    # Through the public env alone. 6 monsters and a Monarch (8 XP): 5 monsters and 3 monsters + the Monarch both
    # pay exactly 5; the Monarch is kept (a shield), and the five oldest monsters go.
    deal = {"dealer": 1, "stats": BASE_STATS, "xp": [["2C", "QD", "3C", "4C", "5C", "6C", "7C"], []], "deck": ["9H"]}
    env = cardenvs.env("stabby_jack_v0")
    env.reset(seed=0, options={"deal": deal})
    assert env.agent_selection == "player_0" and env.observe("player_0")["action_mask"][LEVEL_UP]
    env.step(LEVEL_UP)
    view = env.layout.split(env.observe("player_0")["observation"])
    assert (view["xp"][0], view["xp_monsters"][0], view["xp_monarchs"][0]) == (3, 1, 1)
    state = env.state_record
    assert [card_name(int(c)) for c in state.xp_row[0, : state.xp_count[0]]] == ["QD", "7C"]
    assert [card_name(int(c)) for c in state.discard[: state.discard_size]] == ["2C", "3C", "4C", "5C", "6C"]
    assert card_name(int(state.stats[0, 4])) == "9H" and state.stats_count[0] == 5
    assert env.agent_selection == "player_0" and not env.observe("player_0")["action_mask"][LEVEL_UP]


def test_rule_level_up__player_choice_payment_card_by_card():
    deal = {"stats": BASE_STATS, "xp": [["10S", "QS", "3D", "4D", "KD"], []], "deck": ["9H"]}
    table = Table(deal, level_up_payment="player_choice")
    table.play(LEVEL_UP)
    assert table.state.phase == PHASE_PAY and table.legal() == {PAY_MONSTER, PAY_MONARCH}
    table.play(PAY_MONARCH)
    assert table.state.level_up_paid == 2 and table.xp_row(0) == ["10S", "3D", "4D", "KD"]
    table.play(PAY_MONARCH)  # 4 paid, only monsters left: the last payment is forced (rule:forced_decisions)
    assert table.xp_row(0) == ["3D", "4D"] and table.stats(0)[-1] == "9H"
    assert table.state.phase == PHASE_MAIN and table.to_act == 0


EIGHT = ["5H", "7D", "2S", "9C", "3H", "4D", "6S", "10C"]


def test_rule_stat_cap__at_eight_stats_a_gain_replaces_or_is_declined():
    deal = {"stats": [EIGHT, BASE_STATS[1]], "xp": [["2D", "3D", "8S", "5S", "9D"], []], "deck": ["8H"]}
    table = Table(deal)
    table.play(LEVEL_UP)
    assert table.state.phase == PHASE_GAIN_FULL
    assert table.legal() == {slot(i) for i in range(8)} | {DECLINE}
    table.play(DECLINE)
    assert table.stats(0) == EIGHT and table.discard()[-1] == "8H"
    assert table.to_act == 0 and table.state.phase == PHASE_MAIN
    table = Table(deal)
    table.play(LEVEL_UP, slot(2))
    assert table.stats(0)[2] == "8H" and table.state.hit_points[0] == 16 and table.state.stats_count[0] == 8


def test_rule_losing_hearts__replacing_a_heart_can_kill_in_training():
    deal = {"stats": BASE_STATS, "xp": [["2D"], []], "damage": [3, 0], "deck": ["10D", "2H", "3H", "6H", "5S"]}
    table = Table(deal)
    table.play(TRAIN, slot(0))  # 5H out: no Heart left, 1 HP against 3 damage
    assert table.state.deaths[0] == 1
    assert table.stats(0) == ["2H", "3H", "6H", "5S"] and table.xp_row(0) == []
    assert table.state.damage[0] == 0 and table.to_act == 1


def test_rule_fight__drawing_a_special_resolves_it_instead():
    table = Table({"stats": BASE_STATS, "deck": ["JS"]})
    table.play(FIGHT)
    assert table.state.damage[0] == 2 and table.state.xp[0] == 0 and table.to_act == 1


@pytest.mark.parametrize(
    ("stats", "monster", "won"),
    [
        (["5H", "7D", "2S", "9C"], "7H", True),  # red: magic 7 ties, luck 9 >= 7
        (["5H", "7D", "2S", "9C"], "6D", True),  # magic 7 > 6
        (["5H", "7D", "2S", "9C"], "8D", False),  # magic 7 < 8
        (["5H", "7D", "2S", "9C"], "2C", True),  # black: attack 2 ties, luck 9 >= 2
        (["5H", "7D", "2S", "9C"], "3S", False),  # attack 2 < 3
        (["5H", "9D", "2S", "8C"], "9H", False),  # magic 9 ties, luck 8 < 9
        (["5H", "9D", "10S", "8C"], "9C", True),  # black uses attack: 10 > 9
    ],
)
def test_rule_monster_combat__colour_picks_the_power_and_luck_breaks_ties(stats, monster, won):
    table = Table({"stats": [stats, ["4H", "3D", "5S", "7C"]], "deck": [monster]})
    table.play(FIGHT)
    if won:
        assert table.xp_row(0) == [monster] and table.state.xp[0] == 1 and table.state.damage[0] == 0
    else:
        assert table.xp_row(0) == [] and table.state.damage[0] == 1 and table.discard()[-1] == monster


@pytest.mark.parametrize(
    ("stats", "monarch", "won"),
    [
        (["5H", "10D", "3D", "9C"], "QD", False),  # magic 13 ties: the Monarch wins ties
        (["5H", "10D", "4D", "9C"], "QD", True),  # magic 14
        (["5H", "10S", "4S", "9C"], "KS", True),  # Spade Monarch: attack 14
        (["5H", "10D", "4D", "9C"], "KS", False),  # magic does not count against Spades
    ],
)
def test_rule_diamond_spade_monarchs__fight_as_13_and_win_ties(stats, monarch, won):
    table = Table({"stats": [stats, ["4H", "6D", "3S", "2C"]], "deck": [monarch]})
    table.play(FIGHT)
    if won:
        assert table.xp_row(0) == [monarch] and table.state.xp[0] == 2 and table.state.damage[0] == 0
    else:
        assert table.xp_row(0) == [] and table.state.damage[0] == 2 and table.discard()[-1] == monarch


def test_rule_ace__swaps_a_stat_of_the_same_suit_or_value():
    deal = {"stats": [["5H", "7D", "2S", "9C"], ["5D", "3S", "8S", "10C"]], "deck": ["AH"]}
    table = Table(deal)
    table.play(TRAIN)  # the Ace nullifies the training
    assert table.state.phase == PHASE_ACE_OWN and table.legal() == SLOTS4
    table.play(slot(2))  # 2S: the Spades 3S and 8S match
    assert table.state.phase == PHASE_ACE_TARGET
    assert table.legal() == {ace_target(1, 1), ace_target(1, 2)}
    table.play(ace_target(1, 2))
    assert table.stats(0) == ["5H", "7D", "8S", "9C"] and table.stats(1) == ["5D", "3S", "2S", "10C"]
    assert table.discard()[-1] == "AH" and table.to_act == 1
    table = Table(deal)
    table.play(FIGHT, slot(0))  # 5H matches only 5D (same value): the target is forced
    assert table.stats(0)[0] == "5D" and table.stats(1)[0] == "5H" and table.to_act == 1


def test_rule_ace__without_any_matching_pair_has_no_effect():
    table = Table({"stats": [["2H", "3H", "4H", "5H"], ["6D", "7D", "8S", "9C"]], "deck": ["AS"]})
    table.play(TRAIN)
    assert table.stats(0) == ["2H", "3H", "4H", "5H"] and table.discard() == ["AS"] and table.to_act == 1


def test_rule_ace__a_swap_can_kill_the_target_or_the_drawer():
    deal = {"stats": [["2H", "7D", "2S", "9C"], ["10H", "3S", "8S", "4C"]], "damage": [0, 5], "deck": ["AD"]}
    table = Table(deal)
    table.play(FIGHT, slot(0))  # 2H <-> 10H (the only match): the target keeps 2 HP against 5 damage
    assert table.state.deaths[1] == 1 and table.state.damage[1] == 0 and table.state.hit_points[0] == 10
    deal = {"stats": [["5H", "7D", "2S", "9C"], ["2H", "3S", "8S", "4C"]], "damage": [4, 0], "deck": ["AD"]}
    table = Table(deal)
    table.play(FIGHT, slot(0))  # 5H <-> 2H: the drawer drops to 2 HP against 4 damage
    assert table.state.deaths[0] == 1 and table.state.deaths[1] == 0 and table.state.hit_points[1] == 5


def _hit_points(row: list[str]) -> int:
    hearts = sum(int(card[:-1]) for card in row if card.endswith("H"))
    return hearts if hearts else 1


ACE_DRAWER = ["6H", "3H", "9D", "2S"]  # HP 9
ACE_TARGET = ["3D", "6S", "8H", "2H"]  # HP 10
ACE_PAIRS = [
    (own, theirs)
    for own in range(4)
    for theirs in range(4)
    if ACE_DRAWER[own][-1] == ACE_TARGET[theirs][-1] or ACE_DRAWER[own][:-1] == ACE_TARGET[theirs][:-1]
]


@pytest.mark.parametrize(("own", "theirs"), ACE_PAIRS)
def test_rule_ace__a_swap_never_kills_both_players(own, theirs):
    # Both players are one damage from death; every swap moves Hearts one way, so only the loser of Hearts dies.
    damage = [_hit_points(ACE_DRAWER) - 1, _hit_points(ACE_TARGET) - 1]
    table = Table({"stats": [ACE_DRAWER, ACE_TARGET], "damage": damage, "deck": ["AD"]})
    table.play(FIGHT, slot(own))
    if table.state.phase == PHASE_ACE_TARGET:
        table.play(ace_target(1, theirs))
    drawer_row, target_row = list(ACE_DRAWER), list(ACE_TARGET)
    drawer_row[own], target_row[theirs] = ACE_TARGET[theirs], ACE_DRAWER[own]
    dies = [_hit_points(drawer_row) <= damage[0], _hit_points(target_row) <= damage[1]]
    assert not all(dies)
    assert [bool(died) for died in table.state.deaths] == dies
    assert table.discard()[0] == "AD" and table.to_act == 1


def test_rule_stabby_jack__stabs_for_two_unless_a_monarch_shields():
    table = Table({"stats": BASE_STATS, "deck": ["JC"]})
    table.play(TRAIN)
    assert table.state.damage[0] == 2 and table.to_act == 1
    deal = {"stats": BASE_STATS, "xp": [["10S", "QD", "KS"], []], "deck": ["JC"]}
    table = Table(deal)
    table.play(TRAIN)
    assert table.state.phase == PHASE_SHIELD and table.legal() == {SHIELD, NO_SHIELD}
    table.play(SHIELD)
    assert table.xp_row(0) == ["10S", "KS"] and table.state.damage[0] == 0
    assert table.discard() == ["QD", "JC"] and table.to_act == 1
    table = Table(deal)
    table.play(TRAIN, NO_SHIELD)
    assert table.xp_row(0) == ["10S", "QD", "KS"] and table.state.damage[0] == 2
    table = Table({"stats": BASE_STATS, "damage": [3, 0], "deck": ["JD", "2C", "3C", "4C", "5C"]})
    table.play(FIGHT)  # 5 damage on 5 HP: death
    assert table.state.deaths[0] == 1 and table.stats(0) == ["2C", "3C", "4C", "5C"]


def test_rule_heart_club_monarchs__heart_monarch_heals_two():
    table = Table({"stats": BASE_STATS, "damage": [3, 1], "deck": ["KH", "QH"]})
    table.play(FIGHT)
    assert table.state.damage[0] == 1 and table.to_act == 1
    table.play(TRAIN)
    assert table.state.damage[1] == 0 and table.discard() == ["KH", "QH"]


@pytest.mark.parametrize(
    ("drawn", "gained"), [("9H", True), ("6H", True), ("10H", False)]  # luck 9: ties are won
)
def test_rule_heart_club_monarchs__club_monarch_gain_is_gated_by_luck(drawn, gained):
    table = Table({"stats": BASE_STATS, "deck": ["QC", drawn]})
    table.play(FIGHT)
    if gained:
        assert table.stats(0) == [*BASE_STATS[0], drawn]
    else:
        assert table.stats(0) == BASE_STATS[0] and table.discard() == ["QC", drawn]
    assert table.to_act == 1


def test_rule_heart_club_monarchs__club_monarch_chains_into_a_special_and_respects_the_cap():
    table = Table({"stats": BASE_STATS, "deck": ["KC", "JS"]})
    table.play(TRAIN)
    assert table.state.damage[0] == 2 and table.discard() == ["KC", "JS"] and table.to_act == 1
    table = Table({"stats": [EIGHT, BASE_STATS[1]], "deck": ["KC", "2H"]})
    table.play(TRAIN)
    assert table.state.phase == PHASE_GAIN_FULL
    table.play(DECLINE)
    assert table.stats(0) == EIGHT and table.to_act == 1


def test_rule_joker__an_instant_level_up_that_chains():
    stats = [BASE_STATS[0], BASE_STATS[1], ["2H", "3D", "4S", "5C"]]
    table = Table({"dealer": 2, "stats": stats, "deck": ["JO", "10S"]}, num_players=3, jokers=True)
    table.play(FIGHT)
    assert table.stats(0) == [*BASE_STATS[0], "10S"] and table.to_act == 1
    table = Table({"dealer": 2, "stats": stats, "deck": ["JO", "JS"]}, num_players=3, jokers=True)
    table.play(TRAIN)  # the Level Up fails: Stabby Jack is resolved instead
    assert table.state.damage[0] == 2 and table.stats(0) == BASE_STATS[0]
    table = Table({"dealer": 2, "stats": stats, "deck": ["JO", "QC", "10H"]}, num_players=3, jokers=True)
    table.play(TRAIN)  # Joker -> Club Monarch -> 10H above luck 9: discarded
    assert table.stats(0) == BASE_STATS[0] and table.discard()[-3:] == ["JO", "QC", "10H"]


def test_rule_death_and_rebirth__everything_returns_and_as_many_stats_are_dealt():
    six = ["2H", "7D", "2S", "9C", "3D", "4S"]
    deal = {
        "stats": [six, BASE_STATS[1]], "xp": [["5S", "QD"], []], "damage": [1, 0],
        "deck": ["JC", "AS", "2C", "3C", "4C", "5C", "6C", "7C"],
    }
    table = Table(deal)
    table.play(FIGHT, NO_SHIELD)
    assert table.state.deaths[0] == 1 and table.state.damage[0] == 0
    assert table.stats(0) == ["2C", "3C", "4C", "5C", "6C", "7C"]  # six again; the Ace passed without effect
    assert table.xp_row(0) == [] and table.state.xp[0] == 0
    assert set(six + ["5S", "QD", "JC", "AS"]) <= set(table.discard())
    assert table.to_act == 1


def test_rule_reshuffle__the_discard_pile_except_its_top_becomes_the_draw_pile():
    table = Table({"stats": BASE_STATS, "deck": ["8S"], "rest": "discard"})
    assert table.state.deck_size == 1 and table.state.reshuffles == 0
    table.play(FIGHT)  # 8S beats attack 2 and lands on top of the discard pile
    assert table.state.deck_size == 0 and table.discard()[-1] == "8S"
    before = table.state.discard_size
    table.play(REST)
    table.play(REST)  # no draw: nothing reshuffled yet
    assert table.state.reshuffles == 0
    table.play(FIGHT)
    assert table.state.reshuffles == 1 and table.discard()[0] == "8S"
    assert table.state.discard_size < before  # all but the top went back into the draw pile


def test_rule_special_ends_turn():
    table = Table({"stats": BASE_STATS, "damage": [1, 0], "deck": ["QH"]})
    table.play(TRAIN)
    assert table.to_act == 1 and table.state.phase == PHASE_MAIN and table.state.pending < 0
    assert table.discard() == ["QH"] and table.state.damage[0] == 0


def test_rule_win_check__a_player_can_win_on_another_players_turn():
    deal = {
        "stats": [["5H", "10C", "6S", "2C"], ["10S", "9S", "8C", "2H"]],
        "xp": [[], TEN_XP], "deck": ["AD"],
    }
    table = Table(deal)
    assert table.env.observe("player_1")["observation"].size > 0
    table.play(FIGHT, slot(1))  # 10C: the targets are 10S (value) and 8C (suit)
    assert table.legal() == {ace_target(1, 0), ace_target(1, 2)}
    table.play(ace_target(1, 0))  # player_1 now has luck 18 > 2
    assert table.state.terminated and table.state.winner == 1 and table.state.current_player == NO_PLAYER
    assert table.env.rewards == {"player_0": -1.0, "player_1": 1.0}


@pytest.mark.parametrize("xp", [False, True])
@pytest.mark.parametrize("power", [False, True])
@pytest.mark.parametrize("luck", [False, True])
def test_rule_winning__all_three_conditions_at_once(xp, power, luck):
    stats = ["5H", "10S" if power else "2S", "9C" if luck else "2C", "3D"]
    deal = {"stats": [stats, ["6H", "3S", "4C", "5S"]], "xp": [TEN_XP if xp else ["4D"], []]}
    table = Table(deal)
    view = table.env.layout.split(table.env.observe("player_0")["observation"])["win_conditions"]
    assert list(view[:3]) == [xp, power, luck]
    table.play(REST)
    assert bool(table.state.terminated) == (xp and power and luck)
    if xp and power and luck:
        assert table.state.winner == 0 and table.env.rewards["player_0"] == 1.0


@pytest.mark.parametrize(("max_hp", "wins"), [(False, True), (True, False)])
def test_rule_winning__power_against_hp_left_or_full_hp(max_hp, wins):
    deal = {"stats": [["5H", "5S", "9C", "3D"], ["6H", "3S", "4C", "2C"]], "xp": [TEN_XP, []], "damage": [0, 3]}
    table = Table(deal, win_uses_max_hp=max_hp)  # attack 5 against HP 6 with 3 damage
    table.play(REST)
    assert bool(table.state.terminated) == wins


def test_rule_rewards__win_loss_and_truncation_at_max_turns():
    table = Table({"stats": BASE_STATS}, max_turns=3)
    table.play(REST, REST)
    assert not table.state.truncated
    table.play(REST)
    assert table.state.truncated and not table.state.terminated and table.state.phase == PHASE_OVER
    assert table.env.truncations["player_0"] and all(r == 0.0 for r in table.env.rewards.values())


def test_rule_illegal_actions__raise_or_are_penalised():
    table = Table({"stats": BASE_STATS})
    with pytest.raises(cardenvs.IllegalActionError, match="legal actions"):
        table.env.step(LEVEL_UP)
    env = cardenvs.env("stabby_jack_v0", illegal_action="penalize")
    env.reset(seed=0)
    offender = env.agent_selection
    env.step(SHIELD)
    assert env.rewards[offender] == -1.0 and env.terminations[offender]


def test_rule_forced_decisions__are_made_by_the_engine():
    table = Table({"stats": [["2H", "3H", "4H", "9S"], ["6D", "7D", "8S", "10C"]], "deck": ["AC"]})
    steps = table.state.step_count
    table.play(TRAIN)  # only 9S <-> 8S is possible: no agent step for either half
    assert table.state.step_count == steps + 1
    assert table.stats(0)[3] == "8S" and table.stats(1)[2] == "9S" and table.to_act == 1


def test_deal_option_rejects_impossible_deals():
    for deal in (
        {"stats": [["5H", "5H", "2S", "9C"], BASE_STATS[1]]},  # one deck has one 5H
        {"stats": [["5H", "JD", "2S", "9C"], BASE_STATS[1]]},  # Stats are numbered cards
        {"stats": [["5H"], BASE_STATS[1]]},
        {"xp": [["AH"], []]},
        {"deck": ["11H"]},
        {"dealer": 2},
        {"hands": []},
    ):
        with pytest.raises(ValueError):
            Table(deal)


def test_state_invariants_hold_in_random_play():
    venv = cardenvs.vector_env("stabby_jack_v0", 32, num_players=3, jokers=True)
    venv.reset(seed=3)
    game = cardenvs.get_game("stabby_jack_v0")
    for _ in range(400):
        _, masks, *_ = venv.step(venv.sample_actions())
        assert (masks.sum(axis=1) > 0).all()
    for i in range(venv.num_envs):
        game.check_invariants(venv.states.view(np.recarray)[i], venv.params)
