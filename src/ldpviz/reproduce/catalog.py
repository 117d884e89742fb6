"""What the command line offers, as plain data: the paper's figure panels and tables, the
what-if methods and the default time limit.

This module imports nothing, so ``python -m ldpviz --help`` and every usage error answer
without loading numpy, pandas or scikit-learn (tests/test_cli.py checks it). The modules that
run these names use the same objects (:mod:`.paper`, :mod:`.whatif`, :mod:`.whatif_inputs`).
"""

#: The panels of Figure 2 (:data:`ldpviz.reproduce.paper.FIGURES` builds each).
FIGURE_NAMES = ("fig2a", "fig2b", "fig2c", "fig2d")
#: Tables 1-3 and the epsilon each is run at.
TABLE_EPSILON = {"table1": 2, "table2": 1, "table3": 4}
#: The four datasets with local copies (/work/shared/data); "qsar-fish" can be added.
TABLE_DATASETS = ("abalone", "qsar-aquatic", "wine-red", "wine-white")
#: The label-range policies of the tables (:data:`ldpviz.datasets.LABEL_RANGE_POLICIES` says
#: what each means).
LABEL_RANGE_POLICIES = ("declared", "independent", "private")

#: What-if methods by key: (display name, role). "protected" methods respect the chosen
#: protection, "label" methods protect the label only (every feature public), DT protects
#: nothing.
METHODS = {
    "hot-me": ("HistOfTree ME", "protected"), "hot-cart": ("HistOfTree CART", "protected"),
    "adhot-me": ("AdHistOfTree ME", "protected"),
    "adhot-cart": ("AdHistOfTree CART", "protected"),
    "pardt": ("ParDT", "protected"), "krr": ("KRR", "protected"), "hist": ("Hist", "protected"),
    "hot0": ("HistOfTree s=0", "label"), "labeldt": ("LabelDT", "label"),
}
#: Default time limit of the what-if, in minutes (``max_seconds``; ``--max-minutes``).
MAX_MINUTES = 120
