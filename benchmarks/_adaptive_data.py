"""Settings, regression functions and MSE tables shared by calibrate_adaptive.py and
bench_adaptive.py (issue 15: a tuning-free AdHistOfTree).

A *setting* is (mask kind, mask parameter, epsilon): W_gamma at epsilon 4 for
gamma in {0.25, 0.5, 1, 1.5, 2, 3} (Figure 2(d)) and the aligned mask with s* in {1, 2, 3, 4} at
epsilon in {1, 2, 4, 8} (Figure 2(a)); d = 5, X ~ U[0, 1]^5, Y = f(X) + N(0, 1), public label
bound M = 3 (:data:`ldpviz.datasets.PAPER_Y_BOUND`). Every MSE is against f* on 2,000 fresh
points. Within a replication all configurations see the same users; each configuration draws
its own privacy noise (seeded by the replication and the configuration).
"""

from __future__ import annotations

import itertools

import numpy as np

from ldpviz import AdHistOfTree, HistOfTree
from ldpviz.datasets import PAPER_Y_BOUND, paper_regression_function
from ldpviz.masks import aligned_mask, gamma_mask
from ldpviz.partition import reuse_trees

M = PAPER_Y_BOUND
D = 5
N_TEST = 2000
GAMMAS = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0)
S_STARS = (1, 2, 3, 4)
EPSILONS = (1.0, 2.0, 4.0, 8.0)
SETTINGS = ([("gamma", g, 4.0) for g in GAMMAS]
            + [("aligned", s, e) for s in S_STARS for e in EPSILONS])
#: The paper's grid for a fixed HistOfTree (Appendix C.1): s in {1, 2, 3} for W_gamma
#: (Figure 2(d)), s = s* for the aligned mask; rho in {0.5, 0.7, 0.9} (AdHistOfTree chooses
#: rho too, so the comparison includes it).
PAPER_DEPTHS = (1, 2, 4, 6)
PAPER_TS = (1, 2, 3)
PAPER_SS_GAMMA = (1, 2, 3)
PAPER_RHOS = (0.5, 0.7, 0.9)


def mask(kind, value, n):
    return gamma_mask(n, D, value) if kind == "gamma" else aligned_mask(n, D, int(value))


def paper_grid(kind, value):
    """(s, p, t, rho) of the paper's grid; rho matters only where a user reports a cell (t > 1
    or, under W_gamma, users hiding tree axes), so aligned t = 1 keeps rho = 0.5 alone."""
    ss = PAPER_SS_GAMMA if kind == "gamma" else (int(value),)
    return [(s, p, t, rho) for s, p, t, rho in itertools.product(ss, PAPER_DEPTHS, PAPER_TS,
                                                                  PAPER_RHOS)
            if kind == "gamma" or t > 1 or rho == PAPER_RHOS[0]]


# ---------------------------------------------------------------------------------------------
# Regression functions
# ---------------------------------------------------------------------------------------------
def section51(X):
    """Section 5.1: sin X1 + sin X2 + sin X5 (Var f* = 0.18)."""
    return paper_regression_function(X)


def protected_signal(X):
    """Unseen 1: Lipschitz, the signal on the most protected features: a tent on X1 (slope 5),
    a ramp on X2, a little on X5 (Var f* = 0.65, 90% of it from X1 and X2)."""
    return 2.5 * (1.0 - 2.0 * np.abs(X[:, 0] - 0.5)) + 1.2 * X[:, 1] + 0.3 * X[:, 4]


def protected_ramp(X):
    """Unseen 3: Lipschitz and monotone, the signal on the most protected features (a ramp on
    X1, a parabola on X2, a little on X5; Var f* = 0.47). Added after ``protected``: its
    tent is symmetric about 1/2, so two bins see nothing of it (both have the same mean) and
    only an odd number of bins recovers it; this one tests the t = 1 guard without that
    trap."""
    return 2.0 * X[:, 0] + 1.2 * X[:, 1] ** 2 + 0.3 * X[:, 4]


