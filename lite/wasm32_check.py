"""The wasm32 check: the core test subset and a fingerprint of seeded fits, on any platform.

    python lite/wasm32_check.py fingerprint OUT.json     # the fits' draws and predictions
    python lite/wasm32_check.py compare A.json B.json    # same draws, predictions to 1e-12
    python lite/wasm32_check.py tests [PYTEST ARGS...]   # the core test subset

Under Pyodide (``node lite/pyodide_tests.mjs DIST -- lite/wasm32_check.py ...``) these run the
library where ``np.intp`` is int32; on x86-64 they give the reference. The fingerprint holds,
for seeded fits of every estimator and every mechanism and frequency oracle, what was drawn
(integer reports exactly, continuous noise to 1e-12: the two platforms' libm may differ in the
last bit) and the predictions on fixed points (to 1e-12: summation order may differ).
"""

from __future__ import annotations

import json
import sys

# The core subset: mechanisms and frequency oracles (with their exact privacy ratios),
# partitions, the cell sums, every estimator's fit and predict; the statistical checks marked
# slow (millions of users) stay on 64-bit machines.
SUBSET = ["tests/test_mechanisms.py", "tests/test_frequency_oracles.py", "tests/test_partition.py",
          "tests/test_cell_sums.py", "tests/test_estimators.py", "tests/test_baselines.py",
          "tests/test_classification.py", "tests/test_adaptive.py"]
TOLERANCE = 1e-12


def _estimators():
    from ldpviz import AdHistOfTree, HistOfTree
    from ldpviz.baselines import DT, KRR, LPDT, Hist, LabelDT, ParDT
    from ldpviz.classification import HistClassifier, HistOfTreeClassifier

    common = dict(epsilon=2.0, random_state=7)
    return {
        "HistOfTree grr max-edge": HistOfTree(s=2, t=2, depth=3, mechanism="grr", **common),
        "HistOfTree rr cart": HistOfTree(s=2, t=2, depth=3, mechanism="rr", rule="cart",
                                         **common),
        "HistOfTree paper estimate": HistOfTree(s=1, t=3, depth=2, cell_estimate="paper",
                                                rho=0.5, **common),
        "AdHistOfTree": AdHistOfTree(**common),
        "Hist": Hist(t=3, **common),
        "KRR": KRR(k=2, max_depth=3, s=2, **common),
        "ParDT": ParDT(max_depth=3, s=2, **common),
        "LabelDT": LabelDT(max_depth=3, **common),
        "DT": DT(max_depth=3, random_state=7),
        "LPDT": LPDT(max_depth=3, s=2, **common),
        "HistOfTreeClassifier": HistOfTreeClassifier(s=2, t=2, depth=2, classes=[0, 1],
                                                     **common),
        "HistClassifier": HistClassifier(t=2, classes=[0, 1], **common),
    }


def _arrays(obj):
    """What a fitted estimator released and learned: its numeric fitted attributes."""
    import numpy as np

    out = {}
    for name in sorted(vars(obj)):
        value = getattr(obj, name)
        if name.endswith("_") and not name.startswith("_") and isinstance(
                value, (np.ndarray, int, float, np.integer, np.floating)):
            arr = np.asarray(value)
            if arr.dtype.kind in "biuf":
                out[name] = arr
    return out


