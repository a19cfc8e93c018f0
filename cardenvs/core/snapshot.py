"""JSON snapshots of state records, and the checks every record from outside passes before compiled code reads it.

The compiled rules check no bounds: a card id, a seat or a count out of range makes them read and write past the
ends of the record's arrays. So a record that enters from outside (``CardEnv.restore``, ``VectorEnv.set_states``)
is checked first by :func:`validate_record`: its parameter fields must be the env's, every other field must lie in
the range its game declares (``Game.field_ranges``), and the record must be one the rules can reach
(``Game.check_record``, then ``Game.check_invariants``). Records the engine makes itself are never checked: the
step path pays nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardenvs.core.game import NO_PLAYER, Game, RecordError, require

#: header fields whose every value is valid (``rng``), or that the core checks itself
_HEADER_CHECKED = ("rng", "num_players", "current_player", "terminated", "truncated", "step_count", "rewards")
_INT32_MAX = int(np.iinfo(np.int32).max)

# (env id, parameters) -> the names of the fields fill_params writes
_PARAMETER_FIELDS: dict[tuple[str, Any], tuple[str, ...]] = {}


def snapshot_record(record: np.record) -> dict[str, Any]:
    """Every field of ``record`` as JSON-serialisable values (uint64 as int, arrays as nested lists)."""
    return {name: record[name].tolist() for name in record.dtype.names}


def restore_record(record: np.record, data: dict[str, Any]) -> None:
    """Write a :func:`snapshot_record` dict back into ``record`` after checking it fits exactly.

    Raises ValueError (and changes nothing) if a field is missing, unknown, of the wrong shape, or holds a value
    its type cannot hold exactly (a fraction in an integer field, 1000 in an int8 field, text). The values are
    not checked against the game: see :func:`validate_record`.
    """
    if not isinstance(data, dict):
        raise ValueError(f"snapshot state must be a dict of fields, got {type(data).__name__}")
    names = set(record.dtype.names)
    if set(data) != names:
        missing, extra = sorted(names - set(data)), sorted(set(data) - names)
        raise ValueError(f"snapshot does not fit this game's state: missing {missing}, unknown {extra}")
    converted = {}
    for name in record.dtype.names:
        field_dtype = record.dtype.fields[name][0]
        value = _exact_array(name, data[name], field_dtype.base)
        if value.shape != field_dtype.shape:
            raise ValueError(f"snapshot field {name!r} has shape {value.shape}, expected {field_dtype.shape}")
        converted[name] = value
    for name, value in converted.items():
        record[name] = value


def _exact_array(name: str, value: Any, dtype: np.dtype) -> np.ndarray:
    """``value`` as an array of ``dtype``, or a RecordError naming the field if the conversion would change it."""
    try:
        given = np.asarray(value)
        if given.dtype == object or given.dtype.kind in "USV":
            raise TypeError(given.dtype)
        result = given.astype(dtype)
    except (TypeError, ValueError, OverflowError):
        raise RecordError(name, f"{value!r:.80} is not a {dtype.name} value") from None
    if dtype.kind != "f" and not np.array_equal(result, given):
        raise RecordError(name, f"{value!r:.80} does not fit a {dtype.name} field exactly")
    return result


def parameter_fields(game: Game, params: Any) -> tuple[str, ...]:
    """The fields of ``game``'s record that ``fill_params`` writes (the parameters, constant during a game).

    Found by filling two records, one all zero bytes and one all 0xFF bytes: the fields that come out equal are
    the ones ``fill_params`` wrote in full.
    """
    key = (game.env_id, params)
    if key not in _PARAMETER_FIELDS:
        dtype = game.state_dtype(params)
        zeros = np.zeros(1, dtype).view(np.recarray)
        ones = np.full(dtype.itemsize, 0xFF, np.uint8).view(dtype).view(np.recarray)
        game.fill_params(zeros[0], params)
        game.fill_params(ones[0], params)
        _PARAMETER_FIELDS[key] = tuple(
            name for name in dtype.names if name != "rng" and np.array_equal(zeros[name], ones[name])
        )
    return _PARAMETER_FIELDS[key]


def template_record(game: Game, params: Any) -> np.record:
    """A zeroed record with ``params``' parameter fields filled in (the record every game starts from)."""
    template = np.zeros(1, game.state_dtype(params)).view(np.recarray)
    game.fill_params(template[0], params)
    return template[0]


def validate_record(game: Game, params: Any, record: np.record) -> None:
    """Raise :class:`~cardenvs.core.game.RecordError` (a ValueError naming the field) unless ``record`` is a state
    of ``game`` with ``params`` that its rules can reach, so that the compiled rules may play on from it.

    In order: the parameter fields hold ``params``; the header's seat to act, done flags, step count and rewards
    are possible; every other field lies in ``game.field_ranges(params)``; ``game.check_record`` (the game's
    consistency: every card in one place, counts that match) passes; and ``game.check_invariants`` passes. Reads
    the record only; plain Python, for records from outside (never on the step path).

    Args:
        game: the record's game.
        params: the parameters the record must have been made with.
        record: the record (an ``np.record`` of ``game.state_dtype(params)``).
    """
    template = template_record(game, params)
    for name in parameter_fields(game, params):
        require(np.array_equal(record[name], template[name]), name,
                f"is a parameter field: it must be {template[name].tolist()!r} for this env's parameters")
    _check_header(game, params, record)
    ranges = game.field_ranges(params) if game.field_ranges is not None else {}
    for name, (low, high) in ranges.items():
        values = np.asarray(record[name])
        bad = ~((values >= low) & (values <= high))  # NaN is out of every range
        if bad.any():
            index = np.argwhere(bad)[0] if values.ndim else ()
            shown = values[tuple(index)].item() if values.ndim else values.item()
            at = f"[{', '.join(str(int(i)) for i in index)}]" if values.ndim else ""
            raise RecordError(name, f"entry{at} is {shown!r}, outside {low}..{high}")
    if game.check_record is not None:
        game.check_record(record, params)
    try:
        game.check_invariants(record, params)
    except RecordError:
        raise
    except (AssertionError, IndexError, TypeError, ValueError) as error:  # the checks read what they assume
        raise RecordError("state", f"the record breaks an invariant of {game.env_id}: {error}") from None


def _check_header(game: Game, params: Any, record: np.record) -> None:
    """The shared header: a seat to act exactly while the game goes on, a step count, finite rewards."""
    num_players = game.num_players(params)
    player = int(record.current_player)
    if record.terminated or record.truncated:
        require(player == NO_PLAYER, "current_player", f"is {player}; a finished game has NO_PLAYER ({NO_PLAYER})")
    else:
        require(0 <= player < num_players, "current_player",
                f"is {player}; a game in progress has a seat from 0 to {num_players - 1} to act")
    require(0 <= int(record.step_count) <= _INT32_MAX, "step_count", f"is {int(record.step_count)}; must be ≥ 0")
    require(np.isfinite(record.rewards).all(), "rewards", "holds a value that is not a finite number")


def unchecked_fields(game: Game, params: Any) -> list[str]:
    """The fields of ``game``'s record that no range covers: neither the header, a parameter field nor a field of
    ``game.field_ranges(params)`` (empty for a game that declares all its ranges; the tests require that)."""
    covered = set(_HEADER_CHECKED) | set(parameter_fields(game, params))
    if game.field_ranges is not None:
        covered |= set(game.field_ranges(params))
    return [name for name in game.state_dtype(params).names if name not in covered]
