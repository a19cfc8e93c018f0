"""Search best responses: ``pimc`` and ``ismcts`` that know the agent they answer.

What an agent loses to is best found by a search that knows how the agent plays. This is the idea of ISMCTS-BR
(Timbers et al., "Approximate exploitability: learning a best response", IJCAI 2022) on the project's two searches
(:mod:`cardenvs.agents.search`). :class:`PIMCBestResponse` and :class:`ISMCTSBestResponse` play the seats of one
side of the table against a fixed *target* agent, which plays the others. Each searches like its agent, with two
changes:

- **in the search the target's seats play by the target** (its own policy, acting on each seat's observation in
  the playout, and in ``ismcts``'s descents, where the target's seats have no tree). The best response's own seats,
  its partner's included, play the rollout policy (``ismcts``: search in their trees). So a move is valued by what
  it wins against this agent, not against a stand-in;
- **the states come from a belief weighted by the target's own play** (:class:`cardenvs.agents.beliefs.Belief`).
  At each decision of a target seat, a deal weighs as much as the target's probability of the choice seen there,
  on the observation that seat had in the deal. The best response's partner's choices weigh every legal action
  alike, as the resampler does: the best response does not model its own side.

The target's action probabilities (:func:`target_model`) come from the agent itself: a self-play network sampling
its actions gives its softmax; a deterministic agent (the rule-based agent, a network taking its most probable
action, an RLlib module) gives probability 1 to its choice, mixed with ``smoothing`` of the uniform choice so that
a particle that disagrees with it once is not lost for good (the belief rejuvenates from the rest). In a game
without private hands (``Game.private_hands``: Stabby Jack, where only the draw pile's order is hidden, from every
seat alike) no play says anything about the hidden cards, so the states come from the resampler. A target that
searches (``pimc``, ``ismcts``) has no probabilities to read and is far too slow to run inside playouts: the
best response then draws from the resampler, and the target's seats play the target's own rollout policy in the
playouts (what the target assumes of every seat). Beliefs and playouts read the true state only through the
resampler (``SeatView.resample``), as every search agent does.

The agent follows its games (:attr:`~cardenvs.agents.base.Agent.follows_games`): the front end tells it every
step (:mod:`cardenvs.agents.base`), and from the seats it is told about it knows which seats are its own in each
game; every other seat is the target's. A tournament of the two (``run_tournament(env_id, [best_response,
target], ...)``) seats it so; ``cardenvs exploit`` plays that match (docs/exploitability.md).

The budget is the search agent's options (:class:`~cardenvs.agents.search.PIMCOptions`,
:class:`~cardenvs.agents.search.ISMCTSOptions`; the game's ``search_defaults`` where they are left out), so each
best response is its search agent at the same budget with knowledge of its target added, and its gain can be
compared with that agent's. A game whose own budget is too slow with the target playing its seats in every
playout names the best response's budget apart (``Game.search_response_defaults``; Clabber: 32 determinizations
played out 16 decisions by the network, then valued by it, where its search agents play 64 × 4 to the end at
random). Given a learned best response's network (``network``), it plays out its own seats and
values positions by that network wherever its options name the game's shipped one (``trained``), as ISMCTS-BR takes
its rollouts and values from its learned network; ``cardenvs exploit`` passes the BR it has just trained. Given
one, ``pimc`` also starts from that network's choice (its most probable action, the *anchor*), as ISMCTS-BR's
search starts from its network's policy: it plays its own best action instead only where, over the determinizations
(each action valued on the same drawn cards), that action's mean advantage over the anchor's exceeds
:data:`DEVIATION_Z` standard errors. So the search changes what was learnt only where its evidence is clear, and a
search too noisy to rank the actions (a few determinizations of a close decision) leaves the learned choice as it is.

``pimc`` plays its own later decisions by the rollout policy inside its playouts, so a first move is valued as if
the rest were played worse; ``ismcts`` searches them in its tree: on a toy game where the target's play is the only
clue to its hand, ``ismcts`` reaches the exact best response and ``pimc`` can fall short (docs/exploitability.md).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

import cardenvs
from cardenvs.agents import beliefs
from cardenvs.agents.base import Agent, RandomAgent, SeatView
from cardenvs.agents.registry import SEARCH_KINDS, make_agent
from cardenvs.agents.search import (
    ISMCTSAgent,
    ISMCTSOptions,
    PIMCAgent,
    PIMCOptions,
    Playouts,
    _records,
    game_search_options,
    parse_options,
)

#: the agent's name in tables and matches
NAME = "search_best_response"
#: the spec of the game's shipped network, which a learned best response's network replaces in the options
SHIPPED_NETWORK = "trained"
#: the weight of the uniform choice mixed into a deterministic target's choice (as for a rule-based belief model)
DEFAULT_SMOOTHING = beliefs.RULE_BASED_SMOOTHING
#: standard errors (over the determinizations, paired by drawn state) by which ``pimc``'s best action must beat the
#: learned best response's choice before the search plays it instead (the normal distribution's 97.5 % quantile)
DEVIATION_Z = 1.96


def target_model(target: Agent, smoothing: float = DEFAULT_SMOOTHING) -> beliefs.ActionModel | None:
    """The action model of ``target`` for a belief: how likely each of its legal actions is, as it plays.

    Args:
        target: the agent answered.
        smoothing: the weight of the uniform choice mixed into a deterministic target's choice.

    Returns:
        The model, or None for a target that searches (it gives no probabilities; the belief is the resampler's).
    """
    if target.reads_seat_views:
        return None
    if isinstance(target, RandomAgent):
        return beliefs.PolicyModel(beliefs.uniform_probabilities, target.name)
    if callable(getattr(target, "action_probabilities", None)):
        return beliefs.PolicyModel(target.action_probabilities, target.name)
    network = getattr(target, "network", None)
    if network is not None and hasattr(network, "policy_logits") and not getattr(target, "deterministic", True):
        return beliefs.PolicyModel(beliefs.network_probabilities(network), target.name)
    return beliefs.PolicyModel(beliefs.chosen_action_probabilities(target), target.name, smoothing)


def playout_opponent(target: Agent, env_id: str, params: Any, seed: int) -> Agent:
    """The policy that plays the target's seats in playouts: the target itself, or, for a target that searches,
    its own rollout policy.

    Args:
        target: the agent answered.
        env_id: the game.
        params: its parameters.
        seed: seed of the rollout policy's generator, where one is made.
    """
    if not target.reads_seat_views:
        return target
    rollout = getattr(getattr(target, "options", None), "rollout", "random")
    return make_agent(rollout, env_id, cardenvs.get_game(env_id).observation_layout(params), seed)


class _AnswersTarget:
    """What both search best responses add to their search agent (module docstring): the target's seats in
    playouts, the belief weighted by the target, and the seats of each game the agent holds.

    Args:
        env_id: the game.
        target: the agent answered: the policy of the target's seats in playouts, and the belief's model.
        options: the search's options (``belief`` is ignored: the belief is the target's).
        seed: seed of the agent's generator.
        smoothing: the weight of the uniform choice mixed into a deterministic target's choice in the belief.
    """

    def __init__(self, env_id: str, target: Agent, options: PIMCOptions | ISMCTSOptions, seed: int | None = None,
                 smoothing: float = DEFAULT_SMOOTHING):
        model = target_model(target, smoothing) if cardenvs.get_game(env_id).private_hands else None
        belief = beliefs.UNIFORM if model is None else f"policy:{target.name}"
        super().__init__(env_id, dataclasses.replace(options, belief=belief), seed, model)
        self.target = target
        #: the agent always follows its games: its seats in each game tell it which seats are the target's
        self.follows_games = True
        self._own: dict[Hashable, set[int]] = {}

    @property
    def keeps_beliefs(self) -> bool:
        """Whether the states come from a belief weighted by the target (False: from the resampler)."""
        return self._model is not None

    def begin_game(self, game: Hashable, view: SeatView) -> None:
        self._own.setdefault(game, set()).add(view.seat)
        if self.keeps_beliefs:
            super().begin_game(game, view)

    def observe_game(self, game: Hashable, view: SeatView, own_action: int | None = None) -> None:
        if game not in self._own or view.seat not in self._own[game]:
            raise ValueError(f"{self.name} was told a step of game {game!r} at seat {view.seat} before the game's "
                             f"start (begin_game)")
        if self.keeps_beliefs:
            super().observe_game(game, view, own_action)

    def end_game(self, game: Hashable) -> None:
        self._own.pop(game, None)
        super().end_game(game)

    def unmodelled_seats(self, game: Hashable) -> set[int]:
        """The best response's own seats in ``game`` (the set grows as the front end tells each seat)."""
        return self._own.setdefault(game, set())

    def opposed_seats(self, view: SeatView, num_players: int) -> np.ndarray:
        """The target's seats in ``view``'s game, bool ``[P]``: every seat but the best response's own."""
        opposed = np.ones(num_players, np.bool_)
        opposed[sorted(self._own[view.game_key])] = False
        return opposed

    def check_views(self, views: Sequence[SeatView]) -> None:
        """Refuse a view of a game the agent was not told about: it would not know which seats are the target's.

        Raises:
            ValueError: a view without a game key, or of a game and seat that never began.
        """
        for view in views:
            if view.game_key not in self._own or view.seat not in self._own[view.game_key]:
                raise ValueError(f"{self.name} must be told every game it plays from its start (it learns its "
                                 f"seats from begin_game); this front end does not follow games (the tournament "
                                 f"does)")
        if self.keeps_beliefs:
            super().check_views(views)

    def draw_states(self, views: Sequence[SeatView], count: int) -> np.ndarray:
        if self.keeps_beliefs:
            return super().draw_states(views, count)
        self.check_views(views)
        return _records([view.resample(self.rng) for view in views for _ in range(count)])

    def playouts(self, params: Any) -> Playouts:
        """The playouts of the game with ``params``, the target (or its stand-in) playing the target's seats."""
        if self._playouts is None or self._playouts.params != params:
            opponent = playout_opponent(self.target, self.env_id, params, self._rollout_seed)
            self._playouts = Playouts(self.env_id, params, self.options.rollout, self._rollout_seed,
                                      self.options.depth, self.options.value, opponent)
        return self._playouts


