"""Pictures of a card table, drawn as SVG: one drawing routine for every game.

A game describes what is on its table as a :class:`Table` (its ``picture`` function, one per game): a title,
one :class:`Seat` per player with its numbers and its cards, the piles in the centre and a few status lines.
:func:`table_svg` draws any such table, so every game's cards look alike and the drawing code exists once.
Cards are drawn as cards: rank and suit symbol, red or black, or a face-down back; a pile of many cards is a
stack with its count.

Which seats' private cards a picture shows is the caller's choice (``shown``, a set of seats): none for the
public table, one seat for a person at that seat, every seat for a replay with open hands. A game's picture
function must put nothing private of a seat outside ``shown`` into the :class:`Table`: the SVG holds nothing
that is not drawn. Drawing never draws randomness.

The SVG carries data attributes for programs that read it (the browser tests do): each seat's group has
``data-seat`` and ``data-to-act``, each card ``data-card`` (its label, or ``back`` face down).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

import numpy as np

RED_SUITS = frozenset("♥♦")

# Sizes in SVG user units (pixels at scale 1).
WIDTH = 960
MARGIN = 12
CARD_W = 40
CARD_H = 56
CARD_GAP = 4  # between cards of a row that fits
#: the least of a card left uncovered when a row of cards overlaps: its rank, written across the card's middle,
#: stays whole; a hand that would overlap more wraps onto further rows
CARD_STEP_MIN = 32
CARD_ROW_GAP = 4  # between the rows of a wrapped hand
TITLE_H = 30
LINE_H = 18
LABEL_H = 16
PILE_GAP = 10  # between two piles side by side
SEAT_COLUMNS_MAX = 4
SEAT_PAD = 8
STACK_OFFSET = 3  # how far each back of a stack is shifted
STACK_BACKS = 3  # backs drawn for a stack, however many cards it holds
BADGE_W = 28  # a stack's count badge
RANK_SIZE = 13  # font size of a card's rank, the largest a long rank's name is written in
LABEL_CHAR_W = 6.5  # the width of a character of an 11-unit label, a little over its mean

FONT = "DejaVu Sans, Arial, sans-serif"
COLOURS = {
    "felt": "#1f6f43",
    "panel": "#2d8555",
    "panel_to_act": "#7a4f00",  # dark enough under white text for WCAG AA (about 7:1)
    "panel_out": "#55625a",
    "ink": "#ffffff",
    "card": "#fdfdf8",
    "card_edge": "#333333",
    "red": "#c8102e",
    "black": "#111111",
    "back": "#27408b",
    "back_edge": "#dfe6ff",
    "badge": "#111111",
}


@dataclass(frozen=True)
class Card:
    """A card face: its rank label (``"10"``, ``"K"``, ``"Jo"``, ``"knight"``) and suit symbol (``""`` if none)."""

    rank: str
    suit: str = ""

    @property
    def label(self) -> str:
        return f"{self.rank}{self.suit}"

    @property
    def red(self) -> bool:
        return self.suit in RED_SUITS


#: a face-down card in a pile's ``cards``
FACE_DOWN = None


@dataclass
class Pile:
    """A group of cards with a label: a hand, a row of Stats, the discard pile, a trick.

    ``cards`` are drawn left to right (``FACE_DOWN`` entries as backs). With ``count`` set, the pile is drawn as
    a stack of that many cards: ``cards`` then holds the faces on top of it (the top one last), or is empty for
    a face-down stack.
    """

    label: str
    cards: Sequence[Card | None] = ()
    count: int | None = None


@dataclass
class Seat:
    """One player's place at the table."""

    name: str  #: e.g. ``"player_0"``
    facts: list[str] = field(default_factory=list)  #: short numbers and states: ``"12 chips"``, ``"to act"``
    piles: list[Pile] = field(default_factory=list)
    to_act: bool = False
    out: bool = False  #: out of the game (drawn greyed)


