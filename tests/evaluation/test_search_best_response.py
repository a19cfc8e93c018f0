"""agents/best_response.py: a search best response (BR) that knows its target reaches the exact BR's value on a
toy game with hidden hands, reads nothing hidden, and refuses what it cannot play.

The known value: High Card (the toy game of ``tests/toy_game``) with 7 cards, 3 to each seat and one left out, so
that each seat's hand is hidden from the other. Against a deterministic target the exact BR is found by searching
the BR's information sets: every deal in which the BR has seen the same things so far is one history of the set,
the target's replies are its policy's, and at each of its decisions the BR takes the action with the best total
over the set's histories. The value is averaged over every deal and both seats, which is what a BR wins on average
(the deals are equally likely). The search BR plays every one of those games once, so its mean is the same
average, with only its own draws as noise.
"""

from __future__ import annotations

import copy
import hashlib
import itertools

import numpy as np
import pytest

import cardenvs
from cardenvs.agents.base import act_in_env, view_in_env
from cardenvs.agents.best_response import (
    ISMCTSBestResponse,
    PIMCBestResponse,
    make_search_best_response,
    target_model,
)
from cardenvs.agents.registry import make_agent
from tests.toy_game.agent import ToyHeuristic
from tests.toy_game.game import GAME
from tests.toy_game.params import NUM_PLAYERS
from tests.toy_game.variants import toy_variant

TOY = "toy_v0"
DECK, HAND = 7, 3
#: how far below the exact BR's value the search BR's mean may end (its own draws are the only noise)
TOLERANCE = 0.02
#: budgets at which the searches reach the exact value on this game; the BR's own seats play out at random, so
#: only playouts in which the target plays its own seats value the moves right
PIMC_BUDGET = "determinizations=32,rollouts=4,rollout=random,particles=64"
ISMCTS_BUDGET = "iterations=200,rollout=heuristic,particles=64"


def hidden_hands():
    """High Card registered with hidden hands (one card left out of the deal) and its resampler."""
    return toy_variant(DECK, HAND, with_resampler=True)


class TableTarget(ToyHeuristic):
    """A deterministic target whose every choice is a fixed pseudo-random function of what its seat sees, so that
    its plays say something about its hidden hand that no rule of thumb reads: only a BR that weighs the deals by
    this policy's own choices knows what."""

    name = "table"

    def __init__(self, layout, salt: str):
        super().__init__(layout)
        self.salt = salt.encode()

    def act(self, observation) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        digest = hashlib.sha256(observation["observation"].tobytes() + self.salt).digest()
        return int(legal[digest[0] % len(legal)])


def deals() -> list[dict]:
    """Every deal of the game: seat 0's hand, then seat 1's from the cards left."""
    found = []
    for first in itertools.combinations(range(DECK), HAND):
        rest = [card for card in range(DECK) if card not in first]
        found += [{"hands": [list(first), list(second)]} for second in itertools.combinations(rest, HAND)]
    return found


def dealt(deal: dict):
    env = cardenvs.env(TOY)
    env.reset(seed=0, options={"deal": deal})
    return env


def seen_by(env, seat: int) -> bytes:
    """What ``seat`` observes now (its observation and legal mask)."""
    observation = env.observe(env.possible_agents[seat])
    return observation["observation"].tobytes() + observation["action_mask"].tobytes()


def information_set_value(histories: list[tuple], seat: int, target) -> float:
    """The most the BR at ``seat`` wins in total over ``histories`` (pairs of an env and the BR's reward so far),
    all of which it has seen alike, choosing one action for all of them at each of its decisions."""
    total, going = 0.0, []
    for env, gained in histories:
        over = env.terminations[env.agent_selection] or env.truncations[env.agent_selection]
        total, going = (total + gained, going) if over else (total, [*going, (env, gained)])
    if not going:
        return total

    def after(steps) -> float:
        sets: dict[bytes, list[tuple]] = {}
        for env, gained, action in steps:
            child = copy.deepcopy(env)
            child.step(int(action))
            reward = child.rewards[child.possible_agents[seat]]
            sets.setdefault(seen_by(child, seat), []).append((child, gained + reward))
        return sum(information_set_value(histories, seat, target) for histories in sets.values())

    mask = going[0][0].observe(going[0][0].possible_agents[seat])["action_mask"]
    if mask.any():  # the BR decides: one action for the whole set
        return total + max(after([(env, gained, action) for env, gained in going]) for action in np.flatnonzero(mask))
    return total + after([(env, gained, target.act(env.observe(env.agent_selection))) for env, gained in going])


