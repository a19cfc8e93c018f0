"""Scenario tests per rule of docs/rules/slap.md (``test_rule_<slug>…``), from chosen stacks or a chosen deck.

Tables deal with the dealer right of seat 0, so seat 0 plays the first card (tests/slap/table.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.agents.slap import slappable
from cardenvs.core.game import NO_PLAYER
from cardenvs.games.slap import GAME
from cardenvs.games.slap.cards import CARD_NAMES, JOKER_RANK, card_id
from cardenvs.games.slap.params import SLAP_RULES, WINDOW_MODES
from cardenvs.games.slap.rules import PASS, PHASE_PLAY, PHASE_WINDOW, PLAY, SLAP, rank_of, tens_value
from tests.slap.table import Table, played_in_order

SLAP_PROBABILITY = 0.3  # random play: how often a seat slaps


def test_rule_pack__card_ids_ranks_and_jokers():
    assert len(CARD_NAMES) == 54 and len(set(CARD_NAMES)) == 54
    assert card_id("Ac") == 0 and card_id("Ks") == 51 and card_id("10h") == 9 * 4 + 2
    assert card_id("Jo1") == 52 and card_id("jo2") == 53
    assert [rank_of(card_id(n)) for n in ("Ad", "10s", "Jc", "Qh", "Kd", "Jo2")] == [0, 9, 10, 11, 12, JOKER_RANK]
    assert [tens_value(rank_of(card_id(n))) for n in ("Ad", "7s", "10s", "Jc", "Jo1")] == [1, 7, 10, 0, 0]
    plain, with_jokers = Table(2), Table(2, jokers=True)
    assert int(plain.state.cards_in_play) == 52 and int(with_jokers.state.cards_in_play) == 54
    assert sorted(with_jokers.state.deck.tolist()) == list(range(54))
    with pytest.raises(ValueError, match="Jokers need jokers=True"):
        Table(2).deal([["Jo1"], ["4c"]])


def test_rule_players__two_to_eight_and_a_random_dealer():
    for players in (2, 8):
        assert Table(players).state.num_players == players
    for bad in (1, 9):
        with pytest.raises(ValueError, match="from 2 to 8"):
            cardenvs.env("slap_v0", num_players=bad)
    assert {int(Table(4, seed=s).state.dealer) for s in range(40)} == {0, 1, 2, 3}


def test_rule_deal__one_card_at_a_time_from_the_dealers_left():
    table = Table(3)
    GAME.apply_deal(table.state, table.params, {"dealer": 1, "deck": list(range(52))})
    # card i goes to seat (2 + i) % 3; each card lands on top; seat 2 (dealer's left) gets 18 and plays first
    assert table.pile() == ["Ks"]  # card 51, the last one dealt to seat 2
    assert table.stack(2) == [CARD_NAMES[c] for c in range(48, -1, -3)]
    assert table.stack(0) == [CARD_NAMES[c] for c in range(49, -1, -3)]
    assert table.state.stack_size.tolist() == [17, 17, 17]
    dropped = Table(3, drop_remainder=True)
    GAME.apply_deal(dropped.state, dropped.params, {"dealer": 1, "deck": list(range(52))})
    assert int(dropped.state.cards_in_play) == 51 and not dropped.state.in_play[51]
    assert dropped.pile() == ["Kc"] and dropped.state.stack_size.tolist() == [17, 17, 16]
    with pytest.raises(ValueError, match="exactly once"):
        GAME.apply_deal(table.state, table.params, {"dealer": 0, "deck": list(range(51))})


def test_rule_blind_stacks__face_down_for_everyone():
    first = Table(3).deal([["4c", "9d", "2s"], ["5h", "Kd"], ["7c", "8s"]])
    second = Table(3).deal([["4c", "2s", "9d"], ["5h", "Qd"], ["8s", "7h"]])  # same sizes, other order/cards
    for seat in range(3):
        assert np.array_equal(first.raw_observation(seat), second.raw_observation(seat))


def test_rule_turn_order__skips_empty_stacks_and_a_lone_holder_keeps_playing():
    table = Table(3).deal([["4c", "5c", "9c"], [], ["7d", "8d", "2h"]])
    order = []
    for _ in range(4):
        order.append(int(table.state.played_last))
        table.window()
    assert order == [0, 2, 0, 2]
    table = Table(3).deal([["4c", "6c", "9c", "2s"], ["7d"], []])
    order = []
    for _ in range(4):
        order.append(int(table.state.played_last))
        table.window()
    assert order == [0, 1, 0, 0]


def test_rule_playing_a_card__automatic_unless_exposed():
    table = Table(3).deal([["4c", "9c"], ["7d"], ["2h"]])
    assert table.state.phase == PHASE_WINDOW and table.pile() == ["4c"]
    exposed = Table(3, expose_play_action=True).deal([["4c", "9c"], ["7d"], ["2h"]])
    assert exposed.state.phase == PHASE_PLAY and exposed.legal() == [PLAY] and exposed.pile() == []
    assert int(exposed.state.current_player) == 0
    exposed.act(PLAY)
    assert exposed.state.phase == PHASE_WINDOW and exposed.pile() == ["4c"]
    exposed.window()
    assert exposed.legal() == [PLAY] and int(exposed.state.current_player) == 1


def test_rule_slap_window__asks_every_seat_still_in_starting_with_the_player():
    table = Table(4).deal([["4c", "9c"], [], ["7d", "8d"], ["2h", "6s"]], dealer=3)
    assert table.asked() == [0, 1, 2, 3] and table.legal() == [PASS, SLAP]
    table.window(1)  # seat 1 holds no cards and slaps wrongly: out for good
    assert table.state.eliminated.tolist() == [0, 1, 0, 0]
    assert table.asked() == [2, 3, 0]  # the seat that played is asked first; the eliminated seat never again
    only = Table(2, windows="slappable_only").deal([["4c", "9c", "2c"], ["5h", "9h", "3s"]])
    assert only.state.phase == PHASE_WINDOW and only.pile() == ["4c", "5h", "9c", "9h"]  # first window: 9-9
    assert only.matches() == {"double"}


def _last_window_views(env, observer: str) -> tuple[set[int], int]:
    """(seats shown as slappers, seat shown as the slap winner or NO_PLAYER) in ``observer``'s observation."""
    n = len(env.possible_agents)
    me = env.possible_agents.index(observer)
    views = env.unwrapped.layout.split(env.observe(observer)["observation"])
    slapped = {(me + rel) % n for rel in np.flatnonzero(views["last_slapped"]).tolist()}
    winners = [(me + rel) % n for rel in np.flatnonzero(views["last_winner"]).tolist()]
    assert len(winners) <= 1, winners
    return slapped, winners[0] if winners else NO_PLAYER


