"""A trained RLlib policy as an :class:`~cardenvs.agents.base.Agent` (the ``rllib:PATH`` agent spec).

Needs the ``rllib`` extra (torch, ray[rllib]); Ray itself is not started. ``PATH`` is either

- a run directory of ``training/rllib_train.py`` (e.g. ``runs/rllib/clabber_v0``, whose ``checkpoint/`` holds
  the algorithm checkpoint) or an algorithm checkpoint (what ``Algorithm.save_to_path`` writes): its module
  ``shared`` plays, or its only module; a ``--policy per-seat`` checkpoint has one module per seat, so name the
  one to play, e.g. ``runs/rllib/clabber_v0/checkpoint/learner_group/learner/rl_module/player_0``;
- or one module's directory (``<checkpoint>/learner_group/learner/rl_module/<module id>``, or any directory
  ``RLModule.save_to_path`` wrote).

The module is reloaded with ``RLModule.from_checkpoint`` and must read cardenvs' observation dicts as they
are (as :class:`cardenvs.training.rllib_masking.MaskedActorCritic` does); its logits of illegal actions are masked again
here, so the agent only ever returns a legal action. Loading checks the module's observation size and action
count against the env and raises ValueError saying what differs.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch as th
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule

from cardenvs.agents.base import Agent
from cardenvs.agents.registry import checkpoint_sha256
from cardenvs.core.game import ObservationLayout

#: where an algorithm checkpoint keeps its modules, one directory per module id
MODULES_DIR = Path("learner_group") / "learner" / "rl_module"
#: where a run directory of training/rllib_train.py keeps its algorithm checkpoint
RUN_CHECKPOINT_DIR = "checkpoint"
#: the module a ``--policy shared`` run trains (``cardenvs.training.rllib_train.SHARED_MODULE_ID``)
SHARED_MODULE_ID = "shared"
#: the file ``RLModule.save_to_path`` writes into every module directory
MODULE_MARKER = "class_and_ctor_args.pkl"
#: the keys of a cardenvs observation dict
OBSERVATION_KEY, ACTION_MASK_KEY = "observation", "action_mask"


def module_directory(path: Path) -> Path:
    """The module directory ``path`` names (see the module docstring); ValueError if there is none.

    An algorithm checkpoint and its ``rl_module`` directory (a MultiRLModule) are checkpoints of their own too,
    so the modules inside are looked for first.
    """
    if not path.is_dir():
        raise ValueError(f"no RLlib checkpoint at {path} (a checkpoint is a directory)")
    if (path / RUN_CHECKPOINT_DIR / MODULES_DIR).is_dir():  # a run directory
        path = path / RUN_CHECKPOINT_DIR
    modules_dir = path / MODULES_DIR if (path / MODULES_DIR).is_dir() else path
    modules = sorted(child.name for child in modules_dir.iterdir() if (child / MODULE_MARKER).is_file())
    if not modules:
        if (path / MODULE_MARKER).is_file():
            return path
        raise ValueError(
            f"{path} is not an RLlib checkpoint: it holds no module (no {MODULES_DIR}/<module>/{MODULE_MARKER})"
        )
    if SHARED_MODULE_ID in modules:
        return modules_dir / SHARED_MODULE_ID
    if len(modules) == 1:
        return modules_dir / modules[0]
    raise ValueError(
        f"{path} holds the modules {', '.join(modules)}; name the one to play, e.g. "
        f"rllib:{modules_dir / modules[0]}"
    )


class RLlibAgent(Agent):
    """Acts with an RLlib RLModule: the most probable legal action, or a sample from the legal ones.

    Args:
        module: an RLModule whose ``forward_inference`` takes ``{"obs": {"observation", "action_mask"}}`` and
            returns ``action_dist_inputs`` (logits, one per action).
        observation_size: the length of the observation vector the module reads.
        num_actions: the number of actions it scores.
        deterministic: take the most probable legal action (default) instead of sampling one.
        name: the agent's name in tables and logs.
        seed: seed of the sampling generator (used only when ``deterministic`` is False).
    """

    name = "rllib"

    def __init__(
        self, module, observation_size: int, num_actions: int, deterministic: bool = True, name: str = "rllib",
        seed: int | None = None,
    ):
        self.module = module
        self.module.eval()
        self.observation_size = observation_size
        self.num_actions = num_actions
        self.deterministic = deterministic
        self.name = name
        self.generator = th.Generator().manual_seed(int(np.random.SeedSequence(seed).generate_state(1)[0]))
        self.checkpoint_sha256: str | None = None

    @classmethod
    def load(
        cls,
        path: str | Path,
        env_id: str,
        layout: ObservationLayout,
        num_actions: int | None = None,
        deterministic: bool = True,
    ) -> RLlibAgent:
        """The policy of an RLlib checkpoint, checked against the env it is to play.

        Args:
            path: an algorithm checkpoint or a module directory (see the module docstring).
            env_id: the env id the agent plays (for messages, and for the action count if not given).
            layout: the env's observation layout (``env.unwrapped.layout`` or ``venv.layout``).
            num_actions: the env's action count; ``None`` takes that of ``env_id`` with default parameters.
            deterministic: see the class.

        Raises:
            ValueError: no checkpoint there, several modules and none named, a module that cannot be loaded,
                or one whose observation size or action count differs from the env's.
        """
        import cardenvs

        path = Path(path)
        directory = module_directory(path)
        if num_actions is None:
            game = cardenvs.get_game(env_id)
            num_actions = game.num_actions(game.make_params())
        try:
            module = RLModule.from_checkpoint(str(directory.resolve()))
        except ImportError:
            raise
        except Exception as error:  # a damaged directory, or a module class that cannot be rebuilt
            raise ValueError(f"cannot load the RLlib module in {directory}: {error}") from error
        try:
            observation_size = int(np.prod(module.observation_space[OBSERVATION_KEY].shape))
            module_actions = int(module.action_space.n)
        except (AttributeError, KeyError, TypeError) as error:
            raise ValueError(
                f"the RLlib module in {directory} does not read cardenvs observations ({OBSERVATION_KEY!r} and "
                f"{ACTION_MASK_KEY!r}) with discrete actions: {error}"
            ) from error
        problems = []
        if observation_size != layout.size:
            problems.append(f"observation size {observation_size} (the env's is {layout.size})")
        if module_actions != num_actions:
            problems.append(f"{module_actions} actions (the env's has {num_actions})")
        if problems:
            raise ValueError(f"checkpoint {path} does not fit {env_id}: it was trained with {' and '.join(problems)}")
        agent = cls(module, observation_size, module_actions, deterministic=deterministic, name=f"rllib:{path.name}")
        agent.checkpoint_sha256 = checkpoint_sha256(directory)
        return agent

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(self.act_batch(observation[OBSERVATION_KEY][None], observation[ACTION_MASK_KEY][None])[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        if observations.shape[-1] != self.observation_size or action_masks.shape[-1] != self.num_actions:
            raise ValueError(
                f"{self.name} takes observations of size {self.observation_size} and masks of size "
                f"{self.num_actions}; got {observations.shape[-1]} and {action_masks.shape[-1]}"
            )
        legal = th.as_tensor(action_masks > 0)
        batch = {Columns.OBS: {
            OBSERVATION_KEY: th.as_tensor(observations, dtype=th.float32),
            ACTION_MASK_KEY: th.as_tensor(action_masks),
        }}
        with th.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].float()
            logits = logits.masked_fill(~legal, -th.inf)  # whatever the module does, only legal actions remain
            if self.deterministic:
                actions = logits.argmax(dim=1)
            else:
                actions = th.multinomial(th.softmax(logits, dim=1), 1, generator=self.generator)[:, 0]
        return actions.numpy().astype(np.int64)