def fingerprint() -> dict:
    """Seeded fits and draws as JSON-ready lists, keyed by what produced them."""
    import numpy as np

    from ldpviz import frequency_oracles as fo
    from ldpviz import mechanisms
    from ldpviz.datasets import PAPER_Y_BOUND, make_paper_regression
    from ldpviz.masks import gamma_mask

    X, y = make_paper_regression(3_000, random_state=0)
    W = gamma_mask(len(X), X.shape[1], gamma=1.0)
    X_test, _ = make_paper_regression(200, random_state=1)
    labels = (y > np.median(y)).astype(np.intp)
    record = {"data X": X, "data y": y}
    for name, est in _estimators().items():
        classifier = "Classifier" in name
        if "y_bound" in est.get_params():
            est.set_params(y_bound=PAPER_Y_BOUND)
        est.fit(X, labels if classifier else y, W=None if name == "LabelDT" else W)
        record[f"{name} predict"] = est.predict(X_test)
        if hasattr(est, "predict_proba"):
            record[f"{name} predict_proba"] = est.predict_proba(X_test)
        for attr, arr in _arrays(est).items():
            record[f"{name} {attr}"] = arr
    rng = np.random.default_rng(11)
    values = rng.integers(0, 16, size=5_000)
    record["grr"] = mechanisms.grr(values, 16, 1.0, np.random.default_rng(1))
    record["binary_rr"] = mechanisms.binary_rr(values % 2 == 0, 1.0, np.random.default_rng(2))
    record["laplace labels"] = mechanisms.privatize_labels(y, 1.0, PAPER_Y_BOUND,
                                                           np.random.default_rng(3))
    for oracle in fo.ORACLES:
        est = fo.estimate_frequencies(values, 16, 1.0, oracle, rng=np.random.default_rng(4))
        record[f"oracle {oracle}"] = est.estimate
    olh = fo.olh_reports(values[:500], 16, 1.0, np.random.default_rng(5))
    record["olh reports"] = np.stack([olh.a, olh.b, olh.value])
    record["unary reports"] = fo.unary_reports(values[:200], 16, 1.0, np.random.default_rng(6))
    out = {}
    for key, value in record.items():
        arr = np.asarray(value)
        kind = "int" if arr.dtype.kind in "biu" else "float"
        out[key] = {"kind": kind, "shape": list(arr.shape),
                    "values": arr.astype(np.int64 if kind == "int" else np.float64).ravel()
                    .tolist()}
    return out


def compare(a: dict, b: dict) -> list[str]:
    """Differences between two fingerprints: integers exactly, floats to TOLERANCE."""
    import numpy as np

    problems = [f"{key}: only in one" for key in sorted(set(a) ^ set(b))]
    for key in sorted(set(a) & set(b)):
        x, y = a[key], b[key]
        if x["shape"] != y["shape"] or x["kind"] != y["kind"]:
            problems.append(f"{key}: {x['kind']} {x['shape']} vs {y['kind']} {y['shape']}")
            continue
        u, v = np.asarray(x["values"], dtype=float), np.asarray(y["values"], dtype=float)
        if x["kind"] == "int":
            bad = np.flatnonzero(u != v)
        else:
            with np.errstate(invalid="ignore"):  # inf - inf
                same = ((u == v) | (np.isnan(u) & np.isnan(v))
                        | (np.abs(u - v) <= TOLERANCE * np.maximum(1.0, np.abs(u))))
            bad = np.flatnonzero(~same)
        if len(bad):
            i = bad[0]
            problems.append(f"{key}: {len(bad)} of {len(u)} differ, first at {i}: "
                            f"{u[i]!r} vs {v[i]!r}")
    return problems


def _deferred_loaded():
    """Under Pyodide, whether the kernel has loaded each package the site defers that the fits
    need (else {}): the estimators' part of lite/pyodide_dist.py's DEFERRED."""
    if sys.platform != "emscripten":
        return {}
    import pyodide_js

    return {name: getattr(pyodide_js.loadedPackages, name, None) is not None
            for name in ("scipy", "scikit-learn")}


def main(argv):
    if argv[:1] == ["fingerprint"] and len(argv) == 2:
        # Under Pyodide `make lite-check` starts it with the site kernel's start packages only,
        # so the fits get scipy and scikit-learn as a course session does (_site_packages).
        if any(_deferred_loaded().values()):
            print("fingerprint: scipy or scikit-learn was loaded up front; start it with the "
                  "site's start packages (--load=...)", file=sys.stderr)
            return 1
        with open(argv[1], "w") as f:
            json.dump(fingerprint(), f)
        if not all(_deferred_loaded().values()):
            print("fingerprint: the fits did not install scipy and scikit-learn", file=sys.stderr)
            return 1
        return 0
    if argv[:1] == ["compare"] and len(argv) == 3:
        with open(argv[1]) as f, open(argv[2]) as g:
            problems = compare(json.load(f), json.load(g))
        for line in problems:
            print("fingerprint:", line)
        print(f"fingerprint: {argv[1]} and {argv[2]} "
              f"{'differ' if problems else 'match (same draws, predictions to 1e-12)'}")
        return 1 if problems else 0
    if argv[:1] == ["tests"]:
        import pytest

        return int(pytest.main(["-q", "-p", "no:cacheprovider", "-m", "not slow", *argv[1:],
                                *SUBSET]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
