"""rserini.LexicalRetriever against the behaviours of agentic-retrieval's test suite.

Numbers in the test names and docstrings are those of the behaviour list of the
specification (section 9): 1-11 BM25, 12-29 TF-IDF and tokenizer, 30-36 fusion, 37-40 and
42-46 (through a contextual subclass) retrievers, 47-49 the registry, 59-63 persistence.
Out of scope, because rserini ships only the lexical retriever: 41 (the ``lexical+ctx``
registry entry), 50-58 (hybrid, turbovec and tree-sitter retrievers), 64-91 (the
``persistence`` module's cache folders, fingerprints and metadata), 92-100 (its command
line) and the eval and autotune suites.
"""

from __future__ import annotations

import json
import math
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import rserini
from rserini import Document, LexicalRetriever, SearchHit
from rserini.retrieval import fusion, retrievers
from rserini.retrieval.bm25 import BM25Index
from rserini.retrieval.fusion import candidate_pool, reciprocal_rank_fusion
from rserini.retrieval.retrievers import REGISTRY, Retriever, build_retriever
from rserini.retrieval.tfidf import TOKENIZER_MODES, TfidfIndex, tokenize

PETS = [
    "The cat sat on the mat",
    "Dogs and cats are common household pets",
    "Quantum mechanics describes subatomic behaviour",
]
SCIENCE = [
    "Photosynthesis converts light energy into chemical energy in plants.",
    "The solar system has eight planets orbiting the sun.",
    "Routing protocols move packets across a network.",
]
NETWORKS = [
    Document("d1", "Routers forward packets between networks and carry data.", "", "net.txt", 1, 1),
    Document(
        "d2",
        "Photosynthesis converts sunlight into chemical energy in plants.",
        "",
        "bio.txt",
        2,
        2,
    ),
    Document("d3", "The asteroid belt lies between Mars and Jupiter.", "", "astro.txt", 3, 4),
    Document(
        "d4", "Switches direct frames within a local area network domain.", "", "net.txt", 5, 5
    ),
]


def scores(pairs: list[tuple[int, float]]) -> list[float]:
    return [s for _, s in pairs]


def indexed(**params: Any) -> LexicalRetriever:
    r = LexicalRetriever(**params)
    r.index(NETWORKS)
    return r


# --- BM25 (1-11) ---------------------------------------------------------------------


@pytest.fixture
def bm25() -> BM25Index:
    index = BM25Index()
    index.fit(PETS)
    return index


def test_1_2_3_bm25_rankings(bm25: BM25Index) -> None:
    assert bm25.query("cat sat mat")[0][0] == 0
    assert bm25.query("household pets dogs")[0][0] == 1
    s = scores(bm25.query("cat"))
    assert s == sorted(s, reverse=True)


def test_4_6_7_bm25_returns_every_document(bm25: BM25Index) -> None:
    assert bm25.query("") == [(0, 0.0), (1, 0.0), (2, 0.0)]
    assert all(s == 0.0 for s in scores(bm25.query("xyzzy nonexistent term")))
    assert len(bm25.query("the")) == 3


def test_5_single_document() -> None:
    index = BM25Index()
    index.fit(["only document here"])
    (pair,) = index.query("document")
    assert pair[0] == 0 and pair[1] > 0


def test_8_9_bm25_tokenizer_default_and_bad_mode() -> None:
    assert BM25Index().tokenizer == "plain"
    with pytest.raises(
        ValueError,
        match=r"^unknown tokenizer mode 'not-a-mode'; choose from "
        r"\('plain', 'code'\)$",
    ):
        BM25Index(tokenizer="not-a-mode")


def test_10_11_bm25_code_mode_round_trip() -> None:
    index = BM25Index(tokenizer="code")
    index.fit(["def getUserById(): pass"])
    data = index.to_dict()
    assert data["tokenizer"] == "code"
    restored = BM25Index.from_dict(json.loads(json.dumps(data)))
    assert restored.tokenizer == "code"
    assert restored.query("user") == index.query("user") and index.query("user")[0][1] > 0
    del data["tokenizer"]
    assert BM25Index.from_dict(data).tokenizer == "plain"


