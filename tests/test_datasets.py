"""Real-data loaders: UCI files (local copies and originals), the download cache, CSVs, diabetes."""

import io
import os
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _csv_tables import csv_of as _csv
from _csv_tables import text_file as _write
from _csv_tables import user_frame as _frame

from ldpviz import PrivacyWarning, datasets
from ldpviz.datasets import load_csv, load_diabetes, load_uci

ROOT = Path(__file__).resolve().parents[1]


def _shared_data():
    for candidate in (os.environ.get("LDPVIZ_DATA"), ROOT.parent / "shared" / "data"):
        if candidate and (Path(candidate) / "abalone.csv").is_file():
            return Path(candidate)
    return None


SHARED = _shared_data()
needs_shared = pytest.mark.skipif(
    SHARED is None, reason="the UCI copies are not here: set LDPVIZ_DATA or put them in "
                           "<repo>/../shared/data (CI has them)")

# file name, rows, features (ordinal encoding), public label range
LOCAL = {"abalone": ("abalone.csv", 4177, 8), "wine-red": ("winequality-red.csv", 1599, 11),
         "wine-white": ("winequality-white.csv", 4898, 11),
         "qsar-aquatic": ("qsar_aquatic_toxicity.csv", 546, 8)}


@pytest.fixture(autouse=True)
def no_download(monkeypatch):
    """Tests never touch the network: any download attempt fails loudly."""

    def refuse(url, path):
        raise OSError(f"test tried to download {url}")

    monkeypatch.setattr(datasets, "_download", refuse)


@needs_shared
@pytest.mark.parametrize("name", sorted(LOCAL))
def test_local_copies_load_scaled_with_the_raw_target(name):
    file, rows, d = LOCAL[name]
    with pytest.warns(PrivacyWarning, match="feature box") as caught:
        bunch = load_uci(name, data_home=SHARED)
    protected = [bunch.feature_names[j] for j in bunch.ranking[:bunch.s_star]]
    assert all(column in str(caught[0].message) for column in protected)
    assert caught[0].filename == __file__  # points at the caller's line
    raw = pd.read_csv(SHARED / file, header=0 if name == "qsar-aquatic" else None)
    assert bunch.X.shape == (rows, d) and len(bunch.feature_names) == d
    np.testing.assert_allclose(bunch.X.min(axis=0), 0.0)
    np.testing.assert_allclose(bunch.X.max(axis=0), 1.0)
    np.testing.assert_array_equal(bunch.y, raw.iloc[:, -1].to_numpy(float))
    lo, hi = bunch.y_range
    assert lo <= bunch.y.min() and bunch.y.max() <= hi  # the public range covers the labels
    assert bunch.y_bound >= np.abs(bunch.y).max()
    assert bunch.s_star == int(np.ceil(np.log(np.sqrt(d))))
    assert sorted(bunch.ranking) == list(range(d))
    # a numeric feature is the min-max scaled raw column
    col = raw.iloc[:, 1].to_numpy(float)
    np.testing.assert_allclose(bunch.X[:, 1], (col - col.min()) / (col.max() - col.min()))


@needs_shared
def test_abalone_sex_encodings_and_paper_codes():
    raw = pd.read_csv(SHARED / "abalone.csv", header=None)
    ordinal = load_uci("ABA", data_home=SHARED)
    assert ordinal.name == "abalone" and ordinal.feature_names[0] == "sex"
    expected = raw[0].map({"I": 0.0, "F": 0.5, "M": 1.0}).to_numpy()
    np.testing.assert_array_equal(ordinal.X[:, 0], expected)
    onehot = load_uci("abalone", data_home=SHARED, categorical="onehot")
    assert onehot.X.shape == (4177, 10) and onehot.feature_names[:3] == ["sex_I", "sex_F",
                                                                          "sex_M"]
    np.testing.assert_array_equal(onehot.X[:, :3].sum(axis=1), 1.0)
    np.testing.assert_array_equal(onehot.X[:, 2], (raw[0] == "M").to_numpy(float))


