"""Clabber against random, seen from above: how many points a hand can a partnership that sees every card make?

A game to 500 is won by whoever adds more points over several hands, so the points a partnership gains on random
per hand decide its win rate against random. This script measures what full knowledge could make of a hand:
for each deal, the *expected lead* of a clairvoyant partnership (its points added minus random's, when the hand
is scored; 0 for a throw-in) under its best play, found by searching the whole hand, bidding included. The
partnership sees all four hands (no agent may: an agent sees one seat's observation) and knows that the other
two seats pick uniformly among their legal actions, so the search maximises over its own actions and averages
over random's. No player, clairvoyant or not, can expect a larger lead against random on that deal.

A throw-in counts 0, as in a game, where it scores nothing and the deal passes on. (A single-hand game deals a
thrown-in hand again and pays the lead of the first hand played; counted that way, the ceiling would be at most
1 / (1 - p) times as high, where p, at most 1/16 on all but freak deals, is the chance that both random seats
pass in both rounds.)

    python -m experiments.clabber_ceiling --deals 200

Deal ``i`` is the single-hand game ``clabber_v0`` resets with seed ``seed * deals + i`` (its first dealer is
drawn too); the partnership holds seats 0 and 2. A deal takes seconds to a minute: the search visits every
order of play, and shares the rest of a hand between orders of tricks that reach the same position (a memo at
trick boundaries, keyed by the state record's bytes).

It prints the mean best expected lead over the deals with its 95 % interval. It is an analysis, not an agent,
and a bound on points a hand, not on games won: a player out for games could trade points for safety.
docs/experiments.md gives what it found.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit, types
from numba.typed import Dict
from tqdm import tqdm

import cardenvs
from cardenvs.core.game import new_states
from cardenvs.evaluation.tournament import Z_95
from cardenvs.games.clabber import rules
from cardenvs.games.clabber.cards import NUM_CARDS
from cardenvs.games.clabber.params import NUM_PLAYERS
from experiments.report import run_report

ENV_ID = "clabber_v0"
TEAM = 0  # the clairvoyant partnership: seats 0 and 2
#: most decisions in one hand, so the deepest search: a bid per seat in each of two rounds, a declaration per
#: seat (with optional_declare), and every card (forced ones are not decisions, so fewer in fact)
MAX_DEPTH = 2 * NUM_PLAYERS + NUM_PLAYERS + NUM_CARDS
#: a memo key: three polynomial digests of the record's bytes, modulo three primes below 2**31 (so that no
#: product overflows an int64, compiled or not); ~93 bits make a collision out of the question
HASH_MODULI = (2_147_483_647, 2_147_483_629, 2_147_483_587)
HASH_BASE = 257  # the smallest prime above a byte's 256 values
KEY_TYPE = types.UniTuple(types.int64, len(HASH_MODULI))
UNKEYED_FIELD = "step_count"  # the one field left out of the memo keys (see Search)


@dataclass
class Options:
    """The deals to search. Each field is the ``--option`` of the same name."""

    deals: int = 200
    """deals to search"""
    seed: int = 0
    """deal i is dealt with seed ``seed * deals + i``"""
    progress_bar: bool = True
    """show deals searched as they finish"""


@dataclass(frozen=True)
class CeilingResult:
    leads: np.ndarray  # per deal, the partnership's best expected lead in points

    @property
    def mean(self) -> float:
        return float(self.leads.mean())

    @property
    def ci95(self) -> float:
        if self.leads.size < 2:
            return math.inf
        return Z_95 * float(self.leads.std(ddof=1)) / math.sqrt(self.leads.size)


# Compiled afresh in each run (no cache=True): the package's layout-safe disk cache covers only its own kernels,
# and these inline its rules.
@njit
def _record_key(raw_row, keyed):
    """Three digests of the bytes of one record where ``keyed`` is set (see HASH_MODULI)."""
    first = second = third = 0
    for index in range(raw_row.shape[0]):
        if not keyed[index]:
            continue
        byte = int(raw_row[index])  # as plain Python a uint8 plus a large int would overflow
        first = (first * HASH_BASE + byte) % HASH_MODULI[0]
        second = (second * HASH_BASE + byte) % HASH_MODULI[1]
        third = (third * HASH_BASE + byte) % HASH_MODULI[2]
    return first, second, third


@njit
def _expected_lead(stack, raw, keyed, masks, depth, team, hands_dealt, hands_played, memo):
    """The best expected lead of ``team`` from ``stack[depth]`` to the end of the hand being played.

    ``stack`` is a record array with a writable byte view ``raw`` (one row per record); each level of the search
    copies its record one level down and steps the copy, so the caller's record is left as it was. Memo keys
    digest the bytes where ``keyed`` is set.
    """
    state = stack[depth]
    if state.hands_played != hands_played:  # scored: the lead it added
        return float(state.hand_added[team] - state.hand_added[1 - team])
    if state.hands_dealt != hands_dealt or state.terminated or state.truncated:
        return 0.0  # thrown in: nothing scored
    boundary = state.phase == rules.PHASE_PLAY and state.trick_size == 0 and state.tricks_done > 0
    if boundary:  # different orders of tricks can meet here (within a trick, each order plays other cards)
        key = _record_key(raw[depth], keyed)
        if key in memo:
            return memo[key]
    if depth + 1 >= stack.shape[0]:  # compiled code does not check bounds: stop rather than write past the stack
        raise RuntimeError("the search went deeper than the decisions of one hand")
    mask = masks[depth]
    rules.legal_mask(state, mask)
    ours = rules.team_of(state.current_player) == team
    best = -np.inf
    total = 0.0
    count = 0
    for action in range(mask.shape[0]):
        if mask[action]:
            raw[depth + 1, :] = raw[depth, :]
            rules.step(stack[depth + 1], action)
            value = _expected_lead(stack, raw, keyed, masks, depth + 1, team, hands_dealt, hands_played, memo)
            best = max(best, value)
            total += value
            count += 1
    value = best if ours else total / count
    if boundary:
        memo[key] = value
    return value


class Search:
    """A stack of state records to search on, and the compiled rules that move them."""

    def __init__(self) -> None:
        self.game = cardenvs.get_game(ENV_ID)
        self.params = self.game.make_params(single_hand=True)
        states, self.template = new_states(self.game, self.params, MAX_DEPTH + 1)
        self.stack = states.view(np.recarray)
        self.raw = states.view(np.uint8).reshape(MAX_DEPTH + 1, -1)
        self.masks = np.zeros((MAX_DEPTH + 1, self.game.num_actions(self.params)), np.int8)
        # Every byte of the record keys the memo but the decision counter: forced cards are played without a
        # decision, so orders of tricks that meet count differently, and no rule reads the counter.
        self.keyed = np.ones(self.raw.shape[1], np.bool_)
        field_type, offset = states.dtype.fields[UNKEYED_FIELD][:2]
        self.keyed[offset : offset + field_type.itemsize] = False

    @property
    def root(self) -> np.record:
        return self.stack[0]

    def deal(self, seed: int) -> None:
        self.raw[0] = self.template
        self.game.reset(self.root, np.uint64(seed))

    def expected_lead(self, team: int = TEAM) -> float:
        """``team``'s best expected lead over the rest of the root's hand (the root is left as it was)."""
        memo = Dict.empty(KEY_TYPE, types.float64)
        root = self.root
        return _expected_lead(self.stack, self.raw, self.keyed, self.masks, 0, team, root.hands_dealt,
                              root.hands_played, memo)


def measure(deals: int, seed: int = 0, progress_bar: bool = False) -> CeilingResult:
    """The clairvoyant partnership's best expected lead on each of ``deals`` deals."""
    if deals < 1 or seed < 0:
        raise ValueError(f"deals must be 1 or more, seed 0 or more; got {deals}, {seed}")
    search = Search()
    leads = np.empty(deals)
    for index in tqdm(range(deals), desc="deals searched", disable=not progress_bar):
        search.deal(seed * deals + index)
        leads[index] = search.expected_lead()
    return CeilingResult(leads)


def report(options: Options) -> str:
    result = measure(options.deals, options.seed, options.progress_bar)
    return (f"clairvoyant partnership against random, {result.leads.size} deals: best expected lead "
            f"{result.mean:+.1f} +- {result.ci95:.1f} points a deal (a throw-in counting 0)")


def main(argv: Sequence[str] | None = None) -> int:
    return run_report(Options, __doc__, report, argv)


if __name__ == "__main__":
    sys.exit(main())
