# Two commands on a fresh machine: `make lab` and `make test`. Both create the
# virtual environment and install the project into it when needed.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: lab test bench clean

$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "AEL Lab needs Python 3.11 or newer (found " + sys.version.split()[0] + ")")'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[test]'
	@touch $(STAMP)

lab: $(STAMP)
	$(VENV)/bin/ael-lab

test: $(STAMP)
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m bench

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
