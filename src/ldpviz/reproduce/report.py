"""Self-contained HTML reports: one file that opens offline and references nothing outside it.

:class:`HtmlReport` collects headings, paragraphs, tables, plotly figures, images and a list of
choices, and writes one HTML file. plotly.js is embedded once, inline (no CDN); images are
``data:`` URIs; the style sheet is inline. Nothing in the page loads a URL, so it can be mailed
or archived as is. The what-if report (:mod:`ldpviz.reproduce.whatif_report`) uses it; a
reproduction report can do the same::

    report = HtmlReport("Figure 2, reproduced")
    report.heading("Panel (a)")
    report.figure(plotly_figure)
    report.table(frame)
    report.choices({"replications": 50, "seed": 0})
    report.write("report.html")
"""

from __future__ import annotations

import base64
import io
import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from .._safe_text import html_text as _escape
from ..viz.axis_ticks import log_ticks

__all__ = ["HtmlReport", "readable_print"]

FONT_SIZE = 13  # px: the smallest base font of a report's figures

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0 auto;
       max-width: 1100px; padding: 1.5em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { font-size: 1.25em; margin-top: 1.6em;
  border-bottom: 1px solid #ddd; } h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
caption { caption-side: top; text-align: left; font-style: italic; padding-bottom: 0.3em; }
.note { color: #555; font-size: 0.92em; } .warning { background: #fff4e5;
  border-left: 4px solid #e69f00; padding: 0.4em 0.8em; }
.answer { background: #eef6fb; border-left: 4px solid #0072b2; padding: 0.4em 0.8em;
  margin: 0.4em 0; } ul.answer, ul.warning, ul.note { padding-left: 2.2em; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }
dt { font-weight: 600; } dd { margin: 0; overflow-wrap: anywhere; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; white-space: pre-wrap; }
img { max-width: 100%; } .figure { width: 100%; min-height: 420px; }
.scroll { overflow-x: auto; max-width: 100%; }
table.auto td { text-align: left; } table.auto td.num { text-align: right; }
table.compact { font-size: 0.85em; } table.compact th, table.compact td { padding: 0.2em 0.35em; }
td.best { font-weight: 700; } td.paper, tr.paper td { color: #555; font-style: italic; }
td.higher { background: #fde0dd; } td.lower { background: #e5f5e0; }
td.agrees { background: #e5f5e0; } td.differs { background: #fde0dd; }
nav ol { columns: 2; } .legend span { padding: 0 0.4em; }
"""


class HtmlReport:
    """An HTML page built block by block; :meth:`render` gives one self-contained string."""

    def __init__(self, title, subtitle=None):
        self.title = str(title)
        self.blocks = []
        self._plotly = False
        if subtitle:
            self.paragraph(subtitle, kind="note")

    def heading(self, text, level=2, anchor=None):
        """A heading; ``anchor`` gives it an id that :meth:`contents` can link to."""
        ident = f' id="{_escape(anchor)}"' if anchor else ""
        self.blocks.append(f"<h{level}{ident}>{_escape(text)}</h{level}>")

    def contents(self, items, title="Contents"):
        """A list of links to anchors in the page: ``items`` is a list of (anchor, text)."""
        links = "".join(f'<li><a href="#{_escape(a)}">{_escape(t)}</a></li>' for a, t in items)
        self.blocks.append(f"<nav><strong>{_escape(title)}</strong><ol>{links}</ol></nav>")

    def paragraph(self, text, kind=None):
        """A paragraph of plain text; ``kind`` "note", "warning" or "answer" styles it."""
        cls = f' class="{kind}"' if kind else ""
        self.blocks.append(f"<p{cls}>{_escape(text)}</p>")

    def bullets(self, items, kind=None):
        cls = f' class="{kind}"' if kind else ""
        body = "".join(f"<li>{_escape(item)}</li>" for item in items)
        self.blocks.append(f"<ul{cls}>{body}</ul>")

    def table(self, frame, caption=None, index=False, float_format="{:.3g}", classes=None,
              align="right", compact=False):
        """A DataFrame as an HTML table (values escaped; floats formatted).

        ``classes``: an array-like of the shape of the table as shown (after ``index``)
        holding CSS class names per cell ("" or None for none), e.g. "best", "higher",
        "lower", "paper", "agrees", "differs" (styled in :data:`STYLE`). ``align``: "right"
        (every column but the first) or "auto" (numbers right, text left). ``compact``:
        smaller type and padding, for wide tables.
        """
        frame = frame.reset_index() if index else frame
        head = "".join(f"<th>{_escape(c)}</th>" for c in frame.columns)
        marks = None if classes is None else pd.DataFrame(classes).to_numpy(dtype=object)
        if marks is not None and marks.shape != frame.shape:
            raise ValueError(f"classes must have the table's shape {frame.shape}, got "
                             f"{marks.shape}.")
        rows = []
        for i, values in enumerate(frame.itertuples(index=False)):
            cells = []
            for j, v in enumerate(values):
                text = _cell(v, float_format)
                names = [None if marks is None else marks[i, j],
                         "num" if align == "auto" and _numeric(text) else None]
                cells.append(f"<td{_class(' '.join(n for n in names if n))}>"
                             f"{_escape(text)}</td>")
            rows.append("<tr>" + "".join(cells) + "</tr>")
        cap = f"<caption>{_escape(caption)}</caption>" if caption else ""
        kinds = " ".join(k for k, on in (("auto", align == "auto"), ("compact", compact)) if on)
        self.blocks.append(f'<div class="scroll"><table{_class(kinds)}>{cap}<thead><tr>{head}'
                           "</tr></thead><tbody>" + "".join(rows) + "</tbody></table></div>")

    def figure(self, fig, caption=None):
        """A plotly Figure, drawn by the plotly.js embedded once in the page: its text at least
        ``FONT_SIZE`` px, its log axes labelled with readable values (:func:`readable_print`)."""
        self._plotly = True
        # plotly's own encoder; then no <, > or & at all inside the script element (they can
        # only sit in JSON strings, where \u003c, \u003e and \u0026 mean the same).
        spec = readable_print(fig).to_json().replace("<", "\\u003c").replace(">", "\\u003e") \
            .replace("&", "\\u0026")

        div = f"fig{len(self.blocks)}"
        config = json.dumps({"displaylogo": False, "responsive": True, "showLink": False,
                             "showSendToCloud": False, "showEditInChartStudio": False})
        self.blocks.append(
            f'<div id="{div}" class="figure"></div><script>(function() {{ var f = {spec}; '
            f'Plotly.newPlot("{div}", f.data, f.layout, {config}); }})();</script>'
            + (f'<p class="note">{_escape(caption)}</p>' if caption else ""))

    def image(self, fig_or_png, alt="figure", caption=None, dpi=110):
        """A matplotlib Figure (or PNG bytes) as an inline ``data:`` image."""
        if isinstance(fig_or_png, (bytes, bytearray)):
            png = bytes(fig_or_png)
        else:
            buffer = io.BytesIO()
            fig_or_png.savefig(buffer, format="png", dpi=dpi)
            png = buffer.getvalue()
        data = base64.b64encode(png).decode("ascii")
        self.blocks.append(f'<img alt="{_escape(alt)}" src="data:image/png;base64,{data}">'
                           + (f'<p class="note">{_escape(caption)}</p>' if caption else ""))

    def choices(self, mapping):
        """A definition list: every choice made, so that the run can be repeated."""
        items = "".join(f"<dt>{_escape(k)}</dt><dd>{_escape(_value(v))}</dd>"
                        for k, v in mapping.items())
        self.blocks.append(f"<dl>{items}</dl>")

    def code(self, text):
        self.blocks.append(f"<pre>{_escape(text)}</pre>")

    def render(self):
        """The whole page as one string."""
        script = ""
        if self._plotly:
            from plotly.offline import get_plotlyjs

            script = f"<script>{get_plotlyjs()}</script>"
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                f"<title>{_escape(self.title)}</title><style>{STYLE}</style>{script}</head>"
                f"<body><h1>{_escape(self.title)}</h1>" + "\n".join(self.blocks)
                + f'<p class="note">Written by ldpviz on {stamp}; this page is self-contained '
                "and works offline.</p></body></html>\n")

    def write(self, path):
        path = Path(path)
        path.write_text(self.render(), encoding="utf-8")
        return path


def readable_print(fig):
    """A copy of a plotly figure legible in a report: its base font at least ``FONT_SIZE`` px,
    and every log axis without ticks of its own labelled at readable values (1, 0.5, 0.2, 0.1
    or powers of ten, :func:`ldpviz.viz.axis_ticks.log_ticks`), not plotly's stray mantissas ("2, 1,
    5, 2, 0.1, 5", smaller than the rest)."""
    fig = go.Figure(fig)
    if (fig.layout.font.size or 0) < FONT_SIZE:
        fig.update_layout(font_size=FONT_SIZE)
    for name in [k for k in fig.layout if k.startswith(("xaxis", "yaxis"))]:
        axis = fig.layout[name]
        if axis.type != "log" or axis.tickvals is not None:
            continue
        letter, ref = name[0], name[0] + name[5:]  # xaxis2 -> x, x2
        values = [v for trace in fig.data if (trace[f"{letter}axis"] or letter) == ref
                  for v in np.ravel(np.asarray(trace[letter], dtype=object))
                  if isinstance(v, (int, float, np.number)) and np.isfinite(v) and v > 0]
        if values:
            ticks, text = log_ticks(values)
            axis.update(tickmode="array", tickvals=ticks, ticktext=text, dtick=None)
    return fig


def _numeric(text):
    """A cell that reads as a number ("1.47*", "-0.3", "+12% ± 4%", "4 of 4")."""
    text = str(text).strip()
    return bool(text) and (text[0].isdigit() or (text[0] in "+-." and len(text) > 1
                                                 and (text[1].isdigit() or text[1] == ".")))


def _class(name):
    return f' class="{_escape(name)}"' if isinstance(name, str) and name else ""


def _cell(value, float_format):
    if isinstance(value, float):
        return "" if pd.isna(value) else float_format.format(value)
    return "" if value is None else value


def _value(value):
    if isinstance(value, (list, tuple)):
        return ", ".join(_value(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_value(v)}" for k, v in value.items())
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