# --- TF-IDF and tokenizer (12-29) -----------------------------------------------------


def test_12_to_21_tokenize() -> None:
    assert tokenize("Hello World") == ["hello", "world"]
    tokens = tokenize("cat, dog! fish?")
    assert {"cat", "dog", "fish"} <= set(tokens) and "," not in tokens
    assert tokenize("") == []
    assert "2" in tokenize("layer 2 switching")
    text = "getUserById HTTPSConnection load_chunk_documents"
    assert tokenize(text) == tokenize(text, "plain")
    code = tokenize(text, "code")
    assert {"load_chunk_documents", "load", "chunk", "documents"} <= set(code)
    assert {"user", "by", "id", "https", "connection"} <= set(code)
    assert tokenize("chunk", "code") == ["chunk"]
    with pytest.raises(ValueError, match="unknown tokenizer mode 'not-a-mode'"):
        tokenize("hello", "not-a-mode")
    assert TOKENIZER_MODES == ("plain", "code")


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("getUserById", "getuserbyid get user by id"),
        ("HTTPSConnection", "httpsconnection https connection"),
        ("XMLHttpRequest", "xmlhttprequest xml http request"),
        ("HTML5Parser", "html5parser html5 parser"),
        ("load_chunk_documents", "load_chunk_documents load chunk documents"),
        ("__init__", "__init__"),
        ("foo_foo", "foo_foo foo foo"),
        ("chunk", "chunk"),
    ],
)
def test_code_mode_examples_of_the_specification(token: str, expected: str) -> None:
    assert tokenize(token, "code") == expected.split()


def test_plain_mode_unicode_rules() -> None:
    assert tokenize("İstanbul café naïve don't ß 東京タワー") == [
        "i",
        "stanbul",
        "café",
        "naïve",
        "don",
        "t",
        "ß",
        "東京タワー",
    ]
    assert tokenize("cafe\u0301") == ["cafe"]  # a combining mark is not \w


@pytest.fixture
def tfidf() -> TfidfIndex:
    index = TfidfIndex()
    index.fit(SCIENCE)
    return index


def test_22_to_25_and_28_tfidf_rankings(tfidf: TfidfIndex) -> None:
    s = scores(tfidf.query("photosynthesis light energy"))
    assert s == sorted(s, reverse=True)
    assert tfidf.query("photosynthesis plants")[0][0] == 0
    assert tfidf.query("routing packets network")[0][0] == 2
    assert all(x >= 0 for x in scores(tfidf.query("solar system")))
    assert len(tfidf.query("the")) == 3


def test_26_27_tfidf_empty_and_single() -> None:
    index = TfidfIndex()
    index.fit([])
    assert index.query("anything") == []
    index.fit(["hello world"])
    (pair,) = index.query("hello")
    assert pair[1] > 0


def test_29_tfidf_tokenizer_round_trip() -> None:
    assert TfidfIndex().tokenizer == "plain"
    with pytest.raises(ValueError, match="unknown tokenizer mode"):
        TfidfIndex(tokenizer="nope")
    index = TfidfIndex(tokenizer="code")
    index.fit(["def getUserById(): pass", "user = User()"])
    restored = TfidfIndex.from_dict(json.loads(json.dumps(index.to_dict())))
    assert restored.tokenizer == "code" and restored.query("user") == index.query("user")
    data = index.to_dict()
    del data["tokenizer"]
    assert TfidfIndex.from_dict(data).tokenizer == "plain"


# --- Fusion (30-36) --------------------------------------------------------------------


def test_30_31_unweighted_fusion() -> None:
    fused = reciprocal_rank_fusion([[0, 1, 2], [2, 0, 1]])
    assert fused == reciprocal_rank_fusion([[0, 1, 2], [2, 0, 1]], weights=None)
    assert fused == reciprocal_rank_fusion([[0, 1, 2], [2, 0, 1]], weights=[1.0, 1.0])
    assert dict(fused) == {0: 1 / 61 + 1 / 62, 1: 1 / 62 + 1 / 63, 2: 1 / 63 + 1 / 61}
    assert [d for d, _ in fused] == [0, 2, 1]


