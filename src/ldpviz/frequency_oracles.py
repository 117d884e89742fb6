"""Frequency oracles: how often each of k values occurs, from n users' epsilon-LDP reports.

The four protocols of Wang, Blocki, Li and Jha, *Locally Differentially Private Protocols for
Frequency Estimation* (USENIX Security 2017; "Wang et al." below):

* ``"grr"``: generalized randomized response (their *direct encoding*, DE): the user sends
  their value, or one of the other k - 1; Var* = ``n (k - 2 + e^eps) / (e^eps - 1)^2``.
* ``"sue"``: symmetric unary encoding (basic one-time RAPPOR): k bits, the one-hot vector of
  the value with each bit flipped with probability ``1 / (e^{eps/2} + 1)``; Var* =
  ``n e^{eps/2} / (e^{eps/2} - 1)^2``.
* ``"oue"``: optimized unary encoding: the user's own bit is 1 with probability 1/2, every
  other bit with ``1 / (e^eps + 1)``; Var* = ``n 4 e^eps / (e^eps - 1)^2``.
* ``"olh"``: optimized local hashing: a random hash function of the value into
  ``g = round(e^eps) + 1`` buckets, and GRR of the hashed value over the g buckets; Var*
  about OUE's (equal when ``e^eps + 1`` is a whole number).

All four are *pure* protocols in Wang et al.'s sense: a report supports the user's own value
with probability p* and any other value with probability q* (:func:`oracle_probabilities`), and
the server's unbiased count of value v is Wang et al.'s estimator

    c~(v) = (sum_j 1{report j supports v} - n q*) / (p* - q*),

with variance ``Var[c~(v)] = n q*(1 - q*) / (p* - q*)^2 + n f_v (1 - p* - q*) / (p* - q*)``
(f_v the true share of v); its first term is their Var* (:func:`oracle_variance`). GRR wins
for small k (``k < 3 e^eps + 2``), OUE and OLH for large k, whose Var* does not grow with k.

Three ways in:

* **at scale**: :func:`estimate_frequencies` randomizes and estimates in blocks of users, in
  O(n + k) memory and keeping no per-user report (ten million users: under a second for GRR
  and unary encoding; OLH's server tests every report against every value, n x k tests at
  about 2 ns each);
* **per user, for teaching**: the messages users send (:func:`grr_reports`,
  :func:`unary_reports`, :func:`olh_reports`) and the server's estimate from them
  (:func:`estimate_grr`, :func:`estimate_unary`, :func:`estimate_olh`);
* **theory**: :func:`oracle_probabilities`, :func:`oracle_variance`, :func:`best_oracle`.

Every function accepts one budget or one per user (an array of n budgets, ``np.inf`` = no
privacy): user i's report is then ``epsilon[i]``-LDP and the server debiases each report with
its own (public) budget. OLH's hash family is documented in :mod:`ldpviz._olh_hash`. Sizes are
checked against the resource budget (:func:`ldpviz.set_config`) before anything is allocated.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _olh_hash
from ._config import check_budget, check_rows, get_config, report_entries_allowed
from ._index import bincount
from ._oracle_theory import (
    MAX_K,
    ORACLES,
    _check_budgets,
    _check_codes,
    _check_k,
    _check_values,
    _constants,
    best_oracle,
    olh_hash_range,
    oracle_probabilities,
    oracle_variance,
)
from ._rng import as_generator
from ._validation import check_bool, check_choice

__all__ = ["MAX_K", "ORACLES", "FrequencyEstimate", "OLHReports", "best_oracle",
           "estimate_frequencies", "estimate_grr", "estimate_olh", "estimate_unary",
           "grr_reports", "olh_hash_range", "olh_reports", "oracle_probabilities",
           "oracle_variance", "unary_reports"]

# Users per block of the randomizers and of the server's sums: the work arrays stay a few
# hundred kilobytes at any n (the peers' per-user loops need none: benchmarks/).
_USER_BLOCK = 1 << 14
# (user, value) entries per block of the unary-encoding bit matrices.
_ENTRY_BLOCK = 1 << 20


def _at(x, s):
    """Per-user array ``x`` on the users of slice ``s``, or the scalar ``x``."""
    return x[s] if np.ndim(x) else x


def _blocks(n, size=_USER_BLOCK):
    return (slice(lo, min(lo + size, n)) for lo in range(0, n, size))


# ----------------------------------------------------------------------------------------------
# The estimate
# ----------------------------------------------------------------------------------------------
class FrequencyEstimate(NamedTuple):
    """What the server learns: an unbiased estimate of each value's count (or share).

    estimate : (k,) float
        Wang et al.'s ``c~(v)``, unbiased; may be negative or exceed n (do not clip it before
        averaging: clipping biases).
    variance : (k,) float
        Its theoretical variance (:func:`oracle_variance`) with the unknown true share
        replaced by the estimate clipped to [0, 1]: a plug-in estimate, ``std`` its root.
        With per-user budgets, the variance for budgets unrelated to the values.
    n : int
        Users reporting.
    oracle : str
    share : bool
        True: shares (counts / n); False: counts.
    """

    estimate: np.ndarray
    variance: np.ndarray
    n: int
    oracle: str
    share: bool

    @property
    def std(self):
        """Standard deviation of each estimate (root of ``variance``)."""
        return np.sqrt(self.variance)


def _finish(oracle, supports, n, k, eps, share):
    """FrequencyEstimate from per-value support counts (or weighted sums, per-user budgets).

    One budget: ``(supports - n q*) / (p* - q*)``. Per-user budgets: ``supports`` already holds
    ``sum_i 1{i supports v} / gap_i`` and ``sum_i q_i / gap_i`` is subtracted here.
    """
    p, q, gap = _constants(oracle, k, eps)
    if np.ndim(eps) == 0:
        count = (supports - n * q) / gap
        base, slope = n * q * (1 - q) / gap**2, n * (1 - p - q) / gap
    else:
        count = supports - np.sum(q / gap)
        base, slope = np.sum(q * (1 - q) / gap**2), np.sum((1 - p - q) / gap)
    variance = base + slope * np.clip(count / n, 0, 1)
    if share:
        return FrequencyEstimate(count / n, variance / n**2, n, oracle, True)
    return FrequencyEstimate(count, variance, n, oracle, False)


# ----------------------------------------------------------------------------------------------
# GRR (Wang et al.'s direct encoding)
# ----------------------------------------------------------------------------------------------
def _grr_draw(values, k, eps, rng):
    """GRR on one block: keep the value w.p. ``e^eps / (e^eps + k - 1)``, else report one of
    the other k - 1 uniformly (``k`` and ``eps`` scalars or per-user arrays)."""
    p, _, _ = _constants("grr", k, eps)
    keep = rng.random(len(values)) < p
    other = rng.integers(0, k - 1, size=len(values))
    other += other >= values
    return np.where(keep, values, other)


def grr_reports(values, k, epsilon, rng=None):
    """Each user's GRR report (Wang et al.'s direct encoding): a value in 0..k-1.

    Parameters
    ----------
    values : (n,) int array
        Each user's true value in 0..k-1.
    k : int >= 2
    epsilon : float in (0, inf] or (n,) array of per-user budgets
    rng : numpy Generator, int seed or None

    Returns
    -------
    (n,) intp (numpy's index type, so ``np.bincount`` takes it on every platform): the true
    value with probability ``p* = e^eps / (e^eps + k - 1)``, otherwise
    one of the other k - 1 values, each with ``q* = 1 / (e^eps + k - 1)``: epsilon-LDP since
    ``p* / q* = e^eps``. Drawn in blocks of users: :func:`estimate_frequencies` with the same
    generator state draws exactly these reports.
    """
    k = _check_k(k)
    values = _check_values(values, k)
    eps = _check_budgets(epsilon, len(values))
    rng = as_generator(rng, "rng")
    out = np.empty(len(values), dtype=np.intp)  # k <= MAX_K fits in int32
    for s in _blocks(len(values), max(_USER_BLOCK, k)):
        out[s] = _grr_draw(values[s], k, _at(eps, s), rng)
    return out


def estimate_grr(reports, k, epsilon, share=False):
    """The server's unbiased frequency estimate from GRR reports, in O(n + k) memory.

    ``(#{reports = v} - n q*) / (p* - q*)`` (Wang et al.'s estimator, p*, q* as in
    :func:`grr_reports`); with per-user budgets each report is debiased with its own.

    Parameters
    ----------
    reports : (n,) int array of values in 0..k-1
    k : int >= 2
    epsilon : float or (n,) array, the budgets the reports were made with
    share : bool
        Estimate shares (count / n) instead of counts.

    Returns
    -------
    FrequencyEstimate
    """
    k = _check_k(k)
    reports = _check_codes(reports, k, "reports", f"GRR reports over k={k} values")
    eps = _check_budgets(epsilon, len(reports))
    weights = None if np.ndim(eps) == 0 else 1 / _constants("grr", k, eps)[2]
    supports = bincount(reports, weights=weights, minlength=k)
    return _finish("grr", supports, len(reports), k, eps, check_bool(share, "share"))


# ----------------------------------------------------------------------------------------------
# Unary encoding (SUE, OUE)
# ----------------------------------------------------------------------------------------------
def _unary_oracle(optimized):
    return "oue" if check_bool(optimized, "optimized") else "sue"


def _column(x, s):
    return x[s, None] if np.ndim(x) else x


def unary_reports(values, k, epsilon, rng=None, optimized=True):
    """Each user's unary-encoding report: k bits, the one-hot vector of their value randomized.

    Materialises n x k bits, for teaching and tests: refused, before anything is allocated,
    beyond the resource budget (``max_bytes``, ``max_report_entries``); at scale use
    :func:`estimate_frequencies`, which keeps only the k column sums.

    Parameters
    ----------
    values : (n,) int array in 0..k-1
    k : int >= 2
    epsilon : float in (0, inf] or (n,) array of per-user budgets
    rng : numpy Generator, int seed or None
    optimized : bool
        True: OUE (Wang et al.), the user's bit is 1 with probability ``p* = 1/2`` and every
        other bit with ``q* = 1 / (e^eps + 1)``. False: SUE (basic one-time RAPPOR),
        ``p* = e^{eps/2} / (e^{eps/2} + 1)``, ``q* = 1 - p*``.

    Returns
    -------
    (n, k) bool. Privacy: another value changes two bits' probabilities, by factors whose
    product is ``p*(1 - q*) / ((1 - p*) q*) = e^eps`` (SUE: ``e^{eps/2}`` each; OUE: 1 and
    ``e^eps``).
    """
    oracle = _unary_oracle(optimized)
    k = _check_k(k)
    values = _check_values(values, k)
    n = len(values)
    eps = _check_budgets(epsilon, n)
    rng = as_generator(rng, "rng")
    rows = max(1, _ENTRY_BLOCK // k)
    sizes = {"max_bytes": n * k + 9 * min(rows, n) * k, "max_report_entries": n * k}
    check_budget(f"unary_reports over k={k} values", "n", n, sizes, n_report=n,
                 advice=f"use n <= {_fitting_users(k)} here, or estimate_frequencies(values, "
                        f"k, epsilon, '{oracle}'), which keeps only the k column sums")
    p, q, _ = _constants(oracle, k, eps)
    bits = np.empty((n, k), dtype=bool)
    for s in _blocks(n, rows):
        u = rng.random((s.stop - s.start, k))
        block = bits[s]
        np.less(u, _column(q, s), out=block)
        users, own = np.arange(len(u)), values[s]
        block[users, own] = u[users, own] < _at(p, s)
    return bits


def _fitting_users(k):
    """Most users whose n x k bits fit the budget (for the refusal's advice)."""
    config = get_config()
    by_bytes = config["max_bytes"] // (10 * k)
    by_entries = max(config["max_report_entries"] // k,
                     0 if k > config["max_report_entries_per_user"] else by_bytes)
    return max(1, min(by_bytes, by_entries))


def estimate_unary(reports, epsilon, optimized=True, share=False):
    """The server's unbiased frequency estimate from unary-encoding reports.

    ``(column sum of v - n q*) / (p* - q*)`` (Wang et al.'s estimator, p*, q* as in
    :func:`unary_reports`), summed in blocks of users.

    Parameters
    ----------
    reports : (n, k) array of 0/1 (bool or integers)
    epsilon : float or (n,) array, the budgets the reports were made with
    optimized : bool
        True for OUE reports, False for SUE.
    share : bool

    Returns
    -------
    FrequencyEstimate
    """
    oracle = _unary_oracle(optimized)
    bits = np.asarray(reports)
    if bits.ndim != 2 or bits.shape[0] < 1 or bits.shape[1] < 2 or bits.dtype.kind not in "biu":
        raise ValueError(f"reports must be an (n, k) array of 0/1 bits with n >= 1 and k >= 2, "
                         f"got shape {bits.shape}, dtype {bits.dtype}.")
    if bits.dtype.kind != "b" and (bits.min() < 0 or bits.max() > 1):
        raise ValueError("reports must hold only 0 and 1 (one bit per value), got "
                         f"{bits.min() if bits.min() < 0 else bits.max()!r}.")
    n, k = bits.shape
    k = _check_k(k)
    eps = _check_budgets(epsilon, n)
    weights = None if np.ndim(eps) == 0 else 1 / _constants(oracle, k, eps)[2]
    supports = np.zeros(k)
    for s in _blocks(n, max(1, _ENTRY_BLOCK // k)):
        if weights is None:
            supports += np.count_nonzero(bits[s], axis=0)
        else:
            supports += weights[s] @ bits[s]
    return _finish(oracle, supports, n, k, eps, check_bool(share, "share"))


def _unary_column_sums(values, k, eps, oracle, rng):
    """The k column sums of the users' unary reports, drawn from their exact distribution.

    Given the values, column v's sum is ``Binomial(c_v, p*) + Binomial(n - c_v, q*)`` (c_v the
    users holding v), independently over columns: the same distribution as the sums of
    :func:`unary_reports`' bits (not the same draws), in O(n + k) time. Per-user budgets: the
    users are grouped by budget, and each group's sums are weighted by its ``1 / (p* - q*)``.
    """
    if np.ndim(eps) == 0:
        p, q, _ = _constants(oracle, k, eps)
        held = bincount(values, minlength=k)
        return rng.binomial(held, p) + rng.binomial(len(values) - held, q)
    levels, group = np.unique(eps, return_inverse=True)
    order = np.argsort(group, kind="stable")
    edges = np.r_[0, np.cumsum(bincount(group, minlength=len(levels)))]
    p, q, gap = _constants(oracle, k, levels)
    supports = np.zeros(k)
    chunk = max(1, _ENTRY_BLOCK // k)
    for lo in range(0, len(levels), chunk):
        hi = min(lo + chunk, len(levels))
        users = order[edges[lo]:edges[hi]]
        held = bincount((group[users] - lo) * k + values[users],
                        minlength=(hi - lo) * k).reshape(hi - lo, k)
        size = np.diff(edges[lo:hi + 1])[:, None]
        sums = rng.binomial(held, p[lo:hi, None]) + rng.binomial(size - held, q[lo:hi, None])
        supports += (sums / gap[lo:hi, None]).sum(axis=0)
    return supports


# ----------------------------------------------------------------------------------------------
# Optimized local hashing (OLH)
# ----------------------------------------------------------------------------------------------
class OLHReports(NamedTuple):
    """What each OLH user sends: their hash function and a randomized hashed value.

    a, b : (n,) int64
        The user's hash ``h(x) = floor(g ((a x + b) mod P) / P)``, P = 2^31 - 1, drawn
        uniformly (a >= 1) from the one Generator, independently of the value
        (:mod:`ldpviz._olh_hash`).
    value : (n,) int64
        GRR over the g buckets of ``h(x)``: ``h(x)`` with probability
        ``e^eps / (e^eps + g - 1)``, else another bucket.
    g : int or (n,) int64
        Buckets, :func:`olh_hash_range` of the budget(s).
    """

    a: np.ndarray
    b: np.ndarray
    value: np.ndarray
    g: int | np.ndarray


def _olh_block(k):
    """Users per block of OLH: small blocks for small k (a few hundred kilobytes of work
    arrays), larger for large k, where numpy's per-value call overhead would dominate."""
    return _USER_BLOCK if k <= 64 else _olh_hash.COUNT_BLOCK


def _olh_draw(values, g, eps, rng):
    a, b = _olh_hash.draw_seeds(len(values), rng)
    return a, b, _grr_draw(_olh_hash.hash_values(values, a, b, g), g, eps, rng)


def olh_reports(values, k, epsilon, rng=None):
    """Each user's OLH report (Wang et al.'s optimized local hashing): ``(a, b, value)``.

    Parameters
    ----------
    values : (n,) int array in 0..k-1
    k : int >= 2
    epsilon : float in (0, inf] or (n,) array of per-user budgets
    rng : numpy Generator, int seed or None

    Returns
    -------
    OLHReports. Privacy: the hash is drawn independently of the value and the hashed value
    goes through GRR over g buckets, so two values' report probabilities differ by a factor
    at most ``e^eps``. :func:`estimate_frequencies` with the same generator state draws
    exactly these reports.
    """
    k = _check_k(k)
    values = _check_values(values, k)
    n = len(values)
    eps = _check_budgets(epsilon, n)
    rng = as_generator(rng, "rng")
    check_rows("olh_reports", n, 32)
    g = olh_hash_range(eps)
    a, b, value = (np.empty(n, dtype=np.int64) for _ in range(3))
    for s in _blocks(n, _olh_block(k)):
        a[s], b[s], value[s] = _olh_draw(values[s], _at(g, s), _at(eps, s), rng)
    return OLHReports(a, b, value, g)


def _check_olh_work(n, k, owner):
    """Refuse the server's n x k support tests beyond the report-entry budget."""
    allowed = report_entries_allowed(n)
    check_budget(owner, "k", k, {"max_report_entries": n * k}, n_report=n,
                 fits=allowed // n, advice=f"use k <= {allowed // n} (OLH tests every report "
                 "against every value), or GRR/OUE")


def estimate_olh(reports, k, epsilon, share=False):
    """The server's unbiased frequency estimate from OLH reports.

    A report supports v when ``h(v) = value``; ``(#{reports supporting v} - n q*) / (p* -
    q*)`` (Wang et al.'s estimator) with p*, q* of :func:`oracle_probabilities` (q* uses the
    hash family's exact collision probability, so the estimate is exactly unbiased). The n x k
    support tests run in blocks of users (memory O(n + k)) and are checked against the
    resource budget first.

    Parameters
    ----------
    reports : OLHReports (or a tuple ``(a, b, value, g)``)
    k : int >= 2
    epsilon : float or (n,) array, the budgets the reports were made with
    share : bool

    Returns
    -------
    FrequencyEstimate
    """
    k = _check_k(k)
    if not isinstance(reports, tuple) or len(reports) != 4:
        raise ValueError("reports must be the OLHReports (a, b, value, g) of olh_reports, got "
                         f"{type(reports).__name__}.")
    a = _check_codes(reports[0], _olh_hash.PRIME, "reports.a", "hash multipliers")
    n = len(a)
    eps = _check_budgets(epsilon, n)
    g = olh_hash_range(eps)
    if np.any(np.asarray(reports[3]) != g):
        raise ValueError("reports.g must be olh_hash_range(epsilon) for the budgets given: "
                         "the reports were made with another epsilon.")
    b = _check_codes(reports[1], _olh_hash.PRIME, "reports.b", "hash offsets")
    value = _check_codes(reports[2], g, "reports.value", "hashed values, in 0..g-1")
    if not len(a) == len(b) == len(value):
        raise ValueError(f"reports.a, .b and .value must have one entry per user, got lengths "
                         f"{len(a)}, {len(b)}, {len(value)}.")
    if np.any(a == 0):
        raise ValueError("reports.a must be >= 1 (a hash multiplier of 0 maps every value "
                         "alike).")
    _check_olh_work(n, k, "estimate_olh")
    weights = None if np.ndim(eps) == 0 else 1 / _constants("olh", k, eps)[2]
    supports = _olh_hash.support_counts(a, b, value, g, k, weights)
    return _finish("olh", supports, n, k, eps, check_bool(share, "share"))


# ----------------------------------------------------------------------------------------------
# At scale: randomize and estimate in blocks, no per-user report kept
# ----------------------------------------------------------------------------------------------
def estimate_frequencies(values, k, epsilon, oracle, rng=None, share=False):
    """Run a frequency oracle on n users: randomize every value, estimate the k frequencies.

    Memory O(n + k) beyond the values whatever n (blocks of users), nothing per user kept:

    * ``"grr"``, ``"olh"``: draws exactly the reports of :func:`grr_reports` /
      :func:`olh_reports` (same generator state) block by block and sums them as
      :func:`estimate_grr` / :func:`estimate_olh` do (OLH: n x k support tests, checked
      against the resource budget);
    * ``"sue"``, ``"oue"``: draws the k column sums of the users' bits exactly from their
      distribution (two binomials per column and budget), which equals that of the sums of
      :func:`unary_reports`' bits; the n x k bits are never drawn.

    Parameters
    ----------
    values : (n,) int array
        Each user's true value in 0..k-1.
    k : int >= 2
        Number of possible values.
    epsilon : float in (0, inf] or (n,) array of per-user budgets
        Each user's report is ``epsilon``-LDP (``np.inf``: no privacy).
    oracle : {"grr", "sue", "oue", "olh"}
        :func:`best_oracle` names the one with the smallest variance at (k, epsilon).
    rng : numpy Generator, int seed or None
    share : bool
        Estimate shares (count / n) instead of counts.

    Returns
    -------
    FrequencyEstimate
        Unbiased estimates (Wang et al.'s estimator) and their theoretical variance.

    Examples
    --------
    >>> import numpy as np
    >>> from ldpviz.frequency_oracles import estimate_frequencies
    >>> values = np.random.default_rng(0).integers(0, 16, 100_000)
    >>> est = estimate_frequencies(values, 16, 1.0, "oue", rng=1)
    >>> bool(np.all(np.abs(est.estimate - np.bincount(values)) < 5 * est.std))
    True
    """
    check_choice(oracle, "oracle", ORACLES)
    k = _check_k(k)
    values = _check_values(values, k)
    n = len(values)
    eps = _check_budgets(epsilon, n)
    rng = as_generator(rng, "rng")
    share = check_bool(share, "share")
    gap = None if np.ndim(eps) == 0 else _constants(oracle, k, eps)[2]
    if oracle in ("sue", "oue"):
        levels = 1 if gap is None else len(np.unique(eps))
        check_budget(f"estimate_frequencies({oracle!r})", "k", k,
                     {"max_report_entries": n + levels * k}, n_report=n,
                     advice="use fewer distinct budgets (round them)")
        supports = _unary_column_sums(values, k, eps, oracle, rng)
        return _finish(oracle, supports, n, k, eps, share)
    supports = np.zeros(k)
    if oracle == "olh":
        _check_olh_work(n, k, "estimate_frequencies('olh')")
        g = olh_hash_range(eps)
        for s in _blocks(n, _olh_block(k)):
            a, b, value = _olh_draw(values[s], _at(g, s), _at(eps, s), rng)
            supports += _olh_hash.support_counts(a, b, value, _at(g, s), k,
                                                 None if gap is None else 1 / gap[s])
    else:
        for s in _blocks(n, max(_USER_BLOCK, k)):
            reports = _grr_draw(values[s], k, _at(eps, s), rng)
            supports += bincount(reports, None if gap is None else 1 / gap[s], minlength=k)
    return _finish(oracle, supports, n, k, eps, share)
