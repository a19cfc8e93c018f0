"""Run by tests/test_compile_cache.py in fresh interpreters: play fixed trajectories and print them as JSON.

``python tests/cache_probe.py compile SET [ENV_ID ...]`` starts each game named (every registered game when none
is) with its parameter set SET (``a`` or ``b``), which compiles and caches its kernels; ``python
tests/cache_probe.py play [ENV_ID ...]`` starts set ``a`` of those games, then plays set ``b`` and then set ``a``
of each and prints the trajectories. Each compile process gives its record types one pinned numba type code
(:func:`pin_record_type_code`), so that a naming by type code would collide every time. Actions are a fixed
function of the legal mask, so a trajectory depends only on the rules that ran. The AEC env's kernels stand for
all: the batched env's take their records through the same record types, and compiling both would double the
test's time.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys

import numpy as np

import cardenvs

#: set to 1 to name record types as numba itself does (by type code): the naming that let layouts collide, for the
#: test that shows this sequence catches it
NUMBA_NAMING_VARIABLE = "CACHE_PROBE_NUMBA_NAMING"
if os.environ.get(NUMBA_NAMING_VARIABLE) == "1":
    from numba.core import types

    types.Record.mangling_args = property(lambda record: (type(record).__name__, (record._code,)))


def parameter_sets(env_id: str) -> dict[str, dict]:
    """Two of the game's example parameter sets, ``a`` and ``b``, of different record layouts where it has them.

    (Clabber has one layout for all parameters; its two sets still put records of one game beside another's in
    the same cache.)
    """
    game = cardenvs.get_game(env_id)
    first, *others = game.example_params

    def layout(params: dict) -> np.dtype:
        return game.state_dtype(game.make_params(**params))

    second = next((p for p in others if layout(p) != layout(first)), others[0])
    return {"a": first, "b": second}


SEED = 744720527
AEC_STEPS = 300
#: the numba type code every compile process gives its record type: above any code numba hands out here
PINNED_TYPE_CODE = 2**31
_pinned: list = []  # numba interns types weakly: keep the pinned one alive so that the kernels compile with it


def pin_record_type_code(env_id: str, params: dict) -> None:
    """Give the record type of ``params`` the same numba type code in every compile process.

    numba's own naming of a record type is its type code, a per-process counter; whether two processes that
    compile two layouts hand out the same code depends on everything else each one typed first. Pinning it
    makes the worst case certain: under that naming both layouts' kernels would be cached under one name.
    """
    from numba.np.numpy_support import from_dtype

    game = cardenvs.get_game(env_id)
    record = from_dtype(game.state_dtype(game.make_params(**params)))
    record._code = PINNED_TYPE_CODE
    _pinned.append(record)


def _digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()[:16]


def aec_trajectory(env_id: str, params: dict) -> list:
    """Agent, action, rewards and observation digest of every step of a game played by a fixed policy."""
    env = cardenvs.env(env_id, **params)
    env.reset(seed=SEED)
    steps = []
    for count, agent in enumerate(env.agent_iter(AEC_STEPS)):
        observation, reward, terminated, truncated, _ = env.last()
        legal = np.flatnonzero(observation["action_mask"])
        action = None if terminated or truncated else int(legal[(count * 7) % len(legal)])
        steps.append([agent, action, reward, _digest(observation["observation"])])
        env.step(action)
    return steps


def main(argv: list[str]) -> None:
    command, *rest = argv
    if command == "compile":
        game_set, *env_ids = rest
        for env_id in env_ids or cardenvs.available_envs():
            params = parameter_sets(env_id)[game_set]
            pin_record_type_code(env_id, params)
            cardenvs.env(env_id, **params).reset(seed=0)
        return
    sets = {env_id: parameter_sets(env_id) for env_id in rest or cardenvs.available_envs()}
    for env_id in sets:
        cardenvs.env(env_id, **sets[env_id]["a"]).reset(seed=0)
    result = {
        f"{env_id}/{name}": aec_trajectory(env_id, sets[env_id][name])
        for name in ("b", "a")
        for env_id in sets
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