def test_32_to_35_weights_determinism_and_edges() -> None:
    assert reciprocal_rank_fusion([[0, 1], [1, 0]], weights=[0.1, 5.0])[0][0] == 1
    assert reciprocal_rank_fusion([[3, 1], [1, 3]]) == reciprocal_rank_fusion([[3, 1], [1, 3]])
    assert [d for d, _ in reciprocal_rank_fusion([[3, 1], [1, 3]])] == [3, 1]
    assert reciprocal_rank_fusion([]) == []
    assert [d for d, _ in reciprocal_rank_fusion([[5, 2, 9]])] == [5, 2, 9]


def test_fusion_zip_truncates_weights() -> None:
    """The reference pairs weights with rankings through ``zip``."""
    assert reciprocal_rank_fusion([[0, 1], [1, 0]], weights=[1.0]) == [(0, 1 / 61), (1, 1 / 62)]
    assert reciprocal_rank_fusion([[0]], weights=[2.0, 3.0]) == [(0, 2.0 / 61)]


def test_36_candidate_pool() -> None:
    assert candidate_pool(5) == 50 and candidate_pool(5, 20) == 20
    assert candidate_pool(10) == 100 and candidate_pool(10, 1000) == 100
    assert (fusion.POOL_MULTIPLIER, fusion.POOL_FLOOR) == (10, 50)


# --- Retrievers (37-40, 42-46) -----------------------------------------------------


def test_37_to_40_lexical_retriever() -> None:
    r = indexed()
    assert r.search("what carries data between networks", 1)[0] == "d1"
    assert r.search("how do plants convert light into energy", 1)[0] == "d2"
    (hit,) = r.search_detailed("what carries data between networks", 1)
    assert hit == SearchHit("d1", "net.txt", 1, 1, 0, "")
    q = "asteroid belt mars jupiter"
    assert r.search(q, 4) == [h.docid for h in r.search_detailed(q, 4)] == ["d3", "d1", "d2", "d4"]


class StubContextual(LexicalRetriever):
    """The reference's ContextualLexicalRetriever with a stub contextualizer: ``index``
    prefixes each text and calls ``super().index``."""

    name = "lexical+llm-context"

    def __init__(self, contextualizer: Callable[[str], str] | None = None, **params: Any) -> None:
        super().__init__(**params)
        self._contextualizer = contextualizer

    def index(self, documents: list[Document]) -> None:
        assert self._contextualizer is not None
        enriched = [
            Document(
                d.docid,
                f"{self._contextualizer(d.text)} {d.text}".strip(),
                d.url,
                d.source_path,
                d.start_line,
                d.end_line,
                d.context,
            )
            for d in documents
        ]
        super().index(enriched)


def test_42_to_46_subclass_enrichment() -> None:
    calls: list[str] = []

    def stub(text: str) -> str:
        calls.append(text)
        return "zzsentinel"

    docs = [
        Document(
            d.docid,
            d.text,
            d.url,
            d.source_path,
            d.start_line,
            d.end_line,
            "Networking" if d.docid == "d1" else "",
        )
        for d in NETWORKS
    ]
    r = StubContextual(stub, bm25_k1=1.2)
    r.index(docs)
    assert len(calls) == 4
    assert len(r.search("zzsentinel", 4)) == 4
    assert r.search("what carries data between networks", 1) == ["d1"]
    (hit,) = r.search_detailed("what carries data between networks", 1)
    assert hit == SearchHit("d1", "net.txt", 1, 1, 0, "Networking")
    assert isinstance(r, Retriever) and r._bm25.k1 == 1.2
    restored = StubContextual.from_dict(r.to_dict())
    assert type(restored) is StubContextual
    assert restored.search("zzsentinel", 4) == r.search("zzsentinel", 4)


class Mine(LexicalRetriever):
    """A subclass with the constructor of its parent."""


def test_subclass_from_dict_and_load_build_the_subclass(tmp_path: Path) -> None:
    r = Mine()
    r.index(NETWORKS)
    assert type(Mine.from_dict(r.to_dict())) is Mine
    r.save(tmp_path / "r.bin")
    loaded = Mine.load(tmp_path / "r.bin")
    assert type(loaded) is Mine and loaded.search("network", 4) == r.search("network", 4)
    assert type(pickle.loads(pickle.dumps(r))) is Mine


