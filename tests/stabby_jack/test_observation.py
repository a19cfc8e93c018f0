"""The observation's named views agree with the state, from every seat; the docs table is the layout's."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs.games.stabby_jack import GAME
from cardenvs.games.stabby_jack.cards import NUM_KINDS, is_monarch, suit_of, value_of
from cardenvs.games.stabby_jack.rules import meets_luck, meets_power, meets_xp

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules" / "stabby_jack.md"


def test_observation_table_in_docs_matches_the_layout():
    table = GAME.observation_layout(GAME.make_params()).markdown()
    assert table in DOC.read_text(encoding="utf-8")


def _check_seat(views, state, seat, rel, m):
    assert views["present"][rel] == 1
    assert views["to_act"][rel] == (seat == state.current_player)
    assert views["dealer"][rel] == (seat == state.dealer)
    suits = views["stat_suits"].reshape(m, 8, 4)[rel]
    values = views["stat_values"].reshape(m, 8)[rel]
    counts = views["stat_counts"].reshape(m, 4, 9)[rel]
    expected_counts = np.zeros((4, 9))
    for slot in range(8):
        if slot < state.stats_count[seat]:
            card = int(state.stats[seat, slot])
            assert suits[slot].argmax() == suit_of(card) and suits[slot].sum() == 1
            assert values[slot] == value_of(card)
            expected_counts[suit_of(card), value_of(card) - 2] += 1
        else:
            assert suits[slot].sum() == 0 and values[slot] == 0
    assert (counts == expected_counts).all()
    for name in ("stats_count", "damage", "hit_points", "magic", "attack", "luck", "xp"):
        assert views[name][rel] == state[name][seat], name
    row = [int(c) for c in state.xp_row[seat, : state.xp_count[seat]]]
    monarchs = sum(is_monarch(c) for c in row)
    assert views["xp_monarchs"][rel] == monarchs and views["xp_monsters"][rel] == len(row) - monarchs
    conditions = views["win_conditions"].reshape(m, 3)[rel]
    assert list(conditions) == [meets_xp(state, seat), meets_power(state, seat), meets_luck(state, seat)]


@pytest.mark.parametrize("params", [{}, {"num_players": 3, "jokers": True}])
def test_views_agree_with_the_state_from_every_seat(params):
    env = cardenvs.env("stabby_jack_v0", **params)
    env.reset(seed=12)
    layout, m = env.layout, env.params.seats()
    rng = np.random.default_rng(0)
    for _ in range(300):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        state = env.state_record
        n = int(state.num_players)
        for player in range(n):
            obs = env.observe(f"player_{player}")
            views = layout.split(obs["observation"])
            for rel in range(n):
                _check_seat(views, state, (player + rel) % n, rel, m)
            assert views["present"][n:].sum() == 0 and views["stat_suits"].reshape(m, -1)[n:].sum() == 0
            assert views["phase"].argmax() == state.phase and views["phase"].sum() == 1
            pending = views["pending_card"]
            assert (pending.sum() == 0) if state.pending < 0 else (pending.argmax() == state.pending)
            deck = np.bincount(state.deck[: state.deck_size].astype(np.int64), minlength=NUM_KINDS)
            assert (views["deck_composition"] == deck).all()
            assert views["deck_size"][0] == state.deck_size and views["discard_size"][0] == state.discard_size
            assert views["discard_top"].argmax() == state.discard[state.discard_size - 1]
            assert views["turn"][0] == state.turn_count
            own_slot = views["ace_own_slot"]
            assert (own_slot.sum() == 0) if state.ace_own_slot < 0 else own_slot.argmax() == state.ace_own_slot
            assert obs["action_mask"].any() == (player == state.current_player)
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


def test_render_shows_the_public_table():
    env = cardenvs.env("stabby_jack_v0", render_mode="ansi")
    env.reset(seed=0, options={"deal": {"dealer": 1, "stats": [["5H", "7D", "2S", "9C"], ["4H", "6D", "3S", "8C"]]}})
    text = env.render()
    assert "player_0: Stats [5H 7D 2S 9C] HP 5 damage 0 magic 7 attack 2 luck 9" in text
    assert "player_0 to act" in text and "draw pile 44 cards" in text
    names = [GAME.action_name(env.params, a) for a in range(env.num_actions)]
    assert names[:4] == ["train", "fight", "rest", "level up"] and names[17] == "ace: seat +1 slot 0"
    assert len(set(names)) == len(names)
