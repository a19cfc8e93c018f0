"""Search agents with a belief (``belief=policy[:SPEC]``, agents/search.py) and the front ends that follow games.

What is checked: the ``belief`` and ``particles`` options parse and refuse bad values; ``belief=uniform`` (the
default) acts exactly as the resampler search; a belief agent in a tournament (batched and AEC) is told every step
of every game it plays, at every seat it plays, with the actions its seats took; it acts the same on twin states
that differ only in what its seat cannot see, its history fed through the same observations; with the ``uniform``
model (``belief=policy:uniform``) it draws states its seat cannot tell from the true one and chooses actions
distributed as ``belief=uniform``'s (a chi-square test with a stated bound); and the front ends that cannot follow
games refuse it with a message saying so.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest
from scipy.stats import chi2_contingency

import cardenvs
from cardenvs.agents.base import RandomAgent, SeatView, act_in_env, act_on_rows, seat_views, view_in_env
from cardenvs.agents.beliefs import DEFAULT_PARTICLES
from cardenvs.agents.registry import check_spec, make_agent
from cardenvs.agents.search import (
    ISMCTSAgent,
    PIMCAgent,
    PIMCOptions,
    _records,
    belief_spec,
    parse_options,
)
from cardenvs.evaluation.tournament import run_tournament

ENV_ID = "slabberjan_v0"
PARAMS = {"num_players": 3}
SMALL = {"pimc": "pimc:determinizations=3,rollouts=1,rollout=random",
         "ismcts": "ismcts:iterations=12,rollout=random,rollouts=2"}
#: a small belief with the rule-based agent as the model of the other seats (no torch needed)
BELIEF = "belief=policy:heuristic,particles=32"
#: a test fails only below this p-value (fixed seeds: every run the same)
MIN_P_VALUE = 1e-4


def _layout(env_id: str = ENV_ID, params: dict | None = None):
    game = cardenvs.get_game(env_id)
    return game.observation_layout(game.make_params(**(PARAMS if params is None else params)))


def test_belief_options_parse_and_bad_values_are_refused():
    assert parse_options("pimc", "") == PIMCOptions()
    assert (PIMCOptions().belief, PIMCOptions().particles) == ("uniform", DEFAULT_PARTICLES)
    options = parse_options("ismcts", "iterations=9,belief=policy:heuristic,particles=32")
    assert (options.iterations, options.belief, options.particles) == (9, "policy:heuristic", 32)
    assert parse_options("pimc", "belief=policy").belief == "policy"
    assert belief_spec("pimc") is None and belief_spec("pimc:belief=uniform") is None
    assert belief_spec("pimc:belief=policy") == "trained"
    assert belief_spec("ismcts:belief=policy:uniform") == "uniform"
    assert belief_spec("heuristic") is None
    for spec in ("pimc:belief=uniform", "pimc:belief=policy", "ismcts:belief=policy:ppo:model.pt,particles=8"):
        check_spec(spec)
    bad = {
        "pimc:belief=bogus": "belief",
        "pimc:belief=policy:": "belief",
        "pimc:belief=policy:pimc": "no action probabilities",
        "ismcts:belief=policy:human": "no action probabilities",
        "pimc:belief=policy:nonsense": "unknown agent",
        "pimc:belief=policy,particles=0": "particles",
        "pimc:belief=policy,particles=two": "particles",
        "ismcts:particles=64": "only a policy belief",
    }
    for spec, message in bad.items():
        with pytest.raises(ValueError, match=message):
            check_spec(spec)
    agent = make_agent(SMALL["pimc"] + ",belief=uniform", ENV_ID, _layout(), seed=1)
    assert not agent.follows_games and agent.options == parse_options("pimc", SMALL["pimc"][5:])
    assert make_agent(SMALL["pimc"] + "," + BELIEF, ENV_ID, _layout(), seed=1).follows_games


def _game_views(env_id: str, params: dict, seed: int, steps: int) -> tuple:
    """A batch of 16 games after ``steps`` random steps, and the views of their seats to act."""
    venv = cardenvs.vector_env(env_id, 16, **params)
    venv.reset(seed=seed)
    for _ in range(steps):
        venv.step(venv.sample_actions())
    return venv, seat_views(venv, np.arange(16), venv.current_players, venv.observations, venv.action_masks)


class _ResamplerReference:
    """The resampler search written out: draw_states as ``SeatView.resample`` per draw, from the agent's generator."""

    def draw_states(self, views, count):
        return _records([view.resample(self.rng) for view in views for _ in range(count)])


