"""Scenario tests for docs/rules/clabber.md, each from a chosen deal: ``test_rule_<slug>…`` checks ``rule:<slug>``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs.games.clabber import GAME
from cardenvs.games.clabber.cards import (
    CARD_NAMES,
    HAND_POINTS,
    NUM_CARDS,
    PLAIN_POINTS,
    PLAIN_STRENGTH,
    TRUMP_POINTS,
    TRUMP_STRENGTH,
    card_id,
)
from cardenvs.games.clabber.melds import (
    CATEGORY_POINTS,
    FOUR_ACES,
    FOUR_JACKS,
    FOUR_KINGS,
    FOUR_NINES,
    FOUR_QUEENS,
    FOUR_TENS,
    SEQ_FIVE_PLUS,
    SEQ_FOUR,
    SEQ_THREE,
    TOP_CARD_FIRST,
    TRUMP_FIRST,
    best_melds,
    key_category,
)
from cardenvs.games.clabber.rules import (
    ACCEPT,
    BID_ACCEPT,
    BID_NAME,
    BID_PASS,
    DECLARE,
    MELD_DECLARED,
    MELD_NOT_YET,
    MELD_SKIPPED,
    MELDS_NOBODY,
    NAME_SUIT,
    PASS,
    PHASE_BID_FIRST,
    PHASE_BID_SECOND,
    PHASE_DECLARE,
    PHASE_OVER,
    PHASE_PLAY,
    SKIP,
)
from tests.clabber.table import Table, cards

S, H, D, C = 3, 2, 1, 0  # suit ids


def bits(text: str) -> int:
    return sum(1 << c for c in cards(text))


def melds_of(text: str, trump: int = -1, tiebreak: int = TRUMP_FIRST) -> tuple[list[str], int, int]:
    mask, points, key, _ = best_melds(np.int64(bits(text)), trump, tiebreak)
    return sorted(CARD_NAMES[c] for c in range(NUM_CARDS) if int(mask) >> c & 1), int(points), int(key)


# Seat 0 holds every spade; everybody else only clubs, diamonds and hearts (no four of a kind is possible).
ALL_SPADES = {0: "AS KS QS JS 10S 9S", 1: "AC KC QC JC 10C 9C", 2: "AD KD QD JD 10D 9D", 3: "AH KH QH JH 10H 9H"}


def test_rule_deck__24_cards_with_ids_suit_times_6_plus_rank():
    assert len(CARD_NAMES) == 24
    assert CARD_NAMES[:6] == ("AC", "KC", "QC", "JC", "10C", "9C")
    assert card_id("JH") == 2 * 6 + 3 and card_id("9s") == 23
    table = Table(seed=3)
    union = 0
    for seat in range(4):
        assert bin(int(table.state.dealt[seat])).count("1") == 6
        union |= int(table.state.dealt[seat])
    assert union == (1 << 24) - 1


def test_rule_seats_and_teams__random_first_dealer_and_shared_rewards():
    dealers = {int(Table(seed=seed).state.dealer) for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    table = Table(seed=5, target_score=100)
    rng = np.random.default_rng(0)
    while not table.state.terminated and not table.state.truncated:
        table.play_random(rng)
    rewards = table.state.rewards
    assert rewards[0] == rewards[2] and rewards[1] == rewards[3] and rewards[0] == -rewards[1] != 0


def test_rule_seats_and_teams__the_deal_passes_left_after_a_played_hand():
    table = Table(target_score=10_000).deal(3, ALL_SPADES, turn_up="AH").passes(4).name("S").play_out_hand()
    assert table.state.hands_played == 1 and table.state.hands_dealt == 2  # played, not thrown in
    assert table.state.dealer == 0 and table.state.current_player == 1  # seat 0's left bids first
    assert table.state.phase == PHASE_BID_FIRST
    table.accept().play_out_hand()
    assert table.state.hands_played == 2 and table.state.hands_dealt == 3
    assert table.state.dealer == 1 and table.state.current_player == 2


def test_rule_deal__one_card_at_a_time_from_the_dealers_left():
    table = Table()
    deck = list(range(24))
    GAME.apply_deal(table.state, table.params, {"dealer": 1, "deck": deck})
    for seat in range(4):
        first = (seat - 2) % 4  # seat 2 gets deck[0], seat 3 deck[1], seat 0 deck[2], seat 1 deck[3]
        expected = sum(1 << deck[first + 4 * k] for k in range(6))
        assert int(table.state.hand[seat]) == expected
    assert table.state.current_player == 2 and table.state.phase == PHASE_BID_FIRST


def test_rule_turn_up__the_dealers_last_card_and_public():
    table = Table().deal(2, {2: "AS KS QS JS 10S 9H"}, turn_up="9H")
    assert table.state.turn_up == card_id("9H")
    assert int(table.state.hand[2]) >> card_id("9H") & 1
    for seat in range(4):
        view = table.observe(seat)
        assert view["turn_up"][card_id("9H")] == 1 and view["turn_up"].sum() == 1
        assert view["own_hand"][card_id("9H")] == (1 if seat == 2 else 0)


def test_rule_card_order__points_add_to_162():
    jack, nine, ace, ten, king, queen = 3, 5, 0, 4, 1, 2
    trump_order = [jack, nine, ace, ten, king, queen]
    assert [TRUMP_STRENGTH[r] for r in trump_order] == [5, 4, 3, 2, 1, 0]
    assert [TRUMP_POINTS[r] for r in trump_order] == [20, 14, 11, 10, 4, 3]
    plain_order = [ace, ten, king, queen, jack, nine]
    assert [PLAIN_STRENGTH[r] for r in plain_order] == [5, 4, 3, 2, 1, 0]
    assert [PLAIN_POINTS[r] for r in plain_order] == [11, 10, 4, 3, 2, 0]
    assert TRUMP_POINTS.sum() + 3 * PLAIN_POINTS.sum() + 10 == HAND_POINTS == 162


def test_rule_first_bidding_round__accept_or_pass_dealer_may_accept():
    table = Table().deal(3, {}, turn_up=None)
    turn_up_suit = int(table.state.turn_up) // 6
    assert table.state.current_player == 0 and table.legal() == [PASS, ACCEPT]
    table.passes(3)
    assert table.state.current_player == 3
    table.accept()
    assert table.state.maker == 3 and table.state.trump == turn_up_suit
    assert table.state.phase == PHASE_PLAY and table.state.leader == 0
    assert list(table.state.bid_first) == [BID_PASS, BID_PASS, BID_PASS, BID_ACCEPT]
    first = Table().deal(3, {}).accept()
    assert first.state.maker == 0 and list(first.state.bid_first) == [BID_ACCEPT, 0, 0, 0]


def test_rule_second_bidding_round__names_another_suit_the_player_holds():
    deal = {0: "AS KS QS AH KH QH", 1: "JS 10S 9S AD KD QD", 2: "AC KC QC JC 10C JD", 3: "9C 10D 9D JH 10H 9H"}
    table = Table().deal(3, deal, turn_up="9C")
    table.passes(4)
    assert table.state.phase == PHASE_BID_SECOND and table.state.current_player == 0
    assert table.legal() == [PASS, NAME_SUIT + H, NAME_SUIT + S]  # no diamonds held; clubs is the turn-up's suit
    table.passes(1)
    assert table.legal() == [PASS, NAME_SUIT + D, NAME_SUIT + S]
    table.name("D")
    assert table.state.trump == D and table.state.maker == 1 and table.state.bid_second[1] == BID_NAME


def test_rule_throw_in__all_pass_twice_and_the_deal_moves_left():
    table = Table().deal(3, {})
    while table.state.hands_dealt == 1:
        table.act(PASS)
    assert table.state.dealer == 0 and table.state.phase == PHASE_BID_FIRST
    assert list(table.state.scores) == [0, 0] and table.state.hands_played == 0
    assert table.state.current_player == 1


def test_rule_tricks__left_of_dealer_leads_then_each_trick_winner_leads():
    # Through the public env. Dealer 3; seat 1 makes hearts trump, yet seat 0 (left of the dealer) leads.
    env = cardenvs.env("clabber_v0")
    hands = ["AS KS QS AD 10D 9C", "9H 10H AC KC QC JC", "JS 10S 9S KD QD JD", "AH KH QH 10C 9D JH"]
    env.reset(seed=0, options={"deal": {"dealer": 3, "hands": [text.split() for text in hands], "turn_up": "JH"}})
    env.step(PASS)
    env.step(ACCEPT)
    assert env.state_record.maker == 1 and env.state_record.trump == H
    assert env.agent_selection == "player_0"
    # Trick 1, led by seat 0: seat 1 trumps with the 9, seat 2 follows, seat 3's trump Jack (forced) wins it.
    for card in ("AS", "9H", "9S"):
        env.step(card_id(card))
    assert env.state_record.tricks_done == 1 and list(env.state_record.tricks_won) == [0, 1]
    assert env.agent_selection == "player_3" and env.state_record.leader == 3
    # Trick 2, led by seat 3: seat 1's club Ace wins it, so seat 1 leads trick 3.
    for card in ("10C", "AC", "KD"):
        env.step(card_id(card))
    assert env.state_record.tricks_done == 2 and list(env.state_record.tricks_won) == [0, 2]
    assert env.agent_selection == "player_1" and env.state_record.leader == 1


def test_rule_follow_suit__without_having_to_beat():
    table = Table().deal(3, {0: "AH KS QS 9D 10D 9C", 1: "KH 9H AC AD JS 10S"}, turn_up=None)
    table.accept().act("AH")
    assert table.legal_names() == {"KH", "9H"}


def test_rule_must_trump__when_unable_to_follow():
    table = Table().deal(3, {0: "AH KC QC 9D 10D 9C", 1: "AC AD JS 10S KD QD", 3: "9S QH JH 10H 9H AS"},
                         turn_up="9S")
    table.accept().act("AH")
    assert table.legal_names() == {"JS", "10S"}


def test_rule_must_overtrump__else_any_trump():
    deal = {0: "AH KC QC 9D 10D 9C", 1: "AC AD 9S 10S KD QD", 2: "JS KS JD KH 10C 9H", 3: "QS AS QH JH 10H JC"}
    table = Table().deal(3, deal, turn_up="QS").accept().act("AH")
    assert table.legal_names() == {"9S", "10S"}  # seat 1 cannot follow: any trump beats no trump
    table.act("9S")
    assert table.legal_names() == {"KH", "9H"}  # seat 2 can follow hearts: no trumping asked
    trumps_led = Table().deal(3, {0: "10S KC QC 9D 10D 9C", 1: "JS 9S KS AD KD QD", 3: "QS AS AH QH JH 10H"},
                              turn_up="QS")
    trumps_led.accept().act("10S")
    assert trumps_led.legal_names() == {"JS", "9S"}  # trumps led: must beat the 10 (the King cannot)
    under = Table().deal(3, {0: "AH KC QC 9D 10D 9C", 1: "9S 10S AC AD KD QD", 2: "QS KS AS JC 10C JD",
                             3: "KH QH JH 10H 9H JS"}, turn_up="JS")
    under.accept().act("AH", "9S")
    assert under.legal_names() == {"QS", "KS", "AS"}  # cannot beat the 9: any trump, still compulsory


def test_rule_free_discard__no_card_of_the_led_suit_and_no_trump():
    table = Table().deal(3, {0: "AH KC QC 9D 10D 9C", 1: "AC AD KD QD JD JC", 3: "9S AS QH JH 10H KH"},
                         turn_up="9S")
    table.accept().act("AH")
    assert table.legal_names() == {"AC", "AD", "KD", "QD", "JD", "JC"}


def test_rule_partner_exemption__variant():
    deal = {0: "AH KC QC 9D 10D 9C", 1: "QH AC AD KD QD JD", 2: "JS AS JC 10C KS 10S", 3: "9S QS JH 10H 9H KH"}
    strict = Table().deal(3, deal, turn_up="9S").accept().act("AH")  # seat 1's only heart is played for it
    assert strict.state.current_player == 2
    assert strict.legal_names() == {"JS", "AS", "KS", "10S"}  # partner winning, but the strict rule asks trumps
    loose = Table(partner_exemption=True).deal(3, deal, turn_up="9S").accept().act("AH")
    assert loose.legal_names() == {"JS", "AS", "JC", "10C", "KS", "10S"}
    # Never when trumps are led: seat 0 leads a trump and wins, seat 2 must still play a trump.
    trumps = {0: "JS KC QC 9D 10D 9C", 1: "AH AC AD KD QD JD", 2: "9S AS JC 10C KS 10S", 3: "QS KH QH JH 10H 9H"}
    led = Table(partner_exemption=True).deal(3, trumps, turn_up="QS").accept().act("JS", "AH")
    assert led.state.current_player == 2 and led.legal_names() == {"9S", "AS", "KS", "10S"}


def test_rule_trick_winner__highest_trump_else_highest_of_the_led_suit_takes_the_points():
    deal = {0: "AH KC QC 9D 10D 9C", 1: "10H AC AD KD QD JD", 2: "9S AS JC 10C KS 10S", 3: "JS KH QH JH QS 9H"}
    table = Table().deal(3, deal, turn_up="JS").accept().act("AH")  # seat 1's 10H is forced
    table.act("9S", "KH")  # the trump 9 beats the led Ace
    assert table.state.tricks_done == 1 and table.state.leader == 2 and table.state.current_player == 2
    assert list(table.state.trick_points) == [11 + 10 + 14 + 4, 0] and list(table.state.tricks_won) == [1, 0]
    plain = Table().deal(3, {0: "AH KC QC 9D 10D 9C", 1: "10H AC AD KD QD JD", 2: "KH JC 10C KS 10S AS",
                             3: "JS 9S QH JH QS 9H"}, turn_up="JS").accept().act("AH", "QH")
    assert plain.state.tricks_done == 1 and plain.state.leader == 0  # no trump: the highest heart, the Ace
    assert plain.state.trick_points[0] == 11 + 10 + 4 + 3


def test_rule_meld_declaring__automatic_at_each_players_first_trick_turn():
    # Four seats, four categories: hearts A-K-Q-J, four 9s, spades A-K-Q-J-10, two sequences of 3.
    deal = {0: "AH KH QH JH JC 10D", 1: "9C 9D 9H 9S 10H 10C", 2: "AS KS QS JS 10S JD", 3: "AC KC QC AD KD QD"}
    table = Table().deal(3, deal, turn_up="QD").accept()
    status = list(table.state.meld_status)
    assert status == [MELD_DECLARED, MELD_NOT_YET, MELD_NOT_YET, MELD_NOT_YET]
    seen_by_1 = table.observe(1)  # seat 0 is seat 1's right: relative seat 3
    assert seen_by_1["meld_cards"][72:96].tolist() == [int(bits("AH KH QH JH")) >> c & 1 for c in range(24)]
    assert seen_by_1["meld_cards"][:72].sum() == 0
    assert np.allclose(seen_by_1["meld_points"], [0, 0, 0, 50 / 200])
    assert seen_by_1["meld_category"].reshape(4, -1)[3].tolist() == [int(k == SEQ_FOUR) for k in range(9)]
    assert table.observe(0)["meld_turn_done"].tolist() == [1, 0, 0, 0]
    table.act("AH")
    assert list(table.state.meld_status) == [MELD_DECLARED, MELD_DECLARED, MELD_NOT_YET, MELD_NOT_YET]
    table.play_first_legal(2)  # seat 1 follows; seat 2's only trump is played for it; seat 3 trumps
    assert table.state.tricks_done == 1
    view = table.observe(0)
    categories = view["meld_category"].reshape(4, -1)
    assert categories.sum(axis=1).tolist() == [1, 1, 1, 1]
    assert categories.argmax(axis=1).tolist() == [SEQ_FOUR, FOUR_NINES, SEQ_FIVE_PLUS, SEQ_THREE]
    assert [key_category(int(key)) for key in table.state.meld_best] == [SEQ_FOUR, FOUR_NINES, SEQ_FIVE_PLUS, SEQ_THREE]
    assert list(table.state.meld_points) == [50, 100, 100, 20 + 20]
    assert np.allclose(view["meld_points"] * 200, [50, 100, 100, 40])
    assert list(table.state.meld_score) == [0, 100 + 40]  # four 9s beat a sequence of 5


def test_rule_meld_values__categories_and_points():
    assert melds_of("JC JD JH JS AS 9H")[1:] == (200, 100 * (FOUR_JACKS + 1))
    for rank, category in (("9", FOUR_NINES), ("A", FOUR_ACES), ("10", FOUR_TENS), ("K", FOUR_KINGS),
                           ("Q", FOUR_QUEENS)):
        extras = "JC AH" if rank == "9" else "JC 9H"
        names, points, key = melds_of(f"{rank}C {rank}D {rank}H {rank}S {extras}")
        assert points == 100 and key_category(key) == category and len(names) == 4
    names, points, key = melds_of("AS KS QS JS 10S 9H")
    assert points == 100 and key_category(key) == SEQ_FIVE_PLUS
    names, points, key = melds_of("AS KS QS JS 10S 9S")
    assert points == 100 and len(names) == 6  # a 6-card sequence is one 5+ sequence, not two of 3
    names, points, key = melds_of("AS KS QS JS 10H 9H")
    assert points == 50 and key_category(key) == SEQ_FOUR
    assert melds_of("AS KS QS JH 10H 9H")[1] == 40  # two disjoint sequences of 3
    assert key_category(melds_of("AS KS QS JH 10D 9H")[2]) == SEQ_THREE
    assert melds_of("JC JD JH JS QS KS")[1] == 200  # four Jacks, not J-Q-K (a card serves one meld)
    assert melds_of("AC KD QH JS 10S 9H")[1] == 0
    assert list(CATEGORY_POINTS) == [20, 50, 100, 100, 100, 100, 100, 100, 200]


def test_rule_meld_ranking__order_and_sequence_tiebreak():
    keys = [melds_of(h)[2] for h in ("JC JD JH JS AS 9H", "9C 9D 9H 9S AS JH", "AC AD AH AS KS JH",
                                      "10C 10D 10H 10S AS JH", "KC KD KH KS AS JH", "QC QD QH QS AS JH",
                                      "AS KS QS JS 10S 9H", "AS KS QS JS 10H 9D", "AS KS QS JH 10D 9C")]
    assert keys == sorted(keys, reverse=True) and len(set(keys)) == len(keys)
    trump_low = melds_of("QS JS 10S AC KD 9H", trump=S)[2]  # trump Q-J-10
    plain_high = melds_of("AH KH QH AC KD 9C", trump=S)[2]  # plain A-K-Q
    assert trump_low > plain_high
    trump_low = melds_of("QS JS 10S AC KD 9H", trump=S, tiebreak=TOP_CARD_FIRST)[2]
    plain_high = melds_of("AH KH QH AC KD 9C", trump=S, tiebreak=TOP_CARD_FIRST)[2]
    assert plain_high > trump_low
    assert melds_of("AH KH QH 9C 9D JS", trump=S)[2] == melds_of("AD KD QD 9C 9H JS", trump=S)[2]
    # the best set: most points, then the higher best meld, then more cards
    assert melds_of("AS KS QS JS 10S 9S")[0] == sorted(["AS", "KS", "QS", "JS", "10S", "9S"])


def _team_melds_table(tiebreak: str, seat1: str) -> Table:
    deal = {0: "QS JS 10S 9D 10D 9C", 1: seat1, 2: "AC 10C KD QD JD AD", 3: "KS 9S AS KC QC JC"}
    table = Table(seq_tiebreak=tiebreak).deal(3, deal, turn_up="KS").accept()
    return table.play_first_legal(4)


def test_rule_meld_comparison__better_best_meld_scores_all_team_melds_ties_none():
    # seat 1's plain 6-card sequence (100) beats seat 2's diamond sequence of 4; seat 3's K-Q-J of clubs counts too
    six = Table().deal(3, {0: "QS JS 10S 9D 10D 9C", 1: "AH KH QH JH 10H 9H", 2: "AC 10C KD QD JD AD",
                           3: "KS 9S AS KC QC JC"}, turn_up="KS").accept().play_first_legal(4)
    assert six.state.meld_winner == 1 and list(six.state.meld_score) == [0, 100 + 20]
    deal = {0: "QS JS 10S 9D 10D 9C", 1: "AH KH QH 9H AD KC", 2: "AC 10C KD QD JD JH", 3: "KS 9S AS 10H QC JC"}
    trump_first = Table(seq_tiebreak="trump_first").deal(3, deal, turn_up="KS").accept().play_first_legal(4)
    assert trump_first.state.meld_winner == 0  # trump Q-J-10 beats plain A-K-Q
    assert list(trump_first.state.meld_score) == [20 + 20, 0]  # both partners' melds
    top_first = Table(seq_tiebreak="top_card_first").deal(3, deal, turn_up="KS").accept().play_first_legal(4)
    assert top_first.state.meld_winner == 1 and list(top_first.state.meld_score) == [0, 20]
    assert top_first.observe(1)["meld_winner"].tolist() == [1, 0, 0]
    tie = Table().deal(3, {0: "AH KH QH 9S 10S 9C", 1: "AD KD QD JS KS 9H", 2: "AC 10C QC JD 10D JH",
                           3: "QS AS KC JC 10H 9D"}, turn_up="QS").accept().play_first_legal(4)
    assert tie.state.meld_winner == MELDS_NOBODY and list(tie.state.meld_score) == [0, 0]
    assert tie.state.meld_status[0] == MELD_DECLARED and tie.state.meld_points[0] == 20  # still announced
    assert tie.observe(0)["meld_winner"].tolist() == [0, 0, 1]


def test_rule_bell__20_when_its_holder_plays_the_second_of_trump_king_and_queen():
    table = Table().deal(3, ALL_SPADES, turn_up="AH").passes(4)
    table.name("S")
    assert table.state.bell_holder == 0
    table.act("AS").play_first_legal(3).act("KS").play_first_legal(3)
    assert list(table.state.bell_points) == [0, 0]
    table.act("QS")
    assert list(table.state.bell_points) == [20, 0]
    assert table.observe(1)["bell"].tolist() == [0, 1] and table.observe(2)["bell"].tolist() == [1, 0]
    split = {0: "KS AH 9D 10D 9C JC", 2: "QS AS JS 10S 9S AD"}  # trump K and Q in two hands: no Bell
    nobody = Table().deal(3, split, turn_up=None).passes(4).name("S")
    assert nobody.state.bell_holder == -1


def test_rule_last_trick__10_to_the_team_that_wins_it():
    # Seat 0 makes spades and its team takes tricks 1-5; seat 0 leads the last trick and seat 1's club Ace wins it.
    deal = {0: "JS 9S AH 10H AD KC", 1: "QS AC KH QD JC 9C", 2: "AS 10S QH JD 10D QC", 3: "KS JH 9H KD 9D 10C"}
    table = Table(single_hand=True).deal(3, deal, turn_up="KS").accept()
    table.act("JS", "AS", "9S", "JC", "9D", "AH", "9H", "AD", "JD", "10H", "9C")
    assert table.state.tricks_done == 4 and list(table.state.tricks_won) == [4, 0]
    assert list(table.state.trick_points) == [38 + 26 + 18 + 20, 0] and table.state.leader == 0
    table.act("10D")  # seat 3's JH is forced, then the whole sixth trick: KC, AC, QC, 10C
    assert table.state.phase == PHASE_OVER and table.state.hand_maker == 0
    assert list(table.state.tricks_won) == [5, 1]
    assert list(table.state.hand_trick_points) == [124, 4 + 11 + 3 + 10 + 10]
    # A hand the makers' team won throughout gives them the 10.
    sweep = Table(single_hand=True).deal(3, ALL_SPADES, turn_up="AH").passes(4).name("S").play_out_hand()
    assert list(sweep.state.hand_trick_points) == [152 + 10, 0]


def test_rule_hand_points__cards_last_trick_melds_and_bell():
    table = Table().deal(3, ALL_SPADES, turn_up="AH").passes(4).name("S").play_out_hand()
    # team 0: every trick (162), seat 0's trump and seat 2's plain 6-card sequences (100 + 100), the Bell (20)
    assert list(table.state.hand_total) == [162 + 200 + 20, 0]


def test_rule_contract_made__makers_with_more_points_both_teams_score():
    table = Table().deal(3, ALL_SPADES, turn_up="AH").passes(4).name("S").play_out_hand()
    assert list(table.state.hand_added) == [382, 0] and list(table.state.scores) == [382, 0]
    assert table.state.hand_maker == 0
    rng = np.random.default_rng(4)
    made_count = 0
    for seed in range(30):
        made = Table(seed=seed).play_out_hand(rng)
        makers = int(made.state.hand_maker) % 2
        if made.state.hand_total[makers] > made.state.hand_total[1 - makers]:
            made_count += 1
            assert list(made.state.hand_added) == list(made.state.hand_total)
            assert list(made.state.scores) == list(made.state.hand_total)
    assert made_count > 0


def _failing_makers(**params) -> Table:
    deal = {3: "AS KS QS JS 10S 9S", 0: "AC KC QC JC 10C 9C", 1: "AD KD QD JD 10D 9D", 2: "AH KH QH JH 10H 9H"}
    # seat 0 accepts spades and seat 3 holds them all; single_hand keeps the hand's record for inspection
    return Table(single_hand=True, **params).deal(3, deal, turn_up="9S").accept().play_out_hand()


def test_rule_contract_failed__makers_score_nothing_fail_rule_variants():
    table = _failing_makers()
    assert table.state.hand_maker == 0 and table.state.tricks_won[1] == 6
    assert table.state.hand_total[1] > table.state.hand_total[0]
    assert table.state.hand_added[0] == 0 and table.state.hand_added[1] == table.state.hand_total[1]
    dedans = _failing_makers(fail_rule="belote_dedans")
    declared = sum(int(dedans.state.meld_points[s]) for s in range(4) if dedans.state.meld_status[s] == MELD_DECLARED)
    assert declared > 100  # both teams declared melds
    assert dedans.state.hand_added[0] == 0
    assert dedans.state.hand_added[1] == 162 + declared + 20


def _find_tied_hand(**params) -> Table:
    rng = np.random.default_rng(1)
    for seed in range(3000):
        table = Table(seed=seed, **params)
        table.play_out_hand(rng)
        if table.state.penalized_seat < 0 and table.state.hand_total[0] == table.state.hand_total[1]:
            return table
    raise AssertionError("no tied hand found")


def test_rule_ties__fail_by_default_litige_variant_carries_the_makers_points():
    table = _find_tied_hand(single_hand=True)
    makers = int(table.state.hand_maker) % 2
    assert table.state.hand_added[makers] == 0
    assert table.state.hand_added[1 - makers] == table.state.hand_total[1 - makers]
    litige = _find_tied_hand(tie_rule="litige")
    makers = int(litige.state.hand_maker) % 2
    pending = int(litige.state.hand_total[makers])
    assert litige.state.litige_pending == pending and litige.state.hand_added[makers] == 0
    assert litige.state.hand_added[1 - makers] == litige.state.hand_total[1 - makers]
    assert np.isclose(litige.observe(0)["litige_pending"][0], pending / 162)
    rng = np.random.default_rng(2)
    while litige.state.litige_pending == pending and not litige.state.terminated:
        litige.play_out_hand(rng)
    if litige.state.litige_pending > pending:
        return  # the next hand tied again: the pot grew
    assert litige.state.litige_pending == 0
    makers = int(litige.state.hand_maker) % 2
    totals = litige.state.hand_total
    winner = makers if totals[makers] > totals[1 - makers] else 1 - makers
    assert litige.state.hand_added[winner] == totals[winner] + pending  # the waiting points go to the winner


def test_rule_game_end__target_higher_total_wins_draw_and_single_hand():
    table = Table(seed=1)
    rng = np.random.default_rng(3)
    while not table.state.terminated:
        before = table.state.scores.copy()
        table.play_random(rng)
        assert (table.state.scores >= before).all()
    scores = table.state.scores
    assert max(scores) >= 500 > max(before)  # the game ends after the first hand reaching the target
    winner = 0 if scores[0] > scores[1] else 1
    assert table.state.rewards[winner] == 1 and table.state.rewards[1 - winner] == -1
    # A draw: replay a hand from scores that make both teams end on the same total above the target.
    start = Table().deal(3, ALL_SPADES, turn_up="AH")
    probe = start.copy().passes(4).name("S").play_out_hand()
    added = probe.state.hand_added
    start.state.scores[:] = [500 - int(added[0]) + 10, 500 - int(added[1]) + 10]
    start.passes(4).name("S").play_out_hand()
    assert start.state.terminated and list(start.state.scores) == [510, 510]
    assert list(start.state.rewards) == [0, 0, 0, 0]
    single = Table(single_hand=True).deal(3, ALL_SPADES, turn_up="AH").passes(4).name("S").play_out_hand()
    assert single.state.terminated and single.state.phase == PHASE_OVER
    assert np.allclose(single.state.rewards, [382 / 162, -382 / 162, 382 / 162, -382 / 162])


def test_rule_truncation__max_hands_with_zero_reward():
    table = Table(max_hands=2).deal(3, {})
    while not table.state.truncated:
        table.act(PASS)
    assert table.state.hands_dealt == 2 and table.state.phase == PHASE_OVER
    assert not table.state.terminated and list(table.state.rewards) == [0, 0, 0, 0]


def test_rule_forced_moves__played_by_the_engine():
    # the dealer holds the whole turn-up suit: no suit to name, so its second-round pass is played for it
    table = Table().deal(3, {3: "AC KC QC JC 10C 9C"}, turn_up="9C").passes(4).passes(3)
    assert table.state.hands_dealt == 2 and table.state.step_count == 7
    table = Table().deal(3, ALL_SPADES, turn_up="AH").passes(4).name("S")
    table.play_first_legal(19)
    assert table.state.hands_played == 0
    table.play_first_legal(1)  # the last trick is forced for everyone
    assert table.state.hands_played == 1 and table.state.step_count == 5 + 20


def test_rule_illegal_actions__penalty_opponents_score_162_plus_their_melds_and_the_game_ends():
    env = cardenvs.env("clabber_v0", illegal_action="penalize")
    env.reset(seed=0, options={"deal": {"dealer": 3, "hands": [
        ["AS", "KS", "QS", "JS", "10S", "9S"], ["AC", "KC", "QC", "JC", "10C", "9C"],
        ["AD", "KD", "QD", "JD", "10D", "9D"], ["AH", "KH", "QH", "JH", "10H", "9H"]]}})
    assert env.agent_selection == "player_0"
    env.step(99)
    state = env.state_record
    assert state.terminated and state.penalized_seat == 0
    assert list(state.scores) == [0, 162 + 100 + 100]  # seats 1 and 3 each hold a 6-card sequence
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0, "player_2": -1.0, "player_3": 1.0}
    single = cardenvs.env("clabber_v0", illegal_action="penalize", single_hand=True)
    single.reset(seed=0)
    offender = single.agent_selection
    single.step(99)
    assert single.rewards[offender] < -1.0


def test_rule_optional_declare__variant():
    deal = {0: "AH KH QH 9D 10D 9C", 1: "JH 10H 9H AD KD QD", 2: "AS KS QS JS 10S 9S", 3: "AC KC QC JC 10C JD"}
    table = Table(optional_declare=True).deal(3, deal, turn_up="JD").accept()
    assert table.state.phase == PHASE_DECLARE and table.legal() == [DECLARE, SKIP]
    assert table.observe(1)["meld_cards"].sum() == 0  # not public before the choice
    table.act(SKIP)
    assert table.state.meld_status[0] == MELD_SKIPPED and table.state.meld_points[0] == 0
    assert table.state.phase == PHASE_PLAY
    table.act("AH")
    assert table.state.phase == PHASE_DECLARE
    table.act(DECLARE)
    assert table.state.meld_status[1] == MELD_DECLARED and table.state.meld_points[1] == 40
    assert GAME.action_name(table.params, DECLARE) == "declare"


def test_rule_optional_declare__a_skip_is_seen():
    deal = {0: "AH KH QH 9D 10D 9C", 1: "JH 10H 9H AD KD QD", 2: "AS QS 10S AC QC 10C", 3: "KS JS 9S KC JC JD"}
    table = Table(optional_declare=True).deal(3, deal, turn_up="JD").accept()
    seen = table.observe(2)  # every seat sees seat 0 deciding
    assert seen["to_act"][(0 - 2) % 4] == 1 and seen["phase"][PHASE_DECLARE] == 1
    table.act(SKIP, "AH", DECLARE)
    while int(table.state.tricks_done) == 0:  # seats 2 and 3 hold no melds: nothing to decide
        assert table.state.phase == PHASE_PLAY
        table.play_first_legal()
    assert list(table.state.meld_status) == [MELD_SKIPPED, MELD_DECLARED, MELD_SKIPPED, MELD_SKIPPED]
    assert list(table.state.meld_declined) == [1, 0, 0, 0]
    assert table.state.meld_points[0] == 0  # the skipped melds themselves stay private


def test_rule_hidden_information__observation_is_relative_and_hides_other_hands():
    table = Table(seed=4).deal(3, ALL_SPADES, turn_up="AH").passes(4).name("S").act("AS")
    for player in range(4):
        view = table.observe(player)
        assert np.array_equal(view["own_hand"], [(int(table.state.hand[player]) >> c) & 1 for c in range(24)])
        assert view["maker"][(0 - player) % 4] == 1
        assert view["played"][((0 - player) % 4) * 24 + card_id("AS")] == 1
        assert view["trick"][card_id("AS")] == 1 and view["trick_leader"][(0 - player) % 4] == 1
        assert view["trump"][S] == 1 and view["to_act"][(1 - player) % 4] == 1
        assert view["mask"].any() == (player == 1)
        assert view["dealer"][(3 - player) % 4] == 1
    # nothing in seat 1's observation changes when the other hands are swapped around
    a = Table().deal(3, {1: "AC KC QC JC 10C 9C", 0: "AS KS QS JS 10S 9S"}, turn_up="9H")
    b = Table().deal(3, {1: "AC KC QC JC 10C 9C", 0: "AD KD QD JD 10D 9D", 2: "AS KS QS JS 10S 9S"}, turn_up="9H")
    assert np.array_equal(np.concatenate(list(a.observe(1).values())), np.concatenate(list(b.observe(1).values())))


def test_every_observation_entry_is_written_whatever_the_buffer_held():
    table = Table(seed=9)
    for _ in range(25):
        for player in range(4):
            clean = table.observe(player, fill=0.0)
            dirty = table.observe(player, fill=7.0)
            for name in clean:
                assert np.array_equal(clean[name], dirty[name]), name
        table.play_first_legal()


def test_observation_table_in_docs_matches_the_code():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "rules" / "clabber.md").read_text()
    assert GAME.observation_layout(GAME.make_params()).markdown() in doc


def test_bad_parameters_say_what_is_allowed():
    for bad in ({"target_score": 0}, {"fail_rule": "x"}, {"tie_rule": "x"}, {"seq_tiebreak": "x"},
                {"single_hand": 1}, {"max_hands": 0}):
        with pytest.raises(ValueError, match="not allowed"):
            cardenvs.env("clabber_v0", **bad)
    with pytest.raises(ValueError, match="each of the 24 cards"):
        cardenvs.env("clabber_v0").reset(options={"deal": {"dealer": 0, "deck": [0] * 24}})
