"""rserini.LexicalRetriever equals a pure-Python implementation of the specification.

``lexical_reference`` follows agentic-retrieval's algorithm (every document zero-filled
and sorted in each arm, fusion over both full rankings); rserini scores only the documents
sharing a query term. Rankings, per-arm scores and ``to_dict`` output must be identical.
"""

from __future__ import annotations

import functools
import gzip
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lexical_reference as ref
import rserini
from rserini import Document, LexicalRetriever
from rserini.retrieval.tfidf import tokenize
from support import collection

NETWORKS = [
    "Routers forward packets between networks and carry data.",
    "Photosynthesis converts sunlight into chemical energy in plants.",
    "The asteroid belt lies between Mars and Jupiter.",
    "Switches direct frames within a local area network domain.",
]


def pair(docs: list[tuple[str, str]], **params: object) -> tuple[ref.Lexical, LexicalRetriever]:
    reference = ref.Lexical(**params)  # type: ignore[arg-type]
    reference.index(docs, tokenize_once=True)
    ours = LexicalRetriever(
        **{"bm25_" + k if k in ("k1", "b") else k: v for k, v in params.items()}  # type: ignore[arg-type]
    )
    ours.index([Document(d, t) for d, t in docs])
    return reference, ours


# --- Worked vectors of the specification (section 4.4) -------------------------------


@pytest.mark.parametrize(
    ("query", "tfidf", "bm25", "order"),
    [
        (
            "what carries data between networks",
            {0: 0.463348, 2: 0.131010},
            {0: 3.143965, 2: 0.702730},
            ["d1", "d3", "d2", "d4"],
        ),
        (
            "how do plants convert light into energy",
            {1: 0.400892},
            {1: 3.661853},
            ["d2", "d1", "d3", "d4"],
        ),
        ("asteroid belt mars jupiter", {2: 0.743131}, {2: 4.882470}, ["d3", "d1", "d2", "d4"]),
        ("network", {3: 0.333333}, {3: 1.156655}, ["d4", "d1", "d2", "d3"]),
        ("no shared vocabulary whatsoever xyzzy", {}, {}, ["d1", "d2", "d3", "d4"]),
    ],
)
def test_worked_vectors(
    query: str, tfidf: dict[int, float], bm25: dict[int, float], order: list[str]
) -> None:
    r = LexicalRetriever()
    r.index([Document(f"d{i + 1}", t) for i, t in enumerate(NETWORKS)])
    for arm, expected in ((r._tfidf.query(query), tfidf), (r._bm25.query(query), bm25)):
        got = dict(arm)
        assert {d: s for d, s in got.items() if s > 0} == pytest.approx(expected, abs=5e-7)
    assert r.search(query, 10) == order


def test_fused_values_and_tie_golden() -> None:
    docs = [(f"d{i}", t) for i, t in enumerate(["e e b", "d d c d c", "e"])]
    reference, ours = pair(docs)
    assert dict(ours._tfidf.query("e f")) == pytest.approx(
        {2: 0.707107, 0: 0.558478, 1: 0.0}, abs=5e-7
    )
    bm25 = ours._bm25.query("e f")
    assert [d for d, _ in bm25] == [0, 2, 1] and bm25[0][1] == bm25[1][1]
    assert bm25[0][1] == pytest.approx(0.671434, abs=5e-7)
    assert ours.search("e f", 3) == reference.search("e f", 3) == ["d2", "d0", "d1"]
    fused = ref.rrf([[0, 2, 1, 3], [0, 2, 1, 3]])
    assert [round(s, 6) for _, s in fused] == [0.032787, 0.032258, 0.031746, 0.03125]


# --- Random small-vocabulary corpora ------------------------------------------------