# --- Registry (47-49) ------------------------------------------------------------------


def test_47_48_build_retriever() -> None:
    r = build_retriever("lexical", {"bm25_k1": 1.2, "unknown": 9})
    assert isinstance(r, LexicalRetriever) and r._bm25.k1 == 1.2
    d = build_retriever("lexical")
    assert (d._bm25.k1, d._bm25.b, d._tfidf.tokenizer) == (1.5, 0.75, "plain")
    with pytest.raises(ValueError, match=r"^unknown retriever 'bm99'; choose from \['lexical'\]$"):
        build_retriever("bm99")
    assert {"lexical": LexicalRetriever} == REGISTRY
    assert retrievers.resolve_ctor_kwargs("lexical", LexicalRetriever, None) == {}
    assert retrievers.resolve_ctor_kwargs("x", object, {"bm25_k1": 1}) == {}


def test_49_code_tokenizer_survives_to_dict() -> None:
    r = build_retriever("lexical", {"tokenizer": "code"})
    assert isinstance(r, LexicalRetriever)
    r.index(NETWORKS)
    restored = LexicalRetriever.from_dict(r.to_dict())
    assert restored._bm25.tokenizer == restored._tfidf.tokenizer == "code"
    for q in ["what carries data between networks", "asteroid belt"]:
        assert restored.search(q, 3) == r.search(q, 3)


# --- Persistence (59-63) and round trips --------------------------------------------


def test_59_60_sub_index_round_trips() -> None:
    t = TfidfIndex()
    t.fit(SCIENCE)
    data = json.loads(json.dumps(t.to_dict()))
    assert TfidfIndex.from_dict(data).query("light energy") == t.query("light energy")
    b = BM25Index(k1=1.3, b=0.8)
    b.fit(SCIENCE)
    restored = BM25Index.from_dict(json.loads(json.dumps(b.to_dict())))
    assert (restored.k1, restored.b) == (1.3, 0.8)
    assert restored.query("packets network") == b.query("packets network")


def test_61_62_63_retriever_round_trip(tmp_path: Path) -> None:
    r = indexed()
    path = tmp_path / "lexical.json"
    path.write_text(json.dumps(r.to_dict()))
    data = json.loads(path.read_text())
    assert data["schema"] == 3
    restored = LexicalRetriever.from_dict(data)
    for q in ["network", "plants energy", "asteroid", "zero overlap xyzzy"]:
        assert restored.search(q, 3) == r.search(q, 3)
    assert restored.to_dict() == r.to_dict()
    with pytest.raises(ValueError, match=r"^unsupported LexicalRetriever schema 999$"):
        LexicalRetriever.from_dict({**data, "schema": 999})
    with pytest.raises(KeyError):
        LexicalRetriever.from_dict({"schema": 3})


def test_save_load_and_pickle_are_exact(tmp_path: Path) -> None:
    r = LexicalRetriever(bm25_k1=1.2, bm25_b=0.5, tokenizer="code")
    r.index([*NETWORKS, Document("d1", ""), Document("", "getUserById network")])
    data = r.to_dict()
    r.save(tmp_path / "r.bin")
    for copy in (LexicalRetriever.load(tmp_path / "r.bin"), pickle.loads(pickle.dumps(r))):
        assert json.dumps(copy.to_dict()) == json.dumps(data)
        assert copy.search_detailed("user network", 6) == r.search_detailed("user network", 6)


def test_save_replaces_a_file_and_load_refuses_damage(tmp_path: Path) -> None:
    path = tmp_path / "r.bin"
    path.write_bytes(b"old")
    r = indexed()
    r.save(path)
    assert LexicalRetriever.load(path).search("network", 2) == r.search("network", 2)
    assert [p.name for p in tmp_path.iterdir()] == ["r.bin"]
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(rserini.IndexCorruptedError):
        LexicalRetriever.load(path)
    with pytest.raises(FileNotFoundError):
        LexicalRetriever.load(tmp_path / "missing.bin")


