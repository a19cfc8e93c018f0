"""Every cardenvs game as an OpenSpiel Python game, over the same compiled engine.

Importing this module registers each registered cardenvs game that names its OpenSpiel facts (the five built-in
games) with ``pyspiel.register_game`` under ``cardenvs_<name>``; then ``pyspiel.load_game("cardenvs_clabber",
{"single_hand": True})`` loads it and OpenSpiel's Python algorithms, bots and tests run on it unchanged. It needs
the ``openspiel`` extra (``pip install cardenvs[openspiel]``, the ``open-spiel`` wheel).

What the bridge is:

* **The engine, not a copy.** An OpenSpiel state holds one cardenvs state record and steps it with the game's
  compiled ``step``; legal actions come from its ``legal_mask``, the observation tensor from its ``observe``, the
  strings from its text renderers, ``rewards()``/``returns()`` from the rewards it writes. No rule exists twice.
* **Parameters.** Every field of the game's parameters dataclass is an OpenSpiel parameter with the cardenvs
  default; an optional integer whose default is ``None`` (Stabby Jack's ``max_players``) is the integer
  :data:`NONE_PARAMETER` (-1) for ``None``. One parameter more, :data:`SEED_PARAMETER` (``rng_seed``), seeds
  the game's deals (below).
* **Chance is sampled, inside the state.** The games draw every deal, draw and tie-break from the generator
  kept in the state record, so the games are ``SAMPLED_STOCHASTIC``: no chance nodes, ``chance_outcomes()`` is
  never asked for, and a state's future chance is part of the (hidden) state. A state from ``new_initial_state()``
  is dealt, when first used, from the next seed of the game's stream (``cardenvs.core.rng.game_seed(s, k)`` for
  ``k = 0, 1, …`` with ``rng_seed=s``; ``rng_seed=-1``, the default, draws ``s`` from the operating system), and
  ``state.seed`` is that seed: ``cardenvs.env(...).reset(seed=state.seed)`` starts the same game. OpenSpiel makes
  states of its own too (``observation_tensor`` of a Python game does, to size its observer), so the same calls
  with the same ``rng_seed`` give the same games, but which ``k`` a given state gets depends on those calls.
  What this means for algorithms: sampling
  algorithms (IS-MCTS with the resampler, outcome/external-sampling MCCFR, NFSP, DQN, policy gradient, PSRO over
  simulations, ``evaluate_bots``) work; algorithms that enumerate chance outcomes or walk the whole game tree
  (tabular CFR, exploitability, sequence-form LP, ``get_all_states``) cannot, since there is no chance node to
  enumerate, and the full games are far too big for them anyway.
* **Strings and tensors.** ``observation_string(p)`` is the public table (``Game.render``) and ``p``'s private
  view (``Game.render_private``). ``information_state_string(p)`` adds every action so far as ``p`` saw it: its own
  by name, another seat's by its public name (``Game.public_action_name`` where a game hides a choice). There is no
  information-state tensor (``observation_tensor`` is the cardenvs observation, not perfect recall): asking for one
  raises :class:`NotProvidedError`, and OpenSpiel's ``rl_environment`` gives its agents the observation tensor.
* **Pickling, copies, serialization.** A game pickles and deep-copies as the same parameters at the same place in
  its stream of deals; a state pickles and deep-copies with its game, ``state.serialize()`` is text that
  ``game.deserialize_state`` reads back, and :func:`serialize_game_and_state` / :func:`deserialize_game_and_state`
  write and read both. ``pyspiel.serialize_game_and_state`` itself cannot serialize a Python game with sampled
  chance (it asks the C++ game for its generator state, which open-spiel 2.0.2 does not let a Python game give),
  so ``pyspiel.random_sim_test`` needs ``serialize=False``, as OpenSpiel's own Python games pass.
* **Resampling.** ``state.resample_from_infostate(p, sampler)`` (and :func:`resampler`, the callback form of
  ``ISMCTSBot.set_resampler``) deals the cards ``p`` cannot see anew with the game's hidden-card resampler
  (``Game.resample``) and reseeds the state's generator, so that a search sees neither the other hands nor the
  future draws. A game without a resampler raises ``NotImplementedError`` naming the game.
* **Perfect-information search.** OpenSpiel's ``MCTSBot`` searches clones of the true state: every hidden card and
  every future draw included. It is a cheating baseline here; ``ISMCTSBot`` with :func:`resampler`, or cardenvs'
  own search agents as bots (:class:`AgentBot` with ``pimc`` or ``ismcts``), search only what the seat may know.
* **Facts.** What the manifest does not say (utility type and range, the longest game, partnerships) each game
  gives in its ``spiel.py`` (``Game.openspiel_facts``, a :class:`~cardenvs.core.spiel_facts.OpenSpielFacts` for
  given parameters); a game whose ``openspiel_facts`` is ``""`` is not registered.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "cardenvs.openspiel needs OpenSpiel: pip install 'cardenvs[openspiel]' (the open-spiel wheel)"
    ) from error

from cardenvs.core.game import Game, import_target, new_states
from cardenvs.core.registry import available_envs, get_game
from cardenvs.core.rng import checked_seed, game_seed
from cardenvs.core.single import engine_view, observe_game, refresh_game, reset_game, step_game
from cardenvs.core.spiel_facts import OpenSpielFacts, Utility

#: the prefix of every bridged game's OpenSpiel short name: ``cardenvs_<Game.name>``
SHORT_NAME_PREFIX = "cardenvs_"
#: the OpenSpiel parameter that seeds the deals of a loaded game
SEED_PARAMETER = "rng_seed"
#: ``rng_seed`` value that draws the base seed from the operating system
RANDOM_SEED = -1
#: ``rng_seed`` is below this: OpenSpiel's integer parameters are C++ ``int``s (a base seed of the full 64 bits is
#: what ``rng_seed=-1`` draws)
RNG_SEED_LIMIT = 2**31
#: the integer that stands for ``None`` in an optional integer parameter
NONE_PARAMETER = -1

#: OpenSpiel's utility type of each :class:`~cardenvs.core.spiel_facts.Utility`
_UTILITY = {
    Utility.ZERO_SUM: pyspiel.GameType.Utility.ZERO_SUM,
    Utility.CONSTANT_SUM: pyspiel.GameType.Utility.CONSTANT_SUM,
    Utility.GENERAL_SUM: pyspiel.GameType.Utility.GENERAL_SUM,
    Utility.IDENTICAL: pyspiel.GameType.Utility.IDENTICAL,
}


class NotProvidedError(NotImplementedError):
    """A bridged game was asked for something its OpenSpiel game type says it does not provide (the
    information-state tensor)."""


def bridged(game: Game) -> bool:
    """Whether ``game`` names its OpenSpiel facts (``Game.openspiel_facts``), which registration needs.

    Args:
        game: the cardenvs game.
    """
    return bool(game.openspiel_facts)


def game_facts(game: Game, params: Any = None) -> OpenSpielFacts:
    """The OpenSpiel facts of ``game`` for ``params``, from the function its ``openspiel_facts`` names.

    Args:
        game: the cardenvs game.
        params: the game's parameters (None: the defaults).

    Raises:
        ValueError: the game names no OpenSpiel facts.
    """
    if not bridged(game):
        raise ValueError(f"{game.env_id} names no OpenSpiel facts (Game.openspiel_facts is empty): not bridged")
    facts = import_target(game.openspiel_facts)(game.make_params() if params is None else params)
    if not isinstance(facts, OpenSpielFacts):
        raise TypeError(f"{game.openspiel_facts} returned {type(facts).__name__}, not OpenSpielFacts")
    return facts


def short_name(game: Game | str) -> str:
    """The OpenSpiel short name of a cardenvs game (a :class:`Game`, a game name or an env id)."""
    name = game.name if isinstance(game, Game) else get_game(game).name if "_v" in game else game
    return f"{SHORT_NAME_PREFIX}{name}"


# ---------------------------------------------------------------------------------------------- parameters
def _optional_int(field: dataclasses.Field) -> bool:
    """Whether a parameter field is an ``int | None`` (its OpenSpiel parameter is an int, -1 for None)."""
    return field.default is None and "int" in str(field.type)


def openspiel_defaults(game: Game) -> dict[str, Any]:
    """The OpenSpiel parameters of ``game`` with the cardenvs defaults, plus :data:`SEED_PARAMETER`."""
    defaults: dict[str, Any] = {}
    for field in dataclasses.fields(game.params_type):
        if _optional_int(field):
            defaults[field.name] = NONE_PARAMETER
        elif isinstance(field.default, (bool, int, float, str)):
            defaults[field.name] = field.default
        else:
            raise TypeError(f"{game.env_id}: parameter {field.name} has no OpenSpiel type ({field.default!r})")
    defaults[SEED_PARAMETER] = RANDOM_SEED
    return defaults


def cardenvs_params(game: Game, openspiel_params: dict[str, Any]) -> Any:
    """The game's validated parameters from OpenSpiel parameters (``rng_seed`` left out, -1 read as ``None`` for
    an optional integer)."""
    kwargs = {}
    optional = {field.name for field in dataclasses.fields(game.params_type) if _optional_int(field)}
    for name, value in openspiel_params.items():
        if name == SEED_PARAMETER:
            continue
        kwargs[name] = None if name in optional and value == NONE_PARAMETER else value
    return game.make_params(**kwargs)


# ---------------------------------------------------------------------------------------------- the game
#: the words of :meth:`CardenvsGame.get_rng_state`: the base seed and the games started
_RNG_STATE_PARTS = 2


class CardenvsGame(pyspiel.Game):
    """A cardenvs game as an OpenSpiel game (built by ``pyspiel.load_game``, one class per cardenvs game).

    A game pickles and deep-copies as itself: the same parameters and the same place in its stream of deals
    (:meth:`get_rng_state`), so a copy handed to another process deals the same games as the original would.

    Args:
        params: the OpenSpiel parameters (any subset; the rest take the cardenvs defaults).
    """

    cardenvs_game: Game  # set on each game's subclass
    game_type: Any

    def __init__(self, params: dict[str, Any] | None = None):
        merged = {**openspiel_defaults(self.cardenvs_game), **(params or {})}
        game = self.cardenvs_game
        self.params = cardenvs_params(game, merged)
        seed = merged[SEED_PARAMETER]
        integer = isinstance(seed, int) and not isinstance(seed, bool)
        if not integer or not (seed == RANDOM_SEED or 0 <= seed < RNG_SEED_LIMIT):
            raise ValueError(f"{SEED_PARAMETER}={seed!r} is not allowed; use {RANDOM_SEED} (a seed from the operating "
                             f"system) or an integer from 0 to 2**31-1")
        self.base_seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0]) if seed < 0 else seed
        self.games_started = 0
        self.num_cardenvs_players = game.num_players(self.params)
        self.num_cardenvs_actions = game.num_actions(self.params)
        self.layout = game.observation_layout(self.params)
        self.facts = game_facts(game, self.params)
        low, high = self.facts.utility_range
        info = pyspiel.GameInfo(
            num_distinct_actions=self.num_cardenvs_actions,
            max_chance_outcomes=0,
            num_players=self.num_cardenvs_players,
            min_utility=float(low),
            max_utility=float(high),
            utility_sum=0.0 if self.facts.utility == Utility.ZERO_SUM else None,
            max_game_length=int(self.facts.max_game_length),
        )
        self._openspiel_params = merged
        # The registered type says the default parameters' utility; this game's type says its own.
        super().__init__(game_type(game, self.params), info, merged)
        self._states_template, self._template = new_states(game, self.params, 1)

    def new_initial_state(self) -> CardenvsState:
        """The next game of this game's seed stream, dealt when first used (``state.seed`` says its seed)."""
        return CardenvsState(self)

    def next_seed(self) -> int:
        """The cardenvs seed of the next game of this game's stream (and count it)."""
        seed = game_seed(self.base_seed, self.games_started)
        self.games_started += 1
        return seed

    def new_initial_state_from_seed(self, seed: int) -> CardenvsState:
        """The game that ``cardenvs.env(...).reset(seed=seed)`` starts.

        Args:
            seed: the cardenvs game seed, from 0 to 2**64-1.
        """
        return CardenvsState(self, checked_seed(seed))

    def new_record(self) -> np.ndarray:
        """A length-1 state array holding this game's template record (parameters filled, the rest zero)."""
        states = np.empty_like(self._states_template)
        states.view(np.uint8)[:] = self._template
        return states

    def get_rng_state(self) -> str:
        """The game's place in its stream of deals, as text: the base seed and the games started so far.

        This is what OpenSpiel's C++ ``Game::GetRNGState`` is for; open-spiel 2.0.2 does not let a Python game
        answer that call, so :func:`serialize_game_and_state` and pickling use this method instead.
        """
        return f"{self.base_seed} {self.games_started}"

    def set_rng_state(self, rng_state: str) -> None:
        """Continue the stream of deals from a place :meth:`get_rng_state` gave.

        Args:
            rng_state: ``"<base seed> <games started>"``.

        Raises:
            ValueError: the text is not two integers in range; nothing is changed then.
        """
        parts = rng_state.split()
        if len(parts) != _RNG_STATE_PARTS or not all(part.isdigit() for part in parts):
            env_id = self.cardenvs_game.env_id
            raise ValueError(f"{env_id}: rng state {rng_state!r} is not '<base seed> <games started>'")
        try:
            base_seed = checked_seed(int(parts[0]))
        except ValueError as error:
            raise ValueError(f"{self.cardenvs_game.env_id}: rng state {rng_state!r}: {error}") from None
        self.base_seed, self.games_started = base_seed, int(parts[1])

    def __reduce__(self) -> tuple:
        """Pickle and deep-copy as the same parameters at the same place in the stream of deals."""
        return _load_game, (short_name(self.cardenvs_game), dict(self._openspiel_params), self.get_rng_state())

    def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> Any:
        """OpenSpiel's observer: the seat's cardenvs observation (``perfect_recall=False``), or the information
        state string (``perfect_recall=True``, a string only: there is no information-state tensor).

        Args:
            iig_obs_type: OpenSpiel's observation type (None: the default, the seat's observation). Only the
                seat's own view is provided: ``public_info=True`` with ``private_info=SINGLE_PLAYER``.
            params: observer parameters (none are taken).

        Raises:
            ValueError: observer parameters, or an observation type other than the seat's own view.
        """
        env_id = self.cardenvs_game.env_id
        if isinstance(iig_obs_type, dict):  # game.make_observer(params) passes the parameters alone
            iig_obs_type, params = None, iig_obs_type
        if params:
            raise ValueError(f"{env_id}: observer parameters are not supported, got {params}")
        if iig_obs_type is None:
            return CardenvsObserver(self)
        if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError(
                f"{env_id}: only the seat's own view is provided (public_info=True, private_info=SINGLE_PLAYER), "
                f"got public_info={iig_obs_type.public_info}, private_info={iig_obs_type.private_info}"
            )
        return InformationStateObserver(self) if iig_obs_type.perfect_recall else CardenvsObserver(self)


