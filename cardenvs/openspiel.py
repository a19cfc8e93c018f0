"""Every cardenvs game as an OpenSpiel Python game, over the same compiled engine.

Importing this module registers each registered cardenvs game whose OpenSpiel facts are known (the five built-in
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
* **Strings.** ``observation_string(p)`` is the public table (``Game.render``) and ``p``'s private view
  (``Game.render_private``). ``information_state_string(p)`` adds every action so far as ``p`` saw it: its own by
  name, another seat's by its public name (``Game.public_action_name`` where a game hides a choice). There is no
  information-state tensor (``observation_tensor`` is the cardenvs observation, not perfect recall), so
  OpenSpiel's ``rl_environment`` gives its agents the observation tensor.
* **Resampling.** ``state.resample_from_infostate(p, sampler)`` (and :func:`resampler`, the callback form of
  ``ISMCTSBot.set_resampler``) deals the cards ``p`` cannot see anew with the game's hidden-card resampler
  (``Game.resample``) and reseeds the state's generator, so that a search sees neither the other hands nor the
  future draws. A game without a resampler raises ``NotImplementedError`` naming the game.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "cardenvs.openspiel needs OpenSpiel: pip install 'cardenvs[openspiel]' (the open-spiel wheel)"
    ) from error

from cardenvs.core.game import Game, new_states
from cardenvs.core.registry import available_envs, get_game
from cardenvs.core.rng import SEED_LIMIT, game_seed
from cardenvs.core.single import engine_view, observe_game, refresh_game, reset_game, step_game

#: the prefix of every bridged game's OpenSpiel short name: ``cardenvs_<Game.name>``
SHORT_NAME_PREFIX = "cardenvs_"
#: the OpenSpiel parameter that seeds the deals of a loaded game
SEED_PARAMETER = "rng_seed"
#: ``rng_seed`` value that draws the base seed from the operating system
RANDOM_SEED = -1
#: the integer that stands for ``None`` in an optional integer parameter
NONE_PARAMETER = -1

Utility = pyspiel.GameType.Utility


@dataclass(frozen=True)
class OpenSpielFacts:
    """What OpenSpiel needs to know about a game that the cardenvs manifest does not say.

    Args:
        utility: ``utility(params)``, the game's utility type (zero-sum, constant-sum or general-sum) for these
            parameters.
        utility_range: ``utility_range(params)``, the lowest and highest return any seat can get.
        max_game_length: ``max_game_length(params)``, the most agent decisions a game takes.
        team_game: the seats play in partnerships that always share a reward (said in the long name).
    """

    utility: Callable[[Any], Any]
    utility_range: Callable[[Any], tuple[float, float]]
    max_game_length: Callable[[Any], int]
    team_game: bool = False


def _win_loss_utility(params: Any) -> Any:
    """+1 to the winner and −1 to every other seat (0 to all in a draw or a truncation): zero-sum for two
    players, general-sum for more (the sum is 2 − n for a win, 0 for a draw)."""
    return Utility.ZERO_SUM if params.num_players == 2 else Utility.GENERAL_SUM


def _win_loss_range(params: Any) -> tuple[float, float]:
    return -1.0, 1.0


def _clabber_facts() -> OpenSpielFacts:
    from cardenvs.games.clabber import cards, melds, observation, rules
    from cardenvs.games.clabber.params import NUM_PLAYERS

    # A hand's agent decisions: two bidding rounds of four, a DECLARE/SKIP choice each at the first trick
    # (optional_declare), six tricks of four cards (forced moves are fewer, never more).
    bidding = 2 * NUM_PLAYERS
    declaring = NUM_PLAYERS
    tricks = rules.NUM_TRICKS * NUM_PLAYERS
    decisions_per_hand = bidding + declaring + tricks
    # single_hand: (own − opponents' points) / 162, and no hand scores more than 162 + every seat's best meld set
    # + the Bell (belote_dedans pays the defenders that much).
    most_points = cards.HAND_POINTS + NUM_PLAYERS * observation.MAX_MELD_POINTS + melds.BELL_POINTS
    hand_bound = most_points / cards.HAND_POINTS

    def utility_range(params: Any) -> tuple[float, float]:
        return (-hand_bound, hand_bound) if params.single_hand else (rules.LOSS_REWARD, rules.WIN_REWARD)

    return OpenSpielFacts(
        utility=lambda params: Utility.ZERO_SUM,  # partners share a reward; the teams' rewards are opposite
        utility_range=utility_range,
        max_game_length=lambda params: params.max_hands * decisions_per_hand,
        team_game=True,
    )


def _gin_slaughtre_facts() -> OpenSpielFacts:
    return OpenSpielFacts(
        utility=lambda params: Utility.ZERO_SUM,  # +1/−1, or 0 to both at truncation
        utility_range=_win_loss_range,
        max_game_length=lambda params: params.max_turns,  # truncated after max_turns agent decisions
    )


#: Slabberjan: rounds allowed for fool-over-fool redeals, per round that ends in a showdown. A redeal has no
#: bound by the rules (two Fools can meet again); this allowance makes the length bound one that a game
#: exceeds only with a vanishing probability, not a proof.
SLABBERJAN_REDEALS_PER_ROUND = 1
#: Stabby Jack: agent decisions allowed per turn (main action, the Stat it replaces, Level Ups with their payments
#: and cap choices, Ace targets, shields). Free Level Ups repeat while XP lasts, so the rules give no small bound;
#: random play takes about 1.4 decisions a turn, and the random simulation tests check this bound.
STABBY_JACK_DECISIONS_PER_TURN = 8


def _slabberjan_facts() -> OpenSpielFacts:
    from cardenvs.games.slabberjan.params import REWARD_SCHEMES

    def utility(params: Any) -> Any:
        # placement: +1 … −1 linear in the order of elimination, shared means: the rewards sum to 0
        if params.num_players == 2 or params.reward_scheme == REWARD_SCHEMES[1]:
            return Utility.ZERO_SUM
        return Utility.GENERAL_SUM

    def max_game_length(params: Any) -> int:
        # Every round that is not redealt ends in a showdown where someone pays, and a seat pays at most
        # start_chips + 1 times (the last one it owes); every seat in acts at most once a round.
        showdowns = params.num_players * (params.start_chips + 1)
        rounds = showdowns * (1 + SLABBERJAN_REDEALS_PER_ROUND)
        return rounds * params.num_players

    return OpenSpielFacts(utility=utility, utility_range=_win_loss_range, max_game_length=max_game_length)


def _slap_facts() -> OpenSpielFacts:
    from cardenvs.games.slap.params import REWARD_SCHEMES

    def utility_range(params: Any) -> tuple[float, float]:
        # share_of_cards: each seat's share of the cards, from 0 to 1
        return (0.0, 1.0) if params.reward_scheme == REWARD_SCHEMES[1] else (-1.0, 1.0)

    def utility(params: Any) -> Any:
        if params.reward_scheme == REWARD_SCHEMES[1]:
            return Utility.GENERAL_SUM  # shares sum to 1 at a win, less at a truncation (the pile is nobody's)
        return _win_loss_utility(params)

    return OpenSpielFacts(
        utility=utility,
        utility_range=utility_range,
        # per card played: a PLAY decision (expose_play_action) and a slap window asking every seat once
        max_game_length=lambda params: params.max_cards_played * (params.num_players + 1),
    )


def _stabby_jack_facts() -> OpenSpielFacts:
    return OpenSpielFacts(
        utility=_win_loss_utility,
        utility_range=_win_loss_range,
        max_game_length=lambda params: params.max_turns * STABBY_JACK_DECISIONS_PER_TURN,
    )


#: the OpenSpiel facts of each built-in game, by ``Game.name``
FACTS: dict[str, Callable[[], OpenSpielFacts]] = {
    "clabber": _clabber_facts,
    "gin_slaughtre": _gin_slaughtre_facts,
    "slabberjan": _slabberjan_facts,
    "slap": _slap_facts,
    "stabby_jack": _stabby_jack_facts,
}


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
class CardenvsGame(pyspiel.Game):
    """A cardenvs game as an OpenSpiel game (built by ``pyspiel.load_game``, one class per cardenvs game).

    Args:
        params: the OpenSpiel parameters (any subset; the rest take the cardenvs defaults).
    """

    cardenvs_game: Game  # set on each game's subclass
    facts: OpenSpielFacts
    game_type: Any

    def __init__(self, params: dict[str, Any] | None = None):
        merged = {**openspiel_defaults(self.cardenvs_game), **(params or {})}
        game = self.cardenvs_game
        self.params = cardenvs_params(game, merged)
        seed = int(merged[SEED_PARAMETER])
        if not (seed == RANDOM_SEED or 0 <= seed < SEED_LIMIT):
            raise ValueError(f"{SEED_PARAMETER}={seed} is not allowed; use {RANDOM_SEED} or a seed from 0 to 2**64-1")
        self.base_seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0]) if seed < 0 else seed
        self.games_started = 0
        self.num_cardenvs_players = game.num_players(self.params)
        self.num_cardenvs_actions = game.num_actions(self.params)
        self.layout = game.observation_layout(self.params)
        low, high = self.facts.utility_range(self.params)
        utility = self.facts.utility(self.params)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.num_cardenvs_actions,
            max_chance_outcomes=0,
            num_players=self.num_cardenvs_players,
            min_utility=float(low),
            max_utility=float(high),
            utility_sum=0.0 if utility == Utility.ZERO_SUM else None,
            max_game_length=int(self.facts.max_game_length(self.params)),
        )
        # The registered type says the default parameters' utility; this game's type says its own.
        super().__init__(game_type(game, self.facts, self.params), info, merged)
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
        return CardenvsState(self, seed)

    def new_record(self) -> np.ndarray:
        """A length-1 state array holding this game's template record (parameters filled, the rest zero)."""
        states = np.empty_like(self._states_template)
        states.view(np.uint8)[:] = self._template
        return states

    def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> Any:
        """OpenSpiel's observer: the cardenvs observation, or the information state string with perfect recall.

        Args:
            iig_obs_type: OpenSpiel's observation type; ``perfect_recall=True`` asks for the information state.
            params: observer parameters (none are taken).
        """
        if params:
            raise ValueError(f"{self.cardenvs_game.env_id}: observer parameters are not supported, got {params}")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return InformationStateObserver(self) if perfect_recall else CardenvsObserver(self)


