# Two commands on a fresh machine: `make lab` and `make test` (see README.md).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: lab test lint unit notebooks bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[lab,test,dask,browser]"
	touch $(STAMP)

lab: $(STAMP)  ## set up, then open JupyterLab on the course
	$(BIN)/jupyter lab notebooks/

test: lint unit notebooks  ## set up, then run every check

lint: $(STAMP)
	$(BIN)/ruff check .

unit: $(STAMP)
	$(BIN)/python -m pytest tests

notebooks: $(STAMP)
	$(BIN)/python -m pytest --nbval-lax notebooks/

bench: $(STAMP)  ## print the performance ratios (not part of `make test`)
	for f in benchmarks/bench_*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info
