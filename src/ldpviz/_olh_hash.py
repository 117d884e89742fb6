"""The hash family of optimized local hashing (OLH) and the server's support counting.

Each user draws ``a`` in {1, ..., P - 1} and ``b`` in {0, ..., P - 1} from the one Generator,
P = 2^31 - 1 (a prime), and hashes a value x in {0, ..., k - 1} (k <= P - 1) to g buckets by

    h(x) = floor(g * ((a x + b) mod P) / P),

the Carter-Wegman universal family ``(a x + b) mod P`` cut into g intervals of nearly equal size
(reducing ``mod g`` instead has the same collision probability; intervals make the server's
support test one comparison). For two values x != x' the pair ``((a x + b) mod P, (a x' + b)
mod P)`` is uniform over the P (P - 1) ordered pairs of distinct residues, so the collision
probability ``Pr[h(x) = h(x')]`` is the same for every pair, known exactly
(:func:`collision_probability`, about 1/g), and the frequency estimate built on it is exactly
unbiased. Everything is vectorised over users; the server's n x k support tests run in blocks
of users with 32-bit integers (:func:`support_counts`).
"""

from __future__ import annotations

import numpy as np

PRIME = (1 << 31) - 1
# Users per block of the server's support counting: 2^16 measured fastest (the four 32-bit
# work arrays stay in cache; smaller blocks pay numpy's call overhead per value).
COUNT_BLOCK = 1 << 16


def collision_probability(g, prime=None):
    """``Pr[h(x) = h(x')]`` for two distinct values, exactly: P = Q g + R gives R buckets of
    Q + 1 residues and g - R of Q, and a colliding pair is two distinct residues of one bucket.
    """
    prime = PRIME if prime is None else prime
    g = np.asarray(g, dtype=np.int64)
    Q, R = np.divmod(prime, g)
    Q, R = Q.astype(float), R.astype(float)
    pairs = R * (Q + 1) * Q + (g - R) * Q * (Q - 1)
    return pairs / (float(prime) * (prime - 1))


def draw_seeds(n, rng):
    """Per-user hash parameters ``(a, b)``: a uniform on {1..P-1}, b uniform on {0..P-1}."""
    a = rng.integers(1, PRIME, size=n, dtype=np.int64)
    b = rng.integers(0, PRIME, size=n, dtype=np.int64)
    return a, b


def hash_values(values, a, b, g):
    """``floor(g ((a x + b) mod P) / P)`` per user (int64 throughout: a x + b < 2^62)."""
    return ((a * values + b) % PRIME) * g // PRIME


def bucket_start(j, g):
    """Smallest residue u with ``floor(g u / P) = j``: ``ceil(j P / g)``."""
    return (j * PRIME + g - 1) // g


def support_counts(a, b, value, g, k, weights=None):
    """For each v in 0..k-1, how many reports (``(a, b, value)`` with ``g`` buckets) support v,
    that is have ``h(v) = value``; with ``weights``, their weighted sum.

    The report supports v when ``(a v + b) mod P`` lies in bucket ``value``'s interval
    ``[lo, hi)``: with ``t(v) = (a v + b - lo) mod P`` that is ``t(v) < hi - lo``, and t
    advances by ``a`` (mod P) from one v to the next. 32-bit arithmetic: t + a < 2^32, and
    ``min(t, t - P)`` (unsigned) reduces it mod P without a branch. Memory: a few arrays of
    COUNT_BLOCK users; work: n x k comparisons.
    """
    counts = np.zeros(k, dtype=np.float64 if weights is not None else np.int64)
    prime = np.uint32(PRIME)
    for lo in range(0, len(a), COUNT_BLOCK):
        s = slice(lo, lo + COUNT_BLOCK)
        start = bucket_start(value[s], g[s] if np.ndim(g) else g)
        width = (bucket_start(value[s] + 1, g[s] if np.ndim(g) else g) - start).astype(np.uint32)
        t = ((b[s] - start) % PRIME).astype(np.uint32)
        step = a[s].astype(np.uint32)
        tmp = np.empty_like(t)
        hit = np.empty(len(t), dtype=bool)
        w = None if weights is None else np.asarray(weights[s], dtype=float)
        for v in range(k):
            np.less(t, width, out=hit)
            counts[v] += np.count_nonzero(hit) if w is None else w @ hit
            np.add(t, step, out=t)
            np.subtract(t, prime, out=tmp)
            np.minimum(t, tmp, out=t)
    return counts