# --- The retriever's own surface ------------------------------------------------------


def test_class_attributes_and_constructor() -> None:
    assert LexicalRetriever.name == "lexical (bm25+tfidf+rrf)"
    assert frozenset({"bm25_k1", "bm25_b", "tokenizer"}) == LexicalRetriever.ACCEPTS
    assert LexicalRetriever.SCHEMA_VERSION == 3
    assert rserini.LexicalRetriever is retrievers.LexicalRetriever
    with pytest.raises(TypeError):
        LexicalRetriever(1.5)  # type: ignore[misc]
    with pytest.raises(ValueError, match=r"^unknown tokenizer mode 'x'; choose from"):
        LexicalRetriever(tokenizer="x")
    r = LexicalRetriever(bm25_k1=-1, bm25_b=7)  # not validated, as in the reference
    assert (r._bm25.k1, r._bm25.b) == (-1, 7)


def test_search_before_index_and_empty_index() -> None:
    r = LexicalRetriever()
    assert r.search("anything", 5) == [] and r.search_detailed("x", 5) == []
    assert r.to_dict()["bm25"]["n_docs"] == 0
    r.index([])
    assert r.search("anything", 5) == []


def test_padding_and_slice_semantics_of_top_k() -> None:
    r = indexed()
    assert r.search("network", 10) == ["d4", "d1", "d2", "d3"]
    assert r.search("network", 0) == []
    assert r.search("network", -1) == ["d4", "d1", "d2"]
    assert r.search("network", -9) == []
    assert r.search("network", None) == ["d4", "d1", "d2", "d3"]  # type: ignore[arg-type]
    assert [h.rank for h in r.search_detailed("network", 3)] == [0, 1, 2]
    for bad in (1.5, "3"):
        with pytest.raises(TypeError):
            r.search("network", bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        LexicalRetriever().search("x", 2.0)  # type: ignore[arg-type]


def test_duplicate_and_empty_docids_and_texts_are_kept() -> None:
    r = LexicalRetriever()
    r.index(
        [
            Document("a", "red apple"),
            Document("a", "red apple pie"),
            Document("", ""),
            Document("b", ""),
        ]
    )
    assert r.search("apple", 4) == ["a", "a", "", "b"]
    assert r._docids == ["a", "a", "", "b"]


def test_bad_documents_raise_type_error_and_change_nothing() -> None:
    r = indexed()
    before = r.to_dict()
    bad: list[Any] = [
        [("d1", "text")],
        [Document(1, "text")],  # type: ignore[arg-type]
        [Document("d1", b"text")],  # type: ignore[arg-type]
        [Document("d1", "text", start_line="1")],  # type: ignore[arg-type]
        [Document("d1", "text", end_line=True)],  # type: ignore[arg-type]
        [Document("d1", "text", context=None)],  # type: ignore[arg-type]
        [NETWORKS[0], Document("d2", None)],  # type: ignore[arg-type]
    ]
    for documents in bad:
        with pytest.raises(TypeError, match=r"document #\d"):
            r.index(documents)
    assert r.to_dict() == before
    with pytest.raises(TypeError, match="query must be a str"):
        r.search(None, 3)  # type: ignore[arg-type]


def test_duck_typed_documents_and_defaults() -> None:
    class Old:
        def __init__(self, docid: str, text: str) -> None:
            self.docid, self.text = docid, text

    r = LexicalRetriever()
    r.index([Old("x", "alpha beta"), Old("y", "beta")])
    assert r.search_detailed("alpha", 1) == [SearchHit("x", "", None, None, 0, "")]


def test_arm_attributes_are_read_at_query_time() -> None:
    r = indexed()
    r._bm25.k1 = 0.0  # BM25 is then the idf alone
    ((doc, score), *_) = r._bm25.query("network")
    n, df = 4, 1
    assert doc == 3 and score == math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def test_index_build_accepts_documents() -> None:
    index = rserini.Index.build(
        [Document("d1", "Routers forward packets."), Document("d2", "Plants grow.")], progress=False
    )
    assert [h.docid for h in index.search("router packet")] == ["d1"]