class PIMCBestResponse(_AnswersTarget, PIMCAgent):
    """``pimc`` against a known target (module docstring); arguments as :class:`_AnswersTarget`'s, and:

    Args:
        anchor: a learned best response whose choice the search keeps unless it finds another action better with
            confidence (module docstring); None: the search's best mean.
    """

    name = f"pimc_{NAME}"

    def __init__(self, env_id: str, target: Agent, options: PIMCOptions, seed: int | None = None,
                 smoothing: float = DEFAULT_SMOOTHING, anchor: Agent | None = None):
        super().__init__(env_id, target, options, seed, smoothing)
        self.anchor = anchor

    def act_views(self, views: Sequence[SeatView]) -> np.ndarray:
        values = self.draw_values(views)
        best = np.nanargmax(values.mean(axis=1), axis=1).astype(np.int64)
        if self.anchor is None or not views:
            return best
        anchored = np.asarray(self.anchor.act_batch(np.stack([view.observation for view in views]),
                                                    np.stack([view.action_mask for view in views])), np.int64)
        rows = np.arange(len(views))
        # per draw, the best action's value over the anchor's, on the same hidden cards
        advantage = values[rows, :, best] - values[rows, :, anchored]
        standard_error = advantage.std(axis=1, ddof=1) / np.sqrt(advantage.shape[1])
        confident = advantage.mean(axis=1) > DEVIATION_Z * standard_error
        return np.where(confident, best, anchored)

    def playout_returns(self, views: Sequence[SeatView], counts: Sequence[int], records: np.ndarray,
                        first_actions: np.ndarray) -> np.ndarray:
        playouts = self.playouts(views[0].params)
        opposed = np.concatenate([np.broadcast_to(self.opposed_seats(view, playouts.num_players),
                                                  (count, playouts.num_players))
                                  for view, count in zip(views, counts, strict=True)])
        return playouts.returns(records, first_actions, opposed)


