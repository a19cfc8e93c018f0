"""What hidden information is worth to the search agent: ``pimc`` against a clairvoyant copy of itself.

The clairvoyant copy is the same PIMC search at the same budget, except that every "draw" of the resampler is
the true state (with a fresh generator, so the future chance is still unknown to it): it knows every hidden card
but not the future. Both play the same duplicate deals against the same opponent. Where the clairvoyant copy wins
much more than the honest one, the honest agent's beliefs (the resampler's posterior, uniform over the deals the
rules allow, which ignores what the other seats' choices say about their cards) are what holds it back; where
both do about the same, knowing the hidden cards would not help this search, and its budget, its playouts or its
value estimate are what limit it.

An analysis script, not part of the library: the clairvoyant agent reads the true state, which no agent may.

Usage::

    python -m experiments.search_oracle slabberjan_v0 --games 2000 \\
        --search "pimc:determinizations=32,rollouts=1,rollout=trained,depth=4"
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence

import numpy as np

import cardenvs
from cardenvs.agents.base import SeatView
from cardenvs.agents.registry import make_agent
from cardenvs.agents.search import PIMCAgent
from cardenvs.evaluation.tournament import run_tournament


class _TrueStateView(SeatView):
    """A seat view whose every draw is the true state, reseeded (clairvoyance without foresight)."""

    __slots__ = ()

    def resample(self, rng: np.random.Generator) -> np.record:
        record = np.array([self._record], self._record.dtype).view(np.recarray)[0]
        record.rng = rng.integers(0, 2**64, dtype=np.uint64)
        return record


class ClairvoyantPIMC(PIMCAgent):
    """:class:`PIMCAgent` searching over the true state instead of the resampler's draws."""

    name = "clairvoyant-pimc"

    def act_views(self, views: Sequence[SeatView]) -> np.ndarray:
        seen = [
            _TrueStateView(view.game, view.params, view._record, view.seat, view.observation, view.action_mask)
            for view in views
        ]
        return super().act_views(seen)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("env_id")
    parser.add_argument("--search", default="pimc", help="the pimc spec both copies play")
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--params-json", default="{}")
    args = parser.parse_args(argv)
    params = json.loads(args.params_json)
    game = cardenvs.get_game(args.env_id)
    layout = game.observation_layout(game.make_params(**params))
    honest = make_agent(args.search, args.env_id, layout, seed=args.seed)
    clairvoyant = ClairvoyantPIMC(args.env_id, honest.options, seed=args.seed)
    for agent in (honest, clairvoyant):
        result = run_tournament(args.env_id, [agent, args.opponent], args.games, seed=args.seed, params=params,
                                progress=False, results_path=f"runs/search/oracle_{args.env_id}_{agent.name}.jsonl")
        print(result.table())


if __name__ == "__main__":
    main()
