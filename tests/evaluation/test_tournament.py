"""Tournaments: seat arrangements, duplicate deals, batched = AEC play, resuming, statistics, JSON and plot."""

import hashlib
import json
import math
import zlib
from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs.agents.base import Agent
from cardenvs.agents.clabber import ClabberHeuristic
from cardenvs.agents.registry import make_agent
from cardenvs.evaluation import TournamentResult, run_tournament, seat_arrangements
from cardenvs.evaluation.plot import plot_ladder
from cardenvs.evaluation.tournament import Z_95, ResultsFileError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class ObservationHashAgent(Agent):
    """A deterministic stand-in for random play: the legal action picked by a hash of the observation."""

    def __init__(self, name: str = "hash"):
        self.name = name

    def act(self, observation):
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[zlib.crc32(observation["observation"].tobytes()) % len(legal)])


class Unbatched(Agent):
    """Another agent that says it cannot act on batches, so that the tournament runs on the AEC env."""

    acts_in_batches = False

    def __init__(self, inner: Agent):
        self.inner = inner
        self.name = inner.name

    def act(self, observation):
        return self.inner.act(observation)


def _lines(path):
    lines = path.read_text().splitlines()
    return json.loads(lines[0])["tournament"], [json.loads(line) for line in lines[1:]]


# ---------------------------------------------------------------- seats and deals
def test_two_agents_alternate_and_swap():
    assert seat_arrangements(2, 2) == [[0, 1], [1, 0]]
    # Clabber's partnerships {0, 2} and {1, 3} stay partnerships in every arrangement.
    assert seat_arrangements(2, 4) == [[0, 1, 0, 1], [1, 0, 1, 0]]


@pytest.mark.parametrize(("num_agents", "num_players", "count"), [(3, 3, 6), (3, 5, 6), (4, 4, 24), (5, 5, 5),
                                                                  (6, 8, 6), (1, 3, 1)])
