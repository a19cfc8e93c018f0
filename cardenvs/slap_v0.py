"""Slap (``slap_v0``): Egyptian Ratscrew for 2–8 players. Rules: docs/rules/slap.md.

Card plays are automatic; after every card each player still in secretly chooses PASS (0) or SLAP (1) in a
slap window, and the window is resolved only when all have chosen (simultaneous correct slaps are settled by
the game's seeded chance). ``env(num_players=4)``, ``raw_env(...)`` and ``vector_env(num_envs, ...)`` take the
parameters listed in the docs (slap rules on/off, face-card chances, penalty, Jokers, ``max_cards_played``…).
"""

from cardenvs.core.registry import module_factories

env, raw_env, vector_env = module_factories("slap_v0")
