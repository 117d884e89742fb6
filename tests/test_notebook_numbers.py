"""Every number the course's prose states is live, checked here, or a declared constant.

A measured number (an error, a share, a ratio, a crossing point) may appear in a notebook only
as the output of a code cell, so it moves when the code or the package does. This test reads
the markdown of each notebook, answers included, finds its numeric claims (decimals,
percentages, "N times" / "N×" factors, and numbers after "about", "≈", "under", ...) and
accepts one only if it is

* a reference to the paper (Section 3.1, Theorem 4.3, eq 12, Appendix C.1, ...), ignored;
* in ``EXACT``: a number the prose derives, with the expression it must equal (evaluated here
  with numpy and ldpviz, so it cannot drift);
* in ``PARAMETERS``: a value the notebook sets, which must appear literally in one of its code
  cells;
* in ``DECLARED``: a constant that is not measured (a plan's minutes, a number quoted from a
  paper, a design choice), with the reason.

An entry that no longer matches any number of its notebook fails too, so the lists stay honest.
Numbers in code blocks of the markdown are read only in their comments. Claims *about* measured
numbers ("beyond two standard errors", "falls at every step") are asserted by
``tests/test_notebook_NN.py`` on the variables each notebook leaves after a run in a fresh
kernel; ``tests/test_notebook_front_end.py`` keeps every notebook free of test code.
"""

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = {p.name[:2]: p for p in sorted((ROOT / "notebooks").glob("0*.ipynb"))}

_NUMBER = r"\d[\d,]*(?:\.\d+)?"
_CLAIM = re.compile(
    r"(?<![\w.,])(?:"
    rf"(?P<pct>{_NUMBER})\s?(?:%|\\%|\s?percent\b)"
    rf"|(?P<times>{_NUMBER})\s?(?:times\b|×|x\b)"
    r"|(?P<dec>\d+\.\d+)"
    rf"|(?:(?<=about )|(?<=around )|(?<=roughly )|(?<=nearly )|(?<=almost )|(?<=approximately )"
    rf"|(?<=≈ )|(?<=\\approx )|(?<=under )|(?<=below )|(?<=above )|(?<=over ))(?P<approx>{_NUMBER})"
    r")(?![\d.]\d|\^)")  # a number raised to a power is a formula, not a claim
# "Section 3.1", "Theorems 4.3 and 4.4", "Sections 3.1–3.3", "eq (12)", "Figure 2(d)", "5.1's".
_REFERENCE = re.compile(
    r"(?:Sections?|Definitions?|Theorems?|Propositions?|Assumptions?|Appendix|Appendices|"
    r"Figures?|Examples?|Lemmas?|Corollar(?:y|ies)|Remarks?|Mechanisms?|Table|Algorithm|eqs?\.?)"
    r"\s+\d+(?:\.\d+)*(?:\s*(?:,|and|or|–|-|to)\s*\d+(?:\.\d+)*)*")
_CODE_BLOCK = re.compile(r"```.*?```", re.DOTALL)


def _prose(source):
    """Markdown without paper references; code blocks reduced to their comments."""
    def comments(block):
        return "\n".join(line.split("#", 1)[1] for line in block.group(0).splitlines()
                         if "#" in line)
    source = source.replace("{,}", ",")  # LaTeX thousands separator
    return _REFERENCE.sub(" ", _CODE_BLOCK.sub(comments, source))


def _claims(path):
    """(number as written, cell index) of every numeric claim in a notebook's markdown."""
    cells = json.loads(path.read_text())["cells"]
    found = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] == "markdown":
            for match in _CLAIM.finditer(_prose("".join(cell["source"]))):
                number = next(g for g in match.groups() if g is not None)
                found.append((number.rstrip(",").replace(",", ""), index))
    return found


