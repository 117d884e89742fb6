"""Tick values and labels for log axes, shared by the explorers, the static figures and the
reports: plain decimals or powers of ten, never plotly's SI suffixes."""

from __future__ import annotations

import numpy as np

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _decimal(value):
    return f"{value:.10f}".rstrip("0").rstrip(".")


#: Most labels on a log axis (24 labels 13 px apart overlapped on the trade-off explorer's 46
#: decades), and the decades between labels to choose from.
MAX_LOG_TICKS = 11
LOG_TICK_STEPS = (1, 2, 5, 10, 20, 50, 100, 200)


def log_ticks(values):
    """Tick values and labels for a log axis showing ``values`` (positive ones count).

    Spans of 1.5 decades or more: powers of ten only, every decade or every k-th (k = 2, 5, 10,
    20, ...) so that at most about ten are labelled (a panel a few hundred pixels high has room
    for that many), written as decimals when all lie in [0.001, 10000], else as 10ⁿ. Shorter
    spans: 1, 2, 3, 5 times powers of ten, written as decimals. Never the SI suffixes (μ, n, B,
    T) plotly mixes in.
    """
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values) & (values > 0)]
    if not len(values):
        return [1.0], ["1"]
    low, high = np.log10(values.min()), np.log10(values.max())
    lo, hi = np.floor(low), np.ceil(high)
    if high - low >= 1.5:
        step = next(k for k in LOG_TICK_STEPS if (hi - lo) / k <= MAX_LOG_TICKS - 2)
        powers = np.arange(np.floor(lo / step) * step, hi + step, step)
        powers = powers[(powers >= -320) & (powers <= 308)]  # 10.0**k is a float
        ticks = [10.0**k for k in powers]
        if all(-3 <= k <= 4 for k in powers):
            return ticks, [_decimal(t) for t in ticks]
        return ticks, ["10" + str(int(k)).translate(_SUPERSCRIPT) for k in powers]
    ticks = [m * 10.0**k for k in np.arange(lo, hi + 1) for m in (1, 2, 3, 5)
             if m * 10.0**k <= 10.0**hi]  # the decades around the values: at most 9 labels
    return ticks, [_decimal(t) if t >= 1e-4 else f"{t:.0e}" for t in ticks]
