"""The search benchmark (benchmarks/search.py): a ``--quick`` run measures every part and writes what it printed; its
decision counts are the games' steps; a bad budget is a usage error.

The default run smoke-tests one fast game (Slabberjan); ``--runslow`` runs ``--quick`` on every game with a
resampler.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs.core.exit_codes import EXIT_USAGE

REPO_ROOT = Path(__file__).resolve().parent.parent
SPEC = importlib.util.spec_from_file_location("benchmark_search", REPO_ROOT / "benchmarks" / "search.py")
search = importlib.util.module_from_spec(SPEC)
sys.modules["benchmark_search"] = search
SPEC.loader.exec_module(search)

SEARCHABLE = [env_id for env_id in cardenvs.available_envs() if cardenvs.get_game(env_id).resample is not None]
#: the positions a ``--quick`` run searches at once
QUICK_POSITIONS = 8


def _quick_run(env_id: str, tmp_path: Path, capsys: pytest.CaptureFixture) -> tuple[dict, str, str]:
    out_json, out_md = tmp_path / "search.json", tmp_path / "search.md"
    results = search.main(["--quick", "--envs", env_id, "--json", str(out_json), "--markdown", str(out_md),
                           "--note", "test run"])
    return results, capsys.readouterr().out, out_md.read_text()


def _check_quick_row(row: dict) -> None:
    assert not [key for key in row if key.endswith("_error")], row
    assert not [key for key in row["search"] if key.endswith("_error")], row["search"]
    assert row["mean_legal_actions"] >= 2  # only positions with a choice are searched
    assert row["resample"]["work"] == row["resample"]["calls"] * QUICK_POSITIONS
    for key in ("random_playouts", "heuristic_playouts"):
        measured = row[key]
        # every playout takes at least its first action, so there are at least as many decisions as records
        assert measured["work"] >= measured["calls"] * measured["records"] > 0
        assert measured["per_s"] == pytest.approx(measured["work"] / measured["seconds"])
    specs = [f"pimc:{b}" for b in search.QUICK_PIMC] + [f"ismcts:{b}" for b in search.QUICK_ISMCTS]
    assert sorted(row["search"]) == sorted(specs)
    for spec, measured in row["search"].items():
        assert measured["calls"] >= 1
        assert measured["work"] == measured["calls"] * QUICK_POSITIONS
        assert measured["per_s"] > 0
        kind, budget = spec.split(":", 1)
        if kind == "ismcts":
            iterations = search.parse_options(kind, budget).iterations
            assert measured["iterations_per_s"] == pytest.approx(measured["per_s"] * iterations)
        else:
            assert "iterations_per_s" not in measured


def test_quick_run_measures_every_part_and_writes_what_it_printed(tmp_path, capsys):
    results, printed, written = _quick_run("slabberjan_v0", tmp_path, capsys)
    assert json.loads((tmp_path / "search.json").read_text()) == results
    (row,) = results["envs"]
    assert row["env_id"] == "slabberjan_v0" and row["params"] == cardenvs.get_game("slabberjan_v0").quick_params
    _check_quick_row(row)
    assert written == printed
    for spec in row["search"]:
        assert search.budget_label(*spec.split(":", 1)) in printed
    assert "Note: test run" in printed
    assert results["machine"]["cpu_count"] >= 1


@pytest.mark.slow
@pytest.mark.parametrize("env_id", SEARCHABLE)
def test_quick_run_on_every_game(env_id, tmp_path, capsys):
    results, _, _ = _quick_run(env_id, tmp_path, capsys)
    _check_quick_row(results["envs"][0])
    # the rule-based playouts are compiled exactly where the rule-based agent has a compiled policy
    assert results["envs"][0]["heuristic_compiled"] == (env_id in ("gin_slaughtre_v0", "clabber_v0"))


def test_budget_labels_name_the_budget():
    assert search.budget_label("pimc", "determinizations=16,rollouts=2,rollout=random") == "pimc 16×2 random"
    assert search.budget_label("ismcts", "iterations=200") == "ismcts 200 heuristic"
    assert search.budget_label("ismcts", "iterations=8,rollouts=4,rollout=random") == "ismcts 8×4 random"


def test_counted_decisions_are_the_games_steps():
    venv = cardenvs.vector_env("slabberjan_v0", 6, num_players=3)
    venv.reset(seed=1)
    counter = search._CountingStep(venv.step)
    active = np.array([True, False, True, True, False, False])
    before = venv.states["step_count"].astype(np.int64).sum()
    counter(venv.sample_actions(), active=active)
    counter(venv.sample_actions())
    assert counter.decisions == 3 + 6
    assert not venv.terminated.any()  # no game restarted, so the records' step counts say what was played
    assert venv.states["step_count"].astype(np.int64).sum() - before == counter.decisions


def test_a_measurement_runs_once_untimed_then_at_least_once_timed():
    done = []
    result = search.repeat_timed(lambda: done.append(1) or 5, seconds=1e-9)
    assert len(done) == 2
    assert result["calls"] == 1 and result["work"] == 5


@pytest.mark.parametrize("argv", [["--pimc", "iterations=3"], ["--ismcts", "rollout=human"], ["--positions", "0"],
                                  ["--envs", "no_such_game_v0"]])
def test_bad_options_are_usage_errors(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        search.main(argv)
    assert exit_info.value.code == EXIT_USAGE
    assert "error" in capsys.readouterr().err