def _load_game(name: str, parameters: dict[str, Any], rng_state: str) -> CardenvsGame:
    """A pickled game back: ``name`` loaded with ``parameters``, at the place ``rng_state`` says in its stream."""
    game = pyspiel.load_game(name, parameters)
    game.set_rng_state(rng_state)
    return game


# ---------------------------------------------------------------------------------------------- the state
#: OpenSpiel's "player" of a finished game
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)


class _Deal:
    """Which game of the stream a state plays: its seed, taken from the game's stream when the state is first used.
    A state and its clones share one (a deep copy is the holder itself), so that a clone made before the deal
    plays the same game as the original.

    Args:
        seed: the cardenvs game seed, or None to take the next one of the game's stream when first needed.
    """

    def __init__(self, seed: int | None):
        self.seed = seed

    def __deepcopy__(self, memo: dict) -> _Deal:
        return self


class CardenvsState(pyspiel.State):
    """One cardenvs game in progress, as an OpenSpiel state.

    A state pickles and deep-copies with its game (as OpenSpiel's Python games do), ``serialize()`` gives it as
    text that ``game.deserialize_state(text)`` reads back, and ``clone()`` continues alike, future draws included.

    Args:
        game: the OpenSpiel game.
        seed: the cardenvs game seed (a game started as ``cardenvs.env(...).reset(seed=seed)`` is the same game).
    """

    def __init__(self, game: CardenvsGame, seed: int | None = None):
        super().__init__(game)
        # OpenSpiel clones (and deserializes) a Python state by making a new initial state and setting every
        # attribute of ``__dict__`` on it, deep-copied (unpickled): so the game is not among them (``get_game()``
        # gives it), and a state is dealt only when first used, so that making one never takes a seed.
        self._deal = _Deal(seed)
        self._states: np.ndarray | None = None
        self._to_act = _TERMINAL  # the seat to act, or _TERMINAL; set when the state is dealt and after each step
        #: actions so far as (seat, action)
        self._moves: list[tuple[int, int]] = []
        self._returns = np.zeros(game.num_cardenvs_players, np.float64)
        self._mask = np.zeros(game.num_cardenvs_actions, np.int8)
        self._obs = np.zeros(game.layout.size, np.float32)

    @property
    def _game(self) -> CardenvsGame:
        return self.get_game()

    def __reduce__(self) -> tuple:
        """Pickle and deep-copy as the game and :meth:`serialize`'s text, read back by ``deserialize_state``."""
        return _deserialize_state, (self.get_game(), self.serialize())

    def _started(self) -> np.ndarray:
        """The state array, dealt from the seed (or the next seed of the game's stream) on first use."""
        if self._states is None:
            if self._deal.seed is None:
                self._deal.seed = self._game.next_seed()
            self._states = self._game.new_record()
            reset_game(engine_view(self._states), np.uint64(self._deal.seed))
            self._refresh()
        return self._states

    @property
    def seed(self) -> int:
        """The cardenvs seed this game was dealt from: ``cardenvs.env(...).reset(seed=state.seed)`` starts it."""
        self._started()
        return int(self._deal.seed)

    @property
    def record(self) -> np.record:
        """The cardenvs state record (read it; change it only through ``apply_action``)."""
        return self._started().view(np.recarray)[0]

    def _refresh(self) -> None:
        """The seat to act and its legal mask, from the record."""
        player, over = refresh_game(engine_view(self._states), self._obs, self._mask)
        self._to_act = _TERMINAL if over else int(player)

    def current_player(self) -> int:
        """The seat to act, or ``pyspiel.PlayerId.TERMINAL`` once the game is over."""
        if self._states is None:
            self._started()
        return self._to_act

    def _legal_actions(self, player: int) -> list[int]:
        """The legal actions of ``player`` (the seat to act), ascending, from the game's legal mask."""
        self._started()
        return np.flatnonzero(self._mask).tolist()

    def _apply_action(self, action: int) -> None:
        states = self._started()
        player = self._to_act
        next_player, _, over = step_game(engine_view(states), int(action), self._obs, self._mask)
        self._to_act = _TERMINAL if over else int(next_player)
        self._moves.append((player, int(action)))
        self._returns += self._states[0]["rewards"]

    def _action_to_string(self, player: int, action: int) -> str:
        return self._game.cardenvs_game.action_name(self._game.params, int(action))

    def is_terminal(self) -> bool:
        return self.current_player() == _TERMINAL

    def rewards(self) -> list[float]:
        """Every seat's reward from the last action."""
        if not self._moves:
            return [0.0] * self._game.num_cardenvs_players
        return [float(r) for r in self._states[0]["rewards"]]

    def returns(self) -> list[float]:
        """Every seat's rewards summed over the game so far."""
        return self._returns.tolist()

    def observation_text(self, player: int) -> str:
        """The public table and ``player``'s private view, as the game's renderers write them."""
        game = self._game.cardenvs_game
        record = self.record
        text = game.render(record, self._game.params)
        private = game.render_private(record, self._game.params, player)
        return f"{text}\n{private}" if private else text

    def moves_seen_by(self, player: int) -> list[str]:
        """Every action so far as ``player`` saw it: its own by name, another seat's by its public name."""
        game, params = self._game.cardenvs_game, self._game.params
        public_name = game.public_action_name or game.action_name
        return [
            f"{seat}:{(game.action_name if seat == player else public_name)(params, action)}"
            for seat, action in self._moves
        ]

    def observe_into(self, player: int, out: np.ndarray) -> None:
        """Write ``player``'s cardenvs observation into ``out`` (float32, the game's observation size)."""
        scratch = np.zeros(self._game.num_cardenvs_actions, np.int8)
        observe_game(engine_view(self._started()), player, out, scratch)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CardenvsState:
        """A state that ``player_id`` cannot tell from this one: the cards it cannot see dealt anew with the
        game's resampler, and the state's generator reseeded (the future draws resampled too).

        Args:
            player_id: the seat whose information is kept.
            probability_sampler: a callable returning uniform numbers in [0, 1) (OpenSpiel's
                ``UniformProbabilitySampler``), the only source of randomness used.

        Raises:
            NotImplementedError: the game has no hidden-card resampler.
        """
        seed = int(probability_sampler() * 2**53)
        return self.resampled(player_id, np.random.default_rng(seed))

    def resampled(self, player: int, rng: np.random.Generator) -> CardenvsState:
        """:meth:`resample_from_infostate` with a numpy generator as the source of randomness.

        Args:
            player: the seat whose information is kept.
            rng: the random generator the resample draws from.
        """
        game = self._game.cardenvs_game
        if game.resample is None:
            raise NotImplementedError(f"{game.env_id} has no hidden-card resampler (Game.resample)")
        record = self.record
        clone = self.clone()
        clone._states[:] = game.resample(record, player, rng)  # a new record, its generator reseeded from rng
        clone._refresh()
        return clone

    def __str__(self) -> str:
        """The public table, then every seat's private view (a debugging view of the whole state)."""
        game, params, record = self._game.cardenvs_game, self._game.params, self.record
        parts = [game.render(record, params)]
        for seat in range(self._game.num_cardenvs_players):
            private = game.render_private(record, params, seat)
            if private:
                parts.append(f"seat {seat}: {private}")
        return "\n".join(parts)