def exact_value(target) -> float:
    """The exact BR's mean reward against ``target`` over every deal and both seats."""
    values = []
    for seat in range(NUM_PLAYERS):
        sets: dict[bytes, list[tuple]] = {}
        for deal in deals():
            env = dealt(deal)
            sets.setdefault(seen_by(env, seat), []).append((env, 0.0))
        values.append(sum(information_set_value(histories, seat, target) for histories in sets.values()))
    return float(np.sum(values) / (NUM_PLAYERS * len(deals())))


def play(responder, target, deal: dict, seat: int, game: int) -> float:
    """One game of ``responder`` at ``seat`` against ``target``, the responder told every step; its reward."""
    env = dealt(deal)
    responder.begin_game(game, view_in_env(env, seat, game))
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        mover = env.possible_agents.index(env.agent_selection)
        observation = env.observe(env.agent_selection)
        action = act_in_env(responder, env, observation, game) if mover == seat else target.act(observation)
        env.step(int(action))
        responder.observe_game(game, view_in_env(env, seat, game), int(action) if mover == seat else None)
    responder.end_game(game)
    return float(env._cumulative_rewards[env.possible_agents[seat]])


def mean_result(responder, target) -> float:
    """The responder's mean reward over every deal and both seats."""
    results = [play(responder, target, deal, seat, game)
               for seat in range(NUM_PLAYERS) for game, deal in enumerate(deals())]
    return float(np.mean(results))


def test_a_pimc_best_response_reaches_the_exact_best_response_to_the_rule_based_agent():
    with hidden_hands() as layout:
        target = make_agent("heuristic", TOY, layout)
        exact = exact_value(target)
        responder = make_search_best_response(TOY, target, layout, "pimc", PIMC_BUDGET, seed=1)
        achieved = mean_result(responder, target)
    assert exact > 0.1  # the agent can be exploited: its own result averages 0 over both seats
    assert isinstance(responder, PIMCBestResponse) and responder.keeps_beliefs
    assert achieved >= exact - TOLERANCE, (achieved, exact)


@pytest.mark.slow
@pytest.mark.parametrize("salt", ["1", "2"])
def test_an_ismcts_best_response_infers_the_hidden_hand_and_reaches_the_exact_best_response(salt):
    """Against a target whose plays tell its hand in no pattern, the BR must read them by the target's policy."""
    with hidden_hands() as layout:
        target = TableTarget(layout, salt)
        exact = exact_value(target)
        responder = make_search_best_response(TOY, target, layout, "ismcts", ISMCTS_BUDGET, seed=1)
        achieved = mean_result(responder, target)
    assert exact > 0.2
    assert isinstance(responder, ISMCTSBestResponse) and responder.keeps_beliefs
    assert achieved >= exact - TOLERANCE, (achieved, exact)


def test_twins_that_differ_only_in_the_hidden_hand_get_the_same_decisions():
    """Seat 0 leads with the same hand in both deals; the target's hand differs. The BR's first decision and
    its belief's draws come from what seat 0 saw and the seed alone."""
    with hidden_hands() as layout:
        target = make_agent("heuristic", TOY, layout)
        chosen, drawn = [], []
        for other in ([3, 4, 5], [3, 4, 6]):
            env = dealt({"hands": [[0, 1, 2], other]})
            responder = make_search_best_response(TOY, target, layout, "pimc", PIMC_BUDGET, seed=7)
            responder.begin_game(0, view_in_env(env, 0, 0))
            chosen.append(act_in_env(responder, env, env.observe("player_0"), 0))
            drawn.append(responder.draw_states([view_in_env(env, 0, 0)], 8).tobytes())
    assert chosen[0] == chosen[1] and drawn[0] == drawn[1]


