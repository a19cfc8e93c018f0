"""The rule-based agent against random play in every game, as one markdown table.

For every registered game with its default parameters, ``random`` and ``heuristic`` play a duplicate-deal
tournament (:mod:`cardenvs.evaluation.tournament`); the table lists each agent's mean reward with its 95%
confidence interval, win rate and openskill rating, and says for each game whether the rule-based agent beats
random play with non-overlapping intervals. This is the command behind the README's Baselines table; results
are saved game by game, so an interrupted run resumes when it is run again with the same arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cardenvs
from cardenvs.commands import check_output_file, positive_int_argument, seed_argument
from cardenvs.core.exit_codes import EXIT_INTERRUPTED, EXIT_USAGE

HELP = "rule-based agent vs random play in every game: the Baselines table"
PROGRAM = "cardenvs baselines"
#: the lineup every game is played with
BASELINE_AGENTS = ("random", "heuristic")
DEFAULT_GAMES = 10_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=positive_int_argument, default=DEFAULT_GAMES,
                        help="games per game (rounded up to whole duplicate sets)")
    parser.add_argument("--seed", type=seed_argument, default=0, help="the tournaments' seed, from 0 to 2**64-1")
    parser.add_argument("--markdown", type=Path, default=None, metavar="FILE",
                        help="also write the table to FILE (default: none)")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE",
                        help="also write every result as JSON (default: none)")
    parser.add_argument("--env", nargs="+", default=None, metavar="GAME", help="only these games (default: all)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def baselines_table(results: list) -> str:
    """One markdown table over several tournaments' results, with the verdict of each game."""
    rows = [
        "| game | agent | games | mean reward ± CI95 | win rate | rating (μ ± σ) |",
        "|---|---|---|---|---|---|",
    ]
    verdicts = []
    for result in results:
        for stats in result.ranking():
            rows.append(
                f"| {result.env_id} | {stats.name} | {stats.games} | {stats.mean_reward:+.3f} ± {stats.ci95:.3f} | "
                f"{stats.win_rate:.1%} | {stats.rating:.2f} ± {stats.rating_sigma:.2f} |"
            )
        verdicts.append(f"- {result.env_id}: {verdict(result)}")
    return "\n".join(rows + [""] + verdicts)


def verdict(result) -> str:
    """Whether the rule-based agent's reward interval lies wholly above random play's."""
    heuristic, random = result.stats["heuristic"], result.stats["random"]
    if heuristic.mean_reward - heuristic.ci95 > random.mean_reward + random.ci95:
        return "heuristic beats random (intervals do not overlap)"
    return (
        f"NOT SHOWN: heuristic {heuristic.mean_reward:+.3f} ± {heuristic.ci95:.3f} vs random "
        f"{random.mean_reward:+.3f} ± {random.ci95:.3f}"
    )


def run(args: argparse.Namespace) -> int:
    from cardenvs.evaluation import run_tournament

    env_ids = args.env or cardenvs.available_envs()
    try:
        unknown = [env_id for env_id in env_ids if env_id not in cardenvs.available_envs()]
        if unknown:
            raise ValueError(f"unknown env id {unknown[0]!r}; available: {', '.join(cardenvs.available_envs())}")
        check_output_file(args.markdown, "--markdown")
        check_output_file(args.json, "--json")
        results = []
        for env_id in env_ids:
            result = run_tournament(
                env_id, list(BASELINE_AGENTS), args.games, seed=args.seed, progress=not args.no_progress
            )
            print(f"{env_id}: {result.games} games in {result.seconds:.1f} s ({result.new_games} played now)",
                  file=sys.stderr)
            results.append(result)
        table = baselines_table(results)
        print(table)
        if args.markdown is not None:
            args.markdown.write_text(table + "\n")
        if args.json is not None:
            args.json.write_text(json.dumps({r.env_id: r.to_dict() for r in results}, indent=2) + "\n")
    except (ValueError, OSError) as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"\n{PROGRAM}: interrupted; the games played so far are saved: run the same command again to go on",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0
