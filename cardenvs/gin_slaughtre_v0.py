"""Gin Slaughtre (``gin_slaughtre_v0``): a two-player Shithead-style shedding game. Rules: docs/rules/gin_slaughtre.md.

54 cards (two Jokers); 4 hand cards and 3 upcards each, arranged in secret; play a card, a set or a run at or
above the pile's top; 2s, 9s, 5s, Jacks and Jokers are special. ``env()``, ``raw_env()`` and
``vector_env(num_envs)`` take the parameters listed there (``min_set_size``, ``num_downcards``, ``max_turns``…).
"""

from cardenvs.core.registry import module_factories

env, raw_env, vector_env = module_factories("gin_slaughtre_v0")