def _deserialize_state(game: CardenvsGame, text: str) -> CardenvsState:
    """A pickled state back: ``text`` (``state.serialize()``) read by ``game``."""
    return game.deserialize_state(text)


# ---------------------------------------------------------------------------------------------- serialization
#: the first line of :func:`serialize_game_and_state`'s text
SERIALIZATION_COMMENT = "# cardenvs.openspiel serialize_game_and_state"
#: the section headers of :func:`serialize_game_and_state`'s text (OpenSpiel's own)
_META, _GAME, _GAME_RNG_STATE, _STATE = "[Meta]", "[Game]", "[GameRNGState]", "[State]"
#: the format's version, in its meta section
SERIALIZATION_VERSION = 1


def serialize_game_and_state(game: CardenvsGame, state: CardenvsState) -> str:
    """A game and a state of it as text, in the layout of ``pyspiel.serialize_game_and_state`` (which cannot
    serialize a Python game with sampled chance: it asks the C++ game for its generator state): the game string,
    the game's place in its stream of deals (:meth:`CardenvsGame.get_rng_state`) and ``state.serialize()``.
    :func:`deserialize_game_and_state` reads it back.

    Args:
        game: the OpenSpiel game (a ``cardenvs_*`` game).
        state: a state of ``game``.
    """
    return "\n".join([
        SERIALIZATION_COMMENT, _META, f"Version: {SERIALIZATION_VERSION}", "",
        _GAME, str(game), _GAME_RNG_STATE, game.get_rng_state(),
        _STATE, state.serialize(), "",
    ])


