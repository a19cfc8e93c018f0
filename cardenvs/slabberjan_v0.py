"""Slabberjan (``slabberjan_v0``): the Zeeland Cuckoo game for 2–42 players. Rules: docs/rules/slabberjan.md.

``env(num_players=5)``, ``raw_env(...)`` and ``vector_env(num_envs, ...)`` take the parameters listed there.
"""

from cardenvs.core.registry import module_factories

env, raw_env, vector_env = module_factories("slabberjan_v0")
