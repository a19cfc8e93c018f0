"""Does a shipped network's value read as a game value? Its mean over positions, seat by seat, against the returns.

A search that stops its playouts at a depth (``depth=N``) adds the value network's estimate of every seat's return
from there on (docs/search.md). That estimate was learnt from the network's training games, half of them against
its league, so it need not be the value of the game between two copies of the network. This script plays games
between two copies (the network in every seat, its most probable action) on the batched engine and, at every step,
values the position from each seat's own observation as the search does. It prints the mean value of the seat to
move, of the other seats, and of all seats added up, beside the mean of the seats' returns added up over the same
games: a game value's sum over seats has that mean.

An analysis script, not part of the library. Usage::

    python -m experiments.value_sums gin_slaughtre_v0 stabby_jack_v0 --games 64 --steps 300
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np

import cardenvs
from cardenvs.agents.registry import make_agent
from cardenvs.agents.search import Playouts


def value_sums(env_id: str, games: int, steps: int, seed: int) -> dict[str, float]:
    """Play ``games`` games in lockstep for ``steps`` steps (an ended game is dealt again) between copies of the
    shipped network; the mean value of the seat to move, of the other seats, of all seats added up, and the mean
    sum of the seats' returns over the games that ended."""
    game = cardenvs.get_game(env_id)
    params = game.params_type()
    agent = make_agent("trained", env_id, game.observation_layout(params), seed)
    # the search's own valuation of every seat where a playout stops (the shipped network's value head)
    playouts = Playouts(env_id, params, "trained", seed, depth=1)
    venv = cardenvs.vector_env(env_id, games)
    observations, masks, players = venv.reset(seed=seed)
    seats = venv.num_players
    returns = np.zeros((games, seats))
    to_move, others, totals, ended_totals = [], [], [], []
    next_seed = seed + games
    for _ in range(steps):
        values = playouts._values(venv, games)
        moving = np.zeros((games, seats), np.bool_)
        moving[np.arange(games), players] = True
        to_move.append(values[moving])
        others.append(values[~moving])
        totals.append(values.sum(axis=1))
        actions = np.asarray(agent.act_batch(observations, masks), np.int64)
        observations, masks, players, rewards, terminated, truncated = venv.step(actions)
        returns += rewards
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            ended_totals.append(returns[ended].sum(axis=1))
            returns[ended] = 0
            observations, masks, players = venv.reset_games(ended, list(range(next_seed, next_seed + ended.size)))
            next_seed += ended.size
    return {
        "seat to move": float(np.concatenate(to_move).mean()),
        "other seats": float(np.concatenate(others).mean()),
        "all seats": float(np.concatenate(totals).mean()),
        "returns, all seats": float(np.concatenate(ended_totals).mean()) if ended_totals else float("nan"),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_ids", nargs="+")
    parser.add_argument("--games", type=int, default=64, help="games in lockstep")
    parser.add_argument("--steps", type=int, default=300, help="steps of the lockstep batch")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print("| game | value: seat to move | other seats | all seats | returns: all seats |")
    print("|---|---:|---:|---:|---:|")
    for env_id in args.env_ids:
        found = value_sums(env_id, args.games, args.steps, args.seed)
        print(f"| {env_id} | " + " | ".join(f"{value:+.3f}" for value in found.values()) + " |")


if __name__ == "__main__":
    main()
