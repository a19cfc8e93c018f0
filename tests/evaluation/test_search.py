"""The search agents (cardenvs/agents/search.py) and the compiled playouts (cardenvs/core/playout.py).

What is checked: specs parse and refuse bad options; a search agent plays only legal actions, through every front
end (batched tournament, AEC env); it is deterministic for a seed; it reads nothing hidden (a state the seat
cannot tell apart from the true one, with every unseen card elsewhere, gives the same actions from the same seed);
the compiled playouts end every game and depend only on the record, and the compiled rule-based ones play exactly
the rule-based agent's games; and search beats random play (a statistical
test with a stated bound)."""

from __future__ import annotations

import numpy as np
import pytest

import cardenvs
from cardenvs.agents.base import SeatView, act_in_env, seat_views
from cardenvs.agents.registry import check_spec, make_agent
from cardenvs.agents.search import (
    ISMCTSAgent,
    ISMCTSOptions,
    PIMCOptions,
    Playouts,
    TreeNode,
    most_visited,
    parse_options,
)
from cardenvs.core.dispatch import rule_based_policy
from cardenvs.core.playout import compiled_playouts
from cardenvs.evaluation.tournament import run_tournament

SEARCHABLE = [game.env_id for game in map(cardenvs.get_game, cardenvs.available_envs()) if game.resample]
SMALL = {"pimc": "pimc:determinizations=3,rollouts=1,rollout=random",
         "ismcts": "ismcts:iterations=12,rollout=random,rollouts=2"}
POSITIONS = 24  # games of a batch whose first decisions are searched
SETTLE_STEPS = 6  # random steps before the searched decision


def _positions(env_id: str, seed: int) -> tuple:
    game = cardenvs.get_game(env_id)
    venv = cardenvs.vector_env(env_id, POSITIONS, **game.quick_params)
    venv.reset(seed=seed)
    for _ in range(SETTLE_STEPS):
        venv.step(venv.sample_actions())
    return venv, seat_views(venv, np.arange(POSITIONS), venv.current_players, venv.observations, venv.action_masks)


def test_specs_parse_and_refuse_bad_options():
    assert parse_options("pimc", "") == PIMCOptions()
    assert parse_options("pimc", "determinizations=5,rollout=random") == PIMCOptions(5, 2, "random")
    assert parse_options("ismcts", "iterations=9,exploration=1.5") == ISMCTSOptions(9, 1.5, "heuristic")
    assert parse_options("ismcts", "rollouts=3", {"rollouts": 4, "determinizations": 8}).rollouts == 3
    assert parse_options("ismcts", "", {"rollouts": 4}).rollouts == 4
    for spec in ("pimc", "ismcts", "pimc:rollouts=3", "ismcts:rollout=ppo:model.pt"):
        check_spec(spec)
    bad = ["pimc:iterations=3", "pimc:determinizations=0", "pimc:determinizations=two", "ismcts:exploration=-1",
           "pimc:rollout=pimc", "ismcts:iterations", "pimc:rollout=human", "pimc:depth=-1", "ismcts:value=random",
           "pimc:determinizations=10000000000", "ismcts:exploration=inf", "ismcts:exploration=nan", "pimc:rollout=ppo:",
           "ismcts:rollouts=0"]
    for spec in bad:
        with pytest.raises(ValueError, match=r"pimc|ismcts"):
            check_spec(spec)


def test_options_a_spec_leaves_out_come_from_the_game():
    defaults = {"determinizations": 5, "iterations": 9, "depth": 3}
    assert parse_options("pimc", "rollouts=3", defaults) == PIMCOptions(5, 3, "heuristic", 3)
    assert parse_options("ismcts", "depth=0", defaults) == ISMCTSOptions(9, 0.7, "heuristic", 0)
    for env_id in SEARCHABLE:
        game = cardenvs.get_game(env_id)
        agent = make_agent("pimc", env_id, game.observation_layout(game.make_params()))
        for name, value in game.search_defaults.items():
            assert getattr(agent.options, name) == value


