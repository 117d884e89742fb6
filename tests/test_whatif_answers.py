"""The what-if answer's yardstick and its words: the training mean next to the non-private tree,
"significant" meaning one thing everywhere, plain words when nothing beats the mean, a 0% cost
that says why, and a clear error instead of infinite ratios."""

import warnings

import numpy as np
import pandas as pd
import pytest
from _whatif_tables import make_table

from ldpviz.reproduce import whatif_answers as A
from ldpviz.reproduce import whatif_report
from ldpviz.reproduce.experiments import SplitData
from ldpviz.reproduce.whatif import YARDSTICK, whatif

TINY = {"hot": {"depth": (0, 1), "t": (1, 2), "rho": (0.5,), "min_samples_leaf": (0,)},
        "adhot": {"c": (0.1,), "t_offset": (0,), "rho": (0.5,)},
        "hist": {"t": (1, 2), "zeta": (0.05,)},
        "tree": {"max_depth": (1, 2, 4), "min_samples_leaf": (10,)}, "krr": {"k": (2,)}}
CHOICES = {"private": ["x1", "x4"], "target": "strength"}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _best(mse, roles=None, eps=1.0):
    """A ``best`` frame as :func:`whatif` hands it to the answer: per-split MSEs by method."""
    roles = {"DT": "reference", YARDSTICK: "yardstick", "LabelDT": "label",
             **(roles or {})}
    rows = []
    for arm, (method, values) in enumerate(mse.items()):
        role = roles.get(method, "protected")
        fixed = role in ("reference", "yardstick")
        rows += [{"arm": arm, "method": method, "role": role, "config_id": 0, "config": "{}",
                  "epsilon": np.nan if fixed else eps,
                  "paradigm": "reference" if fixed else "aligned", "rep": rep, "mse": v}
                 for rep, v in enumerate(values)]
    best = pd.DataFrame(rows)
    return best.assign(mse_ratio=best["mse"] / best.loc[best["method"] == "DT", "mse"].mean())


def _answer(best):
    summary = A.summarize(best)
    choices = {**CHOICES, "splits": best["rep"].nunique()}
    return summary, A.answer_table(summary, best, best, None, choices, {}).iloc[0]


def _splits(seed=0, reps=20):
    """Per-split difficulty shared by every method (the splits are paired)."""
    return 1 + 0.2 * np.random.default_rng(seed).random(reps)


def test_significant_needs_the_test_and_the_error_bar():
    """A Wilcoxon star on a column whose ± 2 SE covered 0: both criteria now must agree."""
    rng = np.random.default_rng(0)
    better = 1 + rng.random(20)
    lead, se, p, sig = A.paired_lead(better + 0.3, better)
    assert sig and lead == pytest.approx(0.3) and p < A.ALPHA and lead > 2 * se
    # 19 splits a little worse, one much better: the ranks say "worse", the mean barely does
    worse = better + np.r_[np.full(19, 0.1), -1.5]
    lead, se, p, sig = A.paired_lead(worse, better)
    assert p < A.ALPHA and 0 < lead < 2 * se and not sig
    assert not A.paired_lead(better, better)[3]


def test_the_star_holds_against_every_protected_row_and_the_sentence_names_the_rows():
    """"HistOfTree CART ... significantly better than every other method" stood next to a
    label-only row that did better; the qualifier was in a footnote only."""
    base = _splits()
    best = _best({"DT": base, YARDSTICK: 3 * base, "ParDT": 1.5 * base,
                  "KRR": 1.5 * base + 0.3, "LabelDT": 1.2 * base})
    summary, row = _answer(best)
    star = summary[summary["significant"]]
    assert list(star["method"]) == ["ParDT"]
    assert star["lead"].iloc[0] > 2 * star["lead_se"].iloc[0]
    assert "Best method that protects x1 and x4: ParDT, 1.50 ± " in row["sentence"]
    assert ("× the error of the non-private tree, significantly better than every other "
            "method that does (paired over the splits: ahead of the closest, "
            f"KRR, by {0.3 / base.mean():.2f} ± 0.00 × DT's error") in row["sentence"]
    assert "×" in row["sentence"] and "training mean" not in row["sentence"].split(
        "RMSE")[0]  # it beats the mean: no warning before the RMSE sentence
    wide = A.wide_summary(summary)
    assert wide.loc[("aligned", "ParDT"), 1.0].endswith("*")
    assert not any(cell.endswith("*") for key, cell in wide[1.0].items()
                   if key != ("aligned", "ParDT"))


