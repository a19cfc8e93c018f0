"""The batched front end: N games of one kind stepped in lockstep by compiled kernels.

Each game is one state record; one kernel call steps every game in parallel (``numba.prange``) with the same
rule functions the AEC env uses. Game ``i`` of ``reset(seed)`` is the game ``env.reset(seed=game_seed(seed, i))``
plays, and a finished game restarts from a seed drawn from its own generator, so every game's trajectory
depends only on its seed and its actions: never on the batch size or the number of threads.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from cardenvs.core.dispatch import engine_observe, engine_penalize, engine_reset, engine_step
from cardenvs.core.errors import IllegalActionError
from cardenvs.core.game import Game, RecordError, new_states
from cardenvs.core.rng import checked_seed, game_seed, next_u64, rand_below, seed_state
from cardenvs.core.single import engine_view

# Kept apart from the game seeds so that sampling actions never touches the games' own chance.
_SAMPLER_SALT = 0x5A3C_91E7_0F1B_D24B
# The extra field keeps numba from treating game records as subtypes of this record (and vice versa).
_SAMPLER_DTYPE = np.dtype([("rng", np.uint64), ("draws", np.uint32)])


#: below this many games a step runs on one thread: on small batches (training uses tens of games) waking numba's
#: thread pool costs more than the threads save
PARALLEL_MIN_GAMES = 256


@njit(cache=True)
def _reset_game(states, raw, template, i, seed, players, obs, masks):
    raw[i, :] = template
    state = states[i]
    engine_reset(state, seed)
    players[i] = state.current_player
    engine_observe(state, state.current_player, obs[i], masks[i])


@njit(cache=True, parallel=True)
def _reset_games(states, raw, template, seeds, players, obs, masks):
    for i in prange(states.shape[0]):
        _reset_game(states, raw, template, i, seeds[i], players, obs, masks)


@njit(cache=True)
def _reset_rows(states, raw, template, rows, seeds, players, obs, masks):
    for k in range(rows.shape[0]):
        _reset_game(states, raw, template, rows[k], seeds[k], players, obs, masks)


@njit(cache=True)
def _refresh_rows(states, rows, players, obs, masks):
    """The seat to act, its observation and legal mask, for the games at ``rows`` (after their records changed)."""
    for k in range(rows.shape[0]):
        state = states[rows[k]]
        players[rows[k]] = state.current_player
        engine_observe(state, state.current_player, obs[rows[k]], masks[rows[k]])


@njit(cache=True)
def _step_game(
    states, raw, template, i, action, penalize_illegal, final_for, players, obs, masks, rewards, terminated,
    truncated, final_obs, final_masks,
):
    """Step game ``i``; when it ends, ``final_for[i]``'s view of it is written before it restarts."""
    state = states[i]
    if 0 <= action < masks.shape[1] and masks[i, action] != 0:
        engine_step(state, action)
    elif penalize_illegal:
        engine_penalize(state, state.current_player)
    rewards[i, :] = state.rewards
    terminated[i] = state.terminated
    truncated[i] = state.truncated
    if state.terminated or state.truncated:
        # A None argument compiles this branch away: the default step pays nothing for it.
        if final_for is not None:
            engine_observe(state, final_for[i], final_obs[i], final_masks[i])
        next_seed = next_u64(state)
        raw[i, :] = template
        state = states[i]
        engine_reset(state, next_seed)
    players[i] = state.current_player
    engine_observe(state, state.current_player, obs[i], masks[i])


@njit(cache=True, parallel=True)
def _step_games(
    states, raw, template, actions, active, penalize_illegal, final_for, players, obs, masks, rewards, terminated,
    truncated, final_obs, final_masks,
):
    if active is None:
        for i in prange(states.shape[0]):
            _step_game(
                states, raw, template, i, actions[i], penalize_illegal, final_for, players, obs, masks, rewards,
                terminated, truncated, final_obs, final_masks,
            )
    else:
        for i in prange(states.shape[0]):
            if active[i]:
                _step_game(
                    states, raw, template, i, actions[i], penalize_illegal, final_for, players, obs, masks, rewards,
                    terminated, truncated, final_obs, final_masks,
                )


