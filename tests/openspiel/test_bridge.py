"""cardenvs games in OpenSpiel (cardenvs.openspiel): OpenSpiel's own random simulation test on every example
parameter set, pickling, copies and serialization of games and states, the tensors and observers provided and
refused, the Python IS-MCTS bot with the games' resamplers, rl_environment against the AEC env, a PyTorch
policy-gradient agent, and evaluate_bots with three players."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install 'cardenvs[openspiel]')")

import cardenvs  # noqa: E402
from cardenvs import openspiel as bridge  # noqa: E402
from cardenvs.core.rng import game_seed  # noqa: E402

ENV_IDS = [env_id for env_id in cardenvs.available_envs() if bridge.bridged(cardenvs.get_game(env_id))]
#: a parameter set whose longest game is above this many decisions runs in full only with --runslow; the default
#: run shortens it with the game's quick parameters
LONGEST_DEFAULT_GAME = 1000
#: ... or, where they do not change it, runs it as it is up to this bound
LONGEST_UNSHORTENED_GAME = 4000
#: random games per parameter set in OpenSpiel's random simulation test
RANDOM_SIMS = 2
#: IS-MCTS simulations per decision (enough to exercise the search and the resampler, short enough for CI)
ISMCTS_SIMULATIONS = 8
#: steps the policy-gradient agents train for
TRAINING_STEPS = 3000
#: a search agent as small as a whole game allows in CI
PIMC_SPEC = "pimc:determinizations=2,rollouts=1,rollout=random"


def _max_length(env_id: str, params: dict) -> int:
    game = cardenvs.get_game(env_id)
    return bridge.game_facts(game, game.make_params(**params)).max_game_length


def _parameter_sets() -> list:
    """Every example parameter set: as it is where its games are short; else in full with --runslow, and in the
    default run shortened by the game's quick parameters (those it does not set itself, and every ``max_*`` limit)
    where they change it, or as it is where they do not and its games are not too long."""
    sets = []
    for env_id in ENV_IDS:
        game = cardenvs.get_game(env_id)
        for index, params in enumerate(game.example_params):
            if _max_length(env_id, params) <= LONGEST_DEFAULT_GAME:
                sets.append(pytest.param(env_id, params, id=f"{env_id}-{index}"))
                continue
            caps = {key: value for key, value in game.quick_params.items()
                    if key not in params or key.startswith("max_")}
            if {**params, **caps} != params:
                sets.append(pytest.param(env_id, {**params, **caps}, id=f"{env_id}-{index}-capped"))
            elif _max_length(env_id, params) <= LONGEST_UNSHORTENED_GAME:
                sets.append(pytest.param(env_id, params, id=f"{env_id}-{index}"))
                continue
            sets.append(pytest.param(env_id, params, id=f"{env_id}-{index}-full", marks=pytest.mark.slow))
    return sets


def _load(env_id: str, params: dict, seed: int = 0):
    return pyspiel.load_game(bridge.short_name(env_id), {**params, bridge.SEED_PARAMETER: seed})


def test_every_game_loads_with_the_cardenvs_defaults():
    assert sorted(bridge.GAME_NAMES) == sorted(bridge.short_name(env_id) for env_id in ENV_IDS)
    for env_id in ENV_IDS:
        game = cardenvs.get_game(env_id)
        loaded = pyspiel.load_game(bridge.short_name(env_id))
        params = game.make_params()
        assert loaded.num_players() == game.num_players(params)
        assert loaded.num_distinct_actions() == game.num_actions(params)
        assert loaded.observation_tensor_size() == game.observation_layout(params).size
        assert loaded.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
        assert loaded.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        specification = loaded.get_type().parameter_specification
        assert specification[bridge.SEED_PARAMETER] == bridge.RANDOM_SEED
        for name, value in bridge.openspiel_defaults(game).items():
            assert specification[name] == value


def test_parameters_reach_the_engine_and_bad_ones_are_refused():
    loaded = _load("slabberjan_v0", {"num_players": 3, "start_chips": 1, "reward_scheme": "placement"})
    assert loaded.num_players() == 3
    assert loaded.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM  # placement rewards sum to 0
    assert _load("slabberjan_v0", {"num_players": 3}).get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    state = loaded.new_initial_state()
    assert state.record.start_chips == 1
    stabby = _load("stabby_jack_v0", {"num_players": 3, "max_players": 8})
    assert stabby.num_distinct_actions() == cardenvs.env("stabby_jack_v0", num_players=3, max_players=8).num_actions
    with pytest.raises(ValueError, match="num_players"):
        _load("slabberjan_v0", {"num_players": 1})
    for seed in (-2, 2**31, 1.5):
        with pytest.raises(ValueError, match="rng_seed"):
            bridge.game_class(cardenvs.get_game("slabberjan_v0"))({bridge.SEED_PARAMETER: seed})
    for seed in (-1, 2**64, 1.5, True):
        with pytest.raises(ValueError, match="seed"):
            loaded.new_initial_state_from_seed(seed)


def _first_of_each_game(sets: list) -> list:
    """``sets`` with every set after a game's first one in the default run marked slow (run with --runslow)."""
    seen, kept = set(), []
    for parameter_set in sets:
        env_id = parameter_set.values[0]
        if env_id in seen and not any(mark.name == "slow" for mark in parameter_set.marks):
            parameter_set = pytest.param(*parameter_set.values, id=parameter_set.id,
                                         marks=(*parameter_set.marks, pytest.mark.slow))
        elif not any(mark.name == "slow" for mark in parameter_set.marks):
            seen.add(env_id)
        kept.append(parameter_set)
    return kept


