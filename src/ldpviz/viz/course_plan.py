"""How long each section of the course takes to teach, derived from the notebooks themselves.

The lecture plan of ``00_index`` is not a guess: each section's class time follows from its
length at a stated pace (:data:`PACE`), so when a notebook grows the plan's arithmetic (and the
test that recomputes it) notices.

* **Sections** are the notebook's ``## `` headings; the cells before the first one are the
  ``opening``. A heading ending in ``*(optional)*`` marks a section a short course may skip.
* **Class time** of a section: its markdown words (``wc -w`` words, formulas included) outside
  the collapsible answers (``<details>`` blocks) at ``words_per_minute``, plus
  ``code_cell`` minutes per code cell a student sees run (hidden ``solution`` cells excluded)
  and ``explorer`` minutes per live explorer instead of ``code_cell``.
* The ``Exercises`` section is homework: it has no class time; its ``alone`` time counts
  ``exercise`` minutes per exercise plus the words of its answers.
* **Alone** (a student working through the notebook): every word, answers included, at the same
  pace, ``alone_code_cell`` per code cell, ``alone_explorer`` per explorer and ``exercise`` per
  exercise.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

OPTIONAL_MARK = "*(optional)*"
_DETAILS = re.compile(r"<details>.*?</details>", re.DOTALL)
_EXPLORER = re.compile(r"\b\w+_explorer\(")
_EXERCISE = re.compile(r"^\*\*Exercise\s+\d+", re.MULTILINE)
_NUMBERED = re.compile(r"^(\d+[a-z]?)\.\s")


@dataclass(frozen=True)
class Pace:
    """A lecture's pace (minutes), stated once for the whole plan.

    100 words a minute is slower than speech (130-150) because projected prose with formulas
    and tables is read and explained with the class, not recited.
    """

    words_per_minute: float = 100.0
    code_cell: float = 1.5  # run it, read its output or figure with the class
    explorer: float = 6.0  # guided questions, a few slider moves each
    alone_code_cell: float = 2.0
    alone_explorer: float = 10.0
    exercise: float = 10.0


PACE = Pace()


def _words(text):
    return sum(1 for token in text.split() if re.search(r"\w", token))


def _new_section(title, optional):
    return {"key": _section_key(title), "title": title, "optional": optional, "words": 0,
            "answer_words": 0, "code_cells": 0, "hidden_solutions": 0, "explorers": 0,
            "exercises": 0}


def _split_at_headings(source):
    """(heading or None, text) pieces of a markdown cell, split at its ``## `` lines (the
    heading's own words are part of its text)."""
    pieces, heading, lines = [], None, []
    for line in source.splitlines():
        match = re.match(r"^##\s+(?!#)(.+)$", line)
        if match:
            if lines or heading is not None:
                pieces.append((heading, "\n".join(lines)))
            heading, lines = match.group(1).strip(), []
        lines.append(line)
    pieces.append((heading, "\n".join(lines)))
    return pieces


def _section_key(title):
    """"3" for "3. The partition", "2b" for "2b. ...", else the title in lower case."""
    match = _NUMBERED.match(title)
    return match.group(1) if match else title.lower()


def notebook_sections(path, pace=PACE):
    """One row per ``##`` section of a notebook, with what it contains and how long it takes.

    Parameters
    ----------
    path : str or pathlib.Path
        A course notebook (``.ipynb``).
    pace : Pace

    Returns
    -------
    pandas.DataFrame
        Indexed by section key ("opening", "1", "2b", ..., "exercises", ...) in notebook order,
        with ``title``, ``optional``, ``homework`` (the Exercises section), ``words`` (shown
        in class), ``answer_words``, ``code_cells``, ``explorers``, ``exercises``,
        ``class_minutes`` and ``alone_minutes`` (floats).
    """
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    sections = [_new_section("opening", False)]
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            for heading, text in _split_at_headings(source):
                if heading is not None:
                    optional = heading.endswith(OPTIONAL_MARK)
                    sections.append(_new_section(heading.removesuffix(OPTIONAL_MARK).strip(),
                                                 optional))
                current = sections[-1]
                current["answer_words"] += sum(_words(a) for a in _DETAILS.findall(text))
                current["words"] += _words(_DETAILS.sub(" ", text))
                current["exercises"] += len(_EXERCISE.findall(text))
        else:
            current = sections[-1]
            if "solution" in cell.get("metadata", {}).get("tags", ()):
                current["hidden_solutions"] += 1
            elif _EXPLORER.search(source):
                current["explorers"] += 1
            else:
                current["code_cells"] += 1
    table = pd.DataFrame(sections).set_index("key")
    if table.index.duplicated().any():
        raise ValueError(f"{Path(path).name}: two sections share a key: "
                         f"{sorted(set(table.index[table.index.duplicated()]))}")
    table["homework"] = table["exercises"] > 0
    shown = (table["words"] / pace.words_per_minute + table["code_cells"] * pace.code_cell
             + table["explorers"] * pace.explorer)
    table["class_minutes"] = shown.where(~table["homework"], 0.0)
    table["alone_minutes"] = (
        (table["words"] + table["answer_words"]) / pace.words_per_minute
        + (table["code_cells"] + table["hidden_solutions"]) * pace.alone_code_cell
        + table["explorers"] * pace.alone_explorer + table["exercises"] * pace.exercise)
    return table.drop(columns="hidden_solutions")


