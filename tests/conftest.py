"""Fixtures, the report header, and the skipped tests grouped by what enables them."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Generator
from pathlib import Path

import pytest

import rserini
from support import DATA, TINY

COLLECTION_SKIP = re.compile(r"test collection '([^']+)' not found")


def pytest_report_header() -> str:
    where = Path(rserini.__file__).parent
    return f"rserini {rserini.__version__} imported from {where}; data: {DATA}"


@pytest.fixture(autouse=True)
def _lucene_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test keeps the conversions of Lucene folders in a cache folder of its own (never
    the user's): no test reads another's conversion of a folder it then damaged."""
    monkeypatch.setenv("RSERINI_CACHE", str(tmp_path_factory.mktemp("rserini-cache")))


@pytest.fixture
def tiny_index() -> rserini.Index:
    return rserini.Index.build(TINY, progress=False)


def skip_reason(report: pytest.TestReport) -> str:
    """The text a skip was given (``pytest.skip``, ``importorskip``, a ``skipif`` marker)."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def skip_groups(reports: list[pytest.TestReport]) -> list[tuple[int, str]]:
    """One line per group of skipped tests, largest first: how many, and the reason, which
    says how to enable them. The collections' skips are one group whatever the collection."""
    by_reason: Counter[str] = Counter()
    collections: Counter[str] = Counter()
    for report in reports:
        reason = skip_reason(report)
        found = COLLECTION_SKIP.search(reason)
        if found:
            collections[found.group(1)] += 1
        else:
            by_reason[reason] += 1
    if collections:
        counts = ", ".join(f"{name} {n}" for name, n in sorted(collections.items()))
        by_reason[
            f"need the test collections ({counts}), not found in {DATA}: set RSERINI_DATA "
            "to the folder that holds them, or put them at ../shared/data (docs/test-data.md)"
        ] = sum(collections.values())
    return sorted(((n, reason) for reason, n in by_reason.items()), key=lambda g: (-g[0], g[1]))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> Generator[None]:
    """Ends the summary (after pytest's own sections) with the skip groups."""
    result = yield
    reports = terminalreporter.stats.get("skipped", [])
    if reports:
        terminalreporter.write_sep("=", f"{len(reports)} skipped, by what enables them")
        for n, reason in skip_groups(reports):
            terminalreporter.write_line(f"{n:4d} {reason}")
    return result