# pyspiel's checks at every state of every simulated game take tens of seconds per parameter set: the default run
# checks one set of each game, --runslow every set
@pytest.mark.parametrize(("env_id", "params"), _first_of_each_game(_parameter_sets()))
def test_random_sim_test(env_id, params):
    pyspiel.random_sim_test(_load(env_id, params, seed=7), num_sims=RANDOM_SIMS, serialize=False, verbose=False)


def test_states_follow_the_seed_stream_and_clones_continue_alike():
    loaded = _load("clabber_v0", {"single_hand": True}, seed=11)
    first, second = loaded.new_initial_state(), loaded.new_initial_state()
    assert first.seed == game_seed(11, 0)
    assert second.seed == game_seed(11, 1)
    for state in (first, second):
        env = cardenvs.env("clabber_v0", single_hand=True)
        env.reset(seed=state.seed)
        assert np.array_equal(state.observation_tensor(0), env.observe("player_0")["observation"])
    again = _load("clabber_v0", {"single_hand": True}, seed=11).new_initial_state()
    assert str(again) == str(first)
    clone = first.clone()
    while not first.is_terminal():
        action = first.legal_actions()[-1]
        first.apply_action(action)
        clone.apply_action(action)
        assert str(first) == str(clone)
    assert first.returns() == clone.returns()
    assert first.history() == clone.history()


def test_strings_are_the_renderers_and_the_moves_seen():
    loaded = _load("slap_v0", {"num_players": 3}, seed=3)
    state = loaded.new_initial_state()
    game = cardenvs.get_game("slap_v0")
    while len(state.history()) < 6:
        state.apply_action(state.legal_actions()[-1])  # slap (or play) whenever allowed
    record, params = state.record, loaded.params
    assert state.observation_string(1) == game.render(record, params)  # Slap has no private view
    info = state.information_state_string(1)
    assert info.startswith(state.observation_string(1))
    moves = info.split("moves: ")[1]
    for item in state.full_history():
        seat, action = item.player, item.action
        if seat == 1:
            assert f"{seat}:{game.action_name(params, action)}" in moves
        else:  # another seat's slap-window choice shows only as its public name
            assert f"{seat}:{game.public_action_name(params, action)}" in moves
            if game.action_name(params, action) != game.public_action_name(params, action):
                assert f"{seat}:{game.action_name(params, action)}" not in moves


# ---------------------------------------------------------------------------------------------- copies and text
#: random actions played before a state is pickled, copied or serialized (enough to be mid-game in every game)
MOVES_BEFORE_COPY = 7