def test_a_wilcoxon_p_below_the_level_with_an_error_bar_over_zero_is_not_a_star():
    base = _splits()
    best = _best({"DT": base, YARDSTICK: 3 * base, "ParDT": 1.5 * base,
                  "KRR": 1.5 * base + np.r_[np.full(19, 0.1), -1.5]})
    summary, row = _answer(best)
    assert not summary["significant"].any()
    assert "Best method that protects x1 and x4: ParDT," in row["sentence"]  # not "Best method:"
    assert "not significantly ahead of KRR" in row["sentence"]
    assert "not significant: Wilcoxon p = " in row["sentence"]
    assert "but ± 2 SE includes 0" in row["sentence"]


@pytest.mark.parametrize(("mean_mse", "words"), [
    (1.45, "the best method is no better than predicting the training mean"),
    (1.52, "the best method is not significantly better than predicting the training mean"),
])
def test_the_answer_says_plainly_when_nothing_beats_the_mean(mean_mse, words):
    """Concrete, x1 and x4 protected, epsilon 1: best private RMSE 16.4 against sd(y) 16.7, and
    the answer did not say so."""
    base = _splits()
    noise = 0.2 * np.random.default_rng(1).standard_normal(20)
    best = _best({"DT": base, YARDSTICK: mean_mse * base + noise, "ParDT": 1.5 * base,
                  "KRR": 1.8 * base})
    _, row = _answer(best)
    assert not row["beats_yardstick"]
    assert words in row["sentence"]
    assert "no feature and no privacy" in row["sentence"]
    assert "no method that respects this protection learns anything usable" in row["sentence"]
    assert f"predicting the training mean gives {A.units(row['yardstick_rmse'])}" in \
        row["sentence"]


def test_with_too_few_splits_for_a_test_the_mean_is_compared_on_average():
    """3 splits: no test can be significant, so "not significantly better than the mean" (and
    "neither is the non-private tree", at 4.6 x DT's error) would say nothing."""
    base = _splits(reps=3)
    ahead = _best({"DT": base, YARDSTICK: 4.6 * base, "ParDT": 4.4 * base})
    _, row = _answer(ahead)
    assert row["beats_yardstick"] and row["reference_beats_yardstick"]
    assert "training mean (" not in row["sentence"]
    behind = _best({"DT": base, YARDSTICK: 4.4 * base, "ParDT": 4.6 * base})
    _, row = _answer(behind)
    assert "the best method is no better than predicting the training mean" in row["sentence"]
    assert "neither is the non-private tree" not in row["sentence"]


def test_when_even_the_non_private_tree_does_not_beat_the_mean_the_answer_says_so():
    base = _splits()
    best = _best({"DT": base, YARDSTICK: base, "ParDT": 1.5 * base})
    _, row = _answer(best)
    assert "neither is the non-private tree" in row["sentence"]


