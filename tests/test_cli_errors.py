"""Every bad input to the ``cardenvs`` commands ends with a one-line message and exit code 1 or 2, never a
traceback, and is refused before anything is played that could be lost; help texts are plain and show every
default once; ``demo`` prints what a person reads; ``play`` announces what the game says about each move."""

from __future__ import annotations

import argparse
import itertools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cardenvs
from cardenvs.agents.registry import checkpoint_names
from cardenvs.cli import COMMANDS, build_parser, main
from cardenvs.commands import play
from cardenvs.evaluation import run_tournament

REPO = Path(__file__).resolve().parents[1]
CHECKPOINT = REPO / "agents" / "checkpoints" / "slabberjan_v0.pt"
TOO_BIG_SEED = str(2**64)
#: Sphinx markup that must never reach a terminal
SPHINX_MARKUP = ("``", ":mod:", ":data:", ":class:", ":func:", ":meth:", ":attr:")


def run_cli(argv: list[str]) -> int:
    """``cardenvs argv`` in this process; the exit code, whether main returns it or argparse exits with it."""
    try:
        return main(argv)
    except SystemExit as done:
        return done.code


def run_subprocess(argv: list[str], blocked: tuple[str, ...] = (), stdin: str = "") -> subprocess.CompletedProcess:
    """``cardenvs argv`` in a fresh interpreter where importing any of ``blocked`` fails (an extra not installed)."""
    shim = (
        "import sys\n"
        f"for name in {blocked!r}:\n"
        "    sys.modules[name] = None  # import raises ImportError, as when the package is missing\n"
        "from cardenvs.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", shim, *argv], input=stdin, capture_output=True, text=True,
                          timeout=600, cwd=REPO, env=environment)


def assert_clean_failure(code: int, err: str, *messages: str) -> None:
    assert code in (1, 2), (code, err)
    assert "Traceback" not in err, err
    for message in messages:
        assert message in err, err


# ------------------------------------------------------------------ one seed rule


