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

Module style works too: ``from cardenvs import slabberjan_v0; slabberjan_v0.env(num_players=5)``.
"""

import os

# The batched env runs numba's parallel loops on OpenMP. libgomp's idle workers spin by default, and on a machine
# with other work (a learner, other envs) a spinning or preempted worker stalls every call: 2 threads then ran
# 25x slower than 1 on 2 busy cores; with sleeping idle workers, 2 threads matched 1 there instead of losing to
# it. It must be set before the OpenMP runtime loads; the user's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from cardenvs.core import compile_cache

# Before any jitted function is defined (numba picks a function's cache locator when it is decorated): numba's
# cache must never hand one record layout's machine code to another.
compile_cache.install()

from cardenvs.core.errors import IllegalActionError  # noqa: E402
from cardenvs.core.registry import available_envs, env, get_game, raw_env, vector_env  # noqa: E402
from cardenvs.core.rng import game_seed  # noqa: E402

__all__ = ["IllegalActionError", "available_envs", "env", "game_seed", "get_game", "raw_env", "vector_env"]
__version__ = "0.1.0"