# ---------------------------------------------------------------------------------------------- the state
#: OpenSpiel's "player" of a finished game
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)


class _Shared:
    """The OpenSpiel game behind a state, shared by the state's clones (a deep copy is the holder itself)."""

    def __init__(self, game: CardenvsGame):
        self.game = game

    def __deepcopy__(self, memo: dict) -> _Shared:
        return self

class CardenvsState(pyspiel.State):
    """One cardenvs game in progress, as an OpenSpiel state.

    Args:
        game: the OpenSpiel game.
        seed: the cardenvs game seed (a game started as ``cardenvs.env(...).reset(seed=seed)`` is the same game).
    """

    def __init__(self, game: CardenvsGame, seed: int | None = None):
        super().__init__(game)
        # OpenSpiel clones a Python state by making a new initial state and deep-copying every attribute into it:
        # the game travels inside a holder that deep-copies to itself, and a state is dealt only when first used,
        # so that a clone never deals a game nor takes a seed from the game's stream.
        self._shared = _Shared(game)
        self._seed = seed
        self._states: np.ndarray | None = None
        self._to_act = _TERMINAL  # the seat to act, or _TERMINAL; set when the state is dealt and after each step
        #: actions so far as (seat, action)
        self._moves: list[tuple[int, int]] = []
        self._returns = np.zeros(game.num_cardenvs_players, np.float64)
        self._mask = np.zeros(game.num_cardenvs_actions, np.int8)
        self._obs = np.zeros(game.layout.size, np.float32)

    @property
    def _game(self) -> CardenvsGame:
        return self._shared.game

    def _started(self) -> np.ndarray:
        """The state array, dealt from the seed (or the next seed of the game's stream) on first use."""
        if self._states is None:
            if self._seed is None:
                self._seed = self._game.next_seed()
            self._states = self._game.new_record()
            reset_game(engine_view(self._states), np.uint64(self._seed))
            self._refresh()
        return self._states

    @property
    def seed(self) -> int:
        """The cardenvs seed this game was dealt from: ``cardenvs.env(...).reset(seed=state.seed)`` starts it."""
        self._started()
        return int(self._seed)

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
    """OpenSpiel's perfect-recall observer: a string only (no information-state tensor), the observation string
    followed by every action so far as the seat saw it.

    Args:
        game: the OpenSpiel game.
    """

    def __init__(self, game: CardenvsGame):
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict[str, np.ndarray] = {}

    def set_from(self, state: CardenvsState, player: int) -> None:
        """Nothing to write: there is no information-state tensor."""

    def string_from(self, state: CardenvsState, player: int) -> str:
        """The observation string, then the actions so far as ``player`` saw them."""
        moves = " ".join(state.moves_seen_by(player))
        return f"{state.observation_text(player)}\nmoves: {moves}"