@needs_shared
def test_ranking_and_label_range_options():
    bunch = load_uci("wine-red", data_home=SHARED, ranking=["alcohol", "pH"])
    names = bunch.feature_names
    assert [names[j] for j in bunch.ranking[:2]] == ["alcohol", "pH"]
    assert bunch.ranking[2:] == [j for j in range(11) if names[j] not in ("alcohol", "pH")]
    with pytest.warns(PrivacyWarning, match="off the private"):
        leaky = load_uci("wine-red", data_home=SHARED, y_range="data")
    assert leaky.y_range == (bunch.y.min(), bunch.y.max())
    assert load_uci("RED", data_home=SHARED, y_range=(2, 9)).y_range == (2.0, 9.0)
    with pytest.raises(ValueError, match="ranking"):
        load_uci("wine-red", data_home=SHARED, ranking=["colour"])


@needs_shared
def test_the_environment_variable_points_at_the_data(monkeypatch):
    monkeypatch.setenv("LDPVIZ_DATA", str(SHARED))
    assert load_uci("qsar-aquatic").X.shape == (546, 8)


def test_unknown_names_and_bad_files_raise_value_errors(tmp_path):
    with pytest.raises(ValueError, match="name"):
        load_uci("iris", data_home=tmp_path)
    (tmp_path / "qsar_fish_toxicity.csv").write_text("1;2;3\n4;5;6\n")
    with pytest.raises(ValueError, match="7"):
        load_uci("qsar-fish", data_home=tmp_path)


def _fish_text(n=30, seed=0):
    rng = np.random.default_rng(seed)
    values = rng.random((n, 7)) * [5, 4, 2, 3, 2, 6, 9]
    return "\n".join(";".join(f"{v:.3f}" for v in row) for row in values) + "\n", values


def test_fish_toxicity_parser_on_a_synthetic_original(tmp_path):
    text, values = _fish_text()
    (tmp_path / "qsar_fish_toxicity.csv").write_text(text)
    bunch = load_uci("FIS", data_home=tmp_path)
    assert bunch.X.shape == (30, 6) and bunch.target_name == "LC50"
    np.testing.assert_allclose(bunch.y, values[:, -1], atol=1e-3)
    np.testing.assert_allclose(bunch.X.min(axis=0), 0) and np.testing.assert_allclose(
        bunch.X.max(axis=0), 1)
    assert bunch.s_star == 1  # ceil(log sqrt 6)


def test_uci_original_wine_format_with_semicolons_and_a_header(tmp_path):
    header = ";".join(f'"{c.replace("_", " ")}"' for c in datasets._uci._WINE_FEATURES)
    rows = ["7.4;0.7;0;1.9;0.076;11;34;0.9978;3.51;0.56;9.4;5",
            "7.8;0.88;0;2.6;0.098;25;67;0.9968;3.2;0.68;9.8;6",
            "6.0;0.5;0.2;2.0;0.080;15;54;0.9970;3.26;0.65;11.0;7"]
    (tmp_path / "winequality-white.csv").write_text(header + ';"quality"\n' + "\n".join(rows))
    bunch = load_uci("wine-white", data_home=tmp_path)
    np.testing.assert_array_equal(bunch.y, [5, 6, 7])
    np.testing.assert_allclose(bunch.X[:, 0], [(7.4 - 6) / 1.8, 1.0, 0.0])
    assert bunch.feature_names[-1] == "alcohol"


def _zip_with(member, text):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(f"folder/{member}", text)
        archive.writestr("README.txt", "not data")
    return buffer.getvalue()


def test_download_is_cached_in_data_home(tmp_path, monkeypatch):
    text, _ = _fish_text(12)
    calls = []

    def fake(url, path):
        calls.append(url)
        Path(path).write_bytes(_zip_with("qsar_fish_toxicity.csv", text))

    monkeypatch.setattr(datasets, "_download", fake)
    home = tmp_path / "cache"
    first = load_uci("qsar-fish", data_home=home)
    assert len(calls) == 1 and calls[0].startswith("https://archive.ics.uci.edu/")
    assert sorted(p.name for p in home.iterdir()) == ["qsar_fish_toxicity.csv"]
    second = load_uci("qsar-fish", data_home=home)
    assert len(calls) == 1  # read from the cache
    np.testing.assert_array_equal(first.X, second.X)