def _everyone_sees(env, slapped: set[int], winner: int) -> None:
    for observer in env.possible_agents:
        assert _last_window_views(env, observer) == (slapped, winner), observer


def test_rule_slap_window__the_result_stays_until_the_next_window_is_resolved():
    """Through the env: the last window's result is shown until the next window is resolved, in both modes."""
    deal = {"dealer": 1, "stacks": [["5c", "2c", "9c", "4c"], ["5d", "3d", "9d", "Kh"]]}
    only = cardenvs.env("slap_v0", num_players=2, windows="slappable_only")
    only.reset(seed=0, options={"deal": deal})
    assert only.agent_selection == "player_1" and only.unwrapped.state_record.cards_played == 2  # 5c, 5d
    _everyone_sees(only, set(), NO_PLAYER)
    only.step(PASS)
    only.step(SLAP)  # seat 0 alone slaps the double and leads: 2c, 3d, 9c open no window, 9d makes a double
    assert only.unwrapped.state_record.cards_played == 6 and only.unwrapped.state_record.stack_size.tolist() == [3, 1]
    _everyone_sees(only, {0}, 0)
    every = cardenvs.env("slap_v0", num_players=2, windows="every_card")
    every.reset(seed=0, options={"deal": deal})
    every.step(PASS)
    every.step(PASS)  # 5c: nobody slaps
    _everyone_sees(every, set(), NO_PLAYER)
    every.step(PASS)
    every.step(SLAP)  # 5d: seat 0 slaps the double, wins the pile and leads 2c
    _everyone_sees(every, {0}, 0)
    every.step(PASS)
    every.step(SLAP)  # 2c: seat 1 slaps wrongly and burns 3d; then it plays 9d
    assert every.unwrapped.state_record.burnt_total == 1
    _everyone_sees(every, {1}, NO_PLAYER)
    every.step(PASS)
    every.step(PASS)  # 9d: nobody slaps, so the next window (after 9c) shows nobody
    _everyone_sees(every, set(), NO_PLAYER)