WORDS = ["a", "b", "c", "Aa", "getUser", "user_id", "HTTPServer", "x2", "é", "ß"]
texts = st.lists(st.sampled_from(WORDS), max_size=8).map(" ".join)
corpora = st.lists(st.tuples(st.sampled_from(["d1", "d2", "d3", ""]), texts), max_size=12)
queries = st.lists(st.sampled_from([*WORDS, "unknown", "zz"]), max_size=6).map(" ".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    corpora,
    st.lists(queries, min_size=1, max_size=4),
    st.sampled_from(ref.MODES),
    st.sampled_from([(1.5, 0.75), (1.2, 0.3), (0.0, 1.0), (3.0, 0.0)]),
)
def test_random_corpora_equal_the_reference(
    docs: list[tuple[str, str]], qs: list[str], mode: str, k1_b: tuple[float, float]
) -> None:
    k1, b = k1_b
    reference, ours = pair(docs, k1=k1, b=b, tokenizer=mode)
    for q in qs:
        assert ours._tfidf.query(q) == reference.tfidf.query(q)
        assert ours._bm25.query(q) == reference.bm25.query(q)
        for top_k in (len(docs), 3, 1):
            assert ours.search(q, top_k) == reference.search(q, top_k), (q, top_k)
    units = ours.to_dict()["units"]
    assert json.dumps(ours.to_dict()) == json.dumps(reference.to_dict(units))


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cn"]), max_size=40),
    st.sampled_from(ref.MODES),
)
def test_tokenizer_equals_python_regex(text: str, mode: str) -> None:
    """Characters this Python's Unicode database does not know (``Cn``) are left out: the
    analyzer classifies them by a newer Unicode version."""
    assert tokenize(text, mode) == ref.tokenize(text, mode)


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet="aAbBzZ_9\u0130\u03a3\u03c3\u03c2'. \u0301-", max_size=30),
    st.sampled_from(ref.MODES),
)
def test_tokenizer_case_edges(text: str, mode: str) -> None:
    assert tokenize(text, mode) == ref.tokenize(text, mode)


def test_reads_a_reference_lexical_json(tmp_path: Path) -> None:
    docs = [(f"d{i + 1}", t) for i, t in enumerate(NETWORKS)] + [("d1", ""), ("e", "getUserById")]
    reference = ref.Lexical(k1=1.2, b=0.5, tokenizer="code")
    reference.index(docs)
    units = [
        {"docid": d, "source_path": f"{d}.txt", "start_line": 1, "end_line": 2, "context": ""}
        for d, _ in docs
    ]
    path = tmp_path / "lexical.json"
    path.write_text(json.dumps(reference.to_dict(units)))
    ours = LexicalRetriever.from_dict(json.loads(path.read_text()))
    assert json.dumps(ours.to_dict()) == path.read_text()
    assert ours._bm25.k1 == 1.2 and ours._tfidf.tokenizer == "code"
    for q in ["network data", "user", "get by id", "nothing"]:
        assert ours.search(q, 6) == reference.search(q, 6)
    ours.save(tmp_path / "r.bin")
    assert json.dumps(LexicalRetriever.load(tmp_path / "r.bin").to_dict()) == path.read_text()


def test_inconsistent_statistics_are_refused() -> None:
    reference = ref.Lexical()
    reference.index([("a", "x y"), ("b", "y")])
    data = reference.to_dict(
        [
            {"docid": d, "source_path": "", "start_line": None, "end_line": None, "context": ""}
            for d in "ab"
        ]
    )
    bad = json.loads(json.dumps(data))
    bad["bm25"]["postings"]["x"] = [1]
    with pytest.raises(ValueError, match="lacks the term"):
        LexicalRetriever.from_dict(bad)
    bad = json.loads(json.dumps(data))
    bad["tfidf"]["postings"]["x"] = [[7, 0.5]]
    with pytest.raises(ValueError, match="out of range"):
        LexicalRetriever.from_dict(bad)
    bad = json.loads(json.dumps(data))
    del bad["bm25"]["dl"]
    with pytest.raises(KeyError):
        LexicalRetriever.from_dict(bad)


# --- The shared test collections ------------------------------------------------------


@functools.cache
def beir(name: str) -> tuple[list[tuple[str, str]], list[str]]:
    folder = collection(name)
    path = folder / "corpus.jsonl.gz"
    opened = gzip.open(path, "rt") if path.exists() else open(folder / "corpus.jsonl")  # noqa: SIM115
    docs = []
    with opened as lines:
        for line in lines:
            o = json.loads(line)
            docs.append((o["_id"], f"{o.get('title') or ''} {o['text']}"))
    return docs, [q for _, q in rserini.read_queries(folder / "queries.jsonl")]


@pytest.mark.data
@pytest.mark.parametrize("mode", ref.MODES)
@pytest.mark.parametrize("name", ["adi", "cacm", "cranfield", "npl", "scifact"])
def test_collections_top10_equal_the_reference(name: str, mode: str) -> None:
    docs, qs = beir(name)
    reference, ours = pair(docs, tokenizer=mode)
    differ = [q for q in qs if ours.search(q, 10) != reference.search(q, 10)]
    assert len(differ) <= 0.001 * len(qs), differ[:5]