def test_every_agent_holds_every_slot_equally_often(num_agents, num_players, count):
    arrangements = np.array(seat_arrangements(num_agents, num_players))
    assert len(arrangements) == count
    assert len({tuple(row) for row in arrangements.tolist()}) == count  # all distinct
    for slot in range(num_agents):
        held = arrangements[:, slot]
        assert np.bincount(held, minlength=num_agents).tolist() == [count // num_agents] * num_agents
    # Seats of the same lineup slot always hold the same agent.
    for seat in range(num_agents, num_players):
        np.testing.assert_array_equal(arrangements[:, seat], arrangements[:, seat % num_agents])


def test_more_agents_than_seats_is_refused():
    with pytest.raises(ValueError, match="do not fit 2 seats"):
        seat_arrangements(3, 2)
    with pytest.raises(ValueError, match="do not fit"):
        run_tournament("gin_slaughtre_v0", ["random", "heuristic", "random"], 4, progress=False)


def test_every_deal_is_replayed_under_every_arrangement(tmp_path):
    path = tmp_path / "results.jsonl"
    result = run_tournament("clabber_v0", ["random", "heuristic"], 11, seed=3, progress=False, results_path=path)
    assert result.games == 12 and result.deals == 6  # rounded up to whole duplicate sets
    header, records = _lines(path)
    assert header["arrangements"] == [[0, 1, 0, 1], [1, 0, 1, 0]]
    assert sorted(record["game"] for record in records) == list(range(12))
    for record in records:
        assert record["game"] == record["deal"] * 2 + record["arrangement"]
        assert record["seed"] == cardenvs.game_seed(3, record["deal"])
        assert record["seats"] == header["arrangements"][record["arrangement"]]
        assert len(record["rewards"]) == 4 and record["length"] > 0


def test_same_seed_same_results_other_seed_other_deals(tmp_path):
    runs = [
        run_tournament("slabberjan_v0", ["random", "heuristic"], 16, seed=seed, progress=False,
                       results_path=tmp_path / name)
        for seed, name in ((5, "a.jsonl"), (5, "b.jsonl"), (6, "c.jsonl"))
    ]
    a, b, c = (_lines(tmp_path / name)[1] for name in ("a.jsonl", "b.jsonl", "c.jsonl"))
    assert sorted(a, key=lambda r: r["game"]) == sorted(b, key=lambda r: r["game"])
    assert runs[0].to_dict()["stats"] == runs[1].to_dict()["stats"]
    assert {r["seed"] for r in a}.isdisjoint({r["seed"] for r in c})


# ---------------------------------------------------------------- batched play = AEC play
def _batched_and_aec(tmp_path, env_id: str, params: dict, lineup: list[str]) -> tuple[TournamentResult, int]:
    """One tournament played batched and on the AEC env; asserts that they agree exactly.

    Returns:
        The batched tournament's result and its number of games.
    """
    layout = cardenvs.env(env_id, **params).unwrapped.layout

    def agents():
        return [make_agent("heuristic", env_id, layout) if kind == "heuristic" else ObservationHashAgent()
                for kind in lineup]

    games = 2 * len(seat_arrangements(len(lineup), len(cardenvs.env(env_id, **params).possible_agents)))
    batched = run_tournament(env_id, agents(), games, seed=9, params=params, progress=False,
                             results_path=tmp_path / "batched.jsonl", batch_size=5)
    aec = run_tournament(env_id, [Unbatched(agent) for agent in agents()], games, seed=9, params=params,
                         progress=False, results_path=tmp_path / "aec.jsonl")
    assert batched.agents == aec.agents and batched.new_games == aec.new_games == games

    def by_game(name):
        return {r["game"]: (r["rewards"], r["length"], r["truncated"]) for r in _lines(tmp_path / name)[1]}

    assert by_game("batched.jsonl") == by_game("aec.jsonl")
    assert batched.to_dict()["stats"] == aec.to_dict()["stats"]
    return batched, games


@pytest.mark.parametrize("env_id", cardenvs.available_envs())
def test_batched_and_aec_tournaments_agree_exactly(tmp_path, env_id):
    # every game, in its short whole games (the manifest's quick_params)
    _batched_and_aec(tmp_path, env_id, cardenvs.get_game(env_id).quick_params, ["heuristic", "hash"])


def test_batched_and_aec_agree_over_whole_clabber_games(tmp_path):
    # hands dealt on to the target score, partners holding the same agent
    _batched_and_aec(tmp_path, "clabber_v0", {}, ["heuristic", "hash"])


def test_batched_and_aec_agree_with_more_seats_than_agents(tmp_path):
    _batched_and_aec(tmp_path, "slabberjan_v0", {"num_players": 5}, ["heuristic", "hash", "hash"])


def test_batched_and_aec_agree_on_games_cut_short(tmp_path):
    batched, games = _batched_and_aec(tmp_path, "gin_slaughtre_v0", {"max_turns": 60}, ["hash", "heuristic"])
    assert 0 < batched.truncated_games < games  # some games end truncated, not all


# ---------------------------------------------------------------- resuming
def test_an_interrupted_tournament_resumes_without_replaying(tmp_path, monkeypatch):
    env_id, games = "clabber_v0", 24
    lineup = [ObservationHashAgent(), "heuristic"]  # deterministic: any batching gives the same games
    complete = run_tournament(env_id, lineup, games, seed=1, progress=False, results_path=tmp_path / "complete.jsonl",
                              batch_size=8)
    path = tmp_path / "interrupted.jsonl"
    calls = {"count": 0}

    def interrupting_act_batch(self, observations, masks):
        calls["count"] += 1
        if calls["count"] > 150:  # after the first games of 8 slots have ended
            raise KeyboardInterrupt
        return Agent.act_batch(self, observations, masks)

    monkeypatch.setattr(ClabberHeuristic, "act_batch", interrupting_act_batch)
    with pytest.raises(KeyboardInterrupt):
        run_tournament(env_id, lineup, games, seed=1, progress=False, results_path=path, batch_size=8)
    monkeypatch.undo()
    _, played = _lines(path)
    assert 0 < len(played) < games
    with open(path, "a") as stream:
        stream.write('{"game": 23, "deal": 11, "arr')  # a write cut short by the interruption

    resumed = run_tournament(env_id, lineup, games, seed=1, progress=False, results_path=path, batch_size=8)
    assert resumed.new_games == games - len(played)
    _, records = _lines(path)
    assert sorted(r["game"] for r in records) == list(range(games))  # each game once
    assert resumed.to_dict()["stats"] == complete.to_dict()["stats"]
    again = run_tournament(env_id, lineup, games, seed=1, progress=False, results_path=path)
    assert again.new_games == 0 and again.to_dict()["stats"] == complete.to_dict()["stats"]


def test_other_arguments_never_mix(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    first = run_tournament("gin_slaughtre_v0", ["random", "heuristic"], 4, seed=1, progress=False)
    other_seed = run_tournament("gin_slaughtre_v0", ["random", "heuristic"], 4, seed=2, progress=False)
    other_order = run_tournament("gin_slaughtre_v0", ["heuristic", "random"], 4, seed=1, progress=False)
    other_games = run_tournament("gin_slaughtre_v0", ["random", "heuristic"], 6, seed=1, progress=False)
    paths = {first.results_path, other_seed.results_path, other_order.results_path, other_games.results_path}
    assert len(paths) == 4 and all(p.startswith("runs/tournaments/gin_slaughtre_v0-") for p in paths)
    assert other_seed.new_games == other_order.new_games == 4 and other_games.new_games == 6
    with pytest.raises(ValueError, match="another tournament"):
        run_tournament("gin_slaughtre_v0", ["random", "heuristic"], 4, seed=2, progress=False,
                       results_path=first.results_path)
    assert len(_lines(tmp_path / first.results_path)[1]) == 4  # the refused run changed nothing


def test_duplicate_names_are_made_unique(tmp_path):
    result = run_tournament("clabber_v0", [ObservationHashAgent(), ObservationHashAgent()], 2,
                            progress=False, results_path=tmp_path / "r.jsonl")
    assert result.agents == ["hash", "hash#2"]


# ---------------------------------------------------------------- statistics
def _record(game, deal, seats, rewards, truncated=False):
    return {"game": game, "deal": deal, "seats": seats, "rewards": rewards, "truncated": truncated}


HAND_MADE = [
    _record(0, 0, [0, 1], [1.0, -1.0]),  # A +1, B -1
    _record(1, 0, [1, 0], [1.0, -1.0]),  # B +1, A -1
    _record(2, 1, [0, 1], [1.0, -1.0]),  # A +1
    _record(3, 1, [1, 0], [-1.0, 1.0]),  # A +1
    _record(4, 2, [0, 1], [0.0, 0.0], truncated=True),  # draw
    _record(5, 2, [1, 0], [-1.0, 1.0]),  # A +1
]


def test_mean_ci_and_win_rate_by_hand():
    result = TournamentResult.from_records("gin_slaughtre_v0", ["A", "B"], HAND_MADE[::-1])
    a, b = result.stats["A"], result.stats["B"]
    # A's mean per duplicate set: 0, 1, 0.5 -> mean 0.5, sample std 0.5.
    assert a.mean_reward == pytest.approx(0.5) and b.mean_reward == pytest.approx(-0.5)
    assert a.ci95 == pytest.approx(Z_95 * 0.5 / math.sqrt(3)) and b.ci95 == pytest.approx(a.ci95)
    assert (a.wins, b.wins, a.draws) == (4, 1, 1)
    assert a.win_rate == pytest.approx(4 / 6) and b.win_rate == pytest.approx(1 / 6)
    assert (result.games, result.deals, result.truncated_games) == (6, 3, 1)
    assert a.rating > b.rating and a.rating_sigma < 25 / 3
    duel = result.head_to_head
    assert (duel.first_wins, duel.second_wins, duel.draws) == (4, 1, 1)
    # A - B per duplicate set: 0, 2, 1 -> mean 1, sample std 1.
    assert duel.mean_difference == pytest.approx(1.0) and duel.ci95 == pytest.approx(Z_95 / math.sqrt(3))
    assert result.ranking()[0].name == "A"


def test_several_seats_and_several_winners():
    records = [
        _record(0, 0, [0, 1, 0, 1], [1.0, -1.0, -1.0, -1.0]),  # A 0, B -1: A wins
        _record(1, 1, [0, 1, 2, 0], [2.0, 2.0, -3.0, 0.0]),  # A 1, B 2, C -3: B wins
        _record(2, 2, [0, 1, 2, 0], [1.0, 1.0, -2.0, 1.0]),  # A 1, B 1, C -2: A and B win
        _record(3, 3, [0, 1, 2, 0], [0.0, 0.0, 0.0, 0.0]),  # a draw
    ]
    with pytest.raises(ValueError, match="agent 2 holds no seat in game 0"):
        TournamentResult.from_records("slap_v0", ["A", "B", "C"], records)
    result = TournamentResult.from_records("slap_v0", ["A", "B", "C"], records[1:])
    assert [result.stats[n].wins for n in "ABC"] == [1, 2, 0]
    assert result.stats["C"].draws == 1 and result.head_to_head is None
    assert result.stats["A"].mean_reward == pytest.approx((1 + 1 + 0) / 3)


def test_one_deal_has_no_interval_and_json_says_so():
    result = TournamentResult.from_records("gin_slaughtre_v0", ["A", "B"], HAND_MADE[:2])
    assert math.isnan(result.stats["A"].ci95)
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["stats"]["A"]["ci95"] is None


# ---------------------------------------------------------------- outputs and strength
def test_json_table_and_plot(tmp_path):
    result = run_tournament("gin_slaughtre_v0", ["random", "heuristic"], 60, seed=4, progress=False,
                            results_path=tmp_path / "r.jsonl")
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["env_id"] == "gin_slaughtre_v0" and data["games"] == 60 and data["agents"] == ["random", "heuristic"]
    for name in ("random", "heuristic"):
        stats = data["stats"][name]
        assert {"games", "mean_reward", "ci95", "win_rate", "rating", "rating_sigma", "ordinal"} <= set(stats)
        assert stats["games"] == 60
    assert data["head_to_head"]["agents"] == ["random", "heuristic"]
    table = result.table()
    assert table.count("\n| ") == 3 and "| heuristic | 60 |" in table
    png = plot_ladder(result, tmp_path / "ladder.png")
    assert png.read_bytes().startswith(PNG_SIGNATURE) and png.stat().st_size > 1000


def test_heuristic_beats_random_in_a_two_player_game(tmp_path):
    result = run_tournament("gin_slaughtre_v0", ["random", "heuristic"], 100, seed=11, progress=False,
                            results_path=tmp_path / "r.jsonl")
    heuristic, random = result.stats["heuristic"], result.stats["random"]
    assert heuristic.mean_reward - heuristic.ci95 > random.mean_reward + random.ci95
    assert heuristic.win_rate > 0.9 and heuristic.rating > random.rating


def test_bad_arguments_are_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown env id"):
        run_tournament("chess_v0", ["random"], 2, progress=False)
    with pytest.raises(ValueError, match="unknown agent"):
        run_tournament("gin_slaughtre_v0", ["random", "bogus"], 2, progress=False)
    with pytest.raises(ValueError, match="no checkpoint"):
        run_tournament("gin_slaughtre_v0", ["random", f"ppo:{tmp_path}/missing.zip"], 2, progress=False)
    with pytest.raises(ValueError, match="games"):
        run_tournament("gin_slaughtre_v0", ["random"], 0, progress=False)
    with pytest.raises(ValueError, match="contradicts"):
        run_tournament("slap_v0", ["random"], 2, num_players=3, params={"num_players": 4}, progress=False)
    with pytest.raises(ValueError, match="num_players"):
        run_tournament("gin_slaughtre_v0", ["random"], 2, num_players=9, progress=False)


CHECKPOINT = Path(__file__).resolve().parents[2] / "agents" / "checkpoints" / "slabberjan_v0.pt"


def test_a_trained_policy_plays_by_its_spec(tmp_path):
    path = tmp_path / "r.jsonl"
    result = run_tournament("slabberjan_v0", ["heuristic", f"ppo:{CHECKPOINT}"], 8, progress=False, results_path=path)
    assert result.agents == ["heuristic", "ppo:slabberjan_v0"] and result.games == 8
    header, _ = _lines(path)
    assert header["agents"][1]["identity"]["checkpoint_sha256"] == hashlib.sha256(CHECKPOINT.read_bytes()).hexdigest()


def test_a_results_file_played_with_another_shipped_network_is_refused(tmp_path, monkeypatch):
    """``trained`` and the searches that may play the shipped network carry its content hash, the network-free
    agents do not, and a nested ``ppo:PATH`` carries its own: once the shipped network is replaced, a rerun refuses
    the old results instead of resuming them."""
    from cardenvs.agents import registry

    path, free = tmp_path / "r.jsonl", tmp_path / "free.jsonl"
    lineup = ["trained", f"pimc:rollout=ppo:{CHECKPOINT},determinizations=2"]
    run_tournament("slabberjan_v0", lineup, 2, progress=False, results_path=path)
    run_tournament("slabberjan_v0", ["heuristic", "random"], 2, progress=False, results_path=free)
    trained, searched = (agent["identity"] for agent in _lines(path)[0]["agents"])
    shipped = hashlib.sha256(registry.shipped_checkpoint("slabberjan_v0").read_bytes()).hexdigest()
    assert trained["shipped_sha256"] == shipped == searched["shipped_sha256"]
    assert searched["option_checkpoints_sha256"] == [hashlib.sha256(CHECKPOINT.read_bytes()).hexdigest()]
    assert all(set(agent["identity"]) == {"spec"} for agent in _lines(free)[0]["agents"])
    hashed = registry.checkpoint_sha256
    monkeypatch.setattr(registry, "checkpoint_sha256",
                        lambda file: "0" * 64 if file == registry.shipped_checkpoint("slabberjan_v0") else hashed(file))
    with pytest.raises(ResultsFileError, match="another tournament"):
        run_tournament("slabberjan_v0", lineup, 2, progress=False, results_path=path)
    assert run_tournament("slabberjan_v0", ["heuristic", "random"], 2, progress=False, results_path=free).games == 2
