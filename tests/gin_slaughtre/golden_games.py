"""Gin Slaughtre's golden games (``tests/golden/<name>.json``), found by tests/golden/record.py."""

from tests.golden.record import GoldenGame

GOLDEN_GAMES: tuple[GoldenGame, ...] = (
    GoldenGame("gin_slaughtre_default", "gin_slaughtre_v0", {}, ("heuristic", "random"), 1),
    GoldenGame(
        "gin_slaughtre_downcards_pairs", "gin_slaughtre_v0",
        {"num_downcards": 3, "min_set_size": 2, "stack_effects": True, "quartet_rule": "rank_or_suit"},
        ("heuristic", "heuristic"), 2,
    ),
    GoldenGame(
        "gin_slaughtre_red5_draw", "gin_slaughtre_v0",
        {"red5_rule": "draw_until_leq5", "joker_consumes_turn": False, "starter_rule": "left_of_dealer",
         "max_turns": 150},
        ("random", "heuristic"), 8,
    ),
)
