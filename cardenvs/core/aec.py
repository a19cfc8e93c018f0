"""The one generic PettingZoo AEC environment that serves every cardenvs game.

The env holds a single state record and calls the game's compiled rule functions on it. It adds, without
PettingZoo's wrapper stack and its per-step cost, the protections of the classic ``env()`` factories:
``reset`` before ``step``/``observe`` (order enforcement), actions checked against the space and the legal
mask (:class:`~cardenvs.core.errors.IllegalActionError`, nothing changed), and a clear error for an action
given to an agent that is done.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from cardenvs.core.errors import IllegalActionError
from cardenvs.core.game import NO_PLAYER, Game, new_states
from cardenvs.core.global_state import state_layout, state_space
from cardenvs.core.picture import rasteriser_missing, seats_shown, svg_to_rgb, table_svg
from cardenvs.core.rng import checked_seed
from cardenvs.core.single import (
    encode_game_state,
    engine_view,
    entry_point,
    observe_game,
    penalize_game,
    refresh_game,
    reset_game,
    step_game,
)
from cardenvs.core.snapshot import restore_record, snapshot_record, validate_record

ILLEGAL_ACTION_MODES = ("raise", "penalize")
RENDER_MODES = ("human", "ansi", "rgb_array")
#: frames per second that video recorders (gymnasium's RecordVideo) play ``rgb_array`` frames at
RENDER_FPS = 2


class CardEnv(AECEnv):
    """A cardenvs game as a PettingZoo AEC environment.

    Args:
        game: the game's definition (from the registry).
        render_mode: ``None``, ``"human"`` (print the table), ``"ansi"`` (``render()`` returns it) or
            ``"rgb_array"`` (``render()`` returns the public table's picture as an ``(height, width, 3)`` uint8
            image; needs the ``web`` extra). In a notebook the env shows its table picture in any mode.
        illegal_action: ``"raise"`` (default) raises :class:`IllegalActionError` and changes nothing;
            ``"penalize"`` applies the game's documented penalty and ends the game.
        enforce_order: raise if ``step``/``observe``/``last`` come before ``reset`` (``env()`` sets it).
        **params: the game's parameters (see its docs/rules page).
    """

    def __init__(
        self,
        game: Game,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        enforce_order: bool = True,
        **params: Any,
    ):
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(
                f"render_mode={render_mode!r} is not allowed; choose None, 'human', 'ansi' or 'rgb_array'"
            )
        if render_mode == "rgb_array" and game.picture is None:
            raise ValueError(f"render_mode='rgb_array' is not allowed: {game.env_id} draws no table picture")
        if render_mode == "rgb_array" and rasteriser_missing():
            raise ImportError(rasteriser_missing())
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action={illegal_action!r} is not allowed; choose 'raise' or 'penalize'")
        self.game = game
        self.params = game.make_params(**params)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.enforce_order = enforce_order
        self.metadata = {
            "name": game.env_id,
            # rgb_array only where it can work: a game with a picture, and cairosvg installed
            "render_modes": [mode for mode in RENDER_MODES
                             if mode != "rgb_array" or (game.picture is not None and not rasteriser_missing())],
            "render_fps": RENDER_FPS,
            "is_parallelizable": False,  # turn-based: a waiting seat has no legal action
        }
        n = game.num_players(self.params)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._agent_index = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.layout = game.observation_layout(self.params)
        self.num_actions = game.num_actions(self.params)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(self.layout.low(), self.layout.high(), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        if game.state_layout is not None and game.encode_state is not None:
            #: the named blocks of :meth:`state` (its index table is in the game's docs/rules page)
            self.state_layout = state_layout(game, self.params)
            self.state_space = state_space(self.state_layout)
        self._states, self._template = new_states(game, self.params, 1)
        self._staged = self._states.copy()  # where reset() sets a new game up before it replaces the old one
        self._obs = np.zeros(self.layout.size, np.float32)
        self._scratch_mask = np.zeros(self.num_actions, np.int8)
        # What the agent to act sees, written by every kernel that changes the record: observe() hands out
        # copies of it without a kernel call of its own.
        self._acting_obs = np.zeros(self.layout.size, np.float32)
        self._mask = np.zeros(self.num_actions, np.int8)  # legal mask of the agent to act
        self._acting_player = NO_PLAYER  # whose view _acting_obs is (NO_PLAYER once the game is over)
        self._bind_views()
        self._seed_stream: np.random.Generator | None = None
        self._has_reset = False
        self._game_over = False
        self._nonzero_rewards: list[str] = []

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def state_record(self) -> np.record:
        """The live state record (read it; change it only through ``step``/``restore``)."""
        return self._records[0]

    # ------------------------------------------------------------------ protocol
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game.

        Args:
            seed: the game's seed, an integer from 0 to 2**64-1. ``None`` continues the env's seed stream (from
                OS entropy if never seeded).
            options: ``{"deal": ...}`` starts from a chosen deal, as documented in the game's docs/rules page.
        """
        deal = self._checked_deal(options)
        drawn_from = saved_state = None  # the env's own seed stream when the seed is drawn from it, its state
        if seed is not None:
            game_seed = checked_seed(seed)
            seed_stream = np.random.default_rng(game_seed)
        else:
            seed_stream = self._seed_stream if self._seed_stream is not None else np.random.default_rng()
            drawn_from = self._seed_stream
            # Kept only where a deal may still be refused; the generator's state dict is far cheaper to take than
            # a deep copy of the generator, and reset() runs once per game.
            saved_state = drawn_from.bit_generator.state if drawn_from is not None and deal is not None else None
            game_seed = int(seed_stream.integers(0, 2**63))
        # The new game is set up aside and only then replaces the old one, so a deal that is refused (ValueError)
        # leaves the env exactly as it was, its seed stream included.
        staged = self._staged
        staged.view(np.uint8)[:] = self._template
        self._reset_game(self._engine_staged, np.uint64(game_seed))
        if deal is not None:
            try:
                self.game.apply_deal(staged.view(np.recarray)[0], self.params, deal)
            except BaseException:
                if saved_state is not None:
                    drawn_from.bit_generator.state = saved_state
                raise
        self._states[:] = staged
        self._seed_stream = seed_stream
        self._has_reset = True
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._nonzero_rewards = []
        self._refresh()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            self._check_reset("observe")
        player = self._agent_index[agent]
        if player == self._acting_player:
            return {"observation": self._acting_obs.copy(), "action_mask": self._mask.copy()}
        self._observe_game(self._engine_states, player, self._obs, self._scratch_mask)
        return {"observation": self._obs.copy(), "action_mask": self._scratch_mask.copy()}

    def state(self) -> np.ndarray:
        """The global state: everything on the table and in every hand, as a float32 vector (a new array).

        For centralised critics; no seat's observation contains it. Its blocks are ``self.state_layout``
        (``state_layout.split(state)`` names them), documented under "Global state" in the game's rules page.
        Reading it draws no randomness and changes nothing.

        Raises:
            NotImplementedError: the game describes no global state.
        """
        if not hasattr(self, "state_space"):
            state_layout(self.game, self.params)  # raises, saying so
        self._check_reset("state")
        out = np.zeros(self.state_layout.size, np.float32)
        encode_game_state(self._engine_states, out)
        return out

    def last(self, observe: bool = True) -> tuple:
        """PettingZoo's ``last``; before the first ``reset`` a RuntimeError says to reset first."""
        if not self._has_reset:
            raise RuntimeError(f"{self.game.env_id}: call reset() before last()")
        agent = self.agent_selection  # PettingZoo's own last(), inlined: it runs on every step of the AEC loop
        return (
            self.observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: Any) -> None:
        if not self._has_reset:
            self._check_reset("step")
        agent = self.agent_selection
        if self._game_over and (self.terminations[agent] or self.truncations[agent]):
            if action is not None:
                raise IllegalActionError(f"{agent} is done; the only allowed action is None, got {action!r}")
            self._was_dead_step(action)
            return
        index = self._legal_index(action)
        if index >= 0:
            self._cumulative_rewards[agent] = 0.0
            status = self._step_game(self._engine_states, index, self._acting_obs, self._mask)
            if not (status[1] or status[2] or self._nonzero_rewards or self.render_mode):
                # Most steps: no reward to hand out or clear, the game goes on. _after_change would only do this.
                self._acting_player = player = status[0]
                self.agent_selection = self.possible_agents[player]
                return
        elif self.illegal_action == "penalize":
            self._cumulative_rewards[agent] = 0.0
            status = penalize_game(self._engine_states, self._agent_index[agent], self._acting_obs, self._mask)
        else:
            raise IllegalActionError(self._illegal_message(agent, action))
        self._after_change(*status)
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'"
            )
            return None
        self._check_reset("render")
        if self.render_mode == "rgb_array":
            return svg_to_rgb(self.table_svg())
        text = self.game.render(self._records[0], self.params)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def table_text(self, seat: int | None = None) -> str:
        """The public table as text (what ``render()`` shows), then ``seat``'s private view when given."""
        self._check_reset("table_text")
        text = self.game.render(self._records[0], self.params)
        private = "" if seat is None else self.game.render_private(self._records[0], self.params, seat)
        return f"{text}\n{private}" if private else text

    def table_svg(self, seat: int | None = None, open_hands: bool = False) -> str:
        """The table as an SVG picture: the public table, plus ``seat``'s private cards, or every seat's with
        ``open_hands`` (draws no randomness, changes nothing)."""
        self._check_reset("table_svg")
        if self.game.picture is None:
            raise ValueError(f"{self.game.env_id} draws no table picture (its Game has no picture function)")
        n = len(self.possible_agents)
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, (int, np.integer))
                                 or not 0 <= seat < n):
            raise ValueError(f"seat={seat!r} is not allowed; choose None or a seat from 0 to {n - 1}")
        picture = self.game.picture(self._records[0], self.params, seats_shown(seat, n, open_hands))
        return table_svg(picture)

    def _repr_svg_(self) -> str | None:
        # Jupyter shows the public table inline; before the first reset there is no table to show.
        return self.table_svg() if self._has_reset and self.game.picture is not None else None

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ snapshots
    def snapshot(self) -> dict:
        """A JSON-serialisable dict of the full game state (every field of the state record)."""
        self._check_reset("snapshot")
        return {
            "env_id": self.game.env_id,
            "params": _params_as_dict(self.params),
            "state": snapshot_record(self._records[0]),
            "cumulative_rewards": dict(self._cumulative_rewards),
            "agents": list(self.agents),
        }

    def restore(self, snapshot: dict) -> None:
        """Continue from a :meth:`snapshot` of an env with the same id and parameters.

        The snapshot's state is checked before the rules see it (:func:`cardenvs.core.snapshot.validate_record`):
        a field out of its range, or a record the rules cannot reach (a card in two places, counts that do not
        match the cards), raises a ValueError naming the field and leaves the env as it was.
        """
        if not isinstance(snapshot, dict):
            raise ValueError(f"a snapshot is a dict as snapshot() returns, got {type(snapshot).__name__}")
        if snapshot.get("env_id") != self.game.env_id:
            raise ValueError(f"snapshot is of {snapshot.get('env_id')!r}, this env is {self.game.env_id!r}")
        if snapshot.get("params") != _params_as_dict(self.params):
            raise ValueError("snapshot parameters differ from this env's; make the env with the same parameters")
        agents, cumulative = self._checked_agents(snapshot)
        staged = self._staged.view(np.recarray)
        restore_record(staged[0], snapshot.get("state"))
        validate_record(self.game, self.params, staged[0])
        if not (staged[0].terminated or staged[0].truncated) and agents != self.possible_agents:
            raise ValueError(f"snapshot agents must be all of {self.possible_agents} while the game goes on")
        self._states[:] = self._staged
        self._has_reset = True
        self.agents = agents
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = cumulative
        self.infos = {a: {} for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._nonzero_rewards = []
        self._refresh()

    def _checked_agents(self, snapshot: dict) -> tuple[list[str], dict[str, float]]:
        """The snapshot's live agents (distinct, of this env) and their cumulative rewards (finite numbers)."""
        agents, cumulative = snapshot.get("agents"), snapshot.get("cumulative_rewards")
        if (not isinstance(agents, list) or len(set(map(str, agents))) != len(agents)
                or not set(map(str, agents)) <= set(self.possible_agents)):
            raise ValueError(f"snapshot agents must be distinct agents of {self.possible_agents}, got {agents!r:.200}")
        if not isinstance(cumulative, dict) or not set(agents) <= set(cumulative):
            raise ValueError("snapshot cumulative_rewards must give a number for every agent in its agents")
        rewards = {}
        for agent in agents:
            value = cumulative[agent]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
                raise ValueError(f"snapshot cumulative_rewards[{agent!r}] is {value!r}; it must be a finite number")
            rewards[agent] = float(value)
        return list(agents), rewards

    def __deepcopy__(self, memo: dict) -> CardEnv:
        clone = object.__new__(type(self))  # not copy.copy: it would go through __setstate__ and type the kernels anew
        memo[id(self)] = clone
        for name, value in self.__dict__.items():
            if name in _VIEW_ATTRIBUTES:
                continue  # rebuilt below from the copied state array
            # the shared attributes are immutable or shared by design
            clone.__dict__[name] = value if name in _SHARED_ATTRIBUTES else copy.deepcopy(value, memo)
        clone._bind_views(kernels_of=self)
        return clone

    def __getstate__(self) -> dict:
        state = {k: v for k, v in self.__dict__.items() if k not in _VIEW_ATTRIBUTES}
        state["game"] = self.game.env_id
        return state

    def __setstate__(self, state: dict) -> None:
        from cardenvs.core.registry import get_game

        state["game"] = get_game(state["game"])
        self.__dict__.update(state)
        self._bind_views()

    # ------------------------------------------------------------------ internals
    def _check_reset(self, what: str) -> None:
        if self.enforce_order and not self._has_reset:
            raise RuntimeError(f"{self.game.env_id}: call reset() before {what}()")

    def _legal_index(self, action: Any) -> int:
        """The action as an int if it is legal now, else -1 (bools, floats and out-of-range values included)."""
        if type(action) is not int:  # the fast path is a plain int; accept numpy integers, nothing else
            if not isinstance(action, np.integer):
                return -1
            action = int(action)
        if 0 <= action < self.num_actions and self._mask[action]:
            return action
        return -1

    def _illegal_message(self, agent: str, action: Any) -> str:
        legal = [f"{i} {self.game.action_name(self.params, i)}" for i in np.flatnonzero(self._mask)]
        if isinstance(action, (int, np.integer)) and not isinstance(action, bool) and 0 <= action < self.num_actions:
            shown = f"{int(action)} ({self.game.action_name(self.params, int(action))})"
        else:
            shown = repr(action)
        return f"{self.game.env_id}: action {shown} is not legal for {agent} now; legal actions: {', '.join(legal)}"

    def _bind_views(self, kernels_of: CardEnv | None = None) -> None:
        """Views into the state array that the hot path reads without going through ``np.record``, and the hot
        path's kernels: those of ``kernels_of`` (a copy's original, whose arrays have the very same types), else
        resolved anew (a few milliseconds: numba types every argument)."""
        self._engine_states = engine_view(self._states)
        self._records = self._states.view(np.recarray)
        self._step_rewards = self._states["rewards"][0]
        self._engine_staged = engine_view(self._staged)
        if kernels_of is not None:
            for name in _KERNEL_ATTRIBUTES:
                setattr(self, name, getattr(kernels_of, name))
            return
        # The hot path's kernels, resolved once for these exact argument types (player and action are ints).
        self._step_game = entry_point(step_game, self._engine_states, 0, self._acting_obs, self._mask)
        self._observe_game = entry_point(observe_game, self._engine_states, 0, self._obs, self._scratch_mask)
        self._reset_game = entry_point(reset_game, self._engine_staged, np.uint64(0))
        self._refresh_game = entry_point(refresh_game, self._engine_states, self._acting_obs, self._mask)

    def _refresh(self) -> None:
        """Bring every cached view (observation and legal mask of the agent to act, agent to act, done flags) in
        line with the record.

        The one place for anything that changes the record outside a step: reset, a chosen deal, restore.
        (A step's kernel refreshes the observation and mask itself and hands its status to :meth:`_after_change`.)
        """
        player, over = self._refresh_game(self._engine_states, self._acting_obs, self._mask)
        self._set_turn(int(player), int(over))

    def _after_change(self, player: int, rewarded: bool, over: int) -> None:
        """Copy a step's results (as returned by the compiled step or penalty) into PettingZoo's dicts."""
        if self._nonzero_rewards:
            for agent in self._nonzero_rewards:
                self.rewards[agent] = 0.0
            self._nonzero_rewards = []
        if rewarded:
            step_rewards = self._step_rewards
            for i in np.flatnonzero(step_rewards):
                agent = self.possible_agents[i]
                if agent in self.rewards:
                    value = float(step_rewards[i])
                    self.rewards[agent] = value
                    self._cumulative_rewards[agent] += value
                    self._nonzero_rewards.append(agent)
        self._set_turn(player, over)

    def _set_turn(self, player: int, over: int) -> None:
        """The agent to act and the done flags, from the record's status (over: 0 on, 1 terminated, 2 truncated)."""
        self._game_over = bool(over)
        self._acting_player = NO_PLAYER if over else player
        if over:
            done = self.terminations if over == 1 else self.truncations
            for agent in self.agents:
                done[agent] = True
            self._mask[:] = 0
            # PettingZoo's convention: each done agent is then stepped with None, starting here.
            if self.agents:
                self.agent_selection = self.agents[0]
        else:
            assert player != NO_PLAYER
            self.agent_selection = self.possible_agents[player]

    def _checked_deal(self, options: dict | None) -> Any:
        """The chosen deal of ``reset``'s options, or None; ValueError if the options cannot be read.

        Options other than ``"deal"`` are left alone with a warning: wrappers and test suites (PettingZoo's
        api_test among them) pass options of their own, and gymnasium's convention is to ignore what an env does
        not know.
        """
        if options is None:
            return None
        if not isinstance(options, dict):
            raise ValueError(f"{self.game.env_id}: reset options must be None or a dict such as {{'deal': {{...}}}}")
        unknown = sorted(map(str, set(options) - {"deal"}))
        if unknown:
            gymnasium.logger.warn(f"{self.game.env_id}: reset ignores the unknown option(s) {', '.join(unknown)}")
        deal = options.get("deal")
        if deal is not None and not isinstance(deal, dict):
            keys = f" with keys from {', '.join(self.game.deal_keys)}" if self.game.deal_keys else ""
            raise ValueError(
                f"{self.game.env_id}: a deal is a dict{keys}, as 'Chosen deals' in its rules page (cardenvs rules "
                f"{self.game.env_id}) "
                f"describes; got {deal!r}"
            )
        return deal


# Attributes that copies share with the original, and views rebuilt from the state array after copying.
_SHARED_ATTRIBUTES = frozenset(
    {"game", "params", "layout", "observation_spaces", "action_spaces", "_agent_index", "state_layout", "state_space"}
)
#: the hot path's compiled kernels, each resolved for the exact types of the env's arrays (``_bind_views``)
_KERNEL_ATTRIBUTES = ("_step_game", "_observe_game", "_reset_game", "_refresh_game")
#: attributes rebuilt from the state array (or, the kernels, taken over) rather than copied or pickled
_VIEW_ATTRIBUTES = frozenset({"_engine_states", "_records", "_step_rewards", "_engine_staged", *_KERNEL_ATTRIBUTES})


def _params_as_dict(params: Any) -> dict:
    return dataclasses.asdict(params)
