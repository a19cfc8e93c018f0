"""The table pictures: every game draws every position, shows only what the viewer may see, draws no randomness."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest

import cardenvs
from cardenvs.core.picture import WIDTH
from cardenvs.core.registry import get_game

SVG = "{http://www.w3.org/2000/svg}"
STEPS = 60
#: the games that draw a table picture (a game may draw none)
PICTURED = [env_id for env_id in cardenvs.available_envs() if get_game(env_id).picture is not None]


def _groups(svg: str, cls: str) -> list[ElementTree.Element]:
    root = ElementTree.fromstring(svg)
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == cls]


def _cards(group: ElementTree.Element) -> list[str]:
    return [g.get("data-card") for g in group.iter(f"{SVG}g") if g.get("class") == "card"]


def _random_positions(env_id: str, params: dict, seed: int = 0):
    """The env at each of up to STEPS positions of a random game."""
    env = cardenvs.env(env_id, **params)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(STEPS):
        yield env
        if not env.agents:
            return
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"]))))


@pytest.mark.parametrize("env_id", PICTURED)
def test_every_position_draws_with_one_seat_group_per_player_and_changes_nothing(env_id):
    game = get_game(env_id)
    for params in game.example_params:
        for env in _random_positions(env_id, params):
            before = env.state_record.copy()
            n = len(env.possible_agents)
            for seat, open_hands in ((None, False), (0, False), (None, True)):
                svg = env.table_svg(seat=seat, open_hands=open_hands)
                seats = _groups(svg, "seat")
                assert [int(g.get("data-seat")) for g in seats] == list(range(n))
                to_act = [int(g.get("data-seat")) for g in seats if g.get("data-to-act") == "1"]
                current = int(env.state_record.current_player)
                assert to_act == ([current] if current >= 0 else [])
                assert ElementTree.fromstring(svg).get("width") == str(WIDTH)
            assert env.state_record.tobytes() == before.tobytes()  # rng included: no randomness drawn


def _hand_cards(svg: str, seat: int, pile: str) -> list[str]:
    group = _groups(svg, "seat")[seat]
    piles = [p for p in group.iter(f"{SVG}g") if p.get("class") == "pile" and p.get("data-pile") == pile]
    return _cards(piles[0]) if piles else []


def test_clabber_shows_a_hand_only_to_its_seat_besides_its_declared_melds():
    """Another seat's hand is face down, except the cards of a meld it has declared (public once declared)."""
    from cardenvs.games.clabber.cards import bits_to_cards
    from cardenvs.games.clabber.render import card_face
    from cardenvs.games.clabber.rules import MELD_DECLARED

    melds_seen = 0
    for env in _random_positions("clabber_v0", {}, seed=3):
        state = env.state_record
        for viewer in (None, 1):
            svg = env.table_svg(seat=viewer)
            for seat in range(4):
                cards = bits_to_cards(int(state.hand[seat]))
                hand = [card_face(c).label for c in cards]
                declared = int(state.meld_cards[seat]) if state.meld_status[seat] == MELD_DECLARED else 0
                public = [card_face(c).label for c in cards if declared >> c & 1]
                melds_seen += len(public)
                expected = hand if seat == viewer else public + ["back"] * (len(hand) - len(public))
                assert _hand_cards(svg, seat, "hand") == expected
        assert all(_hand_cards(env.table_svg(open_hands=True), s, "hand").count("back") == 0 for s in range(4))
    assert melds_seen > 0  # the game played here declares a meld, so the exception is exercised


def test_gin_slaughtre_shows_of_the_other_hand_only_the_cards_both_players_know():
    from cardenvs.games.gin_slaughtre.render import card_face
    from cardenvs.games.gin_slaughtre.rules import LOC_HAND

    for env in _random_positions("gin_slaughtre_v0", {}, seed=5):
        state = env.state_record
        svg = env.table_svg(seat=0)
        hand = [c for c in range(54) if state.location[c] == LOC_HAND + 1]
        known = [card_face(c).label for c in hand if state.known[c]]
        assert _hand_cards(svg, 1, "hand") == known + ["back"] * (len(hand) - len(known))
        own = [card_face(c).label for c in range(54) if state.location[c] == LOC_HAND]
        assert _hand_cards(svg, 0, "hand") == own


