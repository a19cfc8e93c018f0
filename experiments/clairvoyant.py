"""Slabberjan against random, seen from above: how often does a player who sees every piece win?

A trained agent plays from one seat's observation. This script measures what full knowledge is worth against
random: a *clairvoyant* player reads the whole state record, every seat's piece and the bag's order included,
which no agent may, and plays

* as a non-dealer: exchange exactly when the piece the attempt would reach (past any Inn) ranks above its own,
  and never run into a Cat, a Knight or a Bird;
* as the dealer, the last to act: whichever of standing and drawing from the bag leaves it more chips after the
  showdown, which it knows exactly, since every piece and the next bag piece are known.

With ``--rollouts K`` a non-dealer instead tries each action K times to the end of the round (the random seats
drawing their choices, the clairvoyant seats playing the rule above) and keeps the one that leaves it more chips.
The clairvoyant player holds two of the four seats, alternating sides from game to game, as a two-agent
tournament seats them; like any Slabberjan player, each of its seats plays for itself.

    python -m experiments.clairvoyant --games 4000
    python -m experiments.clairvoyant --games 1000 --rollouts 8

It prints the clairvoyant side's win rate with its 95 % interval, the draws and random's wins. It is an
analysis, not an agent: its wins are a reference for what hidden information costs, not a proof of the best
possible rate (the clairvoyant rule is not proven optimal). docs/experiments.md gives what it found.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import cardenvs
from cardenvs.core.game import new_states
from cardenvs.evaluation.tournament import Z_95
from cardenvs.games.slabberjan import rules
from cardenvs.games.slabberjan.pieces import BIRD, CAT, INN, KNIGHT
from experiments.report import run_report

ENV_ID = "slabberjan_v0"
#: matadors that cost the attacker a chip (Cat, Knight) or end the turns for nothing (Bird)
AVOIDED = (CAT, KNIGHT, BIRD)
OUT = -1.0  # the chips value of a seat that is out, or owes and will be out at the round's end


@dataclass
class Options:
    """The match to play. Each field is the ``--option`` of the same name."""

    games: int = 4000
    """games to play"""
    rollouts: int = 0
    """a non-dealer's rollouts per action to the end of the round (0: the one-look rule)"""
    seed: int = 1
    """seed of the deals and of the random seats' choices"""


@dataclass(frozen=True)
class MatchResult:
    games: int
    wins: int  # games won by one of the clairvoyant seats
    draws: int  # games in which the last players went out together

    @property
    def win_rate(self) -> float:
        return self.wins / self.games

    @property
    def ci95(self) -> float:
        rate = self.win_rate
        return Z_95 * math.sqrt(rate * (1.0 - rate) / self.games)


class Table:
    """One game's state record and the compiled rules that move it."""

    def __init__(self) -> None:
        self.game = cardenvs.get_game(ENV_ID)
        self.params = self.game.make_params()
        self.num_players = self.game.num_players(self.params)
        self.mask = np.zeros(self.game.num_actions(self.params), np.int8)
        states, self.template = new_states(self.game, self.params, 1)
        self.states = states.view(np.recarray)

    def deal(self, seed: int) -> None:
        self.states.view(np.uint8)[:] = self.template
        self.game.reset(self.states[0], np.uint64(seed))

    def legal(self, states: np.recarray) -> np.ndarray:
        self.game.legal_mask(states[0], self.mask)
        return np.flatnonzero(self.mask)

    def after(self, states: np.recarray, action: int) -> np.recarray:
        """A copy of ``states`` with ``action`` applied; ``states`` is left as it was."""
        copy = states.copy()
        self.game.step(copy[0], action)
        return copy


def chips_left(record, seat: int) -> float:
    return OUT if not record.in_game[seat] or record.owes[seat] else float(record.chips[seat])


def one_look_choice(table: Table, states: np.recarray, seat: int) -> int:
    """The clairvoyant rule (see the module docstring)."""
    record = states[0]
    if record.phase == rules.PHASE_DEALER:
        # The dealer acts last: the showdown that follows is known exactly for each choice.
        return int(max(table.legal(states), key=lambda action: chips_left(table.after(states, int(action))[0], seat)))
    target = rules.left_of(record, seat)
    while record.piece[target] == INN and target != seat:
        target = rules.left_of(record, target)
    kind = record.piece[target]
    if target == seat or kind in AVOIDED:
        return rules.STAND
    better = record.rank_of[kind] > record.rank_of[record.piece[seat]]
    return rules.EXCHANGE if better else rules.STAND


def rollout_choice(table: Table, states: np.recarray, seat: int, clairvoyant: np.ndarray, rollouts: int,
                   rng: np.random.Generator) -> int:
    """A non-dealer's action with the most chips left at the round's end, over ``rollouts`` tries each."""
    actions = table.legal(states)
    if states[0].phase == rules.PHASE_DEALER or len(actions) == 1:
        return one_look_choice(table, states, seat)
    means = []
    for action in actions:
        total = 0.0
        for _ in range(rollouts):
            copy = table.after(states, int(action))
            play_out_round(table, copy, clairvoyant, rng)
            total += chips_left(copy[0], seat)
        means.append(total / rollouts)
    return int(actions[int(np.argmax(means))])


def choose(table: Table, states: np.recarray, clairvoyant: np.ndarray, rollouts: int,
           rng: np.random.Generator) -> int:
    """The action of the seat to act: a random legal one, or the clairvoyant player's (by rollouts when asked)."""
    seat = states[0].current_player
    if not clairvoyant[seat]:
        return int(rng.choice(table.legal(states)))
    if rollouts:
        return rollout_choice(table, states, seat, clairvoyant, rollouts, rng)
    return one_look_choice(table, states, seat)


def play_out_round(table: Table, states: np.recarray, clairvoyant: np.ndarray, rng: np.random.Generator) -> None:
    """Play to the end of the round, the clairvoyant seats by the one-look rule."""
    record = states[0]
    round_number = record.round_number
    while record.phase != rules.PHASE_OVER and record.round_number == round_number:
        table.game.step(record, choose(table, states, clairvoyant, 0, rng))


def play_match(games: int, rollouts: int = 0, seed: int = 1) -> MatchResult:
    """``games`` games of two clairvoyant seats against two random ones."""
    if games < 1 or rollouts < 0 or seed < 0:
        raise ValueError(f"games must be 1 or more, rollouts and seed 0 or more; got {games}, {rollouts}, {seed}")
    table = Table()
    rng = np.random.default_rng(seed)
    seats = np.arange(table.num_players)
    wins = draws = 0
    for index in range(games):
        table.deal(seed * games + index)
        clairvoyant = seats % 2 == index % 2
        record = table.states[0]
        won = np.zeros(table.num_players, bool)
        while not (record.terminated or record.truncated):
            table.game.step(record, choose(table, table.states, clairvoyant, rollouts, rng))
            won |= record.rewards > 0
        wins += bool(won[clairvoyant].any())
        draws += not won.any()
    return MatchResult(games, wins, draws)


def report(options: Options) -> str:
    result = play_match(options.games, options.rollouts, options.seed)
    return (f"clairvoyant against random, {result.games} games: wins {result.win_rate:.1%} +- {result.ci95:.1%}, "
            f"draws {result.draws / result.games:.1%}, "
            f"random wins {1 - (result.wins + result.draws) / result.games:.1%}")


def main(argv: Sequence[str] | None = None) -> int:
    return run_report(Options, __doc__, report, argv)


if __name__ == "__main__":
    sys.exit(main())