def test_default_cache_folder_comes_from_the_environment(tmp_path, monkeypatch):
    text, _ = _fish_text(10)
    calls = []
    monkeypatch.setattr(datasets, "_download", lambda url, path: (
        calls.append(url), Path(path).write_bytes(_zip_with("qsar_fish_toxicity.csv", text))))
    monkeypatch.setenv("LDPVIZ_DATA", str(tmp_path / "env"))
    assert load_uci("qsar-fish").X.shape == (10, 6)
    assert (tmp_path / "env" / "qsar_fish_toxicity.csv").is_file() and len(calls) == 1


def test_a_failed_source_falls_back_and_total_failure_says_what_to_do(tmp_path, monkeypatch):
    text, _ = _fish_text(8)

    def zip_broken(url, path):
        if url.endswith(".zip"):
            raise OSError("HTTP Error 404")
        Path(path).write_text(text)

    monkeypatch.setattr(datasets, "_download", zip_broken)
    assert load_uci("qsar-fish", data_home=tmp_path / "a").X.shape == (8, 6)

    def offline(url, path):
        Path(path).write_text("partial")
        raise OSError("network is unreachable")

    monkeypatch.setattr(datasets, "_download", offline)
    with pytest.raises(OSError, match="data_home") as info:
        load_uci("abalone", data_home=tmp_path / "b")
    assert "network is unreachable" in str(info.value)
    assert not (tmp_path / "b").exists()  # nor the folder it created (a mistyped data_home)
    (tmp_path / "c").mkdir()
    with pytest.raises(OSError, match="data_home"):
        load_uci("abalone", data_home=tmp_path / "c")
    assert list((tmp_path / "c").iterdir()) == []  # no half-written file is left behind


# ----------------------------------------------------------------------------------------------
# load_csv
# ----------------------------------------------------------------------------------------------
def test_load_csv_encodes_scales_and_ranks(tmp_path):
    frame = _frame()
    path = _csv(tmp_path, frame)
    # the box of a private numeric column is read off the data: said, naming it (a category's
    # box is fixed by its levels)
    with pytest.warns(PrivacyWarning, match=r"private column\(s\) income was read off") as got:
        bunch = load_csv(path, "cost", private=["smoker", "income"], y_range=(-5, 15))
    assert not any("smoker" in str(w.message) for w in got)
    assert bunch.box_from_data == ["income", "age"]
    assert bunch.feature_names == ["income", "smoker", "age", "region"]
    assert bunch.s_star == 2 and bunch.ranking == [1, 0, 2, 3]
    np.testing.assert_array_equal(bunch.X[:, 1], (frame["smoker"] == "yes").to_numpy(float))
    np.testing.assert_allclose(bunch.X.min(axis=0), 0) and np.testing.assert_allclose(
        bunch.X.max(axis=0), 1)
    np.testing.assert_array_equal(bunch.y, frame["cost"])
    assert bunch.y_range == (-5.0, 15.0)
    # one-hot: a private categorical column makes all its 0/1 columns private
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numeric private column: nothing leaks
        hot = load_csv(path, "cost", private=["region"], categorical="onehot", y_range=(-5, 15))
    assert [hot.feature_names[j] for j in hot.ranking[:hot.s_star]] == ["region_e", "region_n",
                                                                        "region_s"]
    np.testing.assert_array_equal(hot.X[:, [4, 5, 6]].sum(axis=1), 1)


def test_load_csv_default_ranking_is_column_order_and_range_read_off_warns(tmp_path):
    path = _csv(tmp_path, _frame())
    with pytest.warns(PrivacyWarning, match="y_range"):
        bunch = load_csv(path, "cost")
    assert bunch.ranking == [0, 1, 2, 3] and bunch.s_star == 1  # ceil(log sqrt 4)
    assert bunch.y_range == (bunch.y.min(), bunch.y.max())


