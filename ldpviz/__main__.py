"""Command line: ``python -m ldpviz`` (or ``ldpviz``).

``reproduce``  run a figure panel or table of the HistOfTree paper; write CSV, PNG / markdown.
``realdata``   the what-if analysis on your own CSV: every method of Table 1, MSE ratio to a
               non-private decision tree, aligned and personalized paradigms.

Errors in the input (a missing file, an unknown column, data that cannot be encoded) end with a
one-line message and exit code 2. Runs are cached under ``OUT/.ldpviz_cache``: rerun the same
command after an interruption and it resumes.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

from ._validation import PrivacyWarning
from .reproduce import paper, whatif

FIGURES = tuple(paper.FIGURES)
TABLES = tuple(paper.TABLE_EPSILON)


class InputError(Exception):
    """Bad input from the user: reported in one line, exit code 2."""


def _parser():
    parser = argparse.ArgumentParser(
        prog="ldpviz", description="Semi-feature LDP experiments (HistOfTree and competitors).")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{reproduce,realdata}")

    def common(p, reps, default_out):
        p.add_argument("--reps", type=int, default=reps,
                       help=f"replications / random splits (default {reps}; fewer is faster "
                            "and noisier)")
        p.add_argument("--n-jobs", type=int, default=1, help="parallel jobs (joblib; -1: all "
                       "cores)")
        p.add_argument("--out", type=Path, default=Path(default_out),
                       help=f"output folder (default {default_out})")
        p.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
        p.add_argument("--no-cache", action="store_true",
                       help="do not read or write OUT/.ldpviz_cache")
        p.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    rep = sub.add_parser("reproduce", help="reproduce a panel of Figure 2 or Tables 1-3",
                         description="Reproduce a panel of Figure 2 (CSV + PNG) or one of "
                                     "Tables 1-3 (CSV + markdown). Defaults follow the paper "
                                     "(50 replications, Appendix C.1 grids).")
    rep.add_argument("name", choices=FIGURES + TABLES)
    common(rep, 50, "ldpviz_results")
    rep.add_argument("--data-home", type=Path, default=None,
                     help="folder with the UCI files (tables; default $LDPVIZ_DATA, then "
                          "~/ldpviz_data, downloading if missing)")
    rep.add_argument("--datasets", nargs="+", default=list(paper.TABLE_DATASETS),
                     metavar="NAME", help="tables: UCI datasets (default: %(default)s; "
                                          "qsar-fish is also available)")
    rep.add_argument("--label-range", choices=("public", "data"), default="public",
                     help="tables: the label bound from each dataset's documented public "
                          "range (default) or read off the labels as the paper does (leaks)")

    real = sub.add_parser("realdata", help="what-if analysis on your own CSV",
                          description="Every method of Table 1 on your CSV: MSE ratio to a "
                                      "non-private decision tree, aligned and personalized.")
    real.add_argument("csv", type=Path, help="a CSV file with a header row")
    real.add_argument("--target", required=True, help="the label column")
    real.add_argument("--private", nargs="+", default=None, metavar="COL",
                      help="protected columns, most sensitive first (default: the first "
                           "ceil(log sqrt d) columns)")
    real.add_argument("--epsilon", nargs="+", type=float, default=[1.0, 2.0, 4.0],
                      metavar="E", help="privacy budgets (default 1 2 4)")
    real.add_argument("--y-range", nargs=2, type=float, default=None, metavar=("LO", "HI"),
                      help="public range of the label (default: read off the data, which "
                           "leaks; a deployment must fix it in advance)")
    real.add_argument("--categorical", choices=("ordinal", "onehot"), default="ordinal",
                      help="encoding of non-numeric columns (default ordinal)")
    real.add_argument("--drop-missing", action="store_true",
                      help="drop rows with missing values (default: refuse them)")
    common(real, 20, "ldpviz_results")
    return parser


def _run_options(args):
    return {"reps": args.reps, "seed": args.seed, "n_jobs": args.n_jobs,
            "progress": not args.no_progress,
            "cache_dir": None if args.no_cache else args.out / ".ldpviz_cache"}


def _check_counts(args):
    if args.reps < 1:
        raise InputError(f"--reps must be at least 1, got {args.reps}.")
    if args.n_jobs == 0:
        raise InputError("--n-jobs must not be 0 (use 1, or -1 for every core).")


def _markdown(frame, index=True):
    """A DataFrame as a markdown table (no optional dependency)."""
    frame = frame.reset_index() if index else frame
    head = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "---|" * len(frame.columns)
    body = ["| " + " | ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in row)
            + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule, *body])


def _reproduce(args):
    options = _run_options(args)
    if args.name in FIGURES:
        results, best = paper.figure2(args.name, **options)
        x = paper.FIGURES[args.name][1]
        summary = best.pivot_table(index="series", columns=x, values="mse", aggfunc="mean")
        files = paper.write_outputs(args.out, args.name, {"": best, "_grid": results},
                                    figure=paper.plot_figure2(args.name, best))
        text = f"Mean MSE (against f*) over {args.reps} replications, best over the grid:\n" \
               + _markdown(summary)
    else:
        from .datasets import load_uci

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PrivacyWarning)
            try:
                datasets = [load_uci(name, data_home=args.data_home, y_range=args.label_range)
                            for name in args.datasets]
            except (OSError, ValueError) as exc:  # missing data files, unknown names
                raise InputError(str(exc)) from None
        for warning in caught[:1]:
            print(f"ldpviz: note: {warning.message}", file=sys.stderr)
        best, summary = paper.table(args.name, datasets=datasets, **options)
        reference = paper.PAPER_TABLE1 if args.name == "table1" else None
        text = (f"{args.name}: epsilon = {paper.TABLE_EPSILON[args.name]}, {args.reps} random "
                f"70/30 splits, {args.label_range} label range, MSE ratio to a non-private "
                "decision tree (best over grids; bold = best, * = Wilcoxon signed-rank "
                "p < 0.05 against every other method)"
                "\n\n" + paper.table_markdown(summary, paper=reference))
        files = paper.write_outputs(args.out, args.name, {"": best, "_summary": summary},
                                    text=text)
    return text, files


def _realdata(args):
    from .datasets import load_csv

    if not args.epsilon or min(args.epsilon) <= 0:
        raise InputError(f"--epsilon values must be positive, got {args.epsilon}.")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyWarning)
        try:
            bunch = load_csv(args.csv, args.target, private=args.private,
                             categorical=args.categorical,
                             missing="drop" if args.drop_missing else "error",
                             y_range=args.y_range)
        except (OSError, ValueError) as exc:
            raise InputError(str(exc)) from None
    for warning in caught:
        print(f"ldpviz: note: {warning.message}", file=sys.stderr)
    if len(bunch.feature_names) < 2:
        raise InputError(f"{args.csv} needs at least 2 feature columns besides the target.")
    private = bunch.ranking[:bunch.s_star]
    best = whatif.whatif(bunch.X, bunch.y, private=private, epsilons=args.epsilon,
                        y_range=bunch.y_range, name=str(args.csv), **_run_options(args))
    names = ", ".join(bunch.feature_names[j] for j in private)
    text = (f"{args.csv.name}: target {args.target}, {len(bunch.y)} rows, private: {names}; "
            f"label range {bunch.y_range}; {args.reps} random 70/30 splits.\n"
            "Mean MSE ratio to a non-private decision tree (lower is better; 1 = no cost):\n\n"
            + _markdown(whatif.whatif_summary(best)))
    files = paper.write_outputs(args.out, "realdata", {"": best}, text=text,
                                figure=whatif.plot_whatif(best))
    return text, files


def main(argv=None):
    """Entry point of ``python -m ldpviz`` and the ``ldpviz`` script; returns the exit code."""
    args = _parser().parse_args(argv)
    start = time.perf_counter()
    try:
        _check_counts(args)
        text, files = _reproduce(args) if args.command == "reproduce" else _realdata(args)
    except InputError as exc:
        print(f"ldpviz: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("ldpviz: interrupted; run the same command again to resume from the cache.",
              file=sys.stderr)
        return 130
    print(text)
    print("\nwrote " + ", ".join(str(f) for f in files))
    print(f"done in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
