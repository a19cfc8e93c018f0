"""A Slap table for scenario tests: the engine on one record, started from chosen stacks."""

from __future__ import annotations

import numpy as np

from cardenvs.core.game import new_states
from cardenvs.games.slap import GAME
from cardenvs.games.slap.cards import card_id, card_name
from cardenvs.games.slap.params import SLAP_RULES
from cardenvs.games.slap.rules import PASS, PHASE_WINDOW, SLAP, pile_cards, stack_cards


class Table:
    """One game driven directly through the compiled engine functions."""

    def __init__(self, num_players: int = 3, seed: int = 0, **params):
        self.params = GAME.make_params(num_players=num_players, **params)
        states, template = new_states(GAME, self.params, 1)
        states.view(np.uint8)[:] = template
        self.state = states.view(np.recarray)[0]
        GAME.reset(self.state, np.uint64(seed))
        self.mask = np.zeros(GAME.num_actions(self.params), np.int8)
        self.layout = GAME.observation_layout(self.params)

    def deal(self, stacks: list[list[str]], dealer: int | None = None) -> Table:
        """Stacks top card first; by default the dealer sits right of seat 0, so seat 0 plays first."""
        n = self.params.num_players
        GAME.apply_deal(self.state, self.params, {"dealer": n - 1 if dealer is None else dealer, "stacks": stacks})
        return self

    def legal(self) -> list[int]:
        GAME.legal_mask(self.state, self.mask)
        return np.flatnonzero(self.mask).tolist()

    def act(self, action: int) -> Table:
        assert action in self.legal(), f"action {action} is not legal here ({self.legal()})"
        GAME.step(self.state, action)
        return self

    def asked(self) -> list[int]:
        """The seats of the open window, in asking order."""
        return [int(s) for s in self.state.window_order[: int(self.state.window_size)]]

    def window(self, *slappers: int) -> Table:
        """Answer the open window: the given seats slap, the others pass."""
        assert self.state.phase == PHASE_WINDOW, "no slap window is open"
        for _ in range(int(self.state.window_size)):
            self.act(SLAP if int(self.state.current_player) in slappers else PASS)
        return self

    def passes(self, windows: int) -> Table:
        for _ in range(windows):
            self.window()
        return self

    def stack(self, seat: int) -> list[str]:
        return [card_name(c) for c in stack_cards(self.state, seat)]

    def pile(self) -> list[str]:
        """The pile, bottom card first."""
        return [card_name(c) for c in pile_cards(self.state)]

    def top(self) -> str:
        return self.pile()[-1]

    def matches(self) -> set[str]:
        """The slap rules the pile matches now."""
        return {rule for bit, rule in enumerate(SLAP_RULES) if int(self.state.slap_matches) >> bit & 1}

    def observe(self, player: int) -> dict[str, np.ndarray]:
        obs = np.zeros(self.layout.size, np.float32)
        mask = np.zeros_like(self.mask)
        GAME.observe(self.state, player, obs, mask)
        return self.layout.split(obs)

    def raw_observation(self, player: int) -> np.ndarray:
        obs = np.zeros(self.layout.size, np.float32)
        GAME.observe(self.state, player, obs, np.zeros_like(self.mask))
        return obs


def played_in_order(cards: list[str], num_players: int = 2, **params) -> Table:
    """A table whose first ``len(cards)`` plays are exactly ``cards`` (all windows passed), window still open.

    Seats alternate (with two players a challenge's payer is always the other seat); a filler card under each
    stack keeps anybody from running out.
    """
    stacks: list[list[str]] = [[] for _ in range(num_players)]
    for i, card in enumerate(cards):
        stacks[i % num_players].append(card)
    fillers = iter(name for name in ("2c", "3c", "6c", "8c", "2d", "3d") if name not in cards)
    for stack in stacks:
        stack.append(next(fillers))
    table = Table(num_players, **params).deal(stacks)
    table.passes(len(cards) - 1)
    assert table.pile() == cards and int(table.state.face_up) == len(cards), table.pile()
    return table


def card(name: str) -> int:
    return card_id(name)
