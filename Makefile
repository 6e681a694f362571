# Two entry points: `make demo` (the main job, no server) and `make test` (the whole suite
# against a real Neo4j that this Makefile starts, and with the Apache Jena tools of scripts/jena,
# both assembled from Maven Central on first use). Both create .venv when it is missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
DEMO_OUT := exports/demo

.PHONY: demo test test-fast lint bench bench-quick neo4j-start neo4j-stop clean install model model-fast model-encoder chromium

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# kg itself (what the demo needs), and the dev extras on top (what the tests and linters need)
RUN_STAMP := $(VENV)/.installed-run

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	@echo "== installing kg into $(VENV) (pip install -e .)"
	$(BIN)/python -m pip install -q -e .
	touch $(RUN_STAMP)

$(STAMP): pyproject.toml | $(BIN)/python
	@echo "== installing kg with its dev extras into $(VENV) (pip install -e '.[dev]')"
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $(STAMP) $(RUN_STAMP)

install: $(STAMP)

demo: $(RUN_STAMP)
	@echo "== building a graph from the eight abstracts of examples/sample.txt into $(DEMO_OUT)/"
	$(BIN)/kg build examples/sample.txt -o $(DEMO_OUT) --fresh
	@echo "== what the graph holds"
	$(BIN)/kg stats -g $(DEMO_OUT) --top 5
	@echo "== what each paper proposes (a named SPARQL query; kg queries lists them all)"
	$(BIN)/kg sparql proposals -g $(DEMO_OUT)
	@echo "== a map of the field, to open in a browser"
	$(BIN)/kg map -g $(DEMO_OUT)
	@echo "== done: open $(DEMO_OUT)/map.html, or try kg show \"speculative decoding\" -g $(DEMO_OUT)"

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

# Rebuild the shipped models from eval/gold/spans (fixed seeds; about five hours on 2 cores).
# The fast pipeline (kg/data/spans): in-domain vectors, two cross-fitting span models, the final
# span model, then its selector, proposal and role decisions trained on the cross-fitted
# readings. The default pipeline (kg/data/encoder): the contextual encoder fine-tuned with torch
# in its own environment (.venv-model: PyPI's torch is a 6 GB CUDA build, kept out of .venv),
# one encoder that never sees half the annotated papers (--leave-out 0/2), the final encoder, then
# the selector and the decisions that read it, trained on that half as the first one reads it.
MODEL := kg/data/spans
ENCODER := kg/data/encoder
MVENV := .venv-model
$(MVENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(MVENV)
	$(MVENV)/bin/python -m pip install -q --upgrade pip
	$(MVENV)/bin/python -m pip install -q -e ".[train]"
	touch $@

model: model-fast model-encoder

model-fast: $(STAMP)
	$(BIN)/python -m pip install -q -e ".[model]"
	PYTHONHASHSEED=0 $(BIN)/python scripts/train_vectors.py --out build/vectors
	$(BIN)/python scripts/train_spans.py --out build/folds/0 --leave-out 0/2
	$(BIN)/python scripts/train_spans.py --out build/folds/1 --leave-out 1/2
	$(BIN)/python scripts/train_spans.py --out $(MODEL)
	$(BIN)/python scripts/train_select.py --model $(MODEL) --folds build/folds
	$(BIN)/python scripts/train_propose.py --model $(MODEL) --folds build/folds
	$(BIN)/python scripts/train_roles.py --model $(MODEL) --folds build/folds

# The encoder's proposal decision ships at 0.7, not the cross-validated 0.5 (measured on the
# development papers read by the final encoder; docs/quality.md).
PROPOSE_NOTE = 0.7, not the cross-validated 0.5: the decisions were trained on readings of the encoder that left half the papers out, and the final encoder reads more confidently; on the development papers 0.5/0.6/0.7 give PROPOSES F1 0.708/0.717/0.722 (precision 0.62/0.64/0.66)

model-encoder: $(STAMP) $(MVENV)/.installed
	rm -rf build/encoder-folds
	$(MVENV)/bin/python scripts/train_encoder.py --epochs 3 --leave-out 0/2 --out build/encoder-folds/0
	$(MVENV)/bin/python scripts/train_encoder.py --epochs 3 --out $(ENCODER)
	$(BIN)/python scripts/train_select.py --encoder $(ENCODER) --encoder-folds build/encoder-folds
	$(BIN)/python scripts/train_propose.py --model $(MODEL) --encoder $(ENCODER) --encoder-folds build/encoder-folds \
	  --threshold 0.7 --threshold-note "$(PROPOSE_NOTE)"
	$(BIN)/python scripts/train_roles.py --model $(MODEL) --encoder $(ENCODER) --encoder-folds build/encoder-folds

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
