# Two entry points: `make demo` (the main job, no server) and `make test` (the whole suite
# against a real Neo4j that this Makefile starts, and with the Apache Jena tools of scripts/jena,
# both assembled from Maven Central on first use). Both create .venv when it is missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEMO_OUT := exports/demo

.PHONY: demo test test-fast lint bench bench-quick neo4j-start neo4j-stop clean install model chromium

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/kg build examples/sample.txt -o $(DEMO_OUT) --fresh
	$(BIN)/kg stats -g $(DEMO_OUT) --top 5
	$(BIN)/kg sparql queries/proposals.rq -g $(DEMO_OUT)

# The Browser test drives Debian's Chromium; install it when missing (as root, on Debian).
chromium:
	@test -x /usr/bin/chromium || { test "$$(id -u)" = 0 && command -v apt-get >/dev/null \
	  && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } \
	  || echo "make: /usr/bin/chromium is missing and cannot be installed here; the Browser test skips" >&2

test: $(STAMP) chromium
	bash scripts/jena assemble
	bash scripts/neo4j start
	@set -e; trap 'bash scripts/neo4j stop' EXIT; \
	  eval "$$(bash scripts/neo4j env)"; \
	  $(BIN)/ruff check kg tests bench scripts/check_lexicons.py; \
	  $(BIN)/python scripts/check_lexicons.py --quiet; \
	  $(BIN)/python -m pytest -q -p no:cacheprovider

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not neo4j and not slow"

lint: $(STAMP)
	$(BIN)/ruff check kg tests bench

# Rebuild the shipped span model, selector, proposal and role decisions from eval/gold/spans
# (fixed seeds; about an hour on 2 cores): in-domain vectors, two cross-fitting span models, the
# final span model, then the selector, the proposal and the role decisions trained on the
# cross-fitted readings.
MODEL := kg/data/spans
model: $(STAMP)
	$(BIN)/python -m pip install -q -e ".[model]"
	PYTHONHASHSEED=0 $(BIN)/python scripts/train_vectors.py --out build/vectors
	$(BIN)/python scripts/train_spans.py --out build/folds/0 --leave-out 0/2
	$(BIN)/python scripts/train_spans.py --out build/folds/1 --leave-out 1/2
	$(BIN)/python scripts/train_spans.py --out $(MODEL)
	$(BIN)/python scripts/train_select.py --model $(MODEL) --folds build/folds
	$(BIN)/python scripts/train_propose.py --model $(MODEL) --folds build/folds
	$(BIN)/python scripts/train_roles.py --model $(MODEL) --folds build/folds

bench: $(STAMP)
	$(BIN)/python -m pip install -q -e ".[bench]"
	$(BIN)/python -m bench

bench-quick: $(STAMP)
	$(BIN)/python -m pip install -q -e ".[bench]"
	$(BIN)/python -m bench --quick

neo4j-start:
	bash scripts/neo4j start

neo4j-stop:
	bash scripts/neo4j stop

clean:
	rm -rf exports .pytest_cache
