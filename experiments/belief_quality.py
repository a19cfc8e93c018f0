"""What a belief from play knows: the log-probability it gives the true place of every unseen card.

Along games between shipped agents, one seat per game keeps a :class:`~cardenvs.agents.beliefs.Belief` (the game's
trained network as the model of the other seats, by default). At each of that seat's decisions, every hidden item
the seat has not seen is scored twice: by the probability the belief gives its true value (the particles' weighted
share), and by the probability the uniform resampler gives it (the share among as many of its draws). An item is
unseen where the resampler's draws do not all agree on it. Both shares are mixed with ``SMOOTHING`` of the uniform
choice among the values either saw, so that a value neither drew costs a finite log-probability. The table gives
the mean log-probability per unseen item for each, and the belief's gain over the resampler with its 95 %
interval over the games.

The hidden items of each game (:data:`ITEMS`):

- Slabberjan: the piece each other seat holds (its kind);
- Gin Slaughtre: where each card is (each seat's hand, upcards or downcards, the stock, the pile, burnt), and the
  opponent's secret arrangement while the seats arrange (afterwards the record keeps an index the rules no longer
  read, which the resampler draws again at every call: scoring it would measure noise);
- Clabber: which seat holds each card;
- Stabby Jack: the kind at each place of the draw pile (no seat has seen any of it, so no play says anything
  about it: the belief and the resampler should agree);
- Slap: whose stack holds each card (or the burnt cards under the pile), and each other seat's secret choice in
  an open slap window.

An analysis script, not part of the library: it reads the true state to score the beliefs, which no agent may.

Usage::

    python -m experiments.belief_quality                       # every game, the table of docs/beliefs.md
    python -m experiments.belief_quality clabber_v0 --games 40 --model heuristic --agents heuristic
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time
from collections.abc import Callable, Sequence

import numpy as np

import cardenvs
from cardenvs.agents.base import SeatView
from cardenvs.agents.beliefs import DEFAULT_PARTICLES, Belief, action_model
from cardenvs.agents.registry import make_agent
from cardenvs.core.global_state import encode_states, state_layout
from cardenvs.core.single import engine_view
from cardenvs.games.gin_slaughtre.rules import PHASE_ARRANGE

#: the weight of the uniform choice among the values seen, mixed into both shares before the log
SMOOTHING = 0.01
#: per game: the parameters and the number of games of the default run (a few minutes each on one core)
DEFAULT_RUNS: dict[str, tuple[dict, int]] = {
    "slabberjan_v0": ({}, 40),
    "gin_slaughtre_v0": ({}, 8),
    "clabber_v0": ({"single_hand": True}, 48),
    "stabby_jack_v0": ({"max_turns": 40}, 8),
    "slap_v0": ({"max_cards_played": 120}, 8),
}
#: the value of an item that is nowhere: a card in no hand, a place below the bottom of the draw pile
NO_ITEM = -1


def _slabberjan_items(records: np.ndarray, params) -> np.ndarray:
    return records["piece"].astype(np.int64)


def _gin_slaughtre_items(records: np.ndarray, params) -> np.ndarray:
    """Each card's location, and each seat's arrangement choice while the seats arrange (afterwards the field keeps
    an index the rules no longer read)."""
    arranging = (records["phase"] == PHASE_ARRANGE)[:, None]
    choices = np.where(arranging, records["pending_arrangement"], NO_ITEM)
    return np.concatenate([records["location"], choices], axis=1).astype(np.int64)


def _clabber_items(records: np.ndarray, params) -> np.ndarray:
    cards = np.arange(24, dtype=np.int64)
    held = (records["hand"].astype(np.int64)[:, :, None] >> cards) & 1  # [N, seat, card]
    return np.where(held.any(axis=1), held.argmax(axis=1), NO_ITEM)


def _stabby_jack_items(records: np.ndarray, params) -> np.ndarray:
    """The kind at each place of the draw pile counted from its top (``NO_ITEM`` below its bottom)."""
    deck = records["deck"].astype(np.int64)
    depth = np.arange(deck.shape[1])
    sizes = records["deck_size"].astype(np.int64)[:, None]
    places = np.clip(sizes - 1 - depth, 0, deck.shape[1] - 1)
    return np.where(depth < sizes, np.take_along_axis(deck, places, axis=1), NO_ITEM)


def _slap_items(records: np.ndarray, params) -> np.ndarray:
    game = cardenvs.get_game("slap_v0")
    layout = state_layout(game, params)
    out = np.zeros((len(records), layout.size), np.float32)
    blocks = layout.split(encode_states(engine_view(records.copy()), out, parallel=False))
    players = game.num_players(params)
    stacks = blocks["stacks"].reshape(len(records), -1, 54)[:, :players]  # per seat, its stack's cards
    burnt = blocks["burnt_cards"][:, None, :]
    places = np.concatenate([stacks, burnt], axis=1)  # [N, seat or burnt, card]
    where = np.where(places.any(axis=1), places.argmax(axis=1), NO_ITEM)
    return np.concatenate([where, records["slap_choice"].astype(np.int64)], axis=1)


#: per game, the hidden items of a batch of records: int ``[N, items]``
ITEMS: dict[str, Callable[[np.ndarray, object], np.ndarray]] = {
    "slabberjan_v0": _slabberjan_items,
    "gin_slaughtre_v0": _gin_slaughtre_items,
    "clabber_v0": _clabber_items,
    "stabby_jack_v0": _stabby_jack_items,
    "slap_v0": _slap_items,
}


def log_probabilities(values: np.ndarray, weights: np.ndarray, truth: np.ndarray, reference: np.ndarray
                      ) -> np.ndarray:
    """The smoothed log-probability a weighted sample gives the true value of each unseen item.

    Args:
        values: the items of each state of the sample, ``[N, I]``.
        weights: the sample's weights ``[N]`` (normalised).
        truth: the true items ``[I]``.
        reference: the items of the resampler's draws ``[K, I]``, which decide what is unseen (an item on which
            they do not all agree) and, with ``values``, the values the smoothing spreads over.

    Returns:
        ``[unseen items]``: ``log((1 - SMOOTHING) share + SMOOTHING / values seen)``.
    """
    unseen = np.flatnonzero((reference != reference[0]).any(axis=0))
    scores = np.empty(len(unseen))
    for index, item in enumerate(unseen):
        seen = np.union1d(values[:, item], reference[:, item]).size
        share = float(weights @ (values[:, item] == truth[item]))
        scores[index] = math.log((1 - SMOOTHING) * share + SMOOTHING / seen)
    return scores


@dataclasses.dataclass
class GameScores:
    """The scores of one game: the summed log-probabilities of both methods over its unseen items."""

    belief: float = 0.0
    uniform: float = 0.0
    items: int = 0
    decisions: int = 0
    rejuvenations: int = 0
    steps: int = 0  #: steps the belief followed
    seconds: float = 0.0  #: time the belief took to follow them (its start included)


def score_game(env_id: str, params: dict, agents: Sequence, model, seat: int, particles: int, seed: int
               ) -> GameScores:
    """One game played by ``agents`` (one per seat) from ``seed``, scored at every decision of ``seat``."""
    env = cardenvs.env(env_id, **params)
    env.reset(seed=seed)
    base = env.unwrapped
    items = ITEMS[env_id]
    rng = np.random.default_rng(seed)

    def view() -> SeatView:
        observation = env.observe(base.possible_agents[seat])
        return SeatView(base.game, base.params, base.state_record, seat, observation["observation"],
                        observation["action_mask"])

    scores = GameScores()
    started = time.perf_counter()
    belief = Belief(view(), model, particles=particles, seed=seed)
    scores.seconds += time.perf_counter() - started
    for name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        actor = base.possible_agents.index(name)
        if actor == seat:
            now = view()
            drawn = np.empty(particles, belief.records.dtype)
            for index in range(particles):
                drawn[index] = now.resample(rng)
            reference = items(drawn, base.params)
            truth = items(np.array([base.state_record], drawn.dtype), base.params)[0]
            ours = log_probabilities(items(belief.records, base.params), belief.weights, truth, reference)
            theirs = log_probabilities(reference, np.full(particles, 1 / particles), truth, reference)
            scores.belief += float(ours.sum())
            scores.uniform += float(theirs.sum())
            scores.items += len(ours)
            scores.decisions += 1
        action = int(agents[actor].act(observation))
        env.step(action)
        seen = view()
        started = time.perf_counter()
        belief.observe(seen, action if actor == seat else None)
        scores.seconds += time.perf_counter() - started
        scores.steps += 1
    scores.rejuvenations = belief.rejuvenations
    return scores


@dataclasses.dataclass
class Quality:
    """What a belief knows in one game, over a run of games."""

    env_id: str
    model: str
    agents: str
    games: int
    decisions: int
    items: int
    belief: float  #: mean log-probability of the true value per unseen item, under the belief
    uniform: float  #: the same under the uniform resampler
    gain: float  #: belief - uniform, per item
    gain_ci95: float  #: half-width of its 95 % interval over the games (each game weighted by its items)
    step_ms: float  #: milliseconds the belief takes per step of the game, rejuvenations included
    rejuvenations: float  #: rejuvenations per step
    seconds: float  #: the whole run's time

    def row(self) -> str:
        """The run as a markdown table row."""
        return (f"| {self.env_id} | {self.model} | {self.agents} | {self.games} | {self.decisions:,} | "
                f"{self.items:,} | {self.uniform:.3f} | {self.belief:.3f} | {self.gain:+.3f} ± {self.gain_ci95:.3f} | "
                f"{self.step_ms:.1f} | {self.rejuvenations:.2f} |")


HEADER = ("| game | model | agents | games | decisions | unseen items | resampler | belief | gain | ms/step | "
          "rejuvenations/step |\n|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|")


def _warm_up(env, model) -> None:
    """Follow one step with a tiny belief, so that compiling the engine's kernels is not timed as the belief's."""
    env.reset(seed=0)
    base = env.unwrapped

    def view(seat: int) -> SeatView:
        observation = env.observe(base.possible_agents[seat])
        return SeatView(base.game, base.params, base.state_record, seat, observation["observation"],
                        observation["action_mask"])

    actor = base.possible_agents.index(env.agent_selection)
    belief = Belief(view(actor), model, particles=2, seed=0)
    action = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    env.step(action)
    belief.observe(view(actor), action)


def measure(env_id: str, games: int, params: dict | None = None, model: str = "trained", agents: str = "trained",
            particles: int = DEFAULT_PARTICLES, seed: int = 0) -> Quality:
    """Score ``games`` games of ``env_id`` between ``agents`` (one agent spec at every seat), the belief of seat
    ``game % players`` using the action model ``model``.

    Args:
        env_id: a game of :data:`ITEMS`.
        games: how many games (1 or more).
        params: the game's parameters.
        model: the belief's action model spec (:func:`cardenvs.agents.beliefs.action_model`).
        agents: the agent spec every seat plays.
        particles: the belief's particles, and the resampler's draws per decision.
        seed: game ``g`` is dealt from ``seed + g``.

    Raises:
        ValueError: a game without items here, fewer than 1 game, or a spec that cannot be made.
    """
    if env_id not in ITEMS:
        raise ValueError(f"no hidden items are defined for {env_id}; choose from {', '.join(ITEMS)}")
    if games < 1:
        raise ValueError(f"games must be 1 or more, got {games}")
    params = dict(params or {})
    env = cardenvs.env(env_id, **params)
    layout = env.unwrapped.layout
    players = env.unwrapped.game.num_players(env.unwrapped.params)
    belief_model = action_model(model, env_id, layout)
    _warm_up(env, belief_model)
    started = time.perf_counter()
    per_game = []
    for game in range(games):
        playing = [make_agent(agents, env_id, layout, seed=seed + game) for _ in range(players)]
        per_game.append(score_game(env_id, params, playing, belief_model, game % players, particles, seed + game))
    items = np.array([scores.items for scores in per_game], np.float64)
    gains = np.array([(scores.belief - scores.uniform) / max(scores.items, 1) for scores in per_game])
    total = items.sum()
    mean_gain = float(items @ gains / total) if total else 0.0
    spread = math.sqrt(float(items @ (gains - mean_gain) ** 2 / total) / max(games - 1, 1)) if total else 0.0
    return Quality(
        env_id=env_id, model=model, agents=agents, games=games,
        decisions=sum(scores.decisions for scores in per_game), items=int(total),
        belief=sum(scores.belief for scores in per_game) / max(total, 1),
        uniform=sum(scores.uniform for scores in per_game) / max(total, 1),
        gain=mean_gain, gain_ci95=1.96 * spread,
        step_ms=1000 * sum(scores.seconds for scores in per_game) / max(sum(scores.steps for scores in per_game), 1),
        rejuvenations=sum(scores.rejuvenations for scores in per_game) / max(sum(s.steps for s in per_game), 1),
        seconds=time.perf_counter() - started,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_ids", nargs="*", help=f"games to measure (default: {' '.join(DEFAULT_RUNS)})")
    parser.add_argument("--games", type=int, help="games per env id (default: each game's in DEFAULT_RUNS)")
    parser.add_argument("--params-json", help="the game's parameters (default: each game's in DEFAULT_RUNS)")
    parser.add_argument("--model", default="trained", help="the belief's action model spec")
    parser.add_argument("--agents", default="trained", help="the agent spec every seat plays")
    parser.add_argument("--particles", type=int, default=DEFAULT_PARTICLES)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    results = []
    print(HEADER, flush=True)
    try:
        for env_id in args.env_ids or list(DEFAULT_RUNS):
            params, games = DEFAULT_RUNS.get(env_id, ({}, 10))
            if args.params_json is not None:
                params = json.loads(args.params_json)
            quality = measure(env_id, args.games if args.games is not None else games, params, args.model,
                              args.agents, args.particles, args.seed)
            results.append(quality)
            print(quality.row(), f"<!-- {quality.seconds:.0f} s -->", flush=True)
    except ValueError as error:
        parser.exit(2, f"belief_quality: {error}\n")
    if args.json:
        with open(args.json, "w") as stream:
            json.dump([dataclasses.asdict(quality) for quality in results], stream, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
