"""Slap's golden games (``tests/golden/<name>.json``), found by tests/golden/record.py."""

from tests.golden.record import GoldenGame

GOLDEN_GAMES: tuple[GoldenGame, ...] = (
    GoldenGame("slap_2p", "slap_v0", {"num_players": 2}, ("heuristic", "random"), 4),
    GoldenGame(
        "slap_3p_jokers_noise", "slap_v0",
        {"num_players": 3, "jokers": True, "penalty": 2, "slap_tiebreak": "reaction_noise",
         "windows": "slappable_only", "reward_scheme": "share_of_cards", "max_cards_played": 120},
        ("heuristic", "random", "heuristic"), 2,
    ),
    GoldenGame(
        "slap_2p_play_action", "slap_v0",
        {"num_players": 2, "expose_play_action": True, "slap_tens": False, "chances_ace": 2, "max_cards_played": 300},
        ("random", "heuristic"), 2,
    ),
)
