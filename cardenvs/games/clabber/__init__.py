"""Clabber (``clabber_v0``): four players in partnerships, Jack–Nine trumps, melds and the Bell. Rules:
docs/rules/clabber.md.

Teams are player_0 + player_2 against player_1 + player_3, and both partners get the team's reward: +1/−1/0
when a team reaches ``target_score`` (500), or with ``single_hand=True`` one hand per episode and a reward of
(own − opponents' points) / 162. Actions: 0–23 play a card, 24 pass, 25 accept the turn-up's suit, 26–29 name
clubs/diamonds/hearts/spades (30/31 declare/skip with ``optional_declare``). ``env(...)``, ``raw_env(...)``
and ``vector_env(num_envs, ...)`` take the parameters listed in the docs; ``reset(options={"deal": ...})``
starts from a chosen deal.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.core.game import Game
from cardenvs.games.clabber import rules
from cardenvs.games.clabber.cards import NUM_CARDS, NUM_RANKS, SUIT_WORDS, card_id, card_name
from cardenvs.games.clabber.observation import observation_layout, observe
from cardenvs.games.clabber.params import CARDS_PER_HAND, NUM_PLAYERS, ClabberParams, fill_params, state_fields
from cardenvs.games.clabber.render import render, render_private


def num_actions(params: ClabberParams) -> int:
    """24 cards, PASS, ACCEPT, 4 × NAME_SUIT; DECLARE and SKIP with optional_declare."""
    return rules.NUM_ACTIONS_WITH_DECLARE if params.optional_declare else rules.NUM_BASE_ACTIONS


def action_name(params: ClabberParams, action: int) -> str:
    """A short readable name: "play JH", "pass", "accept", "name spades", "declare", "skip"."""
    if 0 <= action < NUM_CARDS:
        return f"play {card_name(action)}"
    if action == rules.PASS:
        return "pass"
    if action == rules.ACCEPT:
        return "accept"
    if rules.NAME_SUIT <= action < rules.DECLARE:
        return f"name {SUIT_WORDS[action - rules.NAME_SUIT]}"
    if action == rules.DECLARE and params.optional_declare:
        return "declare"
    if action == rules.SKIP and params.optional_declare:
        return "skip"
    raise ValueError(f"action {action!r} is out of range 0..{num_actions(params) - 1}")


def deal_order(deal: dict[str, Any]) -> tuple[int, list[int]]:
    """The (dealer, deck order) of a ``deal`` option; see docs/rules/clabber.md, "Chosen deals"."""
    unknown = set(deal) - {"dealer", "deck", "hands", "turn_up"}
    if unknown:
        raise ValueError(f"unknown deal keys {sorted(unknown)}; allowed: dealer, deck, hands, turn_up")
    if "dealer" not in deal:
        raise ValueError("a deal needs 'dealer' (seat 0–3)")
    dealer = deal["dealer"]
    if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < NUM_PLAYERS:
        raise ValueError(f"dealer must be a seat 0..{NUM_PLAYERS - 1}; got {dealer!r}")
    dealer = int(dealer)
    if ("deck" in deal) == ("hands" in deal):
        raise ValueError("give exactly one of 'deck' (24 cards in deal order) or 'hands' (6 cards per seat)")
    if "deck" in deal:
        if "turn_up" in deal:
            raise ValueError("with 'deck' the turn-up is the deck's last card; leave out 'turn_up'")
        deck = [card_id(c) for c in deal["deck"]]
    else:
        hands = [[card_id(c) for c in seat_cards] for seat_cards in deal["hands"]]
        if len(hands) != NUM_PLAYERS or any(len(h) != CARDS_PER_HAND for h in hands):
            raise ValueError(f"'hands' needs {NUM_PLAYERS} lists of {CARDS_PER_HAND} cards (seat order)")
        dealer_hand = hands[dealer]
        if "turn_up" in deal:
            turn_up = card_id(deal["turn_up"])
            if turn_up not in dealer_hand:
                raise ValueError(f"turn_up {card_name(turn_up)} must be one of the dealer's cards")
            dealer_hand = [c for c in dealer_hand if c != turn_up] + [turn_up]
        deck = []
        for i in range(NUM_CARDS):  # card i of the deal goes to seat dealer+1+i, round by round
            seat = (dealer + 1 + i) % NUM_PLAYERS
            deck.append((dealer_hand if seat == dealer else hands[seat])[i // NUM_PLAYERS])
    if sorted(deck) != list(range(NUM_CARDS)):
        raise ValueError("the deal must use each of the 24 cards exactly once")
    return dealer, deck


def apply_deal(state: np.record, params: ClabberParams, deal: dict[str, Any]) -> None:
    """Restart the game from a chosen first deal (see docs/rules/clabber.md, "Chosen deals").

    ``deal = {"dealer": seat, "hands": [[6 cards] per seat], "turn_up": card}`` (``turn_up`` optional: the
    dealer's last listed card) or ``{"dealer": seat, "deck": [24 cards in deal order]}``. Cards are ids or
    names ("JH", "10s"). Later hands are shuffled by the game's own generator as usual.
    """
    dealer, deck = deal_order(deal)
    state.dealer = dealer
    state.deck[:] = np.array(deck, np.int8)
    rules.start_from_deck(state)


GAME = Game(
    name="clabber",
    version=0,
    params_type=ClabberParams,
    state_fields=state_fields,
    fill_params=fill_params,
    num_players=lambda params: NUM_PLAYERS,
    num_actions=num_actions,
    action_name=action_name,
    observation_layout=observation_layout,
    render=render,
    apply_deal=apply_deal,
    rule_based_agent="agents.clabber:ClabberHeuristic",
    training_defaults={"total_timesteps": 500_000, "gamma": 0.995, "ent_coef": 0.01, "net_arch": [128, 128]},
    deal_keys=("dealer", "deck", "hands", "turn_up"),
    example_deals=(
        ({}, {"dealer": 3, "hands": [
            ["AS", "KS", "QS", "JS", "10S", "9S"], ["AC", "KC", "QC", "JC", "10C", "9C"],
            ["AD", "KD", "QD", "JD", "10D", "9D"], ["AH", "KH", "QH", "JH", "10H", "9H"]]}),
        ({"optional_declare": True}, {"dealer": 0, "hands": [
            ["JH", "9H", "AH", "10S", "KS", "QS"], ["AC", "KC", "QC", "JC", "10C", "9C"],
            ["AD", "KD", "QD", "JD", "10D", "9D"], ["10H", "KH", "QH", "AS", "JS", "9S"]], "turn_up": "QS"}),
    ),
    check_invariants=rules.check_invariants,
    quick_params={"single_hand": True},
    example_params=(
        {},
        {"single_hand": True},
        {"target_score": 200, "fail_rule": "belote_dedans", "tie_rule": "litige", "partner_exemption": True,
         "seq_tiebreak": "top_card_first", "optional_declare": True},
        {"single_hand": True, "optional_declare": True, "tie_rule": "litige"},
    ),
    reset=rules.reset,
    step=rules.step,
    legal_mask=rules.legal_mask,
    observe=observe,
    penalize=rules.penalize,
    render_private=render_private,
)

__all__ = ["GAME", "NUM_RANKS", "apply_deal", "deal_order"]
