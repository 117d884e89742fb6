"""Notebook 07 (what-if on real data): every claim its prose makes about a measured number,
checked on the variables the notebook leaves behind (tests/_notebooks.py), so that the notebook
itself shows no test code."""

import numpy as np
import pandas as pd
import pytest
from _notebooks import notebook_namespace

from ldpviz.reproduce.whatif import YARDSTICK, DecadeMask
from ldpviz.viz.course import paired_gap

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ns():
    return notebook_namespace("07")


def _answers(result):
    return result.answers.set_index("epsilon")


def test_sections_1_2_the_data_and_its_public_bounds(ns):
    diabetes = ns["diabetes"]
    assert diabetes.X.shape == (442, 10) and diabetes.X.min() == 0 and diabetes.X.max() == 1
    assert (diabetes.y.min(), diabetes.y.max()) == (25, 346)  # the documented values
    lo, hi = ns["lo"], ns["hi"]
    assert lo <= diabetes.y.min() and diabetes.y.max() <= hi  # the public range covers them
    assert ns["scale"] == hi - lo  # at ε = 2 the noise scale is the whole range of the label
    assert ns["result"].choices["training_rows"] == 309  # 70% of 442 patients


def test_section_3_the_yardstick(ns):
    result = ns["result"]
    answers = _answers(result)
    assert not answers.loc[1.0, "beats_yardstick"]  # ε = 1: no better than the mean ...
    assert answers.loc[1.0, "winner_ratio"] >= answers.loc[1.0, "yardstick_ratio"]
    assert answers.loc[[2.0, 4.0], "beats_yardstick"].all()  # ... ε = 2 and 4: beats it
    assert "no better than predicting the training mean" in answers.loc[1.0, "sentence"]
    summary = result.summary
    assert {YARDSTICK, "DT"} <= set(summary["method"])  # both yardsticks in the table
    assert YARDSTICK in ns["result"].summary["method"].tolist()


def test_section_4_how_sure_are_we(ns):
    result = ns["result"]
    summary = result.summary[result.summary["role"].isin(["protected", "label"])]
    assert (summary["ratio"] > 1).all()  # every private method costs something, at every ε
    best = summary[summary["role"] == "protected"].groupby("epsilon")["ratio"].min()
    assert best.is_monotonic_decreasing  # ... less as ε grows
    answers = _answers(result)
    assert not answers["cost_significant"].any()  # nothing detectable beyond label-only
    assert not answers["winner_significant"].any()  # which method wins is noise
    assert (answers["winner_lead"] <= 2 * answers["winner_lead_se"]).all()


def test_section_5_the_histogram_makes_no_detectable_difference(ns):
    histogram = ns["histogram"]
    assert (histogram["best t"] == 2).any()  # the best point sometimes uses t = 2 ...
    assert (histogram["t = 2 vs t = 1"].abs() <= histogram["2 SE"]).all()  # ... no difference


def test_section_6_which_columns_cost(ns):
    columns, costs = ns["columns"], ns["costs"]
    assert columns.ranking[-1] == "log_triglycerides"  # costs the most
    significant = costs[costs["significant"]].index
    assert list(significant) == [("log_triglycerides", 1.0)]  # the only one, at ε = 1
    bmi = costs.loc["bmi"]
    assert (bmi["cost"].abs() <= 2 * bmi["se"]).all()  # bmi: small, within the noise
    assert (costs.loc["sex", "cost"] == 0).all()  # the tree never uses sex
    trig = costs.loc[("log_triglycerides", 4.0)]  # the two criteria disagree at ε = 4
    assert trig["p_value"] < 0.05 and trig["cost"] <= 2 * trig["se"]
    assert not trig["significant"]
    negative = costs[costs["cost"] < 0]
    assert len(negative) and (negative["cost"].abs() <= 2 * negative["se"]).all()


