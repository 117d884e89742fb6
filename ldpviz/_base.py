"""What every ldpviz regressor shares: input checks, the privacy mask, the label bound."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ._rng import as_generator
from ._validation import (
    check_epsilon,
    check_feature_indices,
    check_features,
    check_int,
    check_mask,
    check_target,
    resolve_y_bound,
)


class SemiFeatureEstimator(BaseEstimator):
    """Base class: parameters stored untouched in ``__init__``, checked in ``fit``.

    Subclasses call :meth:`_prepare_fit` and read ``self.n_features_in_``.
    """

    def _prepare_fit(self, X, y, W=None, needs_mask=True):
        """Checked (X, y, W, M, rng). ``W`` is None when ``needs_mask`` is False and none given."""
        check_epsilon(self.epsilon)
        X, y, W = self._check_data(X, y, W, needs_mask)
        M = resolve_y_bound(self.y_bound, y)
        self.y_bound_ = M
        return X, y, W, M, as_generator(self.random_state)

    def _check_data(self, X, y, W=None, needs_mask=True):
        """Checked (X, y, W) and ``n_features_in_``; no privacy parameter is read."""
        X = check_features(X)
        y = check_target(y, X.shape[0])
        self.n_features_in_ = X.shape[1]
        if needs_mask or W is not None:
            W = self._resolve_mask(X.shape, W)
        return X, y, W

    def _resolve_mask(self, shape, W):
        """The n x d mask from ``W``, else from ``private_features`` (aligned), else from ``s``."""
        n, d = shape
        private = getattr(self, "private_features", None)
        if W is not None:
            if private is not None:
                raise ValueError("Pass either W to fit or private_features, not both.")
            return check_mask(W, (n, d))
        if private is not None:
            idx = check_feature_indices(private, d)
        elif getattr(self, "s", None) is not None:
            idx = np.arange(check_int(self.s, "s", 0, d))
        else:
            also = " or s (the first s features are private)" if hasattr(self, "s") else ""
            raise ValueError(
                f"{type(self).__name__} needs to know what users protect: pass the privacy "
                f"mask W to fit, or set private_features (aligned case){also}."
            )
        W = np.zeros((n, d), dtype=bool)
        W[:, idx] = True
        return W

    def _check_predict_input(self, X):
        """Checked X for prediction, clipped into the box [0, 1]^d (boundary cells extend out)."""
        check_is_fitted(self)
        X = check_features(X, box=False)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} was "
                             f"fitted with {self.n_features_in_}.")
        return np.clip(X, 0.0, 1.0)


class SemiFeatureRegressor(RegressorMixin, SemiFeatureEstimator):
    """A regressor with ``fit(X, y, W=None)``; ``score`` is R^2 as in scikit-learn."""
