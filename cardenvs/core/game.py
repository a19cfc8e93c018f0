"""The contract between a game and the front ends.

A game is a :class:`Game`: a parameters dataclass, a state record layout built from those parameters, and a
handful of numba-compiled rule functions over one state record. The AEC env (:mod:`cardenvs.core.aec`) and the
batched env (:mod:`cardenvs.core.vector`) call the same functions, so every rule exists exactly once.

Engine protocol (all ``@njit(cache=True)``, each taking one state record ``state``):

``reset(state, seed)``
    Start a new game from ``seed`` (uint64). ``state`` arrives as the game's *template*: parameter fields
    filled in, every other field zero. Chance is drawn only from ``state.rng`` (:mod:`cardenvs.core.rng`).
    On return the game waits for its first decision (bookkeeping and forced moves are resolved inside).
``step(state, action)``
    Apply a legal action of ``state.current_player``; resolve everything up to the next decision. Writes this
    step's reward of every seat to ``state.rewards`` and sets ``state.terminated`` / ``state.truncated``.
``legal_mask(state, mask)``
    Write the int8 legal-action mask of ``state.current_player`` (all zeros once the game is over).
``observe(state, player, obs, mask)``
    Write ``player``'s float32 observation to ``obs`` (no hidden card of another player in it) and its mask to
    ``mask`` (all zeros unless ``player`` is to act).
``penalize(state, player)``
    Apply the game's penalty for an illegal action by ``player`` (used with ``illegal_action="penalize"``).

Text (plain Python): ``render(state, params)`` is the public table; ``render_private(state, params, player)``
adds what only ``player`` sees (``""`` where a game has no private information), for a person at that seat;
``describe_step(before, after, params)`` names what a step did beyond the action itself (a burn, an extra turn).
Words for a person following a game (plain Python, in the game's ``words.py``): ``move_words(before, after, params,
action)`` says what one decision did, ``final_words(state, params, names)`` who won a finished game and why, and
``table_caption(state)`` what the picture leaves out.
Picture (plain Python): ``picture(state, params, shown)`` describes the table for an SVG drawing
(:mod:`cardenvs.core.picture`), with the private cards of the seats in ``shown``.

Every record starts with the shared header of :func:`header_fields`.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

#: ``state.current_player`` once the game is over.
NO_PLAYER = -1


class RecordError(ValueError):
    """A state record from outside (a restored snapshot, ``VectorEnv.set_states``) breaks a field's range or an
    invariant of its game.

    Args:
        field: the field at fault (the one whose value cannot be, or one of those that disagree).
        message: what is wrong with it.
    """

    def __init__(self, field: str, message: str):
        super().__init__(f"state field {field!r}: {message}")
        self.field = field
        self.message = message


def require(condition: Any, field: str, message: str) -> None:
    """Raise :class:`RecordError` naming ``field`` unless ``condition`` holds (the games' record checks use it)."""
    if not condition:
        raise RecordError(field, message)


class StateField(NamedTuple):
    """One field of a game's state record, with its encoding (the rules page's snapshot table is built from these)."""

    name: str
    dtype: Any  #: a numpy scalar type
    shape: tuple = ()  #: () for a scalar
    meaning: str = ""  #: what the field holds and how it is encoded


def record_dtype(fields: Sequence[StateField]) -> np.dtype:
    """The structured dtype of a state record with these fields, in this order."""
    return np.dtype([(f.name, f.dtype, f.shape) if f.shape else (f.name, f.dtype) for f in fields])


def state_fields_markdown(fields: Sequence[StateField]) -> str:
    """The state record as a markdown table (the *Snapshot fields* table of each rules page)."""
    rows = ["| field | type | shape | meaning |", "|---|---|---|---|"]
    for f in fields:
        shape = " × ".join(str(size) for size in f.shape)
        rows.append(f"| `{f.name}` | {np.dtype(f.dtype).name} | {shape} | {f.meaning} |")
    return "\n".join(rows)


def header_fields(num_players: int) -> list[StateField]:
    """The fields every game's state record starts with."""
    return [
        StateField("rng", np.uint64, (), "SplitMix64 counter of the game's own generator"),
        StateField("num_players", np.int32, (), "seats 0..num_players-1"),
        StateField("current_player", np.int32, (), "seat to act; NO_PLAYER once the game is over"),
        StateField("terminated", np.bool_, (), "the game reached its end by the rules"),
        StateField("truncated", np.bool_, (), "the game was cut short by a step limit"),
        StateField("step_count", np.int32, (), "agent decisions taken so far in this game"),
        StateField("rewards", np.float32, (num_players,), "reward of each seat produced by the last step"),
    ]


@dataclass(frozen=True)
class ObservationView:
    """One named block of the flat observation vector."""

    name: str
    size: int
    low: float
    high: float
    description: str


class ObservationLayout:
    """The flat observation vector as a sequence of named blocks (OpenSpiel-style named views)."""

    def __init__(self, views: Sequence[ObservationView]):
        self.views = tuple(views)
        self.offsets: dict[str, tuple[int, int]] = {}
        start = 0
        for view in self.views:
            self.offsets[view.name] = (start, start + view.size)
            start += view.size
        self.size = start

    def low(self) -> np.ndarray:
        """Lower bound of every entry."""
        return np.concatenate([np.full(v.size, v.low, np.float32) for v in self.views])

    def high(self) -> np.ndarray:
        """Upper bound of every entry."""
        return np.concatenate([np.full(v.size, v.high, np.float32) for v in self.views])

    def split(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        """Named views (no copies) into one observation vector, or into a batch ``[..., size]``."""
        return {name: obs[..., a:b] for name, (a, b) in self.offsets.items()}

    def markdown(self) -> str:
        """The layout as a markdown index table (the one in docs/rules)."""
        rows = ["| indices | name | size | range | meaning |", "|---|---|---|---|---|"]
        for view in self.views:
            a, b = self.offsets[view.name]
            span = f"{a}" if b - a == 1 else f"{a}–{b - 1}"
            rows.append(f"| {span} | `{view.name}` | {view.size} | {view.low:g}…{view.high:g} | {view.description} |")
        return "\n".join(rows)


def no_private_view(state: Any, params: Any, player: int) -> str:
    """The private view of a game where every seat sees only the public table: nothing to add."""
    return ""


def no_events(before: Any, after: Any, params: Any) -> list[str]:
    """The events of a game that announces none beyond the action taken."""
    return []


@dataclass(frozen=True)
class Game:
    """Everything the front ends need from one game. Built once per game module."""

    name: str  #: short name, e.g. ``"slabberjan"``
    version: int  #: the ``_vN`` of the env id
    params_type: type  #: a frozen dataclass; its fields are the game's parameters with their defaults
    state_fields: Callable[[Any], list[StateField]]  #: the record's fields for given parameters
    fill_params: Callable[[Any, Any], None]  #: write parameter fields into a zeroed record
    num_players: Callable[[Any], int]
    num_actions: Callable[[Any], int]
    action_name: Callable[[Any, int], str]  #: a short name of an action, for rendering and humans
    observation_layout: Callable[[Any], ObservationLayout]
    render: Callable[[Any, Any], str]  #: the public table as text (never draws randomness)
    apply_deal: Callable[[Any, Any, Any], None]  #: start a game from a chosen deal, see docs/rules
    check_invariants: Callable[[Any, Any], None]  #: raise AssertionError if the record breaks a game invariant
    example_params: tuple[dict, ...]  #: parameter sets that the generic tests and the benchmark cover
    reset: Callable
    step: Callable
    legal_mask: Callable
    observe: Callable
    penalize: Callable
    #: what only ``player`` sees (own hand, own piece, known cards) as text; the default shows nothing private
    render_private: Callable[[Any, Any, int], str] = no_private_view
    #: public events of one step worth announcing to a person (a burnt pile, an extra turn), one line each, from
    #: copies of the record before and after the step
    describe_step: Callable[[Any, Any, Any], list[str]] = no_events
    #: what one decision did, in the game's words, for a person following the game (the web table's move list):
    #: ``move_words(before, after, params, action)``, from copies of the record before and after the step, as
    #: ``(text, seats)`` lines, where ``seats`` are the only seats that may read the line (``()``: every seat; a
    #: line naming a hidden card names only seats that see it). ``None``: the ``describe_step`` lines, for every seat
    move_words: Callable[[Any, Any, Any, int], list[tuple[str, tuple[int, ...]]]] | None = None
    #: one plain sentence of who won a finished game and why, in the game's terms: ``final_words(state, params,
    #: names)`` with ``names[seat]`` the words for each seat (``"player_0 (you)"``). ``None``: the front end says who
    #: has the best reward
    final_words: Callable[[Any, Any, Sequence[str]], str] | None = None
    #: a line under the table picture naming what the picture leaves out (who played each card of a trick):
    #: ``table_caption(state)``, ``""`` where there is nothing to add. ``None``: nothing ever
    table_caption: Callable[[Any], str] | None = None
    #: how the other seats see an action, where its name would tell them what they may not know (a simultaneous
    #: hidden choice); ``None``: its ``action_name``
    public_action_name: Callable[[Any, int], str] | None = None
    #: the table as a picture (:class:`cardenvs.core.picture.Table`), showing the private cards of the seats in
    #: ``shown`` only; drawn as SVG by :func:`cardenvs.core.picture.table_svg` (never draws randomness)
    picture: Callable[[Any, Any, frozenset[int]], Any] | None = None
    #: the keys a chosen deal (``reset(options={"deal": ...})``) may have, for error messages
    deal_keys: tuple[str, ...] = ()
    #: (parameters, deal) pairs: chosen deals that the generic tests start games from
    example_deals: tuple[tuple[dict, dict], ...] = ()
    #: parameters of a short whole game (a few dozen decisions, e.g. one hand or a turn limit), for tests and
    #: demonstrations that play games to the end
    quick_params: dict[str, Any] = dataclasses.field(default_factory=dict, hash=False, compare=False)
    #: ``"module:Class"`` of the game's rule-based agent (built from the observation layout), the ``heuristic`` spec
    rule_based_agent: str = ""
    #: the global state for centralised critics: its named blocks for given parameters, and the compiled
    #: ``encode_state(state, out)`` that writes everything on the table and in every hand into ``out`` (float32)
    state_layout: Callable[[Any], ObservationLayout] | None = None
    encode_state: Callable | None = None
    #: how a seat's observation is read off the global state, for the tests that rebuild every observation from
    #: the state alone: observation block -> ``(how, state block)`` or ``(how, state block, mask block)``, where
    #: ``how`` is ``"own"`` (the seat's row of a per-seat block), ``"left"`` (the row of the seat on its left),
    #: ``"seats"`` (a per-seat block with its rows turned so that the seat's comes first), ``"own_seats"`` (the
    #: seat's row of a seat-by-seat block, turned likewise) or ``"teams"`` (two rows, team 0's and team 1's, turned
    #: so that the seat's team comes first, entries after them as they are; teams alternate round the table); a
    #: mask block multiplies the result entry by entry. A block not named is the state's block of its name as is.
    #: Per-seat blocks have one row per seat the observation is sized for: as many as its smallest ``"seats"`` block
    #: has entries.
    observation_sources: dict[str, tuple[str, ...]] = dataclasses.field(
        default_factory=dict, hash=False, compare=False
    )
    #: ``check_global_state(record, blocks)``, plain Python: raise AssertionError unless the global state's named
    #: blocks (``state_layout(params).split(state)``) hold what the record holds, every hidden card included
    check_global_state: Callable[[Any, dict[str, np.ndarray]], None] | None = None
    #: ``field_ranges(params)``: the inclusive ``(low, high)`` of every entry of each field of the record that is
    #: neither a parameter field nor ``rng`` (any value is a generator state) nor a header field (the core checks
    #: those); a record from outside with an entry out of its range is refused before compiled code reads it
    field_ranges: Callable[[Any], dict[str, tuple[float, float]]] | None = None
    #: ``check_record(record, params)``, plain Python, run after the ranges hold: raise :class:`RecordError` naming
    #: the field unless the record is one the rules can reach (each card in exactly one place, counts that match
    #: the cards, indices that agree); then ``check_invariants`` runs on it too. See
    #: :func:`cardenvs.core.snapshot.validate_record`.
    check_record: Callable[[Any, Any], None] | None = None
    #: ``resample(state, seat, rng)``: a new full record that ``seat`` cannot tell from ``state`` (same
    #: observation, same legal actions), every card it has not seen dealt again uniformly among the deals that agree
    #: with what it saw, the game's generator reseeded from the ``np.random.Generator`` ``rng`` (the game's
    #: ``resample.py``; its rules page's "Resampling" section says what the seat's view holds); ``None``: not yet
    resample: Callable[[Any, int, np.random.Generator], Any] | None = None
    #: whether a seat can hold cards another seat has not seen (a hand); False where every seat sees the same table
    #: and only an order no seat has seen is hidden (a draw pile), so that no seat's play can say anything about
    #: the hidden cards: a belief from play is then the resampler's own draw, and a search BR does without one
    private_hands: bool = True
    #: the search agents' options for this game where a spec leaves them out (``pimc`` alone), e.g.
    #: ``{"determinizations": 64, "rollout": "random"}``: the budgets of the strength table in docs/search.md;
    #: options one agent does not have are ignored for it
    search_defaults: dict[str, Any] = dataclasses.field(default_factory=dict, hash=False, compare=False)
    #: the search best responses' options for this game where they differ from ``search_defaults``, e.g.
    #: ``{"rollout": "trained", "depth": 16}``: a best response plays its target's seats in every playout, stepped
    #: from Python where the target is a network, so a budget that plays out to the game's end many times at random
    #: can be far too slow for it (docs/exploitability.md); empty: the search agents' own budget
    search_response_defaults: dict[str, Any] = dataclasses.field(default_factory=dict, hash=False, compare=False)
    #: ``"module:function"`` of ``facts(params)``, the game's OpenSpiel facts for given parameters (a
    #: :class:`cardenvs.core.spiel_facts.OpenSpielFacts`: utility type and range, longest game, partnerships), kept
    #: in the game's ``spiel.py`` and read only by :mod:`cardenvs.openspiel`; ``""``: not bridged
    openspiel_facts: str = ""

    def __post_init__(self) -> None:
        from cardenvs.core.dispatch import register_engine

        # Field names do not depend on parameter values, so the default parameters identify the game.
        register_engine(self.state_dtype(self.params_type()).names, self)

    def state_dtype(self, params: Any) -> np.dtype:
        """The record layout for ``params``."""
        return record_dtype(self.state_fields(params))

    @property
    def env_id(self) -> str:
        return f"{self.name}_v{self.version}"

    def rule_based_agent_class(self) -> Any:
        """The class named by :attr:`rule_based_agent` (imported now), or None where the game names none."""
        return import_target(self.rule_based_agent) if self.rule_based_agent else None

    def make_params(self, **kwargs: Any) -> Any:
        """Validated parameters; unknown names or bad values raise ValueError saying what is allowed."""
        fields = {f.name for f in dataclasses.fields(self.params_type)}
        unknown = sorted(set(kwargs) - fields)
        if unknown:
            raise ValueError(
                f"{self.env_id}: unknown parameter(s) {', '.join(unknown)}; allowed: {', '.join(sorted(fields))}"
            )
        params = self.params_type(**kwargs)
        params.validate()
        return params


def import_target(target: str) -> Any:
    """The object named by ``"module:name"`` (its module imported now)."""
    module_name, name = target.split(":")
    return getattr(importlib.import_module(module_name), name)


def check_choice(env_name: str, name: str, value: Any, allowed: Sequence[Any]) -> None:
    """Raise ValueError unless ``value`` is one of ``allowed``."""
    if value not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{env_name}: {name}={value!r} is not allowed; choose one of {choices}")


def check_int(env_name: str, name: str, value: Any, low: int, high: int) -> None:
    """Raise ValueError unless ``value`` is an integer in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ValueError(f"{env_name}: {name}={value!r} is not allowed; it must be an integer from {low} to {high}")


def check_bool(env_name: str, name: str, value: Any) -> None:
    """Raise ValueError unless ``value`` is a bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{env_name}: {name}={value!r} is not allowed; it must be True or False")


def new_states(game: Game, params: Any, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` zeroed state records (a plain structured array), and the template as raw bytes.

    The template is a record with the parameter fields filled and every other field zero; a game is reset by
    copying it over the record's bytes. Python code reads records through ``states.view(np.recarray)``.
    """
    dtype = game.state_dtype(params)
    template = np.zeros(1, dtype).view(np.recarray)
    game.fill_params(template[0], params)
    states = np.zeros(count, dtype)
    template_bytes = template.view(np.uint8).reshape(dtype.itemsize).copy()
    return states, template_bytes
