"""A rule-based Stabby Jack agent that reads only the observation (through the layout's named views).

Strategy: value a Stats row by luck first (win condition c), then the better attack and the other one (condition
b and both monster colours), then HP; never make a choice that kills itself. In the main phase it compares the
expected gain of training (the best replacement for every numbered card left in the draw pile, or in the
reshuffled discard pile once it is empty), the expected XP of a fight (the chance to beat each monster left,
with the luck tie rule) and resting when hurt. It levels
up when it does not yet hold luck and power, shields against Stabby Jack only when the stab would kill, pays
Level Ups with 1-XP cards first (Monarchs are shields), and aims Aces at the biggest swing: its own gain, the
target's loss, and killing a target that holds XP.
"""

from __future__ import annotations

import numpy as np

from cardenvs.agents.base import Agent
from cardenvs.core.game import ObservationLayout
from cardenvs.games.stabby_jack.cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    NUM_KINDS,
    NUM_SUITS,
    SPADES,
    is_numbered,
    suit_of,
    value_of,
)
from cardenvs.games.stabby_jack.observation import CONDITION_LUCK, CONDITION_POWER, NUM_WIN_CONDITIONS
from cardenvs.games.stabby_jack.params import MAX_STATS, decks_for
from cardenvs.games.stabby_jack.rules import (
    ACE_TARGET_BASE,
    DECLINE,
    FIGHT,
    JACK_DAMAGE,
    LEVEL_UP,
    LEVEL_UP_COST,
    MONSTER_DAMAGE,
    NO_HEARTS_HIT_POINTS,
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
    beats_monster,
    fought_with_attack,
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


def row_score(sums: np.ndarray, damage: float) -> np.ndarray:
    """Score of Stats rows from their suit sums ``[..., 4]`` (♥ ♦ ♠ ♣) and the damage taken."""
    hit_points = np.where(sums[..., HEARTS] > 0, sums[..., HEARTS], NO_HEARTS_HIT_POINTS)  # rule:stats
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
        # the numbered kinds in id order (suit by suit, values 2…10), as the stat_counts view lists them
        self.numbered_kinds = np.array([kind for kind in range(NUM_KINDS) if is_numbered(kind)])
        self.kind_suits = suit_of(self.numbered_kinds)
        self.kind_values = value_of(self.numbered_kinds)

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
            "conditions": views["win_conditions"].reshape(m, NUM_WIN_CONDITIONS),
        }

    def _replacement_scores(self, table: dict, seat: int, suit: int, value: float) -> np.ndarray:
        """Scores of ``seat``'s row with each slot replaced by (suit, value)."""
        count = table["counts"][seat]
        sums = np.repeat(table["sums"][seat][None, :], count, axis=0).astype(float)
        sums[np.arange(count), table["slot_suits"][seat, :count]] -= table["slot_values"][seat, :count]
        sums[:, suit] += value
        return row_score(sums, table["damage"][seat])

    def _numbered_to_draw(self, views: dict) -> np.ndarray:
        """Numbered cards of each kind the next draws come from, for one observation or a batch ``[N, ...]``.

        The draw pile's composition while it holds any; once it is empty the next draw reshuffles the discard
        pile, estimated as every numbered card outside the Stats rows (the XP rows' kinds are not observed).
        """
        deck = views["deck_composition"][..., self.numbered_kinds]
        decks = decks_for(views["present"].sum(axis=-1, keepdims=True))
        in_stats = views["stat_counts"].reshape(*deck.shape[:-1], self.max_players, len(self.numbered_kinds))
        in_stats = in_stats.sum(axis=-2)
        outside_stats = np.maximum(decks - in_stats, 0).astype(deck.dtype)
        return np.where(deck.sum(axis=-1, keepdims=True) > 0, deck, outside_stats)

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
            choice = PAY_MONSTER  # keep Monarchs as shields (rule:stabby_jack)
        if not mask[choice]:
            choice = int(np.flatnonzero(mask)[0])
        return choice

    def _main(self, views: dict, table: dict, mask: np.ndarray) -> int:
        xp = table["xp"][0]
        holds_luck_and_power = table["conditions"][0, CONDITION_POWER] and table["conditions"][0, CONDITION_LUCK]
        # holding luck and power already, it levels up only while paying still leaves the XP that wins
        if (mask[LEVEL_UP] and table["counts"][0] < MAX_STATS
                and not (holds_luck_and_power and xp < WIN_XP + LEVEL_UP_COST)):
            return LEVEL_UP
        deck = self._numbered_to_draw(views)
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
        power = np.where(fought_with_attack(self.kind_suits), table["attack"][0], table["magic"][0])
        wins = beats_monster(power, table["luck"][0], self.kind_values)
        p_win = float(deck[wins].sum() / total)  # whole-card counts, one rounding: act_batch matches it exactly
        xp_worth = XP_VALUE if xp < WIN_XP else 0.2
        loss_cost = DAMAGE_COST if hp_left > MONSTER_DAMAGE else -DEAD  # a lost fight would kill
        fight_gain = p_win * xp_worth - (1.0 - p_win) * loss_cost
        rest_gain = REST_VALUE * (1 + 2 * (hp_left <= JACK_DAMAGE)) if table["damage"][0] > 0 else -1.0
        options = {TRAIN: train_gain, FIGHT: fight_gain, REST: rest_gain}
        return max(options, key=options.get)

    def _place(self, views: dict, table: dict, phase: int) -> int:
        pending = int(views["pending_card"].argmax())
        suit, value = suit_of(pending), value_of(pending)
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


    # ------------------------------------------------------------------ batched decisions
    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The decisions of :meth:`act` for every row at once, vectorised over the batch.

        Args:
            observations: ``obs[N, D]`` of the batched env.
            action_masks: ``action_mask[N, A]`` of the batched env.

        Returns:
            ``actions[N]`` (int64), each the action :meth:`act` picks for that row.
        """
        views = self.layout.split(observations)
        table = self._batch_table(views)
        phase = views["phase"].argmax(axis=1)
        choices = np.full(len(observations), PAY_MONSTER, dtype=np.int64)  # pay phase: keep Monarchs as shields
        rows = np.flatnonzero(phase == PHASE_MAIN)
        choices[rows] = self._main_batch(views, table, action_masks, rows)
        rows = np.flatnonzero((phase == PHASE_REPLACE) | (phase == PHASE_GAIN_FULL))
        choices[rows] = self._place_batch(views, table, rows, phase[rows] == PHASE_GAIN_FULL)
        rows = np.flatnonzero(phase == PHASE_SHIELD)
        hp_left = table["hit_points"][rows, 0] - table["damage"][rows, 0]
        choices[rows] = np.where(hp_left <= JACK_DAMAGE, SHIELD, NO_SHIELD)
        rows = np.flatnonzero((phase == PHASE_ACE_OWN) | (phase == PHASE_ACE_TARGET))
        choices[rows] = self._ace_batch(views, table, action_masks, rows, phase[rows] == PHASE_ACE_TARGET)
        illegal = action_masks[np.arange(len(choices)), choices] == 0
        choices[illegal] = (action_masks[illegal] > 0).argmax(axis=1)  # the first legal action, as in act
        return choices

    def _batch_table(self, views: dict) -> dict:
        """:meth:`_table` for a batch: every per-seat entry gets a leading row axis."""
        batch, m = len(views["present"]), self.max_players
        suits = views["stat_suits"].reshape(batch, m, MAX_STATS, NUM_SUITS)
        values = views["stat_values"].reshape(batch, m, MAX_STATS)
        counts = views["stats_count"].astype(int)
        return {
            "present": views["present"] > 0,
            "slot_suits": suits.argmax(axis=3),
            "slot_values": values,
            "slot_held": np.arange(MAX_STATS) < counts[..., None],
            "sums": (suits * values[..., None]).sum(axis=2).astype(float),
            "damage": views["damage"],
            "hit_points": views["hit_points"],
            "attack": views["attack"],
            "magic": views["magic"],
            "luck": views["luck"],
            "xp": views["xp"],
            "counts": counts,
            "conditions": views["win_conditions"].reshape(batch, m, NUM_WIN_CONDITIONS),
        }

    def _main_batch(self, views: dict, table: dict, masks: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """:meth:`_main` for ``rows``."""
        sums, damage, xp = table["sums"][rows, 0], table["damage"][rows, 0], table["xp"][rows, 0]
        conditions = table["conditions"][rows, 0]
        holds_luck_and_power = (conditions[:, CONDITION_POWER] > 0) & (conditions[:, CONDITION_LUCK] > 0)
        level_up = ((masks[rows, LEVEL_UP] > 0) & (table["counts"][rows, 0] < MAX_STATS)
                    & ~(holds_luck_and_power & (xp < WIN_XP + LEVEL_UP_COST)))
        deck = self._numbered_to_draw({name: view[rows] for name, view in views.items()})
        total = deck.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):  # an empty pile rests, whatever these hold
            probabilities = deck / total[:, None]
        current = row_score(sums, damage)
        best = np.where(
            table["slot_held"][rows, 0, None, :],
            _swap_scores(sums[:, None, None], damage[:, None, None], table["slot_suits"][rows, 0, None, :],
                         table["slot_values"][rows, 0, None, :], self.kind_suits[None, :, None],
                         self.kind_values[None, :, None]),
            -np.inf,
        ).max(axis=2)
        train_gain = np.zeros(len(rows))
        for kind in range(len(self.numbered_kinds)):  # in kind order, as act sums them
            held = deck[:, kind] > 0
            train_gain[held] += probabilities[held, kind] * (best[held, kind] - current[held])
        hp_left = table["hit_points"][rows, 0] - damage
        power = np.where(fought_with_attack(self.kind_suits), table["attack"][rows, 0, None],
                         table["magic"][rows, 0, None])
        wins = beats_monster(power, table["luck"][rows, 0, None], self.kind_values)
        with np.errstate(invalid="ignore", divide="ignore"):
            p_win = ((deck * wins).sum(axis=1) / total).astype(float)
        xp_worth = np.where(xp < WIN_XP, XP_VALUE, 0.2)
        loss_cost = np.where(hp_left > MONSTER_DAMAGE, DAMAGE_COST, -DEAD)
        fight_gain = p_win * xp_worth - (1.0 - p_win) * loss_cost
        rest_gain = np.where(damage > 0, REST_VALUE * (1 + 2 * (hp_left <= JACK_DAMAGE)), -1.0)
        options = np.array([TRAIN, FIGHT, REST])
        choices = options[np.stack([train_gain, fight_gain, rest_gain], axis=1).argmax(axis=1)]
        choices[total == 0] = REST
        choices[level_up] = LEVEL_UP
        return choices

    def _place_batch(self, views: dict, table: dict, rows: np.ndarray, gain_full: np.ndarray) -> np.ndarray:
        """:meth:`_place` for ``rows``; ``gain_full`` marks the rows that may DECLINE."""
        sums, damage = table["sums"][rows, 0], table["damage"][rows, 0]
        pending = views["pending_card"][rows].argmax(axis=1)
        scores = np.where(
            table["slot_held"][rows, 0],
            _swap_scores(sums[:, None], damage[:, None], table["slot_suits"][rows, 0], table["slot_values"][rows, 0],
                         suit_of(pending)[:, None], value_of(pending)[:, None]),
            -np.inf,
        )
        best = scores.argmax(axis=1)
        decline = gain_full & (scores[np.arange(len(rows)), best] <= row_score(sums, damage))
        return np.where(decline, DECLINE, SLOT_BASE + best)

    def _ace_batch(self, views: dict, table: dict, masks: np.ndarray, rows: np.ndarray,
                   targeting: np.ndarray) -> np.ndarray:
        """:meth:`_ace` for ``rows`` over axes (own slot, opponent, their slot); ``targeting`` marks the rows
        whose own Stat is already chosen."""
        sums, damage = table["sums"][rows], table["damage"][rows]
        suits, values = table["slot_suits"][rows], table["slot_values"][rows]
        own_suits, own_values = suits[:, 0, :, None, None], values[:, 0, :, None, None]
        their_suits, their_values = suits[:, None, 1:], values[:, None, 1:]
        mine_after = _swap_scores(sums[:, 0, None, None, None], damage[:, 0, None, None, None], own_suits, own_values,
                                  their_suits, their_values)
        theirs_after = _swap_scores(sums[:, None, 1:, None], damage[:, None, 1:, None], their_suits, their_values,
                                    own_suits, own_values)
        theirs_now = row_score(sums[:, 1:], damage[:, 1:])[:, None, :, None]
        gain = mine_after - row_score(sums[:, 0], damage[:, 0])[:, None, None, None]
        gain = np.where(theirs_after == DEAD, gain + (KILL_BONUS + table["xp"][rows, None, 1:, None]),
                        gain + TARGET_LOSS_WEIGHT * (theirs_now - theirs_after))
        chosen_slot = views["ace_own_slot"][rows].argmax(axis=1)
        own_allowed = np.where(targeting[:, None], np.arange(MAX_STATS) == chosen_slot[:, None],
                               masks[rows, SLOT_BASE:SLOT_BASE + MAX_STATS] > 0)
        valid = ((own_allowed & table["slot_held"][rows, 0])[:, :, None, None]
                 & (table["present"][rows, None, 1:, None] & table["slot_held"][rows, None, 1:])
                 & ((their_suits == own_suits) | (their_values == own_values)))
        flat = np.where(valid, gain, -np.inf).reshape(len(rows), MAX_STATS * (self.max_players - 1) * MAX_STATS)
        best = flat.argmax(axis=1)  # the first best in (own slot, opponent, slot) order, as act's strict ">"
        mine, target = np.divmod(best, (self.max_players - 1) * MAX_STATS)
        choices = np.where(targeting, ACE_TARGET_BASE + target, SLOT_BASE + mine)
        none_valid = ~valid.reshape(flat.shape).any(axis=1)
        choices[none_valid] = (masks[rows[none_valid]] > 0).argmax(axis=1)
        return choices


def _swap_scores(sums: np.ndarray, damage: np.ndarray, out_suits: np.ndarray, out_values: np.ndarray,
                 in_suits: np.ndarray, in_values: np.ndarray) -> np.ndarray:
    """Scores of Stats rows after one card (out suit, value) leaves and another (in suit, value) joins.

    Args:
        sums: suit sums ``[..., 4]`` before the swap.
        damage: damage taken, broadcast against the result.
        out_suits: suit of the card leaving, broadcast against the result.
        out_values: its value.
        in_suits: suit of the card joining.
        in_values: its value.
    """
    suit_ids = np.arange(NUM_SUITS)
    after = (sums - (out_suits[..., None] == suit_ids) * out_values[..., None]
             + (in_suits[..., None] == suit_ids) * in_values[..., None])
    return row_score(after, damage)


def _suit_sum(suits: np.ndarray, views: dict, suit: int) -> np.ndarray:
    """Per relative seat, the sum of Stat values of one suit (decoded slot by slot)."""
    m = suits.shape[0]
    values = views["stat_values"].reshape(m, MAX_STATS)
    return (suits[:, :, suit] * values).sum(axis=1)
