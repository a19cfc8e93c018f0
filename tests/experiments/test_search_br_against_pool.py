"""experiments/search_br_against_pool.py: the search BR and a pool agent against one target, on the same deals."""

import json
import re

import pytest

from experiments import search_br_against_pool

GAIN_LINE = re.compile(r"^(?P<who>.+): gain against random (?P<mean>[+-]\d\.\d+) ± \d\.\d+ over 4 games")


def test_both_responders_play_the_same_deals_and_the_paired_difference_is_the_difference_of_the_gains(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(search_br_against_pool, "RESULTS_DIR", tmp_path)
    search_br_against_pool.main(["gin_slaughtre_v0", "random", "--pool-agent", "heuristic", "--search-options",
                                 "determinizations=1,rollouts=1", "--games", "4", "--seed", "3"])
    lines = capsys.readouterr().out.splitlines()
    found = {match["who"]: float(match["mean"]) for match in map(GAIN_LINE.match, lines[:2])}
    assert set(found) == {"search BR", "heuristic"}
    assert all(gain > 0 for gain in found.values())  # both beat random play
    paired = float(lines[2].split(": ")[1].split(" ± ")[0])
    assert paired == pytest.approx(found["search BR"] - found["heuristic"], abs=1e-3)
    deals = [sorted((game["game"], game["deal"], game["seed"]) for game in map(json.loads, lines[1:]))
             for lines in (path.read_text().splitlines() for path in sorted(tmp_path.glob("*.jsonl")))]
    assert len(deals) == 2 and deals[0] == deals[1]  # game by game, the pairing the difference uses


def test_a_search_br_of_other_settings_plays_a_match_of_its_own(tmp_path, monkeypatch, capsys):
    from cardenvs.agents.registry import shipped_checkpoint

    monkeypatch.setattr(search_br_against_pool, "RESULTS_DIR", tmp_path)
    common = ["gin_slaughtre_v0", "random", "--pool-agent", "heuristic", "--games", "2", "--seed", "3"]
    search_br_against_pool.main([*common, "--search-options", "determinizations=1"])
    search_br_against_pool.main([*common, "--search-options", "determinizations=1,rollout=trained,depth=2",
                                 "--network", str(shipped_checkpoint("gin_slaughtre_v0"))])
    names = [path.name for path in tmp_path.glob("*.jsonl")]
    assert len([name for name in names if "search_BR" in name]) == 2  # not the first one's games resumed
    assert len([name for name in names if "heuristic" in name]) == 1  # the pool agent's match is the same
    assert len(capsys.readouterr().out.splitlines()) == 6


@pytest.mark.parametrize(("arguments", "message"), [
    (["gin_slaughtre_v0", "nobody"], "unknown agent 'nobody'"),
    (["gin_slaughtre_v0", "random", "--search-options", "belief=policy"], "give no belief"),
    (["gin_slaughtre_v0", "random", "--search-options", "rollouts=0"], "rollouts=0 is not allowed"),
])
def test_a_bad_target_or_search_option_is_refused_with_one_line_before_anything_is_played(
        arguments, message, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(search_br_against_pool, "RESULTS_DIR", tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        search_br_against_pool.main(arguments)
    error = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in error and "Traceback" not in error
    assert not list(tmp_path.iterdir())


def test_a_match_of_more_than_two_sides_is_refused(tmp_path):
    path = tmp_path / "match.jsonl"
    games = [{"game": 0, "deal": 0, "seats": [0, 1, 0, 1], "rewards": [1.0, -1.0, -1.0, 1.0]}]
    path.write_text("\n".join(json.dumps(line) for line in [{"tournament": {}}, *games]))
    with pytest.raises(ValueError, match="not a match of two zero-sum sides"):
        search_br_against_pool.gains(path)
