# The two commands a newcomer types: `make run` (score the examples through the server) and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
EXTRAS := serve,local,train,dev,judge-server
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml requirements.lock | sha256sum | cut -c1-12)
# Tests that start Ray, Chromium or HTTP servers run in a private network namespace with only loopback, so
# nothing leaves the machine; where namespaces are unavailable (not root), they run on loopback as they are.
NETNS := $(shell unshare -n true 2>/dev/null && echo "unshare -n sh -c 'ip link set lo up && exec \"\$$0\" \"\$$@\"'")
PYTEST_ARGS ?=

.PHONY: setup run test lint bench clean chromium

$(STAMP): pyproject.toml requirements.lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c requirements.lock -e ".[$(EXTRAS)]"
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

setup: $(STAMP) chromium

# The dashboard test drives Debian's Chromium (headless); install it when it is missing and we may (root).
chromium:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null; }; } || { echo "chromium is required for the dashboard test: apt-get install chromium"; exit 1; }

run: setup
	$(BIN)/reward serve --config configs/serve/local.yaml --demo examples/items.jsonl

test: setup
	$(BIN)/reward rubric lint rubrics
	$(NETNS) $(BIN)/python -m pytest $(PYTEST_ARGS)

lint: setup
	$(BIN)/reward rubric lint rubrics

clean:
	rm -rf $(VENV) .pytest_cache
