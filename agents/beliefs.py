"""Beliefs from play: where the hidden cards are, weighted by how likely the other seats' choices made them.

The game's hidden-card resampler (``Game.resample``) draws full states uniformly among those a seat cannot tell
from the true one: it keeps every hard fact the seat has seen, but treats every choice of the other seats as
equally likely whatever they hold. A :class:`Belief` adds what those choices say, under an *action model* of how
the other seats play (:func:`action_model`: the game's shipped network by default, a rule-based agent smoothed
towards uniform, any agent with action probabilities, or ``uniform``, the resampler's own assumption).

The belief is a particle filter over full state records, run on the compiled engine. It follows one seat through
one game as that seat sees it: :class:`Belief` starts from the seat's :class:`~cardenvs.agents.base.SeatView`, and
:meth:`Belief.observe` takes the seat's view after every step of the game (and the seat's own action when it
acted). The views are its only source: their observation and legal mask, and their resampler. So the belief knows
nothing the seat does not (tests/test_beliefs.py checks that twin views, which differ only in what the seat cannot
see, give byte-identical particles and weights).

One step, for every particle (a full record the seat cannot tell from the true one, with a weight):

1. The seat that acts in the particle: where it is the belief's own seat, its action is the one it took; otherwise
   every legal action ``a`` of the actor in the particle is a candidate, with the model's weight ``π(a | o)`` on
   the actor's observation ``o`` *in the particle*.
2. Every candidate is stepped by the engine (chance inside the step drawn from the particle's own generator) and
   kept if the seat's observation and legal mask after it are exactly the true ones.
3. The particle's weight is multiplied by the kept candidates' total model weight, and it moves on to one of them,
   drawn in proportion to its model weight. A particle with none left is dropped (weight 0).

The other seats' actions are never read: the seat's next observation decides which candidates survive. An action
the seat sees (a card played) keeps one candidate per particle, and the weight is the model's probability of it
in that particle; a choice it cannot see (a secret choice in Slap's slap window, Gin Slaughtre's arrangement)
keeps every candidate that looks the same, and the weight is their total probability: the exact marginal. This is
Bayes' rule, computed by importance sampling with the resampler's draws as the proposal: with enough particles and
no rejuvenation, the weighted particles are the exact posterior of the hidden state given everything the seat has
seen and the model (tests/test_beliefs.py compares them with the enumerated posterior of a toy game). Chance inside
a step is kept exact the same way: a particle whose own draw shows the seat something else is dropped, so each
particle survives with the probability its state gives what the seat saw.

**Rejuvenation** (the one approximation). Dropped particles and uneven weights leave few particles that count
(the effective sample size ``(Σw)² / Σw²``). When it falls below ``ess_fraction`` of the particles (or none is
left) the belief draws a fresh pool of states from the resampler at the current position, which agree with every
hard fact, and must give each the likelihood its history would have had under the model. That history is not
known for a fresh state, so it is estimated from the particles. The log-likelihood is a sum over the other seats,
each seat's share being a function of what that seat has observed, so each particle carries its share per seat
(its label) and each share is estimated from that seat's current observation in the fresh state:

- where a particle with exactly the same observation of that seat exists, its label (the log of the mean
  likelihood over such particles): exact wherever a seat's current observation fixes what it observed earlier,
  given what the belief's own seat saw;
- otherwise a ridge regression of the labels on that seat's observation entries (penalty chosen by generalised
  cross-validation), clipped to the labels' range: the log-likelihood treated as additive over what the seat
  sees (its cards, its counts).

The pool's states are then drawn in proportion to their estimated likelihood (systematic resampling) to become the
new particles. The labels come from every particle that has a state after the step: the survivors, and, at a
step of the belief's own seat, those dropped only because the seat's own draw came out otherwise (a card drawn from
a stock whose order nobody saw), whose labels are as informative as the survivors'. With a uniform model every
label is 0 and rejuvenation is exact: the belief then draws as the resampler does. Evidence that only a dropped
particle's *history* held (a hidden choice revealed later whose particles all died) is lost to the pool; the
per-game table in docs/beliefs.md measures what the belief knows with this approximation.

Use::

    model = action_model("trained", env_id, layout)
    belief = Belief(view, model, seed=0)      # at the start of the game, the seat's SeatView
    ...
    belief.observe(view, own_action=action)  # after every step; own_action when the seat itself acted
    records = belief.sample(32, rng)           # instead of 32 calls of view.resample(rng)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection
from typing import Any

import numpy as np
from numba import njit, prange

from cardenvs.agents.base import SeatView
from cardenvs.core.dispatch import engine_observe, engine_step
from cardenvs.core.game import ObservationLayout
from cardenvs.core.rng import SEED_LIMIT
from cardenvs.core.single import engine_view
from cardenvs.core.vector import _observe_seats

#: particles a belief keeps by default
DEFAULT_PARTICLES = 256
#: rejuvenate when the effective sample size falls below this share of the particles
DEFAULT_ESS_FRACTION = 0.5
#: fresh states drawn per particle at a rejuvenation (the pool the new particles are chosen from)
DEFAULT_POOL_FACTOR = 2
#: the weight of uniform-over-legal mixed into a deterministic (rule-based) agent's choice by default
RULE_BASED_SMOOTHING = 0.1
#: the model spec of the resampler's own assumption: every legal action equally likely, whatever the cards
UNIFORM = "uniform"
#: the model spec a belief uses where none is named: the game's shipped network
DEFAULT_MODEL = "trained"
#: agent spec kinds that choose without action probabilities (searches, a person, and RLlib modules, whose
#: probabilities the agent does not expose)
NO_PROBABILITIES = ("pimc", "ismcts", "human", "rllib")
#: labels more than this many nats below the best are raised to it before regression: such particles weigh less
#: than e^-30 of the best and would only pull the fit towards differences that change no weight
LOG_LIKELIHOOD_SPAN = 30.0
#: ridge penalties tried by cross-validation, as multiples of the largest squared singular value of the features
RIDGE_PENALTIES = np.logspace(-4.0, 2.0, 13)
#: the most sweeps of Jacobi rotations an eigen-decomposition takes, and the off-diagonal mass (a share of the
#: whole) at which it stops
JACOBI_SWEEPS = 50
JACOBI_TOLERANCE = 1e-22


class ActionModel:
    """How a belief assumes the other seats choose: a weight per legal action, on a batch of observations.

    Subclasses implement :meth:`weights`. Only ratios between particles matter, so the weights need not sum to 1
    (:class:`UniformModel` gives every legal action 1).
    """

    #: a short name for logs and tables
    name = "model"

    def weights(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """float64 ``[B, A]``: the weight of each action for each row's seat (0 where the action is illegal).

        Args:
            observations: the acting seats' observations, float32 ``[B, D]``.
            action_masks: their legal masks, int8 ``[B, A]``.
        """
        raise NotImplementedError


class UniformModel(ActionModel):
    """Every legal action has weight 1, however many there are: only what the rules allow is evidence, as in the
    resampler (which deals uniformly among the deals that agree with the seat's view). A belief on it draws as
    the resampler does. (The ``random`` model differs: it gives each of ``k`` legal actions ``1/k``, so a seat with
    fewer choices is likelier to have made the one it made.)"""

    name = UNIFORM

    def weights(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return (action_masks > 0).astype(np.float64)


class PolicyModel(ActionModel):
    """A policy's action probabilities, mixed with the uniform choice among the legal actions.

    Args:
        probabilities: ``(observations[B, D], action_masks[B, A]) -> [B, A]`` action probabilities (renormalised
            over the legal actions here).
        name: the model's name.
        smoothing: the weight ``ε`` of the uniform choice: each legal action of ``k`` gets
            ``(1 - ε) p + ε / k``. A deterministic policy needs ``ε > 0`` to survive a seat that plays otherwise.
    """

    def __init__(self, probabilities: Callable[[np.ndarray, np.ndarray], np.ndarray], name: str,
                 smoothing: float = 0.0):
        if not (isinstance(smoothing, (int, float)) and 0.0 <= smoothing <= 1.0):
            raise ValueError(f"smoothing={smoothing!r} is not allowed; it must be a number from 0 to 1")
        self._probabilities = probabilities
        self.name = name
        self.smoothing = float(smoothing)

    def weights(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        legal = action_masks > 0
        counts = np.maximum(legal.sum(axis=1, keepdims=True), 1)
        probabilities = np.where(legal, np.asarray(self._probabilities(observations, action_masks), np.float64), 0.0)
        totals = probabilities.sum(axis=1, keepdims=True)
        uniform = legal / counts
        probabilities = np.where(totals > 0, probabilities / np.where(totals > 0, totals, 1.0), uniform)
        return (1.0 - self.smoothing) * probabilities + self.smoothing * uniform


def network_probabilities(network: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The softmax of a self-play network's masked policy logits."""
    import torch as th

    def probabilities(observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        with th.inference_mode():
            logits = network.policy_logits(th.as_tensor(observations, dtype=th.float32),
                                           th.as_tensor(action_masks) != 0)
            return th.softmax(logits.double(), dim=1).numpy()

    return probabilities


def chosen_action_probabilities(agent: Any) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """Probability 1 on the action a deterministic agent chooses."""

    def probabilities(observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        chosen = np.asarray(agent.act_batch(observations, action_masks), np.int64)
        out = np.zeros(action_masks.shape, np.float64)
        out[np.arange(len(chosen)), chosen] = 1.0
        return out

    return probabilities


def uniform_probabilities(observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
    """Every legal action alike."""
    legal = (action_masks > 0).astype(np.float64)
    return legal / np.maximum(legal.sum(axis=1, keepdims=True), 1.0)


def _refuse(spec: str) -> ValueError:
    return ValueError(
        f"the belief's model {spec!r} gives no action probabilities, so it cannot say how likely an action was; "
        f"choose {UNIFORM}, random, heuristic (smoothed towards uniform), trained or ppo:PATH of a self-play .pt "
        f"model"
    )


def action_model(spec: str, env_id: str, layout: ObservationLayout, smoothing: float | None = None,
                 seed: int | None = None) -> ActionModel:
    """The action model of an agent spec, for beliefs in ``env_id``.

    Args:
        spec: ``uniform`` (:class:`UniformModel`); ``random`` (each legal action ``1/k``); ``heuristic`` (the
            game's rule-based agent: probability 1 on its choice, smoothed); ``trained`` or ``ppo:PATH`` of a
            self-play ``.pt`` model (the network's softmax); any other agent spec whose agent has an
            ``action_probabilities(observations, action_masks)`` method. Specs without action probabilities
            (``pimc``, ``ismcts``, ``human``, ``rllib:PATH``, a MaskablePPO ``.zip``) are refused.
        env_id: the game.
        layout: its observation layout.
        smoothing: the weight of the uniform choice mixed in (:class:`PolicyModel`); default
            :data:`RULE_BASED_SMOOTHING` for the rule-based agent and 0 for the others.
        seed: seed of the agent (for agents that draw randomness).

    Raises:
        ValueError: a spec without action probabilities, an unknown or malformed spec, a model that cannot be
            loaded, or a smoothing outside 0–1.
    """
    from cardenvs.agents.registry import check_spec, make_agent

    if spec == UNIFORM:
        if smoothing:
            raise ValueError(f"the {UNIFORM} model takes no smoothing; it is uniform already")
        return UniformModel()
    check_spec(spec)
    if spec.partition(":")[0] in NO_PROBABILITIES:
        raise _refuse(spec)
    agent = make_agent(spec, env_id, layout, seed)
    network = getattr(agent, "network", None)
    if spec == "heuristic":
        probabilities = chosen_action_probabilities(agent)
        default = RULE_BASED_SMOOTHING
    elif spec == "random":
        probabilities, default = uniform_probabilities, 0.0
    elif network is not None and hasattr(network, "policy_logits"):
        probabilities, default = network_probabilities(network), 0.0
    elif callable(getattr(agent, "action_probabilities", None)):
        probabilities, default = agent.action_probabilities, 0.0
    else:
        raise _refuse(spec)
    return PolicyModel(probabilities, spec, default if smoothing is None else smoothing)


@njit(cache=True, parallel=True)
def _step_and_compare(records, actions, seat, observation, action_mask, observations, masks, same):
    """Step record ``k`` with ``actions[k]``; ``same[k]``: whether ``seat`` then observes exactly ``observation``
    and ``action_mask``."""
    for k in prange(records.shape[0]):
        engine_step(records[k], actions[k])
        engine_observe(records[k], seat, observations[k], masks[k])
        equal = True
        for j in range(observation.shape[0]):
            if observations[k, j] != observation[j]:
                equal = False
                break
        if equal:
            for j in range(action_mask.shape[0]):
                if masks[k, j] != action_mask[j]:
                    equal = False
                    break
        same[k] = equal


def _log_mean_exp(values: np.ndarray) -> float:
    top = float(values.max())
    return top + math.log(float(np.mean(np.exp(values - top))))


@njit(cache=True)
def _symmetric_eigen(matrix):
    """The eigenvalues and eigenvectors (columns) of a symmetric matrix, by cyclic Jacobi rotations: compiled and on
    one thread, so that it costs the same on a machine whose other cores are busy (a multi-threaded LAPACK call
    on such a machine can take a second for a matrix of a hundred rows)."""
    a = matrix.copy()
    size = a.shape[0]
    vectors = np.eye(size)
    scale = 0.0
    for i in range(size):
        for j in range(size):
            scale += a[i, j] * a[i, j]
    for _ in range(JACOBI_SWEEPS):
        off = 0.0
        for i in range(size):
            for j in range(i + 1, size):
                off += a[i, j] * a[i, j]
        if off <= JACOBI_TOLERANCE * scale:
            break
        for p in range(size - 1):
            for q in range(p + 1, size):
                if a[p, q] == 0.0:
                    continue
                theta = (a[q, q] - a[p, p]) / (2.0 * a[p, q])
                tangent = (1.0 if theta >= 0 else -1.0) / (abs(theta) + math.sqrt(theta * theta + 1.0))
                cosine = 1.0 / math.sqrt(tangent * tangent + 1.0)
                sine = tangent * cosine
                for k in range(size):
                    kp, kq = a[k, p], a[k, q]
                    a[k, p] = cosine * kp - sine * kq
                    a[k, q] = sine * kp + cosine * kq
                for k in range(size):
                    pk, qk = a[p, k], a[q, k]
                    a[p, k] = cosine * pk - sine * qk
                    a[q, k] = sine * pk + cosine * qk
                for k in range(size):
                    kp, kq = vectors[k, p], vectors[k, q]
                    vectors[k, p] = cosine * kp - sine * kq
                    vectors[k, q] = sine * kp + cosine * kq
    values = np.empty(size)
    for i in range(size):
        values[i] = max(a[i, i], 0.0)
    return values, vectors


@njit(cache=True)
def _ridge_coefficients(design, target, penalties):
    """Ridge coefficients of ``target`` on ``design``, the penalty (a multiple of the largest eigenvalue of the
    design's Gram matrix, from ``penalties``) chosen by generalised cross-validation; all zero where every
    penalty leaves too few degrees of freedom."""
    rows, columns = design.shape
    gram = np.zeros((columns, columns))
    moment = np.zeros(columns)
    for r in range(rows):
        for i in range(columns):
            moment[i] += design[r, i] * target[r]
            for j in range(i, columns):
                gram[i, j] += design[r, i] * design[r, j]
    for i in range(columns):
        for j in range(i):
            gram[i, j] = gram[j, i]
    values, vectors = _symmetric_eigen(gram)
    projected = vectors.T @ moment
    best = np.zeros(columns)
    best_score = np.inf
    for factor in penalties:
        penalty = factor * values.max()
        freedom = 0.0
        for i in range(columns):
            freedom += values[i] / (values[i] + penalty)
        if freedom >= rows - 1:
            continue
        coefficients = vectors @ (projected / (values + penalty))
        residual = target - design @ coefficients
        score = rows * (residual @ residual) / (rows - freedom) ** 2
        if score < best_score:
            best, best_score = coefficients, score
    return best


def _ridge_predict(features: np.ndarray, labels: np.ndarray, counts: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """Ridge regression of ``labels`` on distinct rows of ``features`` (``counts[g]`` particles had row ``g``),
    on the columns that vary (one of each set of equal columns), standardised, its penalty chosen by generalised
    cross-validation; the predictions at ``queries``. Constant where no column varies or with too few rows."""
    weights = counts / counts.sum()
    mean_label = float(weights @ labels)
    varying = np.flatnonzero(features.max(axis=0) > features.min(axis=0))
    if varying.size == 0 or len(labels) < 3:
        return np.full(len(queries), mean_label)
    _, first = np.unique(features[:, varying], axis=1, return_index=True)
    columns = varying[np.sort(first)]
    center = weights @ features[:, columns]
    scale = np.sqrt(weights @ (features[:, columns] - center) ** 2)
    root = np.sqrt(counts / counts.mean())[:, None]
    design = np.ascontiguousarray(root * (features[:, columns] - center) / scale)
    target = root[:, 0] * (labels - mean_label)
    coefficients = _ridge_coefficients(design, target, RIDGE_PENALTIES)
    return mean_label + ((queries[:, columns] - center) / scale) @ coefficients


def estimate_log_likelihood(features: np.ndarray, labels: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """One seat's log-likelihood at fresh states, estimated from the particles' labels (module docstring).

    Args:
        features: the seat's observation in each particle, ``[n, D]``.
        labels: each particle's log-likelihood share of that seat, ``[n]``.
        queries: the seat's observation in each fresh state, ``[m, D]``.

    Returns:
        float64 ``[m]``: the label of a particle with the same observation (log of their mean likelihood), else the
        ridge regression's prediction clipped to the labels' range.
    """
    labels = np.asarray(labels, np.float64)
    if len(labels) == 0:
        return np.zeros(len(queries))
    labels = np.maximum(labels, labels.max() - LOG_LIKELIHOOD_SPAN)
    if labels.min() == labels.max():
        return np.full(len(queries), labels[0])
    features = np.ascontiguousarray(features, np.float32)
    groups: dict[bytes, list[float]] = {}
    rows: dict[bytes, np.ndarray] = {}
    for row, label in zip(features, labels, strict=True):
        key = row.tobytes()
        groups.setdefault(key, []).append(float(label))
        rows.setdefault(key, row)
    exact = {key: _log_mean_exp(np.array(values)) for key, values in groups.items()}
    queries = np.ascontiguousarray(queries, np.float32)
    known = [exact.get(row.tobytes()) for row in queries]
    estimates = np.array([math.nan if value is None else value for value in known])
    unknown = np.isnan(estimates)
    if unknown.any():
        predicted = _ridge_predict(np.array(list(rows.values()), np.float64), np.array(list(exact.values())),
                                   np.array([len(values) for values in groups.values()], np.float64),
                                   queries[unknown].astype(np.float64))
        estimates[unknown] = np.clip(predicted, labels.min(), labels.max())
    return estimates


def _systematic(probabilities: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` indices drawn in proportion to ``probabilities`` (systematic resampling: one uniform draw)."""
    edges = np.cumsum(probabilities)
    edges[-1] = 1.0
    points = (rng.random() + np.arange(count)) / count
    return np.minimum(np.searchsorted(edges, points, side="right"), len(probabilities) - 1)


class Belief:
    """One seat's belief over the hidden state of one game, from the other seats' play (module docstring).

    Args:
        view: the seat's view where the belief starts (the game's first decision, for a belief that knows the
            whole game; later, it starts from the resampler's uniform belief there).
        model: how the other seats are assumed to choose (:func:`action_model`).
        particles: the number of particles.
        seed: seed of the belief's generator (its resampler draws and choices); the belief is a function of the
            seat's views, its own actions and this seed.
        ess_fraction: rejuvenate when the effective sample size falls below this share of the particles (0:
            only when no particle is left).
        pool_factor: fresh states drawn per particle at a rejuvenation.
        uniform_seats: seats whose choices the model does not describe (a best response's own partner, say): every
            legal action of theirs weighs alike, as in the resampler. The collection is read at each step, so a
            caller may add seats after the belief starts.

    Raises:
        ValueError: a game without a resampler, or counts or fractions out of range.
    """

    def __init__(self, view: SeatView, model: ActionModel, particles: int = DEFAULT_PARTICLES,
                 seed: int | None = None, ess_fraction: float = DEFAULT_ESS_FRACTION,
                 pool_factor: int = DEFAULT_POOL_FACTOR, uniform_seats: Collection[int] = ()):
        for name, value in (("particles", particles), ("pool_factor", pool_factor)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name}={value!r} is not allowed; it must be a positive integer")
        if not (isinstance(ess_fraction, (int, float)) and 0.0 <= ess_fraction <= 1.0):
            raise ValueError(f"ess_fraction={ess_fraction!r} is not allowed; it must be a number from 0 to 1")
        if not isinstance(model, ActionModel):
            raise ValueError(f"model must be an ActionModel (see action_model), got {type(model).__name__}")
        self.game = view.game
        self.params = view.params
        self.seat = view.seat
        self.model = model
        self.num_players = self.game.num_players(self.params)
        self.num_actions = self.game.num_actions(self.params)
        self.observation_size = self.game.observation_layout(self.params).size
        self.ess_fraction = float(ess_fraction)
        self.pool_factor = int(pool_factor)
        self.uniform_seats = uniform_seats
        self.size = int(particles)
        #: rejuvenations so far
        self.rejuvenations = 0
        self._rng = np.random.default_rng(seed)
        self._dtype = self.game.state_dtype(self.params)
        self._records = self._draw(view, self.size)
        self._log_weights = np.zeros(self.size)
        self._labels = np.zeros((self.size, self.num_players))
        self._mask = np.array(view.action_mask, np.int8)

    @property
    def records(self) -> np.ndarray:
        """A copy of the particles (a structured array of the game's records); a dropped particle keeps its last
        state, with weight 0, until the next rejuvenation replaces it."""
        return self._records.copy()

    @property
    def weights(self) -> np.ndarray:
        """The particles' normalised weights (0 for a dropped particle)."""
        top = self._log_weights.max()
        weights = np.exp(self._log_weights - top)
        return weights / weights.sum()

    @property
    def log_likelihoods(self) -> np.ndarray:
        """Each particle's log-likelihood share per seat ``[N, P]`` (the labels rejuvenation learns from; the
        belief's own seat's column is 0)."""
        return self._labels.copy()

    @property
    def effective_size(self) -> float:
        """The effective sample size ``(Σw)² / Σw²`` of the particles."""
        if not np.isfinite(self._log_weights).any():
            return 0.0
        weights = self.weights
        return float(1.0 / np.sum(weights**2))

    def sample(self, count: int, rng: np.random.Generator) -> np.ndarray:
        """``count`` full records drawn from the belief (with replacement, in proportion to the weights), each with
        its generator reseeded from ``rng``: what a search draws instead of ``count`` calls of ``view.resample``.

        Args:
            count: how many records.
            rng: the generator the draws and the new seeds come from.

        Returns:
            a structured array of ``count`` records of the game's record type.
        """
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
            raise ValueError(f"count={count!r} is not allowed; it must be an integer of at least 0")
        indices = rng.choice(self.size, size=int(count), p=self.weights)
        drawn = self._records[indices].copy()
        drawn["rng"] = rng.integers(0, SEED_LIMIT, size=int(count), dtype=np.uint64)
        return drawn

    def observe(self, view: SeatView, own_action: int | None = None) -> None:
        """Follow one step of the game: the seat's view after it, and the seat's own action if it was the one to
        act (its legal mask before the step was not empty).

        Args:
            view: the seat's :class:`SeatView` after the step.
            own_action: the action the seat took, where it acted; ``None`` where another seat acted.

        Raises:
            ValueError: a view of another game or seat, an action missing where the seat acted, given where it did
                not, or not legal. Nothing changes then.
        """
        acted = bool(self._mask.any())
        self._check(view, acted, own_action)
        records = self._records
        count = len(records)
        over = records["terminated"] | records["truncated"]
        actors = np.where(over, self.seat, records["current_player"]).astype(np.int64)
        if acted:
            weights = np.zeros((count, self.num_actions))
            weights[:, int(own_action)] = 1.0
        else:
            observations, masks = self._observe(records, actors)
            weights = np.where(masks > 0, self.model.weights(observations, masks), 0.0)
            if self.uniform_seats:
                unmodelled = np.isin(actors, np.fromiter(self.uniform_seats, np.int64))
                weights[unmodelled] = masks[unmodelled] > 0
        weights[over | ~np.isfinite(self._log_weights)] = 0.0  # a finished game or a dropped particle goes nowhere
        parents, actions = np.nonzero(weights > 0)
        candidates = records[parents]
        same = self._step(candidates, actions, view)
        kept = weights[parents, actions] * same
        mass = np.bincount(parents, weights=kept, minlength=count)
        chosen = self._choose(parents, kept, mass)
        alive = mass > 0
        self._records = records.copy()
        self._records[alive] = candidates[chosen[alive]]
        logs = np.log(np.where(alive, mass, 1.0))
        self._log_weights = np.where(alive, self._log_weights + logs, -np.inf)
        if not acted:
            self._labels[alive, actors[alive]] += logs[alive]
        self._mask = np.array(view.action_mask, np.int8)
        if self.effective_size < max(self.ess_fraction * self.size, 1.0) or not alive.any():
            # the states after the step: the survivors', and at the seat's own step the dropped ones' too
            if acted:
                examples, labels = candidates, self._labels[parents]
            else:
                examples, labels = self._records[alive], self._labels[alive]
            self._rejuvenate(view, examples, labels)

    def _check(self, view: SeatView, acted: bool, own_action: int | None) -> None:
        if not isinstance(view, SeatView):
            raise ValueError(f"view must be a SeatView, got {type(view).__name__}")
        if view.game.env_id != self.game.env_id or view.params != self.params or view.seat != self.seat:
            raise ValueError(f"the view is of {view.game.env_id} seat {view.seat} with {view.params}; this belief "
                             f"follows {self.game.env_id} seat {self.seat} with {self.params}")
        if acted and own_action is None:
            raise ValueError(f"seat {self.seat} was to act: give the action it took (own_action)")
        if not acted and own_action is not None:
            raise ValueError(f"seat {self.seat} was not to act, so own_action must be None, got {own_action!r}")
        if acted and not (isinstance(own_action, (int, np.integer)) and 0 <= own_action < self.num_actions
                          and self._mask[own_action]):
            raise ValueError(f"own_action={own_action!r} was not legal for seat {self.seat}; legal actions: "
                             f"{np.flatnonzero(self._mask).tolist()}")

    def _draw(self, view: SeatView, count: int) -> np.ndarray:
        """``count`` records from the view's resampler."""
        records = np.empty(count, self._dtype)
        for index in range(count):
            records[index] = view.resample(self._rng)
        return records

    def _observe(self, records: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """What ``seats[i]`` observes of ``records[i]``: ``(obs[n, D], mask[n, A])``."""
        observations = np.zeros((len(records), self.observation_size), np.float32)
        masks = np.zeros((len(records), self.num_actions), np.int8)
        _observe_seats(engine_view(records), np.asarray(seats, np.int64), observations, masks)
        return observations, masks

    def _step(self, candidates: np.ndarray, actions: np.ndarray, view: SeatView) -> np.ndarray:
        """Step every candidate (in place); whether each then shows the seat exactly the view."""
        observations = np.zeros((len(candidates), self.observation_size), np.float32)
        masks = np.zeros((len(candidates), self.num_actions), np.int8)
        same = np.zeros(len(candidates), np.bool_)
        if len(candidates):
            _step_and_compare(engine_view(candidates), actions.astype(np.int64), np.int64(self.seat),
                              np.asarray(view.observation, np.float32), np.asarray(view.action_mask, np.int8),
                              observations, masks, same)
        return same

    def _choose(self, parents: np.ndarray, kept: np.ndarray, mass: np.ndarray) -> np.ndarray:
        """Per particle, the index of one of its kept candidates (``parents`` names each candidate's particle, in
        ascending order) drawn in proportion to its weight; -1 where none was kept."""
        chosen = np.full(len(mass), -1, np.int64)
        if not len(kept):
            return chosen
        edges = np.cumsum(kept)
        starts = np.searchsorted(parents, np.arange(len(mass)), side="left")
        ends = np.searchsorted(parents, np.arange(len(mass)), side="right")
        before = np.where(starts > 0, edges[np.maximum(starts - 1, 0)], 0.0)
        totals = np.where(ends > starts, edges[np.maximum(ends - 1, 0)], 0.0) - before
        points = before + self._rng.random(len(mass)) * totals
        picks = np.clip(np.searchsorted(edges, points, side="right"), starts, np.maximum(ends - 1, starts))
        for particle in np.flatnonzero((mass > 0) & (kept[np.minimum(picks, len(kept) - 1)] <= 0)):
            # rounding put the point on a candidate of weight 0: take the group's heaviest instead
            group = slice(starts[particle], ends[particle])
            picks[particle] = starts[particle] + int(np.argmax(kept[group]))
        return np.where(mass > 0, picks, chosen)

    def _rejuvenate(self, view: SeatView, examples: np.ndarray, labels: np.ndarray) -> None:
        """Replace the particles by fresh draws of the resampler, chosen in proportion to their estimated
        likelihood (module docstring)."""
        pool = self._draw(view, self.size * self.pool_factor)
        estimates = np.zeros((len(pool), self.num_players))
        for other in range(self.num_players):
            if other == self.seat or len(labels) == 0 or np.ptp(labels[:, other]) == 0:
                estimates[:, other] = labels[0, other] if len(labels) else 0.0
                continue
            seats = np.full(len(examples), other, np.int64)
            features, _ = self._observe(examples, seats)
            queries, _ = self._observe(pool, np.full(len(pool), other, np.int64))
            estimates[:, other] = estimate_log_likelihood(features, labels[:, other], queries)
        totals = estimates.sum(axis=1)
        probabilities = np.exp(totals - totals.max())
        chosen = _systematic(probabilities / probabilities.sum(), self.size, self._rng)
        self._records = pool[chosen]
        self._labels = estimates[chosen]
        self._log_weights = np.zeros(self.size)
        self.rejuvenations += 1


def belief_model_spec(option: str) -> str | None:
    """The action model spec that a search agent's ``belief`` option names.

    Args:
        option: ``uniform`` (draw from the resampler: no belief), ``policy`` (the game's shipped network,
            :data:`DEFAULT_MODEL`) or ``policy:SPEC`` (the agent spec ``SPEC``, e.g. ``policy:heuristic``).

    Returns:
        None for ``uniform``, else the model spec for :func:`action_model`.

    Raises:
        ValueError: any other option.
    """
    kind, colon, spec = option.partition(":")
    if option == UNIFORM:
        return None
    if kind == "policy" and not colon:
        return DEFAULT_MODEL
    if kind == "policy" and spec:
        return spec
    raise ValueError(f"belief={option!r} is not allowed; choose {UNIFORM}, policy or policy:SPEC (an agent spec with "
                     f"action probabilities, e.g. policy:heuristic)")


class SeatBeliefs:
    """The beliefs an agent keeps for the games and seats it plays, by a key of the caller's (a game and a seat).

    Args:
        model: the action model of every belief.
        particles: each belief's particles.
        seed: seed of the generator each new belief's seed is drawn from.
        ess_fraction: as :class:`Belief`'s.
        pool_factor: as :class:`Belief`'s.
    """

    def __init__(self, model: ActionModel, particles: int = DEFAULT_PARTICLES, seed: int | None = None,
                 ess_fraction: float = DEFAULT_ESS_FRACTION, pool_factor: int = DEFAULT_POOL_FACTOR):
        self.model = model
        self.particles = particles
        self.ess_fraction = ess_fraction
        self.pool_factor = pool_factor
        self._seeds = np.random.default_rng(seed)
        self._beliefs: dict[Any, Belief] = {}

    def __contains__(self, key: Any) -> bool:
        return key in self._beliefs

    def __len__(self) -> int:
        return len(self._beliefs)

    def begin(self, key: Any, view: SeatView, uniform_seats: Collection[int] = ()) -> Belief:
        """Start the belief of ``key`` at ``view`` (the game's first position for a belief of the whole game),
        replacing any it had; ``uniform_seats`` as :class:`Belief`'s."""
        belief = Belief(view, self.model, self.particles, int(self._seeds.integers(0, 2**63)), self.ess_fraction,
                        self.pool_factor, uniform_seats)
        self._beliefs[key] = belief
        return belief

    def observe(self, key: Any, view: SeatView, own_action: int | None = None) -> None:
        """:meth:`Belief.observe` of the belief of ``key`` (KeyError where none was begun)."""
        self._beliefs[key].observe(view, own_action)

    def sample(self, key: Any, count: int, rng: np.random.Generator) -> np.ndarray:
        """:meth:`Belief.sample` of the belief of ``key`` (KeyError where none was begun)."""
        return self._beliefs[key].sample(count, rng)

    def end(self, key: Any) -> None:
        """Forget the belief of ``key`` (its game is over)."""
        self._beliefs.pop(key, None)
