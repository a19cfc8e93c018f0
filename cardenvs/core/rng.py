"""The per-game random generator, kept inside each game's state record.

Every state record has a ``rng`` field (uint64). It holds the counter of a SplitMix64 generator
(Steele, Lea and Flood, 2014): each draw adds the golden-ratio increment and mixes the counter. Because the
generator lives in the record, a game's trajectory depends only on its seed and its actions, never on which
front end, batch size or thread runs it, and a copied state continues identically.

All arithmetic is done in uint64, where numba wraps silently. Under ``NUMBA_DISABLE_JIT=1`` the same code runs
on numpy scalars, which wrap too but warn; those warnings are silenced for this module only.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numba import njit

# Silence numpy's wrap-around warnings when the generator runs as plain Python (NUMBA_DISABLE_JIT=1).
warnings.filterwarnings("ignore", message="overflow encountered", category=RuntimeWarning, module=__name__)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
#: the 53 bits of a float64's mantissa, for a uniform draw in [0, 1)
_MANTISSA_BITS = np.uint64(53)
_DROPPED_BITS = np.uint64(64 - 53)


@njit(cache=True)
def mix64(z):
    """SplitMix64's finaliser: a bijective scramble of a uint64."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True)
def seed_state(state, seed):
    """Start the generator of ``state`` from a uint64 seed."""
    state.rng = mix64(np.uint64(seed))


@njit(cache=True)
def next_u64(state):
    """The next 64 random bits from the generator of ``state``."""
    state.rng = state.rng + _GOLDEN
    return mix64(state.rng)


@njit(cache=True)
def rand_below(state, n):
    """A uniform integer in ``[0, n)`` for ``1 <= n < 2**32`` (bias below ``n / 2**32``)."""
    high = next_u64(state) >> _S32
    return np.int64((high * np.uint64(n)) >> _S32)


@njit(cache=True)
def rand_unit(state):
    """A uniform float in ``[0, 1)`` from the generator of ``state`` (53 random bits)."""
    return float(next_u64(state) >> _DROPPED_BITS) / float(np.uint64(1) << _MANTISSA_BITS)


@njit(cache=True)
def binomial(total, count):
    """The binomial coefficient C(total, count) as a float (0 outside ``0 <= count <= total``): the weights of the
    exact samplers that count the deals agreeing with a seat's evidence."""
    if count < 0 or count > total:
        return 0.0
    result = 1.0
    for i in range(count):
        result = result * (total - i) / (i + 1)
    return result


@njit(cache=True)
def shuffle(state, values, count):
    """Shuffle ``values[:count]`` in place (Fisher-Yates)."""
    for i in range(count - 1, 0, -1):
        j = rand_below(state, i + 1)
        tmp = values[i]
        values[i] = values[j]
        values[j] = tmp


#: every seed is an integer below this (a game's generator starts from 64 bits)
SEED_LIMIT = 2**64
#: the seed rule of every front end and command, in words
SEED_RULE = f"an integer from 0 to 2**64-1 ({SEED_LIMIT - 1})"


def checked_seed(seed: Any) -> int:
    """``seed`` as an int if it follows :data:`SEED_RULE`; ValueError saying the rule otherwise."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"a seed must be {SEED_RULE}; got {seed!r}")
    return int(seed)


def offset_seed(seed: int, offset: int) -> int:
    """The seed ``offset`` places after ``seed``, wrapping past 2**64-1: the seeds a run derives from its own (a
    league agent's, an evaluation's, the final matches') follow :data:`SEED_RULE` whatever the run's seed.

    Args:
        seed: a seed (:data:`SEED_RULE`).
        offset: how far on, 0 or more.
    """
    return (int(seed) + int(offset)) % SEED_LIMIT


def narrowed_seed(seed: int, limit: int) -> int:
    """A seed of :data:`SEED_RULE` mapped into ``[0, limit)``, for a library that takes smaller seeds (numpy's legacy
    seeding takes 32 bits): every seed is accepted, and one below ``limit`` is passed on as it is.

    Args:
        seed: a seed (:data:`SEED_RULE`).
        limit: the library's seeds are below this.
    """
    return int(seed) % limit


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` in a batch reset with ``seed``.

    ``vector_env(...).reset(seed)`` starts game ``i`` exactly as ``env.reset(seed=game_seed(seed, i))`` would.
    Different batch seeds give unrelated games (no overlap between ``seed`` and ``seed + 1``).
    """
    mixed = mix64(np.uint64(seed % 2**64) ^ mix64(np.uint64(index % 2**64) + _GOLDEN))
    return int(mixed)
