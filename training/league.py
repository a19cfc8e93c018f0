"""League seating, shared by the self-play trainer and RLlib's batched sampler: in each game, which seats learn and
which league agent plays the others.

A share of the games are league games: one side (the seats ``s`` with ``s % 2`` drawn) learns and one league entry,
drawn with equal chance per entry name, plays the other side; every seat of the other games learns (self-play).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def draw_seating(rng: np.random.Generator, rows: np.ndarray, learner: np.ndarray, opponent: np.ndarray,
                 entries: Sequence[str], league_share: float) -> None:
    """New seats for the games at ``rows``, written into ``learner`` and ``opponent``.

    Args:
        rng: the draws' generator.
        rows: the games to seat anew.
        learner: bool ``[N, P]``: ``learner[i, s]`` when seat ``s`` of game ``i`` learns (written at ``rows``).
        opponent: ``[N]``: the index into ``entries`` of game ``i``'s league agent, -1 in a self-play game (written
            at ``rows``).
        entries: each league agent's entry name; agents of one name (the self-play trainer's snapshots) count as
            one entry in the draw. Empty: every game is self-play.
        league_share: the chance that a game is a league game, in [0, 1].
    """
    if rows.size == 0:
        return
    side = rng.integers(0, 2, rows.size)
    league_game = rng.random(rows.size) < league_share if entries else np.zeros(rows.size, bool)
    names = sorted(set(entries), key=list(entries).index)
    entry = rng.integers(0, max(len(names), 1), rows.size)
    pick = np.full(rows.size, -1)
    for k, name in enumerate(names):
        chosen = league_game & (entry == k)
        pick[chosen] = rng.choice(np.flatnonzero(np.array(entries) == name), int(chosen.sum()))
    learner[rows] = ~league_game[:, None] | ((np.arange(learner.shape[1])[None, :] % 2) == side[:, None])
    opponent[rows] = pick
