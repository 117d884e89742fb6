"""``python -m ldpviz realdata``: the what-if analysis on your own CSV, from the command line.

:func:`realdata` turns the parsed options (``ldpviz.__main__`` builds the parser) into a
:func:`ldpviz.reproduce.whatif_data.load_table` and :func:`ldpviz.reproduce.whatif.whatif`
call and writes the report. Bad input raises ValueError with one line naming the option;
``ldpviz.__main__`` prints it and exits with status 2.
"""

from __future__ import annotations

import re
import shlex
import warnings

from .grids import parse_grid_option

# The numerical stack (whatif_data, whatif_report, whatif and the library under them) is
# imported once the options are checked: a usage error is answered at once.

__all__ = ["check_once", "cli_terms", "realdata"]


def check_once(option, items, advice):
    """Refuse an option that gives the same item twice (one would silently win or vanish)."""
    seen = set()
    for key, shown in items:
        if key in seen:
            raise ValueError(f"{option} gives {shown} twice; {advice}.")
        seen.add(key)


def _grids(options):
    """The ``--grid METHOD.PARAM=V,V`` options as ``grids`` for :func:`whatif`."""
    parsed = [parse_grid_option(text) for text in options or []]
    check_once("--grid", [((key, param), f"{key}.{param}") for key, param, _ in parsed],
               "list all its values in one --grid, e.g. hot.depth=1,2,4")
    grids = {}
    for key, param, values in parsed:
        grids.setdefault(key, {})[param] = values
    return grids


def _bounds(args):
    """Public feature bounds: the ``--feature-bounds`` file, then ``--x-range`` (which wins)."""
    x_range = args.x_range or []
    check_once("--x-range", [(column, f"bounds for {column!r}") for column, _, _ in x_range],
               "give each column's bounds once")
    bounds = {}
    if args.feature_bounds:
        from . import whatif_data

        try:
            bounds = dict(whatif_data.read_bounds(args.feature_bounds))
        except (OSError, ValueError) as exc:  # not found, not UTF-8, not column,lo,hi
            raise ValueError(f"--feature-bounds: {exc}") from None
    for column, lo, hi in x_range:  # they replace the file's
        bounds[column] = (lo, hi)
    return bounds


def _check_drop(args):
    """``--drop``: each column once, not a protected column."""
    drop = args.drop or []
    check_once("--drop", [(c, repr(c)) for c in drop], "give each column once")
    # The target is refused by load_csv (drop=), whose message cli_terms names as --drop.
    for option, columns in (("--private", args.private), ("--personalized", args.personalized)):
        both = [c for c in drop if c in (columns or [])]
        if both:
            raise ValueError(f"--drop and {option} both name {both[0]!r}: a column left out "
                             "cannot be protected; keep it in one of them.")


#: Python argument names in messages of load_table and whatif, as the command line's options.
_CLI_TERMS = (
    (r"grids\['(\w+)'\]\['(\w+)'\]", r"--grid \1.\2"),
    (r"grids\['(\w+)'\]", r"--grid \1"),
    (r"^grids has", "--grid has"),
    (r"(?<![\w-])y_range(?!\w)", "--y-range"),
    (r"(?<![\w-])test_size=", "--test-size "),
    (r"^x_bounds names", "--x-range / --feature-bounds name"),
    (r"^drop (names|lists)", r"--drop \1"),
    (r"^categorical_columns", "--categorical-columns"),
    (r"^personalized (needs|repeats columns of) private", r"--personalized \1 --private"),
)
_X_BOUNDS = re.compile(r"""x_bounds\[(['"])(.*?)\1\]""")


def cli_terms(message, args):
    """A message of the Python API (e.g. ``grids['hot']['t']``, ``y_range``,
    ``x_bounds['smoker']``) naming the command line's options instead (``--grid hot.t``,
    ``--y-range``, ``--x-range smoker``, or the ``--feature-bounds`` row of a column the
    file bounds)."""
    for pattern, replacement in _CLI_TERMS:
        message = re.sub(pattern, replacement, message)
    given = {column for column, _, _ in args.x_range or []}
    return _X_BOUNDS.sub(lambda m: (f"--x-range {m[2]}" if m[2] in given
                                    else f"the --feature-bounds row {m[2]!r}"), message)


