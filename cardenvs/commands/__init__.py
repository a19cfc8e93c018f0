"""The ``cardenvs`` subcommands, one module each, and what they share.

Every module here defines ``HELP`` (one line), ``add_arguments(parser)`` and ``run(args) -> int`` (a process
exit code, :mod:`cardenvs.core.exit_codes`). User errors print a one-line message and return a non-zero code
(``EXIT_USAGE`` for bad arguments); they never raise. Arguments that can be checked before any game is played
(seeds, output paths) are checked first, so that nothing is played only to be lost.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from cardenvs.core.rng import SEED_LIMIT, SEED_RULE


def seed_argument(text: str) -> int:
    """argparse ``type`` of every ``--seed``: an integer from 0 to 2**64-1."""
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a seed; a seed is {SEED_RULE}") from None
    if not 0 <= seed < SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"{text} is not a seed; a seed is {SEED_RULE}")
    return seed


def positive_int_argument(text: str) -> int:
    """argparse ``type`` of counts that must be at least 1 (games, players)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not allowed; give a whole number of at least 1")
    return value


def check_output_file(path: str | Path | None, flag: str) -> None:
    """ValueError, naming ``flag``, unless a file can be written at ``path`` (``None``: nothing to write).

    Checked before a command plays anything, so that a long run never ends unable to save what it found.
    """
    if path is None:
        return
    path = Path(path)
    folder = path.parent
    if path.is_dir():
        raise ValueError(f"{flag} {path}: that is a folder; give a file name")
    if not folder.is_dir():
        raise ValueError(f"{flag} {path}: the folder {folder} does not exist; create it first")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ValueError(f"{flag} {path}: not writable")
