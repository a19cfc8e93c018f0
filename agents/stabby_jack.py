"""A rule-based Stabby Jack agent that reads only the observation (through the layout's named views).

Strategy: value a Stats row by luck first (win condition c), then the better attack and the other one (condition
b and both monster colours), then HP; never make a choice that kills itself. In the main phase it compares the
expected gain of training (the best replacement for every numbered card left in the draw pile), the expected
XP of a fight (the chance to beat each monster left, with the luck tie rule) and resting when hurt. It levels
up when it does not yet hold luck and power, shields against Stabby Jack only when the stab would kill, pays
Level Ups with 1-XP cards first (Monarchs are shields), and aims Aces at the biggest swing: its own gain, the
target's loss, and killing a target that holds XP.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from cardenvs.core.game import ObservationLayout
from cardenvs.games.stabby_jack.cards import NUM_RANKS, NUM_SUITS, NUM_VALUES
from cardenvs.games.stabby_jack.params import MAX_STATS
from cardenvs.games.stabby_jack.rules import (
    ACE_TARGET_BASE,
    DECLINE,
    FIGHT,
    LEVEL_UP,
    LEVEL_UP_COST,
    NO_SHIELD,
    PAY_MONSTER,
    PHASE_ACE_OWN,
    PHASE_ACE_TARGET,
    PHASE_GAIN_FULL,
    PHASE_MAIN,
    PHASE_REPLACE,
    PHASE_SHIELD,
    REST,
    SHIELD,
    SLOT_BASE,
    TRAIN,
    WIN_XP,
)

DEAD = -1000.0  # score of a row that would die
LUCK_WEIGHT = 1.5
MAIN_POWER_WEIGHT = 1.0
SIDE_POWER_WEIGHT = 0.5
HP_WEIGHT = 0.8
HP_CAP = 15  # HP beyond this adds nothing
XP_VALUE = 2.0  # worth of one more XP while short of the 10 needed
DAMAGE_COST = 1.0
REST_VALUE = 0.6
TARGET_LOSS_WEIGHT = 0.7
KILL_BONUS = 3.0
JACK_DAMAGE = 2
HEARTS, DIAMONDS, SPADES, CLUBS = range(NUM_SUITS)


def row_score(sums: np.ndarray, damage: float) -> np.ndarray:
    """Score of Stats rows from their suit sums ``[..., 4]`` (♥ ♦ ♠ ♣) and the damage taken."""
    hit_points = np.where(sums[..., HEARTS] > 0, sums[..., HEARTS], 1)
    high = np.maximum(sums[..., DIAMONDS], sums[..., SPADES])
    low = np.minimum(sums[..., DIAMONDS], sums[..., SPADES])
    score = (LUCK_WEIGHT * sums[..., CLUBS] + MAIN_POWER_WEIGHT * high + SIDE_POWER_WEIGHT * low
             + HP_WEIGHT * np.minimum(hit_points, HP_CAP))
    return np.where(hit_points > damage, score, DEAD)


class StabbyJackHeuristic(Agent):
    """Train towards luck and power, fight when the odds are good, rest when hurt, aim Aces at the best swing.

    Args:
        layout: the env's observation layout (``env.unwrapped.layout``).
    """

    name = "heuristic"

    def __init__(self, layout: ObservationLayout):
        self.layout = layout
        self.max_players = layout.offsets["present"][1] - layout.offsets["present"][0]
        # numbered kinds: suit and value of kind id suit*13 + value-2
        self.numbered_kinds = np.array([s * NUM_RANKS + v for s in range(NUM_SUITS) for v in range(NUM_VALUES)])
        self.kind_suits = np.repeat(np.arange(NUM_SUITS), NUM_VALUES)
        self.kind_values = np.tile(np.arange(2, 2 + NUM_VALUES), NUM_SUITS)

    # ------------------------------------------------------------------ decoding
    def _table(self, views: dict) -> dict:
        m = self.max_players
        suits = views["stat_suits"].reshape(m, MAX_STATS, NUM_SUITS)
        present = views["present"] > 0
        return {
            "present": present,
            "slot_suits": suits.argmax(axis=2),
            "slot_values": views["stat_values"].reshape(m, MAX_STATS),
            "counts": views["stats_count"].astype(int),
            "sums": np.stack([_suit_sum(suits, views, s) for s in range(NUM_SUITS)], axis=1),
            "damage": views["damage"],
            "hit_points": views["hit_points"],
            "attack": views["attack"],
            "magic": views["magic"],
            "luck": views["luck"],
            "xp": views["xp"],
            "conditions": views["win_conditions"].reshape(m, 3),
        }

    def _replacement_scores(self, table: dict, seat: int, suit: int, value: float) -> np.ndarray:
        """Scores of ``seat``'s row with each slot replaced by (suit, value)."""
        count = table["counts"][seat]
        sums = np.repeat(table["sums"][seat][None, :], count, axis=0).astype(float)
        sums[np.arange(count), table["slot_suits"][seat, :count]] -= table["slot_values"][seat, :count]
        sums[:, suit] += value
        return row_score(sums, table["damage"][seat])

    # ------------------------------------------------------------------ decisions
    def act(self, observation: dict[str, np.ndarray]) -> int:
        mask = observation["action_mask"]
        views = self.layout.split(observation["observation"])
        table = self._table(views)
        phase = int(views["phase"].argmax())
        if phase == PHASE_MAIN:
            choice = self._main(views, table, mask)
        elif phase in (PHASE_REPLACE, PHASE_GAIN_FULL):
            choice = self._place(views, table, phase)
        elif phase == PHASE_SHIELD:
            choice = SHIELD if table["hit_points"][0] - table["damage"][0] <= JACK_DAMAGE else NO_SHIELD
        elif phase == PHASE_ACE_OWN:
            choice = self._ace(table, mask, own_slot=None)
        elif phase == PHASE_ACE_TARGET:
            choice = self._ace(table, mask, own_slot=int(views["ace_own_slot"].argmax()))
        else:
            choice = PAY_MONSTER  # keep Monarchs as shields
        if not mask[choice]:
            choice = int(np.flatnonzero(mask)[0])
        return choice

    def _main(self, views: dict, table: dict, mask: np.ndarray) -> int:
        xp = table["xp"][0]
        holds_luck_and_power = table["conditions"][0, 1] and table["conditions"][0, 2]
        if mask[LEVEL_UP] and table["counts"][0] < MAX_STATS and not (holds_luck_and_power and xp < WIN_XP + 5):
            return LEVEL_UP
        deck = views["deck_composition"][self.numbered_kinds]
        total = deck.sum()
        if total == 0:
            return REST
        probabilities = deck / total
        current = row_score(table["sums"][0].astype(float), table["damage"][0])
        train_gain = 0.0
        for kind in np.flatnonzero(deck):
            best = self._replacement_scores(table, 0, self.kind_suits[kind], self.kind_values[kind]).max()
            train_gain += probabilities[kind] * (best - current)
        hp_left = table["hit_points"][0] - table["damage"][0]
        black = self.kind_suits >= SPADES
        power = np.where(black, table["attack"][0], table["magic"][0])
        wins = (power > self.kind_values) | ((power == self.kind_values) & (table["luck"][0] >= self.kind_values))
        p_win = float(probabilities[wins].sum())
        xp_worth = XP_VALUE if xp < WIN_XP else 0.2
        loss_cost = DAMAGE_COST if hp_left > 1 else -DEAD
        fight_gain = p_win * xp_worth - (1.0 - p_win) * loss_cost
        rest_gain = REST_VALUE * (1 + 2 * (hp_left <= JACK_DAMAGE)) if table["damage"][0] > 0 else -1.0
        options = {TRAIN: train_gain, FIGHT: fight_gain, REST: rest_gain}
        return max(options, key=options.get)

    def _place(self, views: dict, table: dict, phase: int) -> int:
        pending = int(views["pending_card"].argmax())
        suit, value = pending // NUM_RANKS, pending % NUM_RANKS + 2
        scores = self._replacement_scores(table, 0, suit, value)
        best = int(scores.argmax())
        if phase == PHASE_GAIN_FULL:
            current = row_score(table["sums"][0].astype(float), table["damage"][0])
            if scores[best] <= current:
                return DECLINE
        return SLOT_BASE + best

    def _ace(self, table: dict, mask: np.ndarray, own_slot: int | None) -> int:
        """The best (own Stat, target Stat) pair: own gain, target loss, and a kill of a target holding XP."""
        mine_now = row_score(table["sums"][0].astype(float), table["damage"][0])
        best_value, best_action = -np.inf, None
        own_slots = range(table["counts"][0]) if own_slot is None else (own_slot,)
        for mine in own_slots:
            if own_slot is None and not mask[SLOT_BASE + mine]:
                continue
            own_suit, own_value = table["slot_suits"][0, mine], table["slot_values"][0, mine]
            for rel in range(1, self.max_players):
                if not table["present"][rel]:
                    continue
                theirs_now = row_score(table["sums"][rel].astype(float), table["damage"][rel])
                for slot in range(table["counts"][rel]):
                    suit, value = table["slot_suits"][rel, slot], table["slot_values"][rel, slot]
                    if suit != own_suit and value != own_value:
                        continue
                    my_after = self._replacement_scores(table, 0, suit, value)[mine]
                    their_after = self._replacement_scores(table, rel, own_suit, own_value)[slot]
                    gain = my_after - mine_now
                    if their_after == DEAD:
                        gain += KILL_BONUS + table["xp"][rel]
                    else:
                        gain += TARGET_LOSS_WEIGHT * (theirs_now - their_after)
                    if gain > best_value:
                        best_value = gain
                        best_action = (SLOT_BASE + mine if own_slot is None
                                       else ACE_TARGET_BASE + (rel - 1) * MAX_STATS + slot)
        return best_action if best_action is not None else int(np.flatnonzero(mask)[0])


def _suit_sum(suits: np.ndarray, views: dict, suit: int) -> np.ndarray:
    """Per relative seat, the sum of Stat values of one suit (decoded slot by slot)."""
    m = suits.shape[0]
    values = views["stat_values"].reshape(m, MAX_STATS)
    return (suits[:, :, suit] * values).sum(axis=1)


assert LEVEL_UP_COST == 5