def deserialize_game_and_state(text: str) -> tuple[CardenvsGame, CardenvsState]:
    """The game and state that :func:`serialize_game_and_state` wrote: the game loaded anew at the same place in
    its stream of deals, and the state continuing as the original would.

    Args:
        text: :func:`serialize_game_and_state`'s text.

    Raises:
        ValueError: the text is not in that format.
    """
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.split("\n"):
        if line in (_META, _GAME, _GAME_RNG_STATE, _STATE):
            current = sections.setdefault(line, [])
        elif line and not line.startswith("#"):
            if current is None:
                raise ValueError(f"serialized game and state: text before the {_META} section: {line!r}")
            current.append(line)
    game_lines, rng_lines = sections.get(_GAME, []), sections.get(_GAME_RNG_STATE, [])
    if len(game_lines) != 1 or len(rng_lines) != 1 or _STATE not in sections:
        raise ValueError(
            f"serialized game and state: want one line of {_GAME}, one of {_GAME_RNG_STATE} and a {_STATE} section "
            "(serialize_game_and_state's text)"
        )
    game = pyspiel.load_game(game_lines[0])
    if not isinstance(game, CardenvsGame):
        raise ValueError(f"serialized game and state: {game_lines[0]!r} is not a cardenvs game")
    game.set_rng_state(rng_lines[0])
    return game, game.deserialize_state("\n".join(sections[_STATE]))