def test_load_csv_reports_missing_values_or_drops_them_on_request(tmp_path):
    frame = _frame()
    frame.loc[[3, 7], "age"] = np.nan
    frame.loc[7, "income"] = np.nan
    path = _csv(tmp_path, frame)
    with pytest.raises(ValueError, match=r"age \(2\).*income \(1\)|income \(1\).*age \(2\)"):
        load_csv(path, "cost", y_range=(0, 6))
    dropped = load_csv(path, "cost", missing="drop", y_range=(0, 6))
    assert dropped.n_dropped == 2 and dropped.X.shape == (38, 4)


def test_load_csv_refuses_what_it_cannot_use(tmp_path):
    frame = _frame()
    frame["name"] = [f"person {i}" for i in range(len(frame))]
    path = _csv(tmp_path, frame)
    with pytest.raises(ValueError, match=r"'name' is not numeric.*40 distinct"):
        load_csv(path, "cost", y_range=(0, 6))
    assert load_csv(path, "cost", max_categories=50, y_range=(0, 6)).X.shape == (40, 5)
    with pytest.raises(ValueError, match="target 'price'"):
        load_csv(path, "price", y_range=(0, 6))
    with pytest.raises(ValueError, match="target 'smoker' is not numeric"):
        load_csv(path, "smoker", y_range=(0, 6), max_categories=50)
    with pytest.raises(ValueError, match="private"):
        load_csv(path, "cost", private=["height"], y_range=(0, 6), max_categories=50)
    with pytest.raises(FileNotFoundError, match=r"nothing\.csv"):
        load_csv(tmp_path / "nothing.csv", "cost")
    with pytest.raises(ValueError, match="y_range"):
        load_csv(path, "cost", y_range=(6, 0), max_categories=50)


def test_load_csv_names_a_bad_target_and_a_file_that_is_not_utf8(tmp_path):
    path = _csv(tmp_path, _frame())
    for target in (["cost"], ("cost",), None, 4):  # a list was "unhashable type: 'list'"
        with pytest.raises(TypeError, match=r"^target must be the name of one column"):
            load_csv(path, target, y_range=(0, 6))
    (tmp_path / "binary.csv").write_bytes(bytes(range(128, 256)) * 8)
    for sep in (None, ","):  # the separator sniffed or given: the same message
        with pytest.raises(ValueError, match=r"^binary\.csv is not a UTF-8 text file"):
            load_csv(tmp_path / "binary.csv", "y", sep=sep)


@pytest.mark.parametrize("sep", [None, ";"])
def test_load_csv_reads_the_byte_order_mark_excel_writes(tmp_path, sep):
    """Excel's "CSV UTF-8" starts with a byte-order mark; it was glued to the first column's
    name ('\\ufeffincome'), so private=["income"] named no column."""
    frame = _frame()
    path = tmp_path / "excel.csv"
    frame.to_csv(path, index=False, sep=sep or ",", encoding="utf-8-sig")
    assert path.read_bytes()[:3] == b"\xef\xbb\xbf"
    bunch = load_csv(path, "cost", private=["income"], y_range=(0, 6), sep=sep)
    plain = load_csv(_csv(tmp_path, frame), "cost", private=["income"], y_range=(0, 6))
    assert bunch.feature_names == plain.feature_names and bunch.feature_names[0] == "income"
    np.testing.assert_array_equal(bunch.X, plain.X)


def test_load_csv_semicolons_and_constant_columns(tmp_path):
    path = tmp_path / "semi.csv"
    path.write_text("a;b;c;y\n1;5;0;1.0\n2;5;1;2.0\n3;5;0;2.5\n")
    bunch = load_csv(path, "y", y_range=(0, 3))
    np.testing.assert_allclose(bunch.X[:, 0], [0, 0.5, 1])
    np.testing.assert_array_equal(bunch.X[:, 1], 0)  # constant: no information, mapped to 0


