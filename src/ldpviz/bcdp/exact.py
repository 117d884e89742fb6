"""An exact privacy calculator on finite spaces: BCDP levels (Definition 4), LDP levels, the
correlation of a prior, product channels, the paper's Examples 1 and 2 and the exact finite
channel of Mechanism 1 on {-1, +1}^d data."""

from __future__ import annotations

import functools
import itertools

import numpy as np
from scipy.optimize import linprog

from .._validation import check_real
from ._checks import (
    check_channel,
    check_prior,
    check_schedule,
)
from .mechanisms import _increments

MAX_EXACT_DIM = 4


def _log_ratio_range(table):
    """max over columns of log(max over rows / min over rows); inf if some row is 0 where
    another is positive. Columns that are 0 for every row are events of probability 0."""
    hi = table.max(axis=0)
    lo = table.min(axis=0)
    live = hi > 0
    if not np.any(live):
        return 0.0
    if np.any(lo[live] == 0):
        return np.inf
    return float(np.max(np.log(hi[live] / lo[live])))


def bcdp_deltas(prior, channel):
    """Smallest delta such that ``(prior, channel)`` is delta-BCDP (Definition 4), exactly.

    For finite spaces the supremum in eq (10) over events ``R``, ``S_i``, ``S'_i`` is reached
    at single points (a ratio of sums is at most the largest ratio of its terms, and
    ``P(y | x_i in S)`` is a mixture of the ``P(y | x_i = s)``), so

        delta_i = max_y max_{s, s'} log P(y | x_i = s) / P(y | x_i = s'),

    over values ``s, s'`` of positive prior probability.

    Parameters
    ----------
    prior : array of shape (m_1, ..., m_d)
        Joint pmf of the d coordinates.
    channel : array of shape (m_1, ..., m_d, n_outputs)
        ``channel[x, y] = P(M(x) = y)``.

    Returns
    -------
    (d,) array; ``inf`` where an output rules out a value of the coordinate.
    """
    prior = check_prior(prior)
    channel = check_channel(channel, prior.shape)
    joint = prior[..., None] * channel
    out = np.empty(prior.ndim)
    for i in range(prior.ndim):
        other = tuple(j for j in range(prior.ndim) if j != i)
        marg = prior.sum(axis=other)
        pos = marg > 0
        cond = joint.sum(axis=other)[pos] / marg[pos, None]
        out[i] = _log_ratio_range(cond)
    return out


def ldp_epsilon(channel):
    """Smallest epsilon such that the channel is epsilon-LDP (Definition 1), exactly.

    ``max_y max_{x, x'} log P(y | x) / P(y | x')`` over *all* inputs (LDP ignores the prior);
    ``inf`` if some output is impossible for one input and possible for another.

    Parameters
    ----------
    channel : array of shape input_shape + (n_outputs,)
    """
    channel = check_channel(channel)
    return _log_ratio_range(channel.reshape(-1, channel.shape[-1]))


def correlation_tv(prior):
    """Per-coordinate dependence ``q_i`` of eq (13)/(15), exactly, for a finite prior.

    ``q_i = max_{s, s'} TV(pi_{x_-i | x_i = s}, pi_{x_-i | x_i = s'})``; the supremum over events
    is reached at single values because TV is convex. Assumption 1 holds with
    ``q = max(q_1, ..., q_{d-1})`` (the last coordinate is exempt).
    """
    prior = check_prior(prior)
    d = prior.ndim
    out = np.zeros(d)
    for i in range(d):
        rows = np.moveaxis(prior, i, 0).reshape(prior.shape[i], -1)
        marg = rows.sum(axis=1)
        cond = rows[marg > 0] / marg[marg > 0, None]
        if len(cond) > 1:
            diff = np.abs(cond[:, None, :] - cond[None, :, :]).sum(axis=-1) / 2.0
            out[i] = diff.max()
    return out


def product_channel(*channels):
    """Channel of independent runs of several channels on the same input (composition).

    Outputs are the tuples of outputs, flattened in C order. BCDP does not compose in general
    (Example 2); LDP and CDP do.
    """
    if not channels:
        raise ValueError("channels: give at least one channel.")
    out = check_channel(channels[0], name="channels[0]")
    for j, ch in enumerate(channels[1:], start=1):
        ch = check_channel(ch, out.shape[:-1], name=f"channels[{j}]")
        out = (out[..., :, None] * ch[..., None, :]).reshape((*out.shape[:-1], -1))
    return out


def paper_example_1(a=0.5, b=0.5, c=0.5):
    """(prior, channel) of Example 1: BCDP without LDP.

    ``x1, x2`` i.i.d. Bern(1/2); ``P(M = 1 | x) = a, b, 0, c`` for ``(x1, x2) = (0,0), (1,0),
    (0,1), (1,1)``. With ``a = b = c = 1/2`` it is (log 2, log 2)-BCDP and not LDP.
    Channel axes: (x1, x2, output in {0, 1}).
    """
    for name, v in (("a", a), ("b", b), ("c", c)):
        check_real(v, name, low=0.0, high=1.0, low_open=True)
    p1 = np.array([[a, 0.0], [b, c]])  # p1[x1, x2]
    return np.full((2, 2), 0.25), np.stack([1.0 - p1, p1], axis=-1)


