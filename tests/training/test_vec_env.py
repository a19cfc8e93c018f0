"""The batched learner VecEnv: agrees with the single-agent view game for game, SB3's VecEnv conventions."""

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

import cardenvs
from cardenvs.agents.base import Agent, RandomAgent
from cardenvs.learning import LearnerVecEnv, OpponentPool, SingleAgentEnv

ENV_ID = "slabberjan_v0"
PARAMS = {"num_players": 3}
#: more learner decisions than a game of ENV_ID takes
MAX_GAME_DECISIONS = 2000


class LowestLegalAgent(Agent):
    """Deterministic, batch-independent opponent: the lowest legal action."""

    name = "lowest"

    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[0])

    def act_batch(self, observations, action_masks):
        return (action_masks > 0).argmax(axis=1).astype(np.int64)


class HighestLegalAgent(LowestLegalAgent):
    name = "highest"

    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[-1])

    def act_batch(self, observations, action_masks):
        legal = action_masks > 0
        return (legal.shape[1] - 1 - legal[:, ::-1].argmax(axis=1)).astype(np.int64)


def _learner_action(observation, mask):
    """A deterministic learner that still depends on what it sees."""
    legal = np.flatnonzero(mask)
    return int(legal[int(observation.sum() * 7) % len(legal)])


@pytest.mark.parametrize(("env_id", "params"), [(ENV_ID, PARAMS), ("clabber_v0", {})])
def test_vec_env_agrees_with_the_single_agent_view(env_id, params):
    """Game i of LearnerVecEnv(seed) is SingleAgentEnv.reset(seed=game_seed(seed, i)): same seats, observations,
    masks, rewards and terminal observation, step for step, until its first game ends."""
    num_envs, seed = 6, 77
    opponents = [LowestLegalAgent(), HighestLegalAgent()]
    venv = LearnerVecEnv(env_id, num_envs, opponents, seed=seed, params=params)
    observations = venv.reset()
    singles = [SingleAgentEnv(env_id, opponents, params=params) for _ in range(num_envs)]
    expected = [env.reset(seed=cardenvs.game_seed(seed, i))[0] for i, env in enumerate(singles)]
    assert [env.learner_seat for env in singles] == [info["learner_seat"] for info in venv.reset_infos]
    live = np.ones(num_envs, bool)
    finished = 0
    for _ in range(2000):
        masks = venv.action_masks()
        for i in np.flatnonzero(live):
            np.testing.assert_array_equal(observations[i], expected[i])
            np.testing.assert_array_equal(masks[i], singles[i].action_masks())
        actions = np.array([_learner_action(o, m) for o, m in zip(observations, masks, strict=True)])
        venv.step_async(actions)
        observations, rewards, dones, infos = venv.step_wait()
        for i in np.flatnonzero(live):
            expected[i], reward, terminated, truncated, _ = singles[i].step(int(actions[i]))
            assert rewards[i] == pytest.approx(reward)
            assert dones[i] == (terminated or truncated)
            if dones[i]:
                np.testing.assert_array_equal(infos[i]["terminal_observation"], expected[i])
                assert infos[i]["TimeLimit.truncated"] == truncated
                live[i] = False
                finished += 1
        if not live.any():
            break
    assert finished == num_envs


def test_auto_reset_seats_a_new_game_and_masks_are_the_learners():
    venv = LearnerVecEnv(ENV_ID, 32, [RandomAgent(seed=0)], seed=5, params=PARAMS)
    observations = venv.reset()
    seats, ends = set(), 0
    for _ in range(200):
        masks = venv.action_masks()
        assert masks.shape == (32, venv.num_actions) and masks.dtype == bool
        assert masks.any(axis=1).all(), "every game waits on a learner decision"
        assert (venv.games.current_players == venv.learner_seats).all()
        venv.step_async((np.random.default_rng(0).random(masks.shape) * masks).argmax(axis=1))
        observations, rewards, dones, infos = venv.step_wait()
        ends += int(dones.sum())
        seats.update(info["learner_seat"] for info in infos)
        assert all(("terminal_observation" in info) == done for info, done in zip(infos, dones, strict=True))
        assert set(np.unique(rewards[dones])) <= {-1.0, 0.0, 1.0}
        assert (rewards[~dones] == 0).all(), "slabberjan rewards only at the end"
    assert ends > 50 and seats == {0, 1, 2}
    assert observations.dtype == np.float32 and venv.observation_space.contains(observations[0])


def test_maskable_ppo_trains_on_it():
    venv = LearnerVecEnv(ENV_ID, 4, [RandomAgent(seed=0)], illegal_action="raise", seed=1, params=PARAMS)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    before = {name: tensor.clone() for name, tensor in model.policy.state_dict().items()}
    model.learn(256)  # the env raises on an illegal action: every sampled action was legal
    assert model.num_timesteps == 256
    after = model.policy.state_dict()
    changed = {name for name in before if not torch.equal(before[name], after[name])}
    # both networks' layers and both heads moved
    assert {"mlp_extractor.policy_net.0.weight", "mlp_extractor.value_net.0.weight", "action_net.weight",
            "value_net.weight"} <= changed

    # the trained policy, greedy, finishes whole games against the pool with legal actions only
    games = 8
    play = LearnerVecEnv(ENV_ID, games, [RandomAgent(seed=2)], illegal_action="raise", seed=5, params=PARAMS)
    observations = play.reset()
    finished = np.zeros(games, bool)
    for _ in range(MAX_GAME_DECISIONS):
        masks = play.action_masks()
        actions, _ = model.predict(observations, action_masks=masks, deterministic=True)
        assert masks[np.arange(games), actions].all()
        observations, _, dones, _ = play.step(actions)
        finished |= dones
        if finished.all():
            break
    assert finished.all(), "every game reached its end"


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="learner_seat"):
        LearnerVecEnv(ENV_ID, 2, [RandomAgent()], learner_seat=5, params=PARAMS)
    with pytest.raises(ValueError, match="num_envs"):
        LearnerVecEnv(ENV_ID, 0, [RandomAgent()], params=PARAMS)
    with pytest.raises(ValueError, match="base agent"):
        LearnerVecEnv(ENV_ID, 2, [], params=PARAMS)
    venv = LearnerVecEnv(ENV_ID, 2, [RandomAgent()], illegal_action="raise", seed=0, params=PARAMS)
    venv.reset()
    venv.step_async(np.full(2, venv.num_actions))
    with pytest.raises(cardenvs.IllegalActionError):
        venv.step_wait()


def test_snapshots_join_and_leave_the_pool_while_games_run():
    pool = OpponentPool([RandomAgent(seed=0)], max_snapshots=2)
    venv = LearnerVecEnv(ENV_ID, 16, pool, seed=3, params=PARAMS)
    venv.reset()
    added = []
    for step in range(300):
        if step % 10 == 0:
            added.append(LowestLegalAgent() if step % 20 else HighestLegalAgent())
            pool.add_snapshot(added[-1])
            assert pool.snapshots == added[-2:] and len(pool) == 1 + min(len(added), 2)
        masks = venv.action_masks()
        venv.step_async(masks.argmax(axis=1))
        venv.step_wait()
    seated = {id(venv._slots[s]) for s in venv.seat_slots[venv.seat_slots >= 0]}
    assert seated & {id(a) for a in added[-2:]}, "new games seat the newest snapshots"
    assert len(venv._slots) <= 4 * len(pool) + 9, "agents no game seats any more are forgotten"
    assert (venv.seat_slots[np.arange(16), venv.learner_seats] == -1).all()