def _mid_game(env_id: str, seed: int):
    """A loaded game (the game's quick parameters) and a state of it MOVES_BEFORE_COPY random actions in."""
    loaded = _load(env_id, cardenvs.get_game(env_id).quick_params, seed=seed)
    loaded.new_initial_state().current_player()  # a game dealt before, so the stream is not at its start
    state = loaded.new_initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(MOVES_BEFORE_COPY):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    return loaded, state


def _assert_continue_alike(original, copied, seed: int) -> None:
    """The two states are the same now and stay the same through the same random actions to the end."""
    assert str(copied) == str(original)
    assert copied.history() == original.history()
    assert copied.move_number() == original.move_number()
    assert copied.returns() == original.returns()
    assert copied.seed == original.seed
    rng = np.random.default_rng(seed)
    while not original.is_terminal():
        assert copied.legal_actions() == original.legal_actions()
        action = int(rng.choice(original.legal_actions()))
        original.apply_action(action)
        copied.apply_action(action)
        assert str(copied) == str(original)
    assert copied.is_terminal()
    assert copied.returns() == original.returns()


def _assert_same_stream(original, copied) -> None:
    """Both games deal the same next game (each from its own stream, the original's left where it was)."""
    assert str(copied) == str(original)
    assert copied.get_rng_state() == original.get_rng_state()
    assert copied.new_initial_state().seed == original.new_initial_state().seed


def test_the_issue_line_pickles_a_loaded_game():
    game = pickle.loads(pickle.dumps(pyspiel.load_game("cardenvs_clabber", {"single_hand": True})))
    assert isinstance(game, bridge.CardenvsGame)
    assert game.params.single_hand
    assert game.get_parameters()["single_hand"] is True
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert len(state.history()) == 1


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_games_and_states_pickle_and_continue_alike(env_id):
    loaded, state = _mid_game(env_id, seed=31)
    _assert_same_stream(loaded, pickle.loads(pickle.dumps(loaded)))
    game_copy, state_copy = pickle.loads(pickle.dumps((loaded, state)))
    assert state_copy.get_game() is game_copy  # one game in the pickle, the state's own
    assert isinstance(state_copy, bridge.CardenvsState)
    _assert_continue_alike(state, state_copy, seed=32)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_games_and_states_deep_copy_and_continue_alike(env_id):
    loaded, state = _mid_game(env_id, seed=33)
    _assert_same_stream(loaded, copy.deepcopy(loaded))
    state_copy = copy.deepcopy(state)
    assert state_copy.get_game() is not loaded  # a deep copy copies the game, as for OpenSpiel's own games
    assert str(state_copy.get_game()) == str(loaded)
    _assert_continue_alike(state, state_copy, seed=34)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_states_serialize_at_every_step_and_load_back(env_id):
    """What random_sim_test's serialize=True checks, at every step of a random game: the state's own text read
    back by its game, and the bridge's game-and-state text read back as a new game (same stream) and state."""
    loaded = _load(env_id, cardenvs.get_game(env_id).quick_params, seed=35)
    state = loaded.new_initial_state()
    rng = np.random.default_rng(36)
    while not state.is_terminal():
        again = loaded.deserialize_state(state.serialize())
        assert again.get_game() is loaded
        assert str(again) == str(state) and again.history() == state.history()
        game_copy, state_copy = bridge.deserialize_game_and_state(bridge.serialize_game_and_state(loaded, state))
        assert str(game_copy) == str(loaded) and game_copy.get_rng_state() == loaded.get_rng_state()
        assert str(state_copy) == str(state) and state_copy.move_number() == state.move_number()
        assert state_copy.legal_actions() == state.legal_actions()
        state.apply_action(int(rng.choice(state.legal_actions())))
    text = bridge.serialize_game_and_state(loaded, state)
    _, finished = bridge.deserialize_game_and_state(text)
    assert finished.is_terminal() and finished.returns() == state.returns()


def test_a_clone_made_before_the_deal_plays_the_same_game():
    loaded = _load("clabber_v0", {"single_hand": True}, seed=37)
    state = loaded.new_initial_state()
    clone = state.clone()  # neither is dealt yet
    assert str(clone) == str(state)
    assert clone.seed == state.seed == game_seed(37, 0)
    assert loaded.new_initial_state().seed == game_seed(37, 1)  # one seed taken for the two


