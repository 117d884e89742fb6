"""Command line: ``python -m ldpviz`` (or ``ldpviz``).

``reproduce``  run a figure panel or table of the HistOfTree paper; write CSV, PNG / markdown.
               ``reproduce report`` writes one self-contained HTML page with every figure and
               table next to the paper's (``--quick``: a 1-minute test of the pipeline).
``realdata``   the what-if analysis on your own CSV (:func:`ldpviz.reproduce.whatif.whatif`):
               what protecting the columns you name costs at each epsilon, relative to the
               non-private tree and to label-only privacy, and which method wins; without
               ``--private``, what protecting each column alone costs. Writes CSV, PNG,
               markdown and a self-contained HTML report.

Bad arguments and bad data never end in a traceback: one line ``ldpviz: error: ...`` on
stderr and exit status 2. Warnings are one line each (``ldpviz: warning: ...``). Runs are
cached under ``OUT/.ldpviz_cache``: rerun the same command after an interruption and it resumes.
Set ``LDPVIZ_DEBUG=1`` to see the traceback of an unexpected error.

The parser and every check of the options import only the standard library (and
:mod:`ldpviz.reproduce.catalog`, plain data): ``--help`` and a usage error answer at once, and
numpy, pandas and scikit-learn are loaded when a command starts its work.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shlex
import sys
import tempfile
import time
import warnings
from pathlib import Path

from .reproduce import catalog

EXIT_INPUT, EXIT_INTERRUPT, EXIT_INTERNAL = 2, 130, 1
#: A negative number as argparse should see it: -2, -2.5, -.5, -1e3, -2.5E-3.
_NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_REQUIRED = re.compile(r"^the following arguments are required: (.*)$")


class InputError(Exception):
    """Bad input from the user: reported in one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (usage is one ``--help`` away), reading "-1e3" and "-.5"
    as negative numbers (argparse's own pattern takes only plain decimals such as "-2.5", so
    ``--y-range -1e3 10`` ended in "expected 2 arguments")."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_NUMBER
        self.register("action", None, _StoreOnce)  # the default action, "store"
        self.register("action", "store", _StoreOnce)
        self._given = set()
        #: What a missing required argument is, for the error ("needs a NAME: fig2a, ...")
        self.needs = {}

    def parse_known_args(self, args=None, namespace=None):
        self._given = set()
        return super().parse_known_args(args, namespace)

    def error(self, message):
        missing = _REQUIRED.match(message)
        if missing:  # argparse's "the following arguments are required: name" names no value
            names = [name.strip() for name in missing[1].split(", ")]
            message = f"{self.prog} needs " + " and ".join(self.needs.get(n, n) for n in names)
        print(f"ldpviz: error: {_one_line(message)} (see '{self.prog} --help')",
              file=sys.stderr)
        raise SystemExit(EXIT_INPUT)


class _StoreOnce(argparse.Action):
    """argparse's "store", refusing an option given twice (argparse keeps the last silently:
    ``--epsilon 1 --epsilon 2`` ran epsilon 2 only). Repeatable options use "append"."""

    def __call__(self, parser, namespace, values, option_string=None):
        if self.dest in parser._given:
            parser.error(f"argument {option_string or self.dest}: given twice; give it once "
                         "(with all its values)")
        parser._given.add(self.dest)
        setattr(namespace, self.dest, values)


def _one_line(text):
    """The message on one line, a number too long to read shown by its first digits and its
    length ('--reps 2**1100' echoed 332 digits)."""
    return _LONG_NUMBER.sub(lambda m: f"{m[0][:6]}... ({len(m[0])} digits)",
                            " ".join(str(text).split()))


_LONG_NUMBER = re.compile(r"\d{30,}")


# ----------------------------------------------------------------------------------------------
# Argument types: each refuses a bad value with a message naming it
# ----------------------------------------------------------------------------------------------
def _integer(low, high=None):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f">= {low}" if high is None else f"in [{low}, {high}]"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value

    return parse