def test_the_belief_models_the_target_and_leaves_the_responder_s_own_seats_uniform():
    with hidden_hands() as layout:
        heuristic = make_agent("heuristic", TOY, layout)
        env = dealt({"hands": [[0, 1, 2], [3, 4, 5]]})
        observation = env.observe("player_0")
        weights = target_model(heuristic).weights(observation["observation"][None], observation["action_mask"][None])
        chosen = heuristic.act(observation)
        assert weights[0, chosen] == pytest.approx(0.9 + 0.1 / 3)  # probability 1 on its choice, smoothed
        assert target_model(make_agent("pimc", TOY, layout)) is None  # a search gives no probabilities
        responder = make_search_best_response(TOY, heuristic, layout, seed=0)
        responder.begin_game("g", view_in_env(env, 1, "g"))
        assert responder.unmodelled_seats("g") == {1}
        assert responder.opposed_seats(view_in_env(env, 1, "g"), NUM_PLAYERS).tolist() == [True, False]


def test_a_search_best_response_refuses_what_it_cannot_play():
    with hidden_hands() as layout:
        target = make_agent("heuristic", TOY, layout)
        with pytest.raises(ValueError, match="give no belief"):
            make_search_best_response(TOY, target, layout, "pimc", "belief=uniform")
        with pytest.raises(ValueError, match="pimc or ismcts, not 'mcts'"):
            make_search_best_response(TOY, target, layout, "mcts")
        responder = make_search_best_response(TOY, target, layout)
        env = dealt({"hands": [[0, 1, 2], [3, 4, 5]]})
        with pytest.raises(ValueError, match="must be told every game it plays"):
            act_in_env(responder, env, env.observe("player_0"))  # a game it was never told about
    cardenvs.register(GAME)  # High Card as shipped with the tests: no resampler
    try:
        layout = cardenvs.env(TOY).unwrapped.layout
        with pytest.raises(ValueError, match="no hidden-card resampler"):
            make_search_best_response(TOY, make_agent("heuristic", TOY, layout), layout)
    finally:
        cardenvs.unregister(TOY)


class LastLegal(ToyHeuristic):
    """A stand-in for a learned best response: always the highest legal action."""

    def act(self, observation) -> int:
        return int(np.flatnonzero(observation["action_mask"])[-1])


@pytest.mark.parametrize(("advantage", "spread", "played"), [
    (0.5, 0.1, "best"),    # the search's best is ahead on every draw: it is played
    (0.05, 1.0, "anchor"),  # ahead on average, within the draws' noise: the anchor's choice stays
    (-0.2, 0.1, "anchor"),  # the anchor's choice is the search's best itself
])
def test_a_pimc_best_response_keeps_its_learned_choice_unless_the_search_is_confident(advantage, spread, played):
    """The paired advantage over the draws must exceed DEVIATION_Z standard errors before the search overrides
    the learned BR's choice; without an anchor the search plays its best mean."""
    from cardenvs.agents.best_response import DEVIATION_Z

    with hidden_hands() as layout:
        target = make_agent("heuristic", TOY, layout)
        env = dealt({"hands": [[0, 1, 2], [3, 4, 5]]})
        legal = np.flatnonzero(env.observe("player_0")["action_mask"])
        anchor, other = legal[-1], legal[0]
        draws = 32
        noise = np.random.default_rng(0).standard_normal(draws)
        noise = (noise - noise.mean()) / noise.std(ddof=1)  # exactly mean 0, spread 1 over the draws
        values = np.full((1, draws, len(env.observe("player_0")["action_mask"])), np.nan)
        values[0, :, legal] = -1.0  # every other legal action is worse than both
        values[0, :, anchor] = 0.0
        values[0, :, other] = advantage + spread * noise
        standard_errors = advantage / (spread / np.sqrt(draws))
        assert (standard_errors > DEVIATION_Z) == (played == "best")  # the cases are on the stated sides
        chosen = {}
        for name, anchored in (("anchored", LastLegal(layout)), ("plain", None)):
            responder = PIMCBestResponse(TOY, target, responder_options(layout), seed=0, anchor=anchored)
            responder.begin_game(0, view_in_env(env, 0, 0))
            responder.draw_values = lambda views, values=values: values
            chosen[name] = int(responder.act_views([view_in_env(env, 0, 0)])[0])
    assert chosen["anchored"] == (other if played == "best" else anchor)
    assert chosen["plain"] == (other if advantage > 0 else anchor)


