"""Action masking for RLlib's new API stack, on cardenvs' PettingZoo observations as they are.

Every cardenvs env observes ``{"observation": float32[D], "action_mask": int8[A]}``. RLlib's PettingZoo wrapper
passes that dict through unchanged, and RLlib's default connectors batch it into ``batch["obs"] =
{"observation": Tensor[B, D], "action_mask": Tensor[B, A]}``. :class:`MaskedActorCritic` reads that batch
directly:

- the network (the self-play trainer's: a trunk, a policy head and a value head) sees only
  ``batch["obs"]["observation"]``;
- the policy's logits of illegal actions are replaced by :data:`ILLEGAL_LOGIT` (the most negative float32),
  so sampling, argmax and log-probabilities give them probability zero;
- the batch is never modified in place (RLlib reuses it for the value estimates of advantage computation).

A finite logit rather than ``-inf`` keeps entropy, KL and the log-probabilities of the whole batch finite,
including rows whose mask is all zeros: a seat's final observation, after the game ended, has no legal
action, and RLlib still runs it through the networks to bootstrap the value estimates.

:func:`make_pettingzoo_env` builds the environment RLlib samples from (registered with
``ray.tune.registry.register_env`` by ``training/rllib_train.py``).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from torch import Tensor

import cardenvs
from cardenvs.agents.selfplay import MaskedActorCritic as SelfPlayNetwork
from cardenvs.agents.selfplay import scale_of_bounds

#: the key of the observation vector in a cardenvs observation dict
OBSERVATION_KEY = "observation"
#: the key of the legal-action mask in a cardenvs observation dict
ACTION_MASK_KEY = "action_mask"
#: logit given to illegal actions: the most negative float32, finite so that entropy and KL stay finite
ILLEGAL_LOGIT = float(torch.finfo(torch.float32).min)
#: the trunk's layer widths unless ``model_config["hidden_sizes"]`` says otherwise (``cardenvs train``'s default)
DEFAULT_HIDDEN_SIZES = (256, 256)
#: the model-config key for the trunk's layer widths
HIDDEN_SIZES_KEY = "hidden_sizes"
#: the attribute an inference-only module leaves out: the value head (the trunk plays)
VALUE_HEAD_ATTRIBUTE = "network.value_head"


def mask_logits(logits: Tensor, action_mask: Tensor) -> Tensor:
    """``logits`` with every action whose mask entry is 0 set to :data:`ILLEGAL_LOGIT` (a new tensor).

    Args:
        logits: unmasked logits, shape ``[..., A]``.
        action_mask: 1 (or any positive value) for a legal action, 0 for an illegal one, same shape.
    """
    return logits.masked_fill(action_mask <= 0, ILLEGAL_LOGIT)


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """A PPO actor-critic RLModule for ``Dict(observation=Box, action_mask=Box)`` spaces with ``Discrete`` actions.

    The network is the self-play trainer's (:class:`cardenvs.agents.selfplay.MaskedActorCritic`), so that both
    trainers learn the same function class: each observation entry scaled by 1 / its upper bound (the ``Box``'s
    ``high``), a ReLU trunk, and on it a policy head (one logit per action, masked by :func:`mask_logits`) and a
    value head, whose loss shapes the features the policy uses too. EnvRunners build the module
    ``inference_only``, without the value head.

    Built by RLlib from an ``RLModuleSpec(module_class=MaskedActorCritic, model_config={...})``; the
    model config accepts ``"hidden_sizes"`` (a list of widths, :data:`DEFAULT_HIDDEN_SIZES` by default).
    """

    def setup(self) -> None:
        if not (
            isinstance(self.observation_space, gym.spaces.Dict)
            and OBSERVATION_KEY in self.observation_space.spaces
            and ACTION_MASK_KEY in self.observation_space.spaces
        ):
            raise ValueError(
                f"MaskedActorCritic needs a Dict observation space with keys {OBSERVATION_KEY!r} and "
                f"{ACTION_MASK_KEY!r} (cardenvs' PettingZoo observations); got {self.observation_space}"
            )
        if not isinstance(self.action_space, gym.spaces.Discrete):
            raise ValueError(f"MaskedActorCritic needs a Discrete action space; got {self.action_space}")
        observation_space = self.observation_space[OBSERVATION_KEY]
        if not isinstance(observation_space, gym.spaces.Box) or len(observation_space.shape) != 1:
            raise ValueError(f"the observation must be a one-dimensional Box; got {observation_space}")
        num_actions = int(self.action_space.n)
        mask_shape = self.observation_space[ACTION_MASK_KEY].shape
        if mask_shape != (num_actions,):
            raise ValueError(f"the action mask has shape {mask_shape}, the action space {num_actions} actions")
        hidden_sizes = list((self.model_config or {}).get(HIDDEN_SIZES_KEY, DEFAULT_HIDDEN_SIZES))
        self.network = SelfPlayNetwork(scale_of_bounds(observation_space.high), num_actions, hidden_sizes)
        if self.inference_only:
            # removed here: RLlib's own removal of a nested attribute deletes it from the module itself, not from
            # its owner (its get_state still leaves the head's weights out by the name below)
            del self.network.value_head

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Tensor]:
        return {Columns.ACTION_DIST_INPUTS: self._logits(batch, self._trunk(batch))}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Tensor]:
        # the trunk's output comes back as the embeddings, so that compute_values does not run the trunk again
        hidden = self._trunk(batch)
        return {Columns.ACTION_DIST_INPUTS: self._logits(batch, hidden), Columns.EMBEDDINGS: hidden}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Tensor:
        """Value estimates of ``batch["obs"]["observation"]``, shape ``[B]`` (or ``[B, T]``); ``embeddings``: the
        trunk's output when :meth:`_forward_train` computed it."""
        hidden = self._trunk(batch) if embeddings is None else embeddings
        return self.network.value_head(hidden).squeeze(-1)

    def get_non_inference_attributes(self) -> list[str]:
        return [VALUE_HEAD_ATTRIBUTE]

    def _trunk(self, batch: dict[str, Any]) -> Tensor:
        observations = batch[Columns.OBS][OBSERVATION_KEY]
        return self.network.trunk(observations * self.network.scale)

    def _logits(self, batch: dict[str, Any], hidden: Tensor) -> Tensor:
        return mask_logits(self.network.policy_head(hidden), batch[Columns.OBS][ACTION_MASK_KEY])


def make_pettingzoo_env(env_config: dict[str, Any]) -> PettingZooEnv:
    """A cardenvs AEC env in RLlib's PettingZoo wrapper, for ``ray.tune.registry.register_env``.

    Args:
        env_config: ``{"env_id": ..., "params": {...}}``: the cardenvs env id and the game's parameters.
            The env raises :class:`cardenvs.IllegalActionError` on an illegal action, so a masking bug stops
            training instead of going unnoticed.
    """
    return PettingZooEnv(cardenvs.env(env_config["env_id"], **env_config.get("params", {})))
