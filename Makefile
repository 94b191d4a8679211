# Developer front door. `make run` and `make test` work on a fresh machine
# with Python 3.10+ and a Rust toolchain (cargo); they install the rest.

PYTHON ?= python3
VENV := .venv
TEST_VENV := .venv-test
WHEELS := target/wheels
QUERY ?= exact top-k bm25 scoring

.DEFAULT_GOAL := help
.PHONY: help install run test test-rust test-venv test-python lint lint-rust lint-python lint-stubs format wheel wheels test-wheels bench clean

# Release wheels: one per CPython, manylinux2014 (glibc 2.17) through zig's
# linker, so they install on any glibc Linux of the last decade. The same
# commands run in .github/workflows/release.yml.
WHEEL_PYTHONS ?= python3.10 python3.11 python3.12 python3.13
WHEEL_TARGET ?= x86_64-unknown-linux-gnu
ZIGLANG := ziglang==0.15.2
AUDITWHEEL := auditwheel==6.8.2
MYPY := mypy==2.4.1

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-13s %s\n", $$1, $$2}'

$(VENV)/.ready:
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip "maturin>=1.8,<2"
	touch $@

wheel: $(VENV)/.ready ## build the release wheel into target/wheels
	rm -rf $(WHEELS)
	$(VENV)/bin/maturin build --release --out $(WHEELS)

wheels: $(VENV)/.ready ## release wheels for every CPython in WHEEL_PYTHONS (manylinux2014) and the sdist
	$(VENV)/bin/pip install -q "$(ZIGLANG)"
	rm -rf $(WHEELS)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/maturin build --release --zig --compatibility manylinux2014 \
		--target $(WHEEL_TARGET) --interpreter $(WHEEL_PYTHONS) --out $(WHEELS)
	$(VENV)/bin/maturin sdist --out $(WHEELS)

test-wheels: $(VENV)/.ready ## install each wheel of `make wheels` into a fresh venv of its Python and use it
	$(VENV)/bin/pip install -q "$(AUDITWHEEL)"
	AUDITWHEEL=$(VENV)/bin/auditwheel ./.ci/test-wheels $(WHEELS) $(WHEEL_PYTHONS)

install: wheel ## install the release wheel into .venv
	$(VENV)/bin/pip install -q --force-reinstall $(WHEELS)/rserini-*.whl

run: install ## search this repository's files (the main job): make run QUERY="..."
	$(VENV)/bin/rserini search "$(QUERY)"

test: lint test-rust test-python ## lint, then every Rust and Python test against the installed wheel

test-rust: ## cargo tests of every crate, and the benches compile
	cargo test --workspace
	cargo bench --workspace --no-run

# The suite and stubtest run against the wheel installed into a fresh virtual
# environment, never against the source tree (make builds it once per run).
test-venv: wheel ## a fresh .venv-test with the release wheel and its test extra
	rm -rf $(TEST_VENV)
	$(PYTHON) -m venv $(TEST_VENV)
	$(TEST_VENV)/bin/pip install -q --upgrade pip
	$(TEST_VENV)/bin/pip install -q "$$(ls $(WHEELS)/rserini-*.whl)[test,parity,ray]"

test-python: test-venv ## the pytest suite against the installed wheel (with Pyserini for parity)
	$(TEST_VENV)/bin/python -m rserini.parity --install
	$(TEST_VENV)/bin/python -m pytest

bench: test-venv ## the pytest-benchmark suite in benches/ against the installed wheel
	$(TEST_VENV)/bin/pip install -q "$$(ls $(WHEELS)/rserini-*.whl)[bench]"
	$(TEST_VENV)/bin/python -m pytest benches --benchmark-only

lint: lint-rust lint-python lint-stubs ## rustfmt, clippy -D warnings, ruff, stubtest

lint-rust: ## cargo fmt --check and clippy -D warnings
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings

# stubtest imports the built extension, so it checks the installed wheel.
lint-stubs: test-venv ## mypy.stubtest: the type stubs against the built extension
	$(TEST_VENV)/bin/pip install -q "$(MYPY)"
	$(TEST_VENV)/bin/python -m mypy.stubtest rserini._core --allowlist stubtest-allowlist.txt

lint-python: $(VENV)/.ready ## ruff check and ruff format --check
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
