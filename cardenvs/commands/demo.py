"""Play one game between the game's rule-based agents and print it as it goes.

Every seat is played by the game's rule-based agent. The table is printed at the start, after every move
other than a pass, and at the end; each move is one line, with what the game announces about it (a burn, an
extra turn). The same move by several seats in a row is one line ("player_1, player_2: pass"; "16 moves by
player_0, player_1, player_2, player_3: pass"), and passes are not followed by the table, so games with many
passes (at Slap most slap windows pass) stay readable. --every-step prints the table after every move.
"""

from __future__ import annotations

import argparse
import sys

import cardenvs
from cardenvs.agents.base import act_in_env
from cardenvs.commands import positive_int_argument, seed_argument
from cardenvs.core.exit_codes import EXIT_USAGE

HELP = "play and print one game between the rule-based agents"
#: the action name of a pass: passes in a row are summed up in one line, without a table
PASS = "pass"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env_id", metavar="GAME", choices=cardenvs.available_envs(),
                        help="the game's env id: " + ", ".join(cardenvs.available_envs()))
    parser.add_argument("--players", type=positive_int_argument, default=None,
                        help="number of players, where the game allows (default: the game's)")
    parser.add_argument("--seed", type=seed_argument, default=0, help="the game's seed, from 0 to 2**64-1")
    parser.add_argument("--every-step", action="store_true", help="print the table after every move, passes too")


def run(args: argparse.Namespace) -> int:
    from cardenvs.agents.registry import make_agent

    params = {} if args.players is None else {"num_players": args.players}
    try:
        env = cardenvs.env(args.env_id, render_mode="ansi", **params)
    except (ValueError, TypeError) as error:
        print(f"cardenvs demo: {error}", file=sys.stderr)
        return EXIT_USAGE
    core = env.unwrapped
    agent = make_agent("heuristic", args.env_id, core.layout, seed=args.seed)
    env.reset(seed=args.seed)
    print(env.render())
    final_rewards: dict[str, float] = {}
    run_of = MoveRun(env)
    for name in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final_rewards[name] = reward
            env.step(None)
            continue
        action = act_in_env(agent, env, observation)
        action_name = core.game.action_name(core.params, action)
        if action_name != run_of.action_name:
            run_of.flush()
        before = core.state_record.copy()
        env.step(action)
        run_of.add(name, action_name)
        events = core.game.describe_step(before, core.state_record.copy(), core.params)
        if events or args.every_step:
            run_of.flush(events)
    run_of.flush()
    if not run_of.table_is_current:
        print("\n" + env.render())
    print("\nfinal rewards:", ", ".join(f"{a} {r:+g}" for a, r in final_rewards.items()))
    return 0


class MoveRun:
    """Moves in a row with the same action name, printed as one line when the run ends.

    The table follows the line, except after passes (a pass leaves the table as it was, but for whose turn it
    is); a run ends at the next other action, or at once when the game announces something about a move.
    """

    def __init__(self, env):
        self.env = env
        self.action_name: str | None = None
        self.players: list[str] = []
        self.table_is_current = True  # the last thing printed is the table as it stands

    def add(self, player: str, action_name: str) -> None:
        self.action_name = action_name
        self.players.append(player)

    def flush(self, events: list[str] = ()) -> None:
        """Print the run (and ``events``, what the game announced about its last move); start a new one."""
        if not self.players:
            return
        seats = list(dict.fromkeys(self.players))
        who = ", ".join(seats)
        if len(seats) < len(self.players):  # a long run: the same seats over and over
            who = f"{len(self.players)} moves by {who}"
        if self.action_name != PASS:
            print()  # a blank line before each move that a table follows
        print(f"{who}: {self.action_name}")
        for event in events:
            print(f"  {event}")
        self.table_is_current = self.action_name != PASS or bool(events)
        if self.table_is_current:
            print(self.env.render())
        self.action_name, self.players = None, []