# ---------------------------------------------------------------------------------------------- observers
class CardenvsObserver:
    """OpenSpiel's observer of the cardenvs observation: ``tensor`` is the seat's observation vector, ``dict``
    its named blocks (the game's observation layout), ``string_from`` the table as the seat sees it.

    Args:
        game: the OpenSpiel game.
    """

    def __init__(self, game: CardenvsGame):
        self.tensor = np.zeros(game.layout.size, np.float32)
        self.dict = game.layout.split(self.tensor)

    def set_from(self, state: CardenvsState, player: int) -> None:
        """Write ``player``'s observation of ``state`` into :attr:`tensor`."""
        state.observe_into(player, self.tensor)

    def string_from(self, state: CardenvsState, player: int) -> str:
        """The public table and ``player``'s private view."""
        return state.observation_text(player)


class InformationStateObserver:
    """OpenSpiel's perfect-recall observer: a string only, the observation string followed by every action so far
    as the seat saw it. There is no information-state tensor (``tensor`` is None, OpenSpiel's mark of an observer
    without one): asking for it (``state.information_state_tensor(p)``, ``game.information_state_tensor_size()``)
    raises :class:`NotProvidedError` instead of returning an empty list.

    Args:
        game: the OpenSpiel game.
    """

    def __init__(self, game: CardenvsGame):
        self.tensor = None
        self.dict: dict[str, np.ndarray] = {}
        self._short_name = short_name(game.cardenvs_game)

    def set_from(self, state: CardenvsState, player: int) -> None:
        """Raise :class:`NotProvidedError`: there is no information-state tensor to write.

        Args:
            state: the state asked about.
            player: the seat asked about.
        """
        raise NotProvidedError(
            f"{self._short_name} provides no information-state tensor (its type says "
            "provides_information_state_tensor=False): the cardenvs observation is not perfect recall. Use "
            "observation_tensor(player), as rl_environment does, or information_state_string(player)"
        )

    def string_from(self, state: CardenvsState, player: int) -> str:
        """The observation string, then the actions so far as ``player`` saw them."""
        moves = " ".join(state.moves_seen_by(player))
        return f"{state.observation_text(player)}\nmoves: {moves}"


