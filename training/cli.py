"""The command lines of the trainers and benchmarks: tyro markers for their dataclass fields, parsing (a positional
``GAME`` whose recipe gives the defaults), the checks and wording of their options, and ``cardenvs train``'s
command line (its options are the fields of `cardenvs.training.selfplay.Run`).

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
from importlib.machinery import ModuleSpec
from pathlib import Path
from typing import Any, Literal

import cardenvs

#: a check of options: (field names, test of a value, what a value must be)
Rule = tuple[Sequence[str], Callable[[Any], bool], str]


def at_least(least: int, *names: str) -> Rule:
    """The check that each of ``names`` is ``least`` (0 or 1) or more."""
    return names, lambda value: value >= least, "0 or more" if least == 0 else f"at least {least}"


#: the checks of the PPO options every trainer has, worded alike
PPO_CHECKS: tuple[Rule, ...] = (
    (("learning_rate", "clip_coef", "max_grad_norm"), lambda v: math.isfinite(v) and v > 0, "a positive number"),
    (("gamma", "gae_lambda"), lambda v: 0 <= v <= 1, "in [0, 1]"),
    (("ent_coef", "vf_coef"), lambda v: math.isfinite(v) and v >= 0, "0 or more"),
    (("hidden",), lambda v: bool(v) and min(v) >= 1, "one or more positive layer sizes"),
)


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


# ---------------------------------------------------------------------------------------------- cardenvs train
#: the options of ``cardenvs train`` a resumed run may take anew (the others must repeat the stored value)
TRAIN_RESUME_MAY_CHANGE = ("total_decisions", "minutes", "checkpoint_every", "eval_every", "eval_games",
                           "final_games", "torch_threads", "device", "progress_bar")
#: the checks of ``cardenvs train``'s options
TRAIN_CHECKS: tuple[Rule, ...] = (
    at_least(1, "total_decisions", "num_envs", "num_steps", "minibatch_size", "update_epochs", "torch_threads",
             "snapshot_every", "checkpoint_every"),
    at_least(0, "eval_every", "eval_games", "final_games", "max_snapshots"),
    (("seed",), lambda v: 0 <= v < 2**63, "in [0, 2**63)"), *PPO_CHECKS,
    (("truncation_reward",), math.isfinite, "a finite number"),
    (("league_share",), lambda v: 0 <= v <= 1, "in [0, 1]"),
    (("minutes",), lambda v: math.isfinite(v) and v >= 0, "0 or more"),
)


def parse_train_args(argv: Sequence[str], defaults: Any = None, prog: str | None = None) -> Any:
    """``cardenvs train``'s command line ``GAME [options]`` as a `cardenvs.training.selfplay.Run`, with GAME's
    recipe (or ``defaults``) as the defaults; a malformed one exits with tyro's message and code 2.

    Args:
        argv: the arguments.
        defaults: the values of the options not given, instead of the recipe's (e.g. a resumed run's).
        prog: how the command was started (default: ``cardenvs train``).
    """
    from cardenvs.training import selfplay
    from cardenvs.training.recipes import recipe

    description = (f"Self-play PPO on a cardenvs game (GAME: {', '.join(cardenvs.available_envs())}) by its recipe, "
                   "whose defaults --help shows when GAME is given: every seat of every game learns.\n\n"
                   + resume_note(TRAIN_RESUME_MAY_CHANGE))
    return parse_game_command(selfplay.Run, argv, prog or selfplay.PROG, description,
                              lambda game: recipe(game).defaults, defaults)


def settle_train_args(argv: Sequence[str], prog: str | None = None) -> Any:
    """The arguments of this invocation of ``cardenvs train``: the command line's, or those of the run it resumes
    (:func:`cardenvs.training.runs.settle`)."""
    from cardenvs.training import runs, selfplay

    return runs.settle_command_line(lambda defaults: parse_train_args(argv, defaults, prog), selfplay.RUNS_DIR,
                                    TRAIN_RESUME_MAY_CHANGE, game="GAME")


def resolve_train_args(args: Any) -> Any:
    """``cardenvs train``'s arguments with the defaults that depend on others filled in; ValueError for a setting
    that cannot work."""
    from cardenvs.training import runs, selfplay

    filled = runs.resolve(args, selfplay.RUNS_DIR, TRAIN_CHECKS)
    torch_device(filled.device)
    if filled.league_share > 0 and not filled.league:
        raise ValueError("--league needs at least one entry while --league-share is above 0")
    return filled


def train(argv: Sequence[str], prog: str) -> int:
    """``cardenvs train GAME [options]``: check every argument, train, print the final tournament; the exit code
    (:func:`cardenvs.training.runs.run_command`).

    Args:
        argv: the arguments.
        prog: how the command was started, for ``--help`` and the messages.
    """
    from cardenvs.training import runs, selfplay

    trainer: selfplay.Trainer | None = None

    def run(args: selfplay.Run) -> str | None:
        nonlocal trainer
        runs.write_run_args(args)
        trainer = selfplay.Trainer(args)
        budget = f"{args.total_decisions} decisions" + (f" or {args.minutes:g} minutes" if args.minutes else "")
        print(f"training {args.env_id} for {budget} in {trainer.dir} on {trainer.device}"
              + (f" (resumed at {trainer.decisions})" if trainer.resumed else ""))
        trainer.train()
        print(f"saved {trainer.dir / selfplay.MODEL_NAME} after {trainer.decisions} decisions "
              f"({trainer.train_seconds:.0f} s, {trainer.decisions / max(trainer.train_seconds, 1e-9):,.0f}/s)")

        def load() -> Any:  # the model as saved, for its matches against the rule-based agent and random
            from cardenvs.agents.selfplay import SelfPlayAgent

            return SelfPlayAgent.load(trainer.dir / selfplay.MODEL_NAME, args.env_id, trainer.layout,
                                      trainer.venv.num_actions)

        return runs.final_results(load, args.env_id, args.final_games, args.seed + 1, trainer.dir)

    def interrupted(args: selfplay.Run) -> str:
        if trainer is not None:
            trainer.checkpoint()
        return (f"interrupted at {trainer.decisions if trainer else 0} decisions; continue with: "
                + runs.resume_command(f"{prog} {args.env_id}", args.run_dir))

    return runs.run_command(prog, "train", lambda: resolve_train_args(settle_train_args(argv, prog)), ("torch",),
                            run, interrupted)
