"""The competitors of HistOfTree (Section 5 and Appendix C.1 of the HistOfTree paper).

Every class is a scikit-learn regressor with ``fit(X, y, W=None)`` / ``predict(X)`` and the
conventions of :class:`ldpviz.HistOfTree` (public ``y_bound``, features in the public box
[0, 1]^d, one seeded numpy Generator, clear ``ValueError`` naming the argument).

* :class:`Hist` (Berrett, Gyorfi and Walk, 2021): every user sends a noisy one-hot cell vector
  and a noisy label vector over a cubic grid. eps-LDP: everything is private.
* :class:`KRR`: k-ary randomized response on each protected (binned) feature and a Laplace
  label, then a CART tree. eps-semi-feature LDP.
* :class:`ParDT`: a Laplace label and the published features only, then a CART tree.
  eps-semi-feature LDP.
* :class:`LabelDT`: a Laplace label and every feature, then a CART tree. eps-label LDP.
* :class:`DT`: everything in the clear, a CART tree. No privacy (the reference of Table 1).
* :class:`LPDT` (Ma, Zhang, Cai and Yang, 2023): public rows send everything and grow a
  max-edge tree; private rows send their leaf by randomized response and a Laplace label.
  eps-LDP for the private rows.

The private baselines have a ``privatize(X, y, W=None)`` method that returns exactly what each
user sends to the server (for teaching and for the privacy tests). ``fit`` uses the same
randomizers: for KRR, ParDT and LabelDT it sees the very messages ``privatize`` returns with the
same ``random_state``; Hist (aggregate mode) and LPDT draw the sums of such messages directly,
with the same distribution, so memory stays bounded.

Floating-point caveat: textbook floating-point Laplace sampling, used here as everywhere in
numpy, is not exactly differentially private (Mironov, 2012). Do not deploy these samplers.
"""

from ._hist import HIST_FALLBACKS, HIST_NOISE, Hist
from ._lpdt import LPDT, LPDT_FALLBACKS
from ._trees import DT, KRR, PARDT_MISSING, LabelDT, ParDT, krr_budget

__all__ = [
    "DT",
    "HIST_FALLBACKS",
    "HIST_NOISE",
    "KRR",
    "LPDT",
    "LPDT_FALLBACKS",
    "PARDT_MISSING",
    "Hist",
    "LabelDT",
    "ParDT",
    "krr_budget",
]
