"""Where the local copies of the UCI datasets are (never committed): $LDPVIZ_DATA, else the
shared folder next to the checkout; ``needs_shared`` skips a test when there is none."""

import os
from pathlib import Path

import pytest

_FILES = ("abalone.csv", "winequality-red.csv", "winequality-white.csv",
          "qsar_aquatic_toxicity.csv")


def _find():
    root = Path(__file__).resolve().parents[1]
    for candidate in (os.environ.get("LDPVIZ_DATA"), root.parent / "shared" / "data"):
        if candidate and all((Path(candidate) / f).is_file() for f in _FILES):
            return Path(candidate)
    return None


SHARED = _find()
needs_shared = pytest.mark.skipif(SHARED is None, reason="the UCI copies are not here: set "
                                  "LDPVIZ_DATA (CI has them)")
