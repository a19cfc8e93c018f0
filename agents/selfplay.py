"""The policy network of the self-play trainer (``cardenvs train``) and the agent that plays it.

A checkpoint is the small ``.pt`` file the trainer writes (``model.pt``): the network's weights and what it was
built for (env id, game parameters, observation size, action count, hidden sizes). The ``ppo:PATH`` agent spec
loads it like a MaskablePPO ``.zip`` (:mod:`cardenvs.agents.ppo` tells them apart by the file's ending). Needs the
``train`` extra (torch).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from torch import nn

from cardenvs.agents.base import Agent
from cardenvs.core.game import ObservationLayout

#: what stands in for the logit of an illegal action: exp() of it is 0 in float32, and it stays finite
ILLEGAL_LOGIT = -1e9
#: the format tag of a model file, checked on loading
MODEL_FORMAT = "cardenvs-selfplay-1"


def input_scale(layout: ObservationLayout) -> np.ndarray:
    """Per observation entry, 1 / its documented upper bound (1 where that is at most 1): inputs of order 1."""
    return scale_of_bounds(np.concatenate([np.full(view.size, float(view.high), np.float32) for view in layout.views]))


def scale_of_bounds(highs: np.ndarray) -> np.ndarray:
    """:func:`input_scale` from the entries' upper bounds themselves (e.g. an observation ``Box``'s ``high``)."""
    return (1.0 / np.maximum(np.asarray(highs, np.float32), 1.0)).astype(np.float32)


class MaskedActorCritic(nn.Module):
    """A policy MLP (one logit per action, illegal ones masked out) and a value estimate on the same trunk.

    The value head reads the seat's observation through the policy's trunk, so that the value loss shapes the
    features the policy uses too. Only the policy is needed to play.

    Args:
        scale: per observation entry, the factor its input is multiplied by (:func:`input_scale`).
        num_actions: the env's action count.
        hidden: the layer sizes of the trunk.
        aux_size: entries of an auxiliary head on the trunk that learns to predict a view of the global state
            during training (0: none); playing uses it only with ``aux_to_policy``.
        aux_to_policy: the policy head also reads the auxiliary head's predictions (probabilities, with no
            gradient from the policy loss): what the head learnt to recognise in the observation becomes an
            input the policy can act on directly. Needs ``aux_size``.
    """

    def __init__(self, scale: np.ndarray, num_actions: int, hidden: Sequence[int], aux_size: int = 0,
                 aux_to_policy: bool = False):
        super().__init__()
        if aux_to_policy and not aux_size:
            raise ValueError("aux_to_policy needs an auxiliary head (aux_size of at least 1)")
        self.register_buffer("scale", th.as_tensor(scale, dtype=th.float32))
        self.trunk, width = _mlp(len(scale), hidden)
        self.aux_to_policy = aux_to_policy
        # Small initial policy logits: a near-uniform first policy; value heads at unit gain (CleanRL's choice).
        self.policy_head = _orthogonal(nn.Linear(width + (aux_size if aux_to_policy else 0), num_actions), 0.01)
        self.value_head = _orthogonal(nn.Linear(width, 1), 1.0)
        if aux_size:
            self.aux_head = _orthogonal(nn.Linear(width, aux_size), 1.0)

    def forward(self, obs: th.Tensor, mask: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """``(masked logits [B, A], value [B])`` for observations ``[B, D]`` and bool legal masks ``[B, A]``."""
        hidden = self.trunk(obs * self.scale)
        return self._policy(hidden, None, mask), self.value_head(hidden).squeeze(-1)

    def forward_aux(self, obs: th.Tensor, mask: th.Tensor) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        """:meth:`forward` and the auxiliary head's logits ``[B, aux_size]``, from one pass of the trunk."""
        hidden = self.trunk(obs * self.scale)
        aux_logits = self.aux_head(hidden)
        return self._policy(hidden, aux_logits, mask), self.value_head(hidden).squeeze(-1), aux_logits

    def _policy(self, hidden: th.Tensor, aux_logits: th.Tensor | None, mask: th.Tensor) -> th.Tensor:
        """The masked policy logits. ``aux_logits``: the auxiliary head's, when the caller has them (``None``:
        computed here if the policy reads them)."""
        if self.aux_to_policy:
            if aux_logits is None:
                aux_logits = self.aux_head(hidden)
            # detached: the auxiliary head is taught by its own loss alone, so its outputs stay predictions
            hidden = th.cat([hidden, th.sigmoid(aux_logits).detach()], dim=1)
        return self.policy_head(hidden).masked_fill(~mask, ILLEGAL_LOGIT)

    def policy_logits(self, obs: th.Tensor, mask: th.Tensor) -> th.Tensor:
        """The masked logits alone (what playing needs)."""
        return self._policy(self.trunk(obs * self.scale), None, mask)

    def value(self, obs: th.Tensor) -> th.Tensor:
        """The value of the observations alone, ``[B]``."""
        return self.value_head(self.trunk(obs * self.scale)).squeeze(-1)