def test_the_yardstick_is_the_training_mean_of_the_raw_labels():
    """The constant predictor: the mean of the training labels (raw, unclipped, no privacy),
    predicted for every test row of the same splits every method sees."""
    rng = np.random.default_rng(3)
    X = rng.random((120, 3))
    y = 5 * X[:, 0] + rng.normal(0, 1, 120)
    y[:3] = 40  # outside y_range: the private methods clip these, the yardstick does not
    result = whatif(X, y, private=[0], y_range=(-3, 9), epsilons=(2,), reps=4, grids=TINY,
                    methods=["pardt"], seed=5)
    rows = result.best[result.best["method"] == YARDSTICK].sort_values("rep")
    assert set(rows["role"]) == {"yardstick"}
    data = SplitData(X, y, (-3, 9), 0.3)
    for rep, mse in zip(rows["rep"], rows["mse"], strict=True):
        draw = np.random.SeedSequence(5, spawn_key=(int(rep),)).spawn(2)[0]
        _, y_train, _, y_test = data.split(np.random.default_rng(draw))
        assert mse == pytest.approx(np.mean((y_test - y_train.mean()) ** 2))
    summary = result.summary
    mean_row = summary[summary["method"] == YARDSTICK].iloc[0]
    assert mean_row["ratio"] == pytest.approx(rows["mse_ratio"].mean())
    wide = whatif_report.wide_summary(summary)
    assert ("no privacy", YARDSTICK) in wide.index and ("no privacy", "DT") in wide.index
    shown = whatif_report.answers_display(result.answers)
    assert f"{YARDSTICK}: × DT, RMSE" in shown and "best beats the mean?" in shown


def test_the_yardstick_is_in_the_figures():
    rng = np.random.default_rng(4)
    X = rng.random((150, 3))
    y = 3 * X[:, 1] + rng.normal(0, 0.5, 150)
    result = whatif(X, y, private=[0], y_range=(-2, 5), epsilons=(1, 4), reps=3, grids=TINY,
                    methods=["pardt", "labeldt"])
    ratio = float(result.summary.loc[result.summary["method"] == YARDSTICK, "ratio"].iloc[0])
    fig = whatif_report.plotly_ratios(result)
    lines = [t for t in fig.data if t.name == whatif_report.YARDSTICK_LABEL]
    assert lines and all(np.allclose(t.y, ratio) for t in lines)
    figure = whatif_report.matplotlib_figure(result)
    labels = [t.get_text() for t in figure.legends[0].get_texts()]
    assert whatif_report.YARDSTICK_LABEL.replace(" (", "\n(") in labels
    assert any(np.allclose(line.get_ydata(), ratio) for line in figure.axes[0].get_lines())


def test_a_zero_cost_says_why():
    """`x1 0% ± 0%` appeared without a reason: a column the tree never used costs exactly 0."""
    frame, names = make_table(400, 6, seed=2)
    X = (frame[names] - frame[names].min()) / (frame[names].max() - frame[names].min())
    X = X.fillna(0.0)
    result = whatif(X.to_numpy(), frame["outcome"].to_numpy(), private=["signal", "constant"],
                    feature_names=names, y_range=(700, 1900), epsilons=(4,), reps=4,
                    grids=TINY, methods=["pardt"])
    costs = result.costs.set_index("column")
    assert costs.loc["constant", "unused"] and costs.loc["constant", "cost"] == 0
    assert not costs.loc["signal", "unused"]
    where = A._attribution(result.costs, 4, ["signal", "constant"])
    assert "constant 0%; constant costs 0% exactly (the same test error on every split): the " \
        "tree seeing every column did not use it" in where
    text = whatif_report.console_text(result)
    assert "0% (unused)" in text and "did not use that column" in text


def test_a_constant_target_is_refused_by_name():
    """"ParDT, inf x the error of the non-private tree", exit 0."""
    X = np.random.default_rng(0).random((60, 3))
    with pytest.raises(ValueError, match=r"y is constant \(every label is 3\)"):
        whatif(X, np.full(60, 3.0), private=[0], y_range=(0, 6), reps=2, grids=TINY)


def test_labels_the_tree_finds_exactly_get_a_clear_error():
    X = np.random.default_rng(0).random((80, 2))
    y = (X[:, 0] > 0.5).astype(float)
    with pytest.raises(ValueError, match="DT predicted every test label exactly"):
        whatif(X, y, private=[1], y_range=(0, 1), epsilons=(2,), reps=2, grids=TINY,
               methods=["pardt"])