def realdata(args, argv, run_options):
    """``python -m ldpviz realdata``: load the CSV, run :func:`whatif`, write the report;
    returns ``(text to print, files written)``. ``args``: the parsed options; ``argv``: the
    command line (recorded in the report); ``run_options``: reps, seed, n_jobs, progress and
    cache_dir for :func:`whatif`. A ValueError names the options, not the Python arguments
    (:func:`cli_terms`)."""
    try:
        return _realdata(args, argv, run_options)
    except ValueError as exc:
        raise ValueError(cli_terms(str(exc), args)) from None


def _realdata(args, argv, run_options):
    grids = _grids(args.grid)
    check_once("--epsilon", [(e, f"{e:g}") for e in args.epsilon], "give each budget once")
    check_once("--methods", [(m, m) for m in args.methods or []], "give each method once")
    check_once("--categorical-columns", [(c, c) for c in args.categorical_columns or []],
               "give each column once")
    _check_drop(args)
    if args.methods and args.private is None:
        raise ValueError("--methods chooses the methods compared under --private; without "
                         "--private the per-column costs are measured with ParDT and DT alone, "
                         "so leave --methods out (or name the protected columns in --private).")
    adhot = [m for m in args.methods or [] if m.startswith("adhot-")]
    if adhot and args.personalized is None:
        raise ValueError(f"--methods {' '.join(adhot)} needs --personalized: AdHistOfTree runs "
                         "in the personalized paradigm only (name the columns some users also "
                         "protect), or leave adhot-* out of --methods.")
    if args.label_range in ("declared", "independent") and args.y_range is None:
        raise ValueError(f"--label-range {args.label_range} needs --y-range LO HI: the range "
                         "of that public source.")
    if args.label_range == "private" and args.y_range is not None:
        raise ValueError("--label-range private reads the range off the labels: drop "
                         "--y-range, or name its source (declared or independent).")
    bounds = _bounds(args)
    from .._validation import PrivacyWarning
    from . import whatif_data, whatif_report
    from .whatif import whatif

    table = whatif_data.load_table(args.csv, args.target, y_range=args.y_range,
                                   x_bounds=bounds, categorical=args.categorical,
                                   drop_missing=args.drop_missing, decimal=args.decimal,
                                   categorical_columns=args.categorical_columns,
                                   max_categories=args.max_categories, drop=args.drop)
    names = table.feature_names
    private = whatif_data.resolve_columns(args.private, names, "--private", args.target)
    also = whatif_data.resolve_columns(args.personalized, names, "--personalized", args.target)
    dropped = table.choices["rows_dropped"]
    print(f"ldpviz realdata: {args.csv.name}, target {args.target}: {len(table.y):,} rows"
          + (f" ({dropped:,} with missing values dropped)" if dropped else "")
          + f", {len(names)} feature columns"
          + (f" (left out: {', '.join(map(repr, args.drop))})" if args.drop else "") + ".")
    if table.choices["loader_summary"]:
        print(table.choices["loader_summary"])
    print(f"feature box: {table.choices['feature_box']}.")
    if args.y_range is None:
        print(("WARNING: --label-range private" if args.label_range else "WARNING: no "
               "--y-range") + ": the label range will be read off the private labels. This "
              "leaks; a deployment must fix the range in advance (pass --y-range LO HI).")
        warnings.filterwarnings("ignore", message="(y_range was not given|label_range=)",
                                category=PrivacyWarning)  # said just above, louder
    result = whatif(table.X, table.y, private=private, personalized=also, feature_names=names,
                    epsilons=args.epsilon, y_range=table.y_range,
                    label_range=args.label_range, test_size=args.test_size,
                    grids=grids, methods=args.methods, max_seconds=60 * args.max_minutes,
                    name=args.csv.name, provenance=table.choices, log=print,
                    **run_options)
    command = "python -m ldpviz " + " ".join(shlex.quote(str(a)) for a in argv)
    files = whatif_report.write_whatif(result, args.out, "realdata", command=command,
                                       log=lambda line: print(f"ldpviz realdata: {line}"))
    text = whatif_report.console_text(result)
    if private is None:
        text += ("\n\nNo --private was given, so no column was assumed private: the table "
                 "above is what protecting each column alone costs. Rerun with --private "
                 "COL ... for the full analysis of your choice.")
    return text, files
