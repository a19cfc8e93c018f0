"""training/curves.py: the minutes to a run's first tournament level with and ahead of the rule-based agent."""

import json

import pytest

from cardenvs.training.curves import first_minutes, main, pass_table


def _point(seconds: float, mean: float, ci: float, heuristic: float) -> dict:
    return {"train_seconds": seconds, "mean_reward": mean, "ci95": ci, "heuristic_mean_reward": heuristic}


#: behind, level (intervals overlap), ahead by less than both intervals, ahead with intervals apart
RUN = {"env_id": "some_game_v0", "train_seconds": 600.0, "evaluations": [
    _point(60.0, -0.30, 0.05, 0.30), _point(120.0, -0.04, 0.05, 0.04), _point(180.0, 0.04, 0.05, -0.04),
    _point(240.0, 0.06, 0.05, -0.06)]}


def test_ahead_needs_the_intervals_apart_and_level_their_overlap():
    assert first_minutes(RUN, ahead=False) == pytest.approx(2.0)
    assert first_minutes(RUN, ahead=True) == pytest.approx(4.0)


def test_a_run_never_level_or_ahead_has_none():
    behind = {**RUN, "evaluations": RUN["evaluations"][:1]}
    assert first_minutes(behind, ahead=False) is None and first_minutes(behind, ahead=True) is None


def test_the_command_draws_the_figure_and_prints_the_table(tmp_path, capsys):
    run = tmp_path / "model.json"
    run.write_text(json.dumps(RUN))
    assert main(["--runs", str(run), "--out", str(tmp_path / "curves.png")]) == 0
    assert (tmp_path / "curves.png").stat().st_size > 0
    printed = capsys.readouterr().out
    assert pass_table([run]) in printed
    assert "| `some_game_v0` | 2.0 | 4.0 | 10.0 |" in printed
