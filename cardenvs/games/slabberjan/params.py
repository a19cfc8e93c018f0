"""Slabberjan's parameters, their validation, and the state record built from them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardenvs.core.game import StateField, check_bool, check_choice, check_int, header_fields
from cardenvs.games.slabberjan.pieces import CHAMBER_POT, KIND_NAMES, SCARY_FACE

ENV_NAME = "slabberjan_v0"
MIN_PLAYERS = 2
MAX_PLAYERS = 42
MAX_START_CHIPS = 100

NUM_KINDS = len(KIND_NAMES)  # distinct pieces
COPIES = 2  # of each kind
NUM_PIECES = NUM_KINDS * COPIES

# Option strings, in the order of the int codes stored in the record.
LOW_ORDERS = ("seed", "rule_sheet")
BAG_MATADOR_RULES = ("as_holder", "inn_redraw_only", "keep_any")
REWARD_SCHEMES = ("winner_takes_all", "placement")


@dataclass(frozen=True)
class SlabberjanParams:
    """Slabberjan's parameters (docs/rules/slabberjan.md, "Parameters").

    Attributes:
        num_players: seats, 2–42.
        start_chips: chips each player starts with (rule:players_and_chips).
        low_order: order of the four lowest pieces (rule:pieces_and_ranks): ``"seed"`` (white bread > chamber
            pot > scary face > fool) or ``"rule_sheet"`` (white bread > scary face > chamber pot > fool, the old
            Zeeland sheet).
        forced_swap: non-dealers must try to swap (rule:non_dealer_choice); by default they may stand.
        bird_attempter_pays: the player who runs into the Bird pays 1 (rule:bird).
        dealer_may_swap_left: the dealer may also swap with the left neighbour instead of the bag
            (rule:dealer_choice).
        bag_matador_rule: what a matador drawn from the bag does (rule:bag_matadors): ``"as_holder"`` (acts
            as if a player held it), ``"inn_redraw_only"`` (Gnav: only an Inn is redrawn, others are kept) or
            ``"keep_any"``.
        fool_knocks: a player dealt a Fool must make it public at once (rule:fool_knock).
        reward_scheme: ``"winner_takes_all"`` (+1 winner, −1 the rest) or ``"placement"`` (linear in the order
            of elimination, from +1 for the winner to −1 for the first out); see rule:end_and_rewards.
    """

    num_players: int = 4
    start_chips: int = 3
    low_order: str = "seed"
    forced_swap: bool = False
    bird_attempter_pays: bool = False
    dealer_may_swap_left: bool = False
    bag_matador_rule: str = "as_holder"
    fool_knocks: bool = False
    reward_scheme: str = "winner_takes_all"

    def validate(self) -> None:
        check_int(ENV_NAME, "num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        check_int(ENV_NAME, "start_chips", self.start_chips, 1, MAX_START_CHIPS)
        check_choice(ENV_NAME, "low_order", self.low_order, LOW_ORDERS)
        check_choice(ENV_NAME, "bag_matador_rule", self.bag_matador_rule, BAG_MATADOR_RULES)
        check_choice(ENV_NAME, "reward_scheme", self.reward_scheme, REWARD_SCHEMES)
        for name in ("forced_swap", "bird_attempter_pays", "dealer_may_swap_left", "fool_knocks"):
            check_bool(ENV_NAME, name, getattr(self, name))


def state_fields(params: SlabberjanParams) -> list[StateField]:
    """The fields of the state record for ``params``, each with its encoding."""
    n = params.num_players
    return header_fields(n) + [
        # --- parameters (constant during a game)
        StateField("start_chips", np.int32, (), "chips each seat starts the game with"),
        StateField("forced_swap", np.bool_, (), "non-dealers may not stand (forced_swap)"),
        StateField("bird_attempter_pays", np.bool_, (), "running into the Bird costs the attacker 1 chip"),
        StateField("dealer_may_swap_left", np.bool_, (), "the dealer may swap with the left neighbour (action 2)"),
        StateField(
            "bag_matador_rule", np.int8, (), "index into BAG_MATADOR_RULES: 0 as_holder, 1 inn_redraw_only, 2 keep_any"
        ),
        StateField("fool_knocks", np.bool_, (), "a dealt Fool is made public at the deal"),
        StateField("reward_scheme", np.int8, (), "index into REWARD_SCHEMES: 0 winner_takes_all, 1 placement"),
        StateField("rank_of", np.int8, (NUM_KINDS,), "showdown rank of each piece kind (from low_order)"),
        # --- game
        StateField("phase", np.int8, (), "PHASE_TURNS 0 (non-dealers act), PHASE_DEALER 1 or PHASE_OVER 2"),
        StateField("round_number", np.int32, (), "rounds dealt so far, redeals included"),
        StateField("dealer", np.int32, (), "seat of this round's dealer"),
        StateField("chips", np.int32, (n,), "chips each seat holds"),
        StateField("pot", np.int32, (), "chips paid to the centre so far"),
        StateField("in_game", np.uint8, (n,), "1 while the seat is still in (not eliminated)"),
        StateField("owes", np.uint8, (n,), "1 if it had to pay with no chips: eliminated at the end of this round"),
        StateField("out_order", np.int32, (n,), "0 while in; k when out in the k-th group of eliminations"),
        StateField("piece", np.int8, (n,), "kind id held; NO_PIECE (-1) once eliminated"),
        StateField("original", np.int8, (n,), "kind id dealt this round (what the Cat gives back); NO_PIECE if out"),
        StateField(
            "bag",
            np.int8,
            (NUM_PIECES,),
            "kind ids in the bag, first bag_size entries; bag[bag_size - 1] is drawn next",
        ),
        StateField("bag_size", np.int32, (), "pieces left in the bag"),
        StateField("set_aside", np.int8, (NUM_KINDS,), "face-up pieces set aside this round, count per kind id"),
        StateField("acted", np.int8, (n,), "this round: ACT_NONE 0, ACT_STOOD 1, ACT_SWAPPED 2 or ACT_BAGGED 3"),
        StateField("announced", np.int8, (n,), "matador kind id announced this round, or NO_PIECE (-1)"),
        StateField("fool_knocked", np.uint8, (n,), "1 if dealt a Fool this round and knocked (fool_knocks only)"),
        StateField(
            "known", np.int8, (n, n), "known[v, s]: the last kind id v knows s to hold, NO_PIECE (-1) if unknown"
        ),
        StateField(
            "shown", np.int8, (n,), "kind ids shown at the last showdown; NO_PIECE (-1) before the first or when out"
        ),
        StateField("paid", np.uint8, (n,), "1 if the seat paid (or owed) at the last showdown"),
    ]


def rank_table(low_order: str) -> np.ndarray:
    """Showdown rank of every piece kind (rule:pieces_and_ranks).

    Kind ids follow the default order, so only the rule sheet's order differs from the ids.
    """
    ranks = np.arange(NUM_KINDS, dtype=np.int8)
    if low_order == "rule_sheet":
        ranks[CHAMBER_POT], ranks[SCARY_FACE] = SCARY_FACE, CHAMBER_POT
    return ranks


def fill_params(record: np.record, params: SlabberjanParams) -> None:
    """Write the parameter fields of a zeroed record."""
    record.num_players = params.num_players
    record.start_chips = params.start_chips
    record.forced_swap = params.forced_swap
    record.bird_attempter_pays = params.bird_attempter_pays
    record.dealer_may_swap_left = params.dealer_may_swap_left
    record.bag_matador_rule = BAG_MATADOR_RULES.index(params.bag_matador_rule)
    record.fool_knocks = params.fool_knocks
    record.reward_scheme = REWARD_SCHEMES.index(params.reward_scheme)
    record.rank_of[:] = rank_table(params.low_order)