def test_models_a_spec_names_are_loaded_when_the_agent_is_made(tmp_path):
    game = cardenvs.get_game("clabber_v0")
    layout = game.observation_layout(game.make_params())
    for spec in (f"pimc:rollout=ppo:{tmp_path / 'missing.pt'}", f"ismcts:depth=2,value=ppo:{tmp_path / 'none.pt'}"):
        with pytest.raises(ValueError, match=r"missing\.pt|none\.pt"):
            make_agent(spec, "clabber_v0", layout)


def test_network_defaults_are_left_out_where_the_shipped_network_cannot_play():
    for env_id in ("slabberjan_v0", "stabby_jack_v0"):
        game = cardenvs.get_game(env_id)
        assert game.search_defaults.get("rollout") == "trained"
        agent = make_agent("pimc", env_id, game.observation_layout(game.make_params(num_players=3)))
        assert (agent.options.rollout, agent.options.depth) == ("heuristic", 0)
        assert agent.options.determinizations == game.search_defaults["determinizations"]


def test_a_game_without_a_resampler_is_refused():
    unsearchable = [env_id for env_id in cardenvs.available_envs() if env_id not in SEARCHABLE]
    for env_id in unsearchable:
        layout = cardenvs.get_game(env_id).observation_layout(cardenvs.get_game(env_id).make_params())
        with pytest.raises(ValueError, match="no hidden-card resampler"):
            make_agent("pimc", env_id, layout)


@pytest.mark.parametrize("kind", ["pimc", "ismcts"])
@pytest.mark.parametrize("env_id", SEARCHABLE)
def test_legal_deterministic_and_reads_nothing_hidden(env_id, kind):
    game = cardenvs.get_game(env_id)
    venv, views = _positions(env_id, seed=3)
    first = make_agent(SMALL[kind], env_id, venv.layout, seed=11).act_views(views)
    assert all(view.action_mask[action] for view, action in zip(views, first, strict=True))
    assert (make_agent(SMALL[kind], env_id, venv.layout, seed=11).act_views(views) == first).all()
    # twins: every unseen card dealt elsewhere, the future chance different; the seat cannot tell them apart
    rng = np.random.default_rng(5)
    states = venv.states
    twins = [
        SeatView(game, venv.params, game.resample(states[i], view.seat, rng), view.seat, view.observation,
                 view.action_mask)
        for i, view in enumerate(views)
    ]
    for i, twin in enumerate(twins):
        assert twin._record.tobytes() != states[i].tobytes()
    assert (make_agent(SMALL[kind], env_id, venv.layout, seed=11).act_views(twins) == first).all()


@pytest.mark.parametrize("env_id", SEARCHABLE)
def test_search_plays_whole_games_in_tournaments_and_the_aec_env(env_id, tmp_path):
    game = cardenvs.get_game(env_id)
    result = run_tournament(env_id, [SMALL["pimc"], SMALL["ismcts"]], games=4, params=game.quick_params,
                            progress=False, results_path=tmp_path / "results.jsonl")
    assert result.games == 4
    env = cardenvs.env(env_id, **game.quick_params)
    env.reset(seed=2)
    agent = make_agent(SMALL["ismcts"], env_id, env.unwrapped.layout, seed=0)
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else act_in_env(agent, env, observation))
    assert not env.agents


@pytest.mark.parametrize("env_id", SEARCHABLE)
def test_random_playouts_end_every_game_and_depend_only_on_the_record(env_id):
    venv, views = _positions(env_id, seed=8)
    records = venv.state_array(np.arange(POSITIONS))
    first = np.array([np.flatnonzero(view.action_mask)[0] for view in views])
    returns = compiled_playouts(records.copy(), first, venv.num_actions)
    assert np.array_equal(returns, compiled_playouts(records.copy(), first, venv.num_actions))
    played = records.copy()
    compiled_playouts(played, first, venv.num_actions)
    assert (played["terminated"] | played["truncated"]).all()
    assert returns.shape == (POSITIONS, venv.num_players)
    for limit in (0, 3):
        stopped = records.copy()
        compiled_playouts(stopped, first, venv.num_actions, max_decisions=limit)
        taken = stopped["step_count"] - records["step_count"]
        over = stopped["terminated"] | stopped["truncated"]
        assert (taken[~over] == limit + 1).all() and (taken <= limit + 1).all()
    reseeded = records.copy()
    reseeded["rng"] += np.uint64(1)
    compiled_playouts(reseeded, first, venv.num_actions)
    assert reseeded.tobytes() != played.tobytes(), "another generator state played the same games"


