"""Helpers shared by the tests: the test collections under ../shared/data and a tiny corpus."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("RSERINI_DATA", REPO.parent / "shared" / "data")).resolve()

TINY = [
    ("d1", "Routers forward packets between networks and carry data."),
    ("d2", "Photosynthesis converts sunlight into chemical energy in plants."),
    ("d3", "The asteroid belt lies between Mars and Jupiter."),
    ("d4", "Switches direct frames within a local area network domain."),
]


def collection(name: str) -> Path:
    """The folder of a test collection, or a loud skip (a failure under CI) if it is absent."""
    folder = DATA / name
    if not folder.is_dir():
        message = (
            f"test collection {name!r} not found at {folder}: these tests need ../shared/data "
            "(or RSERINI_DATA pointing at it)"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return folder
