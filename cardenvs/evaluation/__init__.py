"""Evaluation of agents: duplicate-deal tournaments with confidence intervals and ratings.

:func:`run_tournament` plays and aggregates a tournament (its semantics are documented in
:mod:`cardenvs.evaluation.tournament`); :func:`cardenvs.evaluation.plot.plot_ladder` draws its ladder. The
``cardenvs tournament`` and ``cardenvs baselines`` commands are built on them; docs/evaluation.md is the guide.
"""

from cardenvs.evaluation.tournament import (
    AgentStats,
    HeadToHead,
    TournamentResult,
    run_tournament,
    seat_arrangements,
)

__all__ = ["AgentStats", "HeadToHead", "TournamentResult", "run_tournament", "seat_arrangements"]