# ---------------------------------------------------------------------------------------------- registration
def game_type(game: Game, facts: OpenSpielFacts, params: Any = None) -> Any:
    """The OpenSpiel game type of a cardenvs game with ``params`` (the default parameters when None: the type
    registered; a loaded game's ``get_type()`` has the utility type of its own parameters).

    Args:
        game: the cardenvs game.
        facts: its OpenSpiel facts.
        params: the game's parameters.
    """
    defaults = game.make_params()
    counts = [params.get("num_players", game.num_players(defaults)) for params in game.example_params]
    players = [game.num_players(defaults), *counts]
    team = " (team game: partners share their reward)" if facts.team_game else ""
    return pyspiel.GameType(
        short_name=short_name(game),
        long_name=f"cardenvs {game.env_id}{team}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=facts.utility(defaults if params is None else params),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(players),
        min_num_players=min(players),
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=openspiel_defaults(game),
    )


def register_game(game: Game, facts: OpenSpielFacts) -> str:
    """Register one cardenvs game with OpenSpiel as ``cardenvs_<name>``; return the short name.

    Args:
        game: the cardenvs game.
        facts: its utility type, utility range and length bound.
    """
    name = short_name(game)
    if name in pyspiel.registered_names():
        return name
    game_class = type(
        f"Cardenvs_{game.name}",
        (CardenvsGame,),
        {"cardenvs_game": game, "facts": facts, "game_type": game_type(game, facts)},
    )
    pyspiel.register_game(game_class.game_type, game_class)
    return name


def register_games() -> list[str]:
    """Register every registered cardenvs game whose OpenSpiel facts are known (:data:`FACTS`); return their
    OpenSpiel short names. Registering twice changes nothing."""
    names = []
    for env_id in available_envs():
        game = get_game(env_id)
        if game.name in FACTS:
            names.append(register_game(game, FACTS[game.name]()))
    return names


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
