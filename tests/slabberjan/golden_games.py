"""Slabberjan's golden games (``tests/golden/<name>.json``), found by tests/golden/record.py."""

from tests.golden.record import GoldenGame

GOLDEN_GAMES: tuple[GoldenGame, ...] = (
    GoldenGame("slabberjan_3p", "slabberjan_v0", {"num_players": 3}, ("heuristic", "random", "heuristic"), 10),
    GoldenGame(
        "slabberjan_7p_variants", "slabberjan_v0",
        {"num_players": 7, "forced_swap": True, "bird_attempter_pays": True, "fool_knocks": True, "start_chips": 2},
        ("heuristic", "random", "random", "heuristic", "random", "heuristic", "random"), 9,
    ),
    GoldenGame(
        "slabberjan_2p_dealer_swap", "slabberjan_v0",
        {"num_players": 2, "dealer_may_swap_left": True, "bag_matador_rule": "inn_redraw_only",
         "low_order": "rule_sheet", "reward_scheme": "placement", "start_chips": 2},
        ("random", "heuristic"), 4,
    ),
)
