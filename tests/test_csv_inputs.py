"""Your own CSV: what the file is, where its table starts, and messages that lead somewhere.

An .xlsx was read as text ("columns are ['PK\\x03\\x04garbage']"), blank lines before the header
gave "columns are []", Excel's 'sep=,' line became the only column, sep=',,' ended in pandas'
TypeError, an all-missing column's advice led to "fewer than 2 complete rows" (issue 32).
"""

import re

import numpy as np
import pytest
from _csv_tables import csv_of as _csv
from _csv_tables import text_file as _write
from _csv_tables import user_frame as _frame

from ldpviz.datasets import load_csv


@pytest.mark.parametrize(("head", "kind"), [
    (b"PK\x03\x04garbage\x00", r"a zip archive \(an Excel \.xlsx"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1rest", r"an old Excel workbook \(\.xls\)"),
    (b"%PDF-1.7\n", "a PDF document"),
    (b"\x1f\x8b\x08\x00", "a gzip-compressed file"),
    (b"PAR1\x15\x04", "a Parquet file"),
    (b"a,b,y\n1,2\x00,3\n", r"binary data \(a NUL byte at byte 9\)"),
])
def test_a_file_that_is_not_csv_text_is_named_for_what_it_is(tmp_path, head, kind):
    """An .xlsx was read as text: "target 'V14' is not a column ... columns are
    ['PK\\x03\\x04garbage']", without a word that only CSV is read."""
    path = tmp_path / "table.xlsx"
    path.write_bytes(head + b"\n1,2,3\n")
    with pytest.raises(ValueError, match=rf"^table\.xlsx is not a CSV file: it is {kind}.*"
                                         "ldpviz reads CSV text only: .*save it as CSV UTF-8"):
        load_csv(path, "V14")
    path.write_bytes("a,b,y\n1,2,3\n".encode("utf-16"))
    with pytest.raises(ValueError, match=r"^table\.xlsx is UTF-16 text; save it as CSV UTF-8"):
        load_csv(path, "y")


def _same_table(a, b):
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert a.feature_names == b.feature_names


@pytest.mark.parametrize("sep", [",", ";", "\t"])
def test_blank_lines_and_excel_separator_line_are_honoured(tmp_path, sep):
    """Two blank lines before the header gave "columns are []"; Excel's 'sep=,' first line
    became the only column name."""
    frame = _frame()
    text = frame.to_csv(index=False, sep=sep)
    plain = load_csv(_write(tmp_path, text, "plain.csv"), "cost", y_range=(-5, 15))
    for variant in ("\n\n" + text, f"sep={sep}\n" + text, f"sep={sep}\n\n  \n" + text,
                    f'"sep={sep}"\r\n' + text.replace("\n", "\r\n")):
        _same_table(load_csv(_write(tmp_path, variant, "v.csv"), "cost", y_range=(-5, 15)),
                    plain)
    # the header is line 4 here, so the typo on the fourth data row is on line 8
    rows = text.splitlines()
    rows[4] = rows[4].replace(rows[4].split(sep)[0], "12.5kg", 1)
    typo = _write(tmp_path, f"sep={sep}\n\n\n" + "\n".join(rows) + "\n", "typo.csv")
    with pytest.raises(ValueError, match=r"column 'income' should hold numbers but line 8 of "
                                         "typo.csv holds text, e.g. '12.5kg'"):
        load_csv(typo, "cost", y_range=(-5, 15))
    with pytest.raises(ValueError, match=r"^sep='\|', but the first line of v\.csv declares "
                                         + re.escape(repr(f"sep={sep}"))
                                         + r" \(Excel's separator line\)"):
        load_csv(_write(tmp_path, f"sep={sep}\n" + text, "v.csv"), "cost", sep="|")


def test_row_lines_count_blank_lines_and_quoted_line_breaks(tmp_path):
    path = _write(tmp_path, 'a,note,y\n1,x,1\n\n2,"two\nlines",2\n3,z,3\n4x,w,4\n')
    with pytest.raises(ValueError, match=r"column 'a' should hold numbers but line 7 of "
                                         r"data\.csv holds text, e.g\. '4x'"):
        load_csv(path, "y", y_range=(0, 5))


@pytest.mark.parametrize(("sep", "error", "match"), [
    (",,", ValueError, r"^sep must be one character such as ',', ';' or '\\t'.*got ',,'"),
    ("", ValueError, r"^sep must be one character"),
    ('"', ValueError, r"not a quote or a line break"),
    (1, TypeError, r"^sep must be one character such as ',' or ';', or None .* got 1\."),
])
def test_the_separator_is_one_character(tmp_path, sep, error, match):
    """sep=',,' ended in a TypeError from pandas that named no argument."""
    with pytest.raises(error, match=match):
        load_csv(_csv(tmp_path, _frame()), "cost", sep=sep)


def test_a_decimal_comma_needs_another_separator(tmp_path):
    with pytest.raises(ValueError, match=r"^sep and decimal are both ','.*pass sep=';'"):
        load_csv(_csv(tmp_path, _frame()), "cost", sep=",", decimal=",")


def test_an_empty_column_is_named_with_advice_that_leads_somewhere(tmp_path):
    """An all-missing column's advice (--drop-missing) led to "fewer than 2 complete rows"."""
    path = _csv(tmp_path, _frame().assign(notes=np.nan))
    for missing in ("error", "drop"):
        with pytest.raises(ValueError, match=r"^data\.csv: column 'notes' has no value in any "
                                             r"of the 40 rows; leave it out with "
                                             r"drop=\['notes'\] \(--drop notes on the command "
                                             r"line\)\.$"):
            load_csv(path, "cost", missing=missing, y_range=(-5, 15))
    assert load_csv(path, "cost", drop=["notes"], y_range=(-5, 15)).X.shape == (40, 4)
    mostly = _frame().assign(notes=[1.0] + [np.nan] * 39)
    path = _csv(tmp_path, mostly)
    for missing in ("error", "drop"):
        with pytest.raises(ValueError, match=r"(?i)dropping the 39 rows holding them would leave 1 "
                                             r"of 40, fewer than the 2 needed: the columns "
                                             r"missing most are 'notes' \(39\); leave it out"):
            load_csv(path, "cost", missing=missing, y_range=(-5, 15))
    with pytest.raises(ValueError, match=r"^target 'cost' of data\.csv has no value in any"):
        load_csv(_csv(tmp_path, _frame().assign(cost=np.nan)), "cost", y_range=(-5, 15))
    with pytest.raises(ValueError, match=r"^data\.csv has 1 data row below its header; at "
                                         "least 2 are needed"):
        load_csv(_write(tmp_path, "a,y\n1,2\n"), "y", y_range=(0, 3))


def test_column_lists_and_ranges_of_the_wrong_kind_are_named(tmp_path):
    path = _csv(tmp_path, _frame())
    for name, value in (("drop", 3), ("categorical_columns", 3), ("private", 3.5)):
        with pytest.raises(TypeError, match=rf"^{name} must be a column name or a list of "
                                            "column names, got"):
            load_csv(path, "cost", y_range=(-5, 15), **{name: value})
    with pytest.raises(TypeError, match=r"^drop must list column names \(strings\), but entry 0 "
                                        "is None"):
        load_csv(path, "cost", y_range=(-5, 15), drop=[None])  # named "no column None" before
    for y_range in (("0", "10"), (True, 5), (0, 2**1100), "ab"):
        with pytest.raises(ValueError, match=r"^y_range must be"):
            load_csv(path, "cost", y_range=y_range)
    for bad in (None, 3, b"data.csv"):
        with pytest.raises(TypeError, match=r"^path must be the path of a CSV file"):
            load_csv(bad, "cost")
    with pytest.raises(ValueError, match=r"^target 'Cost' is not a column of data\.csv; "
                                         r"columns are \['income', .* \(did you mean 'cost'\?\)"):
        load_csv(path, "Cost")


def test_one_hot_names_that_collide_are_refused_by_name(tmp_path):
    frame = _frame().assign(region_n=1.0)  # one-hot of region would add region_n again
    with pytest.raises(ValueError, match=r"^the one-hot encoding of 'region' and column "
                                         r"'region_n' would both be named 'region_n'"):
        load_csv(_csv(tmp_path, frame), "cost", categorical="onehot", y_range=(-5, 15))


def test_a_column_of_dates_is_named_not_counted_in_seconds(tmp_path):
    days = [f"2020-{m:02d}-{d:02d}" for m in (1, 2) for d in range(1, 21)]
    frame = _frame().assign(visit=days)
    with pytest.raises(ValueError, match=r"^column 'visit' holds dates or times \(e\.g\. "
                                         r"'2020-01-01'\), which are not read as numbers.*"
                                         r"drop=\['visit'\]"):
        load_csv(_csv(tmp_path, frame), "cost", y_range=(-5, 15))


@pytest.mark.parametrize(("values", "kind", "unit"), [
    ([f"2020-01-{d:02d}" for d in range(1, 31)] * 2, "dates or times", "days since a date"),
    ([f"{h} days 0{h % 10}:30:00" for h in range(60)], "durations", "hours"),
    ([f"PT{m}M" for m in range(60)], "durations", "hours"),
])
def test_a_target_or_column_of_dates_or_durations_is_named_as_such(tmp_path, values, kind, unit):
    """A target of dates was "not numeric ... ldpviz does regression" and a column of pandas'
    durations ('1 days 02:00:00') "not numeric and has 60 distinct values" (issue 32: date
    and duration labels and features)."""
    frame = _frame(60)
    words = rf"holds {kind} \(e\.g\. '{re.escape(values[0])}'\), which are not read as numbers.*" \
        rf"a unit you choose \(e\.g\. {unit}"
    with pytest.raises(ValueError, match=rf"^target 'cost' {words}"):
        load_csv(_csv(tmp_path, frame.assign(cost=values)), "cost")
    with pytest.raises(ValueError, match=rf"^column 'when' {words}.*drop=\['when'\]"):
        load_csv(_csv(tmp_path, frame.assign(when=values)), "cost", y_range=(-5, 15))


@pytest.mark.parametrize("y_range", [None, (0, 10)])
def test_a_constant_target_is_named_before_anything_is_fitted(tmp_path, y_range):
    """A constant label gave "--y-range must be finite with lo < hi, got (3.0, 3.0)" when no
    --y-range was given, and with one "ParDT, inf x the error of the non-private tree"
    (issue 32); a label that varies on one row only loads."""
    frame = _frame().assign(cost=3.0)
    with pytest.raises(ValueError, match=r"^data\.csv: target 'cost' is constant \(3 in all "
                                         r"40 rows\): there is nothing to predict.*choose a "
                                         "target column whose values vary"):
        load_csv(_csv(tmp_path, frame), "cost", y_range=y_range)
    frame.loc[5, "income"] = np.nan
    with pytest.raises(ValueError, match=r"constant \(3 in all 39 rows kept\)"):
        load_csv(_csv(tmp_path, frame), "cost", y_range=y_range, missing="drop")
    frame.loc[7, "cost"] = 4.0
    assert np.ptp(load_csv(_csv(tmp_path, frame), "cost", y_range=y_range,
                           missing="drop").y) == 1


@pytest.mark.parametrize("sep", [";", "\t", "x"])
def test_a_wrong_separator_by_hand_is_pointed_out(tmp_path, sep):
    """sep=';' on a comma file gave "columns are ['income,smoker,age,region,cost']" alone."""
    path = _csv(tmp_path, _frame())
    with pytest.raises(ValueError, match=rf"^target 'cost' is not a column of data\.csv; .*"
                                         rf"\(read with sep={re.escape(repr(sep))}, the header "
                                         r"is one column; it holds ',': pass sep=','"):
        load_csv(path, "cost", sep=sep)
    assert load_csv(path, "cost", sep=",", y_range=(-5, 15)).X.shape == (40, 4)


@pytest.mark.parametrize("decimal", [".", ","])
def test_entries_read_as_they_are_or_stripped_read_the_same(decimal):
    """parse_column reads most entries without stripping them first (half of a wide table's
    load): each entry must come out as it does stripped, number, missing or text alike."""
    import pandas as pd

    from ldpviz.datasets._common import parse_column

    tokens = ["1.5", " 2 ", "\t7\t", "inf", "-Infinity", "1e400", "1e-400", "+3", ".5", "5.",
              "-0", "99999999999999999999", "1_000", "0x10", "1,5", " 3,0e2", "12.5kg", "True",
              "1 000", "1d3", "nan(1)", "\u22123", "\u00bd", None, "nan", "NA", "",
              "\u00a05\u00a0", "\u20032", "4\u3000"]  # no-break, em and ideographic spaces
    for values in [pd.Series(tokens, dtype="str")] + [pd.Series([t, "1"], dtype="str")
                                                      for t in tokens]:
        cleaned = values.astype("string").str.strip().str.replace(decimal, ".", regex=False)
        expected = pd.to_numeric(cleaned, errors="coerce").to_numpy(dtype=float,
                                                                    na_value=np.nan)
        numbers, missing, text = parse_column(values, decimal)
        np.testing.assert_array_equal(numbers, expected)
        np.testing.assert_array_equal(missing, values.isna().to_numpy())
        np.testing.assert_array_equal(text, ~missing & np.isnan(expected))
