"""The ladder of a tournament as a PNG: mean reward with its 95% interval, and rating mu with ±sigma."""

from __future__ import annotations

from pathlib import Path

from cardenvs.evaluation.tournament import TournamentResult

#: figure width in inches, and height per agent (plus a margin)
FIGURE_WIDTH = 10.0
HEIGHT_PER_AGENT = 0.5
HEIGHT_MARGIN = 1.5
DPI = 120


def plot_ladder(result: TournamentResult, path: str | Path) -> Path:
    """Write ``result``'s ladder, best agent on top, as a PNG at ``path``; returns the path.

    Args:
        result: a tournament's result.
        path: the PNG file to write (its folder must exist).
    """
    # The figure is drawn on its own Agg canvas: no pyplot state, no display needed.
    from matplotlib.figure import Figure

    ranking = result.ranking()[::-1]  # matplotlib draws the first row at the bottom
    names = [stats.name for stats in ranking]
    positions = list(range(len(ranking)))
    figure = Figure(figsize=(FIGURE_WIDTH, HEIGHT_MARGIN + HEIGHT_PER_AGENT * len(ranking)), layout="constrained")
    reward_axes, rating_axes = figure.subplots(1, 2, sharey=True)
    reward_axes.errorbar(
        [s.mean_reward for s in ranking], positions, xerr=[_or_zero(s.ci95) for s in ranking], fmt="o", capsize=4
    )
    reward_axes.set_xlabel("mean reward per game (95% CI)")
    reward_axes.set_yticks(positions, names)
    rating_axes.errorbar([s.rating for s in ranking], positions, xerr=[s.rating_sigma for s in ranking], fmt="s",
                         capsize=4, color="tab:orange")
    rating_axes.set_xlabel("openskill rating (μ ± σ)")
    for axes in (reward_axes, rating_axes):
        axes.grid(axis="x", alpha=0.3)
        axes.set_ylim(-0.5, len(ranking) - 0.5)
    figure.suptitle(f"{result.env_id}: {result.games} games, {result.deals} deals")
    path = Path(path)
    figure.savefig(path, format="png", dpi=DPI)
    return path


def _or_zero(value: float) -> float:
    return value if value == value else 0.0  # a missing (nan) interval is drawn without a bar
