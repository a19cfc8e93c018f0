"""Agents by name: one table from an agent spec to the agent, used by the CLI, tournaments and training.

Specs:

``random``
    :class:`agents.base.RandomAgent`.
``heuristic``
    the game's rule-based agent (:data:`HEURISTICS`).
``ppo:PATH``
    a trained MaskablePPO policy loaded from a stable-baselines3 ``.zip`` checkpoint (:mod:`agents.ppo`).
``human``
    a person at the terminal (:mod:`agents.human`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from agents.base import Agent, RandomAgent
from cardenvs.core.game import ObservationLayout

#: env id -> ``"module:Class"`` of the game's rule-based agent; each takes the observation layout first.
HEURISTICS: dict[str, str] = {
    "slabberjan_v0": "agents.slabberjan:SlabberjanHeuristic",
    "gin_slaughtre_v0": "agents.gin_slaughtre:GinSlaughtreHeuristic",
    "clabber_v0": "agents.clabber:ClabberHeuristic",
    "stabby_jack_v0": "agents.stabby_jack:StabbyJackHeuristic",
    "slap_v0": "agents.slap:SlapHeuristic",
}

#: spec kinds -> what the part after ``kind:`` means (``None``: the kind takes no argument)
SPEC_KINDS: dict[str, str | None] = {"random": None, "heuristic": None, "ppo": "PATH", "human": None}


def _load(target: str) -> Callable[..., Agent]:
    module_name, class_name = target.split(":")
    return getattr(importlib.import_module(module_name), class_name)


def spec_help() -> str:
    """The accepted specs, for error messages and ``--help``."""
    return ", ".join(kind if arg is None else f"{kind}:{arg}" for kind, arg in SPEC_KINDS.items())


def check_spec(spec: str) -> None:
    """Raise ValueError unless ``spec`` names a known kind of agent (``ppo`` needs a path)."""
    kind, _, argument = spec.partition(":")
    if kind not in SPEC_KINDS:
        raise ValueError(f"unknown agent {spec!r}; choose from {spec_help()}")
    if (SPEC_KINDS[kind] is None) != (argument == ""):
        raise ValueError(f"agent {spec!r} is malformed; choose from {spec_help()}")


def make_agent(spec: str, env_id: str, layout: ObservationLayout, seed: int | None = None) -> Agent:
    """The agent ``spec`` names, for the game ``env_id`` whose observations follow ``layout``.

    Args:
        spec: ``random``, ``heuristic``, ``ppo:PATH`` or ``human`` (see the module docstring).
        env_id: a registered env id.
        layout: the env's observation layout (``env.unwrapped.layout`` or ``venv.layout``).
        seed: seed of the agent's own generator, for agents that draw randomness.

    Raises:
        ValueError: an unknown spec, or an env id without a rule-based agent.
    """
    check_spec(spec)
    kind, _, argument = spec.partition(":")
    if kind == "random":
        return RandomAgent(seed=seed)
    if kind == "heuristic":
        if env_id not in HEURISTICS:
            raise ValueError(f"no rule-based agent for {env_id!r}; games with one: {', '.join(HEURISTICS)}")
        return _load(HEURISTICS[env_id])(layout)
    if kind == "ppo":
        return _load("agents.ppo:PolicyAgent").load(argument, env_id=env_id, layout=layout)
    return _load("agents.human:HumanAgent")(env_id=env_id, layout=layout)
