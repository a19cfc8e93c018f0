"""What the command lines of the trainers and benchmarks share: the PPO options every trainer has
(:class:`PPOOptions`), tyro markers for their dataclass fields, parsing (a positional ``GAME`` whose recipe gives the
defaults), and the checks and wording of their options. Each trainer's own command line is in its module
(``cardenvs train``'s in :mod:`cardenvs.training.selfplay`); this module is the lowest of the package's and imports
none of the others.

Each script's options are the fields of one dataclass, and ``tyro`` builds the command line from it (a field's
docstring is its option's help). The markers here cover what tyro cannot read from a field alone: an ``--env-id``
(or a positional ``GAME``) that takes any registered game, and a default that ``--help`` describes in words (a
None that means "the game's", "every CPU", ...). They are used inside ``Annotated`` annotations, which tyro
evaluates only when it parses, so importing a trainer needs no tyro. The checks: numbers in range, the agents of
training games, the torch device.
"""

from __future__ import annotations

import math
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any, Literal

import cardenvs
from cardenvs.core.rng import SEED_LIMIT, SEED_RULE

#: a check of options: (field names, test of a value, what a value must be)
Rule = tuple[Sequence[str], Callable[[Any], bool], str]


def at_least(least: int, *names: str) -> Rule:
    """The check that each of ``names`` is ``least`` (0 or 1) or more."""
    return names, lambda value: value >= least, "0 or more" if least == 0 else f"at least {least}"


@dataclass
class PPOOptions:
    """The PPO options of every trainer (``cardenvs train``, the MaskablePPO and RLlib adapters), defined once: each
    field is the ``--option`` of the same name and its docstring the option's help.

    A trainer's options dataclass derives from this one; where its defaults differ it declares the field again with
    its own default only (tyro reads the help from here).
    """

    minibatch_size: int = 4096
    """decisions per gradient step"""
    update_epochs: int = 2
    """passes over each batch of collected decisions"""
    learning_rate: float = 1e-3
    """Adam's step size (cardenvs train and rllib_train anneal it linearly to 0 over the run)"""
    gamma: float = 0.995
    """discount per decision of a seat, in [0, 1]"""
    gae_lambda: float = 0.95
    """GAE's bias/variance trade-off, in [0, 1]"""
    clip_coef: float = 0.2
    """PPO's policy-ratio clip"""
    ent_coef: float = 0.01
    """weight of the entropy bonus (exploration)"""
    vf_coef: float = 0.5
    """weight of the value loss"""
    max_grad_norm: float = 0.5
    """gradients are clipped to this global norm"""
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    """hidden layer sizes of the policy and value networks"""


#: the checks of the PPO options every trainer has (:class:`PPOOptions`), worded alike
PPO_CHECKS: tuple[Rule, ...] = (
    (("learning_rate", "clip_coef", "max_grad_norm"), lambda v: math.isfinite(v) and v > 0, "a positive number"),
    (("gamma", "gae_lambda"), lambda v: 0 <= v <= 1, "in [0, 1]"),
    (("ent_coef", "vf_coef"), lambda v: math.isfinite(v) and v >= 0, "0 or more"),
    (("hidden",), lambda v: bool(v) and min(v) >= 1, "one or more positive layer sizes"),
)
#: the check of every trainer's ``--seed``: the project's seed rule (None, where a trainer allows it, is unseeded)
SEED_CHECK: Rule = (("seed",), lambda v: v is None or 0 <= v < SEED_LIMIT, SEED_RULE)
#: the check of ``--league-share``, the share of training games with a league agent (the trainers that have a league)
LEAGUE_SHARE_CHECK: Rule = (("league_share",), lambda v: 0 <= v <= 1, "in [0, 1]")


def flag(name: str) -> str:
    """A field's command-line option: ``total_decisions`` -> ``--total-decisions``."""
    return "--" + name.replace("_", "-")


def shown(value: Any) -> str:
    """A value as it is written on the command line."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return str(value)


def resume_note(may_change: Sequence[str]) -> str:
    """The paragraph of a trainer's ``--help`` on resumed runs; ``may_change``: the options they may take anew."""
    return ("The run's arguments are stored in <run-dir>/run.json when it starts. A resumed run (--resume, "
            f"--resume-if-present) uses them; of the options given again only "
            f"{', '.join(flag(name) for name in may_change)} may change, the others must repeat the stored value.")


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


def parse_game_command(run_class: type, argv: Sequence[str], prog: str, description: str,
                       game_defaults: Callable[[str | None], dict[str, Any]], defaults: Any = None) -> Any:
    """The command line ``GAME [options]`` as a ``run_class`` whose defaults are GAME's (``game_defaults(GAME)``), or
    ``defaults``; a malformed one exits with tyro's message and code 2, ``--help`` (which shows GAME's defaults when
    GAME is given) with 0.

    Args:
        run_class: the options dataclass, with a positional ``env_id`` (:func:`positional_game`).
        argv: the arguments.
        prog: how the command was started.
        description: the text of ``--help``.
        game_defaults: the options' defaults for a game (None: the game is not known yet).
        defaults: the values of the options not given, instead of the game's (e.g. a resumed run's).
    """
    import tyro

    def parse(game: str | None) -> Any:
        return tyro.cli(run_class, args=list(argv), prog=f"{prog} {game}" if game else prog, description=description,
                        default=defaults or run_class(env_id=tyro.MISSING, **game_defaults(game)))

    guess = next((arg for arg in argv if arg in cardenvs.available_envs()), None)
    run = parse(guess)
    return run if defaults or run.env_id == guess else parse(run.env_id)  # an option's value named a game first


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


def check_options(args: Any, rules: Sequence[Rule]) -> None:
    """Raise ValueError naming the first option of ``args`` that breaks its rule (``--NAME must be ..., got ...``).

    Args:
        args: the parsed options (a dataclass whose fields are the options).
        rules: ``(field names, test of a value, what a value must be)`` triples, checked in order.
    """
    for names, test, wording in rules:
        for name in names:
            value = getattr(args, name)
            if not test(value):
                raise ValueError(f"{flag(name)} must be {wording}, got {shown(value)}")


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
