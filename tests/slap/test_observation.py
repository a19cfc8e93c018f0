"""The observation's named views say exactly what the state says, from the observer's seat; docs match."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs.core.game import NO_PLAYER
from cardenvs.games.slap import GAME
from cardenvs.games.slap.cards import card_rank
from cardenvs.games.slap.observation import NO_RANK_SLOT, NONE_SLOT
from cardenvs.games.slap.rules import PHASE_OVER, first_face_up, pile_card

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules" / "slap.md"


def _one_hot_rel(view, seat, player, n):
    expected = np.zeros(n, np.float32)
    if seat != NO_PLAYER:
        expected[(seat - player) % n] = 1.0
    return np.array_equal(view, expected)


def _check(state, player, obs, mask, layout):
    n = int(state.num_players)
    views = layout.split(obs)
    face_up = int(state.face_up)
    tops = views["top_cards"].reshape(4, -1)
    top_ranks = views["top_ranks"].reshape(4, -1)
    assert (tops.sum(axis=1) == 1).all() and (top_ranks.sum(axis=1) == 1).all()
    for depth in range(4):
        card = int(pile_card(state, depth)) if depth < face_up else -1
        assert int(np.argmax(tops[depth])) == (card if card >= 0 else NONE_SLOT)
        assert int(np.argmax(top_ranks[depth])) == (card_rank(card) if card >= 0 else NO_RANK_SLOT)
    first = int(first_face_up(state))
    assert int(np.argmax(views["first_face_up"])) == (first if first >= 0 else NONE_SLOT)
    assert views["first_face_up_rank"].sum() == 1
    assert int(np.argmax(views["first_face_up_rank"])) == (card_rank(first) if first >= 0 else NO_RANK_SLOT)
    assert views["pile_size"][0] == state.pile_size and views["face_up_count"][0] == face_up
    assert views["burnt_count"][0] == state.pile_size - face_up
    seats = [(player + rel) % n for rel in range(n)]
    assert views["stack_sizes"].tolist() == [float(state.stack_size[s]) for s in seats]
    assert views["eliminated"].tolist() == [float(state.eliminated[s]) for s in seats]
    assert views["last_slapped"].tolist() == [float(state.last_slapped[s]) for s in seats]
    for name in ("played_last", "challenger", "payer", "last_winner"):
        assert _one_hot_rel(views[name], int(state[name]), player, n), name
    assert views["chances_left"][0] == state.chances_left
    assert views["slap_rules"].tolist() == [float(on) for on in state.slap_rule_on]
    assert views["jokers"][0] == (1.0 if state.deck_size == 54 else 0.0)
    if state.phase != PHASE_OVER:
        assert int(np.argmax(views["phase"])) == int(state.phase)
    assert mask.any() == (player == state.current_player)


@pytest.mark.parametrize("params", [{"num_players": 4}, {"num_players": 3, "jokers": True, "slap_tens": False},
                                    {"num_players": 2, "expose_play_action": True}])
def test_views_match_the_state_from_every_seat(params):
    venv = cardenvs.vector_env("slap_v0", 16, **params)
    venv.reset(seed=4)
    layout = venv.layout
    obs = np.zeros(layout.size, np.float32)
    mask = np.zeros(venv.num_actions, np.int8)
    for _ in range(200):
        venv.step(venv.sample_actions())
        for i in range(0, 16, 3):
            state = venv.states[i]
            assert np.array_equal(obs.shape, venv.observations[i].shape)
            for player in range(venv.num_players):
                GAME.observe(state, player, obs, mask)
                _check(state, player, obs, mask, layout)
                assert (obs >= layout.low()).all() and (obs <= layout.high()).all()


def test_the_docs_observation_table_is_the_layouts():
    table = GAME.observation_layout(GAME.make_params()).markdown()
    assert table in DOC.read_text()
