# Quick start:  make run   |   make test
# Each target creates .venv and installs the project on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# The CPU build of torch; installed before the project so that pip does not pull a CUDA build.
TORCH ?= torch==2.13.0
ARGS ?=
# pytest-xdist workers of `make test` (one per core of the 2-core CI machine; 1 for a debugger).
TEST_WORKERS ?= 2
# Data: $$BOILERBENCH_DATA if set, else a shared/datasets folder beside the checkout if there is one
# (else run.py looks in ./data and downloads).
ifeq ($(origin BOILERBENCH_DATA), undefined)
ifneq ($(wildcard ../shared/datasets),)
export BOILERBENCH_DATA := $(abspath ../shared/datasets)
endif
endif

.PHONY: run test lint bench reports store install clean model docs

# The experiments behind every table and figure, run two jobs at a time: the configs in
# boilerbench/conf/experiment whose runs an artefact needs (boilerbench/reports/artefacts.py; the
# figures that the table runs draw leave their own experiments out). Evaluated when used.
# How each experiment's jobs are launched: two local processes, or over many machines through
# Dask distributed, e.g. LAUNCH="hydra/launcher=dask hydra.launcher.address=tcp://HOST:8786"
# (hydra_plugins/boilerbench_dask_launcher; Slurm: hydra/launcher=slurm).
LAUNCH ?= hydra/launcher=parallel
EXPERIMENTS ?= $(shell $(BIN)/python -m boilerbench report --list-experiments)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The packages at the versions the results store was made with (constraints.txt), so that a fresh
# clone reproduces its run keys and figures.
$(VENV)/.installed: pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install -q -U pip
	$(BIN)/python -m pip install -q "$(TORCH)"
	$(BIN)/python -m pip install -q -c constraints.txt -e ".[dev,refs,lm,stack,warc,render,dask,datatrove,docs]"
	# ReadabiliPy runs Readability.js through node when its JavaScript dependencies are installed.
	@if command -v npm >/dev/null; then \
	  cd "$$($(BIN)/python -c 'import pathlib, readabilipy; print(pathlib.Path(readabilipy.__file__).parent)')/javascript" \
	  && npm install --silent --no-audit --no-fund; \
	else echo "npm not found: extractor=readabilipy will use its pure-Python fallback"; fi
	touch $@

install: $(VENV)/.installed

run: $(VENV)/.installed
	$(BIN)/python run.py $(ARGS)

test: $(VENV)/.installed
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist worksteal $(ARGS)

lint: $(VENV)/.installed
	@! git grep -nIE '^(<{7}|>{7})( |$$)' || { echo 'merge conflict markers left in the files above' >&2; exit 1; }
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict --quiet

# The documentation site, from docs/ and the results store (reports/results/), into build/site/
# (open build/site/index.html): the per-page viewers of the headline runs found on this machine
# first (build/viewer/), then the site, which publishes them and links them from the leaderboard.
# The README's headline table is rewritten from the store too.
docs: $(VENV)/.installed
	$(BIN)/python -m boilerbench.reports.site readme
	$(BIN)/python -m boilerbench.reports.site viewers
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict

# The pretrained models shipped in the wheel, fitted on the training splits of the multilingual
# mixture (the datasets under BOILERBENCH_DATA), then tested on WCXB's test pages; each file's
# manifest records its config, training data, package versions and golden outputs.
# boilerbench/models/default.bbmodel, what `boilerbench extract` and `boilerbench.extract` use by
# default: the fast stack (boilerbench/conf/headline/stack_fast.yaml), as fast as trafilatura;
# boilerbench/models/accurate.bbmodel (`--model accurate`): the cascade of the fast and the headline
# stack without its CRF features (boilerbench/conf/headline/cascade.yaml), meant to stay within
# twice trafilatura's time (on CleanEval's test pages it does not: see conf/extractor/cascade.yaml);
# boilerbench/models/multilingual.bbmodel (`--model multilingual`): the arbiter between the fast stack
# and Readability (boilerbench/conf/headline/arbiter.yaml), for pages in any language: by DANIEL's
# site-grouped CV it beats Readability and trafilatura in each of its five languages, at the price of
# running both extractors (its time against trafilatura's on one core: python -m benchmarks.speed
# --model boilerbench/models/multilingual.bbmodel).
model: $(VENV)/.installed
	$(BIN)/python run.py +headline=stack_fast dataset=wcxb save_model=boilerbench/models/default.bbmodel $(ARGS)
	$(BIN)/python run.py +headline=cascade dataset=wcxb save_model=boilerbench/models/accurate.bbmodel $(ARGS)
	$(BIN)/python run.py +headline=arbiter dataset=wcxb save_model=boilerbench/models/multilingual.bbmodel $(ARGS)

# Every benchmark (benchmarks/) at a small size, their figures in one JSON file; ARGS=--full for
# their full sizes, ARGS="--only speed,memory" for some of them.
bench: $(VENV)/.installed
	$(BIN)/python -m benchmarks -o reports/out/bench.json $(ARGS)

# Prints the wall time of each experiment at the end (also in reports/out/time_budget.txt), and
# which runs it reran and which it reused: a job whose folder holds the results of that very run
# (same run_key: config, code versions, packages and pages) is kept, so after a change only the
# jobs it touches rerun. It first writes the store's archived runs (reports/results/archive/) back
# into multirun/, so on a fresh clone too only the jobs whose run key changed rerun. An experiment
# that fails (or exceeds max_error_rate) does not stop the others: the tables are built from what
# ran, the failures are listed and make exits with status 1.
reports: $(VENV)/.installed
	@mkdir -p reports/out && printf "%-32s %8s\n" experiment seconds > reports/out/time_budget.txt
	$(BIN)/python -m boilerbench report --restore multirun
	@began=$$(date -u +%Y-%m-%dT%H:%M:%S+00:00); failed=""; for e in $(EXPERIMENTS); do \
	  start=$$(date +%s); \
	  $(BIN)/python run.py experiment=$$e $(LAUNCH) progress=false || failed="$$failed $$e"; \
	  printf "%-32s %8d\n" $$e $$(( $$(date +%s) - start )) >> reports/out/time_budget.txt; \
	done; \
	start=$$(date +%s); $(BIN)/python -m boilerbench report --since "$$began" || failed="$$failed reports"; \
	printf "%-32s %8d\n" "boilerbench report" $$(( $$(date +%s) - start )) >> reports/out/time_budget.txt; \
	cat reports/out/time_budget.txt; \
	if [ -n "$$failed" ]; then echo "failed:$$failed (their logs: multirun/<experiment>/*/run.log)"; exit 1; fi

# The committed results store: the tables, figures and runs.csv of the last `make reports` copied
# into reports/results/, then each row's run folder archived there (reports/results/archive/,
# `boilerbench report --archive`); it fails on a row whose run is neither here nor archived.
store: $(VENV)/.installed
	cp reports/out/*.md reports/out/*.csv reports/out/*.tex reports/out/*.png reports/out/*.pdf reports/out/*.svg reports/results/
	$(BIN)/python -m boilerbench report --archive reports/results/runs.csv multirun

clean:
	rm -rf $(VENV) .cache outputs multirun models
