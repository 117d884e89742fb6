"""What the mechanism explorers show: one user's release (eqs 4, 5, 16), the frequency
oracles' variance, and BCDP's per-coordinate error (the BCDP paper's Figure 3)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .._validation import (
    check_int,
    check_real,
    check_rho,
    check_simulable,
    check_target,
    resolve_y_bound,
)
from ..frequency_oracles import ORACLES, best_oracle, olh_hash_range, oracle_variance
from ..mechanisms import (
    grr_probabilities,
    laplace_log_density,
    laplace_scale,
    rr_probabilities,
    split_budget,
)

MAX_CELLS_SHOWN = 1_000_000  # mechanism_view's k: its GRR law is returned cell by cell


def mechanism_view(epsilon=1.0, rho=0.5, y_bound=1.0, k=6, labels=(-1.0, 1.0)):
    """What one user's release looks like (eqs 4, 5, 16), for the first notebook.

    Returns ``grid`` and ``density`` (a dict from true label to the density of the released
    label on the grid), the Laplace ``scale``, ``grr_probs`` (probability of reporting each of
    k cells, the true one first), ``rr_keep`` (probability a randomized-response bit is kept),
    and the budget split ``epsilon_label``, ``epsilon_cells``.
    """
    k = check_int(k, "k", 1, MAX_CELLS_SHOWN)  # one probability per cell is returned
    rho = check_rho(rho)
    labels = check_target(labels, np.size(labels), "labels")
    if not labels.size:
        raise ValueError("labels must hold at least one label, got none.")
    y_bound = resolve_y_bound(y_bound, labels)
    if check_simulable(epsilon, (rho, 1.0 - rho), y_bound, rho) == np.inf:
        raise ValueError("epsilon must be finite here: with no privacy the label is sent as "
                         "is and has no density to draw, got inf.")
    eps_label, eps_cells = split_budget(epsilon, rho)
    scale = laplace_scale(eps_label, y_bound)
    reach = y_bound + 6 * scale
    grid = np.linspace(-reach, reach, 401)
    labels = tuple(labels.tolist())
    density = {y0: np.exp(laplace_log_density(grid, y0, eps_label, y_bound)) for y0 in labels}
    p_true, p_other = grr_probabilities(k, eps_cells)
    return {
        "grid": grid, "density": density, "scale": scale, "labels": labels,
        "grr_probs": np.r_[p_true, np.full(k - 1, p_other)],
        "rr_keep": rr_probabilities(eps_cells)[0],
        "epsilon_label": eps_label, "epsilon_cells": eps_cells,
    }


#: Domain sizes and budgets of :func:`oracle_variance_view`'s two curves.
ORACLE_K_GRID = np.unique(np.rint(np.geomspace(2, 1 << 16, 65)).astype(np.int64))
ORACLE_EPSILONS = np.linspace(0.25, 6.0, 47)
ORACLE_NAMES = {"grr": "GRR", "sue": "SUE", "oue": "OUE", "olh": "OLH"}


def oracle_variance_view(epsilon=1.0, k=16, n=10_000):
    """How precisely each frequency oracle estimates a share, against k and against epsilon.

    The variance of one value's estimated share (count / n) at true share 0, Wang et al.'s
    Var* / n^2 (:func:`ldpviz.frequency_oracles.oracle_variance`), for GRR, SUE, OUE and OLH:
    GRR's grows with k, the others' do not, and GRR is best below ``k = 3 e^eps + 2``.

    Parameters
    ----------
    epsilon : float in (0, 20]
        Budget of the curves against k.
    k : int in [2, 2^31 - 2]
        Number of values of the curves against epsilon.
    n : number of users (>= 1)

    Returns
    -------
    dict with ``oracles`` (the four names), ``labels`` (display names), ``k_values``
    (:data:`ORACLE_K_GRID`) and ``by_k`` (name -> variance at each k, at ``epsilon``),
    ``epsilons`` (:data:`ORACLE_EPSILONS`) and ``by_epsilon`` (name -> variance at each
    epsilon, at ``k``), ``best_by_k`` and ``best_by_epsilon`` (the smallest's name at each
    point), ``best`` (at the given k and epsilon), ``crossover_k`` (``3 e^eps + 2``),
    ``olh_g`` (OLH's hash range at ``epsilon``) and the arguments.
    """
    epsilon = check_real(epsilon, "epsilon", low=0.0, high=20.0, low_open=True)
    k = check_int(k, "k", 2, (1 << 31) - 2)
    n = check_real(n, "n", low=1.0)
    by_k = {o: oracle_variance(o, n, ORACLE_K_GRID, epsilon, share=True) for o in ORACLES}
    by_eps = {o: oracle_variance(o, n, k, ORACLE_EPSILONS, share=True) for o in ORACLES}
    return {
        "oracles": ORACLES, "labels": ORACLE_NAMES,
        "k_values": ORACLE_K_GRID, "by_k": by_k,
        "epsilons": ORACLE_EPSILONS, "by_epsilon": by_eps,
        "best_by_k": best_oracle(ORACLE_K_GRID, epsilon),
        "best_by_epsilon": best_oracle(k, ORACLE_EPSILONS),
        "best": best_oracle(k, epsilon), "crossover_k": 3 * np.exp(epsilon) + 2,
        "olh_g": olh_hash_range(epsilon), "epsilon": epsilon, "k": k, "n": n,
    }


@lru_cache(maxsize=128)
def bcdp_view(epsilon=2.0, delta=0.2, k=2, q=0.01, zeta=0.5, n=2000, d=10):
    """:func:`ldpviz.bcdp.bcdp_explorer_data` (the Figure 3 setting of the BCDP paper) at one
    setting, cached: sliders revisit settings. Do not modify the result."""
    from .. import bcdp  # scipy.optimize and scikit-learn: only the BCDP explorer needs them

    return bcdp.bcdp_explorer_data(epsilon=epsilon, delta=delta, k=k, q=q, zeta=zeta, n=n, d=d)