@njit(cache=True)
def _step_games_serial(
    states, raw, template, actions, active, penalize_illegal, final_for, players, obs, masks, rewards, terminated,
    truncated, final_obs, final_masks,
):
    """:func:`_step_games` on one thread (small batches)."""
    for i in range(states.shape[0]):
        if active is None or active[i]:
            _step_game(
                states, raw, template, i, actions[i], penalize_illegal, final_for, players, obs, masks, rewards,
                terminated, truncated, final_obs, final_masks,
            )


@njit(cache=True)
def _observe_seats(states, seats, obs, masks):
    for i in range(states.shape[0]):
        engine_observe(states[i], seats[i], obs[i], masks[i])


@njit(cache=True)
def _first_illegal(actions, masks, active):
    num_actions = masks.shape[1]
    for i in range(actions.shape[0]):
        if active is not None and not active[i]:
            continue
        action = actions[i]
        if action < 0 or action >= num_actions or masks[i, action] == 0:
            return i
    return -1


@njit(cache=True)
def _seed_samplers(samplers, rows, seeds, salt):
    for k in range(rows.shape[0]):
        seed_state(samplers[rows[k]], seeds[k] ^ salt)


@njit(cache=True, parallel=True)
def _sample_legal(samplers, masks, out):
    for i in prange(masks.shape[0]):
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a]
        pick = rand_below(samplers[i], count)
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if pick == 0:
                    out[i] = a
                    break
                pick -= 1


def _explicit_seeds(seeds: Any, num_envs: int) -> np.ndarray:
    """``seeds`` as uint64 game seeds, each following the seed rule of the AEC env's ``reset(seed=...)``."""
    # Read element by element: numpy would turn a list mixing ints above 2**63 and negative ints into floats.
    values = seeds.tolist() if isinstance(seeds, np.ndarray) else list(seeds)
    if len(values) != num_envs:
        raise ValueError(f"seeds must be {num_envs} integers (one per game), got {len(values)} values")
    try:
        reduced = [checked_seed(value) for value in values]
    except ValueError:
        raise ValueError(f"seeds must be {num_envs} integers (one per game), got {values!r:.200}") from None
    return np.array(reduced, np.uint64)