# ---------------------------------------------------------------------------------------------- registration
def game_type(game: Game, params: Any = None) -> Any:
    """The OpenSpiel game type of a cardenvs game with ``params`` (the default parameters when None: the type
    registered; a loaded game's ``get_type()`` has the utility type of its own parameters).

    Args:
        game: the cardenvs game (one that names its OpenSpiel facts).
        params: the game's parameters.
    """
    defaults = game.make_params()
    facts = game_facts(game, defaults if params is None else params)
    counts = [example.get("num_players", game.num_players(defaults)) for example in game.example_params]
    players = [game.num_players(defaults), *counts]
    team = " (team game: partners share their reward)" if facts.team_game else ""
    return pyspiel.GameType(
        short_name=short_name(game),
        long_name=f"cardenvs {game.env_id}{team}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=_UTILITY[facts.utility],
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(players),
        min_num_players=min(players),
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=openspiel_defaults(game),
    )


def game_class(game: Game) -> type[CardenvsGame]:
    """The OpenSpiel game class of a cardenvs game (not registered: :func:`register_game` registers it).

    Args:
        game: the cardenvs game (one that names its OpenSpiel facts).
    """
    return type(f"Cardenvs_{game.name}", (CardenvsGame,), {"cardenvs_game": game, "game_type": game_type(game)})


