# Two commands on a fresh machine: `make lab` and `make test`. Both create the
# virtual environment and install the project into it when needed.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

LOCAL  := $(VENV)/.local-installed
CLUSTER := $(VENV)/.cluster-installed
# compile jobs for llama-cpp-python: 2 leaves a shared machine usable
LOCAL_JOBS ?= 2

.PHONY: lab test bench clean local cluster

$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "AEL Lab needs Python 3.11 or newer (found " + sys.version.split()[0] + ")")'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[test]'
	@touch $(STAMP)

# The local model (`--agent local`, `--reflector local`): llama-cpp-python is
# compiled from source, which needs a C and a C++ compiler and cmake. The
# build log goes to $(VENV)/local-build.log and is shown only if it fails.
local: $(LOCAL)

$(LOCAL): $(STAMP)
	@for tool in cc c++ cmake; do command -v $$tool >/dev/null || { \
	  echo "make local: $$tool not found; llama-cpp-python compiles from source and needs gcc, g++ and cmake" \
	       "(Debian/Ubuntu: apt-get install build-essential cmake; macOS: xcode-select --install, brew install cmake)"; \
	  exit 2; }; done
	@echo "make local: installing llama-cpp-python (compiled here, about 10 minutes the first time) and SmolLM2-135M"
	@CMAKE_BUILD_PARALLEL_LEVEL=$(LOCAL_JOBS) $(PY) -m pip install --quiet -c constraints.txt -e '.[test,local]' \
	    >$(VENV)/local-build.log 2>&1 || { tail -n 40 $(VENV)/local-build.log; \
	    echo "make local: the install failed; the whole log is in $(VENV)/local-build.log"; exit 1; }
	@$(PY) -c 'from engine.llm.local_model import why_unusable; import sys; w = why_unusable(); sys.exit("make local: " + w if w else 0)'
	@touch $(LOCAL)
	@echo "make local: done; try .venv/bin/ael-lab run support --episodes 60 --agent local --reflector local"

# Dask for `ael-lab sweep --scheduler ADDRESS` and its tests (a local two-worker cluster)
cluster: $(CLUSTER)

$(CLUSTER): $(STAMP)
	$(PY) -m pip install --quiet -c constraints.txt -e '.[test,cluster]'
	@touch $(CLUSTER)

lab: $(STAMP)
	$(VENV)/bin/ael-lab

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m bench

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
