"""What every ldpviz estimator shares: input checks, feature names, the privacy mask, the label
bound, the resource guard's inputs and scikit-learn's estimator tags."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ._rng import as_generator
from ._validation import (
    check_bool,
    check_epsilon,
    check_feature_indices,
    check_features,
    check_int,
    check_mask,
    check_mask_columns,
    check_rho,
    check_simulable,
    check_target,
    is_real_number,
    resolve_y_bound,
)


def check_X(estimator, X, reset, box=True, name="X", check=None):
    """Checked features of ``estimator`` (a float array) with scikit-learn's bookkeeping.

    ``reset=True`` (fit) records ``n_features_in_`` and, for a DataFrame, ``feature_names_in_``;
    ``reset=False`` (predict) checks them as scikit-learn does: a different number of features
    is an error, reordered or other column names are an error, names at only one of fit and
    predict a warning. Sparse, complex, missing and non-numeric entries are refused by
    :func:`ldpviz._validation.check_features` (or ``check(X, name)``), each with the argument
    named.
    """
    array = check_features(X, name, box=box) if check is None else check(X, name)
    # Names and counts only: the array was checked above, with ldpviz's messages.
    validate_data(estimator, X if hasattr(X, "columns") else array, reset=reset,
                  skip_check_array=True)
    return array


class SemiFeatureEstimator(BaseEstimator):
    """Base class: parameters stored untouched in ``__init__``, checked in ``fit``.

    Subclasses call :meth:`_prepare_fit` (or :meth:`_check_data`) in ``fit`` and
    :meth:`_check_predict_input` in ``predict``; both keep ``n_features_in_`` and
    ``feature_names_in_`` as scikit-learn does.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Features live in the public box [0, 1]^d: negative values are refused.
        tags.input_tags.positive_only = True
        tags.target_tags.required = True
        return tags

    def _budget_shares(self, n_features):
        """Fractions of epsilon the releases get, and the Laplace label's share."""
        rho = getattr(self, "rho", None)
        if rho is None:
            return (1.0,), 1.0
        rho = check_rho(rho)
        return (rho, 1.0 - rho), rho

    def _split_name(self):
        """"rho" when the user's ``rho`` sets the budget split (for messages), else None."""
        return "rho" if is_real_number(getattr(self, "rho", None)) else None

    def _prepare_fit(self, X, y, W=None, needs_mask=True):
        """Checked (X, y, W, M, rng). ``W`` is None when ``needs_mask`` is False and none given.

        Also checks ``clip`` (True or False) for the estimators that have it.
        """
        check_epsilon(self.epsilon)
        if hasattr(self, "clip"):
            check_bool(self.clip, "clip")
        X, y, W = self._check_data(X, y, W, needs_mask)
        M = resolve_y_bound(self.y_bound, y)
        shares, label_share = self._budget_shares(X.shape[1])
        check_simulable(self.epsilon, shares, M, label_share, split=self._split_name())
        self.y_bound_ = M
        return X, y, W, M, as_generator(self.random_state)

    def _check_data(self, X, y, W=None, needs_mask=True):
        """Checked (X, y, W), ``n_features_in_`` and ``feature_names_in_``; no privacy
        parameter is read."""
        columns = getattr(X, "columns", None)
        X = check_X(self, X, reset=True)
        y = check_target(y, X.shape[0])
        if needs_mask or W is not None:
            W = self._resolve_mask(X.shape, W, columns)
        return X, y, W

    def _resolve_mask(self, shape, W, x_columns=None):
        """The n x d mask from ``W`` (a DataFrame W must have X's columns ``x_columns``, in
        order), else from ``private_features`` (aligned), else from ``s``."""
        n, d = shape
        private = getattr(self, "private_features", None)
        if W is not None:
            if private is not None:
                raise ValueError("Pass either W to fit or private_features, not both.")
            check_mask_columns(W, x_columns)
            return check_mask(W, (n, d))
        if private is not None:
            idx = check_feature_indices(private, d, columns=x_columns)
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
        """Checked X for prediction, clipped into the box [0, 1]^d (boundary cells extend out).

        Raises NotFittedError before fit; checks the number and names of the features.
        """
        check_is_fitted(self)
        X = check_X(self, X, reset=False, box=False)
        return np.clip(X, 0.0, 1.0)


class SemiFeatureRegressor(RegressorMixin, SemiFeatureEstimator):
    """A regressor with ``fit(X, y, W=None)``; ``score`` is R^2 as in scikit-learn."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Privacy noise dominates on the small samples of scikit-learn's checks.
        tags.regressor_tags.poor_score = True
        return tags