def _run(ns, private, **options):
    """The notebook's what-if (its data, grids and seed) on other choices, as its answers
    describe them."""
    import warnings

    from ldpviz.reproduce import whatif

    diabetes = ns["diabetes"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return whatif.whatif(diabetes.X, diabetes.y, private=list(private),
                             feature_names=ns["names"], y_range=diabetes.y_range,
                             grids=ns["GRIDS"], **options)


def test_section_7_the_four_choices(ns):
    widget = {"epsilons": (2,), "reps": 5}  # what the Run button does
    runs = {"pair": ns["start"], "lab": _run(ns, ns["PRIVATE"], **widget),
            "ten": _run(ns, ns["names"], **widget), "sex": _run(ns, ["sex"], **widget)}
    first = {k: r.answers.iloc[0] for k, r in runs.items()}
    pair, lab = first["pair"], first["lab"]
    assert pair["cost_vs_label"] > lab["cost_vs_label"]  # the larger estimated cost ...
    assert not pair["cost_significant"] and not lab["cost_significant"]  # ... neither sig.
    diff_2se = 2 * np.hypot(pair["cost_vs_label_se"], lab["cost_vs_label_se"])
    assert abs(pair["cost_vs_label"] - lab["cost_vs_label"]) < 0.5 * diff_2se  # well within
    assert 0.05 < pair["cost_vs_label"] < 0.15 and abs(lab["cost_vs_label"]) < 0.02
    assert not pair["beats_yardstick"] and lab["beats_yardstick"]  # the yardstick separates
    ten = runs["ten"].summary.set_index("method")
    r, se = ten["ratio"], ten["ratio_se"]
    for m in ("HistOfTree ME", "HistOfTree CART", "ParDT", YARDSTICK):  # next to Hist
        assert abs(r[m] - r["Hist"]) < 2 * np.hypot(se[m], se["Hist"]), m
    assert not first["ten"]["beats_yardstick"]  # no better than the mean
    assert r["KRR"] > r.drop(["KRR"]).max()  # KRR worse than all of them
    assert abs(first["ten"]["cost_vs_label"] - pair["cost_vs_label"]) \
        < 2 * first["ten"]["cost_vs_label_se"]
    sex = first["sex"]
    assert not sex["cost_significant"] and sex["beats_yardstick"]


def test_section_8_the_upload_path_gives_the_same_numbers(ns, tmp_path):
    offered = ns["offered"]
    assert "progression" not in offered and len(offered) == 10
    # the CSV path gives what section 7's first run gave for the same choice
    pd.testing.assert_frame_equal(ns["mine"].best.drop(columns="arm"),
                                  ns["start"].best.drop(columns="arm"), check_like=True)
    from ldpviz.reproduce import whatif_report

    whatif_report.write_whatif(ns["result"], tmp_path)  # the report of the last cell
    page = (tmp_path / "realdata.html").read_text()
    assert "https://" not in page.split("<script>")[0] and "<link" not in page


def test_exercise_1_the_personalized_paradigm(ns):
    names = list(ns["names"])
    private = ["blood_sugar", "log_triglycerides", "hdl"]
    also = ["bmi", "blood_pressure", "age", "sex", "ldl", "total_cholesterol"]
    mask = DecadeMask(private=tuple(names.index(c) for c in private),
                      also=tuple(names.index(c) for c in also))
    protecting = pd.Series(mask.build(309, 10).sum(axis=0), index=names)
    assert protecting[private].eq(309).all()
    assert protecting[also].tolist() == [30, 30, 30, 3, 3, 3]
    assert protecting["cholesterol_hdl_ratio"] == 0
    personal = _run(ns, private, personalized=also, epsilons=(2,), reps=10)
    assert {"AdHistOfTree ME", "AdHistOfTree CART"} <= set(personal.summary["method"])
    hot_me = personal.best[personal.best["method"] == "HistOfTree ME"]
    gap, gap_2se = paired_gap(hot_me, "paradigm", "personalized", "aligned", y="mse_ratio")
    assert abs(gap) <= gap_2se  # personalization: nothing detectable


def test_exercise_3_a_bound_read_off_the_data(ns):
    y = ns["diabetes"].y
    assert np.abs(y - 175).max() == 171 and y.max() == 346


def test_exercise_2_another_set_of_splits(ns):
    again = _run(ns, ns["PRIVATE"], epsilons=(1, 2, 4), reps=10, seed=1)
    before, after = _answers(ns["result"]), _answers(again)
    assert after["beats_yardstick"].tolist() == before["beats_yardstick"].tolist() \
        == [False, True, True]  # the yardstick verdicts keep theirs
    assert not after["winner_significant"].any()  # still nobody ahead beyond the noise
    assert (before.loc[2.0, "winner"], after.loc[2.0, "winner"]) == ("HistOfTree CART",
                                                                     "HistOfTree ME")
    assert after.loc[2.0, "cost_significant"] and not before["cost_significant"].any()
    cost, se = after.loc[2.0, "cost_vs_label"], after.loc[2.0, "cost_vs_label_se"]
    assert 2 * se < cost < 2.5 * se  # "just": the error bar barely excludes zero
