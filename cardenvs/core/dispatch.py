"""Compile-time dispatch from a state record's type to its game's rule functions.

The kernels of both front ends (core/single.py for the AEC env, core/vector.py for the batched env) are
written once for every game. Passing rule functions to them as
arguments would work, but numba cannot cache kernels whose signature holds functions. Instead the kernels
call the ``engine_*`` functions below; numba resolves each call while compiling, from the record's field
names to the game registered with those names (so no two games may have the same field names), and every kernel is
cached per record type. As plain Python
(``NUMBA_DISABLE_JIT=1``) the same functions look the game up from the record's dtype at run time.
"""

from __future__ import annotations

from typing import Any

from numba.extending import overload

_ENGINES: dict[tuple[str, ...], Any] = {}


def register_engine(field_names: tuple[str, ...], game: Any) -> None:
    """Make ``game``'s rule functions the ones called for records with these field names.

    The field names are the only key the kernels have, so they must tell the games apart: a second game (another
    env id) whose record has the same field names is refused, since it would take the first game's place for both.
    A game with the env id already held (a new definition of the same game, such as a ``dataclasses.replace``
    copy) takes its place.

    Args:
        field_names: the field names of the game's state record, in order (``Game.state_dtype(params).names``).
        game: the :class:`~cardenvs.core.game.Game` whose rule functions records with these names run.

    Raises:
        ValueError: another game's record already has these field names.
    """
    key = tuple(field_names)
    known = _ENGINES.get(key)
    if known is not None and known.env_id != game.env_id:
        raise ValueError(
            f"{game.env_id} cannot be registered: its state record has the same field names as {known.env_id}'s, "
            f"and the compiled kernels find a game's rules by its record's field names alone (cardenvs.core.dispatch), "
            f"so {game.env_id} would run {known.env_id}'s rules or the other way round; give one of the two games a "
            f"state field of its own (for example a field named after the game)"
        )
    _ENGINES[key] = game


def registered_game(field_names: tuple[str, ...]) -> Any:
    """The game whose rules records with these field names run (:func:`register_engine`).

    Raises:
        TypeError: no game is registered for them.
    """
    try:
        return _ENGINES[tuple(field_names)]
    except KeyError:
        raise TypeError(f"no game is registered for a state record with fields {field_names}") from None


def engine_reset(state, seed):
    registered_game(state.dtype.names).reset(state, seed)


def engine_step(state, action):
    registered_game(state.dtype.names).step(state, action)


def engine_observe(state, player, obs, mask):
    registered_game(state.dtype.names).observe(state, player, obs, mask)


def engine_penalize(state, player):
    registered_game(state.dtype.names).penalize(state, player)


def engine_legal_mask(state, mask):
    registered_game(state.dtype.names).legal_mask(state, mask)


def engine_encode_state(state, out):
    _encode_state(registered_game(state.dtype.names))(state, out)


def engine_rule_based_action(state, observation, mask):
    """The game's rule-based agent's action for one seat's ``observation`` and legal ``mask`` (the record only
    picks the game: the policy reads nothing else)."""
    return rule_based_policy(registered_game(state.dtype.names))(observation, mask)


def rule_based_policy(game: Any) -> Any:
    """The compiled ``(observation, mask) -> action`` of ``game``'s rule-based agent (its class's
    ``compiled_policy``).

    Raises:
        TypeError: the game's rule-based agent has no compiled policy (or the game has no rule-based agent).
    """
    policy = getattr(game.rule_based_agent_class(), "compiled_policy", None)
    if policy is None:
        raise TypeError(f"{game.env_id}'s rule-based agent has no compiled policy")
    return policy


def _encode_state(game: Any) -> Any:
    if game.encode_state is None:
        raise TypeError(f"{game.env_id} has no global state (its Game sets no encode_state)")
    return game.encode_state


@overload(engine_reset, jit_options={"cache": True})
def _compiled_reset(state, seed):
    reset = registered_game(tuple(state.fields)).reset

    def impl(state, seed):
        reset(state, seed)

    return impl


@overload(engine_step, jit_options={"cache": True})
def _compiled_step(state, action):
    step = registered_game(tuple(state.fields)).step

    def impl(state, action):
        step(state, action)

    return impl


@overload(engine_observe, jit_options={"cache": True})
def _compiled_observe(state, player, obs, mask):
    observe = registered_game(tuple(state.fields)).observe

    def impl(state, player, obs, mask):
        observe(state, player, obs, mask)

    return impl


@overload(engine_penalize, jit_options={"cache": True})
def _compiled_penalize(state, player):
    penalize = registered_game(tuple(state.fields)).penalize

    def impl(state, player):
        penalize(state, player)

    return impl


@overload(engine_legal_mask, jit_options={"cache": True})
def _compiled_legal_mask(state, mask):
    legal_mask = registered_game(tuple(state.fields)).legal_mask

    def impl(state, mask):
        legal_mask(state, mask)

    return impl


@overload(engine_encode_state, jit_options={"cache": True})
def _compiled_encode_state(state, out):
    encode_state = _encode_state(registered_game(tuple(state.fields)))

    def impl(state, out):
        encode_state(state, out)

    return impl


@overload(engine_rule_based_action, jit_options={"cache": True})
def _compiled_rule_based_action(state, observation, mask):
    policy = rule_based_policy(registered_game(tuple(state.fields)))

    def impl(state, observation, mask):
        return policy(observation, mask)

    return impl
