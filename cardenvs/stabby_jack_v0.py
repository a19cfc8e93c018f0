"""Stabby Jack (``stabby_jack_v0``): the "5-minute RPG" for 2–8 players. Rules: docs/rules/stabby_jack.md.

Each player keeps a face-up row of 4–8 numbered Stat cards (♥ hit points, ♦ magic, ♠ attack, ♣ luck) and an
XP row of beaten monsters. A turn is TRAIN (draw and replace a Stat), FIGHT (draw a monster, beat it with
attack or magic for XP) or REST (heal 1), with LEVEL_UP (5 XP for a new Stat) as a free extra; drawn Specials
(Stabby Jack, Monarchs, Aces that swap Stats between players, Jokers) take over the turn. A player wins with
10 XP, more attack or magic than every opponent's HP left, and the most luck, all at once; +1 for the winner,
−1 for the others, 0 for everyone at ``max_turns``. Perfect information: the observation is the whole table.

``env(num_players=4)``, ``raw_env(...)`` and ``vector_env(num_envs, ...)`` take the parameters listed there
(``num_players``, ``max_players``, ``jokers``, ``level_up_is_action``, ``level_up_payment``,
``win_uses_max_hp``, ``max_turns``).
"""

from cardenvs.core.registry import module_factories

env, raw_env, vector_env = module_factories("stabby_jack_v0")