def rough(X):
    """Unseen 2: rougher than Section 5.1 -- a jump on X2, a fast oscillation on X1 and X5
    (Var f* = 0.49)."""
    return (0.6 * np.sin(3 * np.pi * X[:, 0]) + 0.6 * np.sin(3 * np.pi * X[:, 4])
            + 0.8 * (X[:, 1] > 0.5))


UNSEEN = {"section51": section51, "protected": protected_signal, "rough": rough,
          "ramp": protected_ramp}


def model_class(n_functions, seed):
    """Random additive Lipschitz functions: the public model class the rule is calibrated on.

    ``f(x) = sum_{l in S} a_l sin(pi w_l x_l + phi_l)`` with S a random non-empty subset of the
    5 features (each feature in with probability 0.6, the rule's premise being that any
    feature may carry signal), w_l ~ U[0.25, 1.5] (at most one and a half half-waves: smooth,
    as in Section 5.1), phi_l ~ U[0, 2 pi], a_l ~ U[0.3, 1], then scaled so that Var f* ~
    U[0.05, 1] (for the label noise N(0, 1) and M = 3).
    """
    rng = np.random.default_rng(seed)
    grid = np.random.default_rng(seed + 1).random((20_000, D))
    out = []
    for _ in range(n_functions):
        active = rng.random(D) < 0.6
        if not active.any():
            active[rng.integers(D)] = True
        w = rng.uniform(0.25, 1.5, D)
        phi = rng.uniform(0, 2 * np.pi, D)
        a = np.where(active, rng.uniform(0.3, 1.0, D), 0.0)

        def raw(X, a=a, w=w, phi=phi):
            return np.sin(np.pi * w * X + phi) @ a

        scale = np.sqrt(rng.uniform(0.05, 1.0) / np.var(raw(grid)))
        out.append(lambda X, raw=raw, scale=scale: scale * raw(X))
    return out


# ---------------------------------------------------------------------------------------------
# Fitting
# ---------------------------------------------------------------------------------------------
def sample(f, n, rep, seed=0):
    rng = np.random.default_rng([seed, rep])
    X = rng.random((n, D))
    y = f(X) + rng.standard_normal(n)
    X_test = rng.random((N_TEST, D))
    return X, y, X_test, f(X_test)


def fixed_mse(data, W, eps, configs, rep):
    """MSE of HistOfTree at each (s, p, t) or (s, p, t, rho) in ``configs`` (rho 0.5 when not
    given, the calibration's; "auto" is HistOfTree's rule): dict config -> mse.
    Configurations that differ only in p share one label release and one grown tree (as in
    the paper's reproduction, :mod:`ldpviz.reproduce.paper`) where rho does not depend on p."""
    X, y, X_test, target = data
    out = {}
    memo = None

    def key(c):
        return (c[0], c[2], str(c[3]) if len(c) > 3 else "0.5")

    for _, group in itertools.groupby(sorted(configs, key=lambda c: (key(c), c[1])), key=key):
        with reuse_trees(memo) as memo:
            for config in group:
                s, p, t = config[:3]
                if t**s * 2**p > len(X):
                    continue
                model = HistOfTree(epsilon=eps, s=s, t=t, depth=p, y_bound=M,
                                   rho=config[3] if len(config) > 3 else 0.5,
                                   random_state=np.random.default_rng([rep, s, t, 7]))
                model.fit(X, y, W=W)
                out[config] = float(np.mean((model.predict(X_test) - target) ** 2))
    return out


def adaptive_mse(data, W, eps, rep, **params):
    """MSE and selected (s, p, t, rho) of AdHistOfTree with ``params``."""
    X, y, X_test, target = data
    model = AdHistOfTree(epsilon=eps, y_bound=M, random_state=np.random.default_rng([rep, 99]),
                         **params).fit(X, y, W=W)
    mse = float(np.mean((model.predict(X_test) - target) ** 2))
    return mse, (model.s_, model.depth_, model.t_, model.rho_)
