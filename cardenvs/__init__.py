"""cardenvs: five card games as exact, fast PettingZoo AEC environments and batched environments.

Quick start::

    import cardenvs
    env = cardenvs.env("slabberjan_v0", num_players=5)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else int(obs["action_mask"].nonzero()[0][0])
        env.step(action)

    venv = cardenvs.vector_env("slabberjan_v0", num_envs=4096, num_players=5)
    obs, mask, player = venv.reset(seed=0)
    obs, mask, player, rewards, terminated, truncated = venv.step(venv.sample_actions())

Module style works too: ``from cardenvs import slabberjan_v0; slabberjan_v0.env(num_players=5)`` (or
``import cardenvs.slabberjan_v0``), for every registered game: the ``cardenvs.<env_id>`` modules are made on first
use, with ``env``, ``raw_env`` and ``vector_env`` bound to the env id. Games are found by
:mod:`cardenvs.core.registry`; :func:`register` adds one defined elsewhere.
"""

import importlib
import importlib.abc
import importlib.util
import os
import re
import sys
from importlib.machinery import ModuleSpec
from types import ModuleType

# The batched env runs numba's parallel loops on OpenMP. libgomp's idle workers spin by default, and on a machine
# with other work (a learner, other envs) a spinning or preempted worker stalls every call: 2 threads then ran
# 25x slower than 1 on 2 busy cores; with sleeping idle workers, 2 threads matched 1 there instead of losing to
# it. It must be set before the OpenMP runtime loads; the user's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from cardenvs.core import compile_cache

# Before any jitted function is defined (numba picks a function's cache locator when it is decorated): numba's
# cache lives in a per-user folder, never in the package, and never hands one record layout's machine code to
# another.
compile_cache.install()

from cardenvs.core import compile_notice  # noqa: E402

# A game's first compile on a machine says so in one line (it takes seconds to a minute; later runs load it).
compile_notice.install()

from cardenvs.core.errors import IllegalActionError  # noqa: E402
from cardenvs.core.registry import (  # noqa: E402
    available_envs,
    env,
    get_game,
    module_factories,
    raw_env,
    register,
    unregister,
    vector_env,
)
from cardenvs.core.rng import game_seed  # noqa: E402

__all__ = [
    "IllegalActionError", "available_envs", "env", "game_seed", "get_game", "raw_env", "register", "unregister",
    "vector_env",
]
__version__ = "0.1.0"

#: what an env id looks like; other names never make the registry look for games
_ENV_ID = re.compile(r"[a-z][a-z0-9_]*_v\d+")


def _game_doc(env_id: str) -> str:
    """The docstring of the module that the game was registered from (its package, for a built-in game)."""
    from cardenvs.core.registry import game_module

    name = game_module(env_id)
    doc = importlib.import_module(name).__doc__ if name else None
    return doc or f"The ``{env_id}`` game: ``env``, ``raw_env`` and ``vector_env`` bound to it."


class _EnvModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes ``cardenvs.<env_id>`` for every registered env id: a module of the three factories bound to it."""

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> ModuleSpec | None:
        package, _, env_id = fullname.rpartition(".")
        if package != __name__ or not _ENV_ID.fullmatch(env_id) or env_id not in available_envs():
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # the default module

    def exec_module(self, module: ModuleType) -> None:
        env_id = module.__name__.rpartition(".")[2]
        module.__doc__ = _game_doc(env_id)
        module.env, module.raw_env, module.vector_env = module_factories(env_id)
        module.__all__ = ["env", "raw_env", "vector_env"]


# Last on the path: a real submodule of the package always wins over a made one.
sys.meta_path.append(_EnvModules())


def __getattr__(name: str) -> ModuleType:
    """``cardenvs.<env_id>`` without an import statement (``from cardenvs import slap_v0`` goes through here)."""
    if _ENV_ID.fullmatch(name) and name in available_envs():
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *available_envs()])
