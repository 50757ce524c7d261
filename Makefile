# Two commands on a fresh machine: `make lab` and `make test`. Both create the
# virtual environment and install the project into it when needed.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

# Python writes the bytecode of the project's own modules (__pycache__, ignored by
# git): with PYTHONDONTWRITEBYTECODE set, as on this machine and CI, every process
# compiled every module again (half of a lab's start, and of each test's child
# process), and pytest rewrote every test module again in every worker
unexport PYTHONDONTWRITEBYTECODE

CLUSTER := $(VENV)/.cluster-installed
# compile jobs for llama-cpp-python: 2 leaves a shared machine usable
LOCAL_JOBS ?= 2

.PHONY: lab test quick bench clean local cluster

# setuptools tells every editable install of a flat layout "Please be careful with folders
# in your working directory with the same name as your package" (a warning block that reads
# like an error on the first `make lab`); our folders are the packages, so it is silenced by
# its message for pip and the build backend it starts, and nothing else is
QUIET_INSTALL := PYTHONWARNINGS="ignore:Editable installation"

$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "AEL Lab needs Python 3.11 or newer (found " + sys.version.split()[0] + ")")'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(QUIET_INSTALL) $(PY) -m pip install --quiet -c constraints.txt -e '.[test]'
	@touch $(STAMP)

# The local model (`--agent local`, `--reflector local`): llama-cpp-python is
# compiled from source for a fixed instruction-set baseline (never this CPU's
# own: the library must run on the machine's siblings too), bypassing pip's
# wheel cache, then the model answers one token in a child process, then the
# bundled model is repacked to Q8_0 once (faster on this build) into
# $(VENV)/share/ael-lab/models/. Always runs the module: it rebuilds a library
# built another way and is quick when nothing changed. The build log goes to
# $(VENV)/local-build.log.
local: $(STAMP)
	@CMAKE_BUILD_PARALLEL_LEVEL=$(LOCAL_JOBS) $(PY) -m engine.llm.local_build --jobs $(LOCAL_JOBS) --log $(VENV)/local-build.log

# Dask for `ael-lab sweep --scheduler ADDRESS` and its tests (a local two-worker cluster)
cluster: $(CLUSTER)

$(CLUSTER): $(STAMP)
	$(QUIET_INSTALL) $(PY) -m pip install --quiet -c constraints.txt -e '.[test,cluster]'
	@touch $(CLUSTER)

lab: $(STAMP)
	$(VENV)/bin/ael-lab

# one worker more than the cores (TEST_JOBS=1 for one process): part of the suite waits on other
# processes (servers and their fork servers, browsers, tmux, the sandbox, plugin probes, the local
# model's child) and the extra worker fills those waits; more than one extra oversubscribes the cores,
# as the served tests' labs run beside the workers. On 2 cores, idle, 2026-11-29, the same tree:
# 674 s with four workers, 555 s with three (2,874 tests, all passed); two were at 59% after 8 min
# (stopped, on pace for about 13 min), the cores busy 81-99% where three kept them at 100%.
# A module's tests share a worker, so a module-scoped fixture (the local model's run, a served lab)
# is built once
CORES := $(shell nproc 2>/dev/null || echo 2)
TEST_JOBS ?= $(shell echo $$(( $(CORES) + 1 )))
test: $(STAMP)
	$(PY) -m pytest -n $(TEST_JOBS) --dist loadfile --no-loadscope-reorder

# the one-minute loop while you work: the tests/unit folder only (no lab, no server, no
# process, no model: tests/lab, tests/served, tests/process, tests/model), one case of
# each parametrized test, none marked heavy; `make test` before you push
quick: $(STAMP)
	$(PY) -m pytest -n $(CORES) --quick tests/unit

bench: $(STAMP)
	$(PY) -m bench

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
