"""Parity with a live Pyserini (marker ``parity``): the same tokens, scores and rankings.

These tests start Pyserini in a child process. Without Pyserini (install it with
``python -m rserini.parity --install``; ``make test`` does) they skip, loudly, or fail
under CI.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rserini.parity import (
    Tolerances,
    compare,
    compare_analyzers,
)
from support import REPO, collection, require_pyserini

pytestmark = pytest.mark.parity

ACCEPTANCE = Tolerances.acceptance()
SETTINGS = [(0.9, 0.4), (1.2, 0.75), (25.0, 1.0)]


@pytest.fixture(scope="module", autouse=True)
def pyserini() -> None:
    require_pyserini()


def test_adi_is_identical_for_every_setting() -> None:
    report = compare(collection("adi"), settings=SETTINGS, k=1000)
    assert report.failures(ACCEPTANCE) == []
    assert report.tokens.identical == report.documents == 82
    assert report.tokens.identical_queries == report.queries == 35
    assert report.pyserini["doc_count"] == report.rserini["doc_count"]
    assert report.pyserini["sum_total_term_freq"] == report.rserini["total_terms"]
    for setting in report.settings:
        assert setting.same_topk == setting.queries
        assert setting.raw_bitwise_equal == 1.0
        assert setting.max_score_diff == 0.0
        assert setting.metrics is not None
        assert setting.metrics["pyserini"] == setting.metrics["rserini"]


def test_scifact_reproduces_pyserini_bm25_flat() -> None:
    report = compare(collection("scifact"), settings=[(0.9, 0.4)], k=1000, remove_query=True)
    assert report.failures(ACCEPTANCE) == []
    (setting,) = report.settings
    assert setting.metrics is not None
    for side in ("pyserini", "rserini"):
        assert round(setting.metrics[side]["nDCG@10"], 4) == 0.6789
        assert round(setting.metrics[side]["R@1000"], 4) == 0.9767
    assert setting.same_topk == setting.queries == 300
    assert setting.raw_bitwise_equal == 1.0


def test_awkward_corpus_is_handled_alike(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    rows = [
        {"id": "d1", "contents": "Routers forward packets between networks."},
        {"id": "d2", "contents": "the of and to"},  # stopwords only: no indexed term
        {"id": "d3", "contents": "   "},  # empty: Anserini skips it
        {"id": "d1", "contents": "a duplicate docid"},
        {"id": "d4", "contents": "Packets, packets and more packets \ud800 \U0001f44d"},
        {"id": "d5", "contents": "Switches forward frames; routers forward packets."},
    ]
    lines = [json.dumps(row).encode() for row in rows]
    lines.append(b'{"id": "d6", "contents": "bytes \xff\xfe that are not UTF-8 packets"}')
    corpus.write_bytes(b"\n".join(lines) + b"\n")
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\tforward packets\nq2\tthe\nq3\tpackets \U0001f44d frames\n")
    report = compare(corpus, queries, settings=SETTINGS, k=10)
    assert report.failures(ACCEPTANCE) == []
    assert report.issues.duplicate_docids == ["d1"]
    assert report.issues.empty_documents == ["d3"]
    assert report.issues.invalid_utf8 == ["d4", "d6"]
    # Both copies of d1 are indexed, as Lucene indexes them.
    assert report.pyserini["doc_count"] == report.rserini["doc_count"] == 5
    assert all(s.same_topk == s.queries == 3 for s in report.settings)


TRICKY = [
    "The Running foxes' quickly-jumped over the lazy dogs of U.S.A. in 2024 e-mail "
    "user@example.com it's",
    "John's O'Neil's rock 'n' roll don\u2019t students\u2019 union 3.5 1,000 10.0.0.1",
    "auth_domain __init__ getUserById foo::bar std::vec::Vec<T> x->y a.b.c() #include",
    "https://example.com/a/b?c=d&e=f mailto:x@y.org C++ C# .NET node.js v1.2.3-beta",
    "caf\u00e9 na\u00efve \u00c5ngstr\u00f6m stra\u00dfe \u0130stanbul "
    "\u03a3\u039f\u03a6\u0399\u0391 \ufb01ne \u01c5 \u2160\u2161",
    "\u4e2d\u6587\u5206\u8bcd \u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8 "
    "\ud55c\uad6d\uc5b4 \u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22 "
    "\u1019\u103c\u1014\u103a\u1019\u102c",
    "\u05e6\u05d4\"\u05dc \u05d5'1 \u0627\u0644\u0639\u0631\u0628\u064a\u0629 \u0661\u066b\u0662 "
    "\u0939\u093f\u0928\u094d\u0926\u0940",
    "\U0001f44d\U0001f3fd \U0001f468\u200d\U0001f469\u200d\U0001f467 "
    "\U0001f1eb\U0001f1f7 #\ufe0f\u20e3 \u2605\u200d\u2605 a\u200d\U0001f44d "
    "\u00a9 \u2122 \U0001fae0 \U0001fb00",
    "a\u0cddb \u0870 \u19da 1\ufe102 \u4e2d\u0600 \u30e2\u0604\uff96 h'\u0605x \U0001fbf0",
    "x" * 300 + " " + "\U0001d7ce" * 200 + " " + "ab." * 100,
]


def source_texts() -> list[str]:
    texts = []
    for pattern in ("python/rserini/*.py", "rust/core/src/**/*.rs", "tests/*.py", "*.md"):
        for path in sorted(REPO.glob(pattern)):
            text = path.read_text(encoding="utf-8")
            texts.extend(text[i : i + 4000] for i in range(0, len(text), 4000))
    return texts


def test_analyzer_on_code_and_unicode_heavy_text() -> None:
    texts = TRICKY + source_texts()
    assert len(texts) > 50
    assert compare_analyzers(texts) == []


def test_analyzer_on_every_code_point() -> None:
    ranges = [(0x80, 0xD800), (0xE000, 0x40000), (0xE0000, 0xE0200)]
    texts = []
    for lo, hi in ranges:
        for c in range(lo, hi):
            x = chr(c)
            texts.append(f"a{x}b {x} 1{x}2 \u0e01{x}\u0e02 \u4e2d{x} x{x}{x}y _{x}_ 3.{x}4")
    differing = compare_analyzers(texts)
    shown = [(f"U+{ord(t[1]):04X}", a, b) for t, a, b in differing[:5]]
    assert differing == [], shown


def test_cli_reports_and_enforces_tolerances(tmp_path: Path) -> None:
    folder = collection("adi")
    out_json = tmp_path / "report.json"
    runs = tmp_path / "runs"
    args = ["--corpus", str(folder), "--json", str(out_json), "--acceptance"]
    out = subprocess.run(
        [sys.executable, "-m", "rserini", "parity", *args, "--save-runs", str(runs)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    assert "top10 =" in out.stdout and "token streams: 82 of 82" in out.stdout
    report = json.loads(out_json.read_text())
    assert report["settings"][0]["topk_fraction"] == 1.0
    pyserini_run = (runs / "pyserini-k1=0.9-b=0.4.trec").read_text().replace("pyserini-", "")
    rserini_run = (runs / "rserini-k1=0.9-b=0.4.trec").read_text().replace("rserini-", "")
    assert pyserini_run == rserini_run
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "rserini.parity",
            "--corpus",
            str(folder),
            "-q",
            "--max-score-diff",
            "-1",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 1
    assert "score difference" in out.stderr


def test_pyserini_indexer_runs_on_the_light_install(tmp_path: Path) -> None:
    collection_dir = tmp_path / "collection"
    collection_dir.mkdir()
    (collection_dir / "docs.jsonl").write_text(
        json.dumps({"id": "d1", "contents": "hello world"}) + "\n"
    )
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "rserini.parity",
            "index",
            "-collection",
            "JsonCollection",
            "-input",
            str(collection_dir),
            "-index",
            str(tmp_path / "index"),
            "-generator",
            "DefaultLuceneDocumentGenerator",
            "-threads",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert any((tmp_path / "index").iterdir())