def _real(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be finite, got {text!r}")
    return value


def _epsilon(text):
    value = _real(text)
    if not 0 < value <= 1000:
        raise argparse.ArgumentTypeError(f"must be in (0, 1000] (the non-private tree is the "
                                         f"no-privacy reference), got {text!r}")
    return value


def _cores():
    """The cores this process may run on. joblib's count (which the run checks again with
    :func:`ldpviz.reproduce.runtime.check_n_jobs`) is never larger: it also reads CPU quotas,
    and importing joblib imports numpy."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _n_jobs(text):
    """--n-jobs as joblib reads it, at most the machine's cores (check_n_jobs's words)."""
    value = _integer(-(2**63))(text)
    cores = _cores()
    if value == 0:
        raise argparse.ArgumentTypeError("must not be 0: use 1 (no parallelism) or -1 (every "
                                         "core).")
    if value > cores:
        raise argparse.ArgumentTypeError(
            f"{value} asks for more workers than this machine's {cores} cores; use "
            f"--n-jobs <= {cores} (or -1 for every core).")
    if value < -cores:
        raise argparse.ArgumentTypeError(
            f"{value} leaves no core of this machine's {cores}; use --n-jobs >= "
            f"{-cores} (-1 is every core).")
    return value


def _fraction(text):
    value = _real(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1, got {text!r}")
    return value


def _minutes(text):
    value = _real(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text!r}")
    return value


def _folder(text):
    if not text.strip():
        raise argparse.ArgumentTypeError("must name a folder, got an empty name")
    return Path(text)


def _parser():
    figures, tables = catalog.FIGURE_NAMES, tuple(catalog.TABLE_EPSILON)
    max_minutes, methods = catalog.MAX_MINUTES, catalog.METHODS

    parser = _Parser(prog="ldpviz",
                     description="Semi-feature LDP experiments (HistOfTree and competitors).")
    parser.needs = {"COMMAND": "a COMMAND: reproduce (the paper's figures and tables) or "
                               "realdata (what protecting columns of your CSV costs)"}
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=_Parser)

    def common(p, reps, default_out, reps_help=None):
        default = reps_help or (f"default {reps}" if reps else "default 20, or as many as "
                                "fit in --max-minutes, at least 5")
        p.add_argument("--reps", type=_integer(1, 10_000), default=reps,
                       help=f"replications / random splits ({default}; fewer is faster and "
                            "noisier)")
        p.add_argument("--n-jobs", type=_n_jobs, default=1,
                       help="parallel jobs (joblib; -1: all cores; at most the number of "
                            "cores; default 1)")
        p.add_argument("--out", type=_folder, default=Path(default_out),
                       help=f"output folder (default {default_out})")
        p.add_argument("--seed", type=_integer(0, 2**63 - 1), default=0,
                       help="root seed, >= 0 (default 0)")
        p.add_argument("--no-cache", action="store_true",
                       help="do not read or write OUT/.ldpviz_cache")
        p.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    rep = sub.add_parser("reproduce", help="reproduce a panel of Figure 2, Tables 1-3, or "
                                           "all of them in one HTML report",
                         description="Reproduce a panel of Figure 2 (CSV + PNG) or one of "
                                     "Tables 1-3 (CSV + markdown). Defaults follow the paper "
                                     "(50 replications, Appendix C.1 grids). 'report' runs "
                                     "everything and writes OUT/reproduction.html, one "
                                     "self-contained page (no external URL) with every figure "
                                     "and table next to the paper's and a note on each known "
                                     "discrepancy: about 10 minutes on two cores (--n-jobs 2), "
                                     "under a minute with --quick.",
                         epilog="Examples: python -m ldpviz reproduce table1 --label-range all "
                                "--n-jobs 2; python -m ldpviz reproduce report --out results "
                                "--n-jobs 2")
    names = (f"{', '.join(figures[:-1])} or {figures[-1]} (a panel of Figure 2), "
             f"{', '.join(tables[:-1])} or {tables[-1]} (Tables 1-3), or report (all of them "
             "in one HTML page)")
    rep.add_argument("name", choices=figures + tables + ("report",), metavar="NAME",
                     help=f"what to reproduce: {names}")
    rep.needs = {"NAME": f"a NAME: {names}"}
    common(rep, None, "ldpviz_results",
           reps_help="default 50 as in the paper; report: 30 for Figure 2 and 15 splits per "
                     "table, to fit 15 minutes on two cores")
    rep.add_argument("--data-home", type=_folder, default=None,
                     help="folder with the UCI files (tables; default $LDPVIZ_DATA, then "
                          "~/ldpviz_data, downloading if missing; the report never downloads)")
    rep.add_argument("--datasets", nargs="+", default=None, metavar="NAME",
                     help="tables: UCI datasets (default: abalone qsar-aquatic wine-red "
                          "wine-white; qsar-fish is also available)")
    rep.add_argument("--label-range", nargs="+", default=None, metavar="POLICY",
                     help="tables: the label range, one or more of declared (the scale the "
                          "dataset's documentation declares; default), independent (the range "
                          "of independent public data on the same scale, e.g. the other "
                          "wine's), private (read off the private labels as the paper does: "
                          "leaks, for comparison only), or all; several are run side by side")
    rep.add_argument("--max-minutes", type=_minutes, default=None,
                     help=f"figures and tables: refuse a run estimated to take longer "
                          f"(default {max_minutes})")
    rep.add_argument("--quick", action="store_true",
                     help="report: small samples and grids, 2 replications (tests the "
                          "pipeline in under a minute; not a reproduction)")

    real = sub.add_parser(
        "realdata", help="what-if analysis on your own CSV",
        description="What does protecting these columns cost at each epsilon? Runs every "
                    "method of the paper's Table 1 on random splits of your CSV and states the "
                    "answer: the cost relative to the non-private tree (DT) and to label-only "
                    "privacy (HistOfTree with every feature public, and LabelDT), with +-2 SE "
                    "error bars and Wilcoxon marks; whether HistOfTree's private histogram "
                    "helped; which method wins. Without --private nothing is assumed private: "
                    "it measures what protecting each column alone costs and recommends an "
                    "ordering. Writes CSV, PNG, markdown and a self-contained HTML report.",
        epilog="Example: python -m ldpviz realdata my.csv --target cost --private income age "
               "--y-range 0 5000 --epsilon 1 2 4 --n-jobs 2")
    real.add_argument("csv", type=Path, metavar="CSV", help="a CSV file with a header row")
    real.add_argument("--target", required=True, metavar="COLUMN", help="the label column")
    real.needs = {"CSV": "a CSV file (with a header row)",
                  "--target": "--target COLUMN (the label column of the CSV)"}
    real.add_argument("--private", nargs="+", default=None, metavar="COL",
                      help="the columns every user protects (aligned paradigm). Without it "
                           "nothing is assumed: the per-column cost table is computed instead")
    real.add_argument("--drop", nargs="+", default=None, metavar="COL",
                      help="columns to leave out before anything is read from them (an "
                           "identifier, a date, a pandas index column: '' names the columns "
                           "with no name); not the target, nor a column of --private or "
                           "--personalized")
    real.add_argument("--personalized", nargs="+", default=None, metavar="COL",
                      help="also run the personalized paradigm (Section 5.2's decade rule): "
                           "besides --private, 1 in 10 users also protects the first "
                           "len(--private) of these columns, 1 in 100 the next, and so on; "
                           "other columns stay public")
    real.add_argument("--epsilon", nargs="+", type=_epsilon, default=[1.0, 2.0, 4.0],
                      metavar="E", help="privacy budgets in (0, 1000] (default 1 2 4)")
    real.add_argument("--y-range", nargs=2, type=_real, default=None, metavar=("LO", "HI"),
                      help="public range of the label, fixed in advance: the scale the "
                           "label is declared on, or the range of independent public data on "
                           "the same scale (say which with --label-range); without it the "
                           "range is read off the private labels, which leaks")
    real.add_argument("--label-range", choices=("declared", "independent", "private"),
                      default=None,
                      help="where the label range comes from, recorded in the report (the "
                           "policies of 'reproduce table1'): declared or independent need "
                           "--y-range; private reads it off the labels (leaks; for comparison "
                           "only) and takes no --y-range")
    real.add_argument("--x-range", nargs=3, action="append", default=None,
                      metavar=("COL", "LO", "HI"),
                      help="public bounds of a feature column (repeatable); columns without "
                           "bounds are min-max scaled with bounds read off the data")
    real.add_argument("--feature-bounds", type=Path, default=None, metavar="FILE",
                      help="public feature bounds: a CSV with header column,lo,hi")
    real.add_argument("--categorical", choices=("ordinal", "onehot"), default=None,
                      help="how to encode non-numeric columns (default: the loader's)")
    real.add_argument("--drop-missing", action="store_true",
                      help="drop rows with missing values (default: refuse them)")
    real.add_argument("--decimal", choices=(".", ","), default=".",
                      help="decimal mark of the numbers in the CSV (default .)")
    real.add_argument("--categorical-columns", nargs="+", default=None, metavar="COL",
                      help="columns of numbers (codes, zip codes) or of numbers mixed with "
                           "text to encode as categories")
    real.add_argument("--max-categories", type=_integer(1), default=20,
                      help="most levels of a text column encoded as categories (default 20)")
    real.add_argument("--test-size", type=_fraction, default=0.3,
                      help="share of rows held out in each split (default 0.3)")
    real.add_argument("--grid", action="append", default=None, metavar="METHOD.PARAM=V,V",
                      help="replace a grid's candidate values, e.g. hot.depth=1,2,4 or "
                           "tree.min_samples_leaf=10,100 (repeatable; METHOD in hot, adhot, "
                           "hist, tree, krr)")
    real.add_argument("--methods", nargs="+", default=None, choices=list(methods),
                      metavar="KEY", help="methods to run (default all): "
                      + ", ".join(methods) + "; DT always runs. adhot-me and adhot-cart "
                      "(AdHistOfTree) run in the personalized paradigm only: they need "
                      "--personalized")
    real.add_argument("--max-minutes", type=_minutes, default=float(max_minutes),
                      help=f"refuse a run estimated to take longer (default {max_minutes})")
    common(real, None, "ldpviz_results")
    return parser


# ----------------------------------------------------------------------------------------------
# Shared checks
# ----------------------------------------------------------------------------------------------
def _check_out(out):
    """Fail before any computation if ``out`` cannot hold the results."""
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {str(out)!r} is a file, not a folder.")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out, prefix=".ldpviz-write-test-"):
            pass
    except OSError as exc:
        raise InputError(f"--out {str(out)!r} cannot be written: "
                         f"{exc.strerror or exc}.") from None


def _run_options(args):
    return {"reps": args.reps, "seed": args.seed, "n_jobs": args.n_jobs,
            "progress": not args.no_progress,
            "cache_dir": None if args.no_cache else args.out / ".ldpviz_cache"}


# ----------------------------------------------------------------------------------------------
# reproduce
# ----------------------------------------------------------------------------------------------
def _check_reproduce_options(args):
    """Options that belong to another kind of target are refused, not ignored."""
    from .reproduce.whatif_cli import check_once

    kind = "report" if args.name == "report" else "table" if args.name.startswith("table") \
        else "figure"
    if args.max_minutes is not None and kind == "report":
        raise InputError("--max-minutes applies to figures and tables (the report's plan fits "
                         "15 minutes on two cores), not report.")
    if args.quick and kind != "report":
        raise InputError(f"--quick applies to 'reproduce report' only, not {args.name}.")
    if args.label_range is not None and kind != "table":
        raise InputError(f"--label-range applies to tables only (the report runs Table 1 "
                         f"under every policy), not {args.name}.")
    if args.datasets is not None and kind == "figure":
        raise InputError(f"--datasets applies to tables and the report, not {args.name}.")
    check_once("--datasets", [(name, name) for name in args.datasets or []],
               "give each dataset once")
    policies = list(args.label_range or ["declared"])
    known = catalog.LABEL_RANGE_POLICIES
    if "all" in policies:
        policies = [p for p in policies if p != "all"] + [p for p in known if p not in policies]
    for policy in policies:
        if policy not in known:
            raise InputError(f"--label-range must be among {', '.join(known)} or all, got "
                             f"{policy!r}.")
    if len(set(policies)) < len(policies):
        raise InputError(f"--label-range names a policy twice: {' '.join(policies)}.")
    return policies


def _reproduce(args, argv):
    policies = _check_reproduce_options(args)
    if args.name == "report":
        return _report(args, argv)
    from ._validation import PrivacyWarning
    from .reproduce import paper
    from .reproduce.whatif_report import markdown_table

    args.reps = 50 if args.reps is None else args.reps
    options = _run_options(args)
    names = args.datasets or list(paper.TABLE_DATASETS)
    _check_time(args, 1 if args.name in paper.FIGURES else len(names) * len(policies))
    if args.name in paper.FIGURES:
        results, best = paper.figure2(args.name, **options)
        x = paper.FIGURES[args.name][1]
        summary = best.pivot_table(index="series", columns=x, values="mse", aggfunc="mean")
        files = paper.write_outputs(args.out, args.name, {"": best, "_grid": results},
                                    figure=paper.plot_figure2(args.name, best))
        text = f"Mean MSE (against f*) over {args.reps} replications, best over the grid:\n" \
               + markdown_table(summary)
        return text, files
    from .datasets import load_uci

    ranges = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)  # said once below
        try:
            for name in names:  # fail early on missing files and unknown names
                for policy in policies:
                    bunch = load_uci(name, data_home=args.data_home, y_range=policy)
                    ranges.append(f"  {bunch.paper_name} {policy}: ({bunch.y_range[0]:g}, "
                                  f"{bunch.y_range[1]:g}), {bunch.y_range_source}")
        except (OSError, ValueError) as exc:  # missing data files, unknown names
            raise InputError(str(exc)) from None
        best, summary = paper.table(args.name, datasets=names, data_home=args.data_home,
                                    label_range=policies, **options)
    if "private" in policies:
        warnings.warn("--label-range private reads each label range off the private labels, "
                      "as the paper does: this leaks (for comparison with the paper only).",
                      PrivacyWarning, stacklevel=1)
    reference = paper.PAPER_TABLES[args.name]
    text = (f"{args.name}: epsilon = {paper.TABLE_EPSILON[args.name]}, {args.reps} random "
            f"70/30 splits, MSE ratio to a non-private decision tree (best over grids; bold = "
            "best, * = Wilcoxon signed-rank p < 0.05 against every other method; the "
            "label-only references are not ranked). Label ranges:\n" + "\n".join(ranges)
            + "\n\n" + paper.table_markdown(summary, paper=reference)
            + "\n\n" + paper.LABEL_LDP_SENTENCE + "\n\n" + paper.FEATURE_BOX_SENTENCE)
    files = paper.write_outputs(args.out, args.name, {"": best, "_summary": summary}, text=text)
    return text, files


def _check_time(args, runs):
    """Say what the run will take; refuse it beyond --max-minutes, naming --reps that fit."""
    from .reproduce import paper
    from .reproduce.runtime import duration

    limit = 60 * (catalog.MAX_MINUTES if args.max_minutes is None else args.max_minutes)
    seconds = paper.estimate_seconds(args.name, args.reps, args.n_jobs, runs)
    if seconds > limit:
        fit = int(args.reps * limit / seconds)
        hint = (f"--reps {fit} fits (about {duration(seconds * fit / args.reps)})" if fit
                else "even 1 replication does not fit")
        raise InputError(f"reproduce {args.name} with --reps {args.reps} is estimated at "
                         f"{duration(seconds)}, more than --max-minutes "
                         f"{limit / 60:g}: {hint}; more --n-jobs also helps, or raise "
                         "--max-minutes.")
    print(f"ldpviz reproduce {args.name}: {args.reps} replications, estimated at about "
          f"{duration(seconds)} on an otherwise idle machine (--max-minutes {limit / 60:g})",
          flush=True)


def _report(args, argv):
    from .reproduce import reproduction_report

    command = "python -m ldpviz " + " ".join(shlex.quote(str(a)) for a in argv)
    path, rep = reproduction_report.write_report(
        args.out, quick=args.quick, reps=args.reps, seed=args.seed, n_jobs=args.n_jobs,
        data_home=args.data_home, cache=not args.no_cache, progress=not args.no_progress,
        log=lambda line: print(f"ldpviz reproduce report: {line}", flush=True),
        command=command, datasets=args.datasets)
    missing = {name for run in rep.tables.values() for name in run["missing"]}
    text = (f"Reproduction report ({rep.plan.name}, {rep.seconds / 60:.1f} min):\n"
            + "\n".join(f"  - {line}" for line in reproduction_report.headlines(rep)))
    if missing:
        text += ("\n  - no local copy of " + ", ".join(sorted(missing)) + ": their table rows "
                 "are missing (see the page)")
    return text, [path]


# ----------------------------------------------------------------------------------------------
# realdata
# ----------------------------------------------------------------------------------------------
def _realdata(args, argv):
    from .reproduce.whatif_cli import realdata

    # a missing file is said at once, before the numerical stack is loaded to read it (a pipe
    # such as <(...) is no regular file but reads as one)
    for what, path in (("the CSV", args.csv), ("--feature-bounds", args.feature_bounds)):
        if path is not None and path.is_dir():
            raise InputError(f"{what} {str(path)!r} is a folder, not a file.")
        if path is not None and not path.exists():
            raise InputError(f"{what} {str(path)!r} does not exist.")
    return realdata(args, argv, _run_options(args))


# ----------------------------------------------------------------------------------------------
# Entry point
# ----------------------------------------------------------------------------------------------
def _show_warning(message, category, filename, lineno, file=None, line=None):
    validation = sys.modules.get("ldpviz._validation")  # not imported: no PrivacyWarning yet
    privacy = validation is not None and issubclass(category, validation.PrivacyWarning)
    label = "WARNING (privacy)" if privacy else "warning"
    print(f"ldpviz: {label}: {_one_line(message)}", file=sys.stderr)


def main(argv=None):
    """Entry point of ``python -m ldpviz`` and the ``ldpviz`` script; returns the exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv)
    start = time.perf_counter()
    debug = os.environ.get("LDPVIZ_DEBUG")
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _show_warning
        try:
            _check_out(args.out)
            text, files = _reproduce(args, argv) if args.command == "reproduce" else \
                _realdata(args, argv)
        except KeyboardInterrupt:
            print("ldpviz: interrupted; run the same command again to resume from the cache.",
                  file=sys.stderr)
            return EXIT_INTERRUPT
        except (InputError, ValueError, TypeError, OSError, MemoryError,
                OverflowError) as exc:
            if debug:
                raise
            print(f"ldpviz: error: {_one_line(exc) or type(exc).__name__}", file=sys.stderr)
            return EXIT_INPUT
        except Exception as exc:  # an unexpected failure: still one line
            if debug:
                raise
            print(f"ldpviz: internal error: {type(exc).__name__}: {_one_line(exc)} (please "
                  "report it; LDPVIZ_DEBUG=1 shows the traceback)", file=sys.stderr)
            return EXIT_INTERNAL
    print(text)
    print("\nwrote " + ", ".join(str(f) for f in files))
    print(f"done in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
