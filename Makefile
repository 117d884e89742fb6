# Two commands on a fresh machine: `make lab` and `make test` (see README.md).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
TEMPLATE := share/jupyter/voila/templates/ldpviz
# The course's JupyterLab settings (no news prompt) and layout (the file browser collapsed, so
# a notebook gets the width of a 1024 px projector); Binder's postBuild installs the same.
LAB_SETTINGS := share/jupyter/lab/settings/overrides.json
LAB_WORKSPACE := share/jupyter/lab/workspaces/course.jupyterlab-workspace

.PHONY: lab test lint unit notebooks lite lite-check node-check app screenshots bench clean

$(STAMP): pyproject.toml $(wildcard $(TEMPLATE)/*) $(LAB_SETTINGS)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[lab,test,dask,browser]"
	mkdir -p $(VENV)/share/jupyter/voila/templates $(VENV)/share/jupyter/lab/settings
	cp -r $(TEMPLATE) $(VENV)/share/jupyter/voila/templates/
	cp $(LAB_SETTINGS) $(VENV)/share/jupyter/lab/settings/
	touch $(STAMP)

# JupyterLab refuses to start as root (common in containers) unless told to, and a headless
# Linux machine has no browser to open; extra options pass through, e.g.
# make lab LAB_ARGS="--port 9000 --ip 0.0.0.0"
LAB_ARGS ?=
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)
HEADLESS_FLAG := $(if $(and $(filter Linux,$(shell uname -s)),$(if $(DISPLAY)$(WAYLAND_DISPLAY),,1)),--no-browser)

# The course's own workspaces folder: each start lays the course layout anew (a lecture opens
# the same way every time) without touching the user's other JupyterLab workspaces.
# notebook_shim is JupyterLab's bridge for classic notebook server extensions (none here); it
# reads every server option, the deprecated ServerApp.token too, which printed a warning.
LAB_WORKSPACES := $(VENV)/share/jupyter/lab/workspaces
LAB_OPTIONS := --LabApp.default_url=/lab/tree/00_index.ipynb \
	--ServerApp.jpserver_extensions=notebook_shim=False

lab: $(STAMP)  ## set up, then open JupyterLab on the course
	@echo "Starting JupyterLab on notebooks/00_index.ipynb: open the http://127.0.0.1:... URL it prints (Ctrl-C stops it)."
	@JUPYTERLAB_WORKSPACES_DIR=$(LAB_WORKSPACES) $(BIN)/jupyter lab workspaces import \
		$(LAB_WORKSPACE) > /dev/null
	@$(BIN)/jupyter trust notebooks/*.ipynb > /dev/null  # ours: no "not trusted" warning on open
	JUPYTERLAB_WORKSPACES_DIR=$(LAB_WORKSPACES) $(BIN)/jupyter lab notebooks/ $(LAB_OPTIONS) \
		$(ROOT_FLAG) $(HEADLESS_FLAG) $(LAB_ARGS)

# Every part runs even when an earlier one failed, and the last line names the parts that failed.
test: $(STAMP)  ## set up, then run every check
	@failed=""; \
	for part in lint unit notebooks lite-check; do \
		$(MAKE) --no-print-directory $$part || failed="$$failed $$part"; \
	done; \
	if [ -n "$$failed" ]; then echo "make test: FAILED:$$failed"; exit 1; fi; \
	echo "make test: lint, unit, notebooks and lite-check passed"

lint: $(STAMP)
	$(BIN)/ruff check .

unit: $(STAMP)  ## unit, statistical and (if /usr/bin/chromium exists) browser tests
	$(BIN)/python -m pytest tests

notebooks: $(STAMP)
	$(BIN)/python -m pytest --nbval-lax --nbval-cell-timeout=120 notebooks/

# The course as a static JupyterLite site (lite/build.py says what is in it), built from scratch
# in its own environment; downloads are cached in $(LDPVIZ_LITE_CACHE), never in the repository.
LITE_VENV ?= .venv-lite
LITE_STAMP := $(LITE_VENV)/.installed-stamp
LITE_SITE ?= build/lite/site
export LDPVIZ_LITE_CACHE ?= $(HOME)/.cache/ldpviz-lite
NODE ?= node
LITE_EXTRA = $(shell $(PYTHON) -c 'import tomllib; print(" ".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["lite"]))')

# What the site's kernel loads at start: the fingerprint's fits install the rest as a visit does.
LITE_START = $(shell $(PYTHON) -c 'import json; print(",".join(json.load(open("lite/jupyter-lite.json"))["jupyter-config-data"]["litePluginSettings"]["@jupyterlite/pyodide-kernel-extension:kernel"]["loadPyodideOptions"]["packages"]))')

$(LITE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(LITE_VENV)
	$(LITE_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LITE_VENV)/bin/python -m pip install --quiet $(LITE_EXTRA)
	touch $(LITE_STAMP)

lite: node-check $(LITE_STAMP)  ## build the course as a static JupyterLite site in build/lite/site
	$(LITE_VENV)/bin/python lite/build.py --out $(LITE_SITE)

node-check:  # before minutes of downloads, say what is missing
	@command -v $(NODE) >/dev/null || { echo "make lite needs Node.js ($(NODE) not found):" \
		"install it (Debian: apt-get install nodejs)"; exit 1; }

# Under Pyodide (Node.js): the site's bytecode is its sources' code, the core tests, and a
# fingerprint of seeded fits equal to this machine's (made from the kernel's start packages,
# so the fits install scipy and scikit-learn from the site as a visit does); then the built
# site in headless Chromium, offline.
lite-check: node-check $(STAMP) lite  ## test the library under wasm32 and the site in the browser
	$(NODE) lite/pyodide_tests.mjs $(LITE_SITE)/static/pyodide --load= -- lite/bytecode.py \
		verify /dist
	$(NODE) lite/pyodide_tests.mjs $(LITE_SITE)/static/pyodide -- lite/wasm32_check.py tests
	$(NODE) lite/pyodide_tests.mjs $(LITE_SITE)/static/pyodide --load=$(LITE_START) -- \
		lite/wasm32_check.py fingerprint build/lite/fingerprint-wasm32.json
	$(BIN)/python lite/wasm32_check.py fingerprint build/lite/fingerprint-x86_64.json
	$(BIN)/python lite/wasm32_check.py compare build/lite/fingerprint-x86_64.json \
		build/lite/fingerprint-wasm32.json
	LDPVIZ_LITE_SITE=$(CURDIR)/$(LITE_SITE) $(BIN)/python -m pytest tests/browser/test_lite.py

# voila.json (Voila reads it from this folder) keeps app kernels pre-heated and shuts down the
# kernels of closed pages (README, "Run it as an app"); extra options pass through, e.g.
# make app APP_ARGS="--port 9000"
APP_ARGS ?=
app: $(STAMP)  ## serve the dashboard as an app (Voila) on localhost
	@$(BIN)/jupyter trust notebooks/app.ipynb > /dev/null  # ours: Voila warned it is not trusted
	@echo "Starting the app (Voila): open the http://127.0.0.1:... URL it prints (Ctrl-C stops it)."
	$(BIN)/voila notebooks/app.ipynb --Voila.ip=127.0.0.1 $(HEADLESS_FLAG) $(APP_ARGS)

screenshots: $(STAMP)  ## regenerate docs/images: app tabs at 1366 px, the app at 1024 px, static figures (needs /usr/bin/chromium)
	LDPVIZ_SCREENSHOT_DIR=$(CURDIR)/docs/images $(BIN)/python -m pytest -q -s -k every_tab \
		tests/browser/test_app.py
	$(BIN)/python docs/make_figures.py docs/images

# The oracle comparison at 10^7 users takes over an hour: `make bench` runs its n <= 10^6 part
# (the full run: python benchmarks/bench_frequency_oracles.py).
bench: $(STAMP)  ## print the performance ratios (not part of `make test`)
	for f in benchmarks/bench_*.py; do \
		quick=$$(case $$f in *frequency_oracles*) echo --quick;; esac); \
		$(BIN)/python $$f $$quick || exit 1; \
	done

clean:
	rm -rf $(VENV) $(LITE_VENV) .pytest_cache .ruff_cache build *.egg-info
