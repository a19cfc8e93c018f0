"""Plot the learning curves of self-play runs: tournament reward against the rule-based agent over training time.

Each run's ``model.json`` (written by ``cardenvs train``; the committed agents keep theirs as
``agents/checkpoints/<env_id>.json``) holds its periodic tournaments against the rule-based agent. One panel per
game: the trained agent's mean reward with its 95% confidence band against minutes of training (evaluations not
counted), and the rule-based agent's reward in the same tournaments. It also prints, per run, the minutes of
training to its first tournament level with the rule-based agent and to its first one ahead of it with the 95 %
intervals apart (each side's interval has the same half-width: the two sides' rewards add up to a constant in
every game of a tournament, so one side's mean moves exactly as the other's).

    python -m cardenvs.training.curves --runs agents/checkpoints/*.json --out docs/images/learning_curves.png
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cardenvs.core.exit_codes import EXIT_USAGE

PANEL_SIZE = (4.0, 3.0)  # inches per game
SECONDS_PER_MINUTE = 60.0


@dataclass
class Options:
    """Which runs to plot and where. Each field is the ``--option`` of the same name."""

    runs: list[str] = field(default_factory=list)
    """model.json files of self-play runs (one panel each)"""
    out: str = "docs/images/learning_curves.png"
    """the image to write"""


def first_minutes(info: dict, ahead: bool) -> float | None:
    """Minutes of training to the run's first periodic tournament where the trained agent is ahead of the rule-based
    agent with intervals apart (``ahead``), or level with it (the intervals overlap, or ahead); None if none is.

    Args:
        info: a run's model.json, with its ``evaluations``.
        ahead: ahead with intervals apart, rather than level or ahead.
    """
    for point in info["evaluations"]:
        lead = point["mean_reward"] - point["heuristic_mean_reward"]
        both_intervals = 2 * point["ci95"]
        if lead > both_intervals or (not ahead and lead >= -both_intervals):
            return point["train_seconds"] / SECONDS_PER_MINUTE
    return None


def pass_table(paths: Sequence[Path]) -> str:
    """A markdown table, per run: its game, the minutes to its first tournament level with and ahead of the
    rule-based agent (:func:`first_minutes`), and its whole training time."""
    def shown(minutes: float | None) -> str:
        return "never" if minutes is None else f"{minutes:.1f}"

    rows = ["| game | minutes to level | minutes to ahead, intervals apart | training minutes |",
            "|---|---:|---:|---:|"]
    for path in paths:
        info = json.loads(Path(path).read_text())
        rows.append(f"| `{info['env_id']}` | {shown(first_minutes(info, ahead=False))} | "
                    f"{shown(first_minutes(info, ahead=True))} | {info['train_seconds'] / SECONDS_PER_MINUTE:.1f} |")
    return "\n".join(rows)


def plot_curves(paths: Sequence[Path], out: Path) -> Path:
    """Draw one panel per run into ``out`` (PNG); ValueError for a file without a learning curve."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = []
    for path in paths:
        info = json.loads(Path(path).read_text())
        if not info.get("evaluations"):
            raise ValueError(f"{path} holds no evaluations (a self-play run's model.json is needed)")
        runs.append(info)
    columns = min(len(runs), 3)
    rows = math.ceil(len(runs) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(PANEL_SIZE[0] * columns, PANEL_SIZE[1] * rows), squeeze=False)
    for ax, info in zip(axes.flat, runs, strict=False):
        points = info["evaluations"]
        minutes = [p["train_seconds"] / SECONDS_PER_MINUTE for p in points]
        mean = [p["mean_reward"] for p in points]
        ci = [p["ci95"] for p in points]
        ax.fill_between(minutes, [m - c for m, c in zip(mean, ci, strict=True)],
                        [m + c for m, c in zip(mean, ci, strict=True)], alpha=0.25)
        ax.plot(minutes, mean, marker="o", label="trained")
        ax.plot(minutes, [p["heuristic_mean_reward"] for p in points], linestyle="--", label="rule-based")
        ax.axhline(0.0, color="grey", linewidth=0.5)
        ax.set_title(info["env_id"])
        ax.set_xlabel("minutes of training")
        ax.set_ylabel("mean reward, head-to-head")
        ax.legend(loc="lower right", fontsize="small")
    for ax in list(axes.flat)[len(runs):]:
        ax.set_visible(False)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    import tyro

    options = tyro.cli(Options, args=argv, description=(__doc__ or "").split("\n\n")[0])
    if not options.runs:
        print("error: give one or more model.json files (--runs ...)", file=sys.stderr)
        return EXIT_USAGE
    try:
        paths = [Path(p) for p in options.runs]
        print(plot_curves(paths, Path(options.out)))
        print(pass_table(paths))
    except (OSError, ValueError, KeyError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_USAGE
    return 0


if __name__ == "__main__":
    sys.exit(main())
