"""Each game's training recipe: what ``cardenvs train GAME`` does with no other option.

A recipe gives (a) the game's defaults for the trainer's core options (budget, discount, minibatches, how often
to snapshot, checkpoint and evaluate, ...), which the command line may still change, and (b) the extensions its
game's agent needs, which are not command-line options: reward shaping (:mod:`cardenvs.training.shaping`), an
auxiliary prediction task (:mod:`cardenvs.training.auxiliary`), carried open chains
(:mod:`cardenvs.training.open_chains`), search targets (:mod:`cardenvs.training.search_targets`) and a warm start from
a teacher's play (:mod:`cardenvs.training.kickstart`). Each of the five games' recipes is the one its shipped agent
(``agents/checkpoints/<env_id>.json``) was trained with. A game without a recipe (one registered from outside the
package, say) trains with the core defaults and no extension.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from cardenvs.training.auxiliary import Auxiliary
from cardenvs.training.kickstart import Kickstart
from cardenvs.training.search_targets import SearchTargets
from cardenvs.training.shaping import Shaping

#: evaluation tournaments of the recipes: enough games for a learning curve whose points are told apart
EVAL_GAMES = 1000


@dataclass(frozen=True)
class Recipe:
    """How to train one game.

    Args:
        defaults: the game's defaults of core options, by field name of ``cardenvs.training.selfplay.Args``.
        shaping: potential-based reward shaping (None: none).
        auxiliary: an auxiliary prediction task on the policy's trunk (None: none).
        carry_open_chains: a learning seat's open chain waits for the next rollout instead of being bootstrapped.
        search_targets: the policy also learns a search's action distribution at some decisions (None: none).
        kickstart: the policy also learns a teacher's choices early in the run (None: none).
    """

    defaults: dict[str, Any] = field(default_factory=dict)
    shaping: Shaping | None = None
    auxiliary: Auxiliary | None = None
    carry_open_chains: bool = False
    search_targets: SearchTargets | None = None
    kickstart: Kickstart | None = None

    def extensions(self) -> dict[str, Any]:
        """The extension settings, as model.json records them (JSON types)."""
        shaping, auxiliary, search_targets = self.shaping, self.auxiliary, self.search_targets
        return {"shaping": None if shaping is None else asdict(shaping),
                "auxiliary": None if auxiliary is None else {**asdict(auxiliary), "views": list(auxiliary.views)},
                "carry_open_chains": self.carry_open_chains,
                "search_targets": None if search_targets is None else asdict(search_targets),
                "kickstart": None if self.kickstart is None else asdict(self.kickstart)}


RECIPES: dict[str, Recipe] = {
    # Short rounds pass the rule-based agent within two minutes; the lead over it keeps growing with training,
    # and at 24M decisions it is twice the lead at 3M.
    "slabberjan_v0": Recipe({
        "total_decisions": 24_000_000, "snapshot_every": 300_000, "checkpoint_every": 3_000_000,
        "eval_every": 500_000, "eval_games": EVAL_GAMES}),
    "gin_slaughtre_v0": Recipe({
        "total_decisions": 20_000_000, "minutes": 11.0, "gamma": 0.999, "snapshot_every": 2_000_000,
        "checkpoint_every": 2_000_000, "eval_every": 1_500_000, "eval_games": EVAL_GAMES}),
    # A game to 500 points pays only after several hands: each hand's points reach its decisions as the shaping
    # potential of the own team's lead in the scores. The rule-based agent teaches the first 3M decisions, which
    # passes it within minutes where PPO alone took about 12M decisions.
    "clabber_v0": Recipe({
        "total_decisions": 60_000_000, "minutes": 28.0, "snapshot_every": 2_000_000,
        "checkpoint_every": 4_000_000, "eval_every": 2_000_000, "eval_games": EVAL_GAMES},
        shaping=Shaping("scores", coef=8.0, relative=True), kickstart=Kickstart(decisions=3_000_000)),
    # A learner that cannot win yet would learn to stall to the step limit: a truncated game costs it a loss. The
    # rule-based agent teaches the first 2M decisions, which a random policy's returns would take minutes to pass.
    "stabby_jack_v0": Recipe({
        "total_decisions": 12_000_000, "gamma": 0.999, "truncation_reward": -1.0,
        "snapshot_every": 2_000_000, "checkpoint_every": 2_000_000, "eval_every": 1_500_000,
        "eval_games": EVAL_GAMES},
        kickstart=Kickstart(decisions=2_000_000)),
    # Slap pays only at the end of games of hundreds of slap windows, and a seat out of cards waits for its end:
    # stack-size shaping, carried chains, and a head that learns which slap rules the pile matches. The rule-based
    # agent slaps perfectly, so level with it is the best there is, and it teaches all along (its weight falls over
    # the 60M decisions no run reaches in 28 minutes): level from its first tournament on, where PPO alone took
    # about 28M, and a teacher gone after 8M left the policy below level again.
    "slap_v0": Recipe({
        "total_decisions": 60_000_000, "minutes": 28.0, "minibatch_size": 1024, "update_epochs": 4, "gamma": 0.99,
        "gae_lambda": 0.5, "snapshot_every": 6_000_000, "checkpoint_every": 6_000_000, "eval_every": 2_000_000,
        "eval_games": EVAL_GAMES},
        shaping=Shaping("stack_sizes"), auxiliary=Auxiliary(("slap_matches", "slappable"), balance=100.0,
                                                            to_policy=True), carry_open_chains=True,
        kickstart=Kickstart(decisions=60_000_000)),
}


def recipe(env_id: str | None) -> Recipe:
    """The recipe of ``env_id``: its entry of :data:`RECIPES`, or the core defaults and no extension.

    Args:
        env_id: a game's env id (None or an unknown id: the core defaults).
    """
    return RECIPES.get(env_id or "", Recipe())
