"""``cardenvs demo ENV_ID [--players N] [--seed S]``: one game between the baseline agents, printed as it goes.

Every seat is played by the game's rule-based agent (:data:`agents.registry.HEURISTICS`).
"""

from __future__ import annotations

import argparse
import sys

import cardenvs

HELP = "play and print one game between the rule-based agents"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env_id", choices=cardenvs.available_envs())
    parser.add_argument("--players", type=int, default=None, help="number of players (where the game allows)")
    parser.add_argument("--seed", type=int, default=0, help="the game's seed")


def run(args: argparse.Namespace) -> int:
    from agents.registry import make_agent

    params = {} if args.players is None else {"num_players": args.players}
    try:
        env = cardenvs.env(args.env_id, render_mode="ansi", **params)
    except ValueError as error:
        print(f"cardenvs demo: {error}", file=sys.stderr)
        return 2
    agent = make_agent("heuristic", args.env_id, env.unwrapped.layout, seed=args.seed)
    env.reset(seed=args.seed)
    print(env.render())
    final_rewards: dict[str, float] = {}
    for name in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final_rewards[name] = reward
            env.step(None)
            continue
        action = agent.act(observation)
        print(f"\n{name} chooses: {env.unwrapped.game.action_name(env.unwrapped.params, action)}")
        env.step(action)
        print(env.render())
    print("\nfinal rewards:", ", ".join(f"{a} {r:+g}" for a, r in final_rewards.items()))
    return 0
