"""Slabberjan's 21 piece kinds (rule:pieces_and_ranks): a kind's id is its default rank (Fool 0 … Knight 20)."""

from __future__ import annotations

FOOL = 0
SCARY_FACE = 1
CHAMBER_POT = 2
WHITE_BREAD = 3
ZERO = 4  # the numbered pieces 0…12 are kinds 4…16
TWELVE = 16
INN = 17  # the four matadors
CAT = 18
BIRD = 19
KNIGHT = 20
NO_PIECE = -1  # "none" or "unknown" in piece fields

KIND_NAMES = (
    ("fool", "scary face", "chamber pot", "white bread")
    + tuple(str(number) for number in range(13))
    + ("inn", "cat", "bird", "knight")
)


def kind_name(kind: int) -> str:
    """The piece's name, or "?" for NO_PIECE."""
    return "?" if kind == NO_PIECE else KIND_NAMES[kind]


def kind_id(name_or_id: int | str) -> int:
    """A kind id from an id or a name as in KIND_NAMES ("knight", "7", "fool"); ValueError otherwise."""
    if isinstance(name_or_id, str):
        if name_or_id not in KIND_NAMES:
            raise ValueError(f"unknown piece {name_or_id!r}; pieces are {', '.join(KIND_NAMES)}")
        return KIND_NAMES.index(name_or_id)
    if isinstance(name_or_id, bool) or not 0 <= int(name_or_id) < len(KIND_NAMES):
        raise ValueError(f"piece id {name_or_id!r} is out of range 0..{len(KIND_NAMES) - 1}")
    return int(name_or_id)
