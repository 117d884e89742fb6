"""The small computations and pictures of notebook 01 (local DP fundamentals).

Each function answers one question the notebook asks, so that its cells read as prose, one
call and a table or picture:

* why releasing data needs a definition: a linkage attack on "de-identified" records
  (:func:`linkage_example`) and a reconstruction attack on noisy counts
  (:func:`reconstruction_attack`, Dinur and Nissim, 2003);
* central DP: the Laplace mechanism on one count and its neighbouring dataset
  (:func:`laplace_mechanism`, :func:`plot_neighbouring_counts`);
* what trusting nobody costs: the noise of an average under central and local DP
  (:func:`local_vs_central`);
* composition: what asking one person again and again reveals
  (:func:`repeated_collection`).

References: C. Dwork, A. Roth, *The Algorithmic Foundations of Differential Privacy* (2014),
Sections 2-3; I. Dinur, K. Nissim, *Revealing information while preserving privacy*, PODS
2003; L. Sweeney, *k-anonymity: a model for protecting privacy*, 2002.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._index import bincount
from .._rng import as_generator
from .._validation import check_epsilon, check_int, check_real
from ..mechanisms import grr_probabilities, privatize_labels
from ._lazy import LazyModule
from .plots import COLORS, STYLE

plt = LazyModule("matplotlib.pyplot")  # imported when something is drawn

#: Largest n x n_queries matrix the reconstruction attack builds (8 bytes an entry).
MAX_ATTACK_ENTRIES = 4_000_000


def laplace_mechanism(value, sensitivity, epsilon, rng):
    """Central DP: release ``value + Laplace(sensitivity / epsilon)`` (Dwork and Roth, 3.3).

    ``sensitivity`` is the most ``value`` can change between two neighbouring datasets (one
    person added or removed, or changed): 1 for a count. The release is then epsilon-DP.
    """
    scale = check_real(sensitivity, "sensitivity", low=0, low_open=True) / \
        check_epsilon(epsilon)
    value = np.asarray(value, dtype=float)
    out = value + as_generator(rng).laplace(0.0, scale, size=value.shape)
    return float(out) if out.ndim == 0 else out


def linkage_example():
    """A "de-identified" hospital table and a public voter list sharing ZIP, birth date, sex.

    Names are removed from the hospital's records, yet the three columns both tables share
    single most people out: Sweeney (2000) estimated that 87% of the US population of 1990 was
    unique on 5-digit ZIP code, birth date and sex (Golle, 2006: 63% with the 2000 census).
    Fictitious people.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        The released records (ZIP, birth date, sex, diagnosis) and the voter list (name, ZIP,
        birth date, sex).
    """
    released = pd.DataFrame({
        "zip": ["02138", "02138", "02139", "02141", "02139"],
        "birth date": ["1945-07-31", "1962-03-14", "1945-07-31", "1979-11-02", "1988-05-20"],
        "sex": ["M", "F", "F", "M", "F"],
        "diagnosis": ["heart disease", "asthma", "diabetes", "depression", "HIV"],
    })
    voters = pd.DataFrame({
        "name": ["F. Fischer", "A. Alvarez", "B. Brown", "C. Chen", "D. Diallo", "E. Evans"],
        "zip": ["02138", "02138", "02139", "02141", "02139", "02138"],
        "birth date": ["1945-07-31", "1962-03-14", "1945-07-31", "1979-11-02", "1988-05-20",
                       "1945-07-31"],
        "sex": ["M", "F", "F", "M", "F", "F"],
    })
    return released, voters


def reconstruction_attack(noise_levels, n=100, n_queries=400, epsilon=None, seed=0):
    """How many secret bits an attacker recovers from noisy answers to random subset counts.

    A curator holds one secret bit per person and answers ``n_queries`` counting queries
    ("how many of these people have the bit?", each person in each subset with probability
    1/2), adding to each answer an error drawn uniformly in ``[-E, E]``. The attacker solves
    the least-squares problem for the bits and rounds (Dinur and Nissim, 2003, with least
    squares for their linear program). Errors well below ``sqrt(n)`` give almost every bit
    away; errors of order ``sqrt(n)`` and beyond do not.

    Parameters
    ----------
    noise_levels : sequence of float
        The error bounds E to try (0 = exact answers).
    n, n_queries : int
        People and queries.
    epsilon : float or None
        Adds a last row: every answer released by the Laplace mechanism with a total budget
        epsilon over all queries (each answer epsilon / n_queries, sequential composition), so
        the Laplace scale is ``n_queries / epsilon``.
    seed : int

    Returns
    -------
    pandas.DataFrame
        One row per noise level: ``noise``, ``typical error of one answer`` (its standard
        deviation) and ``share of bits recovered``.
    """
    n = check_int(n, "n", low=2, high=MAX_ATTACK_ENTRIES)
    n_queries = check_int(n_queries, "n_queries", low=1, high=MAX_ATTACK_ENTRIES)
    if n * n_queries > MAX_ATTACK_ENTRIES:
        raise ValueError(f"reconstruction_attack with n={n} and n_queries={n_queries} would "
                         f"build a {n * n_queries:,}-entry matrix; keep n * n_queries <= "
                         f"{MAX_ATTACK_ENTRIES:,} (e.g. n_queries <= "
                         f"{MAX_ATTACK_ENTRIES // n:,}).")
    levels = [check_real(e, "noise_levels", low=0) for e in np.atleast_1d(noise_levels)]
    rng = as_generator(seed)
    secret = rng.random(n) < 0.5
    subsets = (rng.random((n_queries, n)) < 0.5).astype(float)
    truth = subsets @ secret
    rows = []
    releases = [(f"error at most {e:g}", e / np.sqrt(3),
                 truth + rng.uniform(-e, e, n_queries)) for e in levels]
    if epsilon is not None:
        scale = n_queries / check_epsilon(epsilon)
        releases.append((f"Laplace, total ε = {epsilon:g}", np.sqrt(2) * scale,
                         laplace_mechanism(truth, 1.0, epsilon / n_queries, rng)))
    for name, sd, answers in releases:
        guess = np.linalg.lstsq(subsets, answers, rcond=None)[0] > 0.5
        rows.append({"noise": name, "typical error of one answer": sd,
                     "share of bits recovered": float(np.mean(guess == secret))})
    return pd.DataFrame(rows).set_index("noise")


def local_vs_central(n_users=10_000, epsilon=1.0, y_bound=1.0, repeats=200, seed=0):
    """The noise of an average of labels in [-M, M] under central and under local DP.

    Central: a trusted curator adds ``Laplace(2M / (n epsilon))`` to the average (one label
    moves the average by at most ``2M / n``). Local: every user adds ``Laplace(2M /
    epsilon)`` to their own label (eq 4) and the server averages. Each is simulated
    ``repeats`` times on the same labels.

    Returns
    -------
    pandas.DataFrame
        The simulated standard deviation of the released average and its formula, one row
        per model.
    """
    n_users = check_int(n_users, "n_users", low=1, high=10_000_000)
    repeats = check_int(repeats, "repeats", low=2, high=10_000)
    if n_users * repeats > 50_000_000:
        raise ValueError(f"local_vs_central would draw n_users * repeats = "
                         f"{n_users * repeats:,} labels; keep it <= 50,000,000.")
    epsilon, y_bound = check_epsilon(epsilon), check_real(y_bound, "y_bound", low=0,
                                                          low_open=True)
    rng = as_generator(seed)
    labels = rng.uniform(-y_bound, y_bound, n_users)
    central = laplace_mechanism(np.full(repeats, labels.mean()), 2 * y_bound / n_users,
                                epsilon, rng)
    local = [privatize_labels(labels, epsilon, y_bound, rng).mean() for _ in range(repeats)]
    formula = np.sqrt(2) * 2 * y_bound / epsilon
    return pd.DataFrame(
        {"noise SD of the average, simulated": [central.std(), np.std(local)],
         "formula": [formula / n_users, formula / np.sqrt(n_users)]},
        index=["central DP (one curator)", "local DP (every user)"])


def repeated_collection(epsilon, repeats):
    """Asking one person the same yes/no question again, each time with fresh randomized
    response at budget epsilon.

    Returns
    -------
    pandas.DataFrame
        Per number of answers R: the total budget ``R epsilon`` (sequential composition), the
        largest posterior an attacker can reach from a 50% prior,
        ``e^(R eps) / (1 + e^(R eps))``, and the exact probability that the majority of the R
        answers is the truth (ties broken by a coin).
    """
    from scipy import stats  # seconds to compile in a browser tab: not in the first cell

    epsilon = check_epsilon(epsilon)
    keep = float(grr_probabilities(2, epsilon)[0])
    rows = []
    for r in np.atleast_1d(repeats):
        r = check_int(int(r) if float(r).is_integer() else r, "repeats", low=1)
        majority = stats.binom.sf(r // 2, r, keep) + (0.5 * stats.binom.pmf(r // 2, r, keep)
                                                      if r % 2 == 0 else 0.0)
        rows.append({"answers": r, "total ε": r * epsilon,
                     "posterior from 50%, at most": 1 / (1 + np.exp(-r * epsilon)),
                     "majority of the answers is the truth": float(majority)})
    return pd.DataFrame(rows).set_index("answers")


def plot_neighbouring_counts(epsilon=1.0, count=41):
    """The Laplace mechanism on a count, for a dataset and its neighbour (one person more).

    Left: the two output densities. Right: their log ratio, which never leaves
    ``[-epsilon, epsilon]``: whatever is released, it was almost as likely under either
    dataset.

    Returns
    -------
    matplotlib.figure.Figure
    """
    epsilon = check_epsilon(epsilon)
    if not np.isfinite(epsilon):
        raise ValueError("plot_neighbouring_counts needs a finite epsilon (np.inf adds no "
                         "noise and has no density to draw).")
    from scipy import stats  # seconds to compile in a browser tab: not in the first cell

    count = check_int(count, "count", low=0, high=10**9)
    scale = 1.0 / epsilon
    x = np.linspace(count - 6 * scale, count + 1 + 6 * scale, 801)
    dens = [stats.laplace.pdf(x, loc=c, scale=scale) for c in (count, count + 1)]
    with plt.rc_context(STYLE):
        fig = plt.figure(figsize=(8.6, 3.7), layout="constrained")
        plt.close(fig)
        left, right = fig.subplots(1, 2)
        for c, d, color in zip((count, count + 1), dens, COLORS[:2], strict=True):
            who = "dataset D" if c == count else "neighbour D' (one person more)"
            left.plot(x, d, color=color, lw=2, label=f"{who}: true count {c}")
        left.set(xlabel="released count", ylabel="density", title="the two output densities")
        fig.legend(frameon=False, loc="outside lower center", ncols=2, fontsize="small")
        right.plot(x, np.log(dens[1] / dens[0]), color=COLORS[2], lw=2)
        for bound in (-epsilon, epsilon):
            right.axhline(bound, color="0.4", ls="--", lw=1)
        right.set(xlabel="released count", ylabel="log(density D' / density D)",
                  title=rf"log ratio stays within $\pm\varepsilon$ = ±{epsilon:g}")
    return fig


def compare_oracles(k, epsilon, n=100_000, seed=0):
    """Each frequency oracle run once on the same ``n`` people: its error against the truth
    next to the standard deviation the theory predicts (Wang et al., USENIX Security 2017).

    The people's values follow a skewed law over ``0 .. k-1`` (shares proportional to
    ``1 / (v + 1)``). Each oracle randomizes and estimates with
    :func:`ldpviz.frequency_oracles.estimate_frequencies`.

    Returns
    -------
    pandas.DataFrame
        One row per oracle: ``message`` (what one person sends), ``SD of a share (theory)``
        (the root of the mean theoretical variance over the k shares), ``RMS error
        (measured)`` over the k shares, and their ratio, near 1 when the theory holds.
    """
    from .. import frequency_oracles as fo

    k = check_int(k, "k", low=2, high=1 << 20)
    n = check_int(n, "n", low=1, high=10_000_000)
    epsilon = check_epsilon(epsilon)
    rng = as_generator(seed)
    weights = 1.0 / np.arange(1, k + 1)
    values = rng.choice(k, size=n, p=weights / weights.sum())
    truth = bincount(values, minlength=k) / n
    messages = {"grr": "one value", "sue": f"{k} bits", "oue": f"{k} bits",
                "olh": "a hash seed and one bucket"}
    rows = []
    for oracle in fo.ORACLES:
        found = fo.estimate_frequencies(values, k, epsilon, oracle, rng, share=True)
        theory = np.sqrt(np.mean(fo.oracle_variance(oracle, n, k, epsilon, truth,
                                                    share=True)))
        measured = np.sqrt(np.mean((found.estimate - truth) ** 2))
        rows.append({"oracle": oracle, "message": messages[oracle],
                     "SD of a share (theory)": theory, "RMS error (measured)": measured,
                     "measured / theory": measured / theory})
    return pd.DataFrame(rows).set_index("oracle")
