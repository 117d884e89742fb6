"""One seeded numpy Generator drives all randomness."""

from __future__ import annotations

import numbers

import numpy as np


def as_generator(random_state=None, name="random_state"):
    """Return a numpy Generator from None, an int >= 0, a SeedSequence, a Generator or a
    RandomState.

    The same int always gives the same stream, so the same seed gives the same figure.
    """
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"{name} must be an integer >= 0 (a seed), got {random_state!r}.")
        return np.random.default_rng(int(random_state))
    if random_state is None or isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**32 - 1, dtype=np.int64))
    raise ValueError(
        f"{name} must be None, an integer >= 0, a SeedSequence or a numpy "
        f"Generator/RandomState, got {random_state!r}."
    )
