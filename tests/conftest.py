import numpy as np
import pytest


@pytest.fixture
def rng():
    """A fixed-seed generator: statistical tests are reproducible."""
    return np.random.default_rng(20250101)