def test_diabetes_has_readable_names_and_a_sensitivity_ranking():
    with pytest.warns(PrivacyWarning, match="blood_sugar, log_triglycerides was read off"):
        bunch = load_diabetes()  # the box of the s* = 2 most sensitive columns leaks
    assert bunch.X.shape == (442, 10) and bunch.s_star == 2
    assert {"age", "sex", "bmi", "blood_pressure", "blood_sugar"} <= set(bunch.feature_names)
    np.testing.assert_allclose(bunch.X.min(axis=0), 0) and np.testing.assert_allclose(
        bunch.X.max(axis=0), 1)
    assert sorted(bunch.ranking) == list(range(10))
    assert bunch.feature_names[bunch.ranking[0]] == "blood_sugar"
    assert bunch.feature_names[bunch.ranking[-1]] == "age"
    assert set(np.unique(bunch.X[:, bunch.feature_names.index("sex")])) == {0.0, 1.0}
    lo, hi = bunch.y_range
    assert lo <= bunch.y.min() and bunch.y.max() <= hi
    assert list(bunch.frame.columns) == [*bunch.feature_names, "progression"]


# ----------------------------------------------------------------------------------------------
# load_csv never guesses silently
# ----------------------------------------------------------------------------------------------
def test_a_typo_in_a_numeric_column_is_an_error_naming_column_line_and_value(tmp_path):
    path = _write(tmp_path, "weight,age,y\n2.818,30,1\n12.5kg,40,2\n3.1,50,3\n1.0,60,4\n")
    with pytest.raises(ValueError, match=r"column 'weight' should hold numbers but line 3 of "
                                         r"data.csv holds text, e.g. '12.5kg'.*"
                                         r"categorical_columns=\['weight'\]"):
        load_csv(path, "y", y_range=(0, 5))
    # asked for, the column is encoded as categories, and the summary says how
    bunch = load_csv(path, "y", y_range=(0, 5), categorical_columns=["weight"])
    assert bunch.encoded == {"weight": ("ordinal", ["1.0", "12.5kg", "2.818", "3.1"])}
    assert "Column 'weight' encoded as categories, ordinal: 1.0=0, 12.5kg=0.333333" in \
        bunch.summary
    with pytest.raises(ValueError, match="categorical_columns must name feature columns"):
        load_csv(path, "y", y_range=(0, 5), categorical_columns=["height"])


def test_text_columns_are_encoded_and_reported_numbers_never(tmp_path):
    frame = _frame()
    bunch = load_csv(_csv(tmp_path, frame), "cost", y_range=(-5, 15))
    assert set(bunch.encoded) == {"smoker", "region"}  # plainly text: encoded, and said so
    assert bunch.encoded["region"] == ("ordinal", ["e", "n", "s"])
    assert "'smoker' encoded as categories, ordinal: no=0, yes=1" in bunch.summary
    np.testing.assert_allclose(bunch.X[:, 0], (frame.income - frame.income.min())
                               / (frame.income.max() - frame.income.min()))  # not re-encoded


def test_a_column_with_a_different_whole_number_on_every_row_is_named(tmp_path):
    rng = np.random.default_rng(0)
    n = 40
    frame = pd.DataFrame({"patient id": 100_000 + np.arange(n), "dose": rng.random(n),
                          "visits": rng.integers(0, 5, n), "y": rng.random(n)})
    frame.to_csv(tmp_path / "t.csv", index=False)
    bunch = load_csv(tmp_path / "t.csv", "y", private=["dose"], y_range=(0, 1))
    assert bunch.identifier_like == ["patient id"]  # continuous 'dose', repeated 'visits': no
    assert "Column(s) 'patient id' hold a different whole number on every row" in bunch.summary
    assert bunch.X.shape[1] == 3  # named, not dropped: the user decides
    from ldpviz.reproduce.whatif_data import load_table

    table = load_table(tmp_path / "t.csv", "y", y_range=(0, 1))  # what the CLI prints
    assert table.choices["identifier_like"] == ["patient id"]
    assert "'patient id' hold a different whole number" in table.choices["loader_summary"]
    few = load_csv(_write(tmp_path, "id,y\n1,0\n2,1\n3,0\n", "few.csv"), "y", private=[],
                   y_range=(0, 1))
    assert few.identifier_like == []  # three rows say nothing


