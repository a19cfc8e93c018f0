"""The search best response against a pool agent, on the same deals: does the responder gain at least as much?

``cardenvs exploit``'s search best response (``cardenvs.agents.best_response``) is meant to measure how much an
agent can be beaten, so against any agent it should gain at least what the strongest agent of the leaderboard's
pool already wins from it. This script plays both against one target on the same duplicate deals (one seed, one
number of games): the search BR, then a pool agent (``pimc`` by default), and prints each one's gain with its 95 %
interval and their paired difference, deal by deal.

The gain is the responder's margin over the target halved: in a game of two zero-sum sides it is what the
responder's seats win by deviating from the target (docs/exploitability.md). Games of more than two sides are
refused: their gain needs the target's own games (``cardenvs exploit`` plays them).

An analysis script, not part of the library. Usage::

    python -m experiments.search_br_against_pool gin_slaughtre_v0 heuristic --games 400 --seed 7
    python -m experiments.search_br_against_pool gin_slaughtre_v0 heuristic --search-options rollout=trained,depth=4 \
        --network runs/exploit/gin_slaughtre_v0/heuristic/model.pt
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

import cardenvs
from cardenvs.agents.best_response import DEVIATION_Z, make_search_best_response
from cardenvs.agents.registry import SEARCH_KINDS, checkpoint_sha256, make_agent, shipped_checkpoint
from cardenvs.evaluation.tournament import (
    agent_rewards,
    duplicate_mean_ci,
    plus_minus,
    run_tournament,
    two_sided_zero_sum,
)

#: where the two matches' results files go
RESULTS_DIR = Path("runs/search_br_against_pool")
#: hex digits of the settings' digest in a results file's name
DIGEST_LENGTH = 12


def gains(results_path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Per game of a two-agent match's results file: the first agent's gain over the second (its margin halved),
    and the game's deal."""
    lines = results_path.read_text().splitlines()
    records = sorted((json.loads(line) for line in lines[1:]), key=lambda record: record["game"])
    if not two_sided_zero_sum(records):
        raise ValueError(f"{results_path} is not a match of two zero-sum sides: its gain needs the target's games")
    rewards = agent_rewards(records, 2)
    return (rewards[:, 0] - rewards[:, 1]) / 2, np.array([record["deal"] for record in records])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("target", help="the agent answered (an agent spec)")
    parser.add_argument("--pool-agent", default="pimc", help="the pool agent compared with the search BR")
    parser.add_argument("--search", choices=SEARCH_KINDS, default="pimc", help="the search BR's search")
    parser.add_argument("--search-options", default="", help="the search BR's options (default: the game's)")
    parser.add_argument("--network", default=None, metavar="PATH",
                        help="a learned BR's model (its run's model.pt), in place of the shipped network wherever "
                             "the search's options name it, and (pimc) the choice the search keeps unless it is "
                             "confident of a better one, as cardenvs exploit plays its search BR")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    game = cardenvs.get_game(args.env_id)
    layout = game.observation_layout(game.params_type())
    try:
        target = make_agent(args.target, args.env_id, layout, args.seed)
        network = None if args.network is None else f"ppo:{args.network}"
        responder = make_search_best_response(args.env_id, target, layout, args.search, args.search_options,
                                              seed=args.seed, network=network)
    except ValueError as error:
        parser.error(str(error))
    found = {}
    searched = {"search": args.search, "options": args.search_options, "network": args.network,
                "deviation_z": DEVIATION_Z if args.network is not None else None}
    shipped = shipped_checkpoint(args.env_id)
    shipped_sha256 = None if shipped is None else checkpoint_sha256(shipped)
    for name, lineup in (("search BR", [responder, target]), (args.pool_agent, [args.pool_agent, args.target])):
        # a results file resumes only the match of the same players: its name holds the search BR's settings and
        # the shipped network that `trained` and the search budgets may play
        played = {"shipped_sha256": shipped_sha256, **(searched if name == "search BR" else {})}
        digest = hashlib.sha256(json.dumps(played, sort_keys=True).encode()).hexdigest()[:DIGEST_LENGTH]
        path = RESULTS_DIR / f"{args.env_id}-{args.target}-{name.replace(' ', '_')}-{args.seed}-{digest}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        run_tournament(args.env_id, lineup, args.games, seed=args.seed, progress=False, results_path=path)
        found[name] = gains(path)
        mean, ci95 = duplicate_mean_ci(found[name][0][:, None], found[name][1])
        print(f"{name}: gain against {args.target} {plus_minus(mean[0], ci95[0])} over {args.games} games "
              f"({time.perf_counter() - started:.0f} s)")
    (search, deals), (pool, _) = found.values()
    mean, ci95 = duplicate_mean_ci((search - pool)[:, None], deals)
    print(f"search BR - {args.pool_agent}, paired by deal: {plus_minus(mean[0], ci95[0])}")


if __name__ == "__main__":
    main()
