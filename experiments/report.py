"""The ``main`` the analysis scripts share: parse the command line into an options dataclass, print a report."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

from cardenvs.core.exit_codes import EXIT_USAGE

OptionsT = TypeVar("OptionsT")



def run_report(options_type: type[OptionsT], doc: str | None, report: Callable[[OptionsT], str],
               argv: Sequence[str] | None = None) -> int:
    """The ``main`` of an analysis script: parse ``argv`` into ``options_type`` and print ``report(options)``.

    A ValueError from ``report`` is the user's error: its message goes to stderr and the exit status is 2.

    Args:
        options_type: the script's options dataclass (each field an ``--option``, its docstring the help).
        doc: the script's module docstring; its first paragraph is the ``--help`` description.
        report: what the script computes and prints for the options.
        argv: the command line (None: ``sys.argv``).

    Returns:
        The exit status: 0, or 2 when ``report`` raised a ValueError.
    """
    import tyro

    options = tyro.cli(options_type, args=argv, description=(doc or "").split("\n\n")[0])
    try:
        text = report(options)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    print(text)
    return 0