def section_range(table, first, last=None):
    """The section keys from ``first`` to ``last`` (inclusive) in notebook order."""
    keys = list(table.index)
    for key in (first, last or first):
        if key not in keys:
            raise ValueError(f"no section {key!r}; the sections are {keys}")
    lo, hi = keys.index(first), keys.index(last or first)
    if hi < lo:
        raise ValueError(f"section {last!r} comes before {first!r}")
    return keys[lo:hi + 1]


def minutes(table, keys):
    """Class minutes of the given sections, rounded up to a whole minute."""
    return math.ceil(table.loc[list(keys), "class_minutes"].sum() - 1e-9)


def course_table(notebook_dir, pace=PACE):
    """Per notebook of ``notebook_dir`` (``NN_*.ipynb``): class minutes with and without the
    optional sections, and the time alone.

    Returns
    -------
    pandas.DataFrame
        Indexed by the two-digit prefix, with ``notebook``, ``class (all sections)``,
        ``class (optional skipped)``, ``alone`` (whole minutes, rounded up) and
        ``optional sections``.
    """
    rows = []
    for path in sorted(Path(notebook_dir).glob("[0-9][0-9]_*.ipynb")):
        table = notebook_sections(path, pace)
        optional = table.index[table["optional"]]
        rows.append({"nb": path.name[:2], "notebook": path.stem,
                     "class (all sections)": minutes(table, table.index),
                     "class (optional skipped)": minutes(table, table.index.difference(
                         optional, sort=False)),
                     "alone": math.ceil(table["alone_minutes"].sum()),
                     "optional sections": ", ".join(f"§{k}" for k in optional) or "none"})
    return pd.DataFrame(rows).set_index("nb")


_SPEC = re.compile(r"^(?P<nb>\d\d)\s+(?:(?P<all>all)|§(?P<first>\w+)(?:[–-]§?(?P<last>\w+))?"
                   r"|Exercise\s+(?P<exercise>\d+))$")


def plan_sections(table, spec):
    """The sections a row of the plan covers, from its notebook-and-sections text.

    ``"02 §1–5"``: sections 1 to 5, with the notebook's opening when the range starts at its
    first numbered section and the take-away when it ends at its last; ``"01 all"``: every
    section but the exercises; ``"01 Exercise 1"``: no section (see :func:`plan_minutes`).
    """
    match = _SPEC.match(spec.strip())
    if not match:
        raise ValueError(f"plan row {spec!r}: write 'NN all', 'NN §a–b' or 'NN Exercise k'")
    if match["exercise"]:
        return []
    keys = list(table.index)
    if match["all"]:
        return [k for k in keys if not table.loc[k, "homework"]]
    numbered = [k for k in keys if _NUMBERED.match(f"{k}. ")]
    chosen = section_range(table, match["first"], match["last"])
    if chosen[0] == numbered[0]:
        chosen = keys[:keys.index(chosen[0])] + chosen  # the opening (and any setup)
    if chosen[-1] == numbered[-1]:
        after = keys[keys.index(chosen[-1]) + 1:]
        chosen += [k for k in after if not table.loc[k, "homework"]]  # the take-away
    return chosen


def plan_minutes(notebook_dir, spec, pace=PACE):
    """Class minutes of one row of the plan (``"02 §1–5"``, ``"01 all"``, ``"01 Exercise 1"``),
    rounded up to a whole minute; an exercise done in class takes ``pace.exercise``."""
    match = _SPEC.match(spec.strip())
    if not match:
        raise ValueError(f"plan row {spec!r}: write 'NN all', 'NN §a–b' or 'NN Exercise k'")
    (path,) = Path(notebook_dir).glob(f"{match['nb']}_*.ipynb")
    if match["exercise"]:
        return math.ceil(pace.exercise)
    table = notebook_sections(path, pace)
    return minutes(table, plan_sections(table, spec))
