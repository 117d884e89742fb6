"""Data: the paper's simulation (Section 5.1), real data with features in the public box.

* :func:`make_paper_regression`: the simulation of Section 5.1.
* :func:`load_uci`: the UCI regression datasets of Appendix C.2 (abalone, wine quality red and
  white, QSAR aquatic and fish toxicity), from a local folder or downloaded and cached.
* :func:`load_csv`: your own CSV; every column parsed explicitly, categories encoded only when a
  column is plainly text or you ask, missing and infinite values reported or dropped on request.
* :func:`load_diabetes`: scikit-learn's diabetes data with readable names and a suggested
  sensitivity ranking, for the what-if notebook.
* :func:`scale_to_box`: features into [0, 1] with public bounds fixed in advance.

Every loader returns features min-max scaled to [0, 1] (Appendix C.2), the raw target and a
public label range ``y_range`` (for the UCI data, under a policy: the declared scale, the
range of independent public data on the same scale, or the leaking private range;
:data:`LABEL_RANGE_POLICIES`). Min-max scaling reads the feature bounds off the data, as the
paper does, with a PrivacyWarning naming the protected columns so scaled; a deployment must fix
the feature box in advance (:func:`scale_to_box`).
"""

from ._common import CATEGORICAL, MISSING
from ._csv import load_csv
from ._synthetic import (
    PAPER_Y_BOUND,
    make_paper_regression,
    paper_regression_function,
    scale_to_box,
)
from ._uci import (  # _download: the network access, replaced by the tests
    DEFAULT_DATA_HOME,
    DIABETES_FEATURES,
    DIABETES_SENSITIVITY,
    LABEL_RANGE_POLICIES,
    PRIVATE_RANGE_SOURCE,
    UCI_DATASETS,
    _download,  # noqa: F401
    label_range_sources,
    load_diabetes,
    load_uci,
)

__all__ = [
    "CATEGORICAL",
    "DEFAULT_DATA_HOME",
    "DIABETES_FEATURES",
    "DIABETES_SENSITIVITY",
    "LABEL_RANGE_POLICIES",
    "MISSING",
    "PAPER_Y_BOUND",
    "PRIVATE_RANGE_SOURCE",
    "UCI_DATASETS",
    "label_range_sources",
    "load_csv",
    "load_diabetes",
    "load_uci",
    "make_paper_regression",
    "paper_regression_function",
    "scale_to_box",
]