class ISMCTSBestResponse(_AnswersTarget, ISMCTSAgent):
    """``ismcts`` against a known target (module docstring): the best response's seats search in their trees, the
    target's seats play by the target in the descents and the playouts; arguments as :class:`_AnswersTarget`'s."""

    name = f"ismcts_{NAME}"


def with_network(options: PIMCOptions | ISMCTSOptions, network: str, env_id: str,
                 layout: Any) -> PIMCOptions | ISMCTSOptions:
    """``options`` with ``network`` in place of the game's shipped network (``trained``) as the rollout policy and
    the value network, loaded here so that a model that does not fit fails at once.

    Raises:
        ValueError: ``network`` cannot be loaded for ``env_id``.
    """
    found = dataclasses.replace(
        options,
        rollout=network if options.rollout == SHIPPED_NETWORK else options.rollout,
        value=network if options.value == SHIPPED_NETWORK else options.value,
    )
    if found != options:
        make_agent(network, env_id, layout)
    return found


def make_search_best_response(env_id: str, target: Agent, layout: Any, kind: str = "pimc", argument: str = "",
                              seed: int | None = None, smoothing: float = DEFAULT_SMOOTHING,
                              network: str | None = None) -> PIMCBestResponse | ISMCTSBestResponse:
    """The search best response of ``kind`` to ``target`` in ``env_id``, with that search's options ``argument``
    (``name=value,...``; those left out come from the game's ``search_response_defaults``, then from its
    ``search_defaults``, as for the search agents).

    Args:
        env_id: the game.
        target: the agent answered.
        layout: the env's observation layout.
        kind: ``pimc`` or ``ismcts``.
        argument: the search's options (:class:`~cardenvs.agents.search.PIMCOptions`,
            :class:`~cardenvs.agents.search.ISMCTSOptions`); not ``belief``: the belief is the target's.
        seed: seed of the agent's generator.
        smoothing: as :class:`SearchBestResponse`'s.
        network: a learned best response's network (``ppo:PATH`` of a self-play ``.pt`` model), which stands in
            for the game's shipped network wherever the options name it (``rollout=trained``, ``value=trained``):
            the best response's own seats then play out by what was learnt against this target, and its values
            are of games against this target (``cardenvs exploit`` passes the BR it trained).

    Raises:
        ValueError: a game without a resampler, bad options, or a rollout or value network that cannot be loaded.
    """
    if kind not in SEARCH_KINDS:
        raise ValueError(f"a search best response is {' or '.join(SEARCH_KINDS)}, not {kind!r}")
    parts = [part for part in argument.split(",") if part]
    if any(part.partition("=")[0] == "belief" for part in parts):
        raise ValueError("a search best response's belief is weighted by its target's own play: give no belief")
    # particles belong to the belief, which pimc's options allow only with a policy belief: parsed on their own
    particles = [part for part in parts if part.partition("=")[0] == "particles"]
    searched = ",".join(part for part in parts if part not in particles)
    options = game_search_options(kind, searched, env_id, layout, "no search best response", response=True)
    if network is not None:
        options = with_network(options, network, env_id, layout)
    if particles:
        with_belief = parse_options(kind, f"belief=policy:random,{particles[-1]}")
        options = dataclasses.replace(options, particles=with_belief.particles)
    if kind == "pimc":
        anchor = None if network is None else make_agent(network, env_id, layout)
        return PIMCBestResponse(env_id, target, options, seed, smoothing, anchor)
    return ISMCTSBestResponse(env_id, target, options, seed, smoothing)
