"""cardenvs/evaluation/leaderboard.py and ``cardenvs leaderboard``: the round robin of every pair of agents on the
same deals, the ratings over all of it, each agent's exploitability from its best response (trained, or reused from
the results folder), the markdown table, the JSON and the rating-against-exploitability plot."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from cardenvs.cli import main
from cardenvs.evaluation import run_tournament
from cardenvs.evaluation.leaderboard import (
    Leaderboard,
    game_records,
    pairwise_ratings,
    plot_rating_vs_exploitability,
    run_leaderboard,
    shipped_agents,
    slowest_first,
)
from cardenvs.training.exploit import leaderboard_exploitability

GAME = "slabberjan_v0"
#: a best response small enough for a test: a few thousand decisions of 16 games, tiny matches
TINY_BR = {"decisions": 2000, "curve_points": 1, "curve_games": 20,
           "options": {"num_envs": 16, "torch_threads": 1, "device": "cpu"},
           "search_options": "determinizations=2", "search_games": 8}


@pytest.mark.parametrize("env_id", ["slabberjan_v0", "gin_slaughtre_v0", "clabber_v0", "stabby_jack_v0", "slap_v0"])
def test_the_shipped_agents_are_random_the_rule_based_and_trained_agents_and_the_search_agents_where_they_apply(
        env_id):
    import cardenvs
    from cardenvs.agents.registry import SPEC_KINDS

    search = [spec for spec in ("pimc", "ismcts:iterations=25") if spec.partition(":")[0] in SPEC_KINDS]
    has_resampler = cardenvs.get_game(env_id).resample is not None
    assert shipped_agents(env_id) == ["random", "heuristic", "trained", *(search if has_resampler else [])]


def test_the_round_robin_plays_every_pair_on_the_same_deals_and_rates_the_stronger_agent_higher(tmp_path):
    board = run_leaderboard(GAME, ["random", "heuristic"], games=100, seed=2, results_dir=tmp_path, exploit=False)
    alone = run_tournament(GAME, ["random", "heuristic"], 100, seed=2, progress=False,
                           results_path=tmp_path / "alone.jsonl")
    assert board.difference("heuristic", "random") == pytest.approx(
        (-alone.head_to_head.mean_difference, alone.head_to_head.ci95))
    assert board.ranking() == ["heuristic", "random"]
    assert board.mean_reward["heuristic"][0] == pytest.approx(alone.stats["heuristic"].mean_reward)
    assert board.exploitability == {"random": None, "heuristic": None}
    saved = Leaderboard.load(tmp_path / "leaderboard.json")
    assert saved.ratings == board.ratings and saved.head_to_head == board.head_to_head
    table = board.table()
    assert table.index("| heuristic |") < table.index("| random |") and "| — | — |" in table


def test_ratings_count_every_match_and_favour_the_agent_that_wins_its_games():
    wins = np.array([[1.0, -1.0]] * 30)
    ratings = pairwise_ratings(["a", "b", "c"], {("a", "b"): wins, ("b", "c"): wins, ("a", "c"): wins})
    assert ratings["a"][0] > ratings["b"][0] > ratings["c"][0]
    assert ratings["a"][1] < 8.333  # openskill's prior sigma: every agent's games count


def test_each_agent_s_best_response_is_trained_once_then_reused_and_plotted(tmp_path):
    settings = {"games": 40, "seed": 1, "exploit_minutes": 0.0, "exploit_games": 40, "results_dir": tmp_path,
                "exploit_settings": TINY_BR, "measure": leaderboard_exploitability}
    board = run_leaderboard(GAME, ["random", "heuristic"], **settings)
    for spec in ("random", "heuristic"):
        found = board.exploitability[spec]
        records = game_records(tmp_path / "exploit" / spec / "matches" / "final.jsonl")
        assert found["games"] == len(records) == 40 and found["decisions"] >= TINY_BR["decisions"]
        learned = found["gains"]["learned BR"]
        assert learned[1] > 0 and np.isfinite(learned[0]) and "search BR" in found["gains"]
        assert found["gain"] == max(0.0, *(gain for gain, _ in found["gains"].values()))
    stamps = {path: path.stat().st_mtime_ns for path in (tmp_path / "exploit").rglob("*") if path.is_file()}
    again = run_leaderboard(GAME, ["random", "heuristic"], **settings)
    assert again.exploitability == board.exploitability
    assert all(path.stat().st_mtime_ns == stamp for path, stamp in stamps.items())  # nothing trained or played
    picture = plot_rating_vs_exploitability([board, again], tmp_path / "plot.png")
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_best_responses_are_trained_only_for_the_exploit_agents(tmp_path):
    settings = {"games": 40, "seed": 1, "exploit_minutes": 0.0, "exploit_games": 40, "results_dir": tmp_path,
                "exploit_settings": TINY_BR, "measure": leaderboard_exploitability}
    board = run_leaderboard(GAME, ["random", "heuristic"], exploit_agents=["heuristic"], **settings)
    assert board.exploitability["random"] is None and board.exploitability["heuristic"] is not None
    assert not (tmp_path / "exploit" / "random").exists()
    assert "| random |" in board.table() and "—" in board.table()
    with pytest.raises(ValueError, match="trained are not among"):
        run_leaderboard(GAME, ["random", "heuristic"], exploit_agents=["trained"], **settings)


def test_cardenvs_leaderboard_plays_several_games_with_a_panel_each(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default results folders, runs/leaderboard/GAME, land here
    argv = ["leaderboard", GAME, "slap_v0", "--agents", "random", "heuristic", "--games", "20",
            "--exploit-minutes", "0", "--plot", "both.png"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.count("| agent | rating (μ ± σ) |") == 2 and "slap_v0: round robin" in printed
    assert (tmp_path / "runs" / "leaderboard" / "slap_v0" / "leaderboard.json").is_file()
    assert (tmp_path / "both.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main([*argv[:8], "--json", "one.json"]) == 2
    assert "--results and --json take one game" in capsys.readouterr().err
    (tmp_path / "both.png").unlink()
    assert main(["leaderboard", GAME, "slap_v0", "--saved", "--plot", "both.png"]) == 0  # plays nothing
    assert capsys.readouterr().out == printed.replace("plot: both.png\n", "") + "plot: both.png\n"
    assert (tmp_path / "both.png").is_file()
    assert main(["leaderboard", "clabber_v0", "--saved"]) == 2
    assert "no saved leaderboard of clabber_v0" in capsys.readouterr().err
    assert main([*argv[:8], "--exploit-agents", "pimc"]) == 2
    assert "exploit agents pimc are not among" in capsys.readouterr().err


def test_cardenvs_leaderboard_prints_the_table_and_writes_json_and_plot(tmp_path, capsys):
    argv = ["leaderboard", GAME, "--agents", "random", "heuristic", "--games", "40", "--exploit-minutes", "0",
            "--results", str(tmp_path / "results"), "--json", str(tmp_path / "board.json"),
            "--plot", str(tmp_path / "board.png")]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "| agent | rating (μ ± σ) |" in printed and "head to head" in printed
    assert json.loads((tmp_path / "board.json").read_text())["agents"] == ["random", "heuristic"]
    assert (tmp_path / "board.png").is_file()
    assert main(["leaderboard", GAME, "--agents", "random", "random"]) == 2
    assert "two or more different agents" in capsys.readouterr().err


def test_cardenvs_leaderboard_passes_the_learning_curve_s_size_to_every_best_response(tmp_path, monkeypatch,
                                                                                     capsys):
    import cardenvs.evaluation.leaderboard as leaderboard

    seen = []

    def record(env_id, agents, **kwargs):
        seen.append(kwargs["exploit_settings"])
        return run_leaderboard(env_id, agents, **{**kwargs, "exploit": False})

    monkeypatch.setattr(leaderboard, "run_leaderboard", record)
    argv = ["leaderboard", GAME, "--agents", "random", "heuristic", "--games", "20", "--results", str(tmp_path)]
    assert main([*argv, "--exploit-curve-points", "2", "--exploit-curve-games", "60"]) == 0
    assert main(argv) == 0
    assert main([*argv, "--exploit-search-options", "rollout=trained,depth=4"]) == 0
    search = {"search": None, "search_games": 400}
    assert seen == [{"curve_points": 2, "curve_games": 60, "search_options": "", **search},
                    {"curve_points": 10, "curve_games": 400, "search_options": "", **search},
                    {"curve_points": 10, "curve_games": 400, "search_options": "rollout=trained,depth=4", **search}]
    for flag, value in (("--exploit-curve-games", "0"), ("--exploit-curve-points", "-1"),
                        ("--exploit-curve-points", "x")):
        assert main([*argv, flag, value]) == 2
        error = capsys.readouterr().err
        assert f"argument {flag}:" in error and "Traceback" not in error
    for options, message in (("determinizations=0", "determinizations=0 is not allowed"),
                             ("belief=policy", "give no belief"), ("rollout=ppo:missing.pt", "missing.pt")):
        assert main([*argv, "--exploit-search-options", options]) == 2
        error = capsys.readouterr().err
        assert message in error and len(error.strip().splitlines()) == 1
    assert main([*argv, "--exploit-search", "none", "--exploit-search-options", "rollouts=2"]) == 2
    assert "needs a search" in capsys.readouterr().err
    assert len(seen) == 3  # nothing ran


def test_the_command_lines_learning_curve_defaults_are_the_best_response_s():
    from cardenvs.cli import build_parser
    from cardenvs.training import exploit

    for command, prefix in (("exploit", ""), ("leaderboard", "exploit_")):
        defaults = build_parser().parse_args([command, GAME, *(["random"] if command == "exploit" else [])])
        assert getattr(defaults, f"{prefix}curve_points") == exploit.DEFAULT_CURVE_POINTS
        assert getattr(defaults, f"{prefix}curve_games") == exploit.DEFAULT_CURVE_GAMES


def test_the_issue_s_example_seed_plays_the_round_robin_and_trains_its_best_responses(tmp_path, capsys):
    """``cardenvs leaderboard slap_v0 --agents random heuristic --games 2 --seed 9223372036854775808`` once played
    and saved the match, then exited 2 when its best responses refused the seed: one seed rule everywhere now."""
    seed = 2**63
    argv = ["leaderboard", "slap_v0", "--agents", "random", "heuristic", "--games", "2", "--seed", str(seed),
            "--results", str(tmp_path), "--exploit-minutes", "0.01", "--exploit-games", "2",
            "--exploit-curve-points", "0", "--exploit-search", "none"]
    assert main(argv) == 0
    assert json.loads((tmp_path / "leaderboard.json").read_text())["seed"] == seed
    for spec in ("random", "heuristic"):
        assert json.loads((tmp_path / "exploit" / spec / "exploit.json").read_text())["settings"]["seed"] == seed
    assert "| heuristic |" in capsys.readouterr().out


def test_a_seed_outside_the_seed_rule_is_refused_before_anything_is_played(tmp_path, capsys):
    argv = ["leaderboard", GAME, "--agents", "random", "heuristic", "--games", "2", "--results", str(tmp_path / "r")]
    assert main([*argv, "--seed", str(2**64)]) == 2
    assert "a seed is an integer from 0 to 2**64-1" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"an integer from 0 to 2\*\*64-1"):
        run_leaderboard(GAME, ["random", "heuristic"], games=2, seed=2**64, results_dir=tmp_path / "r")
    assert not (tmp_path / "r").exists()


def losing_responders(env_id, spec, run_dir, **kwargs):
    """A measure whose learned and search BRs both lost to the agent: only the pool can show it exploitable."""
    return {"gain": -0.5, "gain_ci95": 0.1, "responder": "learned BR", "margin": -1.0, "margin_ci95": 0.2,
            "gains": {"learned BR": [-0.5, 0.1], "search BR": [-0.7, 0.1]}}


def test_the_exploitability_is_the_largest_gain_of_any_responder_or_pool_agent_and_never_negative(tmp_path):
    board = run_leaderboard("gin_slaughtre_v0", ["random", "heuristic"], games=40, seed=1, results_dir=tmp_path,
                            measure=losing_responders)
    beaten, winner = board.exploitability["random"], board.exploitability["heuristic"]
    margin, ci = board.difference("heuristic", "random")
    assert margin > 0  # the rule-based agent beats random: it is a response that gains against it
    assert beaten["responder"] == "pool: heuristic"
    assert (beaten["gain"], beaten["gain_ci95"]) == pytest.approx((margin / 2, ci / 2))  # two zero-sum sides
    assert beaten["gains"]["learned BR"] == [-0.5, 0.1] and beaten["gains"]["search BR"] == [-0.7, 0.1]
    assert (winner["gain"], winner["responder"]) == (0.0, "the agent itself")  # every known response lost
    assert winner["gains"]["pool: random"][0] < 0
    assert "| the agent itself |" in board.table() and "| pool: heuristic |" in board.table()


def test_a_pool_agent_s_gain_in_a_game_of_many_sides_is_measured_against_the_agent_s_own_games(tmp_path):
    """Slabberjan's four seats each play for themselves: the agent's own games are played on the round robin's
    deals, seated as in the match, and the gain compares the two game by game."""
    board = run_leaderboard(GAME, ["random", "heuristic"], games=24, seed=2, results_dir=tmp_path,
                            measure=losing_responders)
    match = game_records(tmp_path / "matches" / "random--heuristic.jsonl")
    own = game_records(tmp_path / "matches" / "own--random.jsonl")
    assert [record["deal"] for record in own] == [record["deal"] for record in match]
    assert [record["seats"] for record in own] == [record["seats"] for record in match]  # the same seats per slot
    from cardenvs.evaluation.tournament import agent_rewards

    difference = agent_rewards(match, 2)[:, 1] - agent_rewards(own, 2)[:, 1]
    found = board.exploitability["random"]["gains"]["pool: heuristic"]
    assert found[0] == pytest.approx(difference.mean()) and found[0] > 0
    assert board.exploitability["random"]["gain"] == found[0]
    assert board.exploitability["heuristic"]["gain"] >= 0


def test_matches_played_two_at_a_time_in_worker_processes_are_the_same_as_one_after_another(tmp_path):
    """Every game's seed is fixed, so the round robin and the own games the pool's gains need come out the same,
    game for game, whether played one after another or in two worker processes; the measures, run in the workers
    too, give the same leaderboard."""
    agents = ["random", "heuristic", "trained"]
    boards = {jobs: run_leaderboard(GAME, agents, games=12, seed=2, results_dir=tmp_path / str(jobs),
                                    measure=losing_responders, jobs=jobs) for jobs in (1, 2)}
    for name in sorted(path.name for path in (tmp_path / "1" / "matches").iterdir()):
        first, second = (game_records(tmp_path / str(jobs) / "matches" / name) for jobs in (1, 2))
        assert first == second, name
    assert len(list((tmp_path / "2" / "matches").glob("own--*.jsonl"))) == len(agents)
    assert boards[1].to_dict() == boards[2].to_dict()


@pytest.mark.parametrize("jobs", ["0", "-2", "two", "1.5"])
def test_cardenvs_leaderboard_refuses_a_bad_number_of_jobs_before_anything_is_played(tmp_path, capsys, jobs):
    argv = ["leaderboard", GAME, "--agents", "random", "heuristic", "--games", "2", "--results", str(tmp_path / "r")]
    assert main([*argv, "--jobs", jobs]) == 2
    error = capsys.readouterr().err
    assert "--jobs" in error and "Traceback" not in error
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True])
def test_a_number_of_jobs_below_one_or_not_whole_is_refused_before_anything_is_played(tmp_path, jobs):
    with pytest.raises(ValueError, match="jobs must be a whole number of at least 1"):
        run_leaderboard(GAME, ["random", "heuristic"], games=4, results_dir=tmp_path, jobs=jobs)
    assert not tmp_path.joinpath("matches").exists()


def test_the_matches_and_agents_with_the_most_search_agents_start_first_else_in_their_order():
    agents = ["random", "pimc", "heuristic", "ismcts:iterations=25"]
    assert slowest_first(agents) == ["pimc", "ismcts:iterations=25", "random", "heuristic"]
    assert slowest_first(list(itertools.combinations(agents, 2)))[:3] == [
        ("pimc", "ismcts:iterations=25"), ("random", "pimc"), ("random", "ismcts:iterations=25")]
