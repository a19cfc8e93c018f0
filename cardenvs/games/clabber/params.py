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
        target_score: the game ends after the hand in which a team reaches this many points (default 500).
        single_hand: one hand per episode; each seat's reward is (own team's − opponents' points) / 162.
        fail_rule: what the defenders score when the makers fail: ``"seed"`` (their own points; default) or
            ``"belote_dedans"`` (162 + every meld declared that hand + 20 per Bell).
        tie_rule: the makers' points equal the defenders': ``"fail"`` (the makers fail) or ``"litige"``
            (the defenders score their points; the makers' wait for the winner of the next hand).
        partner_exemption: a player who cannot follow a plain led suit may play any card while the partner
            is winning the trick (never when trumps were led). Off by default: the strict rule.
        seq_tiebreak: equal-length sequences compare ``"trump_first"`` (trump, then top card; default) or
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
        StateField("target_score", np.int32, (), "parameter: the game ends after a hand that takes a team to it"),
        StateField("single_hand", np.bool_, (), "parameter: one hand per episode"),
        StateField("fail_rule", np.int8, (), "parameter: index into FAIL_RULES (0 seed, 1 belote_dedans)"),
        StateField("tie_rule", np.int8, (), "parameter: index into TIE_RULES (0 fail, 1 litige)"),
        StateField("partner_exemption", np.bool_, (), "parameter: no trumping while the partner wins"),
        StateField(
            "seq_tiebreak", np.int8, (),
            "parameter: index into SEQ_TIEBREAKS (0 trump_first, 1 top_card_first)",
        ),
        StateField("optional_declare", np.bool_, (), "parameter: DECLARE or SKIP at the first trick"),
        StateField("max_hands", np.int32, (), "parameter: deals after which the game is truncated"),
        # --- the game
        StateField(
            "phase", np.int8, (),
            "PHASE_BID_FIRST (0), PHASE_BID_SECOND (1), PHASE_DECLARE (2), PHASE_PLAY (3) or PHASE_OVER (4)",
        ),
        StateField("dealer", np.int32, (), "seat of this hand's dealer"),
        StateField("hands_dealt", np.int32, (), "deals so far, thrown-in hands included"),
        StateField("hands_played", np.int32, (), "hands played out (or ended by the penalty)"),
        StateField("scores", np.int32, (NUM_TEAMS,), "cumulative score per team"),
        StateField("litige_pending", np.int32, (), "makers' points of tied hands waiting for the next hand's winner"),
        StateField("hand_total", np.int32, (NUM_TEAMS,), "last finished hand: card points + last trick + melds + Bell"),
        StateField("hand_added", np.int32, (NUM_TEAMS,), "last finished hand: what each team added to its score"),
        StateField("hand_trick_points", np.int32, (NUM_TEAMS,), "last finished hand: card points + last trick"),
        StateField("hand_maker", np.int32, (), "last finished hand: the maker's seat (-1 before the first)"),
        StateField(
            "penalized_seat", np.int32, (),
            "seat whose illegal action ended the game (penalize mode), -1 if none",
        ),
        # --- the current hand
        StateField("deck", np.int8, (NUM_CARDS,), "this hand's deal order: deck[i] goes to seat dealer+1+i (mod 4)"),
        StateField("dealt", np.int32, (n,), "card mask dealt to each seat"),
        StateField("hand", np.int32, (n,), "card mask each seat still holds"),
        StateField("turn_up", np.int8, (), "card id of the dealer's face-up sixth card"),
        StateField(
            "bid_first", np.int8, (n,),
            "per seat, first bidding round: BID_NONE (0), BID_PASS (1) or BID_ACCEPT (2)",
        ),
        StateField(
            "bid_second", np.int8, (n,),
            "per seat, second bidding round: BID_NONE (0), BID_PASS (1) or BID_NAME (2)",
        ),
        StateField("trump", np.int8, (), "trump suit 0-3 (C D H S), NO_SUIT (-1) during bidding"),
        StateField("maker", np.int32, (), "seat that took the contract, -1 during bidding"),
        StateField("leader", np.int32, (), "seat that led the current trick, -1 during bidding"),
        StateField(
            "trick", np.int8, (n,),
            "card ids of the current trick by position (0 = led), NO_CARD (-1) if not yet played",
        ),
        StateField("trick_size", np.int32, (), "cards played to the current trick"),
        StateField("tricks_done", np.int32, (), "tricks completed this hand"),
        StateField("played", np.int32, (n,), "card mask each seat has played this hand"),
        StateField(
            "excluded", np.int32, (n,),
            "per seat, card mask of the cards its plays this hand showed it does not hold (holding one would have "
            "made a card it played illegal: a led suit it did not follow, trumps, higher trumps); public; cards "
            "played before left out",
        ),
        StateField("trick_points", np.int32, (NUM_TEAMS,), "card points won this hand (+10 for the last trick)"),
        StateField("tricks_won", np.int32, (NUM_TEAMS,), "tricks won this hand per team"),
        StateField(
            "meld_status", np.int8, (n,),
            "per seat, MELD_NOT_YET (0; may hold the private candidate while deciding), MELD_DECLARED (1, public) or "
            "MELD_SKIPPED (2, nothing declared)",
        ),
        StateField(
            "meld_declined", np.uint8, (n,),
            "per seat, 1: it chose SKIP (optional_declare), so every seat saw it decide: it held melds; public",
        ),
        StateField("meld_cards", np.int32, (n,), "per seat, card mask of its best disjoint meld set"),
        StateField("meld_points", np.int32, (n,), "per seat, the points of that meld set"),
        StateField(
            "meld_best", np.int32, (n,),
            "per seat, comparison key of the best meld of that set: (category + 1) * 100 + tie-break digits "
            "(melds.py), 0 = none",
        ),
        StateField(
            "meld_winner", np.int8, (),
            "MELDS_UNDECIDED (-1) before the first trick ends, the scoring team 0 or 1, or MELDS_NOBODY (2)",
        ),
        StateField(
            "meld_score", np.int32, (NUM_TEAMS,),
            "meld points each team scores this hand (0 for the team that lost the comparison)",
        ),
        StateField("bell_holder", np.int32, (), "seat dealt both the trump King and Queen, -1 if none"),
        StateField("bell_points", np.int32, (NUM_TEAMS,), "per team, BELL_POINTS (20) once it scored the Bell, else 0"),
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