def _has_compiled_rule_based_policy(env_id: str) -> bool:
    try:
        rule_based_policy(cardenvs.get_game(env_id))
    except TypeError:
        return False
    return True


COMPILED_RULE_BASED = [env_id for env_id in SEARCHABLE if _has_compiled_rule_based_policy(env_id)]


@pytest.mark.parametrize("env_id", COMPILED_RULE_BASED)
@pytest.mark.parametrize("params_index", [0, 1])
def test_compiled_rule_based_playouts_play_the_rule_based_agents_games(env_id, params_index):
    game = cardenvs.get_game(env_id)
    params = dict(game.example_params[params_index], **game.quick_params)
    venv = cardenvs.vector_env(env_id, POSITIONS, **params)
    venv.reset(seed=9)
    for _ in range(SETTLE_STEPS):
        venv.step(venv.sample_actions())
    records = venv.state_array(np.arange(POSITIONS))
    first = np.array([np.flatnonzero(mask)[-1] for mask in venv.action_masks])
    python = Playouts(env_id, venv.params, "heuristic", seed=0)
    assert python.compiled_rollout == "rule_based"
    python.compiled_rollout = None  # the same playouts stepped from Python, the agent's act_batch at every decision
    played = records.copy()
    returns = compiled_playouts(played, first, venv.num_actions, "rule_based", venv.layout.size)
    assert (played["terminated"] | played["truncated"]).all()
    assert np.array_equal(returns, python.returns(records, first))
    limit = 4
    stopped = records.copy()
    compiled_playouts(stopped, first, venv.num_actions, "rule_based", venv.layout.size, limit)
    taken = stopped["step_count"] - records["step_count"]
    over = stopped["terminated"] | stopped["truncated"]
    assert (taken[~over] == limit + 1).all() and (taken <= limit + 1).all()


def test_compiled_playouts_refuse_a_policy_they_cannot_play():
    venv, views = _positions("clabber_v0", seed=1)
    records = venv.state_array(np.arange(POSITIONS))
    first = np.array([np.flatnonzero(view.action_mask)[0] for view in views])
    with pytest.raises(ValueError, match="policy='greedy'"):
        compiled_playouts(records, first, venv.num_actions, "greedy")
    if "clabber_v0" not in COMPILED_RULE_BASED:
        with pytest.raises(TypeError, match="no compiled policy"):
            compiled_playouts(records, first, venv.num_actions, "rule_based", venv.layout.size)


MARGIN_GAMES = 60  # Clabber single hands, duplicate deals
MIN_P_VALUE = 1e-3


def test_pimc_beats_random_play(tmp_path):
    """Search over 60 duplicate hands of Clabber wins more than random play: a one-sided t-test on the deals' mean
    margins rejects "no better" at p < 1e-3."""
    import json

    from scipy.stats import ttest_1samp

    run_tournament("clabber_v0", ["pimc:determinizations=8,rollouts=2,rollout=random", "random"],
                            games=MARGIN_GAMES, seed=4, params={"single_hand": True}, progress=False,
                            results_path=tmp_path / "results.jsonl")
    rewards: dict[int, list[float]] = {}
    lines = (tmp_path / "results.jsonl").read_text().splitlines()[1:]
    for record in map(json.loads, lines):
        rewards.setdefault(record["deal"], []).append(
            np.mean([r for seat, r in zip(record["seats"], record["rewards"], strict=True) if seat == 0])
        )
    margins = [np.mean(values) for values in rewards.values()]
    assert ttest_1samp(margins, 0.0, alternative="greater").pvalue < MIN_P_VALUE


