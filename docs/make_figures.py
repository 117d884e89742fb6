"""Regenerate the static figures of docs/images (``make screenshots`` runs this).

Usage: ``python docs/make_figures.py OUT_DIR [REPS]``. The paper's Figure 2 panels are run with
REPS replications (default 10; the paper uses 50: ``python -m ldpviz reproduce fig2a``).
"""

import sys
from pathlib import Path

from ldpviz.masks import aligned_mask, concentrated_mask, spread_mask
from ldpviz.reproduce import paper
from ldpviz.viz import plots


def main(out, reps=10):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    n = 2000
    figures = {
        "figure1_masks": plots.plot_masks(
            {"aligned": aligned_mask(n, 5, 2), "concentrated": concentrated_mask(n, 5),
             "spread": spread_mask(n, 5)},
            {"aligned": (0, 1), "concentrated": (0, 1), "spread": (0, 1)}),
        "partition": plots.plot_partition(),
        "surface": plots.plot_surface(),
        "lambda": plots.plot_lambda(),
        "tradeoff": plots.plot_tradeoff(),
    }
    for name in ("fig2a", "fig2b", "fig2c", "fig2d"):
        _, best = paper.figure2(name, reps=reps, n_jobs=-1, progress=False)
        figures[name] = paper.plot_figure2(name, best)
    for name, fig in figures.items():
        fig.savefig(out / f"{name}.png", dpi=90)
        print(f"wrote {out / name}.png")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/images",
         int(sys.argv[2]) if len(sys.argv) > 2 else 10)
