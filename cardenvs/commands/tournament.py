"""``cardenvs tournament GAME --agents A B ... --games N``: a duplicate-deal tournament, its table and ladder.

Every deal is replayed under every arrangement of the agents over the seats; the table gives each agent's mean
reward with its 95% confidence interval, win rate and openskill rating (semantics:
:mod:`cardenvs.evaluation.tournament`). Results are saved game by game, so an interrupted run resumes where it
stopped when it is run again with the same arguments.

Example::

    cardenvs tournament gin_slaughtre_v0 --agents random heuristic --games 2000 --json out.json --plot out.png
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = "rate agents in a duplicate-deal tournament (mean reward with CI95, win rate, rating)"
PROGRAM = "cardenvs tournament"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env_id", metavar="GAME", help="the game's env id, e.g. gin_slaughtre_v0")
    parser.add_argument(
        "--agents", nargs="+", required=True, metavar="SPEC",
        help="agents in lineup order: random, heuristic or ppo:PATH",
    )
    parser.add_argument("--games", type=int, default=1000, help="games to play (rounded up to whole duplicate sets)")
    parser.add_argument("--seed", type=int, default=0, help="the tournament's seed (deals and agents' generators)")
    parser.add_argument("--players", type=int, default=None, help="number of players (where the game allows)")
    parser.add_argument(
        "--params-json", default=None, metavar="JSON", help='other game parameters, e.g. \'{"jokers": true}\''
    )
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="write the results as JSON")
    parser.add_argument("--plot", type=Path, default=None, metavar="FILE", help="write the ladder as a PNG")
    parser.add_argument(
        "--results", type=Path, default=None, metavar="FILE",
        help="the game-by-game results file (default: runs/tournaments/<game>-<hash>.jsonl)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def parse_params(text: str | None) -> dict:
    """The ``--params-json`` object; ValueError unless it is a JSON object."""
    if text is None:
        return {}
    try:
        params = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"--params-json is not valid JSON: {error}") from None
    if not isinstance(params, dict):
        raise ValueError(f"--params-json must be a JSON object of game parameters, got {text!r}")
    return params


def run(args: argparse.Namespace) -> int:
    from cardenvs.evaluation import run_tournament
    from cardenvs.evaluation.plot import plot_ladder

    try:
        result = run_tournament(
            args.env_id, args.agents, args.games, seed=args.seed, num_players=args.players,
            params=parse_params(args.params_json), progress=not args.no_progress, results_path=args.results,
        )
        print(result.table())
        if result.head_to_head is not None:
            print(f"\n{result.head_to_head.summary()}")
        print(f"\nresults: {result.results_path} ({result.new_games} games played now, {result.seconds:.1f} s)")
        if args.json is not None:
            args.json.write_text(json.dumps(result.to_dict(), indent=2) + "\n")
            print(f"JSON: {args.json}")
        if args.plot is not None:
            plot_ladder(result, args.plot)
            print(f"ladder: {args.plot}")
    except (ValueError, OSError) as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return 2
    return 0
