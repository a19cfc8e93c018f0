"""Stabby Jack's observation: the full public table from one seat, as a flat float32 vector.

Everything in Stabby Jack is face up except the order of the draw pile, so the observation is the whole
public state. Seat blocks are relative and sized for ``max_players``: index 0 is the observing seat, 1 its left
neighbour, and so on clockwise; seats beyond ``num_players`` are all zero (``present`` = 0).
"""

from __future__ import annotations

from numba import njit

from cardenvs.core.game import ObservationLayout, ObservationView
from cardenvs.games.stabby_jack.cards import (
    JOKER,
    JOKERS_PER_DECK,
    NO_CARD,
    NUM_KINDS,
    NUM_RANKS,
    NUM_SUITS,
    NUM_VALUES,
    suit_of,
    value_of,
)
from cardenvs.games.stabby_jack.params import MAX_STATS, StabbyJackParams, decks_for
from cardenvs.games.stabby_jack.rules import (
    LEVEL_UP_COST,
    NUM_DECISION_PHASES,
    PHASE_OVER,
    legal_mask,
    meets_luck,
    meets_power,
    meets_xp,
)

MAX_CARD_VALUE = 10
MAX_STAT_SUM = MAX_STATS * MAX_CARD_VALUE  # bound of HP, magic, attack, luck (and of damage, kept below HP)
NUM_WIN_CONDITIONS = 3
# Entries of a seat's ``win_conditions`` row: rule:winning (a), (b) and (c).
CONDITION_XP, CONDITION_POWER, CONDITION_LUCK = range(NUM_WIN_CONDITIONS)
SLOT_FEATURES = NUM_SUITS  # suit one-hot per Stats slot (the value is in stat_values)


def observation_layout(params: StabbyJackParams) -> ObservationLayout:
    """The named blocks of the observation, in order (bounds from ``max_players``, so every player count up to
    it shares one space)."""
    m = params.seats()
    decks = decks_for(m)
    xp_bound = decks * (NUM_SUITS * NUM_VALUES + 2 * 4)  # every monster (1 XP) and ♦/♠ Monarch (2 XP)
    cards_bound = decks * (NUM_SUITS * NUM_RANKS + JOKERS_PER_DECK)
    per_seat = [
        ("present", 1, 1, "1 if the relative seat is in the game (0 beyond num_players)"),
        ("to_act", 1, 1, "one-hot relative seat to act (all zero once the game is over)"),
        ("dealer", 1, 1, "one-hot relative seat of the dealer"),
        ("stat_suits", MAX_STATS * SLOT_FEATURES, 1,
         "per relative seat and Stats slot 0–7, suit one-hot ♥ ♦ ♠ ♣ (all zero for an empty slot)"),
        ("stat_values", MAX_STATS, MAX_CARD_VALUE, "per relative seat and Stats slot, the card's value 2–10 (0 empty)"),
        ("stat_counts", NUM_SUITS * NUM_VALUES, decks,
         "per relative seat, how many Stats of each card: index suit·9 + value−2, suits ♥ ♦ ♠ ♣"),
        ("stats_count", 1, MAX_STATS, "Stats held (4–8)"),
        ("damage", 1, MAX_STAT_SUM, "damage markers"),
        ("hit_points", 1, MAX_STAT_SUM, "HP: Σ♥ (1 with no Heart)"),
        ("magic", 1, MAX_STAT_SUM, "magic attack: Σ♦"),
        ("attack", 1, MAX_STAT_SUM, "physical attack: Σ♠"),
        ("luck", 1, MAX_STAT_SUM, "luck: Σ♣"),
        ("xp", 1, xp_bound, "XP held (monster 1, Monarch 2)"),
        ("xp_monsters", 1, decks * NUM_SUITS * NUM_VALUES, "numbered cards (1 XP) in the XP row"),
        ("xp_monarchs", 1, decks * 4, "Monarchs (2 XP) in the XP row"),
        ("win_conditions", NUM_WIN_CONDITIONS, 1, "per relative seat: meets (a) XP ≥ 10, (b) power, (c) luck"),
    ]
    views = [
        ObservationView(name, m * size, 0, high, description) for name, size, high, description in per_seat
    ]
    views += [
        ObservationView("phase", NUM_DECISION_PHASES, 0, 1,
                        "one-hot: main / pay / replace / gain at 8 / shield / Ace own card / Ace target"),
        ObservationView("pending_card", NUM_KINDS, 0, 1, "one-hot kind of the drawn card awaiting a decision"),
        ObservationView("ace_own_slot", MAX_STATS, 0, 1, "one-hot own Stats slot chosen for the Ace swap"),
        ObservationView("level_up_paid", 1, 0, LEVEL_UP_COST, "XP paid so far for the Level Up (player_choice)"),
        ObservationView("deck_composition", NUM_KINDS, 0, decks * JOKERS_PER_DECK,
                        "cards of each kind left in the draw pile (kind ids: see Cards)"),
        ObservationView("deck_size", 1, 0, cards_bound, "cards in the draw pile"),
        ObservationView("discard_size", 1, 0, cards_bound, "cards in the discard pile"),
        ObservationView("discard_top", NUM_KINDS, 0, 1, "one-hot kind of the discard pile's top card"),
        ObservationView("turn", 1, 0, params.max_turns, "turns completed"),
    ]
    return ObservationLayout(views)


