"""Clabber against random, hand by hand: who makes trump, and where each side's points come from.

A game to 500 lasts several hands, and its winner is whoever adds more points over them, so what decides a
partnership's win rate against random is how many points it gains on random per hand. This script splits those
hands by which side made trump and shows, for each side, the trick points (card points and the last trick), the
melds and Bell scored, the points added to the score (the makers add nothing when they fail) and how often the
makers made their contract.

    python -m experiments.clabber_hands --agent heuristic
    python -m experiments.clabber_hands --agent trained

The agent plays both seats of one partnership, random the other two, as a two-agent tournament seats them (seats
0 and 2 at even tables, 1 and 3 at odd ones). Every hand played out is counted when it ends, except each game's
last hand, whose record starts over with the next game; throw-ins score nothing and are not hands played.
docs/experiments.md gives what it found for the rule-based, trained and random agents.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import cardenvs
from cardenvs.agents.base import act_on_rows
from cardenvs.agents.registry import make_agent
from cardenvs.evaluation.tournament import Z_95
from experiments.report import run_report

ENV_ID = "clabber_v0"
AGENT, RANDOM = 0, 1  # the two partnerships, as indices into the agents that play them
#: columns of a hand's row: who made trump, then (agent's, random's) trick points, hand points and points added
MAKER, TRICKS, HAND, ADDED = 0, slice(1, 3), slice(3, 5), slice(5, 7)


@dataclass
class Options:
    """The hands to count. Each field is the ``--option`` of the same name."""

    agent: str = "heuristic"
    """the partnership's agent: heuristic, trained, random or ppo:PATH"""
    hands: int = 20000
    """hands to count"""
    tables: int = 1000
    """games played at once"""
    seed: int = 1
    """seed of the deals and of the agents' own generators"""


def count_hands(agent: str, hands: int, tables: int = 1000, seed: int = 1) -> np.ndarray:
    """``[hands, 7]`` float rows, one per hand ended: the making side (AGENT or RANDOM), then the agent's and
    random's trick points, hand points (tricks, melds and Bell) and points added to their score."""
    if hands < 1 or tables < 1 or seed < 0:
        raise ValueError(f"hands and tables must be 1 or more, seed 0 or more; got {hands}, {tables}, {seed}")
    if agent == "human":
        raise ValueError("a human cannot play thousands of hands at once; use heuristic, trained, random or ppo:PATH")
    venv = cardenvs.vector_env(ENV_ID, tables)
    agents = [make_agent(agent, ENV_ID, venv.layout, seed=seed), make_agent("random", ENV_ID, venv.layout, seed=seed)]
    team = np.arange(tables) % 2  # the agent's team (seats team, team + 2) at each table
    seating = (np.arange(venv.num_players)[None, :] % 2 != team[:, None]).astype(np.int64)  # AGENT or RANDOM
    rows = np.arange(tables)
    obs, masks, players = venv.reset(seeds=seed * tables + rows)
    actions = np.zeros(tables, np.int64)
    played = np.asarray(venv.states.hands_played).copy()
    counted: list[np.ndarray] = []
    total = 0
    while total < hands:
        act_on_rows(agents, seating, obs, masks, players, actions)
        obs, masks, players, _, terminated, truncated = venv.step(actions)
        states = venv.states
        now = np.asarray(states.hands_played)
        ended = np.flatnonzero((now > played) & ~terminated & ~truncated)
        played = now.copy()
        if ended.size == 0:
            continue
        block = np.empty((ended.size, 7))
        block[:, MAKER] = np.asarray(states.hand_maker)[ended] % 2 != team[ended]
        within = np.arange(ended.size)
        for column, name in ((TRICKS, "hand_trick_points"), (HAND, "hand_total"), (ADDED, "hand_added")):
            values = np.asarray(getattr(states, name))[ended]  # [ended, team]
            block[:, column] = np.stack([values[within, team[ended]], values[within, 1 - team[ended]]], axis=1)
        counted.append(block)
        total += ended.size
    return np.concatenate(counted)[:hands]


def report(agent: str, table: np.ndarray) -> str:
    """The hands of ``table`` (``count_hands``) by making side, as text."""
    lines = [f"{agent} partnership against random, {len(table):,} hands of games to 500 "
             "(agent / random; the makers add nothing when they fail)",
             f"{'':14}{'share':>7}{'trick points':>16}{'melds, Bell':>14}{'points added':>16}{'contract made':>15}"]
    for name, side in (("agent makes", AGENT), ("random makes", RANDOM)):
        hands = table[table[:, MAKER] == side]
        if len(hands) == 0:
            continue
        tricks, added = hands[:, TRICKS].mean(0), hands[:, ADDED].mean(0)
        melds = (hands[:, HAND] - hands[:, TRICKS]).mean(0)
        made = (hands[:, HAND][:, side] > hands[:, HAND][:, 1 - side]).mean()
        lines.append(f"{name:14}{len(hands) / len(table):7.1%}{tricks[0]:8.1f} /{tricks[1]:6.1f}"
                     f"{melds[0]:6.1f} /{melds[1]:6.1f}{added[0]:8.1f} /{added[1]:6.1f}{made:15.1%}")
    lead = table[:, ADDED][:, 0] - table[:, ADDED][:, 1]
    ci95 = Z_95 * lead.std(ddof=1) / math.sqrt(len(lead)) if len(lead) > 1 else 0.0
    lines.append(f"points added a hand, agent minus random: {lead.mean():+.1f} +- {ci95:.1f}; "
                 f"hands in which random adds more: {(lead < 0).mean():.1%}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    def count_and_report(options: Options) -> str:
        return report(options.agent, count_hands(options.agent, options.hands, options.tables, options.seed))

    return run_report(Options, __doc__, count_and_report, argv)


if __name__ == "__main__":
    sys.exit(main())
