"""Defective inputs for the estimators' bad-input tests: each error must name the argument."""

import numpy as np

#: (argument, defect): NaN or values outside the box in X, a 1-D X, NaN or a missing entry in
#: y, a W that is not 0/1 or has the wrong shape.
DEFECTS = [("X", "nan"), ("X", "outside"), ("X", "1d"), ("y", "nan"), ("y", "short"),
           ("W", "values"), ("W", "shape")]


def with_defect(X, y, W, argument, defect):
    """Copies of (X, y, W) with one defect in ``argument``."""
    X, y, W = np.array(X, dtype=float), np.array(y, dtype=float), np.array(W, dtype=int)
    if (argument, defect) == ("X", "nan"):
        X[3, 1] = np.nan
    elif (argument, defect) == ("X", "outside"):
        X[0, 0] = 1.5
    elif (argument, defect) == ("X", "1d"):
        X = X[:, 0]
    elif (argument, defect) == ("y", "nan"):
        y[5] = np.nan
    elif (argument, defect) == ("y", "short"):
        y = y[:-1]
    elif (argument, defect) == ("W", "values"):
        W[0, 0] = 2
    else:
        W = W[:, :-1]
    return X, y, W