@pytest.mark.parametrize("windows", WINDOW_MODES)
def test_rule_slap_window__the_result_is_always_the_last_resolved_windows(windows):
    """Random play through the env: at every decision each seat sees who slapped in the last resolved window and
    who of them won it (a winner exactly when that pile was slappable and somebody slapped)."""
    env = cardenvs.env("slap_v0", num_players=3, windows=windows, max_cards_played=200)
    layout = env.unwrapped.layout
    rng = np.random.default_rng(5)
    resolved_with_winner = resolved_without_winner = cards_without_window = 0
    for seed in range(12):
        env.reset(seed=seed)
        last_slappers, last_slappable = set(), False  # nothing resolved yet
        slappers, pile_slappable, asks_left, cards_at_window = set(), False, 0, 0
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            seat = env.possible_agents.index(env.agent_selection)
            observation = env.observe(env.agent_selection)["observation"]
            if asks_left == 0:  # a new window: the one before it, if any, is resolved
                views = layout.split(observation[None, :])
                if cards_at_window:
                    last_slappers, last_slappable = slappers, pile_slappable
                    resolved_with_winner += bool(last_slappable and last_slappers)
                    resolved_without_winner += not (last_slappable and last_slappers)
                cards_played = int(env.unwrapped.state_record.cards_played)
                cards_without_window += cards_played - cards_at_window - 1
                cards_at_window = cards_played
                slappers, pile_slappable = set(), bool(slappable(views)[0])
                asks_left = int((views["eliminated"] == 0).sum())  # every seat still in is asked
                assert pile_slappable or windows == "every_card"
            shown, winner = _last_window_views(env, env.agent_selection)
            assert shown == last_slappers
            assert winner in last_slappers if last_slappable and last_slappers else winner == NO_PLAYER
            _everyone_sees(env, shown, winner)
            action = SLAP if rng.random() < SLAP_PROBABILITY else PASS
            if action == SLAP:
                slappers.add(seat)
            env.step(action)
            asks_left -= 1
    assert resolved_with_winner > 20 and resolved_without_winner > 20
    assert (cards_without_window > 20) == (windows == "slappable_only")


@pytest.mark.parametrize(("face", "chances", "params"), [
    ("Jh", 1, {}), ("Qh", 2, {}), ("Kh", 3, {}), ("Ah", 4, {}),
    ("Qh", 5, {"chances_queen": 5}), ("Jh", 3, {"chances_jack": 3}),
])
def test_rule_challenge__face_cards_give_their_chances(face, chances, params):
    numbers = ["2d", "4h", "9s", "7c", "2s", "4c"][:chances]
    table = Table(2, **params).deal([[face, "3s"], [*numbers, "6d"]])
    assert int(table.state.challenger) == NO_PLAYER  # the challenge starts once the face card's window is over
    table.window()
    assert (int(table.state.challenger), int(table.state.payer), int(table.state.chances_left)) == (0, 1, chances)
    for left in range(chances - 1, 0, -1):
        table.window()
        assert int(table.state.played_last) == 1 and int(table.state.chances_left) == left
    table.window()  # the window after the last chance: the challenger takes the pile and leads
    assert table.stack(0) == [face, *numbers] and int(table.state.challenger) == NO_PLAYER
    assert int(table.state.played_last) == 0 and table.pile() == ["3s"]


def test_rule_challenge__a_joker_is_a_number_card_and_the_payer_skips_empty_stacks():
    table = Table(2, jokers=True).deal([["Jo1", "4c"], ["9d", "2s"]]).passes(1)
    assert int(table.state.challenger) == NO_PLAYER
    table = Table(3).deal([["Qc", "4c"], [], ["9d", "2s", "3h"]]).passes(1)
    assert (int(table.state.challenger), int(table.state.payer)) == (0, 2)


def test_rule_paying__the_payers_face_card_starts_a_new_challenge():
    table = Table(2).deal([["Kc", "5s", "7s"], ["3d", "Jh", "9h"]]).passes(2)
    assert (int(table.state.payer), int(table.state.chances_left)) == (1, 2) and table.pile() == ["Kc", "3d", "Jh"]
    table.window()
    assert (int(table.state.challenger), int(table.state.payer), int(table.state.chances_left)) == (1, 0, 1)
    table.window()  # 5s uses the last chance; seat 1 takes the pile and plays first
    assert table.stack(1) == ["Kc", "3d", "Jh", "5s"] and table.pile() == ["9h"]