def responder_options(layout):
    """The options of the toy's pimc best response at :data:`PIMC_BUDGET`."""
    return make_search_best_response(TOY, make_agent("heuristic", TOY, layout), layout, "pimc", PIMC_BUDGET).options


def test_a_learned_network_stands_in_for_the_shipped_one_in_the_playouts_and_values():
    from cardenvs.agents.registry import shipped_checkpoint

    game = cardenvs.get_game("slabberjan_v0")  # its search plays out and values by the shipped network
    layout = game.observation_layout(game.params_type())
    target = make_agent("heuristic", "slabberjan_v0", layout)
    learned = f"ppo:{shipped_checkpoint('slabberjan_v0')}"  # any self-play model of the game stands in for a BR's
    responder = make_search_best_response("slabberjan_v0", target, layout, "ismcts", "iterations=4", network=learned)
    assert (responder.options.rollout, responder.options.depth, responder.options.value) == (learned, 4, learned)
    playouts = responder.playouts(game.params_type())
    assert playouts.policy.name != "trained" and playouts.value_network is not None
    # options that name another policy keep it: only the shipped network is replaced
    kept = make_search_best_response("slabberjan_v0", target, layout, "pimc", "rollout=heuristic",
                                     network=learned)
    assert (kept.options.rollout, kept.options.value) == ("heuristic", learned)
    assert kept.anchor is not None and kept.anchor.name != "trained"  # pimc keeps the learned BR's choices
    without = make_search_best_response("slabberjan_v0", target, layout, "pimc")
    assert (without.options.rollout, without.options.value) == ("trained", "trained") and without.anchor is None
    with pytest.raises(ValueError, match="gin_slaughtre_v0"):  # a network of another game fails at creation
        make_search_best_response("slabberjan_v0", target, layout,
                                  network=f"ppo:{shipped_checkpoint('gin_slaughtre_v0')}")


def test_a_game_s_search_best_response_budget_comes_before_its_search_agents_budget():
    game = cardenvs.get_game("clabber_v0")  # its search agents play out to the end at random, too slow for a BR
    assert game.search_response_defaults and game.search_response_defaults != game.search_defaults
    layout = game.observation_layout(game.params_type())
    target = make_agent("heuristic", "clabber_v0", layout)
    responder = make_search_best_response("clabber_v0", target, layout)
    for name, value in game.search_response_defaults.items():
        assert getattr(responder.options, name) == value
    searcher = make_agent("pimc", "clabber_v0", layout)  # the search agent keeps the game's own budget
    for name, value in game.search_defaults.items():
        assert getattr(searcher.options, name) == value
    assert searcher.options.depth == 0
    given = make_search_best_response("clabber_v0", target, layout, "pimc", "depth=4,rollouts=2")  # a spec wins
    assert (given.options.depth, given.options.rollouts) == (4, 2)
    assert given.options.determinizations == game.search_response_defaults["determinizations"]
    plain = cardenvs.get_game("stabby_jack_v0")  # a game without a budget of its own for BRs: the search's
    assert not plain.search_response_defaults
    stabby_layout = plain.observation_layout(plain.params_type())
    stabby = make_search_best_response("stabby_jack_v0", make_agent("heuristic", "stabby_jack_v0", stabby_layout),
                                       stabby_layout)
    assert all(getattr(stabby.options, name) == value for name, value in plain.search_defaults.items())