def test_inf_and_missing_values_are_errors_with_counts_or_dropped_on_request(tmp_path):
    path = _write(tmp_path, "x,z,y\n1,2,1\ninf,3,2\n5,,3\n6,7,inf\n8,9,5\n10,11,6\n")
    with pytest.raises(ValueError, match=r"infinite values in: x \(1\), y \(1\).*missing values"
                                         r" in: z \(1\)|missing values in: z \(1\); infinite "
                                         r"values in: x \(1\), y \(1\)"):
        load_csv(path, "y", y_range=(0, 7))
    dropped = load_csv(path, "y", y_range=(0, 7), missing="drop")
    assert dropped.n_dropped == 3 and len(dropped.y) == 3
    assert np.all(np.isfinite(dropped.X)) and np.all(np.isfinite(dropped.y))
    assert "Dropped 3 rows" in dropped.summary


@pytest.mark.parametrize(("text", "shown"), [
    ('"48,910.85"', "48,910.85"), ('"1,234,567"', "1,234,567"), ("12%", "12%"),
    ("-3.5 %", "-3.5 %")])
def test_numbers_with_thousands_separators_or_percent_signs_must_be_cleaned(tmp_path, text,
                                                                            shown):
    """Read as categories they were ordered as text ('100%' before '9%'); the advice was to
    raise max_categories."""
    rows = "".join(f"{i},{text if i == 3 else i},{i}\n" for i in range(10))
    path = _write(tmp_path, "a,b,y\n" + rows, "formatted.csv")
    with pytest.raises(ValueError, match=f"column 'b' holds numbers written with thousands "
                                         f"separators or percent signs .*line 5.*{shown!r}"):
        load_csv(path, "y", y_range=(0, 10))
    path = _write(tmp_path, "a,b,y\n" + "".join(f"{i},{text},{i}\n" for i in range(10)),
                  "all_formatted.csv")
    with pytest.raises(ValueError, match="clean the column first"):
        load_csv(path, "y", y_range=(0, 10))
    percent = _write(tmp_path, "a;b;y\n1;12,5%;1\n2;3%;2\n", "percent.csv")
    with pytest.raises(ValueError, match="percent signs"):
        load_csv(percent, "y", y_range=(0, 4), decimal=",")


def test_advice_names_the_option_in_python_and_on_the_command_line(tmp_path):
    mixed = _write(tmp_path, "a,zip,y\n1,1000,1\n2,x9,2\n3,2000,3\n", "mixed.csv")
    with pytest.raises(ValueError, match=r"categorical_columns=\['zip'\] \(--categorical-col"
                                         r"umns zip on the command line\)"):
        load_csv(mixed, "y", y_range=(0, 4))
    holes = _write(tmp_path, "a,b,y\n1,,1\n2,3,2\n3,4,3\n", "holes.csv")
    with pytest.raises(ValueError, match=r"missing='drop' \(--drop-missing on the command"):
        load_csv(holes, "y", y_range=(0, 4))
    text = _write(tmp_path, "a,b,y\n" + "".join(f"{i},w{i},{i}\n" for i in range(5)), "t.csv")
    with pytest.raises(ValueError, match=r"raise max_categories \(--max-categories on the"):
        load_csv(text, "y", y_range=(0, 5), max_categories=3)
    with pytest.raises(ValueError, match="decimal must be one of"):
        load_csv(text, "y", y_range=(0, 5), decimal=";")


def test_a_header_with_an_unnamed_column_is_refused(tmp_path):
    path = _write(tmp_path, "a,,y\n1,2,3\n2,3,4\n3,4,5\n", "unnamed.csv")
    with pytest.raises(ValueError, match="column 2 of the header has no name"):
        load_csv(path, "y", y_range=(0, 5))


