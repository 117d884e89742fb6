"""The sums behind the stable cell estimate (:mod:`ldpviz.cell_estimates`), per unit: a cell, a
merged cell or a tree node. Every field is a sum over users of a function of their released
messages, so units add up (a merged cell is the sum of its cells) and anything computed from
them is post-processing.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class UnitSums(NamedTuple):
    """The sums the stable estimate needs for J units (cells, merged cells or tree nodes).

    numerator : ``sum_i Y~_i V~_i``, shape (J, m).
    denominator : ``sum_i V~_i``, shape (J,).
    excess0, excess1, excess2 : ``sum_i Y~_i^k (V~_i^2 - V~_i)`` for k = 0 (shape (J,)), 1 and
        2 (shape (J, m)); 0 for users whose V~ is exact (0 or 1).
    noise : ``sum_i nu_i V~_i``, shape (J,): the label-noise variance of the unit's users
        (each nu_i summed over the m label columns).
    partner0, partner1, partner2 : as excess0-2 with each term divided by ``|V_i| - 1``, over
        the users who report by GRR: the report noise the unit shares with each of its
        partners (:mod:`ldpviz.cell_estimates`); 0 where reports are independent across cells.
    """

    numerator: np.ndarray
    denominator: np.ndarray
    excess0: np.ndarray
    excess1: np.ndarray
    excess2: np.ndarray
    noise: np.ndarray
    partner0: np.ndarray
    partner1: np.ndarray
    partner2: np.ndarray


def report_units(sums, noise):
    """UnitSums of the cells from round 2 (a :class:`ldpviz.cell_sums.CellSums`).

    ``noise`` is ``sum_i nu_i V~_i^j`` per cell (:func:`label_noise_sums`).
    """
    num = _columns(sums.numerator)
    return UnitSums(num, np.asarray(sums.denominator, dtype=float),
                    sums.square - sums.denominator,
                    _columns(sums.square_numerator) - num,
                    _columns(sums.square_numerator2) - _columns(sums.numerator2),
                    np.asarray(noise, dtype=float), np.asarray(sums.partner, dtype=float),
                    _columns(sums.partner_numerator), _columns(sums.partner_numerator2))


def exact_units(count, label_sum, noise):
    """UnitSums of users whose membership is known exactly (V~ = 1): counts and label sums."""
    count = np.asarray(count, dtype=float)
    label_sum = _columns(label_sum)
    zero, zeros = np.zeros_like(count), np.zeros_like(label_sum)
    return UnitSums(label_sum, count, zero, zeros, zeros, np.asarray(noise, dtype=float), zero,
                    zeros, zeros)


def add_units(a, b):
    """Units holding the users of ``a`` and of ``b`` (every field is a sum over users)."""
    return UnitSums(*(x + y for x, y in zip(a, b, strict=True)))


def label_noise_sums(denominator, fixed_counts, nu, nu_fixed):
    """``sum_i nu_i V~_i^j`` when users have one of two label-noise variances.

    ``fixed_counts[j]`` users of cell j have variance ``nu_fixed`` and report their cell exactly
    (V~ = 1); every other user has ``nu``, so their share is ``nu (D_j - fixed_counts[j])``.
    """
    fixed_counts = np.asarray(fixed_counts, dtype=float)
    return nu * (np.asarray(denominator, dtype=float) - fixed_counts) + nu_fixed * fixed_counts


def unit_variance(units, center):
    """Estimated variance that privacy adds to ``numerator - center * denominator``, (J,).

    ``E2 - 2 g E1 + g^2 E0`` summed over the label columns, plus ``max(noise, 0)``.
    """
    return variance_parts(units, center)[1]


def variance_parts(units, center):
    """``(report, variance)``: the report noise ``E2 - 2 g E1 + g^2 E0`` (summed over the label
    columns) and :func:`unit_variance`, which adds the label noise to it."""
    report = _at_center(units.excess0, units.excess1, units.excess2, _columns(center))
    return report, np.maximum(report + np.maximum(units.noise, 0.0), 0.0)


def _at_center(e0, e1, e2, g):
    """``sum_i (Y~_i - g)^2 x_i`` summed over the label columns, from the sums ``e_k = sum_i
    Y~_i^k x_i``."""
    return (e2 - 2.0 * g * e1 + g * g * e0[:, None]).sum(axis=1)


def coupling(units, center, variance, report=None):
    """kappa_j: the sum over unit j's partners of the squared correlation between their noise
    and j's (:mod:`ldpviz.cell_estimates`), (J,) in [0, 1], or None when no unit shares
    report noise.

    A GRR user's report noise in cell j reappears in each of their |V_i| - 1 other potential
    cells with covariance about ``-x_ij / (|V_i| - 1)`` (x_ij: its share of Var R_j), so
    ``kappa_j ~ X_j Y_j / Var R_j^2`` with ``X_j = sum_i x_ij`` (the report noise; pass it as
    ``report`` if already computed) and ``Y_j = sum_i x_ij / (|V_i| - 1)``: ``v_j^2 / (k - 1)``
    when every user has k cells (v_j the report noise's share), 0 for binary RR.
    """
    g = _columns(center)
    shared = np.maximum(_at_center(units.partner0, units.partner1, units.partner2, g), 0.0)
    if not shared.any():
        return None
    if report is None:  # X_j: the report noise, E2 - 2 g E1 + g^2 E0
        report = _at_center(units.excess0, units.excess1, units.excess2, g)
    return np.minimum(np.maximum(report, 0.0) * shared / variance**2, 1.0)


def _columns(a):
    a = np.asarray(a, dtype=float)
    return a[:, None] if a.ndim == 1 else a