def register_game(game: Game) -> str:
    """Register one cardenvs game with OpenSpiel as ``cardenvs_<name>``; return the short name. Registering twice
    changes nothing.

    Args:
        game: the cardenvs game (one that names its OpenSpiel facts).
    """
    name = short_name(game)
    if name not in pyspiel.registered_names():
        new_class = game_class(game)
        pyspiel.register_game(new_class.game_type, new_class)
    return name


def register_games() -> list[str]:
    """Register every registered cardenvs game that names its OpenSpiel facts (``Game.openspiel_facts``; a game
    whose ``openspiel_facts`` is ``""`` is left out); return their OpenSpiel short names."""
    return [register_game(get_game(env_id)) for env_id in available_envs() if bridged(get_game(env_id))]


class AgentBot(pyspiel.Bot):
    """A cardenvs agent (rule-based, trained, random: any agent spec) as an OpenSpiel bot for one seat.

    An agent that acts on observations reads the seat's observation tensor (the cardenvs observation) and
    legal-action mask, exactly what it sees in the AEC env. A search agent (``pimc``, ``ismcts``: its
    ``reads_seat_views`` is true) gets the seat's :class:`~cardenvs.agents.base.SeatView` of the state's record
    instead, as the AEC env and tournaments give it: the same observation and mask, and the game's resampler as its
    only way to full states, so it searches worlds the seat cannot tell from the true one and never reads the
    hidden cards.

    Args:
        game: the OpenSpiel game (a ``cardenvs_*`` game).
        player: the seat it plays.
        spec: the cardenvs agent spec: ``heuristic`` (the game's rule-based agent), ``random``, ``trained``,
            ``pimc:determinizations=8``, ``ismcts``, …
        seed: seed of the agent's own generator, for agents that draw randomness.
    """

    def __init__(self, game: CardenvsGame, player: int, spec: str = "heuristic", seed: int | None = None):
        from cardenvs.agents.registry import make_agent

        pyspiel.Bot.__init__(self)
        self._player = player
        self._game = game
        self.agent = make_agent(spec, game.cardenvs_game.env_id, game.layout, seed)

    def player_id(self) -> int:
        return self._player

    def restart_at(self, state: CardenvsState) -> None:
        """Nothing to do: the agent keeps no memory between decisions."""

    def inform_action(self, state: CardenvsState, player_id: int, action: int) -> None:
        """Nothing to do: the agent reads everything from the observation."""

    def step(self, state: CardenvsState) -> int:
        """The agent's action in ``state`` (its seat must be the one to act)."""
        observation = np.asarray(state.observation_tensor(self._player), np.float32)
        mask = np.asarray(state.legal_actions_mask(self._player), np.int8)
        from cardenvs.agents.base import act_at_seat

        return act_at_seat(self.agent, self._game.cardenvs_game, self._game.params, state.record, self._player,
                           observation, mask)


def resampler(state: CardenvsState, player: int) -> CardenvsState:
    """The resampler callback of ``ISMCTSBot.set_resampler``: ``state.resample_from_infostate`` drawing from
    OpenSpiel's uniform sampler.

    Args:
        state: the state to resample.
        player: the seat whose information is kept.
    """
    return state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))


def seeded_resampler(seed: int | None = None) -> Callable[[CardenvsState, int], CardenvsState]:
    """A resampler callback for ``ISMCTSBot.set_resampler`` that draws from its own generator, so that a search
    with a seeded bot repeats exactly.

    Args:
        seed: the generator's seed (None: from the operating system).
    """
    rng = np.random.default_rng(seed)

    def resample(state: CardenvsState, player: int) -> CardenvsState:
        return state.resampled(player, rng)

    return resample


#: the OpenSpiel short names of the bridged games (registered at import)
GAME_NAMES = register_games()
