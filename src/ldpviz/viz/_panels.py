"""The geometry of a figure's panels: where each plot, title, legend and colour bar goes in a
box of a given width and height, in pixels, so that nothing overlaps and the figure fits.

A projector shows 768 px of height: the figure gets what is left of it under (or beside) its
explorer's controls, and its panels share that. Every arrangement that gives each panel its
``min_width`` is tried (side by side, wrapped 2 + 1, stacked; a figure-wide legend below or
right of the panels), each with the tallest plots that fit the height; the one whose
smallest panel is largest wins.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

FONT_SIZE = 14  # tick labels, legends, hover
AXIS_TITLE_SIZE = 15
PANEL_TITLE_FONT = {"size": 15}
NOTE_FONT = {"size": 13, "color": "#333333"}


@dataclass
class Panel:
    """One subplot: ``kind`` "xy" (axes ``xaxis{n}``) or "scene" (3-D), its share of a row
    (``weight``), whether it is ``square`` or fills the row's height (``fill``, e.g. a mask
    beside a heat map), the number of entries of its own ``legend`` (drawn below it), whether
    a colour bar stands to its right, and a ``note`` (lines joined by <br>) below its legend."""

    title: str = ""
    kind: str = "xy"
    weight: float = 1.0
    square: bool = False
    fill: bool = False
    legend: int = 0
    colorbar: bool = False
    min_width: int = 170
    note: str = ""
    gap: int | None = None  # px to the next panel when side by side (None: room for y labels)
    shared_y: bool = False  # unless first in its row, its y labels are those to its left
    aspect: float = 1.25  # the width / height it reads best at (squares: 1)


@dataclass
class Geometry:
    """One arrangement at one size: each panel's plot box (x0, x1, y0, y1) in px from the top
    left, the rows, where the figure-wide legend goes, the figure's height and a score (the
    height of the largest box of its ``aspect`` that fits its smallest main panel, in px)."""

    boxes: list
    rows: list
    legend: str | None
    legend_top: float
    height: float
    score: float
    fits: bool  # every panel at least its min_width, the whole within the height
    wide: bool  # every panel at least its min_width


class Panels:
    """The geometry of a figure's panels in a box (all sizes in CSS pixels).

    ``legend`` > 0 adds one legend for the whole figure (``legend_width`` px wide when it
    stands right of the panels, else below them in as many columns as fit).
    :meth:`layout` returns plotly layout updates, so the same figure reflows in place.
    """

    TOP = 44  # the figure's title
    TITLE_H = 26  # a panel title above the plot
    AXIS_H = 50  # x tick labels and x-axis title below the plot
    LEGEND_ROW = 21
    LEGEND_PAD = 8
    NOTE_LINE = 18
    LEGEND_COLUMN = 300  # px per entry of a figure-wide legend below the panels
    GAP_X = 86  # y tick labels and y-axis title of the next panel
    COLORBAR_W = 88  # bar, its tick labels and its title
    LEFT, RIGHT, BOTTOM = 76, 16, 6
    ROW_GAP = 12
    TICK_LINE = 16  # each extra line of x tick labels (a label with <br>)
    MIN_PLOT = 110  # the shortest plot worth drawing
    MAX_PLOT = 520  # the tallest plot (a big screen does not need more)
    ASPECT = 1.1  # a line chart is at most this tall for its width
    DEFAULT_HEIGHT = 600  # the height budget before the browser has reported one

    def __init__(self, panels, legend=0, axis_titles=True, tick_lines=1, legend_width=0):
        self.panels = list(panels)
        self.legend = legend
        self.legend_width = legend_width
        self.axis_h = (self.AXIS_H if axis_titles else 26) + self.TICK_LINE * (tick_lines - 1)

    # ------------------------------------------------------------------------------------------
    # Rows and shares of the width
    # ------------------------------------------------------------------------------------------
    def _gap(self, left):
        return (self.GAP_X if left.gap is None else left.gap) + (
            self.COLORBAR_W if left.colorbar else 0)

    def _shares(self, width, row):
        """The plot width of each panel of ``row`` laid side by side across ``width``."""
        last = self.COLORBAR_W if row[-1].colorbar else 0
        plot = width - self.LEFT - self.RIGHT - last - sum(self._gap(p) for p in row[:-1])
        total = sum(p.weight for p in row)
        return [plot * p.weight / total for p in row]

    @staticmethod
    def _padded(row, slots):
        """A short row followed by plain placeholders, so that its columns line up with a
        row of ``slots`` panels."""
        weight = sum(p.weight for p in row) / len(row)
        return row + [Panel(weight=weight, min_width=0)] * (slots - len(row))

    def _splits(self):
        """Every way to put the panels in rows: one row, balanced rows (3 panels: 2 + 1,
        the short rows last), one per row."""
        n = len(self.panels)
        out = []
        for count in range(1, n + 1):
            sizes = [n // count + (i < n % count) for i in range(count)]
            starts = list(itertools.accumulate(sizes, initial=0))
            out.append([list(range(a, b)) for a, b in itertools.pairwise(starts)])
        return out

    def _legend_h(self, entries, columns=1):
        rows = -(-entries // columns)
        return self.LEGEND_ROW * rows + self.LEGEND_PAD if entries else 0

    def _below(self, panel):
        """Height of what goes below a panel's x axis: its legend and its note."""
        lines = panel.note.count("<br>") + 1 if panel.note else 0
        return self._legend_h(panel.legend) + self.NOTE_LINE * lines

    def legend_columns(self, width):
        return max(1, int((width - self.LEFT - self.RIGHT) // self.LEGEND_COLUMN))

    # ------------------------------------------------------------------------------------------
    # Arrangements
    # ------------------------------------------------------------------------------------------
    def _arrange(self, width, height, rows, legend):
        """The geometry of ``rows`` with the figure-wide legend ``legend`` ("below", "right"
        or None), plots as tall as ``height`` allows."""
        panels_w = width - (self.legend_width + 12 if legend == "right" else 0)
        slots = len(rows[0])
        shares = [self._shares(panels_w, self._padded([self.panels[i] for i in row], slots))
                  [:len(row)] for row in rows]
        below = self._legend_h(self.legend, self.legend_columns(width)) if legend == "below" \
            else 0
        fixed = self.TOP + self.BOTTOM + below + self.ROW_GAP * (len(rows) - 1) + sum(
            (self.TITLE_H if any(self.panels[i].title for i in row) else 4) + self.axis_h
            + max(self._below(self.panels[i]) for i in row) for row in rows)
        plot_h = max(self.MIN_PLOT, min(self.MAX_PLOT, (height - fixed) / len(rows)))
        if legend == "right":  # the legend's entries stand beside the first row
            plot_h = max(plot_h, min(self._legend_h(self.legend), self.MAX_PLOT))
        boxes, y = [None] * len(self.panels), self.TOP
        for row, row_shares in zip(rows, shares, strict=True):
            y = self._row(row, row_shares, y, plot_h, boxes)
        y -= self.ROW_GAP
        main = [(b[1] - b[0], b[3] - b[2], 1.0 if p.square else p.aspect)
                for p, b in zip(self.panels, boxes, strict=True) if not p.fill]
        score = min(min(w / a, h) for w, h, a in main) if main else plot_h
        total = y + below + self.BOTTOM
        wide = all(s >= p.min_width for row, row_shares in zip(rows, shares, strict=True)
                   for s, p in zip(row_shares, (self.panels[i] for i in row), strict=True))
        return Geometry(boxes, rows, legend, y, total, score, wide and total <= height + 0.5,
                        wide)

    def _row(self, row, shares, top, plot_h, boxes):
        """Place one row's plot boxes under titles starting at ``top``; returns the next
        row's top. Squares are as wide as the narrowest share and centred together; a line
        chart is at most ``ASPECT`` times as tall as it is wide; ``fill`` panels take the
        row's height."""
        panels = [self.panels[i] for i in row]
        side = min([s for s, p in zip(shares, panels, strict=True) if p.square] + [plot_h])
        heights = [side if p.square else plot_h if p.fill else min(plot_h, self.ASPECT * s)
                   for s, p in zip(shares, panels, strict=True)]
        row_h = max([h for h, p in zip(heights, panels, strict=True) if not p.fill]
                    or [plot_h])
        spare = sum(s - side for s, p in zip(shares, panels, strict=True) if p.square)
        x = self.LEFT + spare / 2
        title = self.TITLE_H if any(p.title for p in panels) else 4
        for i, share, panel, h in zip(row, shares, panels, heights, strict=True):
            w = side if panel.square else share
            h = row_h if panel.fill else h
            boxes[i] = (x, x + w, top + title, top + title + h)
            x += w + self._gap(panel)
        below = max(self._below(p) for p in panels)
        return top + title + row_h + self.axis_h + below + self.ROW_GAP

    def geometry(self, width, height=None):
        """The best arrangement at ``width`` x ``height`` px (:class:`Geometry`): of those
        that fit, the one whose smallest main panel is largest (fewer rows on a tie); when
        none fits, the shortest (plots ``MIN_PLOT`` px tall)."""
        width, height = int(width), int(height or self.DEFAULT_HEIGHT)
        places = [None] if not self.legend else ["below", "right"] if self.legend_width \
            else ["below"]
        options = [self._arrange(width, height, rows, legend)
                   for rows in self._splits() for legend in places]
        fitting = [g for g in options if g.fits]
        if fitting:
            return max(fitting, key=lambda g: (round(g.score), -len(g.rows)))
        # nothing fits the height: the shortest figure whose panels keep their min_width
        return min(options, key=lambda g: (not g.wide, g.height))

    def first_in_row(self, width, height=None):
        """Indices of the panels that start a row (their y tick labels are shown)."""
        return {row[0] for row in self.geometry(width, height).rows}

    # ------------------------------------------------------------------------------------------
    # plotly layout
    # ------------------------------------------------------------------------------------------
    def layout(self, width, height=None):
        """(layout updates, colour-bar updates per panel index) for a figure ``width`` px wide
        in a box ``height`` px tall (the figure may be shorter: plots stop growing)."""
        width = int(width)
        g = self.geometry(width, height)
        height = round(g.height)
        first = {row[0] for row in g.rows}
        pw, ph = width - self.LEFT - self.RIGHT, height - self.TOP - self.BOTTOM

        def fx(px):  # pixels from the left edge -> paper fraction
            return (px - self.LEFT) / pw

        def fy(px):  # pixels from the top edge -> paper fraction (0 at the bottom)
            return 1 - (px - self.TOP) / ph

        out = {"width": width, "height": height, "autosize": False,
               "margin": {"l": self.LEFT, "r": self.RIGHT, "t": self.TOP, "b": self.BOTTOM},
               "annotations": [], "title": {"x": 12 / width, "xref": "container",
                                            "xanchor": "left", "y": 1 - 10 / height,
                                            "yanchor": "top"}}
        if g.legend == "below":
            columns = self.legend_columns(width)
            out["legend"] = {"x": 0, "y": fy(g.legend_top), "xanchor": "left",
                             "yanchor": "top", "orientation": "h", "entrywidth": 1 / columns,
                             "entrywidthmode": "fraction", "xref": "paper", "yref": "paper",
                             "bgcolor": "rgba(255,255,255,0)"}
        elif g.legend == "right":
            x0 = max(b[1] + (self.COLORBAR_W if p.colorbar else 0)
                     for p, b in zip(self.panels, g.boxes, strict=True)) + 12
            out["legend"] = {"x": fx(x0), "y": fy(g.boxes[0][2]), "xanchor": "left",
                             "yanchor": "top", "orientation": "v", "xref": "paper",
                             "yref": "paper", "bgcolor": "rgba(255,255,255,0)"}
        colorbars = {}
        for i, (panel, (x0, x1, y0, y1)) in enumerate(zip(self.panels, g.boxes, strict=True)):
            n = "" if i == 0 else str(i + 1)
            domain_x, domain_y = [_unit(fx(x0)), _unit(fx(x1))], [_unit(fy(y1)), _unit(fy(y0))]
            if panel.kind == "scene":
                out[f"scene{n}"] = {"domain": {"x": domain_x, "y": domain_y}}
            else:
                out[f"xaxis{n}"] = {"domain": domain_x}
                out[f"yaxis{n}"] = {"domain": domain_y}
                if panel.shared_y:
                    out[f"yaxis{n}"]["showticklabels"] = i in first
            if panel.title:
                out["annotations"].append({
                    "text": panel.title, "showarrow": False, "xref": "paper", "yref": "paper",
                    "x": fx((x0 + x1) / 2), "y": fy(y0 - 6), "xanchor": "center",
                    "yanchor": "bottom", "font": PANEL_TITLE_FONT})
            if panel.legend:
                out[f"legend{n}"] = {"x": fx(x0), "y": fy(y1 + self.axis_h),
                                     "xanchor": "left", "yanchor": "top", "orientation": "v",
                                     "xref": "paper", "yref": "paper",
                                     "bgcolor": "rgba(255,255,255,0)"}
            if panel.note:
                out["annotations"].append({
                    "text": panel.note, "showarrow": False, "xref": "paper", "yref": "paper",
                    "x": fx(x0), "y": fy(y1 + self.axis_h + self._legend_h(panel.legend)),
                    "xanchor": "left", "yanchor": "top", "align": "left", "font": NOTE_FONT})
            if panel.colorbar:
                colorbars[i] = {"x": fx(x1 + 12), "xref": "paper", "xanchor": "left",
                                "y": fy((y0 + y1) / 2), "yref": "paper", "yanchor": "middle",
                                "len": (y1 - y0) / ph, "lenmode": "fraction", "thickness": 14}
        return out, colorbars


def _unit(fraction):
    """A paper fraction for a domain, in [0, 1] despite rounding."""
    return min(1.0, max(0.0, round(fraction, 6)))
