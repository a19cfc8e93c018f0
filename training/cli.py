"""What the command lines of the training scripts and benchmarks share: tyro markers for their dataclass fields
and the checks of the options the trainers share.

Each script's options are the fields of one dataclass, and ``tyro`` builds the command line from it (a field's
docstring is its option's help). The markers here cover what tyro cannot read from a field alone: an ``--env-id``
(or a positional ``GAME``) that takes any registered game, and a default that ``--help`` describes in words (a
None that means "the game's", "every CPU", ...). They are used inside ``Annotated`` annotations, which tyro
evaluates only when it parses, so importing a script needs no tyro. The checks: numbers in range, the agents of
training games, the torch device.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any, Literal

import cardenvs


def _env_choices(many: bool) -> Callable[[], Any]:
    """The type of an option that takes registered env ids, read when called (at parsing)."""

    def choices() -> Any:
        one = Literal[tuple(cardenvs.available_envs())]
        return list[one] if many else one

    return choices


def registered_env(default: str, many: bool = False) -> Any:
    """The tyro marker of an option that takes registered env ids, listed by ``--help``.

    The ids are read when the command line is parsed, so that games registered after the script was imported count.

    Args:
        default: what ``--help`` shows as the default.
        many: the option takes one or more env ids (a ``list[str]`` field).
    """
    import tyro

    return tyro.conf.arg(constructor_factory=_env_choices(many), help_behavior_hint=f"(default: {default})")


def positional_game() -> Any:
    """The tyro marker of a positional ``GAME`` that takes one registered env id."""
    import tyro

    return tyro.conf.arg(metavar="GAME", constructor_factory=_env_choices(False))


def positional() -> Any:
    """The tyro marker of a positional argument (written without ``--name``)."""
    import tyro

    return tyro.conf.Positional


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
        return (f"needs the '{extra}' extra (tyro cannot be imported); install it with: "
                f"pip install \"cardenvs[{extra}]\"")
    return None


def option(**settings: Any) -> Any:
    """``tyro.conf.arg(**settings)``, the marker of one option (its ``name``, ``metavar``, ...), tyro imported only
    when the annotation is evaluated."""
    import tyro

    return tyro.conf.arg(**settings)


def check_options(args: Any, rules: Sequence[tuple[Sequence[str], Callable[[Any], bool], str]]) -> None:
    """Raise ValueError naming the first option of ``args`` that breaks its rule (``--NAME must be ..., got ...``).

    Args:
        args: the parsed options (a dataclass whose fields are the options).
        rules: ``(field names, test of a value, what a value must be)`` triples, checked in order.
    """
    for names, test, wording in rules:
        for name in names:
            value = getattr(args, name)
            if not test(value):
                raise ValueError(f"--{name.replace('_', '-')} must be {wording}, got {value}")


def check_training_agents(option: str, specs: Sequence[str], others: Sequence[str] = ()) -> None:
    """Raise ValueError unless every spec names an agent that can sit at a training game: a known kind, no human,
    and a checkpoint path that exists.

    Args:
        option: the option the specs came from, for the message.
        specs: agent specs (``random``, ``heuristic``, ``ppo:PATH``, ...).
        others: entries that are not agent specs and need no check (e.g. the trainer's ``snapshots``).
    """
    from cardenvs.agents.registry import check_spec

    for spec in specs:
        if spec in others:
            continue
        check_spec(spec)
        kind, _, path = spec.partition(":")
        if kind == "human":
            raise ValueError(f"{option}: a human cannot play training games; use random, heuristic or ppo:PATH")
        if kind in ("ppo", "rllib") and not Path(path).exists():
            raise ValueError(f"{option} {spec}: nothing at {path}")


def torch_device(choice: str) -> str:
    """The torch device of a ``--device`` choice: ``auto`` is ``cuda`` where torch sees a CUDA device, else ``cpu``.

    Args:
        choice: ``auto``, ``cpu`` or ``cuda``.

    Raises:
        ValueError: ``cuda`` where torch sees no CUDA device (or torch is missing).
    """
    try:
        import torch

        cuda = torch.cuda.is_available()
    except ImportError:
        cuda = False
    if choice == "cuda" and not cuda:
        raise ValueError("--device cuda: torch sees no CUDA device here; use --device cpu (or auto)")
    return "cuda" if choice == "cuda" or (choice == "auto" and cuda) else "cpu"
