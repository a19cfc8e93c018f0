"""A trained PPO policy as an :class:`~cardenvs.agents.base.Agent` (the ``ppo:PATH`` agent spec).

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib). A checkpoint is the ``.zip`` that
``MaskablePPO.save`` writes (``python -m cardenvs.training.ppo`` writes them), or the ``.pt`` model of the
self-play trainer (``cardenvs train``; loaded by :class:`cardenvs.agents.selfplay.SelfPlayAgent`); the shipped ones
are in ``cardenvs.agents``' ``checkpoints/`` folder. Loading checks that the checkpoint was trained on observations
and actions of the env's size and raises ValueError saying what differs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch as th

from cardenvs.agents.base import Agent
from cardenvs.core.game import ObservationLayout

#: the file ending of the self-play trainer's models (``cardenvs train``), which ``ppo:PATH`` loads too
SELF_PLAY_SUFFIX = ".pt"


def frozen_copy(policy):
    """A copy of a stable-baselines3 policy with the same weights, on the CPU, detached from its optimizer."""
    copy = type(policy)(**policy._get_constructor_parameters())
    copy.load_state_dict(policy.state_dict())
    return copy.to("cpu")


class PolicyAgent(Agent):
    """Acts with a MaskablePPO policy network: the most probable legal action, or a sample from the legal ones.

    Args:
        policy: a ``MaskableActorCriticPolicy`` (e.g. ``model.policy`` of a ``MaskablePPO`` model). It is used
            as given, not copied: pass ``frozen_copy(model.policy)`` for a snapshot that training leaves alone.
        deterministic: take the most probable legal action (default) instead of sampling one.
        name: the agent's name in tables and logs.
        seed: seed of the sampling generator (used only when ``deterministic`` is False).
    """

    name = "ppo"

    def __init__(self, policy, deterministic: bool = True, name: str = "ppo", seed: int | None = None):
        self.policy = policy.to("cpu")
        self.policy.set_training_mode(False)
        self.deterministic = deterministic
        self.name = name
        self.generator = th.Generator().manual_seed(int(np.random.SeedSequence(seed).generate_state(1)[0]))
        self.observation_size = int(policy.observation_space.shape[0])
        self.num_actions = int(policy.action_space.n)

    @classmethod
    def load(
        cls,
        path: str | Path,
        env_id: str,
        layout: ObservationLayout,
        num_actions: int | None = None,
        deterministic: bool = True,
    ) -> Agent:
        """The policy of a MaskablePPO checkpoint (or a self-play ``.pt`` model), checked against the env it is to play.

        Args:
            path: the checkpoint ``.zip`` (or ``.pt``).
            env_id: the env id the agent plays (for messages, and for the action count if not given).
            layout: the env's observation layout (``env.unwrapped.layout`` or ``venv.layout``).
            num_actions: the env's action count; ``None`` takes that of ``env_id`` with default parameters.
            deterministic: see the class.

        Raises:
            ValueError: the file is missing or not a MaskablePPO checkpoint, or its observation size or action
                count differs from the env's.
        """
        import cardenvs

        path = Path(path)
        if not path.is_file():
            raise ValueError(f"no checkpoint at {path}")
        if path.suffix == SELF_PLAY_SUFFIX:  # plain torch: sb3-contrib is not needed to play it
            from cardenvs.agents.selfplay import SelfPlayAgent

            return SelfPlayAgent.load(path, env_id, layout, num_actions, deterministic=deterministic)
        from sb3_contrib import MaskablePPO

        if num_actions is None:
            game = cardenvs.get_game(env_id)
            num_actions = game.num_actions(game.make_params())
        try:
            model = MaskablePPO.load(path, device="cpu")
        except Exception as error:  # a zip of another kind, or a damaged file
            raise ValueError(f"{path} is not a MaskablePPO checkpoint: {error}") from error
        agent = cls(model.policy, deterministic=deterministic, name=f"ppo:{path.stem}")
        problems = []
        if agent.observation_size != layout.size:
            problems.append(f"observation size {agent.observation_size} (the env's is {layout.size})")
        if agent.num_actions != num_actions:
            problems.append(f"{agent.num_actions} actions (the env's has {num_actions})")
        if problems:
            raise ValueError(f"checkpoint {path} does not fit {env_id}: it was trained with {' and '.join(problems)}")
        return agent

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(self.act_batch(observation["observation"][None], observation["action_mask"][None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        if observations.shape[-1] != self.observation_size or action_masks.shape[-1] != self.num_actions:
            raise ValueError(
                f"{self.name} takes observations of size {self.observation_size} and masks of size "
                f"{self.num_actions}; got {observations.shape[-1]} and {action_masks.shape[-1]}"
            )
        with th.no_grad():
            features = th.as_tensor(observations, dtype=th.float32)
            logits = self.policy.action_net(self.policy.mlp_extractor.forward_actor(self.policy.extract_features(
                features, self.policy.pi_features_extractor
            )))
            logits = logits.masked_fill(~th.as_tensor(action_masks > 0), -th.inf)
            if self.deterministic:
                actions = logits.argmax(dim=1)
            else:
                actions = th.multinomial(th.softmax(logits, dim=1), 1, generator=self.generator)[:, 0]
        return actions.numpy().astype(np.int64)