@dataclass
class Table:
    """Everything a picture of one game position shows."""

    title: str
    seats: list[Seat]
    centre: list[Pile] = field(default_factory=list)
    status: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------- drawing


def _text(x: float, y: float, text: str, size: int = 13, colour: str = COLOURS["ink"], anchor: str = "start",
          weight: str = "normal") -> str:
    return (f'<text x="{x:g}" y="{y:g}" font-family="{FONT}" font-size="{size}" fill="{colour}" '
            f'text-anchor="{anchor}" font-weight="{weight}">{escape(text)}</text>')


def _card_svg(x: float, y: float, card: Card | None) -> str:
    if card is None:
        return (f'<g class="card" data-card="back"><rect x="{x:g}" y="{y:g}" width="{CARD_W}" height="{CARD_H}" '
                f'rx="4" fill="{COLOURS["back"]}" stroke="{COLOURS["back_edge"]}" stroke-width="1.5"/>'
                f'<rect x="{x + 5:g}" y="{y + 5:g}" width="{CARD_W - 10}" height="{CARD_H - 10}" rx="2" fill="none" '
                f'stroke="{COLOURS["back_edge"]}" stroke-width="1" stroke-dasharray="3 2"/></g>')
    ink = COLOURS["red"] if card.red else COLOURS["black"]
    # A long rank (a Slabberjan piece's name) is written small across the card instead of in the corner.
    rank_size = RANK_SIZE if len(card.rank) <= 2 else max(7, min(RANK_SIZE, int(2.4 * CARD_W / len(card.rank))))
    parts = [f'<g class="card" data-card="{escape(card.label)}">',
             f'<rect x="{x:g}" y="{y:g}" width="{CARD_W}" height="{CARD_H}" rx="4" fill="{COLOURS["card"]}" '
             f'stroke="{COLOURS["card_edge"]}" stroke-width="1"/>']
    if len(card.rank) <= 2:
        parts.append(_text(x + 4, y + 15, card.rank, rank_size, ink, weight="bold"))
        if card.suit:
            parts.append(_text(x + CARD_W / 2, y + CARD_H - 12, card.suit, 22, ink, anchor="middle"))
    else:
        parts.append(_text(x + CARD_W / 2, y + CARD_H / 2 + 4, card.rank, rank_size, ink, anchor="middle",
                           weight="bold"))
    parts.append("</g>")
    return "".join(parts)


def _pile_width(pile: Pile, room: float) -> float:
    label = len(pile.label) * LABEL_CHAR_W  # a label never runs into the next pile
    if pile.count is not None:
        cards = CARD_W + STACK_OFFSET * (STACK_BACKS - 1) + CARD_GAP + BADGE_W  # the stack and its count badge
    else:
        cards = max(len(pile.cards), 1) * (CARD_W + CARD_GAP)
    return min(room, max(cards, label))


