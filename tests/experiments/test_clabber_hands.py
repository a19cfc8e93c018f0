"""experiments/clabber_hands.py: Clabber's hands against random, split by the side that made trump."""

import numpy as np
import pytest

from experiments import clabber_hands
from experiments.clabber_hands import ADDED, AGENT, HAND, MAKER, RANDOM, TRICKS

#: card points of the 24 cards (rule:card_points) plus the last trick's 10: the trick points of one hand
TRICK_POINTS_A_HAND = 162


def _contract_made(table: np.ndarray) -> np.ndarray:
    """Per hand: the makers have more hand points than the defenders."""
    rows, maker = np.arange(len(table)), table[:, MAKER].astype(int)
    return table[:, HAND][rows, maker] > table[:, HAND][rows, 1 - maker]


@pytest.fixture(scope="module")
def heuristic_hands() -> np.ndarray:
    return clabber_hands.count_hands("heuristic", 1500, tables=64, seed=2)


def test_every_hand_s_columns_follow_the_scoring_rules(heuristic_hands):
    """Trick points add up to 162; makers with more hand points add them and so do the defenders, otherwise the
    makers add nothing and the defenders add theirs (the default fail and tie rules): checks which column is whose."""
    table = heuristic_hands
    assert table.shape == (1500, 7)
    assert set(np.unique(table[:, MAKER])) == {AGENT, RANDOM}
    np.testing.assert_array_equal(table[:, TRICKS].sum(axis=1), TRICK_POINTS_A_HAND)
    assert (table[:, HAND] >= table[:, TRICKS]).all()
    rows = np.arange(len(table))
    maker = table[:, MAKER].astype(int)
    hand, added = table[:, HAND], table[:, ADDED]
    made = _contract_made(table)
    np.testing.assert_array_equal(added[made], hand[made])
    failed = rows[~made]
    assert failed.size > 0
    np.testing.assert_array_equal(added[failed, maker[failed]], 0)
    np.testing.assert_array_equal(added[failed, 1 - maker[failed]], hand[failed, 1 - maker[failed]])


def test_the_rule_based_partnership_gains_on_random_and_random_makes_most_hands(heuristic_hands):
    """A random seat accepts the turn-up at half of its first-round turns, so random makes most contracts, and
    fails far more often than the rule-based partnership does."""
    table = heuristic_hands
    lead = table[:, ADDED][:, 0] - table[:, ADDED][:, 1]
    assert lead.mean() > 20
    random_makes = table[:, MAKER] == RANDOM
    assert random_makes.mean() > 0.6
    made = _contract_made(table)
    assert made[~random_makes].mean() > made[random_makes].mean() + 0.2


def test_the_report_splits_the_hands_by_maker(heuristic_hands, capsys):
    text = clabber_hands.report("heuristic", heuristic_hands)
    assert "heuristic partnership against random, 1,500 hands" in text
    assert "agent makes" in text and "random makes" in text and "points added a hand, agent minus random: +" in text
    assert clabber_hands.main(["--agent", "random", "--hands", "50", "--tables", "8"]) == 0
    assert "random partnership against random, 50 hands" in capsys.readouterr().out


def test_impossible_counts_and_a_human_are_refused(capsys):
    with pytest.raises(ValueError, match="hands and tables must be 1 or more"):
        clabber_hands.count_hands("heuristic", 0)
    with pytest.raises(ValueError, match="a human cannot play"):
        clabber_hands.count_hands("human", 10)
    assert clabber_hands.main(["--agent", "nope", "--hands", "10"]) == 2
    assert "error:" in capsys.readouterr().err
