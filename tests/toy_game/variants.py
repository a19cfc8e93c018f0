"""High Card registered for the duration of a test with another deal size, with or without its resampler."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager

import cardenvs
from cardenvs.core.game import ObservationLayout
from tests.toy_game.game import GAME
from tests.toy_game.params import ToyParams
from tests.toy_game.resample import resample

TOY = "toy_v0"


@contextmanager
def toy_variant(deck_size: int, hand_size: int, with_resampler: bool) -> Iterator[ObservationLayout]:
    """``toy_v0`` dealing ``hand_size`` of ``deck_size`` cards to each seat by default, registered until the block
    ends; yields its observation layout.

    Args:
        deck_size: the default deck size.
        hand_size: the default hand size (where ``2 * hand_size == deck_size`` the game is dealt in full, and each
            seat can tell the other's hand).
        with_resampler: register the game's hidden-card resampler too (the search agents need it).
    """
    fields = [("deck_size", int, deck_size), ("hand_size", int, hand_size)]
    params = dataclasses.make_dataclass("ToyVariantParams", fields, bases=(ToyParams,), frozen=True)
    game = dataclasses.replace(GAME, params_type=params, example_params=({},))
    cardenvs.register(dataclasses.replace(game, resample=resample) if with_resampler else game)
    try:
        yield cardenvs.env(TOY).unwrapped.layout
    finally:
        cardenvs.unregister(TOY)
