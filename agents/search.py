"""Search agents: Perfect-Information Monte Carlo (``pimc``) and Information-Set MCTS (``ismcts``).

Both see a game only as a :class:`~cardenvs.agents.base.SeatView`: the seat's observation and legal mask, and full
states drawn by the game's hidden-card resampler (``Game.resample``), which agree with everything the seat has seen
and deal every unseen card again. They play those states out on the batched engine
(:class:`~cardenvs.core.vector.VectorEnv`) with a rollout policy: ``heuristic`` (the default), ``random``,
``trained`` or ``ppo:PATH``. A tournament hands a search agent every game
in which it is to act at once, so the rollouts of all of them run in one batch.

``pimc`` (Perfect-Information Monte Carlo): for each decision, ``determinizations`` draws of the state; in each,
every legal action followed by ``rollouts`` playouts to the end of the game; the action with the best mean return
for the seat (its team's, where the game rewards teams) is played.

``ismcts`` (multiple-observer Information-Set MCTS, Cowling, Powley and Whitehouse 2012): per decision, one tree per
seat, each node a point of the search as that seat sees it. A seat's tree branches on its own moves and on what it
sees of the others' (``Game.public_action_name`` where a game hides a choice); the searching seat's tree also on
what the seat observes after every step, so the chance it sees (its draws, a new deal) leads to nodes of their own.
The other seats' trees hold none of their seats' private information, which the searching seat does not know.
Each of ``iterations`` iterations draws a state (:meth:`_SearchAgent.draw_states`) and descends all trees together:
the seat to act chooses in its own tree by UCB over the actions legal in that draw (an action's count of being
legal at the node stands in for the node's visits), until an action new to its tree. From there ``rollouts``
playouts with the rollout policy give each seat's return, and every decision on the way is credited with the
return of the seat that took it (partners share a reward where the game's rules say so). The most visited action
at the root of the searching seat's tree is played; among equals, the one with the highest mean return, then the
lowest (with no more iterations than legal actions, every action tried has one visit and the returns decide). The
exploration constant is scaled by the spread of the returns seen so far, so one constant serves every game's
reward scale.

Both are deterministic for a given seed and sequence of decisions: their generator is the only randomness (it
draws the resampled states, the playouts' chance and the tie-breaks).

Beliefs (``belief``): by default (``uniform``) the states are the resampler's draws, uniform over the deals that
agree with what the seat has seen, as if the other seats' choices said nothing about their cards. With
``belief=policy`` (the game's shipped network as the model of the other seats' play) or ``belief=policy:SPEC`` (any
action model of :func:`cardenvs.agents.beliefs.action_model`, e.g. ``policy:heuristic``), the agent keeps a
particle filter (:class:`cardenvs.agents.beliefs.Belief`, ``particles`` particles) for every seat it plays in every
game, weighting the deals by how likely the other seats' observed choices were under the model, and draws its
states from it. Such an agent follows its games (:attr:`~cardenvs.agents.base.Agent.follows_games`): the front end
must hand it every step of every game it plays, the other seats' turns included (the tournament does;
:mod:`cardenvs.agents.base` says how), and a view of a game it was not told about is refused with an error, never
searched over the resampler instead. ``belief=policy:uniform`` weights every legal action alike and so draws as the
resampler does, at the price of a belief.

Playouts may stop at a ``depth`` (decisions, the first action included), where the value head of a self-play
network (``value``, the game's shipped one by default) estimates each seat's return from there: in long games with
much chance, a full playout's return is mostly noise about one decision.

Specs (see :mod:`cardenvs.agents.registry`): ``pimc`` or ``pimc:determinizations=16,rollouts=2,rollout=random``;
``ismcts`` or ``ismcts:iterations=400,exploration=0.7,rollout=heuristic``; ``pimc:belief=policy`` or
``ismcts:belief=policy:heuristic,particles=128``. Options a spec leaves out come from
the game's ``Game.search_defaults`` (the budgets of docs/search.md's strength table), then from
:class:`PIMCOptions` and :class:`ISMCTSOptions`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

import cardenvs
from cardenvs.agents import beliefs
from cardenvs.agents.base import Agent, RandomAgent, SeatView, act_on_rows
from cardenvs.agents.registry import SEARCH_KINDS, check_spec, make_agent
from cardenvs.agents.search_tree import SearchForest
from cardenvs.core.playout import compiled_playouts
from cardenvs.core.rng import SEED_LIMIT

#: the rollout policies a search spec may name without a path
ROLLOUT_SPECS = ("heuristic", "random", "trained")
#: the largest budget an option may ask for (determinizations, rollouts, iterations, depth): more would exhaust
#: memory in the first decision rather than fail at once
MAX_BUDGET = 1_000_000
#: the rollout policy's own seed is drawn below this (torch generators take 63-bit seeds)
POLICY_SEED_LIMIT = 2**63
#: options of a game's ``search_defaults`` that need its shipped network (torch, and parameters it fits)
NETWORK_OPTIONS = ("rollout", "depth", "value")
#: the ``belief`` option that draws from the resampler (no belief kept)
UNIFORM_BELIEF = beliefs.UNIFORM


@dataclasses.dataclass(frozen=True)
class PIMCOptions:
    """The budget of :class:`PIMCAgent`.

    Args:
        determinizations: states drawn by the resampler per decision.
        rollouts: playouts per determinization and legal action.
        rollout: the rollout policy's agent spec (``heuristic``, ``random``, ``trained`` or ``ppo:PATH``).
        depth: decisions a playout takes, the first action included, before it stops and ``value`` estimates the
            rest of the game (``0``: play to the end; ``1``: value the state right after the action).
        value: the self-play network whose value head estimates each seat's return from where a playout stopped
            (``trained``: the game's shipped network, or ``ppo:PATH`` of a ``.pt`` model); used only with a depth.
        belief: where the determinizations come from: ``uniform`` (the resampler), ``policy`` (a belief with the
            game's shipped network as the model of the other seats) or ``policy:SPEC`` (a belief with the action
            model ``SPEC``); a belief needs a front end that follows games (module docstring).
        particles: the particles of each belief (only with a ``policy`` belief).
    """

    determinizations: int = 16
    rollouts: int = 2
    rollout: str = "heuristic"
    depth: int = 0
    value: str = "trained"
    belief: str = UNIFORM_BELIEF
    particles: int = beliefs.DEFAULT_PARTICLES


@dataclasses.dataclass(frozen=True)
class ISMCTSOptions:
    """The budget of :class:`ISMCTSAgent`.

    Args:
        iterations: tree iterations per decision (each one draw, one descent, ``rollouts`` playouts).
        exploration: the UCB constant, in units of the spread of the returns seen in the tree.
        rollout: the rollout policy's agent spec (``heuristic``, ``random``, ``trained`` or ``ppo:PATH``).
        depth: decisions a playout takes, the new action included, before ``value`` estimates the rest of the game
            (``0``: play to the end).
        value: as :class:`PIMCOptions`'s.
        rollouts: playouts from where each iteration's descent ends, with their own chance; the iteration's return
            is their mean.
        belief: as :class:`PIMCOptions`'s.
        particles: as :class:`PIMCOptions`'s.
    """

    iterations: int = 200
    exploration: float = 0.7
    rollout: str = "heuristic"
    depth: int = 0
    value: str = "trained"
    rollouts: int = 1
    belief: str = UNIFORM_BELIEF
    particles: int = beliefs.DEFAULT_PARTICLES


def parse_options(kind: str, argument: str, defaults: dict[str, Any] | None = None) -> PIMCOptions | ISMCTSOptions:
    """The options of the spec ``kind:argument`` (``argument`` is ``name=value,...``); an option it leaves out
    comes from ``defaults`` (a game's ``Game.search_defaults``), else from the options' own defaults.

    Raises:
        ValueError: an unknown name, a value of the wrong type, a budget below 1, an unknown rollout spec, a belief
            other than ``uniform``, ``policy`` or ``policy:SPEC`` (or one whose model gives no action
            probabilities), or ``particles`` without a ``policy`` belief.
    """
    options_type = PIMCOptions if kind == "pimc" else ISMCTSOptions
    fields = {field.name: field for field in dataclasses.fields(options_type)}
    values: dict[str, Any] = {name: value for name, value in (defaults or {}).items() if name in fields}
    given: set[str] = set()
    for part in filter(None, argument.split(",")):
        name, equals, text = part.partition("=")
        if not equals or name not in fields:
            raise ValueError(
                f"{kind} option {part!r} is not allowed; give name=value with names {', '.join(fields)}"
            )
        given.add(name)
        try:
            values[name] = type(fields[name].default)(text)
        except ValueError:
            raise ValueError(f"{kind} option {name}={text!r} is not a {type(fields[name].default).__name__}") from None
    options = options_type(**values)
    for name, value in dataclasses.asdict(options).items():
        if isinstance(value, str):
            continue
        low = 0 if name == "depth" else 1
        if isinstance(value, float):
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{kind} option {name}={value!r} is not allowed; it must be a positive number")
        elif not low <= value <= MAX_BUDGET:
            raise ValueError(f"{kind} option {name}={value!r} is not allowed; it must be from {low} to {MAX_BUDGET}")
    if options.rollout not in ROLLOUT_SPECS and not (options.rollout.startswith("ppo:") and options.rollout[4:]):
        raise ValueError(
            f"{kind} rollout={options.rollout!r} is not allowed; choose {', '.join(ROLLOUT_SPECS)} or ppo:PATH"
        )
    if options.value != "trained" and not (options.value.startswith("ppo:") and options.value[4:]):
        raise ValueError(f"{kind} value={options.value!r} is not allowed; choose trained or ppo:PATH of a .pt model")
    try:
        model = beliefs.belief_model_spec(options.belief)
    except ValueError as error:
        raise ValueError(f"{kind} option {error}") from None
    if model is not None and model != beliefs.UNIFORM:
        if model.partition(":")[0] in beliefs.NO_PROBABILITIES:
            raise ValueError(f"{kind} belief={options.belief!r} is not allowed: {model!r} gives no action "
                             f"probabilities; name a model that does (policy, policy:heuristic, policy:ppo:PATH)")
        try:
            check_spec(model)
        except ValueError as error:
            raise ValueError(f"{kind} belief={options.belief!r} is not allowed: {error}") from None
    if model is None and "particles" in given:
        raise ValueError(f"{kind} option particles={options.particles} is not allowed with belief={UNIFORM_BELIEF}: "
                         f"only a policy belief keeps particles")
    return options


def belief_spec(spec: str) -> str | None:
    """The action model of the search agent spec ``spec``'s belief (``pimc:belief=policy`` -> ``trained``), or None
    where it keeps none: another kind of spec, or a search agent drawing from the resampler. Front ends that cannot
    follow games use it to refuse a spec before they make the agent.

    Raises:
        ValueError: a search spec with bad options (:func:`parse_options`).
    """
    kind, _, argument = spec.partition(":")
    if kind not in SEARCH_KINDS:
        return None
    return beliefs.belief_model_spec(parse_options(kind, argument).belief)


class Playouts:
    """Games played out from given states with one rollout policy at every seat, on a batched env, to the end or
    to a depth where a network's value head estimates the rest. With ``opponent``, the seats that
    :meth:`returns` marks play by it instead (a best response's playouts, where the target plays its own seats).

    Args:
        env_id: the game.
        params: its parameters (a params dataclass).
        rollout: the rollout policy's agent spec.
        seed: seed of the rollout policy's own generator (a random policy draws from it).
        depth: decisions, the first action included, before the value estimate takes over (``0``: to the end).
        value: the value network's agent spec (a self-play ``.pt`` model), loaded only with a depth.
        opponent: the policy of the marked seats (an agent acting on observations), or None.
    """

    def __init__(self, env_id: str, params: Any, rollout: str, seed: int, depth: int = 0, value: str = "trained",
                 opponent: Agent | None = None):
        self.env_id = env_id
        self.params = params
        self.game = cardenvs.get_game(env_id)
        self.num_players = self.game.num_players(params)
        self.num_actions = self.game.num_actions(params)
        layout = self.game.observation_layout(params)
        self.policy = make_agent(rollout, env_id, layout, seed)
        if self.policy.reads_seat_views:
            raise ValueError(f"a search agent's rollout policy must act on observations, not {rollout!r}")
        self.observation_size = layout.size
        # played out by one compiled kernel (cardenvs.core.playout) where the policy is compiled; else in Python
        self.compiled_rollout = (
            "random" if rollout == "random"
            else "rule_based" if rollout == "heuristic" and self.policy.compiled_policy is not None
            else None
        )
        self.depth = int(depth)
        self.value_network = None
        if self.depth:
            network = getattr(make_agent(value, env_id, self.game.observation_layout(params), seed), "network", None)
            if network is None or not hasattr(network, "value"):
                raise ValueError(f"value={value!r} is not a self-play network with a value head (a .pt model)")
            self.value_network = network
        if opponent is not None and opponent.reads_seat_views:
            raise ValueError(f"a playout's opponent must act on observations, not {opponent.name!r}")
        self.opponent = opponent
        # an opponent that acts as the compiled rollout policy does (random against the random rollout, the
        # rule-based agent against the rule-based one) needs no seats of its own: the compiled kernel plays both
        self._opponent_is_rollout = opponent is not None and (
            (self.compiled_rollout == "random" and isinstance(opponent, RandomAgent))
            or (self.compiled_rollout == "rule_based"
                and getattr(opponent, "compiled_policy", None) is self.policy.compiled_policy))
        self._venv = None
        self._seating = np.zeros(self.num_players, np.int64)

    def _env(self, size: int):
        if self._venv is None or self._venv.num_envs < size:
            self._venv = cardenvs.vector_env(self.env_id, size, **dataclasses.asdict(self.params))
            self._venv.reset(seed=0)
        return self._venv

    def returns(self, records: np.ndarray, first_actions: np.ndarray, opposed: np.ndarray | None = None) -> np.ndarray:
        """Each seat's return from ``records`` on, float64 ``[R, P]``: ``first_actions[r]`` is played in record
        ``r``, then the rollout policy plays every seat to the end of the game, but the seats ``opposed[r]`` marks
        (bool ``[R, P]``), which the opponent plays."""
        if opposed is not None and self.opponent is None:
            raise ValueError("these playouts have no opponent to play the marked seats")
        mixed = opposed is not None and bool(opposed.any()) and not self._opponent_is_rollout
        if self.compiled_rollout is not None and not mixed:
            played = records.copy()
            totals = compiled_playouts(played, first_actions, self.num_actions, self.compiled_rollout,
                                       self.observation_size, self.depth - 1)
            stopped = np.flatnonzero(~(played["terminated"] | played["truncated"]))
            if stopped.size:
                venv = self._env(stopped.size)
                venv._set_trusted_states(np.arange(stopped.size, dtype=np.int64), played[stopped])
                totals[stopped] += self._values(venv, stopped.size)
            return totals
        venv = self._env(len(records))
        rows = np.arange(len(records), dtype=np.int64)
        venv._set_trusted_states(rows, records)
        active = np.zeros(venv.num_envs, np.bool_)
        active[rows] = True
        actions = np.zeros(venv.num_envs, np.int64)
        actions[rows] = first_actions
        totals = np.zeros((venv.num_envs, self.num_players))
        agents, seating = [self.policy], self._seating
        if mixed:
            agents = [self.policy, self.opponent]
            seating = np.full((venv.num_envs, self.num_players), -1, np.int64)
            seating[rows] = opposed
        taken = 0
        while active.any():
            _, _, _, rewards, terminated, truncated = venv.step(actions, active=active)
            taken += 1
            totals[active] += rewards[active]
            active &= ~(terminated | truncated)
            if taken == self.depth and active.any():
                totals[active] += self._values(venv, venv.num_envs)[active]
                break
            if active.any():
                act_on_rows(agents, seating, venv.observations, venv.action_masks, venv.current_players, actions,
                            rows=active)
        return totals[rows]

    def _values(self, venv: Any, count: int) -> np.ndarray:
        """The value network's estimate of every seat's return from the first ``count`` games of ``venv`` on,
        float64 ``[count, P]``, each seat valued from its own observation."""
        import torch as th

        values = np.zeros((count, self.num_players))
        with th.inference_mode():
            for seat in range(self.num_players):
                obs, _ = venv.observe(np.full(venv.num_envs, seat, np.int64))
                values[:, seat] = self.value_network.value(th.as_tensor(obs[:count])).numpy()
        return values


def _records(records: Sequence[np.record]) -> np.ndarray:
    """One structured array of the game's record type holding ``records``."""
    array = np.empty(len(records), records[0].dtype)
    for index, record in enumerate(records):
        array[index] = record
    return array


def _reseeded(records: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``records`` with a fresh generator state each, so that the playouts from copies of one state draw
    different chance."""
    records["rng"] = rng.integers(0, SEED_LIMIT, size=len(records), dtype=np.uint64)
    return records


class _SearchAgent(Agent):
    """What both search agents share: the spec's options, the generator, the playouts of the game, and the beliefs
    of the games it follows (with a ``policy`` belief).

    Args:
        env_id: the game.
        options: the agent's options.
        seed: seed of the agent's generator.
        model: the action model of a ``policy`` belief (default: made from the belief's spec at the first game, for
            the parameters of that game).
    """

    reads_seat_views = True
    acts_in_batches = True

    def __init__(self, env_id: str, options: PIMCOptions | ISMCTSOptions, seed: int | None = None,
                 model: beliefs.ActionModel | None = None):
        self.env_id = env_id
        self.options = options
        self.rng = np.random.default_rng(seed)
        self._playouts: Playouts | None = None
        self._rollout_seed = int(self.rng.integers(0, POLICY_SEED_LIMIT))
        self._model_spec = beliefs.belief_model_spec(options.belief)
        #: with a ``policy`` belief the agent follows every game it plays (``Agent.follows_games``)
        self.follows_games = self._model_spec is not None
        self._model = model
        self._beliefs: beliefs.SeatBeliefs | None = None
        self._belief_seed = int(self.rng.integers(0, POLICY_SEED_LIMIT)) if self.follows_games else None
        self._seats: dict[Hashable, set[int]] = {}  # per followed game, the seats with a belief

    def begin_game(self, game: Hashable, view: SeatView) -> None:
        if not self.follows_games:
            return
        if self._beliefs is None:
            if self._model is None:
                layout = view.game.observation_layout(view.params)
                self._model = beliefs.action_model(self._model_spec, self.env_id, layout)
            self._beliefs = beliefs.SeatBeliefs(self._model, self.options.particles, self._belief_seed)
        self._beliefs.begin((game, view.seat), view, self.unmodelled_seats(game))
        self._seats.setdefault(game, set()).add(view.seat)

    def unmodelled_seats(self, game: Hashable) -> set[int]:
        """The seats of ``game`` whose choices the belief's model does not describe (their legal actions weigh
        alike): none here; a best response's own seats (:mod:`cardenvs.agents.best_response`)."""
        return set()

    def observe_game(self, game: Hashable, view: SeatView, own_action: int | None = None) -> None:
        if not self.follows_games:
            return
        if not self._has_belief(game, view.seat):
            raise ValueError(f"{self.name} was told a step of game {game!r} at seat {view.seat} before the game's "
                             f"start (begin_game)")
        self._beliefs.observe((game, view.seat), view, own_action)

    def end_game(self, game: Hashable) -> None:
        for seat in self._seats.pop(game, ()):
            self._beliefs.end((game, seat))

    def _has_belief(self, game: Hashable | None, seat: int) -> bool:
        """Whether the agent follows ``game`` at ``seat`` (a belief was begun and not ended)."""
        return game is not None and game in self._seats and seat in self._seats[game]

    def check_views(self, views: Sequence[SeatView]) -> None:
        """Refuse views the agent cannot search: with a ``policy`` belief, a view of a game it does not follow (the
        front end must follow games; the agent never falls back to the resampler).

        Raises:
            ValueError: a view without a game key, or of a game and seat whose belief was never begun.
        """
        if not self.follows_games:
            return
        for view in views:
            if not self._has_belief(view.game_key, view.seat):
                raise ValueError(
                    f"{self.name} with belief={self.options.belief} keeps a belief over every game it plays, so it "
                    f"must be told every step of the game, the other seats' turns included: this front end does "
                    f"not follow games (Agent.follows_games: begin_game, observe_game, end_game, and views keyed "
                    f"by game; the tournament does). Use belief={UNIFORM_BELIEF} here"
                )

    def playouts(self, params: Any) -> Playouts:
        """The playouts of the game with ``params`` (made on first use, again if the parameters change)."""
        if self._playouts is None or self._playouts.params != params:
            self._playouts = Playouts(self.env_id, params, self.options.rollout, self._rollout_seed,
                                      self.options.depth, self.options.value)
        return self._playouts

    def draw_states(self, views: Sequence[SeatView], count: int) -> np.ndarray:
        """``count`` full states per view that its seat cannot tell from the true one, as one record array, view by
        view (``count`` of the first view's, then of the second's, ...): the determinizations the search plays in,
        and the one place it gets states from. With ``belief=uniform`` they are the game's hidden-card resampler's
        draws (``SeatView.resample``), uniform over the deals the rules allow given what the seat saw; with a
        ``policy`` belief, draws of the belief of the view's game and seat (:meth:`check_views` first).

        Args:
            views: the decisions.
            count: states to draw for each.
        """
        if not self.follows_games:
            return _records([view.resample(self.rng) for view in views for _ in range(count)])
        self.check_views(views)
        return np.concatenate([self._beliefs.sample((view.game_key, view.seat), count, self.rng) for view in views])

    def act(self, observation: dict[str, np.ndarray]) -> int:
        raise TypeError(f"{self.name} searches over game states: call act_views with the seat's view")

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        raise TypeError(f"{self.name} searches over game states: call act_views with the seats' views")


class PIMCAgent(_SearchAgent):
    """Perfect-Information Monte Carlo over the game's resampler (module docstring).

    Args:
        env_id: the game.
        options: the budget and rollout policy.
        seed: seed of the agent's generator.
    """

    name = "pimc"

    def act_views(self, views: Sequence[SeatView]) -> np.ndarray:
        # the first legal action of the best mean (legal actions in increasing order)
        return np.nanargmax(self.action_values(views), axis=1).astype(np.int64)

    def action_values(self, views: Sequence[SeatView]) -> np.ndarray:
        """The search's estimate of each legal action's return to the seat, float64 ``[N, A]``: the mean over the
        determinizations and playouts that start with the action; NaN for illegal actions. A view with one legal
        action is not searched: that action's value is 0.

        Args:
            views: the decisions.
        """
        return self.draw_values(views).mean(axis=1)

    def draw_values(self, views: Sequence[SeatView]) -> np.ndarray:
        """Each legal action's return to the seat per determinization, float64 ``[N, D, A]`` (``D`` the
        determinizations): the mean of the playouts from that drawn state that start with the action, so the
        actions of one draw are valued on the same hidden cards; NaN for illegal actions. A view with one legal
        action is not searched: that action's values are 0.

        Args:
            views: the decisions.
        """
        self.check_views(views)
        determinizations, rollouts = self.options.determinizations, self.options.rollouts
        values = np.full((len(views), determinizations, len(views[0].action_mask) if views else 0), np.nan)
        searched, records, first = [], [], []
        for index, view in enumerate(views):
            legal = np.flatnonzero(view.action_mask)
            if legal.size == 1:
                values[index, :, legal[0]] = 0.0
                continue
            draws = self.draw_states([view], determinizations)
            # every draw × every legal action × every playout, draw-major
            copies = np.repeat(draws, legal.size * rollouts)
            records.append(_reseeded(copies, self.rng))
            first.append(np.tile(np.repeat(legal, rollouts), determinizations))
            searched.append((index, view.seat, legal))
        if not searched:
            return values
        returns = self.playout_returns([views[index] for index, _, _ in searched], [len(part) for part in records],
                                       np.concatenate(records), np.concatenate(first))
        start = 0
        for index, seat, legal in searched:
            # this view's playouts, draw-major: [draw, legal action, playout]
            size = determinizations * legal.size * rollouts
            values[index][:, legal] = returns[start:start + size, seat].reshape(
                determinizations, legal.size, rollouts).mean(axis=2)
            start += size
        return values

    def playout_returns(self, views: Sequence[SeatView], counts: Sequence[int], records: np.ndarray,
                        first_actions: np.ndarray) -> np.ndarray:
        """Each seat's return of the playouts of the searched ``views``, float64 ``[R, P]``: ``counts[i]`` records
        of ``records`` (in order) are the states of ``views[i]``, each played out after its first action.

        Args:
            views: the views searched.
            counts: playouts of each view.
            records: the playouts' states.
            first_actions: the first action of each.
        """
        return self.playouts(views[0].params).returns(records, first_actions)


@dataclasses.dataclass(frozen=True)
class TreeNode:
    """A node of one seat's IS-MCTS tree, read from its :class:`~cardenvs.agents.search_tree.SearchForest`: a point
    of the search as that seat sees it.

    ``children`` maps a step, as the tree's seat sees it (:mod:`cardenvs.agents.search_tree`), to the node after it.
    Where the tree's seat decides at the node, ``visits``, ``available`` and ``total`` hold per action how often the
    seat chose it, how often it was legal when the seat decided here, and the seat's summed return after choosing it.

    Args:
        forest: the trees of the search.
        number: the node's number in the forest.
    """

    forest: SearchForest
    number: int

    @property
    def children(self) -> dict[tuple, TreeNode]:
        """The nodes after each step from here, by the step's key."""
        return {key: TreeNode(self.forest, child) for key, child in self.forest.children_of(self.number).items()}

    @property
    def visits(self) -> dict[int, int]:
        """Per action chosen here, how often."""
        return {action: edge.visits for action, edge in self.forest.statistics(self.number).items() if edge.visits}

    @property
    def available(self) -> dict[int, int]:
        """Per action legal here, how often it was legal when the seat decided here."""
        return {action: edge.available for action, edge in self.forest.statistics(self.number).items()}

    @property
    def total(self) -> dict[int, float]:
        """Per action chosen here, the seat's summed return after it."""
        return {action: edge.total for action, edge in self.forest.statistics(self.number).items() if edge.visits}


@dataclasses.dataclass(frozen=True)
class SearchTrees:
    """The search of one decision, read from the forest of its call: a tree per seat.

    Args:
        forest: the trees of every search of the call.
        index: this search's number in the forest.
    """

    forest: SearchForest
    index: int

    @property
    def seat(self) -> int:
        """The searching seat (the seat to act at the decision)."""
        return int(self.forest.seats[self.index])

    @property
    def trees(self) -> list[TreeNode]:
        """One root per seat, ``trees[seat]`` that seat's."""
        return [TreeNode(self.forest, int(node)) for node in self.forest.roots[self.index]]

    @property
    def root(self) -> TreeNode:
        """The root of the searching seat's tree, whose visits choose the action."""
        return self.trees[self.seat]


def most_visited(visits: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """Per search, the action chosen most often at the root; among equals, the one with the highest mean return,
    then the lowest, int64 ``[S]``.

    Args:
        visits: int ``[S, A]``, how often each action was chosen.
        totals: float ``[S, A]``, the summed return after each.
    """
    means = np.divide(totals, visits, out=np.zeros(totals.shape), where=visits > 0)
    most = visits == visits.max(axis=1, keepdims=True)
    return np.argmax(np.where(most, means, -np.inf), axis=1).astype(np.int64)


class ISMCTSAgent(_SearchAgent):
    """Multiple-observer Information-Set MCTS over the game's resampler (module docstring).

    The searches of every view advance together: each iteration draws one state per view, and every step of the
    descents and playouts is one batched step of all of them. The trees are compiled
    (:mod:`cardenvs.agents.search_tree`).

    Args:
        env_id: the game.
        options: the budget, exploration constant and rollout policy.
        seed: seed of the agent's generator.
    """

    name = "ismcts"

    def __init__(self, env_id: str, options: ISMCTSOptions, seed: int | None = None,
                 model: beliefs.ActionModel | None = None):
        super().__init__(env_id, options, seed, model)
        self._public: tuple[Any, list[int]] | None = None

    def act_views(self, views: Sequence[SeatView]) -> np.ndarray:
        self.check_views(views)
        chosen = np.zeros(len(views), np.int64)
        searches = self.search(views)
        searched = [search for search in searches if search is not None]
        best = most_visited(*searched[0].forest.root_statistics()) if searched else None
        for index, search in enumerate(searches):
            if search is None:
                chosen[index] = np.flatnonzero(views[index].action_mask)[0]
            else:
                chosen[index] = best[search.index]
        return chosen

    def search(self, views: Sequence[SeatView]) -> list[SearchTrees | None]:
        """The trees of every view's search (``None`` where the seat has one legal action and nothing is searched).

        Args:
            views: the decisions, all of one game with the same parameters.
        """
        searches: list[SearchTrees | None] = [None] * len(views)
        searched = [index for index, view in enumerate(views) if np.count_nonzero(view.action_mask) > 1]
        if not searched:
            return searches
        playouts = self.playouts(views[0].params)
        opposed = [self.opposed_seats(views[index], playouts.num_players) for index in searched]
        forest = SearchForest(np.array([views[index].seat for index in searched], np.int64), playouts.num_players,
                              playouts.num_actions, np.array(self.public_actions(views[0].params), np.int64),
                              None if opposed[0] is None else np.stack(opposed))
        for number, index in enumerate(searched):
            searches[index] = SearchTrees(forest, number)
        for _ in range(self.options.iterations):
            draws = self.draw_states([views[index] for index in searched], 1)
            self._iterate(playouts, _reseeded(draws, self.rng), forest)
        return searches

    def opposed_seats(self, view: SeatView, num_players: int) -> np.ndarray | None:
        """The seats of ``view``'s game that the playouts' opponent plays (bool ``[P]``): none here, every seat
        searches; a best response's target seats (:mod:`cardenvs.agents.best_response`)."""
        return None

    def public_actions(self, params: Any) -> list[int]:
        """What the other seats see of each action, a number per action: equal numbers for actions they cannot
        tell apart (``Game.public_action_name``, where the game hides a choice), else the action itself.

        Args:
            params: the game's parameters.
        """
        if self._public is None or self._public[0] != params:
            game = cardenvs.get_game(self.env_id)
            count = game.num_actions(params)
            if game.public_action_name is None:
                shown = list(range(count))
            else:
                names: dict[str, int] = {}
                shown = [names.setdefault(game.public_action_name(params, action), len(names))
                         for action in range(count)]
            self._public = (params, shown)
        return self._public[1]

    def _iterate(self, playouts: Playouts, draws: np.ndarray, forest: SearchForest) -> None:
        """One iteration of every search: from each draw, descend every seat's tree to an action new to the tree of
        the seat that takes it, play out from there, credit each decision on the way with its seat's return."""
        venv = playouts._env(len(draws))
        rows = np.arange(len(draws), dtype=np.int64)
        venv._set_trusted_states(rows, draws)
        active = np.zeros(venv.num_envs, np.bool_)
        active[rows] = True
        observers = np.zeros(venv.num_envs, np.int64)
        observers[rows] = forest.seats
        at = forest.begin_descents()
        totals = np.zeros((len(rows), playouts.num_players))
        actions = np.zeros(venv.num_envs, np.int64)
        movers = np.zeros(venv.num_envs, np.int64)
        leaf = np.zeros(venv.num_envs, np.bool_)
        while active.any():
            deciding = np.flatnonzero(active)
            movers[deciding] = venv.current_players[deciding]
            searching = deciding
            if forest.opposed is not None:  # a seat the opponent plays: by its policy, in no tree
                fixed = forest.opposed[deciding, movers[deciding]]
                if fixed.any():
                    played = deciding[fixed]
                    actions[played] = playouts.opponent.act_batch(venv.observations[played],
                                                                  venv.action_masks[played])
                    searching = deciding[~fixed]
            chosen, expanded = forest.select(searching, movers[searching], venv.action_masks[searching], at,
                                             self.rng.random(len(searching)), self.options.exploration)
            actions[searching] = chosen
            ended = searching[expanded]  # the new action's value comes from a playout after it
            leaf[ended] = True
            active[ended] = False
            if not active.any():
                break
            _, _, _, rewards, terminated, truncated = venv.step(actions, active=active)
            totals[active[rows]] += rewards[active]
            active &= ~(terminated | truncated)
            going = np.flatnonzero(active)
            seen, _ = venv.observe(observers)
            forest.advance(going, movers[going], actions[going], _observation_keys(seen[going]), at)
        leaves = np.flatnonzero(leaf)
        if leaves.size:
            leaf_opposed = None if forest.opposed is None else forest.opposed[leaves]
            totals[leaves] += self._leaf_returns(playouts, venv.state_array(leaves), actions[leaves], leaf_opposed)
        self._backpropagate(forest, totals)

    def _leaf_returns(self, playouts: Playouts, records: np.ndarray, first_actions: np.ndarray,
                      opposed: np.ndarray | None = None) -> np.ndarray:
        """Each seat's mean return over ``rollouts`` playouts from each record, its first action given, float64
        ``[R, P]``; the copies of a record are reseeded, so that each draws its own chance. ``opposed`` (bool
        ``[R, P]``) marks the seats the opponent plays."""
        rollouts = self.options.rollouts
        if rollouts == 1:
            return playouts.returns(records, first_actions, opposed)
        copies = _reseeded(np.repeat(records, rollouts), self.rng)
        returns = playouts.returns(copies, np.repeat(first_actions, rollouts),
                                   None if opposed is None else np.repeat(opposed, rollouts, axis=0))
        return returns.reshape(len(records), rollouts, -1).mean(axis=1)

    def _backpropagate(self, forest: SearchForest, totals: np.ndarray) -> None:
        """Credit every decision of every descent (the forest's paths) with the return of the seat that decided
        (``totals[search, seat]``), and widen each search's range of returns."""
        forest.backpropagate(totals)


#: the multipliers of :func:`_observation_keys` for each observation size (fixed: a search is deterministic)
_KEY_MULTIPLIERS: dict[int, np.ndarray] = {}


def _observation_keys(seen: np.ndarray) -> np.ndarray:
    """A 128-bit key of each observation of ``seen`` (float32 ``[R, D]``), int64 ``[R, 2]``: two random linear hashes
    of its bits, each a sum of 32-bit words times 64-bit multipliers modulo 2**64. Two different observations get
    the same key with probability at most 2**-64, and the same observation always gets the same key."""
    size = seen.shape[1]
    if size not in _KEY_MULTIPLIERS:
        _KEY_MULTIPLIERS[size] = np.random.default_rng(size).integers(0, 2**64, (size, 2), np.uint64, endpoint=False)
    hashed = np.ascontiguousarray(seen).view(np.uint32).astype(np.uint64) @ _KEY_MULTIPLIERS[size]
    return hashed.view(np.int64).reshape(len(seen), 2)


def _shipped_network_fits(env_id: str, layout: Any) -> bool:
    """Whether the game's shipped network can be loaded (torch installed) and reads observations of ``layout``."""
    try:
        make_agent("trained", env_id, layout)
    except (ValueError, ImportError):
        return False
    return True


def game_search_options(kind: str, argument: str, env_id: str, layout: Any, player: str,
                        response: bool = False) -> PIMCOptions | ISMCTSOptions:
    """The options of the search ``kind:argument`` in ``env_id``, for the search agents and the search best
    responses alike.

    Options the spec leaves out come from the game's ``search_defaults`` (for a best response, its
    ``search_response_defaults`` first); those that need the game's shipped network (a trained rollout policy or
    value) are left out where it cannot play (torch missing, or parameters whose observations it does not read,
    such as another number of players). The rollout policy and the value network are loaded here, so a spec that
    names a missing model fails at once.

    Args:
        kind: ``pimc`` or ``ismcts``.
        argument: the spec's options (``name=value,...``; may be empty).
        env_id: the game.
        layout: the env's observation layout.
        player: who would play with these options, for the message of a game without a resampler.
        response: the options of a search best response (the game's ``search_response_defaults`` apply).

    Raises:
        ValueError: a game without a hidden-card resampler, bad options (see :func:`parse_options`), or a rollout
            policy or value network that cannot be loaded.
    """
    game = cardenvs.get_game(env_id)
    if game.resample is None:
        raise ValueError(f"{env_id} has no hidden-card resampler, so {player} cannot play it")
    layers = (game.search_defaults, game.search_response_defaults) if response else (game.search_defaults,)
    names_network = any(name in layer for layer in layers for name in NETWORK_OPTIONS)
    fits = not names_network or _shipped_network_fits(env_id, layout)
    defaults: dict[str, Any] = {}
    for layer in layers:  # each layer without its network options where the network cannot play
        defaults.update((name, value) for name, value in layer.items() if fits or name not in NETWORK_OPTIONS)
    options = parse_options(kind, argument, defaults)
    make_agent(options.rollout, env_id, layout)
    if options.depth:
        make_agent(options.value, env_id, layout)
    return options


def make_search_agent(kind: str, argument: str, env_id: str, layout: Any, seed: int | None = None) -> Agent:
    """The search agent of the spec ``kind:argument`` (``kind`` ``pimc`` or ``ismcts``) for ``env_id``.

    Options the spec leaves out come from the game's ``search_defaults``; those that need the game's shipped
    network (a trained rollout policy or value) are left out where it cannot play (torch missing, or parameters
    whose observations it does not read, such as another number of players): the agent then plays out to the end.
    The rollout policy, the value network and a belief's action model are loaded here, so a spec that names a
    missing model fails at once.

    Args:
        kind: ``pimc`` or ``ismcts``.
        argument: the spec's options (``name=value,...``; may be empty).
        env_id: the game.
        layout: the env's observation layout.
        seed: seed of the agent's generator.

    Raises:
        ValueError: bad options (see :func:`parse_options`), a rollout policy, value network or belief model that
            cannot be loaded, or a game without a hidden-card resampler.
    """
    options = game_search_options(kind, argument, env_id, layout, f"the {kind} agent")
    model_spec = beliefs.belief_model_spec(options.belief)
    model = None if model_spec is None else beliefs.action_model(model_spec, env_id, layout)
    agent_type = PIMCAgent if kind == "pimc" else ISMCTSAgent
    return agent_type(env_id, options, seed, model)
