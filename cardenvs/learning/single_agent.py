"""The single-agent view of a cardenvs game: one learner seat, every other seat played by the opponent pool.

:class:`SingleAgentEnv` is a ``gymnasium.Env`` that any single-agent library can train on. Each episode is one
game. The learner takes one seat (drawn each episode unless fixed); the opponents play every decision in between,
so ``step`` always returns:

* the learner's **own** next observation (what its seat sees when it is next to act, or at the end of the game);
* the learner's **own** reward, summed over its action and all the opponents' moves up to its next decision, so a
  game lost on an opponent's move still delivers the losing reward to the learner in that step;
* ``terminated``/``truncated`` of the game.

The observation space is the game's flat float32 vector (``Box``); the legal-action mask is not part of the
observation but comes from :meth:`SingleAgentEnv.action_masks` (the protocol of sb3-contrib's MaskablePPO). The
action space is ``Discrete(num_actions)``. A standard gymnasium env must accept every action of its space, so by
default an illegal action applies the game's documented penalty (``illegal_action="penalize"``: the learner gets
the penalty and the game ends); ``illegal_action="raise"`` raises :class:`cardenvs.IllegalActionError` instead.

``info`` holds ``learner_seat`` (the learner's seat this episode) and ``action_mask``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

import cardenvs
from cardenvs.agents.base import Agent, act_in_env
from cardenvs.learning.opponents import OpponentPool, as_pool, check_learner_seat, draw_seating, reseed_agents

#: how many games in a row may end before the learner's first decision before reset() gives up
MAX_SKIPPED_GAMES = 1000


class SingleAgentEnv(gymnasium.Env):
    """A cardenvs game seen from one learner seat; opponents from a pool play every other seat.

    Args:
        env_id: a registered env id (``cardenvs.available_envs()``).
        opponents: an :class:`~cardenvs.learning.OpponentPool`, one agent or a list of agents; each episode
            every opponent seat gets an agent drawn uniformly from it.
        learner_seat: the learner's seat in every episode; ``None`` (default) draws it uniformly each episode.
        illegal_action: ``"penalize"`` (default: the game's penalty, the game ends) or ``"raise"``.
        params: the game's parameters (see its docs/rules page).
    """

    metadata: ClassVar[dict] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        env_id: str,
        opponents: OpponentPool | Agent | Sequence[Agent],
        learner_seat: int | None = None,
        illegal_action: str = "penalize",
        params: dict[str, Any] | None = None,
        render_mode: str | None = None,
    ):
        self.env_id = env_id
        self.params = dict(params or {})
        self.aec = cardenvs.env(env_id, render_mode=render_mode, illegal_action=illegal_action, **self.params)
        self.render_mode = render_mode
        self.pool = as_pool(opponents)
        self.num_players = len(self.aec.possible_agents)
        check_learner_seat(learner_seat, self.num_players)
        self.fixed_seat = learner_seat
        self.layout = self.aec.layout
        self.num_actions = self.aec.num_actions
        self.observation_space = spaces.Box(self.layout.low(), self.layout.high(), dtype=np.float32)
        self.action_space = spaces.Discrete(self.num_actions)
        self.learner_seat = 0
        self._seat_agents: list[Agent | None] = []
        self._mask = np.zeros(self.num_actions, bool)
        self._over = True

    @property
    def learner(self) -> str:
        """The learner's agent name in the AEC env (``player_<seat>``)."""
        return self.aec.possible_agents[self.learner_seat]

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Start a game and play the opponents up to the learner's first decision.

        Args:
            seed: the game's seed (the AEC env's ``reset(seed=...)``); the seating is drawn from a generator
                seeded with it too, and opponents with an ``rng`` generator are reseeded with it
                (:func:`~cardenvs.learning.opponents.reseed_agents`). ``None`` continues the env's own streams.
            options: passed to the AEC env's ``reset`` (e.g. ``{"deal": ...}``).
        """
        super().reset(seed=seed)
        if seed is not None:
            reseed_agents(self.pool.agents, seed)
        for _ in range(MAX_SKIPPED_GAMES):
            self.aec.reset(seed=seed, options=options)
            # The seating generator is seeded with the game's seed, as in LearnerVecEnv.
            game_seed = seed if seed is not None else int(self.np_random.integers(2**63))
            self.learner_seat, self._seat_agents = draw_seating(
                np.random.default_rng(game_seed), self.num_players, self.pool, self.fixed_seat
            )
            self._over = False
            self._play_opponents()
            if not self._over:
                return self._learner_observation(), self._info()
            seed = None  # the game ended before the learner ever acted: play the next one
        raise RuntimeError(f"{self.env_id}: {MAX_SKIPPED_GAMES} games in a row ended before the learner acted")

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """The learner's action, then the opponents' moves up to its next decision or the end of the game."""
        if self._over:
            raise RuntimeError(f"{self.env_id}: the episode is over; call reset()")
        self.aec.step(int(action) if isinstance(action, (int, np.integer)) else action)
        reward = self.aec.rewards[self.learner]
        reward += self._play_opponents()
        terminated = bool(self.aec.terminations[self.learner])
        truncated = bool(self.aec.truncations[self.learner]) and not terminated
        return self._learner_observation(), float(reward), terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (bool ``[num_actions]``; all False once the game is over)."""
        return self._mask.copy()

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # ------------------------------------------------------------------ internals
    def _play_opponents(self) -> float:
        """Opponents act until the learner is to act or the game is over; the learner's reward meanwhile."""
        aec = self.aec
        reward = 0.0
        while True:
            learner = self.learner
            if aec.terminations[learner] or aec.truncations[learner]:
                self._over = True
                return reward
            agent = aec.agent_selection
            if agent == learner:
                return reward
            opponent = self._seat_agents[aec.possible_agents.index(agent)]
            aec.step(act_in_env(opponent, aec, aec.observe(agent)))
            reward += aec.rewards[learner]

    def _learner_observation(self) -> np.ndarray:
        seen = self.aec.observe(self.learner)
        self._mask = seen["action_mask"].astype(bool)
        return seen["observation"]

    def _info(self) -> dict:
        return {"learner_seat": self.learner_seat, "action_mask": self._mask.copy()}
