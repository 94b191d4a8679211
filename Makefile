# Developer front door. `make run` and `make test` work on a fresh machine
# with Python 3.10+ and a Rust toolchain (cargo); they install the rest.

PYTHON ?= python3
VENV := .venv
TEST_VENV := .venv-test
WHEELS := target/wheels
QUERY ?= exact top-k bm25 scoring

.DEFAULT_GOAL := help
.PHONY: help install run test test-rust test-python lint lint-rust lint-python format wheel bench-build clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-13s %s\n", $$1, $$2}'

$(VENV)/.ready:
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip "maturin>=1.8,<2"
	touch $@

wheel: $(VENV)/.ready ## build the release wheel into target/wheels
	rm -rf $(WHEELS)
	$(VENV)/bin/maturin build --release --out $(WHEELS)

install: wheel ## install the release wheel into .venv
	$(VENV)/bin/pip install -q --force-reinstall $(WHEELS)/rserini-*.whl

run: install ## search this repository's files (the main job): make run QUERY="..."
	$(VENV)/bin/rserini search "$(QUERY)"

test: lint test-rust test-python ## lint, then every Rust and Python test against the installed wheel

test-rust: ## cargo tests of every crate, and the benches compile
	cargo test --workspace
	cargo bench --workspace --no-run

# The suite runs against the wheel installed into a fresh virtual
# environment, never against the source tree.
test-python: wheel
	rm -rf $(TEST_VENV)
	$(PYTHON) -m venv $(TEST_VENV)
	$(TEST_VENV)/bin/pip install -q --upgrade pip
	$(TEST_VENV)/bin/pip install -q "$$(ls $(WHEELS)/rserini-*.whl)[test,parity]"
	$(TEST_VENV)/bin/python -m rserini.parity --install
	$(TEST_VENV)/bin/python -m pytest

lint: lint-rust lint-python ## rustfmt, clippy -D warnings, ruff

lint-rust:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings

lint-python: $(VENV)/.ready
	$(VENV)/bin/pip install -q "ruff>=0.6"
	$(VENV)/bin/ruff check python tests benches
	$(VENV)/bin/ruff format --check python tests benches

format: $(VENV)/.ready ## format Rust and Python sources
	cargo fmt --all
	$(VENV)/bin/pip install -q "ruff>=0.6"
	$(VENV)/bin/ruff format python tests benches
	$(VENV)/bin/ruff check --fix python tests benches

clean: ## remove build outputs and virtual environments
	rm -rf target $(VENV) $(TEST_VENV) .rserini .pytest_cache .hypothesis