class _TracedISMCTS(ISMCTSAgent):
    """:class:`ISMCTSAgent` that records every decision it credits: the actions from the root before it (the key
    of the node an action-keyed tree would have put it in), the seat that decided, the node of the new trees that
    holds it, the action and the return credited."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.decisions: list[list[tuple]] = []

    def search(self, views):
        self.decisions = [[] for _ in views]
        self._rows = [index for index, view in enumerate(views) if np.count_nonzero(view.action_mask) > 1]
        return super().search(views)

    def _backpropagate(self, forest, totals):
        for row in range(forest.num_searches):
            before: tuple[int, ...] = ()
            for index in range(forest.path_lengths[row]):
                seat, action = int(forest.path_seats[row, index]), int(forest.path_actions[row, index])
                node = TreeNode(forest, int(forest.path_nodes[row, index]))
                self.decisions[self._rows[row]].append((before, seat, node, action, float(totals[row, seat])))
                before += (action,)
        super()._backpropagate(forest, totals)


def _tree_nodes(root: TreeNode) -> list[TreeNode]:
    nodes, stack = [], [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(node.children.values())
    return nodes


TRACED_ITERATIONS = 40


def test_ismcts_never_holds_two_seats_decisions_in_one_node():
    """Clabber hands (four seats, two partnerships): in a tree keyed by the actions from the root, one node gets the
    decisions of different seats in different draws (the engine plays a seat's only legal card for it, so whose
    decision follows depends on hidden cards). The per-seat trees keep each seat's decisions in that seat's own
    tree, one seat a node, and each node's totals are the returns of its seat alone."""
    env_id = "clabber_v0"
    _, views = _positions(env_id, seed=3)
    agent = _TracedISMCTS(env_id, parse_options("ismcts", f"iterations={TRACED_ITERATIONS},rollout=random"), seed=2)
    searches = agent.search(views)
    merged_by_actions = 0
    for view, search, decisions in zip(views, searches, agent.decisions, strict=True):
        if search is None:
            continue
        owner = {node: seat for seat, tree in enumerate(search.trees) for node in _tree_nodes(tree)}
        seats_by_actions: dict[tuple, set[int]] = {}
        seats_by_node: dict[int, set[int]] = {}
        credited: dict[tuple[int, int], float] = {}
        for before, seat, node, action, credit in decisions:
            seats_by_actions.setdefault(before, set()).add(seat)
            seats_by_node.setdefault(node, set()).add(seat)
            credited[node, action] = credited.get((node, action), 0.0) + credit
            assert owner[node] == seat, "a decision was credited in another seat's tree"
        merged_by_actions += any(len(seats) > 1 for seats in seats_by_actions.values())
        assert all(len(seats) == 1 for seats in seats_by_node.values())
        for tree in search.trees:
            for node in _tree_nodes(tree):
                for action, total in node.total.items():
                    assert total == pytest.approx(credited[node, action])
        assert sum(search.root.visits.values()) == TRACED_ITERATIONS
        assert set(search.root.visits) <= set(np.flatnonzero(view.action_mask).tolist())
    # the positions are ones where an action-keyed tree mixes seats: most of them
    assert merged_by_actions > POSITIONS // 2


def test_ismcts_keeps_the_chance_its_seat_sees_apart():
    """Gin Slaughtre: after the searching seat plays, it draws from the stock. In its own tree the draws it sees
    lead to different nodes under one action (an action-keyed tree has one); the other seat does not see the
    searcher's draws, and its tree keys a step by the seat and the move alone."""
    env_id = "gin_slaughtre_v0"
    venv, views = _positions(env_id, seed=5)
    agent = make_agent("ismcts:iterations=30,rollout=random", env_id, venv.layout, seed=1)
    split = 0
    for view, search in zip(views, agent.search(views), strict=True):
        if search is None:
            continue
        after_action: dict[tuple[int, int], set] = {}
        for key in search.root.children:
            assert len(key) == 4 and key[0] in range(venv.num_players)
            after_action.setdefault(key[:2], set()).add(key[2:])
        split += any(len(observed) > 1 for observed in after_action.values())
        for seat, tree in enumerate(search.trees):
            if seat != view.seat:
                assert all(len(key) == 2 for node in _tree_nodes(tree) for key in node.children)
    assert split > 0


