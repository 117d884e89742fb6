// Run Python code of this checkout under Pyodide (wasm32) in Node.js, offline.
//
//   node lite/pyodide_tests.mjs DIST [--load=NAME,...] -- SCRIPT.py [ARGS...]
//
// DIST is a distribution made by lite/pyodide_dist.py, mounted at /dist. The checkout is
// mounted at /repo and its src/ comes first on sys.path, so the code under test is this working
// tree's, not the wheel in DIST. ldpviz's dependencies (and pytest) are loaded from DIST only
// (with --load= the packages named instead, or none): nothing is fetched from the network.
// SCRIPT runs as __main__ with sys.argv = [SCRIPT, ...ARGS]; its
// exit code (SystemExit) becomes this process's.
import { readFileSync } from "node:fs";
import path from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const argv = process.argv.slice(2);
const load = argv[1]?.startsWith("--load=") ? argv.splice(1, 1)[0].slice(7).split(",") : null;
const [dist, sep, script, ...args] = argv;
if (!dist || sep !== "--" || !script) {
  console.error("usage: node lite/pyodide_tests.mjs DIST [--load=NAME,...] -- SCRIPT.py [ARGS...]");
  process.exit(2);
}
const indexURL = path.resolve(dist) + path.sep;
const { loadPyodide } = await import(pathToFileURL(path.join(indexURL, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL, env: { HOME: "/home/pyodide", MPLBACKEND: "Agg" } });
const lock = JSON.parse(readFileSync(path.join(indexURL, "pyodide-lock.json"), "utf8"));
// scipy, scikit-learn, matplotlib and plotly: ldpviz's dependencies that the site installs on
// first use (lite/pyodide_dist.py, DEFERRED), loaded here up front like the rest
const packages = load ?? [...lock.packages.ldpviz.depends, "scipy", "scikit-learn",
                          "matplotlib", "plotly", "pytest"];
if (packages.filter(Boolean).length) {
  await pyodide.loadPackage(packages.filter(Boolean), { messageCallback: () => {} });
}
for (const [root, at] of [[repo, "/repo"], [path.resolve(dist), "/dist"]]) {
  pyodide.FS.mkdirTree(at);
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root }, at);
}
pyodide.globals.set("_script", script);
pyodide.globals.set("_args", pyodide.toPy(args));
let code = 0;
try {
  code = await pyodide.runPythonAsync(`
import os, runpy, sys
sys.path.insert(0, "/repo/src")
os.chdir("/repo")
sys.argv = [_script, *_args]
sys.dont_write_bytecode = True
try:
    runpy.run_path(_script, run_name="__main__")
    _code = 0
except SystemExit as exc:
    _code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
_code
`);
} catch (err) {
  console.error(err.message || err);
  code = 1;
}
process.exit(code);
