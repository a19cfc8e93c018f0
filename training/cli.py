"""What the command lines of the training scripts and benchmarks share: tyro markers for their dataclass fields.

Each script's options are the fields of one dataclass, and ``tyro`` builds the command line from it (a field's
docstring is its option's help). The markers here cover what tyro cannot read from a field alone: an ``--env-id``
that takes any registered game, and a default that ``--help`` describes in words (a None that means "the game's",
"every CPU", ...). They are used inside ``Annotated`` annotations, which tyro evaluates only when it parses, so
importing a script needs no tyro.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from typing import Any, Literal, TypeVar

import cardenvs

OptionsT = TypeVar("OptionsT")


def registered_env(default: str, many: bool = False) -> Any:
    """The tyro marker of an option that takes registered env ids, listed by ``--help``.

    The ids are read when the command line is parsed, so that games registered after the script was imported count.

    Args:
        default: what ``--help`` shows as the default.
        many: the option takes one or more env ids (a ``list[str]`` field).
    """
    import tyro

    def choices() -> Any:
        one = Literal[tuple(cardenvs.available_envs())]
        return list[one] if many else one

    return tyro.conf.arg(constructor_factory=choices, help_behavior_hint=f"(default: {default})")


def shown_default(text: str | Callable[[], str], metavar: str) -> Any:
    """The tyro marker of an option whose default ``--help`` describes in words instead of printing the value.

    Args:
        text: what ``--help`` shows as the default, or a function that says it (called only when shown).
        metavar: what the option takes, as ``--help`` writes it (instead of tyro's ``{None}|INT`` for ``int | None``).
    """
    import tyro

    hint = (lambda _: f"(default: {text()})") if callable(text) else f"(default: {text})"
    return tyro.conf.arg(metavar=metavar, help_behavior_hint=hint)


def invocation(spec: ModuleSpec | None) -> str:
    """How a script was started, for the commands it prints: ``python -m cardenvs.training.ppo`` or ``python PATH``.

    Args:
        spec: the script module's ``__spec__`` (None when it was run by its path).
    """
    return f"python {shlex.quote(sys.argv[0])}" if spec is None else f"python -m {spec.name}"


def tyro_missing(extra: str) -> str | None:
    """The one-line message for a missing ``tyro`` (None when it imports), naming the extra that installs it.

    Args:
        extra: the optional-dependency group of pyproject.toml the script needs (``train``, ``rllib``, ``dev``).
    """
    try:
        import tyro  # noqa: F401
    except ImportError:
        return f"needs the '{extra}' extra (tyro cannot be imported); install it with: pip install \"cardenvs[{extra}]\""
    return None


def option(**settings: Any) -> Any:
    """``tyro.conf.arg(**settings)``, the marker of one option (its ``name``, ``metavar``, ...), tyro imported only
    when the annotation is evaluated."""
    import tyro

    return tyro.conf.arg(**settings)


def run_report(options_type: type[OptionsT], doc: str | None, report: Callable[[OptionsT], str],
               argv: Sequence[str] | None = None) -> int:
    """The ``main`` of an analysis script: parse ``argv`` into ``options_type`` and print ``report(options)``.

    A ValueError from ``report`` is the user's error: its message goes to stderr and the exit status is 2.

    Args:
        options_type: the script's options dataclass (each field an ``--option``).
        doc: the script's module docstring; its first paragraph is the ``--help`` description.
        report: what the script computes and prints for the options.
        argv: the command line (None: ``sys.argv``).
    """
    import tyro

    options = tyro.cli(options_type, args=argv, description=(doc or "").split("\n\n")[0])
    try:
        text = report(options)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(text)
    return 0