@pytest.mark.parametrize("seed", ["-5", TOO_BIG_SEED, "seven"])
@pytest.mark.parametrize(
    "command",
    [
        ["demo", "slabberjan_v0"],
        ["play", "slabberjan_v0"],
        ["tournament", "slabberjan_v0", "--agents", "random", "heuristic", "--games", "2", "--no-progress"],
        ["baselines", "--env", "slabberjan_v0", "--games", "2", "--no-progress"],
    ],
)
def test_every_command_takes_seeds_from_0_to_2_64_minus_1_and_says_so(command, seed, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code = run_cli([*command, "--seed", seed])
    err = capsys.readouterr().err
    assert_clean_failure(code, err, "a seed is an integer from 0 to 2**64-1")
    assert not (tmp_path / "runs").exists()  # nothing was played


def test_the_largest_seed_plays_and_tournaments_refuse_what_the_commands_refuse(capsys):
    assert run_cli(["demo", "slabberjan_v0", "--seed", str(2**64 - 1)]) == 0
    assert "final rewards:" in capsys.readouterr().out
    for seed in (-1, 2**64):
        with pytest.raises(ValueError, match=re.escape("an integer from 0 to 2**64-1")):
            run_tournament("slabberjan_v0", ["random", "heuristic"], 2, seed=seed, progress=False)


# ------------------------------------------------------------------ extras that are not installed

TRAIN_PACKAGES = ("torch", "stable_baselines3", "sb3_contrib")


def test_a_ppo_agent_without_the_train_extra_says_which_extra_to_install(tmp_path):
    tournament = run_subprocess(["tournament", "slabberjan_v0", "--agents", "heuristic", f"ppo:{CHECKPOINT}",
                                 "--games", "2", "--no-progress", "--results", str(tmp_path / "r.jsonl")],
                                blocked=TRAIN_PACKAGES)
    assert_clean_failure(tournament.returncode, tournament.stderr, 'pip install "cardenvs[train]"')
    assert tournament.stderr.startswith("cardenvs tournament: ")
    played = run_subprocess(["play", "slabberjan_v0", "--opponents", f"ppo:{CHECKPOINT}", "--seed", "1"],
                            blocked=TRAIN_PACKAGES, stdin="q\n")
    assert_clean_failure(played.returncode, played.stderr, 'pip install "cardenvs[train]"')
    assert "your move" not in played.stdout  # refused before the game started


def test_an_rllib_agent_without_the_rllib_extra_says_which_extra_to_install(tmp_path):
    done = run_subprocess(["tournament", "clabber_v0", "--agents", "heuristic", f"rllib:{tmp_path}",
                           "--games", "2", "--no-progress", "--results", str(tmp_path / "r.jsonl")],
                          blocked=("ray",))
    assert_clean_failure(done.returncode, done.stderr, 'pip install "cardenvs[rllib]"')


# ------------------------------------------------------------------ tournaments


def test_a_person_cannot_join_a_tournament_and_is_told_why(tmp_path):
    done = run_subprocess(["tournament", "slabberjan_v0", "--agents", "human", "random", "--games", "2",
                           "--no-progress", "--results", str(tmp_path / "r.jsonl")], stdin="q\n")
    assert_clean_failure(done.returncode, done.stderr, "human cannot play in a tournament", "cardenvs play")
    assert not (tmp_path / "r.jsonl").exists()


def test_a_one_agent_tournament_is_refused(tmp_path, capsys):
    code = run_cli(["tournament", "clabber_v0", "--agents", "random", "--games", "2", "--no-progress",
                    "--results", str(tmp_path / "r.jsonl")])
    assert_clean_failure(code, capsys.readouterr().err, "at least two", "twice")
    assert not (tmp_path / "r.jsonl").exists()
    with pytest.raises(ValueError, match="at least two"):
        run_tournament("clabber_v0", ["heuristic"], 2, progress=False, results_path=tmp_path / "r.jsonl")


@pytest.mark.parametrize(
    ("flag", "name", "message"),
    [
        ("--json", "missing/r.json", "does not exist"),
        ("--plot", "missing/ladder.png", "does not exist"),
        ("--json", ".", "is a folder"),
        ("--results", ".", "is a folder"),
    ],
)
def test_tournament_output_paths_are_checked_before_playing(flag, name, message, tmp_path, capsys):
    results = tmp_path / "r.jsonl"
    arguments = ["tournament", "clabber_v0", "--agents", "random", "heuristic", "--games", "2", "--no-progress"]
    if flag != "--results":
        arguments += ["--results", str(results)]
    code = run_cli([*arguments, flag, str(tmp_path / name)])
    err = capsys.readouterr().err
    assert_clean_failure(code, err, flag, message)
    assert not results.exists()  # refused before a single game


def test_baselines_checks_its_games_and_output_paths_before_playing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code = run_cli(["baselines", "--env", "clabber_v0", "chess_v0", "--games", "2", "--no-progress"])
    assert_clean_failure(code, capsys.readouterr().err, "unknown env id 'chess_v0'")
    code = run_cli(["baselines", "--env", "clabber_v0", "--games", "2", "--no-progress",
                    "--markdown", "missing/baselines.md"])
    assert_clean_failure(code, capsys.readouterr().err, "--markdown", "does not exist")
    assert not (tmp_path / "runs").exists()


def test_checkpoints_of_the_same_file_name_are_named_by_their_distinguishing_paths():
    assert checkpoint_names(["runs/a/model.zip", "runs/b/model.zip"]) == ["a/model", "b/model"]
    assert checkpoint_names(["x/run/model.zip", "y/run/model.zip", "x/run/other.zip"]) == [
        "x/run/model", "y/run/model", "other",
    ]
    assert checkpoint_names(["runs/a/model.zip"]) == ["model"]
    assert checkpoint_names(["runs/a/model.zip", "runs/a/../a/model.zip"]) == ["model", "model"]  # one file


def test_a_tournament_between_two_models_of_one_name_tells_them_apart(tmp_path):
    pytest.importorskip("torch", reason="the train extra is not installed")
    for run in ("a", "b"):
        (tmp_path / "runs" / run).mkdir(parents=True)
        shutil.copy(CHECKPOINT, tmp_path / "runs" / run / "model.pt")
    specs = [f"ppo:{tmp_path / 'runs' / run / 'model.pt'}" for run in ("a", "b")]
    result = run_tournament("slabberjan_v0", specs, 2, progress=False, results_path=tmp_path / "r.jsonl")
    assert result.agents == ["ppo:a/model", "ppo:b/model"]


# ------------------------------------------------------------------ help texts


def _option_entries(help_text: str) -> dict[str, str]:
    """Each option's entry in a ``--help`` text (its invocation and help, whitespace made single)."""
    entries: dict[str, str] = {}
    section = help_text.split("\noptions:\n", 1)[1]
    for block in re.split(r"\n(?=  -)", section):
        words = " ".join(block.split())
        entries[words.split()[0].rstrip(",")] = words
    return entries


def test_every_help_text_is_plain_and_shows_every_default_once(capsys):
    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert run_cli(["--help"]) == 0
    top = capsys.readouterr().out
    assert all(command in top for command in COMMANDS) and not any(m in top for m in SPHINX_MARKUP)
    for command in COMMANDS:
        assert run_cli([command, "--help"]) == 0
        text = capsys.readouterr().out
        found = [markup for markup in SPHINX_MARKUP if markup in text]
        assert not found, f"cardenvs {command} --help shows {found}"
        entries = _option_entries(text)
        for action in subparsers[command]._actions:
            if not action.option_strings or action.nargs == 0 or action.required:  # no default to show
                continue
            entry = entries[action.option_strings[0]]
            assert entry.count("default") == 1, f"cardenvs {command} {action.option_strings[0]}: {entry}"
            if action.default is not None:
                shown = " ".join(map(str, action.default)) if isinstance(action.default, list) else str(action.default)
                assert f"(default: {shown})" in entry, f"cardenvs {command}: {entry}"


def test_a_missing_command_or_argument_is_a_usage_message(capsys):
    assert run_cli([]) == 2
    assert "the following arguments are required: COMMAND" in capsys.readouterr().err
    assert run_cli(["demo"]) == 2
    assert "the following arguments are required: GAME" in capsys.readouterr().err
    assert run_cli(["demo", "chess_v0"]) == 2
    assert "invalid choice: 'chess_v0'" in capsys.readouterr().err
    assert run_cli(["tournament", "clabber_v0", "--agents", "random", "heuristic", "--games", "0"]) == 2
    assert "argument --games: 0 is not allowed" in capsys.readouterr().err


# ------------------------------------------------------------------ demo


def test_demo_of_slap_prints_what_a_person_reads(capsys):
    assert run_cli(["demo", "slap_v0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    table_starts = [i for i, line in enumerate(lines) if line.startswith("Slap, ")]
    passes = [line for line in lines if line.endswith(": pass")]
    assert lines[-1].startswith("final rewards: ")
    assert passes and len(lines) < 4000
    # passes are summed up: never two pass lines in a row, and no table after a pass
    assert not any(a.endswith(": pass") and b.endswith(": pass") for a, b in itertools.pairwise(lines))
    assert not any(lines[i - 1].endswith(": pass") for i in table_starts[:-1])
    assert len(table_starts) < len(passes) + sum(line.endswith(": slap") for line in lines)


# ------------------------------------------------------------------ play


def _play(argv: list[str], answers) -> tuple[int, list[str]]:
    parser = argparse.ArgumentParser()
    play.add_arguments(parser)
    shown: list[str] = []
    code = play.run(parser.parse_args(argv), input_fn=answers, output=lambda text: shown.append(str(text)))
    return code, "\n".join(shown).splitlines()


def test_play_shows_what_the_game_announces_after_every_move(monkeypatch):
    game = cardenvs.get_game("clabber_v0")
    steps: list[tuple[bytes, bytes]] = []

    def announce(before, after, params):
        steps.append((before.tobytes(), after.tobytes()))
        return [f"announced {len(steps)}"]

    original = game.describe_step
    object.__setattr__(game, "describe_step", announce)  # Game is frozen: set it as dataclasses do
    try:
        answers = iter(["1", "1", "1", "q"])
        code, lines = _play(["clabber_v0", "--seed", "3", "--seat", "1", "--opponents", "random"],
                            lambda prompt: next(answers))
    finally:
        object.__setattr__(game, "describe_step", original)
    assert code == 0
    moves = [i for i, line in enumerate(lines) if re.match(r"(you|player_\d \(random\)): ", line)]
    assert len(moves) == len(steps) >= 4 and any(lines[i].startswith("you: ") for i in moves)
    for number, i in enumerate(moves, start=1):
        assert lines[i + 1] == f"  announced {number}"
    assert all(before != after for before, after in steps)  # each step's record before it, and after it
    assert all(steps[k][1] == steps[k + 1][0] for k in range(len(steps) - 1))


def test_play_checks_the_save_path_before_the_game(tmp_path, capsys):
    code, lines = _play(["clabber_v0", "--save", str(tmp_path / "missing" / "game.json")],
                        lambda prompt: pytest.fail("the game started"))
    assert code == 2 and not lines
    assert "--save" in capsys.readouterr().err
