"""``cardenvs tournament`` and ``cardenvs baselines``: outputs, and clear errors (no traceback) on bad input."""

import json

import pytest

from cardenvs.cli import main

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_tournament_prints_table_and_writes_json_and_plot(tmp_path, capsys):
    json_path, plot_path = tmp_path / "result.json", tmp_path / "ladder.png"
    code = main([
        "tournament", "gin_slaughtre_v0", "--agents", "random", "heuristic", "--games", "20", "--seed", "3",
        "--no-progress", "--json", str(json_path), "--plot", str(plot_path), "--results", str(tmp_path / "r.jsonl"),
    ])
    out = capsys.readouterr().out
    assert code == 0
    assert "| agent | games | mean reward ± CI95 | win rate | rating (μ ± σ) |" in out
    assert "head-to-head over 20 games" in out
    data = json.loads(json_path.read_text())
    assert data["games"] == 20 and set(data["stats"]) == {"random", "heuristic"}
    assert plot_path.read_bytes().startswith(PNG_SIGNATURE)


def test_tournament_takes_players_and_params(tmp_path, capsys):
    code = main([
        "tournament", "slabberjan_v0", "--agents", "heuristic", "random", "--games", "4", "--players", "3",
        "--params-json", '{"start_chips": 2}', "--no-progress", "--json", str(tmp_path / "r.json"),
        "--results", str(tmp_path / "r.jsonl"),
    ])
    assert code == 0, capsys.readouterr().err
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["params"]["num_players"] == 3 and data["params"]["start_chips"] == 2
    assert data["arrangements"] == [[0, 1, 0], [1, 0, 1]]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["chess_v0", "--agents", "random", "heuristic"], "unknown env id 'chess_v0'"),
        (["gin_slaughtre_v0", "--agents", "random", "wizard"], "unknown agent 'wizard'"),
        (["gin_slaughtre_v0", "--agents", "random", "ppo:/no/such/checkpoint.zip"], "no checkpoint"),
        (["gin_slaughtre_v0", "--agents", "random", "heuristic", "--players", "7"], "num_players=7"),
        (["gin_slaughtre_v0", "--agents", "random", "heuristic", "random"], "do not fit 2 seats"),
        (["gin_slaughtre_v0", "--agents", "random"], "at least two"),
        (["gin_slaughtre_v0", "--agents", "random", "heuristic", "--games", "0"], "argument --games: 0 is not allowed"),
        (["gin_slaughtre_v0", "--agents", "random", "heuristic", "--params-json", "{oops"], "not valid JSON"),
        (["gin_slaughtre_v0", "--agents", "random", "heuristic", "--params-json", "[1]"], "JSON object"),
        (["gin_slaughtre_v0", "--agents", "random", "heuristic", "--params-json", '{"colour": 1}'],
         "unknown parameter"),
    ],
)
def test_tournament_errors_exit_nonzero_with_a_message(tmp_path, monkeypatch, capsys, arguments, message):
    monkeypatch.chdir(tmp_path)
    code = main(["tournament", *arguments, "--no-progress"])
    err = capsys.readouterr().err
    assert code != 0
    assert message in err and "cardenvs tournament: " in err and "Traceback" not in err
    assert not (tmp_path / "runs").exists()  # refused before anything was played or written


def test_unreadable_checkpoint_file_is_a_clear_error(tmp_path, capsys):
    checkpoint = tmp_path / "policy.zip"
    checkpoint.write_text("not a checkpoint")
    code = main(["tournament", "gin_slaughtre_v0", "--agents", "random", f"ppo:{checkpoint}", "--games", "2",
                 "--no-progress", "--results", str(tmp_path / "r.jsonl")])
    err = capsys.readouterr().err
    assert code != 0 and err.startswith("cardenvs tournament: ") and "Traceback" not in err


def test_self_play_and_unwritable_outputs(tmp_path, capsys):
    code = main(["tournament", "clabber_v0", "--agents", "heuristic", "heuristic", "--games", "2", "--no-progress",
                 "--results", str(tmp_path / "r.jsonl"), "--json", str(tmp_path / "r.json")])
    assert code == 0, capsys.readouterr().err
    stats = json.loads((tmp_path / "r.json").read_text())["stats"]
    assert set(stats) == {"heuristic", "heuristic#2"}
    assert stats["heuristic"]["mean_reward"] == -stats["heuristic#2"]["mean_reward"]  # zero-sum, seats swapped
    code = main(["tournament", "clabber_v0", "--agents", "random", "heuristic", "--games", "2", "--no-progress",
                 "--results", str(tmp_path / "other.jsonl"), "--json", str(tmp_path / "missing" / "r.json")])
    err = capsys.readouterr().err
    assert code != 0 and "r.json" in err and "Traceback" not in err
    assert not (tmp_path / "other.jsonl").exists()  # refused before playing


def test_baselines_prints_one_table_with_verdicts(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code = main(["baselines", "--games", "40", "--env", "gin_slaughtre_v0", "clabber_v0", "--no-progress",
                 "--markdown", "baselines.md", "--json", "baselines.json"])
    out = capsys.readouterr().out
    assert code == 0
    assert "| game | agent | games | mean reward ± CI95 | win rate | rating (μ ± σ) |" in out
    assert out.count("| gin_slaughtre_v0 | ") == 2 and out.count("| clabber_v0 | ") == 2
    assert "- gin_slaughtre_v0: heuristic beats random" in out
    assert (tmp_path / "baselines.md").read_text().strip() == out.strip()
    assert set(json.loads((tmp_path / "baselines.json").read_text())) == {"gin_slaughtre_v0", "clabber_v0"}


def test_baselines_refuses_an_unknown_game(capsys):
    assert main(["baselines", "--env", "chess_v0", "--no-progress"]) != 0
    assert "unknown env id 'chess_v0'" in capsys.readouterr().err
