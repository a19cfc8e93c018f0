"""Show a recorded game again, step by step.

``FILE`` is a game record (:mod:`cardenvs.records`), as ``cardenvs play --save`` writes. Before each recorded
action the public table is printed, then the action with its name; at the end the final table and rewards.
``--seat K`` adds what seat K saw (its hand, its piece) to every table; ``--delay`` waits between steps.
A file that is not a record, or whose actions do not fit its game, ends with a message and exit code 1.
"""

from __future__ import annotations

import argparse
import sys
import time

from cardenvs.core.exit_codes import EXIT_FAILURE, EXIT_USAGE
from cardenvs.records import GameRecord, replay

HELP = "show a recorded game again, step by step"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a game record (JSON), e.g. from 'cardenvs play --save'")
    parser.add_argument("--seat", type=int, default=None,
                        help="also show what this seat saw, its private view (default: the public table only)")
    parser.add_argument("--delay", type=float, default=0.0, metavar="SECONDS", help="pause between steps, in seconds")


def _table(env, seat: int | None) -> str:
    return env.unwrapped.table_text(seat)


def run(args: argparse.Namespace) -> int:
    if args.delay < 0:
        print("cardenvs replay: --delay must be 0 or more seconds", file=sys.stderr)
        return EXIT_USAGE
    final: dict[str, float] = {}
    env = None
    try:
        record = GameRecord.load(args.file)
        for step, (env, agent, action) in enumerate(replay(record, render_mode="ansi", final_rewards=final)):
            if step == 0 and args.seat is not None and not 0 <= args.seat < len(env.possible_agents):
                print(f"cardenvs replay: --seat must be a seat from 0 to {len(env.possible_agents) - 1}",
                      file=sys.stderr)
                return EXIT_USAGE
            core = env.unwrapped
            print(_table(env, args.seat))
            print(f"\nstep {step + 1}: {agent} chooses {core.game.action_name(core.params, action)} ({action})\n")
            if args.delay:
                time.sleep(args.delay)
    except (ValueError, TypeError, KeyError, IndexError) as error:
        # TypeError, KeyError, IndexError: a malformed deal or parameter value inside an otherwise valid record
        print(f"cardenvs replay: {args.file}: {error}", file=sys.stderr)
        return EXIT_FAILURE
    if env is None:
        env = record.new_env(render_mode="ansi")
    print(_table(env, args.seat))
    if record.rewards is None and not env.unwrapped.state_record.terminated:
        print(f"\nthe record ends here, after {len(record.actions)} actions: the game was not finished")
    else:
        print("\nfinal rewards: " + ", ".join(f"{agent} {reward:+g}" for agent, reward in final.items()))
    return 0
