"""cardenvs.agents.beliefs: the belief is Bayes' posterior where it can be enumerated, draws as the resampler does
under the uniform model, reads nothing the seat cannot see, and refuses models without action probabilities.

The enumerable game is High Card (tests/toy_game), given here a resampler of its own: a seat sees its hand and every
card played, so the other seat's hidden cards are any of the unseen ones, uniformly. Its rule-based agent leads its
highest card and follows with the lowest card that wins, so its plays say much about what it holds.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections import Counter
from contextlib import contextmanager

import numpy as np
import pytest
from scipy.stats import chi2_contingency

import cardenvs
from cardenvs.agents.base import SeatView
from cardenvs.agents.beliefs import (
    LOG_LIKELIHOOD_SPAN,
    UNIFORM,
    ActionModel,
    Belief,
    PolicyModel,
    SeatBeliefs,
    UniformModel,
    action_model,
    belief_model_spec,
    estimate_log_likelihood,
)
from cardenvs.agents.registry import make_agent
from tests.toy_game.game import GAME as TOY_GAME

TOY = "toy_v0"
#: High Card with three tricks: eight cards, three to each seat, two out of play
TOY_PARAMS = {"deck_size": 8, "hand_size": 3}
#: a test fails only below this p-value, or beyond this many standard errors (fixed seeds: every run the same)
MIN_P_VALUE = 1e-4
MAX_Z = 4.5


def toy_resample(state: np.record, seat: int, rng: np.random.Generator) -> np.record:
    """High Card's resampler: the other seat's hand drawn again uniformly from the cards the seat has not seen (its
    size is public: both seats play one card a trick), the generator reseeded."""
    copy = np.zeros(1, state.dtype).view(np.recarray)
    copy[0] = state
    record = copy[0]
    other = 1 - seat
    unseen = [card for card in range(int(record.deck_size)) if not record.hand[seat, card] and not record.played[card]]
    held = int(record.hand[other].sum())
    record.hand[other, :] = 0
    record.hand[other, rng.permutation(unseen)[:held]] = 1
    record.rng = rng.integers(0, 2**64, dtype=np.uint64)
    return record


@contextmanager
def toy_with_resampler():
    """High Card registered with :func:`toy_resample` for the duration."""
    cardenvs.register(dataclasses.replace(TOY_GAME, resample=toy_resample))
    try:
        yield
    finally:
        cardenvs.unregister(TOY)


def seat_view(env, seat: int) -> SeatView:
    """``seat``'s view of the AEC env's game now."""
    base = env.unwrapped
    observation = env.observe(base.possible_agents[seat])
    return SeatView(base.game, base.params, base.state_record, seat, observation["observation"],
                    observation["action_mask"])


def play(env, seed: int, agents, seat: int, steps: int | None = None):
    """Reset the AEC env with ``seed`` and play it with ``agents`` (one per seat), yielding after every step
    ``(the seat's view, its own action or None, the action taken)``."""
    env.reset(seed=seed)
    base = env.unwrapped
    for taken, name in enumerate(env.agent_iter()):
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated or (steps is not None and taken >= steps):
            return
        actor = base.possible_agents.index(name)
        action = int(agents[actor].act(observation))
        env.step(action)
        yield seat_view(env, seat), action if actor == seat else None, action


def follow(env, game_seed: int, agents, seat: int, model: ActionModel, **options) -> list:
    """A belief of ``seat`` fed along one game; its particles, weights and likelihoods after every step."""
    env.reset(seed=game_seed)
    belief = Belief(seat_view(env, seat), model, **options)
    history = []
    for view, own, _ in play(env, game_seed, agents, seat):
        belief.observe(view, own)
        history.append((belief.records, belief.weights, belief.log_likelihoods))
    return history


def exact_toy_posteriors(env, seed: int, agents, seat: int, model: ActionModel) -> list[dict[tuple, float]]:
    """After every step of the game, the exact posterior of the other seat's hand: every hand it could have been
    dealt, replayed through the game's actions, weighted by the model's probability of each of its plays and kept
    only where the seat saw what it saw."""
    env.reset(seed=seed)
    mine = tuple(np.flatnonzero(env.unwrapped.state_record.hand[seat]))
    played = [(view.observation.copy(), view.action_mask.copy(), action) for view, _, action in
              play(env, seed, agents, seat)]
    actions = [action for _, _, action in played]
    seen = [(observation, mask) for observation, mask, _ in played]
    other = 1 - seat
    unseen = [card for card in range(TOY_PARAMS["deck_size"]) if card not in mine]
    weights: list[Counter] = [Counter() for _ in actions]
    for dealt in itertools.combinations(unseen, TOY_PARAMS["hand_size"]):
        hands = [list(mine), list(dealt)] if seat == 0 else [list(dealt), list(mine)]
        replay = cardenvs.env(TOY, **TOY_PARAMS)
        replay.reset(options={"deal": {"hands": hands}})
        likelihood = 1.0
        for step, action in enumerate(actions):
            base = replay.unwrapped
            actor = base.possible_agents.index(replay.agent_selection)
            observation = replay.observe(replay.agent_selection)
            if not observation["action_mask"][action]:
                break
            if actor == other:
                likelihood *= float(model.weights(observation["observation"][None],
                                                  observation["action_mask"][None])[0, action])
            replay.step(action)
            now = replay.observe(base.possible_agents[seat])
            if not (np.array_equal(now["observation"], seen[step][0])
                    and np.array_equal(now["action_mask"], seen[step][1])):
                break
            weights[step][tuple(np.flatnonzero(base.state_record.hand[other]))] += likelihood
    return [{hand: weight / sum(counts.values()) for hand, weight in counts.items()} for counts in weights]


def total_variation(first: dict[tuple, float], second: dict[tuple, float]) -> float:
    return 0.5 * sum(abs(first.get(hand, 0.0) - second.get(hand, 0.0)) for hand in set(first) | set(second))


def hand_distribution(records: np.ndarray, weights: np.ndarray, seat: int) -> dict[tuple, np.ndarray]:
    """The other seat's hand in each particle -> an indicator over the particles."""
    hands = [tuple(np.flatnonzero(row)) for row in records["hand"][:, 1 - seat]]
    return {hand: np.array([h == hand for h in hands], np.float64) for hand in set(hands)}


def check_matches_posterior(records: np.ndarray, weights: np.ndarray, exact: dict[tuple, float], seat: int) -> None:
    """Every hand the particles hold has a positive exact probability, and each hand's weighted frequency is within
    MAX_Z standard errors of it (the self-normalised importance sampler's delta-method error, Σ w²(1_h - p)²)."""
    records, weights = records[weights > 0], weights[weights > 0]  # dropped particles keep their last state
    found = hand_distribution(records, weights, seat)
    assert set(found) <= {hand for hand, p in exact.items() if p > 0}, "a hand the evidence rules out"
    for hand, probability in exact.items():
        indicator = found.get(hand, np.zeros(len(weights)))
        estimate = float(weights @ indicator)
        error = math.sqrt(float(np.sum(weights**2 * (indicator - estimate) ** 2))) + 1e-3
        assert abs(estimate - probability) <= MAX_Z * error, (hand, estimate, probability, error)


@pytest.mark.parametrize("seat", [0, 1])
def test_the_belief_is_the_exact_posterior_of_a_toy_game(seat):
    """Pure Bayes (no rejuvenation): the weighted particles match the enumerated posterior after every step."""
    with toy_with_resampler():
        env = cardenvs.env(TOY, **TOY_PARAMS)
        layout = env.unwrapped.layout
        agents = [make_agent("heuristic", TOY, layout)] * 2
        model = action_model("heuristic", TOY, layout, smoothing=0.2)
        moved = 0.0
        for seed in (1, 2, 3):
            exact = exact_toy_posteriors(env, seed, agents, seat, model)
            history = follow(env, seed, agents, seat, model, particles=3000, seed=seed, ess_fraction=0.0)
            assert len(history) == len(exact) == 2 * TOY_PARAMS["hand_size"]
            for (records, weights, _), posterior in zip(history, exact, strict=True):
                check_matches_posterior(records, weights, posterior, seat)
            uniform = exact_toy_posteriors(env, seed, agents, seat, UniformModel())
            moved = max(moved, *(total_variation(a, b) for a, b in zip(exact, uniform, strict=True)))
        assert moved > 0.25  # the model's posterior is far from the resampler's: a belief that ignored it would fail


def test_rejuvenation_keeps_the_exact_likelihood_where_the_other_seat_s_view_recurs():
    """Rejuvenating at every step: each fresh particle's likelihood is the exact one of its hand (a particle with
    the same observation of the other seat told it), so the belief still matches the posterior."""
    seat = 1
    with toy_with_resampler():
        env = cardenvs.env(TOY, **TOY_PARAMS)
        layout = env.unwrapped.layout
        agents = [make_agent("heuristic", TOY, layout)] * 2
        model = action_model("heuristic", TOY, layout, smoothing=0.2)
        for seed in (1, 2):
            exact = exact_toy_posteriors(env, seed, agents, seat, model)
            env.reset(seed=seed)
            belief = Belief(seat_view(env, seat), model, particles=2000, seed=seed, ess_fraction=1.0)
            for (view, own, _), posterior in zip(play(env, seed, agents, seat), exact, strict=True):
                belief.observe(view, own)
                records, labels = belief.records, belief.log_likelihoods
                # the exact likelihood of each hand, up to one constant: log of its posterior weight
                hands = [tuple(np.flatnonzero(row)) for row in records["hand"][:, 1 - seat]]
                offsets = {round(labels[i, 1 - seat] - math.log(posterior[hand]), 9) for i, hand in enumerate(hands)}
                assert len(offsets) == 1, offsets
                # equal weights after the systematic resampling: each hand's share is a frequency of the pool's
                shares = Counter(hands)
                for hand, probability in posterior.items():
                    share = shares.get(hand, 0) / len(hands)
                    assert abs(share - probability) <= MAX_Z * math.sqrt(probability * (1 - probability) / 2000) + 1e-3
            assert belief.rejuvenations == 2 * TOY_PARAMS["hand_size"]


def _uniform_check(env_id: str, params: dict, seat: int, seed: int, statistic, steps: int | None = None) -> None:
    """Along a game between rule-based agents (its first ``steps`` steps), the uniform-model belief's particles and
    as many resampler draws at the same position give the same distribution of ``statistic(record)`` (chi-square
    contingency test every fourth step)."""
    env = cardenvs.env(env_id, **params)
    layout = env.unwrapped.layout
    agents = [make_agent("heuristic", env_id, layout)] * env.unwrapped.game.num_players(env.unwrapped.params)
    env.reset(seed=seed)
    particles = 1000
    belief = Belief(seat_view(env, seat), UniformModel(), particles=particles, seed=seed)
    rng = np.random.default_rng(seed)
    tested = 0
    for step, (view, own, _) in enumerate(play(env, seed, agents, seat, steps)):
        belief.observe(view, own)
        if step % 4 != 3:
            continue
        weights = belief.weights
        assert np.allclose(weights[weights > 0], weights.max())  # the uniform model never weighs one deal over another
        ours = [statistic(record) for record in belief.records.view(np.recarray)[weights > 0]]
        theirs = [statistic(view.resample(rng)) for _ in range(particles)]
        values = sorted(set(ours) | set(theirs))
        if len(values) < 2:
            continue
        table = np.array([[ours.count(value) for value in values], [theirs.count(value) for value in values]])
        table = table[:, table.sum(axis=0) >= 10]
        if table.shape[1] < 2:
            continue
        assert chi2_contingency(table)[1] > MIN_P_VALUE, (step, values, table)
        tested += 1
    assert tested >= 2


def test_with_the_uniform_model_the_belief_draws_as_the_clabber_resampler_does():
    """Who holds card 5."""
    def holder(record) -> int:
        holders = [seat for seat in range(4) if (int(record.hand[seat]) >> 5) & 1]
        return holders[0] if holders else -1

    _uniform_check("clabber_v0", {"single_hand": True}, seat=2, seed=5, statistic=holder)


def test_with_the_uniform_model_the_belief_draws_as_the_slabberjan_resampler_does():
    """The piece the seat on the left holds."""
    _uniform_check("slabberjan_v0", {"num_players": 3}, seat=0, seed=2, statistic=lambda record: int(record.piece[1]),
                   steps=16)


def twin_view(view: SeatView, rng: np.random.Generator) -> SeatView:
    """A view of another record the seat cannot tell from the view's (the resampler's draw): same observation."""
    record = view.resample(rng)
    twin = SeatView(view.game, view.params, record, view.seat, view.observation, view.action_mask)
    observed = np.zeros_like(view.observation)
    mask = np.zeros_like(view.action_mask)
    view.game.observe(record, view.seat, observed, mask)
    assert np.array_equal(observed, view.observation) and np.array_equal(mask, view.action_mask)
    return twin


@pytest.mark.parametrize(("env_id", "params", "seat"), [
    ("clabber_v0", {"single_hand": True}, 1),
    ("gin_slaughtre_v0", {"max_turns": 30}, 0),
])
def test_twins_that_differ_only_in_what_the_seat_cannot_see_give_the_same_belief(env_id, params, seat):
    """At every step the twin belief is fed another record behind the same observation: its particles, weights and
    likelihoods are byte-identical, rejuvenations included."""
    env = cardenvs.env(env_id, **params)
    layout = env.unwrapped.layout
    players = env.unwrapped.game.num_players(env.unwrapped.params)
    agents = [make_agent("trained", env_id, layout)] * players
    model = action_model("trained", env_id, layout)
    twins = np.random.default_rng(99)
    env.reset(seed=4)
    start = seat_view(env, seat)
    beliefs = [Belief(start, model, particles=64, seed=7), Belief(twin_view(start, twins), model, particles=64, seed=7)]
    steps = 0
    for view, own, _ in play(env, 4, agents, seat, steps=60):
        beliefs[0].observe(view, own)
        beliefs[1].observe(twin_view(view, twins), own)
        assert beliefs[0].records.tobytes() == beliefs[1].records.tobytes()
        assert np.array_equal(beliefs[0].weights, beliefs[1].weights)
        assert np.array_equal(beliefs[0].log_likelihoods, beliefs[1].log_likelihoods)
        steps += 1
    assert steps >= 10 and beliefs[0].rejuvenations >= 1
    rng = [np.random.default_rng(3), np.random.default_rng(3)]
    assert beliefs[0].sample(16, rng[0]).tobytes() == beliefs[1].sample(16, rng[1]).tobytes()


@pytest.mark.parametrize("spec", ["pimc", "ismcts:iterations=5", "human", "rllib:some/checkpoint"])
def test_a_model_without_action_probabilities_is_refused_at_creation(spec):
    layout = cardenvs.env("clabber_v0").unwrapped.layout
    with pytest.raises(ValueError, match="gives no action probabilities"):
        action_model(spec, "clabber_v0", layout)


def test_bad_models_and_settings_are_refused_with_a_clear_error():
    env = cardenvs.env("clabber_v0", single_hand=True)
    env.reset(seed=0)
    layout = env.unwrapped.layout
    with pytest.raises(ValueError, match="unknown agent"):
        action_model("oracle", "clabber_v0", layout)
    with pytest.raises(ValueError, match="smoothing"):
        action_model("heuristic", "clabber_v0", layout, smoothing=1.5)
    with pytest.raises(ValueError, match="takes no smoothing"):
        action_model(UNIFORM, "clabber_v0", layout, smoothing=0.1)
    view = seat_view(env, 0)
    with pytest.raises(ValueError, match="ActionModel"):
        Belief(view, "trained")
    for option in ({"particles": 0}, {"ess_fraction": 2.0}, {"pool_factor": True}):
        with pytest.raises(ValueError, match="not allowed"):
            Belief(view, UniformModel(), **option)


def test_observe_refuses_a_missing_wrong_or_illegal_own_action_and_changes_nothing():
    env = cardenvs.env("clabber_v0", single_hand=True)
    env.reset(seed=0)
    base = env.unwrapped
    seat = base.possible_agents.index(env.agent_selection)
    belief = Belief(seat_view(env, seat), UniformModel(), particles=16, seed=0)
    before = belief.records.tobytes()
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    illegal = int(np.setdiff1d(np.arange(base.game.num_actions(base.params)), legal)[0])
    env.step(int(legal[0]))
    after = seat_view(env, seat)
    with pytest.raises(ValueError, match="give the action it took"):
        belief.observe(after)
    with pytest.raises(ValueError, match="was not legal"):
        belief.observe(after, illegal)
    with pytest.raises(ValueError, match="follows clabber_v0 seat"):
        belief.observe(seat_view(env, (seat + 1) % 4), int(legal[0]))
    assert belief.records.tobytes() == before
    belief.observe(after, int(legal[0]))
    with pytest.raises(ValueError, match="own_action must be None"):
        belief.observe(seat_view(env, seat), 0)


def test_sample_draws_records_of_the_particles_with_fresh_generators():
    env = cardenvs.env("clabber_v0", single_hand=True)
    env.reset(seed=0)
    belief = Belief(seat_view(env, 0), UniformModel(), particles=8, seed=0)
    drawn = belief.sample(40, np.random.default_rng(1))
    assert drawn.dtype == belief.records.dtype and len(drawn) == 40
    particles = {record.tobytes() for record in _without_rng(belief.records)}
    assert all(record.tobytes() in particles for record in _without_rng(drawn))
    assert len(set(drawn["rng"].tolist())) == 40
    with pytest.raises(ValueError, match="count"):
        belief.sample(-1, np.random.default_rng(1))


def _without_rng(records: np.ndarray) -> np.ndarray:
    records = records.copy()
    records["rng"] = 0
    return records


def test_a_policy_model_smooths_and_renormalises_over_the_legal_actions():
    masks = np.array([[1, 1, 0, 1], [0, 1, 0, 0]], np.int8)
    model = PolicyModel(lambda obs, mask: np.array([[0.5, 0.0, 0.5, 0.0], [0.0, 0.0, 1.0, 0.0]]), "m", 0.3)
    weights = model.weights(np.zeros((2, 1), np.float32), masks)
    assert weights[0] == pytest.approx([0.7 + 0.1, 0.1, 0.0, 0.1])  # the illegal action's 0.5 renormalised away
    assert weights[1] == pytest.approx([0.0, 1.0, 0.0, 0.0])  # nothing on a legal action: uniform over the legal
    assert np.array_equal(UniformModel().weights(np.zeros((2, 1), np.float32), masks), masks.astype(float))


def test_the_likelihood_estimate_is_exact_where_an_observation_recurs_and_bounded_elsewhere():
    features = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 1]], np.float32)
    labels = np.array([-1.0, -2.0, -3.0, -1.0, -100.0])
    queries = np.array([[1, 0, 0], [0, 0, 1], [1, 1, 1], [0, 1, 1]], np.float32)
    estimates = estimate_log_likelihood(features, labels, queries)
    assert estimates[0] == pytest.approx(-1.0) and estimates[1] == pytest.approx(-3.0)
    floor = -1.0 - LOG_LIKELIHOOD_SPAN  # the -100 is raised to the span below the best
    assert estimates[3] == pytest.approx(floor)
    assert floor <= estimates[2] <= -1.0


