"""A game's leaderboard: every shipped agent (random, the rule-based agent, the trained agent, the search agents
where the game has them) in a round robin of duplicate-deal matches, rated with openskill, with each agent's
approximate exploitability: what a best response trained against it for --exploit-minutes wins (``cardenvs
exploit``; needs the train extra). Printed as a markdown table and saved as JSON.

Everything is kept under --results (default runs/leaderboard/GAME): the matches resume game by game, and an agent's
best response is reused when one of the same budget is saved there, so a table can be built a game, or an agent,
at a time (docs/exploitability.md).

Several games are played one after the other, each with a table of its own, and --plot draws a panel per game;
--saved prints and plots the leaderboards earlier runs saved, playing nothing.
--exploit-agents trains best responses for some agents only (those of search agents take long); the others show
one of the same budget saved earlier, or none. --jobs N runs N matches, then N best responses, at a time, each in a
process of its own (a match keeps about one core busy; its results are the same).

Examples::

    cardenvs leaderboard gin_slaughtre_v0 --games 2000 --exploit-minutes 10 --plot gin.png
    cardenvs leaderboard slap_v0 --agents random heuristic trained pimc --exploit-agents random heuristic trained
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from cardenvs.commands import check_output_file, positive_int_argument, seed_argument
from cardenvs.commands.exploit import nonnegative_float_argument, nonnegative_int_argument
from cardenvs.core.exit_codes import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_USAGE
from cardenvs.evaluation import leaderboard
from cardenvs.training import exploit

HELP = "rate every shipped agent of a game in a round robin, with each one's approximate exploitability"
PROGRAM = "cardenvs leaderboard"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    import cardenvs

    parser.add_argument("env_ids", nargs="+", metavar="GAME",
                        help="the games' env ids, each with a leaderboard of its own: "
                             + ", ".join(cardenvs.available_envs()))
    parser.add_argument("--agents", nargs="+", default=None, metavar="SPEC",
                        help="the agents (default: every shipped agent of the game)")
    parser.add_argument("--exploit-agents", nargs="+", default=None, metavar="SPEC",
                        help="the agents whose best response is trained where none of this budget is saved; the "
                             "others show a saved one or none (default: every agent)")
    parser.add_argument("--games", type=positive_int_argument, default=leaderboard.DEFAULT_GAMES,
                        help="games per match")
    parser.add_argument("--seed", type=seed_argument, default=0, help="the matches' seed (the same deals in each)")
    parser.add_argument("--exploit-minutes", type=nonnegative_float_argument,
                        default=leaderboard.DEFAULT_EXPLOIT_MINUTES,
                        help="each best response's training budget in minutes (0: no exploitability)")
    parser.add_argument("--exploit-games", type=positive_int_argument, default=leaderboard.DEFAULT_GAMES,
                        help="games of each best response's final match")
    parser.add_argument("--exploit-curve-points", type=nonnegative_int_argument, default=exploit.DEFAULT_CURVE_POINTS,
                        help="points of each best response's learning curve after the start (fewer save time "
                             "against slow agents)")
    parser.add_argument("--exploit-curve-games", type=positive_int_argument, default=exploit.DEFAULT_CURVE_GAMES,
                        help="games of each learning-curve point")
    parser.add_argument("--exploit-search", choices=(*exploit.SEARCH_KINDS, exploit.NO_SEARCH), default=None,
                        help="each agent's search best response (default: pimc where the game has a resampler)")
    parser.add_argument("--exploit-search-options", default=None, metavar="OPTIONS",
                        help="each search best response's options, name=value,... as the search agent's spec takes "
                             "them; where they name the shipped network (rollout=trained, value=trained), the agent's "
                             "learned best response plays instead (default: the game's search budget)")
    parser.add_argument("--exploit-search-games", type=positive_int_argument, default=exploit.DEFAULT_SEARCH_GAMES,
                        help="games of each search best response's match")
    parser.add_argument("--results", type=Path, default=None, metavar="DIR",
                        help="the folder of the matches, best responses and JSON, with one game only (default: "
                             "runs/leaderboard/GAME)")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE",
                        help="also write the leaderboard as JSON here, with one game only (default: only "
                             "RESULTS/leaderboard.json)")
    parser.add_argument("--plot", type=Path, default=None, metavar="FILE",
                        help="also draw rating against exploitability as a PNG, a panel per game (default: none)")
    parser.add_argument("--saved", action="store_true",
                        help="print (and plot) the leaderboards saved by earlier runs instead of playing")
    parser.add_argument("--jobs", type=positive_int_argument, default=1,
                        help="matches of the round robin and agents' own games, then best responses, run at a time, "
                             "each in a worker process; the matches' results are the same, and a best response "
                             "trains on a share of the cores")
    parser.add_argument("--progress", action="store_true", help="show the matches' progress bars")


def run(args: argparse.Namespace) -> int:

    boards = []
    try:
        if len(args.env_ids) > 1 and (args.results is not None or args.json is not None):
            raise ValueError("--results and --json take one game; leave them out with several games")
        check_output_file(args.json, "--json")
        check_output_file(args.plot, "--plot")
        if not args.saved and args.exploit_minutes > 0:  # a bad search BR is refused before any match
            for env_id in args.env_ids:
                exploit.check_search(env_id, args.exploit_search, args.exploit_search_options or "")
        for env_id in args.env_ids:
            if args.saved:
                boards.append(leaderboard.saved_leaderboard(env_id, args.results))
            else:
                boards.append(leaderboard.run_leaderboard(
                    env_id, args.agents, games=args.games, seed=args.seed, exploit_minutes=args.exploit_minutes,
                    exploit_games=args.exploit_games, results_dir=args.results, exploit=args.exploit_minutes > 0,
                    progress=args.progress, exploit_agents=args.exploit_agents,
                    exploit_settings={"curve_points": args.exploit_curve_points,
                                      "curve_games": args.exploit_curve_games, "search": args.exploit_search,
                                      "search_options": args.exploit_search_options or "",
                                      "search_games": args.exploit_search_games},
                    measure=exploit.leaderboard_exploitability, jobs=args.jobs))
            print(boards[-1].table() + "\n", flush=True)
    except ImportError as error:
        print(f"{PROGRAM}: the best responses need the 'train' extra ({error.name or error} cannot be imported); "
              'install it with: pip install "cardenvs[train]" (without it, leave out the trained agent and pass '
              "--exploit-minutes 0)", file=sys.stderr)
        return EXIT_FAILURE
    except (ValueError, OSError) as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"\n{PROGRAM}: interrupted; the games and best responses finished so far are saved: run the same "
              "command again to go on", file=sys.stderr)
        return EXIT_INTERRUPTED
    try:
        if args.json is not None:
            boards[0].save(args.json)
            print(f"JSON: {args.json}")
        if args.plot is not None:
            leaderboard.plot_rating_vs_exploitability(boards, args.plot)
            print(f"plot: {args.plot}")
    except OSError as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return EXIT_USAGE
    return 0
