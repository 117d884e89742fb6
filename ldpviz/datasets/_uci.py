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
)

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
    y_range: tuple
    y_range_source: str
    categories: tuple = ()  # ((column, (levels in code order)), ...)


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
            (("sex", ("I", "F", "M")),)),
        _UCISpec(
            "wine-red", "RED", "Wine Quality, red (UCI id 186)",
            ("winequality-red.csv",),
            ((f"{_UCI}/static/public/186/wine+quality.zip", "winequality-red.csv"),
             (f"{_UCI}/ml/machine-learning-databases/wine-quality/winequality-red.csv", None)),
            _WINE_FEATURES, "quality", (0.0, 10.0),
            "the UCI description defines quality as a score between 0 and 10"),
        _UCISpec(
            "wine-white", "WHI", "Wine Quality, white (UCI id 186)",
            ("winequality-white.csv",),
            ((f"{_UCI}/static/public/186/wine+quality.zip", "winequality-white.csv"),
             (f"{_UCI}/ml/machine-learning-databases/wine-quality/winequality-white.csv",
              None)),
            _WINE_FEATURES, "quality", (0.0, 10.0),
            "the UCI description defines quality as a score between 0 and 10"),
        _UCISpec(
            "qsar-aquatic", "AQU", "QSAR aquatic toxicity (UCI id 505)",
            ("qsar_aquatic_toxicity.csv",),
            ((f"{_UCI}/static/public/505/qsar+aquatic+toxicity.zip",
              "qsar_aquatic_toxicity.csv"),
             (f"{_UCI}/ml/machine-learning-databases/00505/qsar_aquatic_toxicity.csv", None)),
            ("TPSA", "SAacc", "H050", "MLOGP", "RDCHI", "GATS1p", "nN", "C040"), "LC50",
            (0.0, 11.0),
            "LC50 in -log(mol/L): a round public range for acute toxicity to Daphnia magna"),
        _UCISpec(
            "qsar-fish", "FIS", "QSAR fish toxicity (UCI id 504)",
            ("qsar_fish_toxicity.csv",),
            ((f"{_UCI}/static/public/504/qsar+fish+toxicity.zip", "qsar_fish_toxicity.csv"),
             (f"{_UCI}/ml/machine-learning-databases/00504/qsar_fish_toxicity.csv", None)),
            ("CIC0", "SM1_Dz", "GATS1i", "NdsCH", "NdssC", "MLOGP"), "LC50", (0.0, 10.0),
            "LC50 in -log(mol/L): a round public range for acute toxicity to fathead minnows"),
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
    home = data_home or os.environ.get("LDPVIZ_DATA") or DEFAULT_DATA_HOME
    return Path(home).expanduser()


def _fetch(spec, home):
    """Download ``spec`` into ``home`` (the cache); return the path of the data file."""
    errors = []
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


def load_uci(name, data_home=None, categorical="ordinal", ranking=None, y_range="public"):
    """Load a UCI regression dataset of Appendix C.2, features min-max scaled to [0, 1].

    The file is read from ``data_home`` (else the folder in the environment variable
    ``LDPVIZ_DATA``, else ``~/ldpviz_data``). If no copy is there, it is downloaded from the
    dataset's UCI home and cached in that folder, as scikit-learn's ``fetch_*`` functions do.
    Both the layout of the local copies (comma separated, target last, no header) and the UCI
    originals (wine: ``;`` and a header) are read.

    Privacy note: as in the paper (Appendix C.2), each feature is min-max scaled with bounds read
    off the data. That is a preprocessing convenience for experiments; in a deployment the
    feature box must be public, fixed before any private data is seen
    (:func:`scale_to_box`). The label bound is public: see ``y_range`` below.

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
    y_range : "public", "data" or (float, float), default="public"
        "public": the documented range of the target (``y_range_source`` says where it comes
        from). "data": (min, max) of the labels, what the paper does (Appendix C.1 scales the
        label noise by "the range of the label"); it leaks, so a PrivacyWarning is issued.
        A pair: your own public range.

    Returns
    -------
    sklearn.utils.Bunch
        ``X`` (n, d) in [0, 1]; ``y`` (n,) the raw target; ``feature_names``; ``target_name``;
        ``y_range`` (lo, hi), a public range of the target (documented in ``y_range_source``,
        not read off the data); ``y_bound = max(|lo|, |hi|)``, a valid public bound on ``|y|``;
        ``ranking`` (feature indices, most sensitive first); ``s_star``, the aligned paradigm's
        ``ceil(log sqrt d)`` (:func:`ldpviz.masks.aligned_s_star`); ``feature_min``,
        ``feature_max`` (the scaling bounds); ``name``, ``paper_name``, ``path``, ``DESCR``.
    """
    spec = _resolve_name(name)
    check_choice(categorical, "categorical", CATEGORICAL)
    home = _data_home(data_home)
    path = next((home / f for f in spec.files if (home / f).is_file()), None)
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
    source = spec.y_range_source
    if isinstance(y_range, str) and y_range == "public":
        y_range = spec.y_range
    elif isinstance(y_range, str) and y_range == "data":
        warnings.warn(f"y_range='data' reads the label range of {spec.name} off the private "
                      "labels (the paper's choice); that is not covered by the privacy "
                      "guarantee.", PrivacyWarning, stacklevel=2)
        y_range, source = (float(y.min()), float(y.max())), "read off the labels (leaks)"
    else:
        source = "given by the caller"
    y_range = _check_range(y_range)
    bunch = _bunch(features.to_numpy(dtype=float), y, names, spec.target, y_range,
                   _ranking(ranking, names, "ranking"), None)
    bunch.update(name=spec.name, paper_name=spec.paper_name, path=str(path),
                 y_range_source=source,
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
    [0, 1] with bounds read off the data (as in Appendix C.2; see the privacy note of
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
    bunch.frame = pd.DataFrame(bunch.X, columns=names).assign(progression=bunch.y)
    bunch.update(name="diabetes", DESCR=raw.DESCR)
    return bunch