def paper_example_2():
    """(prior, channel) of Example 2 (eq 14): 0-BCDP for x1, but two copies are not BCDP.

    ``x`` uniform on {0, 1}^3; ``M(x) = (x1 xor x2, x3)`` or ``(x2, x1 xor x3)`` with probability
    1/2 each. Output index ``2 * o1 + o2``. Channel axes: (x1, x2, x3, output).
    """
    channel = np.zeros((2, 2, 2, 4))
    for x1, x2, x3 in itertools.product((0, 1), repeat=3):
        channel[x1, x2, x3, 2 * (x1 ^ x2) + x3] += 0.5
        channel[x1, x2, x3, 2 * x2 + (x1 ^ x3)] += 0.5
    return np.full((2, 2, 2), 1.0 / 8.0), channel


@functools.cache
def _sign_patterns(dim):
    """Realisable sign patterns of ``z -> (sign(z . h))_h`` and the normals ``h``.

    ``h`` runs over {-1, +1}^dim with first entry +1 (one per antipodal pair). A pattern ``t``
    is realisable when the open cone ``{z : t_j z . h_j > 0}`` is non-empty, decided exactly
    by a linear feasibility problem.
    """
    rest = np.array(list(itertools.product((1.0, -1.0), repeat=dim - 1)), dtype=float)
    rest = rest.reshape(2 ** (dim - 1), dim - 1)
    normals = np.hstack([np.ones((len(rest), 1)), rest])
    m = len(normals)
    found = []
    for t in itertools.product((1.0, -1.0), repeat=m):
        A = -np.asarray(t)[:, None] * normals
        res = linprog(np.zeros(dim), A_ub=A, b_ub=-np.ones(m), bounds=[(None, None)] * dim,
                      method="highs")
        if res.status == 0:
            found.append(t)
    return normals, np.array(found)


def _l2_block_channel(dim, alpha):
    """Exact finite channel of Mechanism 3 on {-1, +1}^dim inputs (axes (2,)*dim + (N,)).

    For such inputs ``||x|| = r = sqrt(dim)``, so the output density on the sphere is ``2p`` on
    the half ``z . x > 0`` and ``2(1 - p)`` on the other: it depends on ``z`` only through the
    signs ``(sign(z . h))_h``, a sufficient statistic. Likelihood ratios between inputs are
    those of this finite channel; the areas of the sign cells cancel in every ratio, so each
    realisable cell gets the same mass 1/N (rows still sum to 1 by antipodal symmetry).
    """
    normals, patterns = _sign_patterns(dim)
    p = 1.0 / (1.0 + np.exp(-alpha))
    inputs = np.array(list(itertools.product((-1.0, 1.0), repeat=dim)))
    # x = x_0 h_j for the normal h_j = x_0 x, so sign(z . x) = x_0 t_j.
    j = np.array([np.flatnonzero(np.all(normals == x[0] * x, axis=1))[0] for x in inputs])
    signs = inputs[:, :1] * patterns[:, j].T
    probs = np.where(signs > 0, 2.0 * p, 2.0 * (1.0 - p)) / len(patterns)
    return probs.reshape((2,) * dim + (len(patterns),))


def mean_mechanism_channel(c):
    """Exact finite channel of Mechanism 1 (unprojected) on {-1, +1}^d inputs, d <= 4.

    Input axes index each coordinate (0 = -1, 1 = +1, matching
    :func:`correlated_bernoulli_pmf`); outputs are the joint sign patterns of all blocks (see
    :func:`_l2_block_channel`). The combination with weights and the projection are
    post-processing, so ``bcdp_deltas(prior, mean_mechanism_channel(c))`` and
    ``ldp_epsilon(...)`` are the exact privacy levels of :class:`BCDPMean` for that prior.
    ``c = alpha * ones`` gives the alpha-LDP baseline. Zero-budget blocks release nothing.
    """
    c = check_schedule(c)
    d = len(c)
    if d > MAX_EXACT_DIM:
        raise ValueError(f"c has {d} entries; the exact channel is limited to d <= "
                         f"{MAX_EXACT_DIM} (it enumerates 2^(2^(d-1)) sign patterns).")
    out = np.ones((2,) * d + (1,))
    inc = _increments(c)
    for k in np.flatnonzero(inc > 0):
        block = _l2_block_channel(d - k, inc[k]).reshape((1,) * k + (2,) * (d - k) + (-1,))
        out = (out[..., :, None] * block[..., None, :]).reshape((2,) * d + (-1,))
    return out