class VectorEnv:
    """``num_envs`` games of one cardenvs game, stepped together.

    Returned arrays are buffers owned by the env and overwritten by the next ``reset``/``step``: copy what
    you keep.

    Auto-reset: when game ``i`` ends in a ``step``, that step reports its final rewards in ``rewards[i]`` and
    ``terminated[i]`` (or ``truncated[i]``) is True, while ``obs[i]``, ``action_mask[i]`` and
    ``current_player[i]`` already belong to the first decision of the next game, seeded from the finished
    game's own generator. What one seat saw of the finished game is kept on request: see ``step``'s
    ``final_observation_for``.

    Args:
        game: the game's definition (from the registry).
        num_envs: how many games run in lockstep.
        illegal_action: ``"raise"`` (default: any illegal action raises before any game changes) or
            ``"penalize"`` (the game's documented penalty applies to that game).
        parallel: step the games on numba's threads (True) or on one thread (False); ``None`` (default) uses
            the threads from :data:`PARALLEL_MIN_GAMES` games on. The results are the same either way.
        **params: the game's parameters.
    """

    def __init__(
        self, game: Game, num_envs: int, illegal_action: str = "raise", *, parallel: bool | None = None, **params: Any
    ):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r} is not allowed; it must be a positive integer")
        if illegal_action not in ("raise", "penalize"):
            raise ValueError(f"illegal_action={illegal_action!r} is not allowed; choose 'raise' or 'penalize'")
        if parallel not in (None, True, False):
            raise ValueError(f"parallel={parallel!r} is not allowed; choose None, True or False")
        self.game = game
        self.params = game.make_params(**params)
        self.num_envs = int(num_envs)
        self.illegal_action = illegal_action
        self.num_players = game.num_players(self.params)
        self.num_actions = game.num_actions(self.params)
        self.layout = game.observation_layout(self.params)
        self._states, self._template = new_states(game, self.params, self.num_envs)
        self._engine_states = engine_view(self._states)
        self._raw = self._states.view(np.uint8).reshape(self.num_envs, -1)
        self.observations = np.zeros((self.num_envs, self.layout.size), np.float32)
        self.action_masks = np.zeros((self.num_envs, self.num_actions), np.int8)
        self.current_players = np.zeros(self.num_envs, np.int32)
        self.rewards = np.zeros((self.num_envs, self.num_players), np.float32)
        self.terminated = np.zeros(self.num_envs, np.bool_)
        self.truncated = np.zeros(self.num_envs, np.bool_)
        #: what the seats asked for in ``step(final_observation_for=...)`` saw of the games that ended
        self.final_observations = np.zeros(0, np.float32)
        #: their action masks in the finished games (all zero for a seat the end found waiting)
        self.final_action_masks = np.zeros(0, np.int8)
        if parallel is None:
            parallel = self.num_envs >= PARALLEL_MIN_GAMES
        self._step_kernel = _step_games if parallel else _step_games_serial
        self._all_rows = np.arange(self.num_envs, dtype=np.int64)
        self._samplers = engine_view(np.zeros(self.num_envs, _SAMPLER_DTYPE))
        self._sampled = np.zeros(self.num_envs, np.int64)
        self._has_reset = False

    def reset(
        self, seed: int | None = None, *, seeds: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start every game; returns ``(obs[N, D], action_mask[N, A], current_player[N])``.

        Args:
            seed: game ``i`` is seeded with ``game_seed(seed, i)``; ``None`` draws a seed from OS entropy.
            seeds: instead of ``seed``, one seed per game (``num_envs`` integers): game ``i`` is then exactly
                the AEC game ``env.reset(seed=int(seeds[i]))``.
        """
        if seeds is not None:
            if seed is not None:
                raise ValueError("reset takes seed or seeds, not both")
            seeds = _explicit_seeds(seeds, self.num_envs)
        else:
            seed = int(np.random.SeedSequence().entropy % 2**64) if seed is None else checked_seed(seed)
            seeds = np.array([game_seed(seed, i) for i in range(self.num_envs)], np.uint64)
        _reset_games(
            self._engine_states, self._raw, self._template, seeds, self.current_players, self.observations,
            self.action_masks,
        )
        _seed_samplers(self._samplers, self._all_rows, seeds, np.uint64(_SAMPLER_SALT))
        self.rewards[:] = 0
        self.terminated[:] = False
        self.truncated[:] = False
        self._has_reset = True
        return self.observations, self.action_masks, self.current_players

    def reset_games(self, rows: Any, seeds: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start new games at ``rows`` while the other games go on; returns ``reset``'s buffers.

        Args:
            rows: the indices of the games to restart (distinct).
            seeds: one seed per row: game ``rows[k]`` becomes the AEC game ``env.reset(seed=int(seeds[k]))``.

        Their ``rewards``, ``terminated`` and ``truncated`` entries are cleared; every other game keeps its
        state and its entries in every buffer.
        """
        if not self._has_reset:
            raise RuntimeError(f"{self.game.env_id}: call reset() before reset_games()")
        rows = self._checked_rows(rows)
        seeds = _explicit_seeds(seeds, rows.size)
        _reset_rows(
            self._engine_states, self._raw, self._template, rows, seeds, self.current_players, self.observations,
            self.action_masks,
        )
        _seed_samplers(self._samplers, rows, seeds, np.uint64(_SAMPLER_SALT))
        self.rewards[rows] = 0
        self.terminated[rows] = False
        self.truncated[rows] = False
        return self.observations, self.action_masks, self.current_players

    def set_states(self, rows: Any, states: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Continue the games at ``rows`` from the given state records while the other games go on; returns
        ``reset``'s buffers.

        For search over positions made elsewhere (determinized deals of a resampler, saved positions): thousands
        of them then run at engine speed. Each record is checked first as a restored snapshot is
        (:func:`cardenvs.core.snapshot.validate_record`); if any is refused, a ValueError names its index and
        field, and no game changes.

        Args:
            rows: the indices of the games to replace (distinct).
            states: one state record per row, of this env's record type (``self.states.dtype``, e.g. rows of
                another ``VectorEnv``'s ``states`` with the same parameters, or a resampler's records), each a
                game in progress.

        Their ``rewards``, ``terminated`` and ``truncated`` entries are cleared; each game restarts from its own
        record's generator when it ends.
        """
        from cardenvs.core.snapshot import validate_record

        if not self._has_reset:
            raise RuntimeError(f"{self.game.env_id}: call reset() before set_states()")
        rows = self._checked_rows(rows)
        records = np.asarray(states)
        if records.dtype != self._states.dtype or records.shape != rows.shape:
            raise ValueError(
                f"states must be {rows.size} records of this env's record type, got {records.dtype} {records.shape}"
            )
        readable = records.view(np.recarray)
        for k in range(rows.size):
            if readable[k].terminated or readable[k].truncated:
                raise ValueError(f"states[{k}] is a finished game; set_states takes games in progress")
            try:
                validate_record(self.game, self.params, readable[k])
            except RecordError as error:
                raise RecordError(error.field, f"{error.message} (in states[{k}])") from None
        self._states[rows] = records
        _refresh_rows(self._engine_states, rows, self.current_players, self.observations, self.action_masks)
        self.rewards[rows] = 0
        self.terminated[rows] = False
        self.truncated[rows] = False
        return self.observations, self.action_masks, self.current_players

    def _set_trusted_states(self, rows: np.ndarray, records: np.ndarray) -> None:
        """:meth:`set_states` without the checks, for records the library made itself (the search agents' draws of
        ``Game.resample``, which the resampler tests prove valid): thousands per decision cannot each pay for the
        plain-Python checks. ``rows`` must be distinct int64 indices and ``records`` of this env's record type."""
        self._states[rows] = records
        _refresh_rows(self._engine_states, rows, self.current_players, self.observations, self.action_masks)
        self.rewards[rows] = 0
        self.terminated[rows] = False
        self.truncated[rows] = False

    def state_array(self, rows: Any) -> np.ndarray:
        """Copies of the records of the games at ``rows``, as a plain structured array (``set_states`` takes it)."""
        return self._states[self._checked_rows(rows)]

    def _checked_rows(self, rows: Any) -> np.ndarray:
        """``rows`` as distinct int64 game indices, or a ValueError."""
        rows = np.asarray(rows)
        if rows.ndim != 1 or not (np.issubdtype(rows.dtype, np.integer) or rows.size == 0):
            raise ValueError(f"rows must be a 1-d array of game indices, got {rows.dtype} {rows.shape}")
        rows = rows.astype(np.int64, copy=False)
        if rows.size and (rows.min() < 0 or rows.max() >= self.num_envs or np.unique(rows).size != rows.size):
            raise ValueError(
                f"rows must be distinct game indices from 0 to {self.num_envs - 1}, got {rows.tolist()!r:.200}"
            )
        return rows

    def step(
        self, actions: np.ndarray, active: np.ndarray | None = None, final_observation_for: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Apply one action per game (by its current player).

        Returns ``(obs, action_mask, current_player, rewards[N, P], terminated[N], truncated[N])``.

        Args:
            actions: one action per game (integers ``[N]``; ignored where ``active`` is False).
            active: bool ``[N]``: step only these games. The others keep their state, and their entries in
                every buffer (the returned arrays and ``final_observations``) keep the values they had.
            final_observation_for: a seat per game (integers ``[N]``). For every stepped game that ends,
                ``final_observations[i]`` and ``final_action_masks[i]`` then hold what seat
                ``final_observation_for[i]`` observes of the finished game, written before it restarts (the
                AEC env's ``observe`` of that seat at the end). Without it those buffers are not touched.
        """
        if not self._has_reset:
            raise RuntimeError(f"{self.game.env_id}: call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be an integer array of shape ({self.num_envs},), got {actions.dtype} {actions.shape}"
            )
        actions = actions.astype(np.int64, copy=False)
        if active is not None:
            active = self._checked_active(active)
        if final_observation_for is not None:
            final_observation_for = self._checked_seats(final_observation_for, "final_observation_for")
            if self.final_observations.shape[0] != self.num_envs:  # allocated on first use
                self.final_observations = np.zeros_like(self.observations)
                self.final_action_masks = np.zeros_like(self.action_masks)
        penalize = self.illegal_action == "penalize"
        if not penalize:
            bad = _first_illegal(actions, self.action_masks, active)
            if bad >= 0:
                legal = np.flatnonzero(self.action_masks[bad]).tolist()
                raise IllegalActionError(
                    f"{self.game.env_id}: action {int(actions[bad])} is not legal in game {bad} for "
                    f"player_{int(self.current_players[bad])}; legal actions there: {legal}"
                )
        self._step_kernel(
            self._engine_states, self._raw, self._template, actions, active, penalize, final_observation_for,
            self.current_players, self.observations, self.action_masks, self.rewards, self.terminated,
            self.truncated, self.final_observations, self.final_action_masks,
        )
        return (
            self.observations, self.action_masks, self.current_players, self.rewards, self.terminated,
            self.truncated,
        )

    def _checked_active(self, active: Any) -> np.ndarray:
        active = np.asarray(active)
        if active.shape != (self.num_envs,) or active.dtype != np.bool_:
            raise ValueError(
                f"active must be a bool array of shape ({self.num_envs},), got {active.dtype} {active.shape}"
            )
        return active

    def _checked_seats(self, seats: Any, name: str) -> np.ndarray:
        seats = np.asarray(seats)
        if seats.shape != (self.num_envs,) or not np.issubdtype(seats.dtype, np.integer):
            raise ValueError(
                f"{name} must be an integer array of shape ({self.num_envs},), got {seats.dtype} {seats.shape}"
            )
        if seats.min() < 0 or seats.max() >= self.num_players:
            raise ValueError(f"{name} holds seats outside 0..{self.num_players - 1}")
        return seats.astype(np.int64, copy=False)

    def observe(self, seats: Any) -> tuple[np.ndarray, np.ndarray]:
        """What seat ``seats[i]`` observes of game ``i``, for every game: ``(obs[N, D], action_mask[N, A])``.

        The AEC env's ``observe`` of that seat (a waiting seat's mask is all zeros); new arrays, and nothing
        changes. Trainers use it to value a seat's position between its turns (e.g. at the end of a rollout).

        Args:
            seats: a seat per game (integers ``[N]``).
        """
        if not self._has_reset:
            raise RuntimeError(f"{self.game.env_id}: call reset() before observe()")
        seats = self._checked_seats(seats, "seats")
        obs = np.zeros_like(self.observations)
        masks = np.zeros_like(self.action_masks)
        _observe_seats(self._engine_states, seats, obs, masks)
        return obs, masks

    @property
    def states(self) -> np.recarray:
        """The games' state records (a view: read them, change them only through ``step``/``reset``)."""
        return self._states.view(np.recarray)

    def global_states(self, out: np.ndarray | None = None) -> np.ndarray:
        """The global state of every game, float32 ``[N, S]``: everything on the table and in every hand.

        For centralised critics (each row is the AEC env's ``state()`` of that game); see
        :mod:`cardenvs.core.global_state` and "Global state" in the game's rules page. Reading it draws no
        randomness and changes nothing.

        Args:
            out: a float32 ``[N, S]`` array to write into; by default a new one.
        """
        from cardenvs.core.global_state import encode_states, state_layout

        if not self._has_reset:
            raise RuntimeError(f"{self.game.env_id}: call reset() before global_states()")
        if out is None:
            out = np.zeros((self.num_envs, state_layout(self.game, self.params).size), np.float32)
        return encode_states(self._engine_states, out, parallel=self._step_kernel is _step_games)

    def sample_actions(self) -> np.ndarray:
        """A uniformly random legal action for every game, from the env's own sampling generators."""
        if not self._has_reset:
            raise RuntimeError(f"{self.game.env_id}: call reset() before sample_actions()")
        _sample_legal(self._samplers, self.action_masks, self._sampled)
        return self._sampled