def test_slabberjan_shows_a_piece_to_its_holder_and_to_who_saw_it():
    from cardenvs.games.slabberjan.pieces import NO_PIECE, kind_name

    for env in _random_positions("slabberjan_v0", {"num_players": 4}, seed=2):
        state = env.state_record
        svg = env.table_svg(seat=2)
        for seat in range(4):
            if not state.in_game[seat]:
                continue
            group = _groups(svg, "seat")[seat]
            piece = next(p for p in group.iter(f"{SVG}g") if p.get("class") == "pile")
            if seat == 2:
                assert _cards(piece) == [kind_name(int(state.piece[seat]))]
            elif state.known[2, seat] != NO_PIECE:
                assert _cards(piece) == [kind_name(int(state.known[2, seat]))]
            else:
                assert _cards(piece) == ["back"]


def test_rgb_array_render_is_an_image_of_the_table():
    env = cardenvs.env("stabby_jack_v0", render_mode="rgb_array")
    assert env._repr_svg_() is None  # nothing to show before a reset
    env.reset(seed=1)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[1:] == (WIDTH, 3)
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 10  # a picture, not a blank
    assert env._repr_svg_() == env.table_svg()


def test_a_bad_seat_for_a_picture_is_refused():
    env = cardenvs.env("slap_v0")
    env.reset(seed=0)
    for seat in (4, -1, True, "0"):
        with pytest.raises(ValueError, match="is not allowed; choose None or a seat from 0 to 3"):
            env.table_svg(seat=seat)


def test_a_game_without_a_picture_refuses_rgb_array_and_table_svg_with_a_message():
    import dataclasses

    from cardenvs.core.aec import CardEnv
    from cardenvs.core.dispatch import register_engine

    game = get_game("slap_v0")
    plain = dataclasses.replace(game, picture=None)  # registers its engine (the same functions) in the game's place
    try:
        with pytest.raises(ValueError, match="render_mode='rgb_array' is not allowed: slap_v0 draws no table"):
            CardEnv(plain, render_mode="rgb_array")
        env = CardEnv(plain)
        env.reset(seed=0)
        assert env._repr_svg_() is None
        with pytest.raises(ValueError, match="slap_v0 draws no table picture"):
            env.table_svg()
    finally:
        register_engine(game.state_dtype(game.params_type()).names, game)


@pytest.mark.parametrize("count", [1, 5, 8, 13, 19, 34])
@pytest.mark.parametrize("seats", [2, 4])
def test_a_large_hand_wraps_into_rows_that_keep_every_rank_readable(count, seats):
    from cardenvs.core.picture import CARD_H, CARD_STEP_MIN, CARD_W, Card, Pile, Seat, Table, table_svg

    hand = Pile("hand", [Card(rank, "♣") for rank in ("A", "10", "Q", "K", "Jo")] * 7)
    hand.cards = hand.cards[:count]
    table = Table("wrap", [Seat(f"player_{s}", piles=[hand if s == 0 else Pile("hand")]) for s in range(seats)])
    svg = table_svg(table)
    seat = next(g for g in _groups(svg, "seat") if g.get("data-seat") == "0")
    panel = next(seat.iter(f"{SVG}rect"))
    right = float(panel.get("x")) + float(panel.get("width"))
    bottom = float(panel.get("y")) + float(panel.get("height"))
    shift = [float(v) for v in next(g for g in seat.iter(f"{SVG}g") if g.get("transform")).get("transform")
             .removeprefix("translate(").removesuffix(")").split(",")]
    places = [(float(rect.get("x")) + shift[0], float(rect.get("y")) + shift[1])
              for g in seat.iter(f"{SVG}g") if g.get("class") == "card" for rect in [next(g.iter(f"{SVG}rect"))]]
    assert len(places) == count
    rows = sorted({y for _, y in places})
    for y in rows:
        xs = sorted(x for x, row_y in places if row_y == y)
        assert all(b - a >= CARD_STEP_MIN for a, b in itertools.pairwise(xs)), (count, seats, xs)
        assert xs[-1] + CARD_W <= right  # inside the seat's panel
    assert all(b - a >= CARD_H for a, b in itertools.pairwise(rows))  # rows do not cover each other
    assert rows[-1] + CARD_H <= bottom
    sizes = [sum(1 for _, row_y in places if row_y == y) for y in rows]
    per_row = -(-count // len(rows))
    assert sizes[:-1] == [per_row] * (len(rows) - 1) and sizes[-1] <= per_row  # as even as whole rows allow