def test_bad_serialized_text_and_rng_states_are_refused_and_change_nothing():
    loaded, state = _mid_game("slap_v0", seed=38)
    text = bridge.serialize_game_and_state(loaded, state)
    for broken in ("", "[Game]\nkuhn_poker()\n[GameRNGState]\n0 0\n[State]\n", text.replace("[GameRNGState]", ""),
                   "stray line\n" + text):
        with pytest.raises(ValueError, match="serialized game and state"):
            bridge.deserialize_game_and_state(broken)
    before = loaded.get_rng_state()
    for broken in ("", "1", "1 2 3", "-1 0", "x 0", f"{2**64} 0"):
        with pytest.raises(ValueError, match="slap_v0"):
            loaded.set_rng_state(broken)
        assert loaded.get_rng_state() == before


def test_random_sim_test_needs_serialize_false():
    """pyspiel's random_sim_test serializes with pyspiel's own serializer by default, which asks a game with sampled
    chance for its C++ generator state: a Python game cannot give it in open-spiel 2.0.2, so the docs say to pass
    serialize=False (the test above checks the serialization it would)."""
    loaded = _load("slap_v0", cardenvs.get_game("slap_v0").quick_params, seed=39)
    with pytest.raises(pyspiel.SpielError, match="GetRNGState"):
        pyspiel.random_sim_test(loaded, num_sims=1, serialize=True, verbose=False)
    pyspiel.random_sim_test(loaded, num_sims=1, serialize=False, verbose=False)


# ---------------------------------------------------------------------------------------------- tensors, observers
def test_the_information_state_tensor_is_refused_clearly():
    from open_spiel.python.observation import make_observation

    loaded = _load("clabber_v0", {"single_hand": True}, seed=40)
    state = loaded.new_initial_state()
    assert not loaded.get_type().provides_information_state_tensor
    with pytest.raises(bridge.NotProvidedError, match="cardenvs_clabber provides no information-state tensor"):
        state.information_state_tensor(0)
    with pytest.raises(bridge.NotProvidedError, match="observation_tensor"):
        loaded.information_state_tensor_size()
    observer = make_observation(loaded, pyspiel.IIGObservationType(perfect_recall=True))
    assert observer.tensor is None  # OpenSpiel's mark of an observer without a tensor
    assert observer.string_from(state, 0) == state.information_state_string(0)
    with pytest.raises(bridge.NotProvidedError):
        observer.set_from(state, 0)
    assert len(state.observation_tensor(0)) == loaded.observation_tensor_size() > 0


def test_only_the_seats_own_view_is_observed():
    from open_spiel.python.observation import make_observation

    loaded = _load("slap_v0", {"num_players": 3}, seed=41)
    state = loaded.new_initial_state()
    seat_view = make_observation(loaded, pyspiel.IIGObservationType(perfect_recall=False))
    seat_view.set_from(state, 1)
    assert seat_view.tensor.tolist() == state.observation_tensor(1)
    assert loaded.make_observer({}) is not None  # the parameters alone: the default observer
    for public_info, private_info in ((True, pyspiel.PrivateInfoType.NONE), (False, pyspiel.PrivateInfoType.NONE),
                                      (True, pyspiel.PrivateInfoType.ALL_PLAYERS)):
        wanted = pyspiel.IIGObservationType(perfect_recall=False, public_info=public_info, private_info=private_info)
        with pytest.raises(ValueError, match="only the seat's own view"):
            make_observation(loaded, wanted)
    with pytest.raises(ValueError, match="observer parameters"):
        make_observation(loaded, None, {"bits": 1})