def test_the_search_option_names_the_model_or_the_resampler():
    assert belief_model_spec("uniform") is None
    assert belief_model_spec("policy") == "trained"
    assert belief_model_spec("policy:heuristic") == "heuristic"
    assert belief_model_spec("policy:ppo:runs/a/model.pt") == "ppo:runs/a/model.pt"
    for option in ("policy:", "oracle", "uniform:1", ""):
        with pytest.raises(ValueError, match="choose uniform, policy or policy:SPEC"):
            belief_model_spec(option)


def test_seat_beliefs_keep_one_belief_per_key_and_draw_from_it():
    env = cardenvs.env("clabber_v0", single_hand=True)
    env.reset(seed=1)
    beliefs = SeatBeliefs(UniformModel(), particles=8, seed=0)
    views = {seat: seat_view(env, seat) for seat in range(4)}
    for seat, view in views.items():
        beliefs.begin(("game", seat), view)
    assert len(beliefs) == 4 and ("game", 2) in beliefs
    actor = env.unwrapped.possible_agents.index(env.agent_selection)
    action = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    env.step(action)
    for seat in range(4):
        beliefs.observe(("game", seat), seat_view(env, seat), action if seat == actor else None)
    drawn = beliefs.sample(("game", 0), 5, np.random.default_rng(0))
    mine = seat_view(env, 0)
    for record in drawn.view(np.recarray):
        observed = np.zeros_like(mine.observation)
        mask = np.zeros_like(mine.action_mask)
        env.unwrapped.game.observe(record, 0, observed, mask)
        assert np.array_equal(observed, mine.observation) and np.array_equal(mask, mine.action_mask)
    beliefs.end(("game", 0))
    assert ("game", 0) not in beliefs
    with pytest.raises(KeyError):
        beliefs.sample(("game", 0), 1, np.random.default_rng(0))
