"""One seeded numpy Generator drives all randomness."""

from __future__ import annotations

import numbers

import numpy as np


def as_generator(random_state=None):
    """Return a numpy Generator from None, an int, a SeedSequence, a Generator or a RandomState.

    The same int always gives the same stream, so the same seed gives the same figure.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, (numbers.Integral, np.random.SeedSequence)):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**32 - 1, dtype=np.int64))
    raise ValueError(
        "random_state must be None, an int, a SeedSequence or a numpy Generator/RandomState, "
        f"got {random_state!r}."
    )
