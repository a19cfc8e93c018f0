"""Clabber (``clabber_v0``): four players in partnerships, Jack–Nine trumps, melds and the Bell. Rules:
docs/rules/clabber.md.

Teams are player_0 + player_2 against player_1 + player_3, and both partners get the team's reward: +1/−1/0
when a team reaches ``target_score`` (500), or with ``single_hand=True`` one hand per episode and a reward of
(own − opponents' points) / 162. Actions: 0–23 play a card, 24 pass, 25 accept the turn-up's suit, 26–29 name
clubs/diamonds/hearts/spades (30/31 declare/skip with ``optional_declare``). ``env(...)``, ``raw_env(...)``
and ``vector_env(num_envs, ...)`` take the parameters listed in the docs; ``reset(options={"deal": ...})``
starts from a chosen deal.
"""

from cardenvs.core.registry import module_factories

env, raw_env, vector_env = module_factories("clabber_v0")
