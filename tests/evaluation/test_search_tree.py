"""The compiled trees of ``ismcts`` (cardenvs.agents.search_tree): what the hash tables hold survives their growth,
and the statistics follow the UCB rule they implement."""

import numpy as np

from cardenvs.agents.search_tree import INITIAL_PATH_LENGTH, MIN_SLOTS, SearchForest

NUM_PLAYERS = 2
NUM_ACTIONS = 7


def _forest(searches: int = 1) -> SearchForest:
    return SearchForest(np.zeros(searches, np.int64), NUM_PLAYERS, NUM_ACTIONS, np.zeros(NUM_ACTIONS, np.int64))


def test_children_survive_the_tables_growth():
    """Far more steps than the first table holds, each from the roots, seat 1 moving with actions the others cannot
    tell apart (one public number): every child keeps its key; the searching seat 0's tree keys seat 1's move by
    its public number and what seat 0 observed after it, seat 1's tree by the action alone."""
    forest = _forest()
    steps = 4 * MIN_SLOTS
    for step in range(steps):
        at = forest.begin_descents()
        forest.advance(np.zeros(1, np.int64), np.array([1], np.int64), np.array([step % NUM_ACTIONS], np.int64),
                       np.array([[step, -step]], np.int64), at)
    own = forest.children_of(int(forest.roots[0, 0]))
    other = forest.children_of(int(forest.roots[0, 1]))
    assert len(forest.parents) > 2 * MIN_SLOTS  # grown, rehashed
    assert set(own) == {(1, 0, step, -step) for step in range(steps)}
    assert set(other) == {(1, action) for action in range(NUM_ACTIONS)}
    assert len(set(own.values()) | set(other.values())) == steps + NUM_ACTIONS
    assert all(forest.node_seats[child] == 0 for child in own.values())
    assert all(forest.node_seats[child] == 1 for child in other.values())


def test_statistics_survive_growth_and_ucb_picks_the_best_bound():
    """Many searches, each deciding at its root until the edge table has grown: the counts are the credited ones,
    an untried action is taken first, and once all were tried the choice is the UCB maximum."""
    searches = MIN_SLOTS  # seven edges each: the edge table grows
    forest = _forest(searches)
    rows = np.arange(searches, dtype=np.int64)
    masks = np.ones((searches, NUM_ACTIONS), np.bool_)
    rng = np.random.default_rng(0)
    returns_of = np.linspace(-1.0, 1.0, NUM_ACTIONS)
    for _ in range(NUM_ACTIONS):
        at = forest.begin_descents()
        chosen, expanded = forest.select(rows, np.zeros(searches, np.int64), masks, at, rng.random(searches), 0.7)
        assert expanded.all()
        forest.backpropagate(np.stack([returns_of[chosen], -returns_of[chosen]], axis=1))
    assert len(forest.edge_nodes) > 2 * MIN_SLOTS
    visits, totals = forest.root_statistics()
    assert (visits == 1).all()  # each action tried once, in some order
    assert (totals == returns_of).all()  # with the searching seat's return
    at = forest.begin_descents()
    chosen, expanded = forest.select(rows, np.zeros(searches, np.int64), masks, at, rng.random(searches), 0.7)
    assert not expanded.any()
    # every action visited once and legal NUM_ACTIONS + 1 times: the bonus is equal, the best mean wins
    assert (chosen == NUM_ACTIONS - 1).all()
    stats = forest.statistics(int(forest.roots[0, 0]))
    assert stats[NUM_ACTIONS - 1] == (1, NUM_ACTIONS + 1, 1.0)


def test_a_descent_longer_than_the_path_keeps_every_decision():
    """Seat 0 decides, then moves on, many more times than a path first holds: the path widens and every decision
    on it is credited once, in its own node."""
    forest = _forest()
    at = forest.begin_descents()
    row, seat = np.zeros(1, np.int64), np.zeros(1, np.int64)
    mask = np.ones((1, NUM_ACTIONS), np.bool_)
    decisions = 3 * INITIAL_PATH_LENGTH
    for _ in range(decisions):
        chosen, _ = forest.select(row, seat, mask, at, np.zeros(1), 0.7)
        forest.advance(row, seat, chosen, np.zeros((1, 2), np.int64), at)
    forest.backpropagate(np.array([[1.0, -1.0]]))
    assert forest.path_lengths[0] == decisions
    nodes = forest.path_nodes[0, :decisions]
    assert len(set(nodes.tolist())) == decisions and (forest.path_seats[0, :decisions] == 0).all()
    assert all(forest.statistics(int(node))[0] == (1, 1, 1.0) for node in nodes)  # the first untried action