def test_rule_paying__a_payer_running_out_or_no_payer_at_all_loses_the_challenge():
    table = Table(3).deal([["Qc", "9s"], ["3d"], ["6h", "7h"]])
    table.window().window()  # seat 1 played its only card with a chance left
    assert table.stack(0) == ["Qc", "3d"] and int(table.state.played_last) == 0 and table.pile() == ["9s"]
    table = Table(3).deal([["4c", "Qh"], ["5d"], []])
    table.passes(3)  # Qh: nobody else holds cards, so seat 0 wins the pile at once and with it all cards
    assert table.state.terminated and table.state.rewards.tolist() == [1.0, -1.0, -1.0]


def test_rule_slappable_pile__only_face_up_cards_count_and_rules_switch_off():
    table = Table(2).deal([["6c", "5s", "9c"], ["5d", "7h", "2c"]])
    table.window(1)  # 6c alone: a wrong slap; seat 1 burns 5d face down under the pile
    assert table.pile() == ["5d", "6c", "7h"] and int(table.state.face_up) == 2  # seat 1 played on
    table.window()  # seat 0 plays 5s: the burnt 5d under the pile is no "first card"
    assert table.pile() == ["5d", "6c", "7h", "5s"] and table.matches() == set()
    assert np.flatnonzero(table.observe(0)["first_face_up"]).tolist() == [card_id("6c")]
    everything_off = {f"slap_{rule}": False for rule in SLAP_RULES}
    for cards in (["4c", "4h"], ["3c", "7d"], ["Qc", "Kd"], ["5c", "6d", "7h", "8s"]):
        assert played_in_order(cards, **everything_off).matches() == set()


def _check_rule(rule: str, hits: list[list[str]], misses: list[list[str]], **params) -> None:
    for cards in hits:
        assert rule in played_in_order(cards, **params).matches(), cards
        assert rule not in played_in_order(cards, **params, **{f"slap_{rule}": False}).matches(), cards
    for cards in misses:
        assert rule not in played_in_order(cards, **params).matches(), cards


def test_rule_double():
    _check_rule("double", [["4c", "4h"], ["9c", "2d", "2s"], ["Kc", "Kh"]], [["4c", "5h"], ["4c", "9d", "4s"]])
    _check_rule("double", [["Jo1", "Jo2"]], [["Jo1", "4c"]], jokers=True)
    assert played_in_order(["2c", "8c", "5d", "8h"]).matches() == {"sandwich"}


def test_rule_top_bottom__uses_the_first_face_up_card():
    assert played_in_order(["6c", "9d", "2h", "6s"]).matches() == {"top_bottom"}
    _check_rule("top_bottom", [["6c", "9d", "2h", "6s"], ["10c", "3d", "10s"]], [["6c", "9d", "2h", "7s"], ["6c"]])


def test_rule_sandwich():
    assert played_in_order(["2c", "8c", "5d", "8h"]).matches() == {"sandwich"}
    _check_rule("sandwich", [["2c", "8c", "5d", "8h"], ["9c", "Jd", "9h"]], [["2c", "8c", "5d", "9h"], ["8c", "8d"]])


def test_rule_tens():
    assert played_in_order(["3c", "7d"]).matches() == {"tens"}
    assert played_in_order(["Ac", "Kd", "9h"]).matches() == {"tens"}  # a letter card between an Ace and a 9
    _check_rule("tens", [["3c", "7d"], ["Ac", "9s"], ["2c", "Qd", "8s"], ["6d", "Jh", "4c"]],
                [["4c", "10d"], ["10c"], ["2c", "Qd", "Kh", "8s"], ["3c", "5d", "7h"]])
    _check_rule("tens", [], [["3c", "Jo1", "7d"], ["Jo1", "10c"]], jokers=True)  # Jokers break sums


def test_rule_joker():
    assert played_in_order(["4c", "Jo1"], jokers=True).matches() == {"joker"}
    _check_rule("joker", [["4c", "Jo1"], ["Jo2"]], [["Jo1", "4c"]], jokers=True)