# ---------------------------------------------------------------------------------------------- facts
def test_the_game_type_and_info_follow_each_games_facts():
    for env_id in ENV_IDS:
        game = cardenvs.get_game(env_id)
        for params in game.example_params:
            loaded = _load(env_id, params)
            facts = bridge.game_facts(game, game.make_params(**params))
            assert loaded.get_type().utility.name == facts.utility.name
            assert (loaded.min_utility(), loaded.max_utility()) == facts.utility_range
            assert loaded.max_game_length() == facts.max_game_length
            assert ("team game" in loaded.get_type().long_name) == facts.team_game
            assert loaded.utility_sum() == (0.0 if facts.utility.name == "ZERO_SUM" else None)


def test_every_utility_has_its_openspiel_type():
    from cardenvs.core.spiel_facts import Utility

    assert {utility.name: openspiel.name for utility, openspiel in bridge._UTILITY.items()} == {
        utility.name: utility.name for utility in Utility
    }


def test_a_game_without_openspiel_facts_is_not_registered():
    cardenvs.register("tests.toy_game.game")
    try:
        toy = cardenvs.get_game("toy_v0")
        assert toy.openspiel_facts == ""
        assert not bridge.bridged(toy)
        names = bridge.register_games()
        assert sorted(names) == sorted(bridge.GAME_NAMES)
        assert bridge.short_name(toy) not in pyspiel.registered_names()
        with pytest.raises(ValueError, match="toy_v0 names no OpenSpiel facts"):
            bridge.game_facts(toy)
    finally:
        cardenvs.unregister("toy_v0")


def _play_both(env_id: str, params: dict, seed: int, choose) -> None:
    """Play one game in rl_environment and in the AEC env from the same seed with the same actions, checking
    every seat's observation, the legal actions and every reward on the way."""
    from open_spiel.python import rl_environment

    loaded = _load(env_id, params, seed=seed)
    environment = rl_environment.Environment(loaded)
    time_step = environment.reset()
    aec = cardenvs.env(env_id, **params)
    aec.reset(seed=environment.get_state.seed)
    agents = aec.possible_agents
    returns = np.zeros(len(agents))
    while not time_step.last():
        player = time_step.observations["current_player"]
        assert aec.agent_selection == agents[player]
        for seat, agent in enumerate(agents):
            observed = aec.observe(agent)
            assert np.array_equal(time_step.observations["info_state"][seat], observed["observation"])
            assert time_step.observations["legal_actions"][seat] == np.flatnonzero(observed["action_mask"]).tolist()
        action = choose(time_step.observations["legal_actions"][player])
        time_step = environment.step([action])
        aec.step(action)
        rewards = [aec.rewards[agent] for agent in agents]
        assert np.allclose(time_step.rewards, rewards)
        returns += rewards
    assert all(aec.terminations[agent] or aec.truncations[agent] for agent in agents)
    assert np.allclose(returns, environment.get_state.returns())


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_rl_environment_matches_the_aec_env(env_id):
    game = cardenvs.get_game(env_id)
    rng = np.random.default_rng(5)
    _play_both(env_id, game.quick_params, 21, lambda legal: int(rng.choice(legal)))


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "params"), _parameter_sets())
def test_rl_environment_matches_the_aec_env_on_every_parameter_set(env_id, params):
    rng = np.random.default_rng(6)
    _play_both(env_id, params, 22, lambda legal: int(rng.choice(legal)))


def _ismcts_bot(loaded, seed: int):
    from open_spiel.python.algorithms import ismcts, mcts

    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(seed))
    bot = ismcts.ISMCTSBot(loaded, evaluator, uct_c=2.0, max_simulations=ISMCTS_SIMULATIONS,
                           random_state=np.random.RandomState(seed))
    bot.set_resampler(bridge.resampler)
    return bot


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_resampled_states_look_the_same_to_the_seat(env_id):
    loaded = _load(env_id, cardenvs.get_game(env_id).quick_params, seed=4)
    state = loaded.new_initial_state()
    rng = np.random.default_rng(0)
    differs = False
    for _ in range(30):
        if state.is_terminal():
            break
        player = state.current_player()
        resampled = state.resampled(player, rng)
        assert resampled.information_state_string(player) == state.information_state_string(player)
        assert resampled.observation_tensor(player) == state.observation_tensor(player)
        assert resampled.legal_actions() == state.legal_actions()
        fields = [name for name in state.record.dtype.names if name != "rng"]
        differs = differs or any(not np.array_equal(resampled.record[name], state.record[name]) for name in fields)
        assert resampled.record.rng != state.record.rng  # the future draws are resampled too
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert differs, "the resampler never dealt the hidden cards differently (no field but the generator changed)"


