"""Print a game's rules page: the exact specification (numbered rules, parameters, observation and action tables).

The pages are installed with the package (``cardenvs.rules``; in the repository, ``docs/rules/<game>.md``), so
this works from a wheel as from a checkout. A game registered from outside the package has no page here.
"""

from __future__ import annotations

import argparse
import sys
from importlib.resources import files

import cardenvs
from cardenvs.core.exit_codes import EXIT_USAGE

HELP = "print a game's rules page (the exact specification)"


def rules_text(env_id: str) -> str:
    """The Markdown rules page of the registered game ``env_id``.

    Raises:
        ValueError: an unknown env id, or a game with no page installed with the package.
    """
    if env_id not in cardenvs.available_envs():
        raise ValueError(f"unknown env id {env_id!r}; choose from {', '.join(cardenvs.available_envs())}")
    page = files("cardenvs.rules") / f"{cardenvs.get_game(env_id).name}.md"
    if not page.is_file():
        raise ValueError(f"{env_id} has no rules page installed with cardenvs (a game registered from outside)")
    return page.read_text(encoding="utf-8")


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