def test_ismcts_other_seats_see_a_hidden_choice_by_its_public_name():
    """Gin Slaughtre's upcard arrangements are hidden until both seats chose: the other seat's tree has one key for
    all of them, and a public action keeps a key of its own."""
    game = cardenvs.get_game("gin_slaughtre_v0")
    params = game.make_params()
    public = ISMCTSAgent("gin_slaughtre_v0", ISMCTSOptions(), seed=0).public_actions(params)
    names = [game.action_name(params, action) for action in range(game.num_actions(params))]
    arrangements = {public[action] for action, name in enumerate(names) if name.startswith("upcards")}
    assert len(arrangements) == 1
    others = [public[action] for action, name in enumerate(names) if not name.startswith("upcards")]
    assert len(set(others)) == len(others) and not arrangements & set(others)


def test_most_visited_breaks_ties_by_mean_return_then_lowest():
    """The most visits win over a higher mean; among equal visits the higher mean wins, then the lower action."""
    visits = np.array([[3, 3, 1], [1, 1, 1], [2, 0, 2], [0, 4, 4]])
    totals = np.array([[1.0, 2.0, 9.0], [0.0, -1.0, -1.0], [1.0, 0.0, 1.0], [0.0, -2.0, -3.0]])
    assert most_visited(visits, totals).tolist() == [1, 0, 0, 1]


def test_ismcts_with_few_iterations_plays_the_best_return_of_the_actions_tried():
    """Gin Slaughtre, two iterations at decisions with more legal actions: two actions are tried once each, and the
    one with the higher return is played (the lower of equals), not the lower action whatever its return."""
    env_id = "gin_slaughtre_v0"
    venv, views = _positions(env_id, seed=7)
    spec = "ismcts:iterations=2,rollout=heuristic"  # random playouts of Gin Slaughtre end in draws
    searches = make_agent(spec, env_id, venv.layout, seed=4).search(views)
    played = make_agent(spec, env_id, venv.layout, seed=4).act_views(views)
    higher_action_won = 0
    for search, action in zip(searches, played, strict=True):
        if search is None:
            continue
        visits, totals = search.root.visits, search.root.total
        assert sorted(visits.values()) == [1, 1]
        low, high = sorted(visits)
        expected = high if totals[high] > totals[low] else low
        assert action == expected
        higher_action_won += expected == high
    assert higher_action_won > 0  # positions where "the lowest of equals" alone plays another action


def test_search_agents_draw_their_states_from_one_method():
    """The search agents get their states from draw_states alone (where a belief over the hidden cards can replace
    the resampler): ismcts asks it once per iteration for a state per searched view; its draws come view by view,
    each one its seat cannot tell from the true state."""
    env_id = "clabber_v0"
    venv, views = _positions(env_id, seed=3)
    calls = []

    class Counting(ISMCTSAgent):
        def draw_states(self, views, count):
            calls.append((len(views), count))
            return super().draw_states(views, count)

    Counting(env_id, parse_options("ismcts", "iterations=5,rollout=random"), seed=0).act_views(views)
    searched = sum(np.count_nonzero(view.action_mask) > 1 for view in views)
    assert calls == [(searched, 1)] * 5
    draws = make_agent(SMALL["pimc"], env_id, venv.layout, seed=0).draw_states(views[:2], 3)
    assert len(draws) == 6 and draws.dtype == venv.state_array([0]).dtype
    # view by view, each draw one its seat cannot tell from the true state
    seen = cardenvs.vector_env(env_id, len(draws), **cardenvs.get_game(env_id).quick_params)
    seen.reset(seed=0)
    seen.set_states(np.arange(len(draws)), draws)
    observations, masks = seen.observe([view.seat for view in views[:2] for _ in range(3)])
    for row, view in enumerate(view for view in views[:2] for _ in range(3)):
        assert np.array_equal(observations[row], view.observation)
        assert np.array_equal(masks[row], view.action_mask)