def test_rule_four_in_a_row__with_wrap_around():
    assert played_in_order(["5c", "6d", "7h", "8s"]).matches() == {"four_in_a_row"}
    assert played_in_order(["Qc", "Kd", "Ah", "2s"]).matches() == {"four_in_a_row"}  # wraps from King to Ace
    runs = [["9c", "8d", "7h", "6s"], ["Jc", "Qd", "Kh", "As"], ["3c", "2d", "Ah", "Ks"], ["2c", "Ad", "Kh", "Qs"]]
    _check_rule("four_in_a_row", runs,
                [["5c", "6d", "5h", "6s"], ["5c", "6d", "7h", "9s"], ["6d", "7h", "8s"], ["4c", "5c", "7h", "6s"]])


def test_rule_marriage():
    assert played_in_order(["Qc", "Kd"]).matches() == {"marriage"}
    _check_rule("marriage", [["Qc", "Kd"], ["Kc", "Qd"]], [["Jc", "Kd"], ["Qc", "Qd"]])


def test_rule_slaps_before_challenges__even_on_the_last_chance():
    stacks = [["4c", "4h", "9c"], ["Jh", "7d"]]
    table = Table(2).deal(stacks).passes(2)  # 4c, then Jh: seat 1 challenges, seat 0 has one chance
    assert table.matches() == {"sandwich", "top_bottom"} and int(table.state.chances_left) == 1
    table.window(0)
    assert table.stack(0) == ["4c", "Jh", "4h"] and int(table.state.challenger) == NO_PLAYER
    assert table.pile() == ["9c"] and int(table.state.last_winner) == 0
    unslapped = Table(2).deal(stacks).passes(3)
    assert unslapped.stack(1) == ["4c", "Jh", "4h"]


def test_rule_slaps_before_challenges__a_challenger_out_in_the_window_drops_it_and_an_out_player_starts_none():
    table = Table(3).deal([["Qc"], ["3d", "5d", "9h"], ["6h", "2s"]])
    table.window()  # seat 0 has played its only card, a Queen: seat 1 pays
    table.window(0)  # seat 0 slaps 3d wrongly with no cards: out, and its challenge is dropped
    assert table.state.eliminated[0] and int(table.state.challenger) == NO_PLAYER
    assert int(table.state.played_last) == 2 and table.pile() == ["Qc", "3d", "6h"]
    table = Table(3).deal([["Kc"], ["3d", "5d"], ["6h", "8h"]])
    table.window(0)  # the King was seat 0's last card, then a wrong slap: no challenge
    assert int(table.state.challenger) == NO_PLAYER and int(table.state.played_last) == 1


def test_rule_correct_slap__takes_the_pile_under_the_stack_and_leads():
    table = Table(3).deal([["4c", "9c"], ["4h", "2d"], ["7c", "8d"]]).passes(1)
    assert table.matches() == {"double", "top_bottom"}
    table.window(2)
    assert table.stack(2) == ["8d", "4c", "4h"] and table.pile() == ["7c"]  # seat 2 leads with its old top card
    assert int(table.state.last_winner) == 2 and table.state.last_slapped.tolist() == [0, 0, 1]
    assert table.state.stack_size.tolist() == [1, 1, 3]


def test_rule_wrong_slap__burns_in_seat_order_from_the_left_of_the_player():
    table = Table(3, penalty=2).deal([["5c", "9c", "3c", "Jc"], ["6d", "7d", "8d"], ["2h", "4h", "Kh"]])
    table.window(0, 1, 2)
    assert table.pile() == ["3c", "9c", "4h", "2h", "7d", "6d", "5c", "8d"] and int(table.state.face_up) == 2
    assert int(table.state.burnt_total) == 6 and int(table.state.played_last) == 1
    short = Table(3, penalty=3).deal([["5c", "9c"], ["6d", "7d"], ["2h", "4h", "Kh"]])
    short.window(1)  # seat 1 burns the two cards it has and stays in
    assert short.pile() == ["7d", "6d", "5c", "2h"] and short.state.stack_size.tolist() == [1, 0, 2]
    assert not short.state.eliminated.any() and int(short.state.played_last) == 2


def test_rule_elimination_and_slap_in__a_wrong_slap_with_no_cards_is_out_a_right_one_slaps_in():
    table = Table(3).deal([["4c", "9c"], [], ["7h", "2d"]])
    table.window(1)
    assert table.state.eliminated.tolist() == [0, 1, 0] and table.pile() == ["4c", "7h"]
    slap_in = Table(3).deal([["4c", "9c"], [], ["4h", "2d"]]).passes(1)
    slap_in.window(1)  # seat 1 holds nothing but slaps the double: the pile is its new stack
    assert slap_in.stack(1) == ["4h"] and slap_in.pile() == ["4c"] and int(slap_in.state.played_last) == 1


