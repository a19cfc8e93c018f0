"""Stabby Jack's golden games (``tests/golden/<name>.json``), found by tests/golden/record.py."""

from tests.golden.record import GoldenGame

GOLDEN_GAMES: tuple[GoldenGame, ...] = (
    GoldenGame("stabby_jack_2p", "stabby_jack_v0", {}, ("heuristic", "random"), 11),
    GoldenGame(
        "stabby_jack_3p_jokers", "stabby_jack_v0",
        {"num_players": 3, "jokers": True, "max_players": 8, "level_up_payment": "player_choice",
         "level_up_is_action": True},
        ("heuristic", "random", "heuristic"), 5,
    ),
)
