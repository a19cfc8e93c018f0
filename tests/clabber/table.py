"""A Clabber table for scenario tests: the engine on one record, started from chosen deals."""

from __future__ import annotations

import numpy as np

from cardenvs.core.game import new_states
from cardenvs.games.clabber import GAME
from cardenvs.games.clabber.cards import CARD_NAMES, NUM_CARDS, bits_to_cards, card_id
from cardenvs.games.clabber.rules import ACCEPT, NAME_SUIT, PASS

SUITS = "CDHS"


def cards(text: str) -> list[int]:
    """Card ids from names separated by spaces: ``cards("JH 9H AS")``."""
    return [card_id(name) for name in text.split()]


class Table:
    """One game driven directly through the compiled engine functions."""

    def __init__(self, seed: int = 0, **params):
        self.params = GAME.make_params(**params)
        states, template = new_states(GAME, self.params, 1)
        states.view(np.uint8)[:] = template
        self.states = states
        self.state = states.view(np.recarray)[0]
        GAME.reset(self.state, np.uint64(seed))
        self.mask = np.zeros(GAME.num_actions(self.params), np.int8)
        self.layout = GAME.observation_layout(self.params)

    def deal(self, dealer: int, hands: dict[int, str], turn_up: str | None = None) -> Table:
        """Deal the given hands (names); seats not given get the remaining cards in id order."""
        given = {seat: cards(text) for seat, text in hands.items()}
        used = {c for hand in given.values() for c in hand}
        rest = [c for c in range(NUM_CARDS) if c not in used]
        full = []
        for seat in range(4):
            hand = list(given.get(seat, []))
            while len(hand) < 6:
                hand.append(rest.pop(0))
            full.append(hand)
        deal = {"dealer": dealer, "hands": full}
        if turn_up is not None:
            deal["turn_up"] = turn_up
        GAME.apply_deal(self.state, self.params, deal)
        return self

    def legal(self) -> list[int]:
        GAME.legal_mask(self.state, self.mask)
        return np.flatnonzero(self.mask).tolist()

    def legal_names(self) -> set[str]:
        return {CARD_NAMES[a] for a in self.legal() if a < NUM_CARDS}

    def act(self, *actions: int | str) -> Table:
        """Apply actions: ints, or card names to play."""
        for action in actions:
            if isinstance(action, str):
                action = card_id(action)
            assert action in self.legal(), f"action {action} is not legal here ({self.legal()})"
            GAME.step(self.state, action)
        return self

    def accept(self) -> Table:
        return self.act(ACCEPT)

    def passes(self, count: int) -> Table:
        return self.act(*([PASS] * count))

    def name(self, suit: str) -> Table:
        return self.act(NAME_SUIT + SUITS.index(suit))

    def play_first_legal(self, count: int = 1) -> Table:
        for _ in range(count):
            self.act(self.legal()[0])
        return self

    def play_random(self, rng: np.random.Generator, count: int = 1) -> Table:
        for _ in range(count):
            self.act(int(rng.choice(self.legal())))
        return self

    def play_out_hand(self, rng: np.random.Generator | None = None) -> Table:
        """First legal action (or a random one with ``rng``) until the hand in progress is scored."""
        played = int(self.state.hands_played)
        while self.state.hands_played == played and not (self.state.terminated or self.state.truncated):
            legal = self.legal()
            self.act(legal[0] if rng is None else int(rng.choice(legal)))
        return self

    def hand_of(self, seat: int) -> list[str]:
        return [CARD_NAMES[c] for c in bits_to_cards(int(self.state.hand[seat]))]

    def observe(self, player: int, fill: float = 0.0) -> dict[str, np.ndarray]:
        obs = np.full(self.layout.size, fill, np.float32)
        mask = np.zeros_like(self.mask)
        GAME.observe(self.state, player, obs, mask)
        views = self.layout.split(obs)
        views["mask"] = mask
        return views

    def copy(self) -> Table:
        clone = object.__new__(Table)
        clone.__dict__.update(self.__dict__)
        clone.states = self.states.copy()
        clone.state = clone.states.view(np.recarray)[0]
        clone.mask = self.mask.copy()
        return clone
