r"""Text from a user's table made inert for each kind of output.

A column name, a category or a file name comes from whoever wrote the table; the outputs are
opened by someone else, in a spreadsheet, a browser, a markdown viewer or as a figure. Each
function here returns what that output shows literally, never a formula, a link, markup or
math:

* :func:`csv_cell`, :func:`csv_frame`, :func:`write_csv`: OWASP's guidance on CSV
  injection. A text cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
  return (also after leading spaces, and the full-width forms of the four signs) gets a
  leading apostrophe, so a spreadsheet reads it as text. Numbers, and text that is a plain
  decimal number such as ``"-3.5"``, stay numbers.
* :func:`html_text`: HTML-escaped (``<``, ``>``, ``&`` and both quotes).
* :func:`plotly_text`: plotly draws a subset of HTML in every label, title, legend, tick and
  hover text (``<a href>``, ``<b>``, ``<span style>``, ``<br>``) and decodes entities after
  parsing the tags; where MathJax is loaded (JupyterLab) it typesets ``$...$``. ``<``, ``>``
  and ``&`` become entities and ``$`` becomes ``&#36;``, which plotly decodes back to ``$``
  for display after its TeX check.
* :func:`markdown_text`: markdown's inline punctuation (with ``<``, ``>`` and ``&``)
  backslash-escaped, so a ``|`` does not end a table cell, and no link, image, emphasis, code,
  math, entity, raw HTML or link to a bare URL is made; a line break is shown as ``\n``.
* :func:`mpl_text`: ``$`` escaped as ``\$``, so matplotlib never parses mathtext from data.
"""

from __future__ import annotations

import html
import re

import pandas as pd

__all__ = ["csv_cell", "csv_frame", "html_text", "markdown_text", "mpl_text", "plotly_text",
           "write_csv"]

#: First characters a spreadsheet may read as the start of a formula (OWASP), with the
#: full-width forms of the signs (some spreadsheets in East Asian locales read those too).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
#: Markdown's inline punctuation: code, emphasis, links and images, tables, strikethrough, math,
#: raw HTML and entities, and what GitHub's and JupyterLab's renderers turn into links (the
#: ":" of "https://", the "@" of an e-mail address, the "." of "www."). A backslash before any
#: ASCII punctuation shows it literally (CommonMark 2.4), which every renderer honours
#: (entities are not decoded by all of them).
_MARKDOWN = re.compile(r"([\\`*_\[\]{}|~$<>&:@])|(?<=www)(\.)", re.IGNORECASE)


def csv_cell(value):
    """``value`` as a CSV cell no spreadsheet runs: text that would start a formula gets a
    leading apostrophe; anything that is not text, and text that is a plain number, is
    returned unchanged."""
    if not isinstance(value, str):
        return value
    start = value.lstrip(" ")
    if not start.startswith(FORMULA_START) or _PLAIN_NUMBER.fullmatch(value.strip()):
        return value
    return "'" + value


def csv_frame(frame):
    """A copy of ``frame`` whose text cells and column names pass through :func:`csv_cell`
    (numeric columns are left alone: a negative number stays a number)."""
    out = frame.copy()
    for column in out.columns:
        if not (pd.api.types.is_numeric_dtype(out[column])
                or pd.api.types.is_bool_dtype(out[column])):
            out[column] = out[column].map(csv_cell)
    out.columns = [csv_cell(c) for c in out.columns]
    return out


def write_csv(frame, path):
    """Write ``frame`` (without its index) as a CSV file no spreadsheet runs a cell of
    (:func:`csv_frame`), lines ending in CRLF as RFC 4180 has them: then a carriage return or
    a line break inside a name is quoted with its cell instead of ending the row."""
    csv_frame(frame).to_csv(path, index=False, lineterminator="\r\n")
    return path


def html_text(value):
    """``value`` as text for HTML (element content or a quoted attribute)."""
    return html.escape(str(value), quote=True)


def plotly_text(value):
    """``value`` as plotly shows it literally (see the module docstring)."""
    return html.escape(str(value), quote=False).replace("$", "&#36;")


def markdown_text(value):
    """``value`` as markdown (CommonMark, GitHub's) shows it literally, also in a table cell."""
    text = _MARKDOWN.sub(lambda m: "\\" + m[0], str(value))
    return text.replace("\r\n", "\\n").replace("\r", "\\n").replace("\n", "\\n")


def mpl_text(value):
    """``value`` as matplotlib draws it literally (no mathtext)."""
    return str(value).replace("$", r"\$")
