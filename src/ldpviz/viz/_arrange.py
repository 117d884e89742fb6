"""Where an explorer's controls go: beside its figures or above them, and how much of the
screen the figures get.

An explorer must show its controls and its main figure together on one screen: 768 px of
height on a lecture-hall projector. Two arrangements are tried at the width and height the
browser reports (:mod:`._probe`):

* **beside**: the controls in a column of ``SIDE_WIDTH`` px left of the figures, which get the
  rest of the width and the whole height under the title;
* **above**: the controls in a grid of as many columns as fit (at least ``COLUMN`` px each),
  the readout under them, the figures below with the height that is left.

Each is scored by the side of the main figure's smallest panel (:meth:`Panels.geometry`);
beside wins unless it is clearly worse, or its column of controls is taller than the screen.
The heights of the controls are estimated here (rows of ``ROW`` px, the readout's lines from
its text); the browser's measurement of what stands above the figures replaces the estimate
once it arrives.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import dataclass

SIDE_WIDTH = 340  # the column of controls beside the figures
SIDE_GAP = 14
MIN_FIGURE_WIDTH = 480  # beside: the figures get at least this much
COLUMN = 272  # above: the narrowest column of controls (three fit in JupyterLab at 1024 px)
COLUMN_GAP = 12
ROW = 34  # a row of controls (slider, dropdown, toggle buttons)
HEADER = 34  # the explorer's title
NOTE_LINE = 20  # a line of the note under the title
READOUT_LINE = 23  # a line of the readout
CHAR = 7.8  # px per character of readout text (14 px, labels bold)
ITEM_GAP = 18  # between two readout items
MARGIN = 10  # margins between the blocks
PREFER_SIDE = 0.9  # beside wins unless its main panel is this much smaller than above's
DEFAULT_HEIGHT = 640  # the height budget before the browser has reported one

CONTROL_STYLE = {"description_width": "116px"}
TRACK = 88  # px of a slider's track in the narrowest column (COLUMN less label and number)
WIDE_TRACK = 128  # a wide slider's track in the column beside the figures
WIDE_STYLE = {"description_width": "140px"}  # the ε slider, on a row of its own
TOGGLE_STYLE = {"description_width": "100px", "button_width": "auto"}


@dataclass(frozen=True)
class Arrangement:
    """Controls ``side`` by side with the figures or above them; the figures' width and
    height budget in px."""

    side: bool
    figure_width: int
    figure_height: int


def readout_items(value):
    """The text of each item of a readout (:func:`readout_html`), for the estimate of its
    lines; a readout that is not a list of items counts as one item."""
    spans = re.findall(r"<span[^>]*>(.*?)</span>", value or "", flags=re.S)
    texts = spans or [value or ""]
    return [html.unescape(re.sub(r"<[^>]+>", "", t)).strip() for t in texts]


def readout_lines(items, width):
    """Lines the readout's items take in ``width`` px (each item stays on one line)."""
    lines, used = 0, None
    for text in items:
        w = min(width, len(text) * CHAR + ITEM_GAP)
        if used is None or used + w > width:
            lines, used = lines + 1, w
        else:
            used += w
    return max(lines, 1)


def columns(width, side):
    """Columns of the grid of controls: one beside the figures, as many as fit above them."""
    return 1 if side else max(1, int((width + COLUMN_GAP) // (COLUMN + COLUMN_GAP)))


def controls_height(n_wide, n_grid, items, width, side):
    """Estimated height of the controls block (wide rows, the grid, the readout)."""
    rows = n_wide + math.ceil(n_grid / columns(width, side))
    return rows * ROW + readout_lines(items, width) * READOUT_LINE + MARGIN


def header_height(note_chars, width):
    lines = math.ceil(note_chars * 7.2 / max(width, 1)) if note_chars else 0
    return HEADER + lines * NOTE_LINE


def arrange(panels, width, height, n_wide, n_grid, items, note_chars=0, chrome=None):
    """The :class:`Arrangement` for an explorer ``width`` x ``height`` px whose main figure has
    ``panels`` (:class:`Panels`), with ``n_wide`` full-width controls, ``n_grid`` others and
    readout ``items``. ``chrome`` is the browser's measurement of what stands above the
    figures, as (side, px), used when it was taken in the arrangement chosen."""
    width = int(width)
    height = int(height or DEFAULT_HEIGHT)
    top_header = header_height(note_chars, width)
    above = top_header + controls_height(n_wide, n_grid, items, width, side=False)
    options = [(False, width, height - above)]
    side_width = width - SIDE_WIDTH - SIDE_GAP
    side_header = header_height(note_chars, width)
    column = controls_height(n_wide, n_grid, items, SIDE_WIDTH, side=True)
    if side_width >= MIN_FIGURE_WIDTH and side_header + column <= height:
        options.append((True, side_width, height - side_header))
    scored = [(side, w, h, panels.geometry(w, h)) for side, w, h in options]
    best = scored[0]
    for option in scored[1:]:
        if option[3].fits and (not best[3].fits or option[3].score >= PREFER_SIDE
                               * best[3].score):
            best = option
    side, w, h, _ = best
    if chrome is not None and chrome[0] == side and chrome[1] > 0:
        h = height - chrome[1]
    return Arrangement(side, w, max(h, 0))
