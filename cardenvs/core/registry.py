"""The registry: one table from env id to the module defining the game, and the factories built on it."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from cardenvs.core.aec import CardEnv
from cardenvs.core.game import Game
from cardenvs.core.vector import VectorEnv

#: env id -> module whose ``GAME`` attribute is the game's :class:`~cardenvs.core.game.Game`.
REGISTRY: dict[str, str] = {
    "slabberjan_v0": "cardenvs.games.slabberjan",
    "clabber_v0": "cardenvs.games.clabber",
    "slap_v0": "cardenvs.games.slap",
    "stabby_jack_v0": "cardenvs.games.stabby_jack",
    "gin_slaughtre_v0": "cardenvs.games.gin_slaughtre",
}


def available_envs() -> list[str]:
    """The registered env ids."""
    return list(REGISTRY)


def get_game(env_id: str) -> Game:
    """The :class:`Game` behind an env id; ValueError naming the known ids otherwise."""
    if env_id not in REGISTRY:
        raise ValueError(f"unknown env id {env_id!r}; available: {', '.join(REGISTRY)}")
    return importlib.import_module(REGISTRY[env_id]).GAME


def env(env_id: str, render_mode: str | None = None, illegal_action: str = "raise", **params: Any) -> CardEnv:
    """The AEC env to use: order enforcement, action checks and illegal-action handling built in."""
    return CardEnv(get_game(env_id), render_mode=render_mode, illegal_action=illegal_action, **params)


def raw_env(env_id: str, render_mode: str | None = None, illegal_action: str = "raise", **params: Any) -> CardEnv:
    """The AEC env without order enforcement (actions are still checked: an illegal one never applies)."""
    return CardEnv(
        get_game(env_id), render_mode=render_mode, illegal_action=illegal_action, enforce_order=False, **params
    )


def vector_env(env_id: str, num_envs: int, illegal_action: str = "raise", **params: Any) -> VectorEnv:
    """``num_envs`` games stepped together by compiled kernels; see :class:`VectorEnv`."""
    return VectorEnv(get_game(env_id), num_envs, illegal_action=illegal_action, **params)


def module_factories(env_id: str) -> tuple[Callable[..., CardEnv], Callable[..., CardEnv], Callable[..., VectorEnv]]:
    """``env``, ``raw_env`` and ``vector_env`` bound to one env id, for the ``cardenvs.<env_id>`` modules."""

    def bound_env(render_mode: str | None = None, illegal_action: str = "raise", **params: Any) -> CardEnv:
        return env(env_id, render_mode=render_mode, illegal_action=illegal_action, **params)

    def bound_raw_env(render_mode: str | None = None, illegal_action: str = "raise", **params: Any) -> CardEnv:
        return raw_env(env_id, render_mode=render_mode, illegal_action=illegal_action, **params)

    def bound_vector_env(num_envs: int, illegal_action: str = "raise", **params: Any) -> VectorEnv:
        return vector_env(env_id, num_envs, illegal_action=illegal_action, **params)

    for function, generic in ((bound_env, env), (bound_raw_env, raw_env), (bound_vector_env, vector_env)):
        function.__name__ = generic.__name__
        function.__doc__ = f"{generic.__doc__}\n\nBound to ``{env_id}``."
    return bound_env, bound_raw_env, bound_vector_env
