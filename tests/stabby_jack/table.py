"""A Stabby Jack table for scenario tests: the AEC env started from a chosen deal, with readable accessors."""

from __future__ import annotations

import numpy as np

import cardenvs
from cardenvs.games.stabby_jack import GAME
from cardenvs.games.stabby_jack.cards import card_name

BASE_STATS = [["5H", "7D", "2S", "9C"], ["4H", "6D", "3S", "8C"]]


class Table:
    """One game in the AEC env (so every action is checked against the mask) from ``deal``."""

    def __init__(self, deal: dict, seed: int = 0, **params):
        deal = {"dealer": 1, **deal}
        self.env = cardenvs.env("stabby_jack_v0", **params)
        self.env.reset(seed=seed, options={"deal": deal})
        self.params = self.env.params

    @property
    def state(self) -> np.record:
        return self.env.state_record

    def play(self, *actions: int) -> Table:
        for action in actions:
            self.env.step(int(action))
            GAME.check_invariants(self.state, self.params)
        return self

    def legal(self) -> set[int]:
        return {int(a) for a in np.flatnonzero(self.env.observe(self.env.agent_selection)["action_mask"])}

    def stats(self, seat: int) -> list[str]:
        return [card_name(int(c)) for c in self.state.stats[seat, : self.state.stats_count[seat]]]

    def xp_row(self, seat: int) -> list[str]:
        return [card_name(int(c)) for c in self.state.xp_row[seat, : self.state.xp_count[seat]]]

    def discard(self) -> list[str]:
        return [card_name(int(c)) for c in self.state.discard[: self.state.discard_size]]

    @property
    def to_act(self) -> int:
        return int(self.state.current_player)