def _code(path):
    cells = json.loads(path.read_text())["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    return re.sub(r"(?<=\d)_(?=\d)", "", code)  # 100_000 is 100000


# Numbers the prose derives, with what they must equal (to the digits written).
EXACT = {
    "00": {"1.5": "course_plan.PACE.code_cell"},  # the plan's pace: minutes per code cell
    "01": {
        "100": "np.sqrt(10_000)",  # local vs central DP: sqrt(N)
        "10": "3 * np.e + 2",  # Wang et al.'s crossing k < 3 e^eps + 2, at eps = 1
        "10.2": "3 * np.e + 2",
        "166": "3 * np.exp(4) + 2",  # ... at eps = 4
        "62.2": "100 * np.exp(0.5) / (1 + np.exp(0.5))",  # Exercise 1: RR keeps the truth
        "88.1": "100 * np.exp(2) / (1 + np.exp(2))",
        "47.5": "100 * mechanisms.grr_probabilities(4, 1.0)[0]",  # Exercise 2: GRR
        "17.5": "100 * mechanisms.grr_probabilities(4, 1.0)[1]",
        "40.2": "100 * mechanisms.grr_probabilities(12, 2.0)[0]",
        "5.4": "100 * mechanisms.grr_probabilities(12, 2.0)[1]",
        "5.2": "52 * 0.1",  # Exercise 3: a year of weekly answers at 0.1
        "181": "np.exp(5.2)",
        "0.525": "np.exp(0.1) / (1 + np.exp(0.1))",  # one answer's majority
        "0.640": "fundamentals.repeated_collection(0.1, [52]).iloc[0, 2]",
        "0.96": "fundamentals.repeated_collection(0.5, [52]).iloc[0, 2]",
        # Exercise 4: GRR's variance over OUE's at k = 50, eps = 1
        "4.7": "frequency_oracles.oracle_variance('grr', 1, 50, 1.0)"
               " / frequency_oracles.oracle_variance('oue', 1, 50, 1.0)",
    },
    "02": {
        "3": "0.75 / 0.25",  # Warner's two coins: P(yes | yes) / P(yes | no)
        "75000": "0.5 * 150_000",  # the histogram edge of income, in the public box
        "50": "20 + 0.5 * (80 - 20)",  # the tree's split of age
        "4.0": "mechanisms.laplace_scale(mechanisms.split_budget(1.0, 0.5)[0], 1.0)",
        "5.66": "np.sqrt(2) * 4",
        "51200": "(2 * np.sqrt(2) * 4 / 0.05) ** 2",
        "0.711": "mechanisms.grr_probabilities(4, 2.0)[0]",
        "0.105": "mechanisms.grr_probabilities(64, 2.0)[0]",
        "0.731": "mechanisms.rr_probabilities(2.0)[0]",
    },
    "03": {
        "2.52": "3 * np.sin(1)",  # the largest value of f*
        "16": "4 ** 2",  # t^s potential cells at t = 4, s = 2
        "0.71": "mechanisms.grr_probabilities(4, 2.0)[0]",
        "0.27": "mechanisms.rr_probabilities(2.0)[1]",
        # Exercise 3: rho="auto" at epsilon 1, t = 2, depth 2 (the notebook's n, mask and M)
        "0.95": "ldpviz.adaptive_rule.choose_rho(masks.aligned_mask(10_000, 5, 2), 10_000, 1.0,"
                " 'grr', 3.0, 2, 2, 2)",
    },
    "04": {
        "40": "100 * masks.spread_mask(10_000, 5, width=2).mean(axis=0).max()",
        "0.06": "theory.best_depth(masks.gamma_mask(10_000, 5, 4), 1, 10_000, 4.0)[1]",
        "0.88": "theory.best_depth(masks.gamma_mask(10_000, 5, 0.25), 1, 10_000, 4.0)[1]",
        "0.17": "2 / (2 + 2 * 5)",  # the fully private exponent 2 alpha / (2 alpha + 2d)
        "90": "100 * masks.summarize_mask(masks.decade_mask(10_000, 5, s_star=1)).users[1]",
        "80": "100 * masks.summarize_mask(masks.concentrated_mask(10_000, 5, decay=0.2)).users[1]",
        "0.10": "theory.lambda_star(masks.concentrated_mask(10_000, 5, decay=0.2), 1, 4)",
        "0.42": "theory.lambda_star(masks.spread_mask(10_000, 5, width=2), 1, 4)",
        # Exercise 4: the variance of a debiased GRR indicator, k = 16, falls from
        # epsilon_cells = 2 to 4 by this factor
        "22": "(lambda v: v(2.0) / v(4.0))(lambda e: (lambda p: p[1] * (1 - p[1]) / (p[0] - p[1])"
              " ** 2)(mechanisms.grr_probabilities(16, e)))",
    },
    "05": {
        "1.55": "np.log1p(10_000 ** (2 / (2 * (2 + 5))))",  # Exercise 1's crossing epsilon
        # Exercise 3: how far above the minimum the best total at s = 3 lies
        "19": "(lambda t: 100 * (t.groupby('s')['total'].min()[3] / t['total'].min() - 1))("
              "theory.objective_table(masks.aligned_mask(10_000, 5, 3), 10_000, 1.0))",
        "0.2": "(lambda t: t.groupby('s')['total'].min()[3] / t['total'].min() - 1)("
               "theory.objective_table(masks.aligned_mask(10_000, 5, 3), 10_000, 1.0))",
    },
    "06": {
        # Var(sin U) for U ~ U[0, 1]: the error of missing one of f*'s three terms
        "0.061": "(0.5 - np.sin(2) / 4 - (1 - np.cos(1)) ** 2)",
        "0.123": "2 * (0.5 - np.sin(2) / 4 - (1 - np.cos(1)) ** 2)",
        "0.18": "3 * (0.5 - np.sin(2) / 4 - (1 - np.cos(1)) ** 2)",
        "0.184": "3 * (0.5 - np.sin(2) / 4 - (1 - np.cos(1)) ** 2)",
        "0.73": "np.e / (1 + np.e)",  # a 2-level randomized response at epsilon / 4 = 1
        "0.0625": "1 / 2 ** 4",  # the smallest one-sided signed-rank p-value with 4 pairs
    },
    "07": {
        # whatif's default split: test_size = 0.3 (Table 1's protocol)
        "70": "100 * (1 - inspect.signature(whatif.whatif).parameters['test_size'].default)",
        # a one-sided test at 0.05 rejects a normal mean beyond 1.64 standard errors
        "1.6": "np.sqrt(2) * __import__('scipy.special').special.erfinv(0.9)",
    },
    "08": {
        "73": "100 * np.e / (1 + np.e)",  # RR with epsilon = 1 keeps the bit w.p. e / (1 + e)
        "95": "100 * bcdp.correlated_feature_attack(10, 0.9, 1.0, 0)['public_exact']",
        "75": "100 * bcdp.correlated_feature_attack(10, 0.5, 1.0, 0)['public_exact']",
        "3.94": "bcdp.correlated_feature_attack(10, 0.9, 1.0, 0)['delta_private']",
        "2.10": "bcdp.correlated_feature_attack(10, 0.5, 1.0, 0)['delta_private']",
        # Exercise 2 (the mask leaks): 90% of hiders carry S; W = 1 is 9 times likelier for
        # a carrier; log 9, and log 9 + epsilon at epsilon = 1 (95%: the same as r = 0.9's)
        "90": "100 * bcdp.mask_attack(0.9, 0.1, 0.5)['accuracy_hiders']",
        "9": "np.exp(bcdp.mask_attack(0.9, 0.1, 0.5)['delta_mask'])",
        "2.20": "bcdp.mask_attack(0.9, 0.1, 0.5)['delta_mask']",
        "3.20": "bcdp.mask_attack(0.9, 0.1, 0.5, epsilon=1.0)['delta_hiders']",
        "0.8": "2 * 0.9 - 1",  # the mask bit as a public bit: P(bit = S) = 0.9, r = 0.8
        # Exercise 4: where BCDP's exact total first exceeds the LDP baseline's
        "0.086": "bcdp.exact_crossing(np.linspace(0, 0.3, 301))",
        "0.09": "bcdp.exact_crossing(np.linspace(0, 0.3, 301))",
        "0.14": "bcdp.budget_schedule(np.array([0.2] * 2 + [2.0] * 8), 2.0, 0.01)[0]",
        "0.001": "bcdp.budget_schedule(np.array([0.2] * 2 + [2.0] * 8), 2.0, 0.99)[0]",
    },
}

# Values a notebook sets in code (each must appear literally in one of its code cells).
PARAMETERS = {
    "00": set(),
    "01": {"0.5", "0.1"},
    "02": {"0.1", "0.9", "0.6", "100000", "0.05", "0.5", "2.5", "1.0"},
    "03": {"0.5", "0.9"},
    "04": {"0.3", "0.6", "0.5", "0.25"},
    "05": {"0.01", "0.5", "0.25"},
    "06": {"0.5", "0.9"},
    "07": {"10"},
    "08": {"0.2", "0.5", "0.9", "0.01", "0.99", "1", "20"},
}

# Constants that are not measured, with the reason.
DECLARED = {
    "00": {"1": "a misreading of epsilon = 1 ('1% leak') that the instructor notes correct",
           "0.125": "the mechanism explorer's smallest epsilon (a slider value)",
           "10.12": "the macOS version in a reference's title (Tang et al., 2017)",
           "1709.02753": "an arXiv identifier (Tang et al., 2017)"},
    "01": {"87": "Sweeney (2000): share of the 1990 US population unique on ZIP, birth date "
                 "and sex (quoted)",
           "63": "Golle (2006): the same share with the 2000 census (quoted)",
           "1.25": "the Gaussian mechanism's constant, Dwork & Roth, Theorem A.1 (quoted)",
           "10.12": "the macOS version Tang et al. (2017) measured"},
    "02": {"0.125": "the mechanism explorer's smallest epsilon (a slider value)"},
    "03": {},
    "04": {},
    "05": {"0.1": "Appendix C.1's grid of c, and Exercise 3's trial value of tie_rtol"},
    "06": {"0.05": "level of the Wilcoxon tests (Table 1's star)",
           "0.7": "the rest of Appendix C.1's grid of rho, {0.5, 0.7, 0.9}",
           "0.01": "a bound, checked by tests/test_notebook_06.py: the explorer's HistOfTree "
                   "within 0.01 of DT at epsilon = 32"},
    "07": {"1": "whatif's threshold for warning that a label range clips too much (a package "
                 "constant, ldpviz/reproduce/whatif.py)",
           "0.05": "level of the Wilcoxon tests (Table 1's star)"},
    "08": {"10": "Exercise 2's story: 10% of the users without the condition hide it"},
}


def _equal_to_digits(written, value):
    decimals = len(written.split(".")[1]) if "." in written else 0
    return math.isclose(round(float(value), decimals), float(written), abs_tol=1e-12)


def _evaluate(expression):
    import inspect

    import ldpviz
    from ldpviz import bcdp, frequency_oracles, masks, mechanisms, theory
    from ldpviz.reproduce import whatif
    from ldpviz.viz import course_plan, fundamentals

    names = {"np": np, "math": math, "ldpviz": ldpviz, "mechanisms": mechanisms,
             "theory": theory, "bcdp": bcdp, "masks": masks, "whatif": whatif, "inspect": inspect,
             "frequency_oracles": frequency_oracles, "fundamentals": fundamentals,
             "course_plan": course_plan}
    return eval(expression, names)  # expressions written in this file, never user input


@pytest.mark.parametrize("key", sorted(NOTEBOOKS))
def test_every_number_in_the_prose_is_live_or_accounted_for(key):
    path = NOTEBOOKS[key]
    allowed = set(EXACT[key]) | PARAMETERS[key] | set(DECLARED[key])
    unexplained = sorted({(n, i) for n, i in _claims(path) if n not in allowed},
                         key=lambda item: item[1])
    assert not unexplained, (
        f"{path.name}: numbers in markdown that no cell computes and no list here accounts for "
        f"(number, cell): {unexplained}. Print measured numbers from a code cell instead.")


@pytest.mark.parametrize("key", sorted(NOTEBOOKS))
def test_derived_numbers_equal_their_formula(key):
    for written, expression in EXACT[key].items():
        value = _evaluate(expression)
        assert _equal_to_digits(written, value), f"{key}: {written} != {expression} = {value}"


@pytest.mark.parametrize("key", sorted(NOTEBOOKS))
def test_parameters_are_set_in_code(key):
    code = _code(NOTEBOOKS[key])
    for value in PARAMETERS[key]:
        assert re.search(rf"(?<![\w.]){re.escape(value)}(?![\w.])", code), (
            f"{key}: {value} is listed as a parameter but no code cell sets it")


@pytest.mark.parametrize("key", sorted(NOTEBOOKS))
def test_every_entry_still_matches_a_number(key):
    stated = {n for n, _ in _claims(NOTEBOOKS[key])}
    stale = (set(EXACT[key]) | PARAMETERS[key] | set(DECLARED[key])) - stated
    assert not stale, f"{key}: entries no longer stated in the notebook: {sorted(stale)}"


def test_the_scanner_finds_claims_and_skips_references():
    text = ("Section 3.1 and Theorems 4.3 and 4.4; eq (12). The gap is 0.19, about 30 times "
            "larger, 95% of users, roughly 51,200 users, 2× faster, 2^{p}.\n"
            "```python\nf(0.5)  # 0.711\n```")
    found = [next(g for g in m.groups() if g is not None) for m in _CLAIM.finditer(_prose(text))]
    assert found == ["0.19", "30", "95", "51,200", "2", "0.711"]
