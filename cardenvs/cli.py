"""The ``cardenvs`` command line.

``cardenvs demo ENV_ID [--players N] [--seed S]`` plays one game between the baseline agents (the game's
rule-based agent where there is one, else random) and prints it as it goes.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import cardenvs


def _baseline_agent(env_id: str, env):
    from agents import RandomAgent

    if env_id == "slabberjan_v0":
        from agents.slabberjan import SlabberjanHeuristic

        return SlabberjanHeuristic(env.unwrapped.layout)
    return RandomAgent(seed=0)


def demo(env_id: str, players: int | None, seed: int) -> int:
    """Play and print one game; returns a process exit code."""
    params = {} if players is None else {"num_players": players}
    try:
        env = cardenvs.env(env_id, render_mode="ansi", **params)
    except ValueError as error:
        print(f"cardenvs demo: {error}", file=sys.stderr)
        return 2
    agent = _baseline_agent(env_id, env)
    env.reset(seed=seed)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cardenvs", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    demo_parser = commands.add_parser("demo", help="play and print one game between baseline agents")
    demo_parser.add_argument("env_id", choices=cardenvs.available_envs())
    demo_parser.add_argument("--players", type=int, default=None, help="number of players (where allowed)")
    demo_parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.command == "demo":
        return demo(args.env_id, args.players, args.seed)
    return 2


if __name__ == "__main__":
    np.set_printoptions(linewidth=120)
    sys.exit(main())
