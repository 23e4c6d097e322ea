# From a fresh clone: `make demo` or `make test`; the first target builds the venv.
VENV ?= .venv
# test workers (pytest-xdist): one per core of the 2-core CI machine; a file stays on one
# worker, so its module fixtures (quick reproductions, embedded conversations) run once
JOBS ?= 2
PYTHON ?= python3
BIN := $(VENV)/bin
# Every install below skips byte-compiling (--no-compile: for torch alone that is ~55 of its
# ~60 s); Python writes a module's bytecode when it first imports it instead, so a machine
# that forbids writing it (PYTHONDONTWRITEBYTECODE set) is allowed to here.  Otherwise every
# test process would compile torch, numba and semcache from source again.
export PYTHONDONTWRITEBYTECODE :=
# `make demo`'s policies, compiled into the disk cache while installing
DEMO_POLICIES := unlimited,fifo,lru,lfu,arc,solar_e,solar_a,solar

.PHONY: test demo bench lab lint docs clean

# Two stamps.  `.core`: semcache and what `semcache run` needs, no torch, then the demo's
# loops compiled; `make demo` needs no more.  `.installed`: everything `make test` needs on
# top (the test and text extras, torch among them).
$(VENV)/.core: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --no-compile -e .
	# the demo's loops into numba's disk cache, both cores at once, a line each as it is
	# done: the first `make demo` then prints its table within seconds of this
	$(BIN)/semcache compile --policy $(DEMO_POLICIES) --mode semantic
	touch $@

$(VENV)/.installed: $(VENV)/.core
	$(BIN)/python -m pip install --upgrade pip
	# torch first and pinned: the local CPU wheel, never a multi-GB CUDA build (README)
	$(BIN)/python -m pip install --no-compile torch==2.13.0
	$(BIN)/python -m pip install --no-compile -e '.[test,text]'
	touch $@

# more pytest arguments, e.g. PYTEST_ARGS='-m data' for the tests that read data only
PYTEST_ARGS ?=

test: $(VENV)/.installed
	$(BIN)/python -m pytest -n $(JOBS) --dist loadfile $(PYTEST_ARGS)

# the paper's eight policies; `semcache run` without --policy runs every semantic policy
demo: $(VENV)/.core
	$(BIN)/semcache run --workload clusters --param steps=5000 --param topics=40 --capacity 20 --top-k 3 --switch-cost 0.5 --policy $(DEMO_POLICIES)

# the linter alone (the suite runs it too, tests/test_lint.py)
lint: $(VENV)/.installed
	$(BIN)/ruff check .

bench: $(VENV)/.installed
	$(BIN)/semcache bench

# JupyterLab (the `lab` extra) into the venv, then the notebooks in it; `make test` and
# `make demo` never need it.  Jupyter refuses to run as root: LAB_ARGS=--allow-root
LAB_ARGS ?=
$(VENV)/.lab: $(VENV)/.installed
	$(BIN)/python -m pip install -e '.[lab]'
	touch $@

lab: $(VENV)/.lab
	$(BIN)/jupyter lab notebooks/ $(LAB_ARGS)

# The documentation site (the `docs` extra into the venv, once), built strictly into site/:
# a broken link or anchor, a page left out of the nav or a docstring griffe cannot read
# fails the build.  Nothing is fetched at build time; `make test` never needs it.
$(VENV)/.docs: $(VENV)/.installed
	$(BIN)/python -m pip install -e '.[docs]'
	touch $@

docs: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# Build and cache files only; the venv stays (remove it by hand to start over).
clean:
	rm -rf build site .pytest_cache .hypothesis .benchmarks *.egg-info
	find simulator workloads theory tests -name __pycache__ -type d -prune -exec rm -rf {} +
