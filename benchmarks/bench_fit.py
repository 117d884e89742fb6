"""HistOfTree.fit against scikit-learn's DecisionTreeRegressor on the same data, one run.

Target (design.md): at n = 100,000, d = 5, depth 6, HistOfTree.fit takes at most 3x the time of
DecisionTreeRegressor(max_depth=6).fit, aligned and personalized. Prints the ratios.
"""

import sys
from pathlib import Path

from sklearn.tree import DecisionTreeRegressor

sys.path.insert(0, str(Path(__file__).parent))
from _timing import median_seconds

from ldpviz import HistOfTree
from ldpviz.datasets import PAPER_Y_BOUND, make_paper_regression
from ldpviz.masks import aligned_mask, gamma_mask

TARGET = 3.0


def main(n=100_000):
    X, y = make_paper_regression(n, random_state=0)
    reference = median_seconds(lambda: DecisionTreeRegressor(max_depth=6).fit(X, y))
    print(f"n = {n:,}, d = 5, depth 6; DecisionTreeRegressor.fit median {reference * 1e3:.0f} ms")
    worst = 0.0
    for mask_name, W in (("aligned s=2", aligned_mask(n, 5, 2)),
                         ("personalized gamma=1", gamma_mask(n, 5, 1.0))):
        for rule in ("max-edge", "cart"):
            for mechanism in ("grr", "rr"):
                model = HistOfTree(epsilon=4, s=2, t=2, depth=6, rule=rule, mechanism=mechanism,
                                   y_bound=PAPER_Y_BOUND, random_state=0)
                seconds = median_seconds(lambda m=model, W=W: m.fit(X, y, W=W))
                ratio = seconds / reference
                worst = max(worst, ratio)
                print(f"  {mask_name:22s} {rule:9s} {mechanism:4s} {seconds * 1e3:6.0f} ms"
                      f"  ratio {ratio:4.2f}  {'ok' if ratio <= TARGET else 'ABOVE TARGET'}")
    print(f"worst ratio {worst:.2f} (target <= {TARGET})")
    return worst


if __name__ == "__main__":
    main()
