"""training/recipes.py: ``cardenvs train GAME`` with no other option is the run that trained GAME's shipped agent,
and the trainer reproduces the first two updates recorded from it (the same decisions, losses and weights), on the
machine class the reference was recorded on (``first_updates.py`` records it and says why it is machine-bound).
"""

import json
from pathlib import Path

import numpy as np
import pytest

import cardenvs
from cardenvs.agents.registry import shipped_checkpoint
from cardenvs.training import selfplay
from cardenvs.training.recipes import RECIPES, recipe
from tests.training.first_updates import REFERENCE_PATH, first_updates

REFERENCE = json.loads(REFERENCE_PATH.read_text())
#: what the shipped agents' commands set that is not a setting of the run (where it went, ran, and how it was shown)
NOT_SETTINGS = ("run_dir", "device", "progress_bar", "resume", "resume_if_present")
#: the settings of the shipped agents' trainer that are recipe extensions now, or gone (no recipe used them), with
#: the value they had when a command left them out
OLD_EXTENSION_DEFAULTS = {"carry_open_chains": False, "shaping_view": "", "shaping_coef": 1.0,
                          "shaping_relative": False, "aux_view": [], "aux_balance": 1.0, "aux_to_policy": False,
                          "ent_anneal": False, "critic": "observation", "aux_seat_views": [], "aux_coef": 1.0}
#: the relative tolerance of the losses and the weight sums (on the machine class of the reference)
RTOL = 1e-6


def _with_recipe(env_id: str) -> str:
    if env_id not in RECIPES:
        pytest.skip(f"{env_id} has no recipe: it trains with the core defaults")
    return env_id


def _shipped_info(env_id: str) -> dict:
    path = shipped_checkpoint(env_id)
    if path is None:
        pytest.skip(f"{env_id} ships no trained agent")
    return json.loads(Path(path).with_suffix(".json").read_text())


@pytest.mark.parametrize("env_id", cardenvs.available_envs())
def test_train_game_with_no_option_is_the_shipped_agent_s_run(env_id):
    """Every setting of the shipped agent's command, core option or extension; a core option its command left
    out (added to the trainer later) has its core default. A model.json that records the recipe's extensions
    (``recipe``) has them checked by the test below, not among its arguments."""
    info = _shipped_info(_with_recipe(env_id))
    stored = info["args"]
    run = selfplay.parse_args([env_id])
    settings = {name: value for name, value in vars(run).items() if name not in NOT_SETTINGS}
    assert run.device == "auto"
    core = selfplay.Args()
    assert settings == {name: stored.get(name, getattr(core, name, None)) for name in settings}
    assert run.run_dir is None and selfplay.resolve_args(run).run_dir == f"runs/selfplay/{env_id}"
    others = {name: value for name, value in stored.items() if name not in settings and name not in NOT_SETTINGS}
    assert set(others) <= set(OLD_EXTENSION_DEFAULTS)
    if "recipe" in info:
        return
    plan = recipe(env_id)
    shaping, auxiliary = plan.shaping, plan.auxiliary
    extensions = {
        **OLD_EXTENSION_DEFAULTS, "carry_open_chains": plan.carry_open_chains,
        **({"shaping_view": shaping.view, "shaping_coef": shaping.coef, "shaping_relative": shaping.relative}
           if shaping else {}),
        **({"aux_view": list(auxiliary.views), "aux_balance": auxiliary.balance, "aux_to_policy": auxiliary.to_policy}
           if auxiliary else {}),
    }
    assert extensions == {**OLD_EXTENSION_DEFAULTS, **others}


@pytest.mark.parametrize("env_id", cardenvs.available_envs())
def test_the_recipe_s_first_two_updates_are_those_of_the_shipped_agent_s_trainer(env_id, tmp_path):
    _with_recipe(env_id)
    if env_id not in REFERENCE:
        pytest.skip(f"{env_id} has no recorded first updates")
    reference = REFERENCE[env_id]
    trainer, made = first_updates(env_id, tmp_path)
    stats = made["stats"]
    assert trainer.decisions == reference["decisions"]
    assert [sorted(update) for update in stats] == [sorted(update) for update in reference["stats"]]
    for update, expected in zip(stats, reference["stats"], strict=True):
        for name, value in expected.items():
            assert update[name] == pytest.approx(value, rel=RTOL, abs=1e-12), name
    weights = made["weights"]
    assert list(weights) == list(reference["weights"])  # the same modules, under the same names
    for name, sums in reference["weights"].items():
        np.testing.assert_allclose(weights[name], sums, rtol=RTOL, err_msg=name)


@pytest.mark.parametrize("env_id", cardenvs.available_envs())
def test_the_recipe_s_extensions_are_those_the_shipped_agent_recorded(env_id):
    """A shipped agent trained since model.json records the recipe's extensions (``recipe``) was trained with the
    extensions of today's recipe, a warm start from a teacher or search targets included; older ones record them
    among their arguments (the test above)."""
    info = _shipped_info(_with_recipe(env_id))
    if "recipe" not in info:
        pytest.skip(f"{env_id}'s shipped agent predates the recorded extensions")
    assert info["recipe"] == recipe(env_id).extensions()
