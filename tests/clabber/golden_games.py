"""Clabber's golden games (``tests/golden/<name>.json``), found by tests/golden/record.py."""

from tests.golden.record import GoldenGame

GOLDEN_GAMES: tuple[GoldenGame, ...] = (
    GoldenGame(
        "clabber_single_hand", "clabber_v0", {"single_hand": True},
        ("heuristic", "random", "heuristic", "random"), 2,
    ),
    GoldenGame(
        "clabber_litige_declare", "clabber_v0",
        {"target_score": 200, "tie_rule": "litige", "fail_rule": "belote_dedans", "optional_declare": True,
         "partner_exemption": True, "seq_tiebreak": "top_card_first", "max_hands": 4},
        ("heuristic", "heuristic", "random", "heuristic"), 1,
    ),
)
