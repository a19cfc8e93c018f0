"""experiments/belief_quality.py: the hidden items of each game read off its records, the smoothed log-probability
of the true value, and a short run of the script."""

import math

import numpy as np
import pytest

import cardenvs
from experiments import belief_quality as quality


def _record(env_id: str, params: dict, seed: int = 0, steps: int = 0) -> tuple[np.ndarray, object]:
    """One record of a game after ``steps`` first-legal-action steps, as a one-record array, and its parameters."""
    env = cardenvs.env(env_id, **params)
    env.reset(seed=seed)
    for _ in range(steps):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    base = env.unwrapped
    return np.array([base.state_record], base.state_record.dtype), base.params


def test_clabber_items_are_the_seat_holding_each_card():
    records, params = _record("clabber_v0", {"single_hand": True}, steps=6)
    items = quality.ITEMS["clabber_v0"](records, params)[0]
    hands = records["hand"][0]
    for card in range(24):
        holders = [seat for seat in range(4) if (int(hands[seat]) >> card) & 1]
        assert items[card] == (holders[0] if holders else quality.NO_ITEM)
    assert (items >= 0).sum() == sum(bin(int(hand)).count("1") for hand in hands)


def test_gin_slaughtre_items_are_the_card_locations_and_the_arrangements_while_the_seats_arrange():
    records, params = _record("gin_slaughtre_v0", {})
    items = quality.ITEMS["gin_slaughtre_v0"](records, params)[0]
    assert items.tolist() == records["location"][0].tolist() + records["pending_arrangement"][0].tolist()
    records, params = _record("gin_slaughtre_v0", {}, steps=4)  # both arranged, play on
    items = quality.ITEMS["gin_slaughtre_v0"](records, params)[0]
    assert items.tolist() == records["location"][0].tolist() + [quality.NO_ITEM] * 2


def test_stabby_jack_items_are_the_draw_pile_from_its_top():
    records, params = _record("stabby_jack_v0", {}, steps=3)
    items = quality.ITEMS["stabby_jack_v0"](records, params)[0]
    size = int(records["deck_size"][0])
    assert items[:size].tolist() == records["deck"][0][:size][::-1].tolist()
    assert (items[size:] == quality.NO_ITEM).all()


def test_slap_items_put_each_stack_s_cards_with_its_seat():
    records, params = _record("slap_v0", {"num_players": 3}, steps=5)
    items = quality.ITEMS["slap_v0"](records, params)[0]
    for seat in range(3):
        assert (items[:54] == seat).sum() == records["stack_size"][0][seat]
    assert items[54:].tolist() == records["slap_choice"][0].tolist()


def test_slabberjan_items_are_the_pieces():
    records, params = _record("slabberjan_v0", {})
    assert quality.ITEMS["slabberjan_v0"](records, params)[0].tolist() == records["piece"][0].tolist()


def test_the_log_probability_is_the_weighted_share_of_the_truth_smoothed_over_the_values_seen():
    values = np.array([[0, 5], [1, 5], [0, 5]])
    weights = np.array([0.5, 0.25, 0.25])
    reference = np.array([[0, 5], [2, 5]])  # item 1 never varies: the seat knows it
    scores = quality.log_probabilities(values, weights, np.array([0, 5]), reference)
    assert scores.tolist() == pytest.approx([math.log(0.99 * 0.75 + 0.01 / 3)])
    # a value nobody drew still costs a finite log-probability
    assert np.isfinite(quality.log_probabilities(values, weights, np.array([3, 5]), reference)).all()


def test_a_short_run_measures_and_prints_its_row(capsys):
    result = quality.measure("stabby_jack_v0", 2, {"max_turns": 6}, model="uniform", agents="heuristic",
                             particles=16, seed=1)
    assert result.games == 2 and result.decisions > 0 and result.items > 0
    assert result.belief < 0 and result.uniform < 0 and result.step_ms > 0
    assert result.gain == pytest.approx(result.belief - result.uniform)
    assert quality.main(["stabby_jack_v0", "--games", "1", "--particles", "8", "--params-json",
                         '{"max_turns": 4}']) == 0
    out = capsys.readouterr().out
    assert out.startswith(quality.HEADER) and "| stabby_jack_v0 | trained | trained | 1 |" in out


def test_the_script_refuses_a_game_without_items_and_impossible_sizes():
    with pytest.raises(ValueError, match="no hidden items are defined for toy_v0"):
        quality.measure("toy_v0", 1)
    with pytest.raises(ValueError, match="games must be 1 or more"):
        quality.measure("clabber_v0", 0)
    with pytest.raises(SystemExit) as stopped:
        quality.main(["clabber_v0", "--games", "0"])
    assert stopped.value.code == 2