def _card_rows(count: int, room: float) -> tuple[int, float]:
    """How a row of ``count`` face-up cards fits ``room``: the cards per row and the step from card to card.

    Cards sit side by side when they fit, overlap down to :data:`CARD_STEP_MIN` when they do not, and beyond that
    wrap onto as few rows as keep every rank readable, each row but the last holding the same share.
    """
    if count <= 1 or count * (CARD_W + CARD_GAP) <= room:
        return max(count, 1), CARD_W + CARD_GAP
    most = max(1, int((room - CARD_W) // CARD_STEP_MIN) + 1)  # cards a row holds at the least step
    rows = -(-count // most)
    per_row = -(-count // rows)
    step = CARD_W + CARD_GAP if per_row == 1 else min(CARD_W + CARD_GAP, (room - CARD_W) / (per_row - 1))
    return per_row, step


def _pile_height(pile: Pile, room: float) -> float:
    """The height a pile takes below its label: a stack with its offsets, or its rows of cards."""
    if pile.count is not None:
        return CARD_H + STACK_OFFSET * (STACK_BACKS - 1)
    per_row, _ = _card_rows(len(pile.cards), room)
    rows = max(1, -(-len(pile.cards) // per_row))
    return rows * CARD_H + (rows - 1) * CARD_ROW_GAP


def _pile_svg(x: float, y: float, pile: Pile, room: float) -> str:
    """A pile at (x, y): its label, then its cards in a row squeezed into ``room`` or a stack with a count."""
    parts = [f'<g class="pile" data-pile="{escape(pile.label)}">', _text(x, y + 12, pile.label, 11)]
    top = y + LABEL_H
    if pile.count is not None:
        if pile.count == 0:
            parts.append(f'<rect x="{x:g}" y="{top:g}" width="{CARD_W}" height="{CARD_H}" rx="4" fill="none" '
                         f'stroke="{COLOURS["ink"]}" stroke-dasharray="4 3" opacity="0.6"/>')
        else:
            backs = min(pile.count, STACK_BACKS) - (1 if pile.cards else 0)
            for k in range(backs):
                parts.append(_card_svg(x + k * STACK_OFFSET, top + k * STACK_OFFSET, FACE_DOWN))
            for k, card in enumerate(pile.cards):
                parts.append(_card_svg(x + (backs + k) * STACK_OFFSET, top + (backs + k) * STACK_OFFSET, card))
        badge_x = x + CARD_W + STACK_OFFSET * (STACK_BACKS - 1) + CARD_GAP
        parts.append(f'<rect x="{badge_x:g}" y="{top + CARD_H / 2 - 10:g}" width="{BADGE_W}" height="20" rx="10" '
                     f'fill="{COLOURS["badge"]}" opacity="0.7"/>')
        parts.append(_text(badge_x + BADGE_W / 2, top + CARD_H / 2 + 4, str(pile.count), 12, anchor="middle",
                           weight="bold"))
    elif not pile.cards:
        parts.append(_text(x, top + CARD_H / 2, "none", 11))
    else:
        per_row, step = _card_rows(len(pile.cards), room)
        for k, card in enumerate(pile.cards):
            row, place = divmod(k, per_row)
            parts.append(_card_svg(x + place * step, top + row * (CARD_H + CARD_ROW_GAP), card))
    parts.append("</g>")
    return "".join(parts)


def _piles_layout(piles: Sequence[Pile], width: float) -> list[list[tuple[Pile, float]]]:
    """The piles in rows that fit ``width``: each row a list of (pile, width given)."""
    rows: list[list[tuple[Pile, float]]] = [[]]
    used = 0.0
    for pile in piles:
        wanted = _pile_width(pile, width)
        if rows[-1] and used + PILE_GAP + wanted > width:
            rows.append([])
            used = 0.0
        rows[-1].append((pile, wanted))
        used += wanted + PILE_GAP
    return [row for row in rows if row]


def _piles_block(x: float, y: float, piles: Sequence[Pile], width: float) -> tuple[str, float]:
    """The piles laid out in rows from (x, y): the SVG and the height used."""
    parts = []
    height = 0.0
    for row in _piles_layout(piles, width):
        left = x
        for pile, given in row:
            parts.append(_pile_svg(left, y + height, pile, given))
            left += given + PILE_GAP
        tallest = max(_pile_height(pile, given) for pile, given in row)
        height += LABEL_H + max(tallest, CARD_H + STACK_OFFSET * (STACK_BACKS - 1)) + SEAT_PAD
    return "".join(parts), height


def _seat_svg(x: float, y: float, width: float, height: float, index: int, seat: Seat, body: str) -> str:
    fill = COLOURS["panel_to_act"] if seat.to_act else COLOURS["panel_out"] if seat.out else COLOURS["panel"]
    return (f'<g class="seat" data-seat="{index}" data-to-act="{int(seat.to_act)}" data-out="{int(seat.out)}">'
            f'<rect x="{x:g}" y="{y:g}" width="{width:g}" height="{height:g}" rx="8" fill="{fill}"/>'
            + _text(x + SEAT_PAD, y + 18, seat.name, 14, weight="bold")
            + "".join(_text(x + SEAT_PAD, y + 18 + LINE_H * (k + 1), fact, 12) for k, fact in enumerate(seat.facts))
            + body + "</g>")


def table_svg(table: Table) -> str:
    """The whole picture as an SVG document (a string)."""
    inner = WIDTH - 2 * MARGIN
    parts = [_text(MARGIN, MARGIN + 18, table.title, 18, weight="bold")]
    y = MARGIN + TITLE_H
    for line in table.status:
        parts.append(_text(MARGIN, y + 12, line, 13))
        y += LINE_H
    if table.centre:
        svg, height = _piles_block(MARGIN, y + 4, table.centre, inner)
        parts.append(f'<g class="centre">{svg}</g>')
        y += height + 8
    columns = max(1, min(SEAT_COLUMNS_MAX, len(table.seats)))
    seat_w = (inner - (columns - 1) * PILE_GAP) / columns
    for first in range(0, len(table.seats), columns):
        row = table.seats[first:first + columns]
        bodies = []
        for seat in row:
            top = 18 + LINE_H * len(seat.facts) + 6
            svg, height = _piles_block(0, top, seat.piles, seat_w - 2 * SEAT_PAD)
            bodies.append((svg, top + height))
        row_h = max(h for _, h in bodies) + SEAT_PAD
        for k, (seat, (svg, _)) in enumerate(zip(row, bodies, strict=True)):
            x = MARGIN + k * (seat_w + PILE_GAP)
            shifted = f'<g transform="translate({x + SEAT_PAD:g},{y:g})">{svg}</g>'
            parts.append(_seat_svg(x, y, seat_w, row_h, first + k, seat, shifted))
        y += row_h + PILE_GAP
    height = y + MARGIN
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:g}" '
            f'viewBox="0 0 {WIDTH} {height:g}" class="card-table">'
            f'<rect width="{WIDTH}" height="{height:g}" fill="{COLOURS["felt"]}"/>' + "".join(parts) + "</svg>")


@functools.cache
def rasteriser_missing() -> str | None:
    """Why ``render_mode="rgb_array"`` cannot work here (what to install), or None when it can."""
    try:
        import cairosvg  # noqa: F401
        import PIL  # noqa: F401
    except (ImportError, OSError) as error:  # cairosvg also needs the system's cairo library
        return ("render_mode='rgb_array' draws the table with cairosvg: pip install 'cardenvs[web]' (it needs the "
                f"cairo library, Debian's libcairo2): {error}")
    return None


def svg_to_rgb(svg: str) -> np.ndarray:
    """The SVG rasterised to an ``(height, width, 3)`` uint8 image (needs cairosvg, the ``web`` extra)."""
    missing = rasteriser_missing()
    if missing:
        raise ImportError(missing)
    from io import BytesIO

    import cairosvg
    from PIL import Image

    png = cairosvg.svg2png(bytestring=svg.encode("utf-8"))
    return np.asarray(Image.open(BytesIO(png)).convert("RGB"))


def seats_shown(seat: int | None, num_players: int, open_hands: bool = False) -> frozenset[int]:
    """The ``shown`` set for a picture: every seat with open hands, else ``seat``'s alone (none if None)."""
    if open_hands:
        return frozenset(range(num_players))
    return frozenset() if seat is None else frozenset({seat})


def count_words(count: int, what: str) -> str:
    """``"1 card"``, ``"3 cards"``."""
    return f"{count} {what}" if count == 1 else f"{count} {what}s"


def face_down(count: int) -> list[None]:
    """``count`` face-down cards for a pile's ``cards``."""
    return [FACE_DOWN] * int(count)
