"""What the package ships beside the games: the rules pages (``cardenvs rules``) and the trained agents."""

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
