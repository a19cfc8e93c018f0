"""A Slabberjan table for scenario tests: the engine on one record, started from chosen deals."""

from __future__ import annotations

import numpy as np

from cardenvs.core.game import new_states
from cardenvs.games.slabberjan import GAME
from cardenvs.games.slabberjan.pieces import kind_id


class Table:
    """One game driven directly through the compiled engine functions."""

    def __init__(self, num_players: int, seed: int = 0, **params):
        self.params = GAME.make_params(num_players=num_players, **params)
        states, template = new_states(GAME, self.params, 1)
        states.view(np.uint8)[:] = template
        self.state = states.view(np.recarray)[0]
        GAME.reset(self.state, np.uint64(seed))
        self.mask = np.zeros(GAME.num_actions(self.params), np.int8)
        self.layout = GAME.observation_layout(self.params)

    def deal(self, dealer: int, pieces: list, bag: list | None = None) -> Table:
        deal = {"dealer": dealer, "pieces": pieces}
        if bag is not None:
            deal["bag"] = bag
        GAME.apply_deal(self.state, self.params, deal)
        return self

    def legal(self) -> list[int]:
        GAME.legal_mask(self.state, self.mask)
        return np.flatnonzero(self.mask).tolist()

    def act(self, *actions: int) -> Table:
        for action in actions:
            assert action in self.legal(), f"action {action} is not legal here ({self.legal()})"
            GAME.step(self.state, action)
        return self

    def pieces(self) -> list[str]:
        from cardenvs.games.slabberjan.pieces import kind_name

        return [kind_name(int(k)) for k in self.state.piece]

    def observe(self, player: int) -> dict[str, np.ndarray]:
        obs = np.zeros(self.layout.size, np.float32)
        mask = np.zeros_like(self.mask)
        GAME.observe(self.state, player, obs, mask)
        return self.layout.split(obs)

    @staticmethod
    def kind(name: str) -> int:
        return kind_id(name)
