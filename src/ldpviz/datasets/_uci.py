"""Published datasets: the UCI regression data of Appendix C.2 (local copies or downloaded and
cached) and scikit-learn's diabetes data with readable names."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import urllib.request
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .._validation import PrivacyWarning, check_choice
from ._common import (
    CATEGORICAL,
    _bunch,
    _check_range,
    _encode,
    _ranking,
    describe_text,
    parse_column,
    warn_box_from_data,
)

# What the feature-box warning of load_uci and load_diabetes says.
_BOX_HOW = "min-max scaling to [0, 1], as in the paper's Appendix C.2"
_BOX_ADVICE = "ldpviz.datasets.scale_to_box scales raw features with public bounds"

#: Where downloaded UCI files are cached when neither ``data_home`` nor $LDPVIZ_DATA is set.
DEFAULT_DATA_HOME = Path("~/ldpviz_data")

_WINE_FEATURES = ("fixed_acidity", "volatile_acidity", "citric_acid", "residual_sugar",
                  "chlorides", "free_sulfur_dioxide", "total_sulfur_dioxide", "density", "pH",
                  "sulphates", "alcohol")
_UCI = "https://archive.ics.uci.edu"


@dataclass(frozen=True)
class _UCISpec:
    """One UCI dataset: where it lives, how its columns are named, its public label range."""

    name: str
    paper_name: str
    title: str
    files: tuple  # file names looked for in data_home, in this order
    sources: tuple  # (url, member inside the zip or None), tried in order
    features: tuple
    target: str
    y_range: tuple  # the declared public scale
    y_range_source: str
    categories: tuple = ()  # ((column, (levels in code order)), ...)
    independent_range: tuple | None = None  # from other public data on the same scale
    independent_source: str = ""


_SPECS = {
    spec.name: spec
    for spec in (
        _UCISpec(
            "abalone", "ABA", "Abalone (UCI id 1)", ("abalone.csv", "abalone.data"),
            ((f"{_UCI}/static/public/1/abalone.zip", "abalone.data"),
             (f"{_UCI}/ml/machine-learning-databases/abalone/abalone.data", None)),
            ("sex", "length", "diameter", "height", "whole_weight", "shucked_weight",
             "viscera_weight", "shell_weight"), "rings", (0.0, 30.0),
            "rings are a count of shell growth layers; 30 is a round public cap (the UCI "
            "description lists 1-29)",
            (("sex", ("I", "F", "M")),), None,
            "the UCI data are the only published sample (Nash et al., 1994), and the 1-29 "
            "of their description is read off these very labels"),
        _UCISpec(
            "wine-red", "RED", "Wine Quality, red (UCI id 186)",
            ("winequality-red.csv",),
            ((f"{_UCI}/static/public/186/wine+quality.zip", "winequality-red.csv"),
             (f"{_UCI}/ml/machine-learning-databases/wine-quality/winequality-red.csv", None)),
            _WINE_FEATURES, "quality", (0.0, 10.0),
            "the UCI description defines quality as a score between 0 and 10", (),
            (3.0, 9.0),
            "the white-wine sample of the same study (Cortez et al., 2009; 4,898 other wines "
            "graded on the same 0-10 sensory scale) spans 3-9"),
        _UCISpec(
            "wine-white", "WHI", "Wine Quality, white (UCI id 186)",
            ("winequality-white.csv",),
            ((f"{_UCI}/static/public/186/wine+quality.zip", "winequality-white.csv"),
             (f"{_UCI}/ml/machine-learning-databases/wine-quality/winequality-white.csv",
              None)),
            _WINE_FEATURES, "quality", (0.0, 10.0),
            "the UCI description defines quality as a score between 0 and 10", (),
            (3.0, 8.0),
            "the red-wine sample of the same study (Cortez et al., 2009; 1,599 other wines "
            "graded on the same 0-10 sensory scale) spans 3-8"),
        _UCISpec(
            "qsar-aquatic", "AQU", "QSAR aquatic toxicity (UCI id 505)",
            ("qsar_aquatic_toxicity.csv",),
            ((f"{_UCI}/static/public/505/qsar+aquatic+toxicity.zip",
              "qsar_aquatic_toxicity.csv"),
             (f"{_UCI}/ml/machine-learning-databases/00505/qsar_aquatic_toxicity.csv", None)),
            ("TPSA", "SAacc", "H050", "MLOGP", "RDCHI", "GATS1p", "nN", "C040"), "LC50",
            (0.0, 11.0),
            "LC50 in -log(mol/L): a round public range for acute toxicity to Daphnia magna", (),
            (0.053, 9.612),
            "the QSAR fish toxicity data (UCI id 504: 908 chemicals, LC50 for the fathead "
            "minnow on the same -log(mol/L) scale, another species and test) span "
            "0.053-9.612"),
        _UCISpec(
            "qsar-fish", "FIS", "QSAR fish toxicity (UCI id 504)",
            ("qsar_fish_toxicity.csv",),
            ((f"{_UCI}/static/public/504/qsar+fish+toxicity.zip", "qsar_fish_toxicity.csv"),
             (f"{_UCI}/ml/machine-learning-databases/00504/qsar_fish_toxicity.csv", None)),
            ("CIC0", "SM1_Dz", "GATS1i", "NdsCH", "NdssC", "MLOGP"), "LC50", (0.0, 10.0),
            "LC50 in -log(mol/L): a round public range for acute toxicity to fathead minnows",
            (), (0.122, 10.047),
            "the QSAR aquatic toxicity data (UCI id 505: 546 chemicals, LC50 for Daphnia "
            "magna on the same -log(mol/L) scale, another species and test) span "
            "0.122-10.047"),
    )
}
_ALIASES = {spec.paper_name.lower(): key for key, spec in _SPECS.items()} | {
    "winequality-red": "wine-red", "winequality-white": "wine-white",
    "qsar_aquatic_toxicity": "qsar-aquatic", "qsar_fish_toxicity": "qsar-fish"}

#: Names accepted by :func:`load_uci` (paper codes ABA, RED, WHI, AQU, FIS work too).
UCI_DATASETS = tuple(_SPECS)


def _download(url, path):
    """Fetch ``url`` into ``path``. Called as ``ldpviz.datasets._download``, so that tests can
    replace it there: they never download."""
    with urllib.request.urlopen(url, timeout=60) as response, open(path, "wb") as out:
        shutil.copyfileobj(response, out)


def _data_home(data_home):
    if data_home is not None and not isinstance(data_home, (str, os.PathLike)):
        raise TypeError(f"data_home must be a folder (a str or pathlib.Path) or None (then "
                        f"$LDPVIZ_DATA, else {DEFAULT_DATA_HOME}), got {data_home!r}.")
    home = data_home or os.environ.get("LDPVIZ_DATA") or DEFAULT_DATA_HOME
    return Path(home).expanduser()


def _fetch(spec, home):
    """Download ``spec`` into ``home`` (the cache); return the path of the data file."""
    if sys.platform == "emscripten":  # Pyodide (JupyterLite): no sockets, no download
        raise OSError(
            f"The {spec.name} dataset cannot be downloaded from Python in the browser "
            f"(JupyterLite). Upload {spec.files[0]} with the file browser's upload button and "
            "pass data_home='.', or run this notebook in JupyterLab or on Binder.")
    errors, created = [], not home.exists()
    for url, member in spec.sources:
        target = home / (member or spec.files[0])
        try:
            home.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=home) as tmp:
                raw = Path(tmp) / "download"
                sys.modules[__package__]._download(url, raw)
                if member is not None:
                    with zipfile.ZipFile(raw) as archive:
                        names = [n for n in archive.namelist() if Path(n).name == member]
                        if not names:
                            raise OSError(f"{member} not found in the archive")
                        raw.write_bytes(archive.read(names[0]))
                os.replace(raw, target)  # atomic: an interrupted download leaves no file
            return target
        except (OSError, zipfile.BadZipFile) as exc:  # URLError is an OSError
            errors.append(f"{url}: {exc}")
    if created and home.is_dir() and not any(home.iterdir()):
        home.rmdir()  # a mistyped data_home is not left behind
    raise OSError(
        f"Could not download the {spec.name} dataset into {home} ({'; '.join(errors)}). "
        f"Put a copy of {spec.files[0]} there, or pass data_home / set LDPVIZ_DATA to a folder "
        "holding one.")


def _is_number(text):
    try:
        float(text.strip().strip('"'))
    except ValueError:
        return False
    return True


def _read_uci_file(path, spec):
    """Parse a local copy (comma, no header) or the UCI original (';' and/or a header)."""
    with open(path, encoding="utf-8") as handle:
        first = handle.readline()
    sep = ";" if first.count(";") > first.count(",") else ","
    header = 0 if not _is_number(first.rstrip("\r\n").split(sep)[-1]) else None
    frame = pd.read_csv(path, sep=sep, header=header, skipinitialspace=True)
    expected = len(spec.features) + 1
    if frame.shape[1] != expected:
        raise ValueError(f"{path} has {frame.shape[1]} columns; the {spec.name} dataset has "
                         f"{expected} ({len(spec.features)} features and the target, last).")
    frame.columns = [*spec.features, spec.target]
    return frame


def _resolve_name(name):
    key = str(name).strip().lower()
    key = _ALIASES.get(key, key)
    if key not in _SPECS:
        raise ValueError(f"name must be one of {sorted(_SPECS)} (or a paper code ABA, RED, WHI, "
                         f"AQU, FIS), got {name!r}.")
    return _SPECS[key]


#: Label-range policies of :func:`load_uci`: name -> what it means.
LABEL_RANGE_POLICIES = {
    "declared": "the public scale the dataset's documentation declares (e.g. wine quality "
                "0-10)",
    "independent": "the range of independent public data on the same scale (e.g. for red "
                   "wine, the white-wine sample's range), else the declared scale",
    "private": "(min, max) of the private labels, as the paper does: it leaks, for "
               "comparison with the paper only",
}
#: Earlier names of two policies, still accepted.
_POLICY_ALIASES = {"public": "declared", "data": "private"}
#: How the private range is described wherever it is used (the what-if analysis says the same).
PRIVATE_RANGE_SOURCE = "read off the private labels (leaks)"


def label_range_sources(name):
    """The public label ranges of a UCI dataset under each policy, without reading its labels.

    Returns a dict ``policy -> (range, source)`` for "declared" and "independent" (where no
    independent public source is known, "independent" is the declared range and its source
    says so); the "private" range needs the labels (:func:`load_uci` with
    ``y_range="private"``).
    """
    spec = _resolve_name(name)
    if spec.independent_range is None:
        independent = (spec.y_range, "the declared scale: no independent public source is "
                                     f"known to ldpviz; {spec.independent_source}")
    else:
        independent = (spec.independent_range, spec.independent_source)
    return {"declared": (spec.y_range, spec.y_range_source), "independent": independent}


def _label_range(spec, y_range, y):
    """(range, source, policy) for ``y_range`` (a policy name or a pair)."""
    if isinstance(y_range, str):
        policy = _POLICY_ALIASES.get(y_range, y_range)
        check_choice(policy, "y_range", tuple(LABEL_RANGE_POLICIES))
        if policy == "private":
            warnings.warn(f"y_range='private' reads the label range of {spec.name} off the "
                          "private labels (the paper's choice); that is not covered by the "
                          "privacy guarantee.", PrivacyWarning, stacklevel=3)
            return (float(y.min()), float(y.max())), PRIVATE_RANGE_SOURCE, policy
        return (*label_range_sources(spec.name)[policy], policy)
    return y_range, "given by the caller", "given"


def load_uci(name, data_home=None, categorical="ordinal", ranking=None, y_range="declared",
             download=True):
    """Load a UCI regression dataset of Appendix C.2, features min-max scaled to [0, 1].

    The file is read from ``data_home`` (else the folder in the environment variable
    ``LDPVIZ_DATA``, else ``~/ldpviz_data``). If no copy is there, it is downloaded from the
    dataset's UCI home and cached in that folder, as scikit-learn's ``fetch_*`` functions do.
    Both the layout of the local copies (comma separated, target last, no header) and the UCI
    originals (wine: ``;`` and a header) are read.

    Privacy note: as in the paper (Appendix C.2), each feature is min-max scaled with bounds read
    off the data, with a PrivacyWarning naming the ``s_star`` most sensitive columns (their
    extremes leak). That is a preprocessing convenience for experiments; in a deployment the
    feature box must be public, fixed before any private data is seen
    (:func:`scale_to_box`). The label range is a public choice: see ``y_range`` below.

    Parameters
    ----------
    name : {"abalone", "wine-red", "wine-white", "qsar-aquatic", "qsar-fish"}
        Also the paper's codes "ABA", "RED", "WHI", "AQU", "FIS".
    data_home : str, Path or None
        Folder with local copies, also the download cache.
    categorical : {"ordinal", "onehot"}, default="ordinal"
        Encoding of abalone's sex. "ordinal": one column with infant I = 0, female F = 0.5,
        male M = 1 (infants first, so one split separates them from adults; the paper's 8
        features). "onehot": three 0/1 columns ``sex_I, sex_F, sex_M`` in place of ``sex``.
    ranking : list of str or None
        Features from most to least sensitive (the paper ranks them subjectively and does not
        publish its ranking). Features not listed follow in column order. None: column order.
    y_range : {"declared", "independent", "private"} or (float, float), default="declared"
        The label-range policy (:data:`LABEL_RANGE_POLICIES`). "declared": the scale the
        dataset's documentation declares. "independent": the range of independent public data
        on the same scale (red wine: the white-wine sample's 3-9, and vice versa; QSAR aquatic
        toxicity: the QSAR fish toxicity data's 0.053-9.612, and vice versa); abalone has none
        known, so it falls back to the declared scale and ``y_range_source`` says so. Such a
        range need not cover every label: the estimators clip to it. "private": (min, max) of
        the labels, what the paper does (Appendix C.1 scales the label noise by "the range of
        the label"); it leaks, so a PrivacyWarning is issued (for comparison with the paper
        only). "public" and "data" are accepted as earlier names of "declared" and "private".
        A pair: your own public range.
    download : bool, default=True
        Download a missing file; False raises an OSError naming the folder instead.

    Returns
    -------
    sklearn.utils.Bunch
        ``X`` (n, d) in [0, 1]; ``y`` (n,) the raw target; ``feature_names``; ``target_name``;
        ``y_range`` (lo, hi) under the policy, ``y_range_source`` (where it comes from),
        ``y_range_policy`` ("declared", "independent", "private" or "given"),
        ``y_range_leaks`` (True for "private"); ``y_bound = max(|lo|, |hi|)``; ``ranking``
        (feature indices, most sensitive first); ``s_star``, the aligned paradigm's
        ``ceil(log sqrt d)`` (:func:`ldpviz.masks.aligned_s_star`); ``feature_min``,
        ``feature_max`` (the scaling bounds); ``name``, ``paper_name``, ``path``, ``DESCR``.
    """
    spec = _resolve_name(name)
    check_choice(categorical, "categorical", CATEGORICAL)
    home = _data_home(data_home)
    path = next((home / f for f in spec.files if (home / f).is_file()), None)
    if path is None and not download:
        raise OSError(f"No copy of the {spec.name} dataset ({spec.files[0]}) in {home}; pass "
                      "data_home / set LDPVIZ_DATA to a folder holding one, or allow the "
                      "download.")
    if path is None:
        path = _fetch(spec, home)
    frame = _read_uci_file(path, spec)
    features = frame[list(spec.features)]
    for column, levels in spec.categories:
        features = _encode_known(features, column, levels, categorical)
    columns = {}
    for column in [*features.columns, spec.target]:
        values = features[column] if column in features else frame[spec.target]
        parsed, empty, text = parse_column(values)
        if text.any():
            raise ValueError(f"{describe_text(column, values, text, source=path.name)}; the UCI "
                             f"{spec.name} data has numbers there.")
        if not np.all(np.isfinite(parsed)):
            raise ValueError(f"{path.name} has {int(empty.sum())} missing and "
                             f"{int(np.isinf(parsed).sum())} infinite values in column "
                             f"{column!r}; the UCI {spec.name} data has none.")
        columns[column] = parsed
    y = columns.pop(spec.target)
    features = pd.DataFrame(columns)
    names = list(features.columns)
    y_range, source, policy = _label_range(spec, y_range, y)
    y_range = _check_range(y_range)
    bunch = _bunch(features.to_numpy(dtype=float), y, names, spec.target, y_range,
                   _ranking(ranking, names, "ranking"), None)
    warn_box_from_data([names[j] for j in bunch.ranking[:bunch.s_star]], _BOX_ADVICE,
                       stacklevel=2, how=_BOX_HOW)
    bunch.update(name=spec.name, paper_name=spec.paper_name, path=str(path),
                 y_range_source=source, y_range_policy=policy,
                 y_range_leaks=policy == "private",
                 DESCR=f"{spec.title}: {len(y)} rows, {len(names)} features, target "
                       f"{spec.target}. Label range {y_range}: {source}.")
    return bunch


def _encode_known(features, column, levels, categorical):
    values = features[column].astype(str).str.strip()
    unknown = sorted(set(values) - set(levels))
    if unknown:
        raise ValueError(f"column {column!r} has unexpected values {unknown}; "
                         f"expected {list(levels)}.")
    return _encode(features, column, values, list(levels), categorical)


#: Human-readable names of scikit-learn's diabetes columns (Efron et al., 2004).
DIABETES_FEATURES = {
    "age": "age", "sex": "sex", "bmi": "bmi", "bp": "blood_pressure",
    "s1": "total_cholesterol", "s2": "ldl", "s3": "hdl", "s4": "cholesterol_hdl_ratio",
    "s5": "log_triglycerides", "s6": "blood_sugar"}
#: A suggested ranking, most sensitive first: lab results reveal health conditions, then body
#: measurements, then demographics (often known to others anyway). A judgement call: change it.
DIABETES_SENSITIVITY = ("blood_sugar", "log_triglycerides", "hdl", "ldl", "total_cholesterol",
                        "cholesterol_hdl_ratio", "blood_pressure", "bmi", "sex", "age")


def load_diabetes(ranking=DIABETES_SENSITIVITY):
    """scikit-learn's diabetes data (442 patients), a dataset with genuinely sensitive columns.

    Ships with scikit-learn (no download). Raw values (``scaled=False``) are min-max scaled to
    [0, 1] with bounds read off the data (as in Appendix C.2, with the PrivacyWarning of
    :func:`load_uci`). Sex is coded 0 / 1 after scaling.

    Parameters
    ----------
    ranking : list of str
        Features from most to least sensitive; default :data:`DIABETES_SENSITIVITY`.

    Returns
    -------
    sklearn.utils.Bunch
        As :func:`load_uci`, plus ``frame`` (scaled features and the target). The target is
        disease progression one year after baseline; ``y_range = (0, 350)`` is a round range
        covering its documented values (25-346), which a deployment would fix in advance.
        ``s_star`` is the aligned paradigm's ``ceil(log sqrt 10) = 2``.
    """
    from sklearn.datasets import load_diabetes as _sklearn_diabetes

    raw = _sklearn_diabetes(scaled=False)
    names = [DIABETES_FEATURES[c] for c in raw.feature_names]
    bunch = _bunch(np.asarray(raw.data, dtype=float), raw.target, names, "progression",
                   (0.0, 350.0), _ranking(ranking, names, "ranking"), None)
    warn_box_from_data([names[j] for j in bunch.ranking[:bunch.s_star]], _BOX_ADVICE,
                       stacklevel=2, how=_BOX_HOW)
    bunch.frame = pd.DataFrame(bunch.X, columns=names).assign(progression=bunch.y)
    bunch.update(name="diabetes", DESCR=raw.DESCR)
    return bunch
