"""Play a game at the terminal against the baseline agents.

You play seat K (``--seat``; ``--seat random`` draws it); every other seat is played by ``--opponents``: one
agent spec for all of them or one per seat in seat order (``heuristic``, the game's rule-based agent;
``random``; ``trained``; ``ppo:PATH``; ``rllib:PATH``; the search agents ``pimc[:OPTIONS]``,
``ismcts[:OPTIONS]``). On your turn you see the public table, what only your seat sees (your hand, your piece,
the cards you know) and the legal actions, numbered. Type a number, or an action's
name or any unambiguous start of it (``10s`` for ``play 10S``); ``?`` lists the commands. Every move, yours and
the opponents', is shown in one line as it happens, followed by what the game announces about it (a burn, an
extra turn). ``q``, ``quit``, end of input (Ctrl-D) or Ctrl-C stop the game (exit code 0).

At the end you see the final table and everyone's reward. ``--save FILE`` writes the game record (also of an
abandoned game), which ``cardenvs replay FILE`` shows again step by step. Without ``--seed`` a seed is drawn
and printed, so a game can be played again.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import secrets
import sys
from collections.abc import Callable
from typing import Any

import cardenvs
from cardenvs.agents.base import act_in_env
from cardenvs.commands import check_output_file, positive_int_argument, seed_argument
from cardenvs.core.exit_codes import EXIT_FAILURE, EXIT_USAGE
from cardenvs.records import GameRecord, decisions

HELP = "play a game at the terminal against the baseline agents"
#: seeds drawn when none is given stay below this, so they are short to type again
DRAWN_SEED_LIMIT = 1_000_000
#: the engine makes a move at once when the rules leave one choice: it never reaches this command's log
FORCED_MOVES_NOTE = "moves the rules force (a single choice) are made at once and show on the table only"
#: how what the game announces about a move is set off under the move's line
EVENT_INDENT = "  "


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env_id", metavar="GAME", choices=cardenvs.available_envs(),
                        help="the game's env id: " + ", ".join(cardenvs.available_envs()))
    parser.add_argument("--seat", default="0", help="the seat you play, from 0, or 'random'")
    parser.add_argument(
        "--opponents", nargs="+", default=["heuristic"], metavar="SPEC",
        help="the other seats' agents: one spec for all, or one per seat in seat order (heuristic, random, "
        "trained, ppo:PATH, rllib:PATH, pimc[:OPTIONS], ismcts[:OPTIONS])",
    )
    parser.add_argument("--players", type=positive_int_argument, default=None,
                        help="number of players, where the game allows (default: the game's)")
    parser.add_argument("--seed", type=seed_argument, default=None,
                        help="the game's seed, from 0 to 2**64-1 (default: drawn and printed)")
    parser.add_argument("--params-json", default=None, metavar="JSON",
                        help='the game\'s parameters as a JSON object, e.g. \'{"target_score": 301}\' '
                        "(default: the game's)")
    parser.add_argument("--save", default=None, metavar="FILE",
                        help="write the game record to FILE, also of an abandoned game (default: not saved)")


class UsageError(Exception):
    """A bad argument: reported as a message, exit code 2."""


def _params(args: argparse.Namespace) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if args.params_json is not None:
        try:
            params = json.loads(args.params_json)
        except json.JSONDecodeError as error:
            raise UsageError(f"--params-json is not valid JSON: {error}") from error
        if not isinstance(params, dict):
            raise UsageError("--params-json must be a JSON object, e.g. '{\"num_players\": 3}'")
    if args.players is not None:
        params["num_players"] = args.players
    return params


def _seat(text: str, num_players: int, seed: int) -> int:
    if text == "random":
        return int(secrets.randbelow(num_players)) if seed is None else seed % num_players
    if not text.lstrip("-").isdigit() or not 0 <= int(text) < num_players:
        raise UsageError(f"--seat must be a seat from 0 to {num_players - 1}, or 'random'; got {text!r}")
    return int(text)


def _opponent_specs(specs: list[str], seats: list[int]) -> dict[int, str]:
    from cardenvs.agents.registry import check_spec

    for spec in specs:
        try:
            check_spec(spec)
        except ValueError as error:
            raise UsageError(str(error)) from error
        if spec == "human":
            raise UsageError("opponents cannot be 'human': one person plays, at --seat")
    if len(specs) == 1:
        specs = specs * len(seats)
    if len(specs) != len(seats):
        raise UsageError(f"--opponents takes one spec for all or one per other seat ({len(seats)}); got {len(specs)}")
    return dict(zip(seats, specs, strict=True))


def _setup(args: argparse.Namespace, input_fn: Callable[[str], str], output: Callable[[str], Any]):
    """The env, the human's seat, every seat's agent and its spec, the seed; UsageError for bad arguments."""
    from cardenvs.agents.registry import make_agent

    params = _params(args)
    try:
        check_output_file(args.save, "--save")
    except ValueError as error:
        raise UsageError(str(error)) from error
    try:
        env = cardenvs.env(args.env_id, render_mode="ansi", **params)
    except (ValueError, TypeError) as error:
        raise UsageError(str(error)) from error
    num_players = len(env.possible_agents)
    seed = args.seed if args.seed is not None else secrets.randbelow(DRAWN_SEED_LIMIT)
    seat = _seat(args.seat, num_players, None if args.seed is None else seed)
    specs = _opponent_specs(args.opponents, [s for s in range(num_players) if s != seat])
    layout = env.unwrapped.layout
    agents = {}
    for other, spec in specs.items():
        try:
            agents[other] = make_agent(spec, args.env_id, layout, seed=seed + other)
        except (ValueError, OSError, ImportError) as error:
            raise UsageError(f"cannot make the agent {spec!r}: {error}") from error
    from cardenvs.agents.human import HumanAgent

    human = HumanAgent(args.env_id, layout, input_fn=input_fn, output=output)
    human.bind(env, seat)
    agents[seat] = human
    specs[seat] = "you"
    return env, seat, agents, specs, seed


def run(args: argparse.Namespace, input_fn: Callable[[str], str] = input, output: Callable[[str], Any] = print) -> int:
    """Play one game; ``input_fn`` and ``output`` stand for the terminal (tests drive them)."""
    from cardenvs.agents.human import QuitGame

    try:
        env, seat, agents, specs, seed = _setup(args, input_fn, output)
    except UsageError as error:
        print(f"cardenvs play: {error}", file=sys.stderr)
        return EXIT_USAGE
    game, params = env.unwrapped.game, env.unwrapped.params
    record = GameRecord(
        env_id=args.env_id, params=dataclasses.asdict(params), seed=seed,
        agents=[specs[s] if s != seat else "human" for s in range(len(env.possible_agents))],
    )
    output(f"{args.env_id}, seed {seed}: you are player_{seat}; "
           + ", ".join(f"player_{s} {specs[s]}" for s in range(len(env.possible_agents)) if s != seat)
           + f"\n{FORCED_MOVES_NOTE}; type ? for help")
    env.reset(seed=seed)
    final: dict[str, float] = {}
    try:
        for name, observation in decisions(env, final):
            player = env.possible_agents.index(name)
            action = act_in_env(agents[player], env, observation)
            if player == seat:
                output(f"you: {game.action_name(params, action)}")
            else:  # as the person's seat may see it: a hidden choice is not named
                shown = (game.public_action_name or game.action_name)(params, action)
                output(f"{name} ({specs[player]}): {shown}")
            before = env.unwrapped.state_record.copy()
            env.step(action)  # agents return legal actions; the env refuses anything else without changing
            record.actions.append(int(action))
            for event in game.describe_step(before, env.unwrapped.state_record.copy(), params):
                output(f"{EVENT_INDENT}{event}")
    except (QuitGame, KeyboardInterrupt) as stop:
        reason = "Ctrl-C" if isinstance(stop, KeyboardInterrupt) else str(stop)
        taken = len(record.actions)
        output(f"\n{reason}: the game is abandoned after {taken} action{'' if taken == 1 else 's'}")
        return 0 if _save(record, args.save, output) else EXIT_FAILURE
    except cardenvs.IllegalActionError as error:
        print(f"cardenvs play: an opponent chose an illegal action: {error}", file=sys.stderr)
        return EXIT_FAILURE
    output("\n" + env.render())
    record.rewards = [final.get(a, 0.0) for a in env.possible_agents]
    output("final rewards: " + ", ".join(
        f"player_{s}{' (you)' if s == seat else ''} {r:+g}" for s, r in enumerate(record.rewards)))
    return 0 if _save(record, args.save, output) else EXIT_FAILURE


def _save(record: GameRecord, path: str | None, output: Callable[[str], Any]) -> bool:
    """Write the record to ``path`` (if given); False, with a message, if it cannot be written."""
    if path is None:
        return True
    try:
        record.save(path)
    except OSError as error:
        print(f"cardenvs play: could not save the game record to {path}: {error}", file=sys.stderr)
        return False
    finished = "" if record.rewards is not None else " (unfinished)"
    output(f"game record{finished} saved to {path}; show it again with: cardenvs replay {path}")
    return True