def test_every_bridged_game_has_a_resampler():
    assert all(cardenvs.get_game(env_id).resample is not None for env_id in ENV_IDS)


def test_a_game_without_a_resampler_says_so():
    """A game made without a resampler (Clabber with its resampler taken out, as a bridge game of its own: a game
    under another name with Clabber's record could not be registered, since the compiled kernels find a game's rules
    by its record's field names) plays, and resampling it raises NotImplementedError naming it."""
    bare = dataclasses.replace(cardenvs.get_game("clabber_v0"), resample=None)
    loaded = bridge.game_class(bare)({"single_hand": True, bridge.SEED_PARAMETER: 0})
    state = loaded.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    with pytest.raises(NotImplementedError, match=bare.env_id):
        bridge.resampler(state, state.current_player())


def _ismcts_plays_a_whole_game(env_id: str, params: dict) -> None:
    """IS-MCTS at seat 0 against uniform random play, to the end of a game: every search legal, the returns in
    the game's utility range."""
    from open_spiel.python.bots import uniform_random

    loaded = _load(env_id, params, seed=9)
    bots = [_ismcts_bot(loaded, 0)] + [
        uniform_random.UniformRandomBot(seat, np.random.RandomState(seat)) for seat in range(1, loaded.num_players())
    ]
    state = loaded.new_initial_state()
    searched = 0
    while not state.is_terminal():
        seat = state.current_player()
        action = bots[seat].step(state)
        assert action in state.legal_actions()
        searched += seat == 0
        state.apply_action(action)
    assert searched > 0
    assert loaded.min_utility() <= min(state.returns()) <= max(state.returns()) <= loaded.max_utility()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_ismcts_plays_whole_games(env_id):
    _ismcts_plays_a_whole_game(env_id, cardenvs.get_game(env_id).quick_params)


@pytest.mark.slow
@pytest.mark.parametrize(("env_id", "params"), _parameter_sets())
def test_ismcts_plays_whole_games_on_every_parameter_set(env_id, params):
    """Every example parameter set (the long ones shortened as in the random simulation test, and in full too):
    minutes per game of a long set, since every simulation plays out to the end in Python."""
    _ismcts_plays_a_whole_game(env_id, params)


def test_policy_gradient_trains_and_plays():
    """OpenSpiel's PyTorch A2C agents learn two-player Slabberjan from rl_environment, then play it legally."""
    import torch
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import policy_gradient

    torch.manual_seed(0)
    loaded = _load("slabberjan_v0", {"num_players": 2}, seed=1)
    environment = rl_environment.Environment(loaded)
    size = environment.observation_spec()["info_state"][0]
    actions = environment.action_spec()["num_actions"]
    agents = [policy_gradient.PolicyGradient(seat, size, actions, hidden_layers_sizes=(32,), batch_size=8)
              for seat in range(2)]
    before = [parameter.detach().clone() for parameter in agents[0]._policy_logits_layer.parameters()]
    steps = 0
    while steps < TRAINING_STEPS:
        time_step = environment.reset()
        while not time_step.last():
            seat = time_step.observations["current_player"]
            time_step = environment.step([agents[seat].step(time_step).action])
            steps += 1
        for agent in agents:
            agent.step(time_step)
    after = list(agents[0]._policy_logits_layer.parameters())
    assert any(not torch.equal(old, new) for old, new in zip(before, after, strict=True)), "no update was made"
    for _ in range(10):
        time_step = environment.reset()
        while not time_step.last():
            seat = time_step.observations["current_player"]
            output = agents[seat].step(time_step, is_evaluation=True)
            assert output.action in time_step.observations["legal_actions"][seat]
            time_step = environment.step([output.action])
        assert sum(time_step.rewards) == pytest.approx(0.0)  # two players: zero-sum


