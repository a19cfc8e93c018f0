"""What the package ships beside the games: the rules pages (``cardenvs rules``) and the trained agents, with the
command that trains each again."""

import dataclasses
import json
import shlex

import pytest

import cardenvs
from cardenvs.agents import registry
from cardenvs.cli import main
from cardenvs.commands.rules import rules_text


@pytest.mark.parametrize("env_id", cardenvs.available_envs())
def test_cardenvs_rules_prints_the_game_s_installed_page(env_id, capsys):
    assert main(["rules", env_id]) == 0
    printed = capsys.readouterr().out
    assert printed == rules_text(env_id) and f"`{env_id}`" in printed.splitlines()[0]


@pytest.mark.parametrize("name", ["poker_v0", "../README", "", "clabber", "a" * 5000])
def test_cardenvs_rules_refuses_an_unknown_game_with_one_line(name, capsys):
    assert main(["rules", name]) == 2
    error = capsys.readouterr().err
    assert error.startswith("cardenvs rules: unknown env id") and "choose from" in error and error.count("\n") == 1


def test_the_trained_spec_plays_as_trained_and_says_so_where_none_is_shipped(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    layout = cardenvs.env("slabberjan_v0").unwrapped.layout
    assert registry.make_agent("trained", "slabberjan_v0", layout).name == "trained"
    with pytest.raises(ValueError, match="malformed"):
        registry.check_spec("trained:somewhere.pt")
    monkeypatch.setattr(registry, "SHIPPED_CHECKPOINTS", tmp_path)
    assert registry.shipped_checkpoint("slabberjan_v0") is None
    with pytest.raises(ValueError, match="slabberjan_v0 has no shipped trained agent"):
        registry.make_agent("trained", "slabberjan_v0", layout)


#: what a stored command is given after its own options, so that it trains one rollout and plays no match
TINY_BUDGET = ("--total-decisions", "1", "--minutes", "0", "--eval-every", "0", "--final-games", "0")


@pytest.mark.parametrize("env_id", sorted(path.stem for path in registry.SHIPPED_CHECKPOINTS.glob("*.json")))
def test_the_stored_command_of_each_shipped_agent_trains_today(env_id, tmp_path, capsys):
    """The command in ``agents/checkpoints/<env_id>.json`` is today's command line for the run that made the agent
    (the options it was trained with, none unknown), and it runs: with a tiny budget it trains and checkpoints."""
    pytest.importorskip("torch")
    from cardenvs.training import runs, selfplay

    info = json.loads((registry.SHIPPED_CHECKPOINTS / f"{env_id}.json").read_text())
    words = shlex.split(info["command"])
    assert words[:3] == ["cardenvs", "train", env_id] and info["trainer"] == selfplay.PROG
    parsed = selfplay.parse_args(words[2:])
    assert runs.command_line(f"{selfplay.PROG} {env_id}", parsed, leave_out=("env_id",)) == info["command"]
    trained = {name: value for name, value in info["args"].items() if name in dataclasses.asdict(parsed)}
    assert trained == {name: getattr(parsed, name) for name in trained}  # the options the agent was trained with
    run_dir = tmp_path / "run"
    assert main([*words[1:], *TINY_BUDGET, "--run-dir", str(run_dir)]) == 0
    printed = capsys.readouterr().out
    assert "[1/3] start-up:" in printed and "[2/3] training:" in printed
    assert (run_dir / selfplay.CHECKPOINT_NAME).is_file() and (run_dir / selfplay.MODEL_NAME).is_file()
    assert json.loads((run_dir / runs.MODEL_INFO_NAME).read_text())["decisions"] >= 1
