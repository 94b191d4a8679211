"""Fixtures and the report header."""

from __future__ import annotations

from pathlib import Path

import pytest

import rserini
from support import DATA, TINY


def pytest_report_header() -> str:
    where = Path(rserini.__file__).parent
    return f"rserini {rserini.__version__} imported from {where}; data: {DATA}"


@pytest.fixture
def tiny_index() -> rserini.Index:
    return rserini.Index.build(TINY, progress=False)