@pytest.mark.parametrize("kind", ["pimc", "ismcts"])
def test_the_uniform_belief_is_the_resampler_search(kind, tmp_path):
    """``belief=uniform`` and no belief option act alike, and both act as the search drawing from
    ``SeatView.resample`` itself; in a tournament the games are the same game by game, and the front end tells the
    agent nothing about them."""
    venv, views = _game_views(ENV_ID, PARAMS, seed=3, steps=5)
    agent_type = PIMCAgent if kind == "pimc" else ISMCTSAgent
    reference = type("Reference", (_ResamplerReference, agent_type), {})
    argument = SMALL[kind].partition(":")[2]
    plain = make_agent(SMALL[kind], ENV_ID, venv.layout, seed=11).act_views(views)
    explicit = make_agent(f"{SMALL[kind]},belief=uniform", ENV_ID, venv.layout, seed=11).act_views(views)
    written_out = reference(ENV_ID, parse_options(kind, argument), seed=11).act_views(views)
    assert np.array_equal(plain, explicit) and np.array_equal(plain, written_out)

    class Silent(agent_type):
        def begin_game(self, game, view):
            raise AssertionError("a uniform search agent was told a game's start")

    results = []
    for first in (make_agent(SMALL[kind], ENV_ID, venv.layout, seed=11),
                  Silent(ENV_ID, parse_options(kind, f"{argument},belief=uniform"), seed=11)):
        result = run_tournament(ENV_ID, [first, "random"], games=4, params=PARAMS, seed=5, progress=False,
                                results_path=tmp_path / f"{len(results)}.jsonl")
        results.append([(r["game"], r["rewards"], r["length"]) for r in sorted(result_records(result),
                                                                              key=lambda r: r["game"])])
    assert results[0] == results[1]


def result_records(result) -> list[dict]:
    """The game lines of a tournament's results file."""
    import json
    from pathlib import Path

    lines = Path(result.results_path).read_text().splitlines()[1:]
    return [json.loads(line) for line in lines]


