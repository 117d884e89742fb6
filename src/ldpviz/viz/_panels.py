"""The geometry of a figure's panels: where each plot, title, legend and colour bar goes at
a given width, in pixels, so that nothing overlaps at any width."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

PANEL_TITLE_FONT = {"size": 15}


# ----------------------------------------------------------------------------------------------
# Panels of a figure, in rows
# ----------------------------------------------------------------------------------------------
@dataclass
class Panel:
    """One subplot: ``kind`` "xy" (axes ``xaxis{n}``) or "scene" (3-D), its share of a row
    (``weight``), a ``height`` in px (None: as tall as the row, ``stacked_height`` when
    stacked) or ``square``, the number of entries of its own ``legend`` (drawn below it) and
    whether a colour bar stands to its right."""

    title: str = ""
    kind: str = "xy"
    weight: float = 1.0
    height: int | None = 330
    square: bool = False
    legend: int = 0
    colorbar: bool = False
    min_width: int = 230
    stacked_height: int = 240
    note: str = ""  # lines (joined by <br>) written below the panel's legend
    gap: int | None = None  # px to the next panel when side by side (None: room for y labels)
    shared_y: bool = False  # unless first in its row, its y labels are those to its left


class Panels:
    """The geometry of a figure's panels at a given width (all sizes in CSS pixels).

    In as few rows as give every panel at least its ``min_width`` (see :meth:`rows`): side by
    side, wrapped (3 panels: 2 + 1) or stacked one per row. Each panel block is, from the top:
    its title, the plot, the x-axis ticks and title, its legend and note; a row is as tall as
    its tallest panel. ``legend`` > 0 adds one legend for the whole figure below everything,
    its entries in as many columns as fit. Returns plotly layout updates, so the same figure
    reflows in place.
    """

    TITLE_H = 34  # a panel title above the plot
    AXIS_H = 62  # x tick labels and x-axis title below the plot
    LEGEND_ROW = 23
    NOTE_LINE = 19
    LEGEND_COLUMN = 330  # px per entry of the figure-wide legend
    GAP_X = 95  # y tick labels and y-axis title of the next panel
    COLORBAR_W = 100  # bar, its tick labels and its title
    LEFT, RIGHT, TOP, BOTTOM = 80, 20, 56, 8
    MAX_SQUARE = 460

    TICK_LINE = 17  # each extra line of x tick labels (a label with <br>)

    def __init__(self, panels, legend=0, axis_titles=True, tick_lines=1):
        self.panels = list(panels)
        self.legend = legend
        self.axis_h = (self.AXIS_H if axis_titles else 30) + self.TICK_LINE * (tick_lines - 1)

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
        return row + [Panel(weight=weight, height=None, min_width=0)] * (slots - len(row))

    def _fits(self, width, row, slots):
        row = self._padded(row, slots)
        return all(s >= p.min_width for s, p in zip(self._shares(width, row), row, strict=True))

    def rows(self, width):
        """The panels' indices, row by row: the fewest rows in which every panel gets its
        ``min_width``, balanced (3 panels: 2 + 1, the short rows last and left-aligned);
        one panel per row when no two fit side by side."""
        n = len(self.panels)
        for count in range(1, n):
            sizes = [n // count + (i < n % count) for i in range(count)]
            starts = list(itertools.accumulate(sizes, initial=0))
            rows = [list(range(a, b)) for a, b in itertools.pairwise(starts)]
            if all(self._fits(width, [self.panels[i] for i in row], sizes[0]) for row in rows):
                return rows
        return [[i] for i in range(n)]

    def first_in_row(self, width):
        """Indices of the panels that start a row (their y tick labels are shown)."""
        return {row[0] for row in self.rows(int(width))}

    def _legend_h(self, entries, columns=1):
        rows = -(-entries // columns)
        return self.LEGEND_ROW * rows + 12 if entries else 0

    def _below(self, panel):
        """Height of what goes below a panel's x axis: its legend and its note."""
        lines = panel.note.count("<br>") + 1 if panel.note else 0
        return self._legend_h(panel.legend) + self.NOTE_LINE * lines

    def legend_columns(self, width):
        return max(1, int((width - self.LEFT - self.RIGHT) // self.LEGEND_COLUMN))

    def boxes(self, width):
        """Each panel's plot box (x0, x1, y0, y1) in px from the top left, and the bottom of
        the panels (where a figure-wide legend starts)."""
        width = int(width)
        rows = self.rows(width)
        if len(rows) == len(self.panels) > 1:
            return self._stacked(width)
        boxes, y = [], self.TOP
        for row in rows:
            panels = self._padded([self.panels[i] for i in row], len(rows[0]))
            row_boxes, y = self._row(width, panels, y)
            boxes += row_boxes[:len(row)]
            y += 14
        return boxes, y - 14

    def _row(self, width, row, top):
        """Plot boxes of one row of panels whose titles start at ``top``, and the row's bottom:
        as tall as its tallest panel, squares as wide as the narrowest share (MAX_SQUARE at
        most) and centred together."""
        shares = self._shares(width, row)
        squares = [s for s, p in zip(shares, row, strict=True) if p.square]
        side = min([*squares, self.MAX_SQUARE]) if squares else None
        fixed = [side if p.square else p.height for p in row]
        height = max([h for h in fixed if h] or [330])
        spare = sum(s - side for s, p in zip(shares, row, strict=True) if p.square)
        x, boxes = self.LEFT + spare / 2, []
        top += self.TITLE_H
        for share, panel, h in zip(shares, row, fixed, strict=True):
            w = side if panel.square else share
            boxes.append((x, x + w, top, top + (h or height)))
            x += w + self._gap(panel)
        return boxes, top + height + self.axis_h + max(self._below(p) for p in row)

    def _stacked(self, width):
        y, boxes = self.TOP, []
        for panel in self.panels:
            cbar = self.COLORBAR_W if panel.colorbar else 0
            w = width - self.LEFT - self.RIGHT - cbar
            if panel.square:
                w = min(w, self.MAX_SQUARE)
            h = w if panel.square else panel.height or panel.stacked_height
            y += self.TITLE_H
            boxes.append((self.LEFT, self.LEFT + w, y, y + h))
            y += h + self.axis_h + self._below(panel) + 14
        return boxes, y - 14

    def layout(self, width):
        """(layout updates, colour-bar updates per panel index) for a figure ``width`` px wide."""
        width = int(width)
        boxes, bottom = self.boxes(width)
        first = self.first_in_row(width)
        columns = self.legend_columns(width)
        height = bottom + self._legend_h(self.legend, columns) + self.BOTTOM
        pw, ph = width - self.LEFT - self.RIGHT, height - self.TOP - self.BOTTOM

        def fx(px):  # pixels from the left edge -> paper fraction
            return (px - self.LEFT) / pw

        def fy(px):  # pixels from the top edge -> paper fraction (0 at the bottom)
            return 1 - (px - self.TOP) / ph

        out = {"width": width, "height": round(height), "autosize": False,
               "margin": {"l": self.LEFT, "r": self.RIGHT, "t": self.TOP, "b": self.BOTTOM},
               "annotations": [], "title": {"x": 12 / width, "xref": "container",
                                            "xanchor": "left", "y": 1 - 14 / height,
                                            "yanchor": "top"}}
        if self.legend:
            out["legend"] = {"x": 0, "y": fy(bottom), "xanchor": "left", "yanchor": "top",
                             "orientation": "h", "entrywidth": 1 / columns,
                             "entrywidthmode": "fraction", "xref": "paper", "yref": "paper",
                             "bgcolor": "rgba(255,255,255,0)"}
        colorbars = {}
        for i, (panel, (x0, x1, y0, y1)) in enumerate(zip(self.panels, boxes, strict=True)):
            n = "" if i == 0 else str(i + 1)
            domain_x, domain_y = [fx(x0), fx(x1)], [fy(y1), fy(y0)]
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
                    "x": fx((x0 + x1) / 2), "y": fy(y0 - 10), "xanchor": "center",
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
                    "xanchor": "left", "yanchor": "top", "align": "left",
                    "font": {"size": 13, "color": "#333333"}})
            if panel.colorbar:
                colorbars[i] = {"x": fx(x1 + 14), "xref": "paper", "xanchor": "left",
                                "y": fy((y0 + y1) / 2), "yref": "paper", "yanchor": "middle",
                                "len": (y1 - y0) / ph, "lenmode": "fraction", "thickness": 16}
        return out, colorbars
