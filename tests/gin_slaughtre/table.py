"""A Gin Slaughtre table for scenario tests: the engine on one record, from chosen deals or positions."""

from __future__ import annotations

import numpy as np

from cardenvs.core.game import new_states
from cardenvs.games.gin_slaughtre import GAME
from cardenvs.games.gin_slaughtre.actions import (
    SINGLE_BASE,
    arrangement_action,
    run_action,
    set_action,
)
from cardenvs.games.gin_slaughtre.cards import NO_CARD, SUIT_LETTERS, SUIT_SYMBOLS, card_id, card_ids, card_name
from cardenvs.games.gin_slaughtre.rules import (
    LOC_BURNT,
    LOC_DOWN,
    LOC_HAND,
    LOC_PILE,
    LOC_STOCK,
    LOC_UP,
    PHASE_PLAY,
)


class Table:
    """One game driven directly through the compiled engine functions."""

    def __init__(self, seed: int = 0, **params):
        self.params = GAME.make_params(**params)
        states, template = new_states(GAME, self.params, 1)
        states.view(np.uint8)[:] = template
        self.state = states.view(np.recarray)[0]
        GAME.reset(self.state, np.uint64(seed))
        self.mask = np.zeros(GAME.num_actions(self.params), np.int8)
        self.layout = GAME.observation_layout(self.params)

    # ------------------------------------------------------------ set-ups
    def deal(self, hands, upcards, stock=(), dealer=1, downcards=None, arrange=True) -> Table:
        """A chosen deal (apply_deal); with ``arrange`` both seats keep their dealt upcards."""
        deal = {"dealer": dealer, "hands": hands, "upcards": upcards, "stock": list(stock)}
        if downcards is not None:
            deal["downcards"] = downcards
        GAME.apply_deal(self.state, self.params, deal)
        if arrange:
            for seat in range(2):
                self.act(arrangement_action(card_ids(hands[seat]) + card_ids(upcards[seat]), card_ids(upcards[seat])))
        return self

    def position(self, hands, upcards=((), ()), pile=(), stock=(), to_act=0, restricted=False,
                 downcards=None) -> Table:
        """A play-phase position: the listed cards where given (pile bottom first, stock drawn first first);
        every other card burnt."""
        state = self.state
        state.location[:] = LOC_BURNT
        state.known[:] = 0
        for seat in range(2):
            for card in card_ids(hands[seat]):
                state.location[card] = LOC_HAND + seat
            for card in card_ids(upcards[seat]):
                state.location[card] = LOC_UP + seat
            state.hand_count[seat] = len(hands[seat])
            state.up_count[seat] = len(upcards[seat])
            state.downcards[seat, :] = NO_CARD
            slots = card_ids(downcards[seat]) if downcards is not None else []
            for slot, card in enumerate(slots):
                state.location[card] = LOC_DOWN + seat
                state.downcards[seat, slot] = card
            state.down_count[seat] = len(slots)
        for i, card in enumerate(card_ids(pile)):
            state.location[card] = LOC_PILE
            state.pile[i] = card
        state.pile_size = len(pile)
        stock_ids = card_ids(stock)
        for card in stock_ids:
            state.location[card] = LOC_STOCK
        state.stock[: len(stock_ids)] = stock_ids[::-1]
        state.stock_size = len(stock_ids)
        state.burnt_count = int((state.location == LOC_BURNT).sum())
        state.phase = PHASE_PLAY
        state.current_player = to_act
        state.restricted = restricted
        GAME.check_invariants(state, self.params)
        return self

    # ------------------------------------------------------------ acting
    def legal(self) -> list[int]:
        GAME.legal_mask(self.state, self.mask)
        return np.flatnonzero(self.mask).tolist()

    def legal_names(self) -> set[str]:
        """The legal actions' names with cards as in ``deal`` lists (``"play 7C"``, ``"run 5S-8S"``)."""
        return {ascii_name(GAME.action_name(self.params, a)) for a in self.legal()}

    def act(self, *actions: int) -> Table:
        for action in actions:
            legal = self.legal()
            assert action in legal, f"{GAME.action_name(self.params, action)} is not legal: {self.legal_names()}"
            GAME.step(self.state, action)
            GAME.check_invariants(self.state, self.params)
        return self

    def play(self, *cards) -> Table:
        return self.act(trick(*cards))

    # ------------------------------------------------------------ reading
    def cards_at(self, location: int) -> set[str]:
        return {card_name(c) for c in np.flatnonzero(self.state.location == location)}

    def hand(self, seat: int) -> set[str]:
        return self.cards_at(LOC_HAND + seat)

    def upcards(self, seat: int) -> set[str]:
        return self.cards_at(LOC_UP + seat)

    def pile(self) -> list[str]:
        return [card_name(int(c)) for c in self.state.pile[: self.state.pile_size]]

    def observe(self, player: int) -> dict[str, np.ndarray]:
        obs = np.zeros(self.layout.size, np.float32)
        mask = np.zeros_like(self.mask)
        GAME.observe(self.state, player, obs, mask)
        return {**self.layout.split(obs), "mask": mask, "flat": obs}


def trick(*cards) -> int:
    """The play action for ``cards``: one card, a set of one rank, or a run in one suit (ascending)."""
    ids = card_ids(cards)
    if len(ids) == 1:
        return SINGLE_BASE + ids[0]
    if len({c // 4 for c in ids}) == 1:
        return set_action(ids)
    ids.sort()
    return run_action(ids[0] % 4, ids[0] // 4, len(ids))


def ascii_name(name: str) -> str:
    """An action name with its cards written as card names: ``"play 10♥"`` -> ``"play 10H"``, ``Jo1`` -> ``JO1``."""
    for symbol, letter in zip(SUIT_SYMBOLS, SUIT_LETTERS, strict=True):
        name = name.replace(symbol, letter)
    return name.replace("Jo", "JO")


def names(cards) -> set[str]:
    return {card_name(card_id(c)) for c in cards}
