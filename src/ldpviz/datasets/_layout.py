"""How a CSV file is laid out before any value is read: is it text at all, which separator,
where the header is, and on which line of the file each row starts (for messages).

* A workbook, an archive or any other binary file is named for what it is (an .xlsx is a zip
  file: read as text its first "column" was ``PK\\x03\\x04...``), with how to save it as CSV.
* Excel's "CSV" may start with a ``sep=;`` line naming the separator: it is honoured and
  skipped. Blank lines before the header are skipped (pandas skips blank lines anyway; the
  header must be the first line that is not blank).
* Rows are numbered by their line in the file (the header of a plain file is line 1), counted
  only when a message needs them.
"""

from __future__ import annotations

import csv
import re
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

#: Text encoding of the CSVs read: UTF-8, where the byte-order mark Excel's "CSV UTF-8" writes
#: first is dropped (read as plain UTF-8 it is glued to the first column's name).
ENCODING = "utf-8-sig"
SEPARATORS = (",", ";", "\t", "|")
_SAVE_AS = ("ldpviz reads CSV text only: open it in its program and save it as CSV UTF-8 "
            "(Excel: File > Save As > CSV UTF-8)")
#: Leading bytes of files that are not text, and what they are.
_MAGIC = (
    (b"PK\x03\x04", "a zip archive (an Excel .xlsx or OpenDocument .ods workbook is one)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Excel workbook (.xls)"),
    (b"%PDF", "a PDF document"),
    (b"\x1f\x8b", "a gzip-compressed file (uncompress it first)"),
    (b"PAR1", "a Parquet file (pandas.read_parquet reads it)"),
    (b"\x89HDF", "an HDF5 file"),
    (b"SQLite format 3\x00", "an SQLite database"),
)
_UTF16 = (b"\xff\xfe", b"\xfe\xff")
_SEP_LINE = re.compile(r'^\s*"?sep=(.)"?\s*$')


@contextmanager
def utf8_errors(path, what=None):
    """Within the block, a UnicodeDecodeError reading ``path`` becomes a ValueError naming the
    file (``what``, default its name) and where its first byte that is not UTF-8 is."""
    try:
        yield
    except UnicodeDecodeError as exc:
        raise ValueError(f"{what or Path(path).name} is not a UTF-8 text file ({exc.reason} at "
                         f"byte {exc.start}); save it as CSV (UTF-8).") from None


def check_text_file(path, what=None):
    """Refuse a file that is not text (a workbook, an archive, UTF-16, anything holding a NUL
    byte) with a ValueError naming it (``what``, default its name) and what it is."""
    what = what or Path(path).name
    with open(path, "rb") as handle:
        head = handle.read(8192)
    kind = next((name for magic, name in _MAGIC if head.startswith(magic)), None)
    if kind is None and head.startswith(_UTF16):
        raise ValueError(f"{what} is UTF-16 text; save it as CSV UTF-8 (Excel: File > Save As > "
                         "CSV UTF-8).")
    nul = head.find(b"\x00")
    if kind is None and nul >= 0:
        kind = f"binary data (a NUL byte at byte {nul})"
    if kind is not None:
        raise ValueError(f"{what} is not a CSV file: it is {kind}; {_SAVE_AS}.")


class Layout(NamedTuple):
    """Where the table starts. sep: the separator; skip: lines pandas must skip first (Excel's
    ``sep=`` line); header: the column names (stripped); header_line: its line in the file."""

    sep: str
    skip: int
    header: list
    header_line: int


def is_blank(record):
    """A record pandas skips: an empty line or one of spaces (``skip_blank_lines``)."""
    return not record or (len(record) == 1 and not record[0].strip())


def read_layout(path, sep=None, lines=20):
    """The :class:`Layout` of the CSV at ``path``. ``sep`` None: the ``sep=`` line's, else the
    one of :data:`SEPARATORS` that splits the first ``lines`` lines into the same number (> 1)
    of fields (a file none splits has one column); a ``sep`` that contradicts the file's
    ``sep=`` line is refused."""
    with open(path, encoding=ENCODING, newline="") as handle:
        first = handle.readline()
        declared = _SEP_LINE.match(first.rstrip("\r\n"))
        skip = 1 if declared else 0
        if declared and sep is not None and sep != declared[1]:
            raise ValueError(f"sep={sep!r}, but the first line of {Path(path).name} declares "
                             f"{first.rstrip(chr(13) + chr(10))!r} (Excel's separator line); "
                             f"pass sep={declared[1]!r} or leave sep out.")
        handle.seek(0)
        for _ in range(skip):
            handle.readline()
        text = [line for _, line in zip(range(lines), handle, strict=False) if line.strip()]
    sep = declared[1] if declared else sep if sep is not None else _sniff(text)
    with open(path, encoding=ENCODING, newline="") as handle:
        reader = csv.reader(handle, delimiter=sep)
        header, line = [], 0
        for record in reader:
            if reader.line_num > skip and not is_blank(record):
                header, line = [c.strip() for c in record], reader.line_num
                break
    return Layout(sep, skip, header, line)


def _sniff(lines):
    best, best_fields = ",", 1
    for sep in SEPARATORS:
        counts = {len(row) for row in csv.reader(lines, delimiter=sep)}
        if len(counts) == 1 and (fields := counts.pop()) > best_fields:
            best, best_fields = sep, fields
    return best


def sniff_separator(path, lines=20):
    """The separator of the CSV at ``path`` (:func:`read_layout`)."""
    return read_layout(path, None, lines).sep


class RowLines:
    """The line of the file where each data row starts, counted on first use (one pass of the
    csv module over the file): ``lines[i]`` for row i. Blank lines, the ``sep=`` line and rows
    spanning several lines (quoted line breaks) are accounted for."""

    def __init__(self, path, layout):
        self.path, self.layout, self._starts = path, layout, None

    def __getitem__(self, row):
        if self._starts is None:
            self._starts = []
            with open(self.path, encoding=ENCODING, newline="") as handle:
                reader = csv.reader(handle, delimiter=self.layout.sep)
                before = 0
                for record in reader:
                    if before >= self.layout.header_line and not is_blank(record):
                        self._starts.append(before + 1)
                    before = reader.line_num
        return self._starts[row]