class Recording(PIMCAgent):
    """A belief agent that records what the front end tells it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.events: list[tuple] = []
        self.decisions: collections.Counter = collections.Counter()

    def begin_game(self, game, view):
        assert view.game_key == game
        self.events.append(("begin", game, view.seat))
        super().begin_game(game, view)

    def observe_game(self, game, view, own_action=None):
        assert view.game_key == game
        self.events.append(("observe", game, view.seat, own_action))
        super().observe_game(game, view, own_action)

    def end_game(self, game):
        self.events.append(("end", game))
        super().end_game(game)

    def act_views(self, views):
        chosen = super().act_views(views)
        for view, action in zip(views, chosen, strict=True):
            self.decisions[view.game_key, view.seat, int(action)] += 1
        return chosen


class OneByOne(RandomAgent):
    """A random agent that acts only through ``act``, so the tournament plays on the AEC env."""

    acts_in_batches = False


@pytest.mark.parametrize("front_end", ["batched", "aec"])
def test_a_belief_agent_is_told_every_step_of_every_game_it_plays(front_end, tmp_path):
    agent = Recording(ENV_ID, parse_options("pimc", "determinizations=2,rollouts=1,rollout=random,"
                                                    "belief=policy:uniform,particles=16"), seed=0)
    other = OneByOne(seed=1) if front_end == "aec" else "random"
    result = run_tournament(ENV_ID, [agent, other], games=6, params=PARAMS, seed=2, progress=False,
                            batch_size=4, results_path=tmp_path / "results.jsonl")
    records = result_records(result)
    assert len(records) == 6
    for record in records:
        game, length = record["game"], record["length"]
        mine = [seat for seat, owner in enumerate(record["seats"]) if owner == 0]
        events = [event for event in agent.events if event[1] == game]
        begins = [event for event in events if event[0] == "begin"]
        assert sorted(seat for _, _, seat in begins) == mine
        assert events[:len(mine)] == begins and events[-1] == ("end", game)
        steps = events[len(mine):-1]
        assert len(steps) == length * len(mine)  # every step, told once for each of its seats, in order
        for step in range(length):
            told = steps[step * len(mine):(step + 1) * len(mine)]
            assert [event[2] for event in told] == mine
            assert sum(event[3] is not None for event in told) <= 1  # at most one of its seats acted
        # its own actions are the ones it chose, at the seats it chose them for
        own = collections.Counter((game, seat, action) for _, _, seat, action in steps if action is not None)
        assert own == collections.Counter({key: count for key, count in agent.decisions.items()
                                           if key[0] == game})
    assert not agent._seats and len(agent._beliefs) == 0  # every game ended, every belief forgotten


@pytest.mark.parametrize("kind", ["pimc", "ismcts"])
@pytest.mark.parametrize(("env_id", "params", "seat"), [
    (ENV_ID, PARAMS, 1),
    ("clabber_v0", {"single_hand": True}, 2),
])
def test_a_belief_agent_reads_nothing_hidden(env_id, params, seat, kind):
    """Two agents with one seed follow one game at ``seat``: one is handed the true states, the other twins that
    its seat cannot tell apart (every unseen card elsewhere, another future chance), through the same
    observations. They choose the same action at every decision of the seat."""
    env = cardenvs.env(env_id, **params)
    base = env.unwrapped
    spec = f"{SMALL[kind]},{BELIEF}"
    agents = [make_agent(spec, env_id, base.layout, seed=4) for _ in range(2)]
    others = RandomAgent(seed=6)
    twins = np.random.default_rng(8)

    def views():
        view = view_in_env(env, seat, "game")
        twin = SeatView(view.game, view.params, view.resample(twins), seat, view.observation, view.action_mask,
                        "game")
        assert twin._record.tobytes() != view._record.tobytes()
        return view, twin

    env.reset(seed=9)
    for agent, view in zip(agents, views(), strict=True):
        agent.begin_game("game", view)
    decided = 0
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        actor = base.possible_agents.index(name)
        if actor == seat:
            true_view, twin_view = views()
            action = int(agents[0].act_views([true_view])[0])
            assert int(agents[1].act_views([twin_view])[0]) == action
            decided += np.count_nonzero(true_view.action_mask) > 1
        else:
            action = others.act(observation)
        env.step(action)
        if any(env.terminations.values()) or any(env.truncations.values()):
            break
        for agent, view in zip(agents, views(), strict=True):
            agent.observe_game("game", view, action if actor == seat else None)
    assert decided >= 2


def test_the_uniform_model_draws_and_chooses_as_the_resampler():
    """A belief with the uniform model (``belief=policy:uniform``) followed along a game draws only states its seat
    cannot tell from the true one, and any one draw is distributed as the resampler's: survivors of uniform
    proposals filtered by what the seat saw, or fresh resampler draws after a rejuvenation. So with one
    determinization, a PIMC decision is distributed alike under ``belief=policy:uniform`` and ``belief=uniform``;
    each of 300 agents of each kind (its own seed, its own belief) decides once at the same position, and a
    chi-square contingency test of the action counts must not reject at p < 1e-4."""
    agents_per_kind = 300
    argument = "determinizations=1,rollouts=1,rollout=random"
    venv = cardenvs.vector_env(ENV_ID, 1, **PARAMS)
    venv.reset(seed=12)
    seat, rng = 2, np.random.default_rng(0)
    history = []  # the seat's view after each step, and its own action where it acted

    def view():
        observations, masks = venv.observe(np.array([seat]))
        return SeatView(venv.game, venv.params, venv.states[0], seat, observations[0], masks[0], "game")

    start = view()
    while True:  # random play to a decision of the seat with a choice, after its first one and 4 steps at least
        legal = np.flatnonzero(venv.action_masks[0])
        if len(history) >= 4 and venv.current_players[0] == seat and legal.size > 1 and any(
                own is not None for _, own in history):
            break
        actor, action = int(venv.current_players[0]), int(rng.choice(legal))
        venv.step(np.array([action]))
        assert not (venv.terminated[0] or venv.truncated[0])
        history.append((view(), action if actor == seat else None))
    decision = view()
    # made directly (the spec's options parsed once), so that the 600 agents do not each load a rollout policy
    believing = parse_options("pimc", f"{argument},belief=policy:uniform,particles=16")
    believers = [PIMCAgent(ENV_ID, believing, seed=100 + k) for k in range(agents_per_kind)]
    for agent in believers:
        agent.begin_game("game", start)
        for step_view, own in history:
            agent.observe_game("game", step_view, own)
    # every draw is a state the seat cannot tell from the true one
    draws = believers[0].draw_states([decision], 40)
    check = cardenvs.vector_env(ENV_ID, len(draws), **PARAMS)
    check.reset(seed=0)
    check.set_states(np.arange(len(draws)), draws)
    observations, masks = check.observe(np.full(len(draws), seat))
    assert (observations == decision.observation).all() and (masks == decision.action_mask).all()
    chosen = {
        "belief": [int(agent.act_views([decision])[0]) for agent in believers],
        "uniform": [int(PIMCAgent(ENV_ID, parse_options("pimc", argument), seed=100 + k).act_views([decision])[0])
                    for k in range(agents_per_kind)],
    }
    actions = sorted(set(chosen["belief"]) | set(chosen["uniform"]))
    assert len(actions) > 1, "the position's decision does not vary with the draw: the test would say nothing"
    table = np.array([[chosen[kind].count(action) for action in actions] for kind in chosen])
    assert chi2_contingency(table).pvalue >= MIN_P_VALUE


def test_a_view_of_a_game_the_agent_does_not_follow_is_refused():
    """A belief agent never falls back to the resampler: a view without a game key, of a game never begun, or a
    front end that does not follow games (act_on_rows without keys, an AEC env) gets an error saying why."""
    venv, views = _game_views(ENV_ID, PARAMS, seed=4, steps=3)
    agent = make_agent(f"{SMALL['pimc']},{BELIEF}", ENV_ID, venv.layout, seed=0)
    message = r"must be told every step of the game.*does not follow games.*belief=uniform"
    with pytest.raises(ValueError, match=message):
        agent.act_views(views[:1])
    with pytest.raises(ValueError, match=message):
        agent.draw_states(views[:1], 2)
    keyed = seat_views(venv, np.arange(2), venv.current_players, venv.observations, venv.action_masks, ["a", "b"])
    with pytest.raises(ValueError, match=message):
        agent.act_views(keyed)
    with pytest.raises(ValueError, match=message):
        act_on_rows([agent], np.zeros(venv.num_players, np.int64), venv.observations, venv.action_masks,
                    venv.current_players, np.zeros(16, np.int64), venv=venv)
    with pytest.raises(ValueError, match="before the game's start"):
        agent.observe_game("c", keyed[0])
    env = cardenvs.env(ENV_ID, **PARAMS)
    env.reset(seed=0)
    observation, *_ = env.last()
    with pytest.raises(ValueError, match=message):
        act_in_env(agent, env, observation)


def test_front_ends_that_cannot_follow_games_refuse_a_belief_agent(tmp_path):
    pytest.importorskip("torch")
    from cardenvs.training import exploit as br

    spec = f"{SMALL['pimc']},{BELIEF}"
    with pytest.raises(ValueError, match=r"keeps a belief over every game it plays.*use belief=uniform"):
        br.exploit(ENV_ID, spec, minutes=0, decisions=10, games=2, run_dir=tmp_path / "run")
    agent = make_agent(spec, ENV_ID, _layout(), seed=0)
    with pytest.raises(ValueError, match="keeps a belief over every game it plays"):
        br.exploit(ENV_ID, agent, minutes=0, decisions=10, games=2, run_dir=tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_the_web_table_refuses_a_belief_agent():
    tables = pytest.importorskip("cardenvs.web.tables")
    spec = f"{SMALL['pimc']},{BELIEF}"
    with pytest.raises(tables.TableError, match=r"must be told every step of its game.*use belief=uniform"):
        tables.LiveTable(ENV_ID, PARAMS, 0, {0: spec, 1: "random", 2: "random"}, None, None,
                         offered=(spec, "random"))
