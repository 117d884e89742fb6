"""Peak memory of HistOfTree.fit with n = 1,000,000 users and binary RR over ~600 cells.

Target: under 2 GB peak (reports are drawn and aggregated in chunks). Each case runs in a fresh
subprocess so its peak resident set size is its own.
"""

import subprocess
import sys

CASE = """
import resource, time
import numpy as np
from ldpviz import HistOfTree
from ldpviz.datasets import PAPER_Y_BOUND, make_paper_regression
from ldpviz.masks import gamma_mask
X, y = make_paper_regression({n}, random_state=0)
W = gamma_mask({n}, 5, 1.0) if {personalized} else None
start = time.perf_counter()
model = HistOfTree(epsilon=4, s=2, t=3, depth=6, mechanism="rr", y_bound=PAPER_Y_BOUND,
                   random_state=0).fit(X, y, W=W)
seconds = time.perf_counter() - start
data_mb = (X.nbytes + y.nbytes) / 2**20
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{{model.n_cells_}} {{seconds:.1f}} {{peak_mb:.0f}} {{data_mb:.0f}}")
"""

LIMIT_MB = 2048


def main(n=1_000_000):
    for personalized in (False, True):
        out = subprocess.run([sys.executable, "-c", CASE.format(n=n, personalized=personalized)],
                             capture_output=True, text=True, check=True).stdout.split()
        cells, seconds, peak, data = out
        label = "personalized gamma=1" if personalized else "aligned s=2"
        verdict = "ok" if float(peak) < LIMIT_MB else "ABOVE TARGET"
        print(f"n = {n:,}, {label}, binary RR over {cells} cells: fit {seconds} s, "
              f"peak RSS {peak} MB (data itself {data} MB), ratio to 2 GB "
              f"{float(peak) / LIMIT_MB:.2f} {verdict}")


if __name__ == "__main__":
    main()