def test_single_column_semicolon_and_decimal_comma_files(tmp_path):
    single = _write(tmp_path, "y\n1\n2\n3\n", "single.csv")
    with pytest.raises(ValueError, match="needs at least one feature besides the target"):
        load_csv(single, "y", y_range=(0, 4))  # read as one column 'y', not misread
    semi = _write(tmp_path, "a;b;y\n1.5;2;1\n2.5;3;2\n3.5;5;3\n", "semi.csv")
    np.testing.assert_allclose(load_csv(semi, "y", y_range=(0, 4)).X[:, 0], [0, 0.5, 1])
    comma = _write(tmp_path, "a;b;y\n1,5;2;1\n2,5;3;2\n3,5;5;3\n", "comma.csv")
    with pytest.raises(ValueError, match=r"'1,5' \(a decimal comma\? pass decimal=',', "
                                         "--decimal , on the command line"):
        load_csv(comma, "y", y_range=(0, 4))
    np.testing.assert_allclose(load_csv(comma, "y", y_range=(0, 4), decimal=",").X[:, 0],
                               [0, 0.5, 1])
    tabs = _write(tmp_path, "a\tb\ty\n1\t2\t1\n2\t4\t2\n", "tabs.csv")
    assert load_csv(tabs, "y", y_range=(0, 4)).feature_names == ["a", "b"]
    quoted = _write(tmp_path, 'name,y\n"Smith, J",1\n"Doe, A",2\n', "quoted.csv")
    assert load_csv(quoted, "y", y_range=(0, 4)).encoded["name"][1] == ["Doe, A", "Smith, J"]


def test_repeated_column_names_and_huge_values(tmp_path):
    twice = _write(tmp_path, "a,a,y\n1,2,3\n4,5,6\n")
    with pytest.raises(ValueError, match=r"repeats the column names \['a'\]"):
        load_csv(twice, "y", y_range=(0, 7))
    huge = _write(tmp_path, "a,y\n-1e308,1\n1e308,2\n0,3\n", "huge.csv")
    np.testing.assert_allclose(load_csv(huge, "y", y_range=(0, 4)).X[:, 0], [0, 1, 0.5])
    text_target = _write(tmp_path, "a,y\n1,2\n2,x\n3,4\n", "target.csv")
    with pytest.raises(ValueError, match="column 'y' should hold numbers but line 3"):
        load_csv(text_target, "y", y_range=(0, 4))


def test_scale_to_box_refuses_what_it_cannot_place():
    from ldpviz.datasets import scale_to_box

    X = np.array([[0.5, 20.0], [1.0, 40.0]])
    np.testing.assert_allclose(scale_to_box(X, [0, 0], [1, 80]), [[0.5, 0.25], [1, 0.5]])
    with pytest.raises(ValueError, match="upper must be finite, got nan"):
        scale_to_box(X, 0, np.nan)
    with pytest.raises(ValueError, match="lower must be finite"):
        scale_to_box(X, -np.inf, 1)
    with pytest.raises(ValueError, match="feature 1 has lower 5 and upper 5"):
        scale_to_box(X, [0, 5], [1, 5])
    with pytest.raises(ValueError, match="X contains 1 NaN or inf"):
        scale_to_box(np.array([[np.nan, 1.0]]), 0, 1)
    with pytest.raises(ValueError, match=r"upper must be one number or one per feature \(2\)"):
        scale_to_box(X, 0, [1, 2, 3])
    for lower, upper in (("0", "10"), ([0, "0"], 80), (0, [True, 80])):  # parsed before
        with pytest.raises(ValueError, match=r"(lower|upper) must be one number or one per "
                                             r"feature, got "):
            scale_to_box(X, lower, upper)
    frame = pd.DataFrame(X, columns=["income", "age"])
    with pytest.raises(ValueError, match="feature 'age' has lower 3 and upper 2"):
        scale_to_box(frame, [0, 3], [1, 2])