def _mlp(width: int, hidden: Sequence[int]) -> tuple[nn.Sequential, int]:
    """ReLU layers of sizes ``hidden`` on inputs of size ``width``; the module and its output size."""
    layers: list[nn.Module] = []
    for size in hidden:
        layers += [_orthogonal(nn.Linear(width, size), np.sqrt(2)), nn.ReLU()]
        width = size
    return nn.Sequential(*layers), width


def _orthogonal(layer: nn.Linear, gain: float) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


def save_model(path: str | Path, network: MaskedActorCritic, info: dict[str, Any]) -> None:
    """Write ``network``'s weights (on the CPU, wherever it trained) and ``info`` (env id, params, hidden sizes,
    ...) to ``path``."""
    state = {name: tensor.detach().cpu() for name, tensor in network.state_dict().items()}
    th.save({"format": MODEL_FORMAT, "info": info, "state_dict": state}, Path(path))


def load_model(path: str | Path) -> tuple[MaskedActorCritic, dict[str, Any]]:
    """The network saved by :func:`save_model` and its ``info``; ValueError if ``path`` holds no such model."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no model file at {path}")
    try:
        saved = th.load(path, map_location="cpu", weights_only=True)
    except Exception as error:  # torch raises many types for a file that is not its own
        raise ValueError(f"{path} is not a self-play model file ({error.__class__.__name__}: {error})") from error
    if not isinstance(saved, dict) or saved.get("format") != MODEL_FORMAT:
        raise ValueError(f"{path} is not a self-play model file (format {MODEL_FORMAT!r})")
    info = saved["info"]
    state = saved["state_dict"]
    if "value_head.weight" not in state:
        raise ValueError(f"{path} holds a network without a value head on its trunk, which this version cannot load")
    aux_size = int(state["aux_head.weight"].shape[0]) if "aux_head.weight" in state else 0
    network = MaskedActorCritic(state["scale"].numpy(), int(info["num_actions"]), list(info["hidden"]), aux_size,
                                bool(info.get("aux_to_policy", False)))
    network.load_state_dict(state)
    return network.eval(), info


class SelfPlayAgent(Agent):
    """Acts with a :class:`MaskedActorCritic`: its most probable legal action, or a sample from the legal ones.

    Args:
        network: the network; used as given (pass a copy for a snapshot that training leaves alone).
        deterministic: take the most probable legal action (default) instead of sampling one.
        name: the agent's name in tables and logs.
        seed: seed of the sampling generator (used only when ``deterministic`` is False).
    """

    name = "selfplay"

    def __init__(self, network: MaskedActorCritic, deterministic: bool = True, name: str = "selfplay",
                 seed: int | None = None):
        self.network = network.eval()
        self.deterministic = deterministic
        self.name = name
        self.generator = th.Generator().manual_seed(int(np.random.SeedSequence(seed).generate_state(1)[0]))

    @classmethod
    def load(cls, path: str | Path, env_id: str, layout: ObservationLayout, num_actions: int | None = None,
             deterministic: bool = True) -> SelfPlayAgent:
        """The agent of a model file, checked against the env it is to play (ValueError if it does not fit).

        Args:
            path: the ``.pt`` model file.
            env_id: the env id the agent plays.
            layout: the env's observation layout.
            num_actions: the env's action count (``None``: not checked).
            deterministic: see the class.
        """
        network, info = load_model(path)
        if info["env_id"] != env_id:
            raise ValueError(f"{path} was trained on {info['env_id']}, not {env_id}")
        if int(info["observation_size"]) != layout.size:
            raise ValueError(f"{path} takes observations of size {info['observation_size']}, the env gives "
                             f"{layout.size} (other game parameters?)")
        if num_actions is not None and int(info["num_actions"]) != num_actions:
            raise ValueError(f"{path} chooses among {info['num_actions']} actions, the env has {num_actions}")
        return cls(network, deterministic=deterministic, name=f"ppo:{Path(path).name}")

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(self.act_batch(observation["observation"][None], observation["action_mask"][None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        with th.inference_mode():
            logits = self.network.policy_logits(th.as_tensor(observations), th.as_tensor(action_masks) != 0)
            if self.deterministic:
                return logits.argmax(dim=1).numpy().astype(np.int64)
            probabilities = th.softmax(logits, dim=1)
            return th.multinomial(probabilities, 1, generator=self.generator).squeeze(1).numpy().astype(np.int64)
