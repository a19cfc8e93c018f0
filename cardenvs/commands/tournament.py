"""Rate two or more agents in a duplicate-deal tournament: a table of results and a ladder.

Every deal is replayed under every arrangement of the agents over the seats; the table gives each agent's mean
reward with its 95% confidence interval, win rate and openskill rating (semantics:
:mod:`cardenvs.evaluation.tournament`; docs/evaluation.md is the guide). Results are saved game by game, so an
interrupted run resumes where it stopped when it is run again with the same arguments.

Agents: random, heuristic (the game's rule-based agent), trained (the game's shipped self-play network, needs
torch), ppo:PATH (a self-play .pt model or a MaskablePPO .zip checkpoint, needs the train extra), rllib:PATH (an
RLlib checkpoint of training/rllib_train.py, needs the rllib extra), and the search agents pimc[:OPTIONS] and
ismcts[:OPTIONS] (e.g. pimc:determinizations=64,rollouts=4,rollout=random; docs/search.md). To measure an agent
against itself, name it twice. People play with ``cardenvs play``, not in tournaments (every deal comes back with
the seats swapped, so a person would know the cards).

Example::

    cardenvs tournament gin_slaughtre_v0 --agents random heuristic --games 2000 --json out.json --plot out.png
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cardenvs.commands import check_output_file, positive_int_argument, seed_argument
from cardenvs.core.exit_codes import EXIT_INTERRUPTED, EXIT_USAGE

HELP = "rate agents in a duplicate-deal tournament (mean reward with CI95, win rate, rating)"
PROGRAM = "cardenvs tournament"
DEFAULT_GAMES = 1000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    import cardenvs

    parser.add_argument("env_id", metavar="GAME", help="the game's env id: " + ", ".join(cardenvs.available_envs()))
    parser.add_argument(
        "--agents", nargs="+", required=True, metavar="SPEC",
        help="two or more agents in lineup order: random, heuristic, trained, ppo:PATH, rllib:PATH, pimc[:OPTIONS], "
        "ismcts[:OPTIONS]",
    )
    parser.add_argument("--games", type=positive_int_argument, default=DEFAULT_GAMES,
                        help="games to play (rounded up to whole duplicate sets)")
    parser.add_argument("--seed", type=seed_argument, default=0,
                        help="the tournament's seed, from 0 to 2**64-1 (deals and agents' generators)")
    parser.add_argument("--players", type=positive_int_argument, default=None,
                        help="number of players, where the game allows (default: the game's)")
    parser.add_argument(
        "--params-json", default=None, metavar="JSON",
        help='other game parameters as a JSON object, e.g. \'{"jokers": true}\' (default: the game\'s)',
    )
    parser.add_argument("--json", type=Path, default=None, metavar="FILE",
                        help="also write the results as JSON (default: none)")
    parser.add_argument("--plot", type=Path, default=None, metavar="FILE",
                        help="also draw the ladder as a PNG (default: none)")
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


def check_outputs(args: argparse.Namespace) -> None:
    """ValueError unless every file the tournament is to write can be written: checked before it plays."""
    check_output_file(args.json, "--json")
    check_output_file(args.plot, "--plot")
    if args.results is not None and args.results.is_dir():
        raise ValueError(f"--results {args.results}: that is a folder; give a file name")


def run(args: argparse.Namespace) -> int:
    from cardenvs.evaluation import run_tournament
    from cardenvs.evaluation.plot import plot_ladder

    try:
        check_outputs(args)
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
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"\n{PROGRAM}: interrupted; the games played so far are saved: run the same command again to go on",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0
