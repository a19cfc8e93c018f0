"""Agents by name: one table from an agent spec to the agent, used by the CLI, tournaments and training.

Specs:

``random``
    :class:`cardenvs.agents.base.RandomAgent`.
``heuristic``
    the game's rule-based agent (named by its ``Game.rule_based_agent``).
``trained``
    the game's shipped trained agent: the self-play model installed with the package
    (``cardenvs/agents/checkpoints/<env_id>.pt``, from the repository's ``agents/checkpoints/``); needs torch.
``ppo:PATH``
    a trained PPO policy: a MaskablePPO ``.zip`` checkpoint (:mod:`cardenvs.agents.ppo`) or a self-play ``.pt`` model
    (:mod:`cardenvs.agents.selfplay`); needs the ``train`` extra.
``rllib:PATH``
    a trained RLlib policy (:mod:`cardenvs.agents.rllib`): a checkpoint of ``training/rllib_train.py`` or one of its
    modules; needs the ``rllib`` extra.
``pimc``, ``pimc:OPTIONS``
    Perfect-Information Monte Carlo search over the game's hidden-card resampler (:mod:`cardenvs.agents.search`);
    ``OPTIONS`` is ``name=value,...``, e.g. ``pimc:determinizations=32,rollouts=2,rollout=random``.
``ismcts``, ``ismcts:OPTIONS``
    Information-Set MCTS over the resampler, e.g. ``ismcts:iterations=400,exploration=0.7``.
``human``
    a person at the terminal (:mod:`cardenvs.agents.human`).

An agent whose extra is not installed raises :class:`MissingExtraError`, which says what to install.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from pathlib import Path

import cardenvs
from cardenvs.agents.base import Agent, RandomAgent
from cardenvs.core.game import ObservationLayout, import_target

#: spec kinds -> what the part after ``kind:`` means (``None``: the kind takes no argument)
SPEC_KINDS: dict[str, str | None] = {
    "random": None, "heuristic": None, "trained": None, "ppo": "PATH", "rllib": "PATH", "pimc": "OPTIONS",
    "ismcts": "OPTIONS", "human": None,
}
#: spec kinds of the search agents (they search over the game's resampled deals; cardenvs.agents.search)
SEARCH_KINDS = ("pimc", "ismcts")
#: spec kinds whose argument may be left out (``pimc`` alone: the default budget)
OPTIONAL_ARGUMENT = SEARCH_KINDS
#: spec kinds that load a trained policy -> (``"module:Class"`` with a ``load(path, env_id, layout)``, the extra
#: it needs, what that extra holds)
TRAINED_KINDS: dict[str, tuple[str, str, str]] = {
    "ppo": ("cardenvs.agents.ppo:PolicyAgent", "train", "torch, stable-baselines3, sb3-contrib"),
    "rllib": ("cardenvs.agents.rllib:RLlibAgent", "rllib", "torch, ray[rllib]"),
}
#: the folder of the shipped trained agents (package data): ``<env_id>.pt``, each beside the ``<env_id>.json`` that
#: says how it was trained
SHIPPED_CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"
#: file name endings left out of an agent's name (a checkpoint named ``model.zip`` plays as ``ppo:model``)
CHECKPOINT_SUFFIXES = (".zip", ".pt")


class MissingExtraError(ValueError):
    """An agent needs an optional dependency that is not installed; the message says which extra installs it."""


def shipped_checkpoint(env_id: str) -> Path | None:
    """The shipped trained agent of ``env_id`` (a self-play ``.pt`` model), or None where the game has none."""
    path = SHIPPED_CHECKPOINTS / f"{env_id}.pt"
    return path if path.is_file() else None


def checkpoint_sha256(path: Path) -> str:
    """A content hash of a checkpoint: a file's bytes, or every file under a directory (names and bytes, in name
    order), so that a checkpoint retrained under the same path is told from the one before."""
    if path.is_file():
        return hashlib.sha256(path.read_bytes()).hexdigest()
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(str(file.relative_to(path)).encode() + b"\0")
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _load(target: str) -> Callable[..., Agent]:
    return import_target(target)


def spec_help() -> str:
    """The accepted specs, for error messages and ``--help``."""
    return ", ".join(
        kind if arg is None else f"{kind}[:{arg}]" if kind in OPTIONAL_ARGUMENT else f"{kind}:{arg}"
        for kind, arg in SPEC_KINDS.items()
    )


def check_spec(spec: str) -> None:
    """Raise ValueError unless ``spec`` names a known kind of agent (``ppo`` needs a path)."""
    kind, _, argument = spec.partition(":")
    if kind not in SPEC_KINDS:
        raise ValueError(f"unknown agent {spec!r}; choose from {spec_help()}")
    if kind in OPTIONAL_ARGUMENT:
        from cardenvs.agents.search import parse_options

        parse_options(kind, argument)
    elif (SPEC_KINDS[kind] is None) != (argument == ""):
        raise ValueError(f"agent {spec!r} is malformed; choose from {spec_help()}")


def make_agent(spec: str, env_id: str, layout: ObservationLayout, seed: int | None = None) -> Agent:
    """The agent ``spec`` names, for the game ``env_id`` whose observations follow ``layout``.

    Args:
        spec: ``random``, ``heuristic``, ``trained``, ``ppo:PATH``, ``rllib:PATH``, ``pimc[:OPTIONS]``,
            ``ismcts[:OPTIONS]`` or ``human`` (see the module docstring).
        env_id: a registered env id.
        layout: the env's observation layout (``env.unwrapped.layout`` or ``venv.layout``).
        seed: seed of the agent's own generator, for agents that draw randomness.

    Raises:
        ValueError: an unknown spec, an env id without a rule-based agent, or a checkpoint that cannot be
            loaded or does not fit the env.
        MissingExtraError: (a ValueError) the agent's optional dependencies are not installed.
    """
    check_spec(spec)
    kind, _, argument = spec.partition(":")
    if kind == "random":
        return RandomAgent(seed=seed)
    if kind == "heuristic":
        agent_class = cardenvs.get_game(env_id).rule_based_agent_class()
        if agent_class is None:
            raise ValueError(f"{env_id} has no rule-based agent (its Game names none in rule_based_agent)")
        return agent_class(layout)
    if kind == "trained":
        checkpoint = shipped_checkpoint(env_id)
        if checkpoint is None:
            raise ValueError(f"{env_id} has no shipped trained agent (no {env_id}.pt in {SHIPPED_CHECKPOINTS})")
        agent = make_agent(f"ppo:{checkpoint}", env_id, layout, seed)
        agent.name = "trained"
        return agent
    if kind in OPTIONAL_ARGUMENT:
        from cardenvs.agents.search import make_search_agent

        return make_search_agent(kind, argument, env_id, layout, seed)
    if kind in TRAINED_KINDS:
        target, extra, holds = TRAINED_KINDS[kind]
        try:
            return _load(target).load(argument, env_id=env_id, layout=layout)
        except ImportError as error:
            raise MissingExtraError(
                f"the {kind}:PATH agent needs the {extra!r} extra ({holds}), which is not installed: "
                f'pip install "cardenvs[{extra}]" ({error})'
            ) from error
    return _load("cardenvs.agents.human:HumanAgent")(env_id=env_id, layout=layout)


def checkpoint_names(paths: Sequence[str | Path]) -> list[str]:
    """Names that tell checkpoints apart: each path's shortest ending that no other checkpoint shares.

    ``runs/a/model.zip`` and ``runs/b/model.zip`` are named ``a/model`` and ``b/model``; a lone checkpoint is
    named by its file name (``model``). Endings in :data:`CHECKPOINT_SUFFIXES` are left out. The same file given
    twice gets the same name (callers number repeats).
    """
    resolved = [Path(path).expanduser().resolve() for path in paths]
    parts = [_name_parts(path) for path in resolved]
    names = []
    for i, mine in enumerate(parts):
        length = 1
        while length < len(mine) and any(
            resolved[j] != resolved[i] and theirs[-length:] == mine[-length:] for j, theirs in enumerate(parts)
        ):
            length += 1
        names.append("/".join(mine[-length:]))
    return names


def _name_parts(path: Path) -> tuple[str, ...]:
    parts = [part for part in path.parts if part != path.anchor]
    for suffix in CHECKPOINT_SUFFIXES:
        if parts and parts[-1].endswith(suffix) and len(parts[-1]) > len(suffix):
            parts[-1] = parts[-1][: -len(suffix)]
    return tuple(parts)
