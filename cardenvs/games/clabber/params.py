"""Clabber's parameters, their validation, and the state record built from them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardenvs.core.game import StateField, check_bool, check_choice, check_int, header_fields
from cardenvs.games.clabber.cards import NUM_CARDS

ENV_NAME = "clabber_v0"
NUM_PLAYERS = 4
NUM_TEAMS = 2
CARDS_PER_HAND = 6
MAX_TARGET_SCORE = 100_000
MAX_HANDS_LIMIT = 100_000

# Option strings, in the order of the int codes stored in the record.
FAIL_RULES = ("seed", "belote_dedans")
TIE_RULES = ("fail", "litige")
SEQ_TIEBREAKS = ("trump_first", "top_card_first")


@dataclass(frozen=True)
class ClabberParams:
    """Clabber's parameters (docs/rules/clabber.md, "Parameters").

    Attributes:
        target_score: the game ends after the hand in which a team reaches this many points (seed: 500).
        single_hand: one hand per episode; each seat's reward is (own team's − opponents' points) / 162.
        fail_rule: what the defenders score when the makers fail: ``"seed"`` (their own points) or
            ``"belote_dedans"`` (162 + every meld declared that hand + 20 per Bell).
        tie_rule: the makers' points equal the defenders': ``"fail"`` (the makers fail) or ``"litige"``
            (the defenders score their points; the makers' wait for the winner of the next hand).
        partner_exemption: a player who cannot follow a plain led suit may play any card while the partner
            is winning the trick (never when trumps were led). The seed's strict rule is the default.
        seq_tiebreak: equal-length sequences compare ``"trump_first"`` (seed: trump, then top card) or
            ``"top_card_first"`` (Belote: top card, then trump).
        optional_declare: at the first trick a player with melds chooses DECLARE or SKIP (default automatic).
        max_hands: deals (thrown-in hands included) after which an unfinished game is truncated.
    """

    target_score: int = 500
    single_hand: bool = False
    fail_rule: str = "seed"
    tie_rule: str = "fail"
    partner_exemption: bool = False
    seq_tiebreak: str = "trump_first"
    optional_declare: bool = False
    max_hands: int = 100

    def validate(self) -> None:
        check_int(ENV_NAME, "target_score", self.target_score, 1, MAX_TARGET_SCORE)
        check_int(ENV_NAME, "max_hands", self.max_hands, 1, MAX_HANDS_LIMIT)
        check_choice(ENV_NAME, "fail_rule", self.fail_rule, FAIL_RULES)
        check_choice(ENV_NAME, "tie_rule", self.tie_rule, TIE_RULES)
        check_choice(ENV_NAME, "seq_tiebreak", self.seq_tiebreak, SEQ_TIEBREAKS)
        for name in ("single_hand", "partner_exemption", "optional_declare"):
            check_bool(ENV_NAME, name, getattr(self, name))


def state_fields(params: ClabberParams) -> list[StateField]:
    """The fields of the state record for ``params``, each with its encoding.

    Card sets are 24-bit masks (bit ``c`` = card id ``c``, see cards.py); seats are 0–3, teams 0 ({0, 2}) and 1.
    """
    n = NUM_PLAYERS
    return header_fields(n) + [
        # --- parameters (constant during a game)
        StateField("target_score", np.int32, (), ""),
        StateField("single_hand", np.bool_, (), ""),
        StateField("fail_rule", np.int8, (), "index into FAIL_RULES"),
        StateField("tie_rule", np.int8, (), "index into TIE_RULES"),
        StateField("partner_exemption", np.bool_, (), ""),
        StateField("seq_tiebreak", np.int8, (), "index into SEQ_TIEBREAKS"),
        StateField("optional_declare", np.bool_, (), ""),
        StateField("max_hands", np.int32, (), ""),
        # --- the game
        StateField("phase", np.int8, (), "PHASE_BID_FIRST, PHASE_BID_SECOND, PHASE_DECLARE, PHASE_PLAY or PHASE_OVER"),
        StateField("dealer", np.int32, (), "seat of this hand's dealer"),
        StateField("hands_dealt", np.int32, (), "deals so far, thrown-in hands included"),
        StateField("hands_played", np.int32, (), "hands played out (or ended by the penalty)"),
        StateField("scores", np.int32, (NUM_TEAMS,), "cumulative score per team"),
        StateField("litige_pending", np.int32, (), "makers' points of tied hands waiting for the next hand's winner"),
        StateField("hand_total", np.int32, (NUM_TEAMS,), "last finished hand: card points + last trick + melds + Bell"),
        StateField("hand_added", np.int32, (NUM_TEAMS,), "last finished hand: what each team added to its score"),
        StateField("hand_trick_points", np.int32, (NUM_TEAMS,), "last finished hand: card points + last trick"),
        StateField("hand_maker", np.int32, (), "last finished hand: the maker's seat (-1 before the first)"),
        StateField("penalized_seat", np.int32, (), "seat whose illegal action ended the game, -1 if none"),
        # --- the current hand
        StateField("deck", np.int8, (NUM_CARDS,), "this hand's deal order: deck[i] goes to seat dealer+1+i (mod 4)"),
        StateField("dealt", np.int32, (n,), "card mask dealt to each seat"),
        StateField("hand", np.int32, (n,), "card mask each seat still holds"),
        StateField("turn_up", np.int8, (), "the dealer's face-up sixth card"),
        StateField("bid_first", np.int8, (n,), "first bidding round: BID_NONE, BID_PASS or BID_ACCEPT"),
        StateField("bid_second", np.int8, (n,), "second bidding round: BID_NONE, BID_PASS or BID_NAME"),
        StateField("trump", np.int8, (), "trump suit, NO_SUIT (-1) during bidding"),
        StateField("maker", np.int32, (), "seat that took the contract, -1 during bidding"),
        StateField("leader", np.int32, (), "seat that led the current trick"),
        StateField("trick", np.int8, (n,), "cards of the current trick by position (0 = led), NO_CARD if not yet"),
        StateField("trick_size", np.int32, (), "cards played to the current trick"),
        StateField("tricks_done", np.int32, (), "tricks completed this hand"),
        StateField("played", np.int32, (n,), "card mask each seat has played this hand"),
        StateField("trick_points", np.int32, (NUM_TEAMS,), "card points won this hand (+10 for the last trick)"),
        StateField("tricks_won", np.int32, (NUM_TEAMS,), ""),
        StateField("meld_status", np.int8, (n,), "MELD_NOT_YET, MELD_DECLARED or MELD_SKIPPED"),
        StateField("meld_cards", np.int32, (n,), "card mask of the seat's best disjoint meld set"),
        StateField("meld_points", np.int32, (n,), "its points"),
        StateField("meld_best", np.int32, (n,), "comparison key of its best meld (0 = none; see melds.py)"),
        StateField("meld_winner", np.int8, (), "MELDS_UNDECIDED, team 0/1, or MELDS_NOBODY (tie or no melds)"),
        StateField("meld_score", np.int32, (NUM_TEAMS,), "meld points each team scores this hand"),
        StateField("bell_holder", np.int32, (), "seat dealt both the trump King and Queen, -1 if none"),
        StateField("bell_points", np.int32, (NUM_TEAMS,), "20 once the Bell is scored"),
    ]


def fill_params(record: np.record, params: ClabberParams) -> None:
    """Write the parameter fields of a zeroed record."""
    record.num_players = NUM_PLAYERS
    record.target_score = params.target_score
    record.single_hand = params.single_hand
    record.fail_rule = FAIL_RULES.index(params.fail_rule)
    record.tie_rule = TIE_RULES.index(params.tie_rule)
    record.partner_exemption = params.partner_exemption
    record.seq_tiebreak = SEQ_TIEBREAKS.index(params.seq_tiebreak)
    record.optional_declare = params.optional_declare
    record.max_hands = params.max_hands
