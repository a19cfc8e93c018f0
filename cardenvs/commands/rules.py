"""Print a game's rules page: the exact specification (numbered rules, parameters, observation and action tables).

The pages are installed with the package (``cardenvs.rules``; in the repository, ``docs/rules/<game>.md``), so
this works from a wheel as from a checkout. A game registered from outside the package has no page here.
"""

from __future__ import annotations

import argparse
import sys

import cardenvs
from cardenvs.core.exit_codes import EXIT_USAGE
from cardenvs.core.registry import rules_text

HELP = "print a game's rules page (the exact specification)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env_id", metavar="GAME", help=f"env id, one of: {', '.join(cardenvs.available_envs())}")


def run(args: argparse.Namespace) -> int:
    try:
        text = rules_text(args.env_id)
    except ValueError as error:
        print(f"cardenvs rules: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(text, end="")
    return 0
