"""The registry: every game the front ends can build, found from one place, and the factories built on it.

A game is a module whose ``GAME`` attribute is its :class:`~cardenvs.core.game.Game`. Three sources are read,
once, the first time the registry is asked for anything:

1. every subpackage of :mod:`cardenvs.games` that defines ``GAME`` (the built-in games; no list of ids anywhere);
2. the modules named in the environment variable :data:`GAME_MODULES_VARIABLE` (``CARDENVS_GAME_MODULES``),
   separated by commas: a game defined outside the package, in every process started with the variable set
   (``CARDENVS_GAME_MODULES=my_games.dice python -m cardenvs.training.ppo --env-id dice_v0``);
3. :func:`register` called at run time (a notebook, a test).

The env id of a game is ``<Game.name>_v<Game.version>``; two games with one id are refused.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from collections.abc import Callable
from importlib.resources import files
from typing import Any

from cardenvs.core.aec import CardEnv
from cardenvs.core.game import Game
from cardenvs.core.vector import VectorEnv

#: environment variable naming extra modules (comma-separated) whose ``GAME`` is registered at first use
GAME_MODULES_VARIABLE = "CARDENVS_GAME_MODULES"
#: the package whose subpackages are the built-in games
GAMES_PACKAGE = "cardenvs.games"

_GAMES: dict[str, Game] = {}
#: env id -> the module whose ``GAME`` it is, where the game was registered from a module
_MODULES: dict[str, str] = {}
_discovered = False


def _game_of_module(module_name: str) -> Game:
    """The ``GAME`` of a module, imported; ValueError if it has none."""
    module = importlib.import_module(module_name)
    game = getattr(module, "GAME", None)
    if not isinstance(game, Game):
        raise ValueError(f"module {module_name} defines no GAME (a cardenvs.core.game.Game)")
    return game


def _add(game: Game, replace: bool, module_name: str | None = None) -> None:
    known = _GAMES.get(game.env_id)
    if known is not None and known is not game and not replace:
        raise ValueError(f"env id {game.env_id!r} is already registered (by another Game); pass replace=True")
    _GAMES[game.env_id] = game
    if module_name:
        _MODULES[game.env_id] = module_name
    elif known is not game:
        _MODULES.pop(game.env_id, None)
    sys.modules.pop(f"cardenvs.{game.env_id}", None)  # a module-style module made for a replaced game


def _discover() -> None:
    """Register the built-in games and those named by :data:`GAME_MODULES_VARIABLE`, once per process."""
    global _discovered
    if _discovered:
        return
    _discovered = True  # set first: a game module that asks the registry while importing must not recurse
    package = importlib.import_module(GAMES_PACKAGE)
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda info: info.name):
        if info.ispkg:
            module = importlib.import_module(f"{GAMES_PACKAGE}.{info.name}")
            if isinstance(getattr(module, "GAME", None), Game):
                _add(module.GAME, replace=False, module_name=module.__name__)
    for name in os.environ.get(GAME_MODULES_VARIABLE, "").split(","):
        if name.strip():
            _add(_game_of_module(name.strip()), replace=False, module_name=name.strip())


def register(game: Game | str, replace: bool = False) -> Game:
    """Make a game available under its env id to :func:`env`, :func:`vector_env`, agents, tournaments and training.

    Args:
        game: the :class:`Game`, or the name of a module whose ``GAME`` it is (what
            ``CARDENVS_GAME_MODULES`` holds; use the variable for processes that you start, such as training).
        replace: replace a different game already registered under the same env id (otherwise ValueError).

    Returns:
        The registered game.
    """
    _discover()
    module_name = None
    if isinstance(game, str):
        module_name, game = game, _game_of_module(game)
    if not isinstance(game, Game):
        raise TypeError(f"register() takes a Game or a module name, not {type(game).__name__}")
    _add(game, replace, module_name)
    return game


def unregister(env_id: str) -> None:
    """Remove a game registered at run time (tests that register a game for their own duration)."""
    _discover()
    if env_id not in _GAMES:
        raise ValueError(f"unknown env id {env_id!r}; available: {', '.join(_GAMES)}")
    del _GAMES[env_id]
    _MODULES.pop(env_id, None)
    sys.modules.pop(f"cardenvs.{env_id}", None)


def game_module(env_id: str) -> str | None:
    """The name of the module whose ``GAME`` the game is, when it was registered from a module (None otherwise)."""
    get_game(env_id)
    return _MODULES.get(env_id)


def available_envs() -> list[str]:
    """The registered env ids: the built-in games in name order, then those registered from outside."""
    _discover()
    return list(_GAMES)


def get_game(env_id: str) -> Game:
    """The :class:`Game` behind an env id; ValueError naming the known ids otherwise."""
    _discover()
    if env_id not in _GAMES:
        raise ValueError(f"unknown env id {env_id!r}; available: {', '.join(_GAMES)}")
    return _GAMES[env_id]


def rules_text(env_id: str) -> str:
    """The Markdown rules page of the registered game ``env_id``, installed with the package (``cardenvs.rules``;
    in the repository ``docs/rules/<game>.md``); ``cardenvs rules`` prints it and the web table serves it.

    Raises:
        ValueError: an unknown env id, or a game with no page installed with the package.
    """
    if env_id not in available_envs():
        raise ValueError(f"unknown env id {env_id!r}; choose from {', '.join(available_envs())}")
    page = files("cardenvs.rules") / f"{get_game(env_id).name}.md"
    if not page.is_file():
        raise ValueError(f"{env_id} has no rules page installed with cardenvs (a game registered from outside)")
    return page.read_text(encoding="utf-8")


def env(env_id: str, render_mode: str | None = None, illegal_action: str = "raise", **params: Any) -> CardEnv:
    """The AEC env to use: order enforcement, action checks and illegal-action handling built in."""
    return CardEnv(get_game(env_id), render_mode=render_mode, illegal_action=illegal_action, **params)


def raw_env(env_id: str, render_mode: str | None = None, illegal_action: str = "raise", **params: Any) -> CardEnv:
    """The AEC env without order enforcement (actions are still checked: an illegal one never applies)."""
    return CardEnv(
        get_game(env_id), render_mode=render_mode, illegal_action=illegal_action, enforce_order=False, **params
    )


def vector_env(
    env_id: str, num_envs: int, illegal_action: str = "raise", *, parallel: bool | None = None, **params: Any
) -> VectorEnv:
    """``num_envs`` games stepped together by compiled kernels; see :class:`VectorEnv`.

    ``parallel`` goes to :class:`VectorEnv` (numba's threads, one thread, or ``None``: chosen by the batch size);
    the other keyword arguments are the game's parameters.
    """
    return VectorEnv(get_game(env_id), num_envs, illegal_action=illegal_action, parallel=parallel, **params)


def module_factories(env_id: str) -> tuple[Callable[..., CardEnv], Callable[..., CardEnv], Callable[..., VectorEnv]]:
    """``env``, ``raw_env`` and ``vector_env`` bound to one env id, for the ``cardenvs.<env_id>`` modules."""

    def bound_env(render_mode: str | None = None, illegal_action: str = "raise", **params: Any) -> CardEnv:
        return env(env_id, render_mode=render_mode, illegal_action=illegal_action, **params)

    def bound_raw_env(render_mode: str | None = None, illegal_action: str = "raise", **params: Any) -> CardEnv:
        return raw_env(env_id, render_mode=render_mode, illegal_action=illegal_action, **params)

    def bound_vector_env(
        num_envs: int, illegal_action: str = "raise", *, parallel: bool | None = None, **params: Any
    ) -> VectorEnv:
        return vector_env(env_id, num_envs, illegal_action=illegal_action, parallel=parallel, **params)

    for function, generic in ((bound_env, env), (bound_raw_env, raw_env), (bound_vector_env, vector_env)):
        function.__name__ = generic.__name__
        function.__doc__ = f"{generic.__doc__}\n\nBound to ``{env_id}``."
    return bound_env, bound_raw_env, bound_vector_env
