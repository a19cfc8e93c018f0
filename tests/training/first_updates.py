"""The first two updates of a game's recipe, and the script that records them as the reference of
``test_recipes.py`` (``data/first_updates.json``).

What is recorded, per game: the decisions made in the first two updates of ``cardenvs train GAME`` with no time
budget (so the learning rate depends on decisions only), no evaluation, no final tournament and no checkpoint; what
each update returned; and per weight tensor its sum and sum of squares. The trainer's float32 arithmetic is exact
only on one class of processor (torch picks its kernels by the processor's vector instructions, and Adam's
normalised steps turn the last bits of a near-zero gradient into visible weight differences), so the reference is
recorded on the machine class CI runs on. Re-record it only where the trainer's arithmetic is meant to change, or to
move the reference to another machine class, and review the diff::

    .venv/bin/python tests/training/first_updates.py                 # every game with a recipe and a shipped agent
    .venv/bin/python tests/training/first_updates.py clabber_v0      # only these
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from cardenvs.training import selfplay

REFERENCE_PATH = Path(__file__).parent / "data" / "first_updates.json"
#: updates of the recorded reference
UPDATES = 2
#: the overrides the reference is recorded with (no time budget, evaluation, final tournament or checkpoint)
REFERENCE_OVERRIDES = ["--minutes", "0", "--eval-every", "0", "--final-games", "0", "--checkpoint-every", str(10**12),
                       "--no-progress-bar", "--device", "cpu"]


def first_updates(env_id: str, run_dir: Path) -> tuple[Any, dict[str, Any]]:
    """The trainer of ``cardenvs train env_id`` after its first two updates, and what they made: ``decisions``,
    ``stats`` (what each update returned) and ``weights`` (per weight tensor its sum and sum of squares).

    Args:
        env_id: a game with a recipe.
        run_dir: the run folder (nothing is kept in it).
    """
    args = selfplay.resolve_args(selfplay.parse_args([env_id, *REFERENCE_OVERRIDES, "--run-dir", str(run_dir)]))
    stats = []

    class TwoUpdates(selfplay.Trainer):
        def update(self, *arrays, **options):
            stats.append(super().update(*arrays, **options))
            return stats[-1]

        def budget_spent(self, started: float) -> bool:
            return self.updates >= UPDATES

    trainer = TwoUpdates(args)
    trainer.train()
    weights = {name: [float(tensor.double().sum()), float(tensor.double().square().sum())]
               for name, tensor in trainer.network.state_dict().items()}
    return trainer, {"decisions": trainer.decisions, "stats": stats, "weights": weights}


def main(names: list[str]) -> None:
    """Re-record the reference of the games named (every game already in it where none is)."""
    reference = json.loads(REFERENCE_PATH.read_text())
    for env_id in names or list(reference):
        with tempfile.TemporaryDirectory() as run_dir:
            _, reference[env_id] = first_updates(env_id, Path(run_dir))
        print(f"recorded {env_id}: {reference[env_id]['decisions']} decisions")
    REFERENCE_PATH.write_text(json.dumps(reference, indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
