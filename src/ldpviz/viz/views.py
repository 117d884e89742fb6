"""What each explorer shows, computed as pure functions: state in, plain arrays out.

``widgets.py`` and ``plots.py`` only draw what these return, and the tests call them directly,
so every number on screen comes from the package's estimators and formulas. All views use the
Section 5.1 simulation (d = 5, f* = sin x1 + sin x2 + sin x5) with the first ``s_star``
features private (the aligned case), unless a mask is given.

The views live by explorer family; this module gathers their public names:

* :mod:`.model_views`: the partition and surface explorers (one HistOfTree fit, on a slice);
* :mod:`.comparison_views`: every method of Figure 2 at one setting;
* :mod:`.theory_views`: the mask, the objective (11) and the bounds of Section 4;
* :mod:`.mechanism_views`: one user's release, the frequency oracles, BCDP;
* :mod:`.axis_ticks`: labels for log axes.

Importing them loads no estimator (scikit-learn, scipy): a view that fits or simulates one
imports it when first called, so a notebook's first cell stays light.
"""

from ._paper_setting import CACHE_MAX_USERS, MASK_ROWS_SHOWN, N_TEST, D
from .axis_ticks import LOG_TICK_STEPS, MAX_LOG_TICKS, log_ticks
from .comparison_views import (
    COMPARISON_GRIDS,
    LABEL_LDP_NOTE,
    N_COMPARISON_SETTINGS,
    comparison_view,
)
from .mechanism_views import (
    MAX_CELLS_SHOWN,
    ORACLE_EPSILONS,
    ORACLE_K_GRID,
    ORACLE_NAMES,
    bcdp_view,
    mechanism_view,
    oracle_variance_view,
)
from .model_views import (
    GRID,
    MASKS,
    N_POINTS_SHOWN,
    partition_view,
    privacy_mask,
    slice_grid,
    surface_view,
    user_of_group,
)
from .theory_views import EPSILON_GRID, lambda_view, tradeoff_view

__all__ = [
    "CACHE_MAX_USERS", "COMPARISON_GRIDS", "EPSILON_GRID", "GRID", "LABEL_LDP_NOTE",
    "LOG_TICK_STEPS", "MASKS", "MASK_ROWS_SHOWN", "MAX_CELLS_SHOWN", "MAX_LOG_TICKS",
    "N_COMPARISON_SETTINGS", "N_POINTS_SHOWN", "N_TEST", "ORACLE_EPSILONS", "ORACLE_K_GRID",
    "ORACLE_NAMES", "D", "bcdp_view", "comparison_view", "lambda_view", "log_ticks",
    "mechanism_view", "oracle_variance_view", "partition_view", "privacy_mask",
    "slice_grid", "surface_view", "tradeoff_view", "user_of_group",
]
