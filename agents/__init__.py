"""Baseline agents for the cardenvs games.

Every agent follows :class:`cardenvs.agents.base.Agent`: ``act`` on one observation dict (AEC env) and ``act_batch`` on
the batched env's arrays. Agents see only what the observation shows, never the hidden state.
"""

from cardenvs.agents.base import Agent, RandomAgent

__all__ = ["Agent", "RandomAgent"]
