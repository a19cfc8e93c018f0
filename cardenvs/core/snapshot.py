"""JSON snapshots of state records: every field, by name, as plain numbers and nested lists."""

from __future__ import annotations

from typing import Any

import numpy as np


def snapshot_record(record: np.record) -> dict[str, Any]:
    """Every field of ``record`` as JSON-serialisable values (uint64 as int, arrays as nested lists)."""
    return {name: record[name].tolist() for name in record.dtype.names}


def restore_record(record: np.record, data: dict[str, Any]) -> None:
    """Write a :func:`snapshot_record` dict back into ``record`` after checking it fits exactly.

    Raises ValueError (and changes nothing) if a field is missing, unknown or of the wrong shape.
    """
    names = set(record.dtype.names)
    if set(data) != names:
        missing, extra = sorted(names - set(data)), sorted(set(data) - names)
        raise ValueError(f"snapshot does not fit this game's state: missing {missing}, unknown {extra}")
    converted = {}
    for name in record.dtype.names:
        field_dtype = record.dtype.fields[name][0]
        value = np.asarray(data[name], dtype=field_dtype.base)
        if value.shape != field_dtype.shape:
            raise ValueError(f"snapshot field {name!r} has shape {value.shape}, expected {field_dtype.shape}")
        converted[name] = value
    for name, value in converted.items():
        record[name] = value