def test_evaluate_bots_with_three_players_and_the_rule_based_agent():
    from open_spiel.python.algorithms import evaluate_bots
    from open_spiel.python.bots import uniform_random

    loaded = _load("slabberjan_v0", {"num_players": 3}, seed=2)
    rng = np.random.RandomState(0)
    for _ in range(5):
        bots = [bridge.AgentBot(loaded, 0, "heuristic")] + [
            uniform_random.UniformRandomBot(seat, rng) for seat in (1, 2)
        ]
        state = loaded.new_initial_state()
        returns = evaluate_bots.evaluate_bots(state, bots, rng)
        assert state.is_terminal()
        assert list(returns) == state.returns()
        # winner_takes_all: one winner at +1 and the rest −1, or a shared draw at 0 beside earlier losers at −1
        assert sorted(returns) in ([-1.0, -1.0, 1.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0])


def test_agent_bot_acts_as_the_agent_in_the_aec_env():
    from cardenvs.agents.registry import make_agent

    loaded = _load("clabber_v0", {"single_hand": True}, seed=13)
    state = loaded.new_initial_state()
    env = cardenvs.env("clabber_v0", single_hand=True)
    env.reset(seed=state.seed)
    agent = make_agent("heuristic", "clabber_v0", env.layout)
    bots = [bridge.AgentBot(loaded, seat) for seat in range(loaded.num_players())]
    while not state.is_terminal():
        action = bots[state.current_player()].step(state)
        assert action == agent.act(env.observe(env.agent_selection))
        state.apply_action(action)
        env.step(action)


def _record_views(agent) -> list:
    """Make ``agent`` keep every seat view it acts on; return the list they go to."""
    views = []
    act_views = agent.act_views

    def recording(seat_views):
        views.extend(seat_views)
        return act_views(seat_views)

    agent.act_views = recording
    return views


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_search_agents_play_as_bots_through_evaluate_bots(env_id):
    """A cardenvs search agent (pimc) at seat 0 as an OpenSpiel bot, the rule-based agent everywhere else: it acts
    through its seat view of the bridge state (the observation and mask are the AEC env's), a whole short game."""
    from open_spiel.python.algorithms import evaluate_bots

    loaded = _load(env_id, cardenvs.get_game(env_id).quick_params, seed=12)
    searcher = bridge.AgentBot(loaded, 0, PIMC_SPEC, seed=0)
    assert searcher.agent.reads_seat_views
    views = _record_views(searcher.agent)
    bots = [searcher] + [bridge.AgentBot(loaded, seat) for seat in range(1, loaded.num_players())]
    state = loaded.new_initial_state()
    returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(0))
    assert state.is_terminal()
    assert list(returns) == state.returns()
    assert views, "the search agent never acted"
    assert all(view.seat == 0 and view.action_mask.sum() > 0 for view in views)


def test_a_search_bot_sees_what_the_seat_sees():
    """The seat view a search bot gets holds the seat's observation and legal mask as the AEC env gives them, and
    its resampled records keep them."""
    loaded = _load("clabber_v0", {"single_hand": True}, seed=14)
    state = loaded.new_initial_state()
    env = cardenvs.env("clabber_v0", single_hand=True)
    env.reset(seed=state.seed)
    bot = bridge.AgentBot(loaded, state.current_player(), PIMC_SPEC, seed=0)
    seen = _record_views(bot.agent)
    assert bot.step(state) in state.legal_actions()
    view, observed = seen[0], env.observe(env.agent_selection)
    assert view.seat == state.current_player()
    assert np.array_equal(view.observation, observed["observation"])
    assert np.array_equal(view.action_mask, observed["action_mask"])
    resampled = view.resample(np.random.default_rng(0))
    assert resampled.tobytes() != state.record.tobytes()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_a_seeded_resampler_repeats_its_worlds(env_id):
    state = _load(env_id, cardenvs.get_game(env_id).quick_params, seed=8).new_initial_state()
    player = state.current_player()
    first, second = bridge.seeded_resampler(3), bridge.seeded_resampler(3)
    for _ in range(3):
        assert first(state, player).record.tobytes() == second(state, player).record.tobytes()