@njit(cache=True)
def _seat_block(state, obs, seat, rel, m):
    """Write one seat's per-seat entries; block k of the per-seat views starts at m * (offset of k)."""
    at = 0
    obs[at + rel] = 1.0  # present
    at += m
    if seat == state.current_player:
        obs[at + rel] = 1.0
    at += m
    if seat == state.dealer:
        obs[at + rel] = 1.0
    at += m
    suits_at = at
    values_at = suits_at + m * MAX_STATS * SLOT_FEATURES
    counts_at = values_at + m * MAX_STATS
    for slot in range(state.stats_count[seat]):
        card = state.stats[seat, slot]
        suit = suit_of(card)
        value = value_of(card)
        obs[suits_at + (rel * MAX_STATS + slot) * SLOT_FEATURES + suit] = 1.0
        obs[values_at + rel * MAX_STATS + slot] = value
        obs[counts_at + rel * NUM_SUITS * NUM_VALUES + suit * NUM_VALUES + value - 2] += 1.0
    at = counts_at + m * NUM_SUITS * NUM_VALUES
    obs[at + rel] = state.stats_count[seat]
    at += m
    obs[at + rel] = state.damage[seat]
    at += m
    obs[at + rel] = state.hit_points[seat]
    at += m
    obs[at + rel] = state.magic[seat]
    at += m
    obs[at + rel] = state.attack[seat]
    at += m
    obs[at + rel] = state.luck[seat]
    at += m
    obs[at + rel] = state.xp[seat]
    at += m
    obs[at + rel] = state.xp_count[seat] - state.xp_monarchs[seat]
    at += m
    obs[at + rel] = state.xp_monarchs[seat]
    at += m
    conditions_at = at + rel * NUM_WIN_CONDITIONS
    obs[conditions_at + CONDITION_XP] = 1.0 if meets_xp(state, seat) else 0.0
    obs[conditions_at + CONDITION_POWER] = 1.0 if meets_power(state, seat) else 0.0
    obs[conditions_at + CONDITION_LUCK] = 1.0 if meets_luck(state, seat) else 0.0
    return at + m * NUM_WIN_CONDITIONS


@njit(cache=True)
def observe(state, player, obs, mask):
    """Write ``player``'s observation and legal mask (zeros unless ``player`` is to act)."""
    obs[:] = 0.0
    n = state.num_players
    m = state.max_players
    at = 0
    for rel in range(n):
        at = _seat_block(state, obs, (player + rel) % n, rel, m)
    if state.phase != PHASE_OVER:
        obs[at + state.phase] = 1.0
    at += NUM_DECISION_PHASES
    if state.pending != NO_CARD:
        obs[at + state.pending] = 1.0
    at += NUM_KINDS
    if state.ace_own_slot >= 0:
        obs[at + state.ace_own_slot] = 1.0
    at += MAX_STATS
    obs[at] = state.level_up_paid
    at += 1
    for kind in range(NUM_KINDS):
        obs[at + kind] = state.deck_counts[kind]
    at += NUM_KINDS
    obs[at] = state.deck_size
    obs[at + 1] = state.discard_size
    at += 2
    if state.discard_size > 0:
        obs[at + state.discard[state.discard_size - 1]] = 1.0
    at += NUM_KINDS
    obs[at] = state.turn_count
    if player == state.current_player:
        legal_mask(state, mask)
    else:
        mask[:] = 0


assert JOKER == NUM_KINDS - 1  # the kind one-hots above index by kind id
