"""The fast training path: a stable-baselines3 ``VecEnv`` of N learner games over the batched env.

:class:`LearnerVecEnv` runs ``num_envs`` games of one cardenvs game in lockstep on the batched env
(:class:`cardenvs.core.vector.VectorEnv`). Each game has one learner seat (drawn per game unless fixed) and
opponents drawn from an :class:`~cardenvs.learning.OpponentPool`, exactly as in
:class:`~cardenvs.learning.SingleAgentEnv`; the two agree game for game for the same seeds and deterministic
opponents.

One ``step(actions)``:

1. applies the learner's action in every game;
2. while some games wait on an opponent, steps only those games (``VectorEnv.step``'s ``active``), each opponent
   agent acting once per step on all the rows it owns (:func:`cardenvs.agents.base.act_on_rows`);
3. returns, per game, the learner's own next observation, the learner's own reward summed over the whole step
   (its action and every opponent move after it), and ``done``.

A game that ends restarts at once (from a seed drawn from its own generator): the returned observation is the
learner's first decision of the next game, ``infos[i]["terminal_observation"]`` the learner's view of the
finished game and ``infos[i]["TimeLimit.truncated"]`` whether it was cut short by the game's step limit, as
stable-baselines3 expects. ``action_masks()`` returns the learner's legal actions ``[N, A]`` (sb3-contrib's
MaskablePPO calls it through ``env_method``). ``infos[i]["learner_seat"]`` is the learner's seat in the game
the observation belongs to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvStepReturn

import cardenvs
from cardenvs.agents.base import Agent, act_on_rows
from cardenvs.core.rng import game_seed
from cardenvs.core.vector import VectorEnv
from cardenvs.learning.opponents import OpponentPool, as_pool, check_learner_seat, draw_seating
from cardenvs.learning.single_agent import MAX_SKIPPED_GAMES


class LearnerVecEnv(VecEnv):
    """N games of a cardenvs game, each from one learner seat, as a stable-baselines3 ``VecEnv``.

    Args:
        env_id: a registered env id (``cardenvs.available_envs()``).
        num_envs: how many learner games run in lockstep.
        opponents: an :class:`~cardenvs.learning.OpponentPool`, one agent or a list of agents; every opponent
            seat of every game gets an agent drawn uniformly from it when the game starts.
        learner_seat: the learner's seat in every game; ``None`` (default) draws it uniformly per game.
        illegal_action: ``"penalize"`` (default, as :class:`~cardenvs.learning.SingleAgentEnv`) or ``"raise"``.
        seed: the seed of the first ``reset()`` (``seed()`` sets it again); ``None`` draws one from OS entropy.
        params: the game's parameters (see its docs/rules page).
    """

    def __init__(
        self,
        env_id: str,
        num_envs: int,
        opponents: OpponentPool | Agent | Sequence[Agent],
        learner_seat: int | None = None,
        illegal_action: str = "penalize",
        seed: int | None = None,
        params: dict[str, Any] | None = None,
    ):
        self.env_id = env_id
        self.params = dict(params or {})
        self.games = VectorEnv(cardenvs.get_game(env_id), num_envs, illegal_action=illegal_action, **self.params)
        self.pool = as_pool(opponents)
        self.num_players = self.games.num_players
        check_learner_seat(learner_seat, self.num_players)
        self.fixed_seat = learner_seat
        self.layout = self.games.layout
        self.num_actions = self.games.num_actions
        self.render_mode = None
        n = self.games.num_envs
        self.learner_seats = np.zeros(n, np.int32)
        # seat_slots[i, p]: index into self._slots of the agent playing seat p of game i (-1 at the learner's seat)
        self.seat_slots = np.full((n, self.num_players), -1, np.int64)
        self._slots: list[Agent] = []
        self._slot_of: dict[int, int] = {}
        self._seat_rngs: list[np.random.Generator] = [np.random.default_rng(0)] * n
        self._next_seed = seed
        self._actions = np.zeros(n, np.int64)
        self._opponent_actions = np.zeros(n, np.int64)
        self._rows = np.arange(n)
        self._episode_started = False
        observation_space = spaces.Box(self.layout.low(), self.layout.high(), dtype=np.float32)
        super().__init__(n, observation_space, spaces.Discrete(self.num_actions))

    # ------------------------------------------------------------------ VecEnv protocol
    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next ``reset()``: game ``i`` plays ``cardenvs.game_seed(seed, i)``, like the batched env."""
        self._next_seed = seed
        return [None if seed is None else game_seed(seed, i) for i in range(self.num_envs)]

    def reset(self) -> np.ndarray:
        """Start every game and play the opponents up to each learner's first decision."""
        seed = self._next_seed
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % 2**64)
        self._next_seed = None
        self.games.reset(seed)
        # Each game's seating generator is seeded with the game's seed, as in SingleAgentEnv.reset(seed=...).
        self._seat_rngs = [np.random.default_rng(game_seed(seed, i)) for i in range(self.num_envs)]
        everything = np.ones(self.num_envs, bool)
        self._seat_games(everything)
        self._episode_started = True
        # No learner episode is under way yet: nothing to reward, and a game over before the first decision is
        # skipped like any other.
        self._play_opponents(
            np.zeros(self.num_envs, np.float32), np.ones(self.num_envs, bool), [{} for _ in range(self.num_envs)]
        )
        self.reset_infos = [{"learner_seat": int(s)} for s in self.learner_seats]
        return self.games.observations.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        if not self._episode_started:
            raise RuntimeError(f"{self.env_id}: call reset() before step()")
        games = self.games
        n = self.num_envs
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        games.step(self._actions, final_observation_for=self.learner_seats)
        rewards = games.rewards[self._rows, self.learner_seats]  # a fresh array
        dones = np.zeros(n, bool)
        self._finish_games(np.ones(n, bool), dones, infos)
        self._play_opponents(rewards, dones, infos)
        for i, info in enumerate(infos):
            info["learner_seat"] = int(self.learner_seats[i])
        return games.observations.copy(), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, bool ``[num_envs, num_actions]``."""
        return self.games.action_masks.astype(bool)

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        rows = list(self._indices(indices))
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in rows]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    # ------------------------------------------------------------------ internals
    def _seat_games(self, rows: np.ndarray) -> None:
        """Draw the learner's seat and the opponents of the games in ``rows`` (games that just started)."""
        for i in np.flatnonzero(rows):
            seat, agents = draw_seating(self._seat_rngs[i], self.num_players, self.pool, self.fixed_seat)
            self.learner_seats[i] = seat
            self.seat_slots[i] = [-1 if agent is None else self._slot(agent) for agent in agents]

    def _slot(self, agent: Agent) -> int:
        slot = self._slot_of.get(id(agent))
        if slot is None:
            if len(self._slots) > 4 * len(self.pool) + 8:
                self._forget_unused_slots()
            slot = len(self._slots)
            self._slots.append(agent)
            self._slot_of[id(agent)] = slot
        return slot

    def _forget_unused_slots(self) -> None:
        """Drop agents that no running game seats any more (evicted snapshots), renumbering the rest."""
        used = np.unique(self.seat_slots[self.seat_slots >= 0])
        renumber = np.full(len(self._slots) + 1, -1, np.int64)
        renumber[used] = np.arange(len(used))
        self.seat_slots = renumber[self.seat_slots]  # -1 indexes the trailing -1
        self._slots = [self._slots[s] for s in used]
        self._slot_of = {id(agent): s for s, agent in enumerate(self._slots)}

    def _finish_games(self, stepped: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]) -> np.ndarray:
        """Handle games that ended in the last step of the ``stepped`` games: a row's first end ends its learner
        episode.

        Returns the rows that ended (their next game is seated here).
        """
        games = self.games
        ended = stepped & (games.terminated | games.truncated)
        if not ended.any():
            return ended
        for i in np.flatnonzero(ended & ~dones):
            infos[i]["terminal_observation"] = games.final_observations[i].copy()
            infos[i]["TimeLimit.truncated"] = bool(games.truncated[i] and not games.terminated[i])
        dones |= ended
        self._seat_games(ended)
        return ended

    def _play_opponents(self, rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]) -> None:
        """Step the games that wait on an opponent until every game waits on its learner.

        ``rewards`` collects the learner's reward of rows whose episode has not ended yet in this step; a game
        that ends before its learner's first decision is skipped (it has no learner transition).
        """
        games = self.games
        skipped = np.zeros(self.num_envs, np.int64)
        while True:
            waiting = games.current_players != self.learner_seats
            if not waiting.any():
                return
            act_on_rows(
                self._slots, self.seat_slots, games.observations, games.action_masks, games.current_players,
                self._opponent_actions, rows=waiting, venv=games,
            )
            games.step(self._opponent_actions, active=waiting, final_observation_for=self.learner_seats)
            # Rows that were not stepped keep the rewards of their last step: only the stepped ones count.
            rewards += np.where(waiting & ~dones, games.rewards[self._rows, self.learner_seats], 0.0).astype(
                np.float32
            )
            skipped += waiting & dones & (games.terminated | games.truncated)  # no learner move in that game
            if skipped.max(initial=0) > MAX_SKIPPED_GAMES:
                raise RuntimeError(f"{self.env_id}: {MAX_SKIPPED_GAMES} games in a row ended before the learner acted")
            self._finish_games(waiting, dones, infos)

    def _indices(self, indices: VecEnvIndices) -> range | Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return indices
