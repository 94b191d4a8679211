"""QLD, RM3 and Rocchio against a live Pyserini (marker ``parity``).

``set_qld(mu)`` on both sides over ADI and CACM: identical rankings to depth 1000 and
bitwise-equal float32 scores; ``set_rm3`` and ``set_rocchio`` (BM25 0.9/0.4) over ADI:
identical rankings and printed scores. The full table over every collection is in
docs/parity.md.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from rserini.parity import Tolerances, compare
from rserini.parity.lucene_expected import FEEDBACK
from support import collection, require_pyserini

pytestmark = pytest.mark.parity


@pytest.fixture(scope="module", autouse=True)
def pyserini() -> None:
    require_pyserini()


@pytest.mark.parametrize(("name", "mu"), [("adi", 1000.0), ("adi", 37.5), ("cacm", 1000.0)])
def test_qld_is_bitwise_pyserini(name: str, mu: float) -> None:
    report = compare(
        collection(name), settings=[(0.9, 0.4)], k=1000, mode={"model": "qld", "mu": mu}
    )
    assert report.failures(Tolerances.acceptance()) == []
    (setting,) = report.settings
    assert setting.same_topk == setting.queries == report.queries > 0
    assert setting.raw_bitwise_equal == 1.0
    assert setting.max_score_diff == 0.0
    assert setting.metrics is not None
    assert setting.metrics["pyserini"] == setting.metrics["rserini"]


def test_parity_command_takes_qld() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rserini.parity", "--corpus", str(collection("adi")),
         "--qld", "--mu", "1000", "--acceptance"],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert '"model": "qld"' in result.stdout


RM3 = {"model": "rm3", **FEEDBACK["rm3"]}
ROCCHIO = {"model": "rocchio", **FEEDBACK["rocchio"]}


@pytest.mark.parametrize(
    "mode",
    [
        RM3,
        {**RM3, "fb_terms": 5, "fb_docs": 3, "original_query_weight": 0.25},
        ROCCHIO,
        {**ROCCHIO, "gamma": 0.15, "use_negative": True, "top_fb_docs": 4},
    ],
    ids=["rm3", "rm3-5-3-0.25", "rocchio", "rocchio-negative"],
)
def test_feedback_is_pyserini(mode: dict) -> None:
    report = compare(collection("adi"), settings=[(0.9, 0.4)], k=1000, mode=mode)
    assert report.failures(Tolerances.acceptance()) == []
    (setting,) = report.settings
    assert setting.same_topk == setting.queries == report.queries == 35
    assert setting.max_score_diff == 0.0
    assert setting.metrics is not None
    assert setting.metrics["pyserini"] == setting.metrics["rserini"]


def test_parity_command_takes_rm3() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "rserini.parity", "--corpus", str(collection("adi")),
         "--rm3", "--fb-terms", "10", "--acceptance"],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert '"model": "rm3"' in result.stdout