def test_rule_simultaneous_slaps__settled_uniformly_by_the_games_chance():
    for tiebreak in ("uniform", "reaction_noise"):
        wins = np.zeros(3, np.int64)
        for seed in range(1800):
            table = Table(3, seed=seed, slap_tiebreak=tiebreak).deal([["4c", "9c"], ["4h", "2d"], ["7c", "8d"]])
            table.passes(1).window(0, 1, 2)
            wins[int(table.state.last_winner)] += 1
            if tiebreak == "reaction_noise":
                times = table.state.reaction_time
                assert (times > 0).all() and int(np.argmin(times)) == int(table.state.last_winner)
        chi_square = float(((wins - 600.0) ** 2 / 600.0).sum())
        assert chi_square < 13.8, (tiebreak, wins)  # df 2, p = 0.001
    pairs = [int(Table(3, seed=s).deal([["4c", "9c"], ["4h", "2d"], ["7c", "8d"]]).passes(1).window(0, 2)
                 .state.last_winner) for s in range(200)]
    assert set(pairs) == {0, 2}


def test_rule_dead_pile__goes_to_the_last_player():
    table = Table(3).deal([["4c"], ["9d"], []]).passes(2)
    assert table.state.terminated and table.stack(1) == ["4c", "9d"]
    assert table.state.rewards.tolist() == [-1.0, 1.0, -1.0]
    gone = Table(3).deal([["4c"], ["9d"], []]).passes(1)
    gone.window(1)  # the last player slaps wrongly with no cards: the next seat still in takes the pile
    assert gone.state.terminated and gone.stack(2) == ["4c", "9d"]
    assert gone.state.rewards.tolist() == [-1.0, -1.0, 1.0]


def test_rule_end__all_cards_in_one_hand_or_one_seat_left():
    table = Table(2).deal([["4c", "5c"], ["4d"]]).passes(1)
    assert not table.state.terminated
    table.window(0)  # seat 0 wins the double and with it all three cards
    assert table.state.terminated and table.state.current_player == NO_PLAYER
    assert table.state.rewards.tolist() == [1.0, -1.0] and table.legal() == []
    last = Table(2).deal([["4c", "5c"], ["9d"]]).passes(1)
    last.window(1)  # seat 1, holding nothing, slaps wrongly: seat 0 is the only one left
    assert last.state.terminated and last.state.rewards.tolist() == [1.0, -1.0]
    draw = Table(2).deal([["4c"], ["9d"]]).passes(1)
    draw.window(0, 1)  # both slap wrongly with no cards: everyone still in is out at once
    assert draw.state.terminated and draw.state.rewards.tolist() == [0.0, 0.0]


def test_rule_rewards__winner_takes_all_or_share_of_cards():
    short = Table(3, reward_scheme="share_of_cards", max_cards_played=2).deal([["4c", "5c", "6c"], ["9d"], []])
    short.window().window()
    assert short.state.truncated and short.state.rewards.tolist() == pytest.approx([2 / 4, 0.0, 0.0])
    won = Table(2, reward_scheme="share_of_cards").deal([["4c", "5c"], ["4d"]]).passes(1).window(0)
    assert won.state.terminated and won.state.rewards.tolist() == [1.0, 0.0]


def test_rule_truncation__after_max_cards_played():
    table = Table(2, max_cards_played=3).deal([["4c", "9c", "2c"], ["7d", "Ks"]])
    table.passes(2)
    assert not table.state.truncated and int(table.state.cards_played) == 3
    table.window()
    assert table.state.truncated and not table.state.terminated and int(table.state.cards_played) == 3
    assert table.state.rewards.tolist() == [0.0, 0.0] and table.state.current_player == NO_PLAYER


def test_rule_illegal_actions__raise_or_are_penalised():
    env = cardenvs.env("slap_v0", illegal_action="penalize")
    env.reset(seed=1)
    offender = env.agent_selection
    env.step(2)
    assert env.rewards[offender] == -1.0 and all(env.terminations.values())
    strict = cardenvs.env("slap_v0")
    strict.reset(seed=1)
    with pytest.raises(cardenvs.IllegalActionError, match="legal actions: 0 pass, 1 slap"):
        strict.step(2)
