"""rserini's BM25 and TF-IDF scores and rankings against the pure-Python reference.

The reference (``tests/reference.py``) computes in float64 from the formulas;
rserini computes per-term scores in float32. A score is accepted when it is
within ``1e-5`` relative of the reference, plus ``1e-6`` times the magnitude of
the terms it sums (float32 rounding of a term weight, and Lucene's
``w - w / (1 + x)`` form, err in proportion to the term weight, not to the
final score). Rankings are checked robustly: rserini's own order must be
exactly "score descending, then docid ascending", its scores must match the
reference, and every matching document must be ranked, so two documents may
only swap when their reference scores are within tolerance of each other.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Callable, Sequence

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import reference as ref
import rserini
from support import many_range_corpus

SETTINGS = settings(
    max_examples=100,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

REL_TOL = 1e-5
ABS_TOL = 1e-6


def build(docs: Sequence[tuple[str, str]], analyzer: str = "whitespace") -> rserini.Index:
    """An index of ``docs`` without a progress bar."""
    return rserini.Index.build(list(docs), analyzer=analyzer, progress=False)


@functools.cache
def many_range_index() -> rserini.Index:
    """The index of :func:`support.many_range_corpus`, built once."""
    return build(many_range_corpus())


def tokenize_whitespace(text: str) -> list[str]:
    """What the ``whitespace`` preset is specified to do."""
    return text.split()


def tokenize_plain(text: str) -> list[str]:
    """What the ``plain`` preset is specified to do."""
    return re.findall(r"\w+", text.lower())


TOKENIZERS: dict[str, Callable[[str], list[str]]] = {
    "whitespace": tokenize_whitespace,
    "plain": tokenize_plain,
}


# ---------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------

# Token characters: ASCII, Latin-1, Greek (final sigma), CJK, astral emoji;
# no whitespace. The `plain` alphabet is word characters only, in both cases.
WS_TOKEN_CHARS = "abcxyzAB-'.éÄßΣ\u03c3東京Ж😀"
PLAIN_TOKEN_CHARS = "abcxyzABCéÉßΣ\u03c3東京Ж_7"
WS_SEPARATORS = [" ", " ", " ", "  ", "\t", "\n", "\u3000", "\u00a0"]
PLAIN_SEPARATORS = [" ", " ", ", ", "-", ". ", "'", "!?", " \n"]

docid_strategy = st.text(
    st.characters(exclude_categories=("Cs",)), min_size=1, max_size=4
) | st.sampled_from(["d1", "d2", "d10", "D1", "a", "b", "é", "\uffff", "\U00010000", "😀"])

doc_length = st.one_of(st.just(0), st.integers(1, 12), st.integers(13, 80))
k1_strategy = st.one_of(st.sampled_from([0.0, 0.9, 1.2, 25.0, 30.0]), st.floats(0.0, 30.0))
b_strategy = st.one_of(st.sampled_from([0.0, 0.4, 0.75, 1.0]), st.floats(0.0, 1.0))
delta_strategy = st.one_of(st.none(), st.sampled_from([0.0, 0.5, 1.0]), st.floats(0.0, 3.0))


@st.composite
def corpora(draw: st.DrawFn, analyzer: str) -> tuple[list[tuple[str, str]], list[str]]:
    """A corpus ``[(docid, text)]`` for ``analyzer`` and its vocabulary (before analysis).

    About one document in four repeats an earlier text, so that exact ties occur.
    """
    chars = WS_TOKEN_CHARS if analyzer == "whitespace" else PLAIN_TOKEN_CHARS
    separators = WS_SEPARATORS if analyzer == "whitespace" else PLAIN_SEPARATORS
    vocab = draw(st.lists(st.text(chars, min_size=1, max_size=3), min_size=1, max_size=8))
    n = draw(st.integers(1, 12))
    docids = draw(st.lists(docid_strategy, min_size=n, max_size=n, unique=True))
    texts: list[str] = []
    for _ in docids:
        if texts and draw(st.integers(0, 3)) == 0:
            texts.append(draw(st.sampled_from(texts)))
            continue
        length = draw(doc_length)
        tokens = draw(st.lists(st.sampled_from(vocab), min_size=length, max_size=length))
        seps = draw(st.lists(st.sampled_from(separators), min_size=length, max_size=length))
        lead = draw(st.sampled_from(["", " "]))
        texts.append(lead + "".join(t + s for t, s in zip(tokens, seps, strict=True)))
    return list(zip(docids, texts, strict=True)), vocab


@st.composite
def queries(draw: st.DrawFn, vocab: list[str], analyzer: str) -> str:
    """A query of 1-5 vocabulary tokens (repeats likely) and 0-2 unknown ones, shuffled."""
    chars = WS_TOKEN_CHARS if analyzer == "whitespace" else PLAIN_TOKEN_CHARS
    known = draw(st.lists(st.sampled_from(vocab), min_size=1, max_size=5))
    unknown = st.text(chars, min_size=1, max_size=3) | st.just("zzzunknown")
    tokens = known + draw(st.lists(unknown, max_size=2))
    return " ".join(draw(st.permutations(tokens)))


@st.composite
def search_cases(draw: st.DrawFn) -> dict:
    """A corpus, a query and a k for one of the two exactly specified analyzers."""
    analyzer = draw(st.sampled_from(["whitespace", "plain"]))
    docs, vocab = draw(corpora(analyzer))
    query = draw(queries(vocab, analyzer))
    k = draw(st.integers(1, len(docs) + 2))
    return {"analyzer": analyzer, "docs": docs, "query": query, "k": k}


# ---------------------------------------------------------------------------
# Checking a ranking
# ---------------------------------------------------------------------------


def assert_ranking(
    hits: list[rserini.Hit],
    expected: dict[str, float],
    tolerance: dict[str, float],
    k: int,
) -> None:
    """``hits`` are the top ``k`` of ``expected`` (docid -> reference score), robustly."""
    docids = [h.docid for h in hits]
    assert len(hits) == min(k, len(expected)), (docids, expected)
    assert len(set(docids)) == len(docids), docids
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    for h in hits:
        assert h.docid in expected, f"{h.docid!r} shares no term with the query"
        want = expected[h.docid]
        assert abs(h.score - want) <= tolerance[h.docid], (h, want)
    for a, b in itertools.pairwise(hits):
        assert a.score > b.score or (a.score == b.score and a.docid < b.docid), (a, b)
    # A document left out must not beat a returned one by more than the tolerances.
    for left_out in expected.keys() - set(docids):
        worst = hits[-1].docid
        slack = tolerance[left_out] + tolerance[worst]
        assert expected[left_out] <= expected[worst] + slack, (left_out, worst, expected)


def bm25_expectation(
    docs: list[tuple[str, str]], query: str, analyzer: str, **params: object
) -> tuple[dict[str, float], dict[str, float]]:
    """Reference scores and tolerances by docid for BM25 with ``params``."""
    tokenize = TOKENIZERS[analyzer]
    token_docs = [tokenize(text) for _, text in docs]
    contributions = ref.bm25_contributions(token_docs, tokenize(query), **params)  # type: ignore[arg-type]
    expected, tolerance = {}, {}
    for i, terms in contributions.items():
        score = math.fsum(share for _, share in terms)
        magnitude = math.fsum(abs(w) + abs(s) for w, s in terms)
        expected[docs[i][0]] = score
        tolerance[docs[i][0]] = REL_TOL * abs(score) + ABS_TOL * magnitude + 1e-9
    return expected, tolerance


def tfidf_expectation(
    docs: list[tuple[str, str]], query: str, analyzer: str
) -> tuple[dict[str, float], dict[str, float]]:
    """Reference scores and tolerances by docid for TF-IDF."""
    tokenize = TOKENIZERS[analyzer]
    scores = ref.tfidf_scores([tokenize(text) for _, text in docs], tokenize(query))
    expected = {docs[i][0]: s for i, s in scores.items()}
    return expected, {d: REL_TOL * abs(s) + ABS_TOL for d, s in expected.items()}


# ---------------------------------------------------------------------------
# Property tests
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("length", ref.LENGTH_MODES)
@pytest.mark.parametrize("variant", ref.VARIANTS)
@SETTINGS
@given(case=search_cases(), k1=k1_strategy, b=b_strategy, delta=delta_strategy)
def test_bm25_matches_reference(variant, length, case, k1, b, delta):
    """Every BM25 variant in both length modes ranks and scores like the reference."""
    docs, query, k = case["docs"], case["query"], case["k"]
    index = build(docs, case["analyzer"])
    params = {"variant": variant, "length": length, "k1": k1, "b": b, "delta": delta}
    expected, tolerance = bm25_expectation(docs, query, case["analyzer"], **params)
    hits = index.search(query, k, **params)
    assert_ranking(hits, expected, tolerance, k)
    full = index.search(query, len(docs) + 2, **params)
    assert_ranking(full, expected, tolerance, len(docs) + 2)
    assert hits == full[:k]


@pytest.mark.parametrize("query", ["w0 w1 w2", "w0 w7", "w150 w299", "w3 w40 w299"])
def test_exhaustive_scoring_across_document_ranges_matches_reference(query):
    """Exhaustive scoring takes a large segment a range of documents at a time, densely or
    sparsely by the query's postings; either way it ranks and scores like the reference."""
    docs = many_range_corpus()
    index = many_range_index()
    expected, tolerance = bm25_expectation(docs, query, "whitespace")
    for k in (10, 1000):
        hits = index.search(query, k, algorithm="exhaustive")
        assert_ranking(hits, expected, tolerance, k)


@SETTINGS
@given(case=search_cases())
def test_tfidf_matches_reference(case):
    """TF-IDF cosine ranks and scores like the reference; BM25 parameters are ignored."""
    docs, query, k = case["docs"], case["query"], case["k"]
    index = build(docs, case["analyzer"])
    expected, tolerance = tfidf_expectation(docs, query, case["analyzer"])
    hits = index.search(query, k, model="tfidf")
    assert_ranking(hits, expected, tolerance, k)
    full = index.search(query, len(docs) + 2, model="tfidf")
    assert_ranking(full, expected, tolerance, len(docs) + 2)
    assert hits == full[:k]
    ignored = index.search(query, k, model="tfidf", k1=7.0, b=1.0, length="exact")
    assert ignored == hits


@SETTINGS
@given(
    case=search_cases(),
    variant=st.sampled_from(ref.VARIANTS),
    length=st.sampled_from(ref.LENGTH_MODES),
    k1=k1_strategy,
    b=b_strategy,
)
def test_explain_score_equals_search_score(case, variant, length, k1, b):
    """``explain`` reports exactly the score ``search`` gives each hit, and its lengths."""
    docs, query = case["docs"], case["query"]
    index = build(docs, case["analyzer"])
    params = {"variant": variant, "length": length, "k1": k1, "b": b}
    lengths = {docid: len(TOKENIZERS[case["analyzer"]](text)) for docid, text in docs}
    for hit in index.search(query, len(docs), **params):
        explanation = index.explain(query, hit.docid, **params)
        assert explanation.score == hit.score
        assert explanation.length == lengths[hit.docid]
        assert explanation.seen_length == ref.seen_length(lengths[hit.docid], length)


@SETTINGS
@given(
    case=search_cases(),
    extra=st.lists(st.sampled_from(["zzzunknown", "a", "b", "x", "é"]), max_size=3),
    model=st.sampled_from(["bm25", "tfidf"]),
    variant=st.sampled_from(ref.VARIANTS),
    length=st.sampled_from(ref.LENGTH_MODES),
)
def test_batch_search_equals_looping_search(case, extra, model, variant, length):
    """``batch_search`` equals ``search`` per query, for 1 and 2 threads; ids map back to docids."""
    docs, k = case["docs"], case["k"]
    index = build(docs, case["analyzer"])
    queries = [case["query"], *extra]
    params = {"model": model, "variant": variant, "length": length}
    ids, scores = index.batch_search(queries, k, threads=1, **params)
    ids2, scores2 = index.batch_search(queries, k, threads=2, **params)
    assert ids.dtype == np.int32
    assert scores.dtype == np.float32
    assert ids.shape == scores.shape == (len(queries), min(k, len(docs)))
    np.testing.assert_array_equal(ids, ids2)
    np.testing.assert_array_equal(scores, scores2)
    mapped = index.docids(ids)
    for row, query in enumerate(queries):
        hits = index.search(query, k, **params)
        n = len(hits)
        assert mapped[row] == [h.docid for h in hits]
        assert index.docids(ids[row]) == [h.docid for h in hits]
        assert scores[row, :n].tolist() == [np.float32(h.score) for h in hits]
        assert (ids[row, :n] >= 0).all()
        assert (ids[row, n:] == -1).all()
        assert np.isneginf(scores[row, n:]).all()
    # Internal ids number the documents in the order they were given.
    assert index.docids(np.arange(len(docs))) == [docid for docid, _ in docs]


@settings(max_examples=200, derandomize=True, database=None, deadline=None)
@given(st.integers(0, 2_000_000_000))
def test_reference_lossy_length_is_a_lucene_norm(dl):
    """The reference's lossy length is idempotent, never above dl, and exact below 24."""
    seen = ref.lucene_length(dl)
    assert seen <= dl
    assert ref.lucene_length(seen) == seen
    assert 0 <= ref.int_to_byte4(dl) <= 255
    if dl < 24:
        assert seen == dl


def test_lossy_lengths_match_explain():
    """rserini sees the same Lucene one-byte length as the reference, for lengths 0..300."""
    docs = [(f"d{n:03d}", " ".join(["t"] * n + ["u"])) for n in range(301)]
    index = build(docs)
    for n in range(301):
        explanation = index.explain("u", f"d{n:03d}")
        assert explanation.length == n + 1
        assert explanation.seen_length == ref.lucene_length(n + 1), n + 1
        exact = index.explain("u", f"d{n:03d}", length="exact")
        assert exact.seen_length == n + 1


# ---------------------------------------------------------------------------
# The analyzers the reference relies on
# ---------------------------------------------------------------------------

analyzable_text = st.text(st.characters(exclude_categories=("Cs", "Cn")), max_size=30)


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(analyzable_text)
def test_plain_preset_is_python_word_regex(text):
    """``plain`` analyzes exactly as ``re.findall(r"\\w+", text.lower())``."""
    assert rserini.Analyzer("plain").analyze(text) == tokenize_plain(text)


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(
    st.text(st.characters(exclude_categories=("Cs", "Cn"), exclude_characters="\x1c\x1d\x1e\x1f"))
)
def test_whitespace_preset_is_str_split(text):
    """``whitespace`` analyzes exactly as ``text.split()`` (separators below tested alone)."""
    assert rserini.Analyzer("whitespace").analyze(text) == tokenize_whitespace(text)


@pytest.mark.parametrize("separator", ["\x1c", "\x1d", "\x1e", "\x1f"])
def test_whitespace_preset_splits_on_python_separator_characters(separator):
    """``str.split`` splits on the separators U+001C..U+001F, so must the preset."""
    text = f"alpha{separator}beta"
    assert text.split() == ["alpha", "beta"]
    assert rserini.Analyzer("whitespace").analyze(text) == ["alpha", "beta"]


# ---------------------------------------------------------------------------
# Golden values, worked out by hand from the formulas
# ---------------------------------------------------------------------------

# dl: d1 = 3, d2 = 2, d3 = 0 (empty), d4 = 4; total 9.
GOLDEN_DOCS = [("d1", "a b a"), ("d2", "b c"), ("d3", ""), ("d4", "c c c c")]


def test_golden_lucene_bm25_lucene_lengths():
    """Lucene BM25, Lucene lengths: N = 3 non-empty docs, avgdl = 9/3 = 3."""
    index = build(GOLDEN_DOCS)
    # "a": df 1, idf = ln(1 + 2.5/1.5) = ln(8/3); d1: tf 2, norm = 0.6 + 0.4*3/3 = 1.
    want = math.log(8 / 3) * 2 / (2 + 0.9 * 1.0)
    [hit] = index.search("a")
    assert (hit.docid, hit.rank) == ("d1", 1)
    assert hit.score == pytest.approx(want, rel=1e-6)
    # "b": df 2, idf = ln(1 + 1.5/2.5) = ln(1.6); d1: tf 1, norm 1; d2: tf 1, norm 0.6 + 0.4*2/3.
    idf_b = math.log(1.6)
    d1 = idf_b / (1 + 0.9)
    d2 = idf_b / (1 + 0.9 * (0.6 + 0.4 * 2 / 3))
    hits = index.search("b")
    assert [h.docid for h in hits] == ["d2", "d1"]
    assert [h.score for h in hits] == pytest.approx([d2, d1], rel=1e-6)


def test_golden_lucene_bm25_exact_lengths():
    """Lucene BM25, exact lengths: N = 4 (the empty doc counts), avgdl = 9/4."""
    index = build(GOLDEN_DOCS)
    # "a": idf = ln(1 + 3.5/1.5) = ln(10/3); d1: norm = 0.6 + 0.4*3/2.25.
    want = math.log(10 / 3) * 2 / (2 + 0.9 * (0.6 + 0.4 * 3 / 2.25))
    [hit] = index.search("a", length="exact")
    assert hit.score == pytest.approx(want, rel=1e-6)


def test_golden_query_term_frequency_multiplies():
    """A term repeated in the query counts qtf times."""
    index = build(GOLDEN_DOCS)
    once = index.search("c")
    twice = index.search("c c")
    assert [h.docid for h in twice] == [h.docid for h in once] == ["d4", "d2"]
    assert [h.score for h in twice] == pytest.approx([2 * h.score for h in once], rel=1e-6)


def test_golden_long_document_uses_lossy_length():
    """A 41-token document is seen as 40 tokens long in Lucene mode, 41 in exact mode."""
    index = build([("long", " ".join(["x"] * 41)), ("short", "y")])
    # N = 2, total = 42, avgdl = 21, df(x) = 1: idf = ln(1 + 1.5/1.5) = ln 2.
    lucene = math.log(2) * 41 / (41 + 0.9 * (0.6 + 0.4 * 40 / 21))
    exact = math.log(2) * 41 / (41 + 0.9 * (0.6 + 0.4 * 41 / 21))
    assert index.search("x")[0].score == pytest.approx(lucene, rel=1e-6)
    assert index.search("x", length="exact")[0].score == pytest.approx(exact, rel=1e-6)
    assert lucene != pytest.approx(exact, rel=1e-6)


# Variant golden values: d1 "a b a" (dl 3), d2 "b c" (dl 2), d3 "c" (dl 1);
# exact lengths, N = 3, avgdl = 2, k1 = 1.2, b = 0.75.
# d1, query "a b": a has tf 2, df 1; b has tf 1, df 2; norm = 0.25 + 0.75*3/2 = 1.375.
_NORM = 0.25 + 0.75 * 3 / 2
_C_A, _C_B = 2 / _NORM, 1 / _NORM
GOLDEN_VARIANTS = {
    "lucene": math.log(1 + 2.5 / 1.5) * 2 / (2 + 1.2 * _NORM)
    + math.log(1 + 1.5 / 2.5) * 1 / (1 + 1.2 * _NORM),
    "robertson": math.log(2.5 / 1.5) * 2 / (2 + 1.2 * _NORM)
    + math.log(1.5 / 2.5) * 1 / (1 + 1.2 * _NORM),
    "atire": math.log(3 / 1) * 2.2 * 2 / (2 + 1.2 * _NORM)
    + math.log(3 / 2) * 2.2 * 1 / (1 + 1.2 * _NORM),
    "bm25l": math.log(4 / 1.5) * 2.2 * (_C_A + 0.5) / (1.2 + _C_A + 0.5)
    + math.log(4 / 2.5) * 2.2 * (_C_B + 0.5) / (1.2 + _C_B + 0.5),
    "bm25+": math.log(4 / 1) * (2.2 * 2 / (2 + 1.2 * _NORM) + 1.0)
    + math.log(4 / 2) * (2.2 * 1 / (1 + 1.2 * _NORM) + 1.0),
}


@pytest.mark.parametrize("variant", ref.VARIANTS)
def test_golden_variants(variant):
    """Each variant's score of d1 for "a b", worked out by hand (default δ)."""
    index = build([("d1", "a b a"), ("d2", "b c"), ("d3", "c")])
    hits = index.search("a b", k1=1.2, b=0.75, variant=variant, length="exact")
    [d1] = [h for h in hits if h.docid == "d1"]
    assert d1.score == pytest.approx(GOLDEN_VARIANTS[variant], rel=1e-6)


def test_golden_robertson_negative_idf_still_returned():
    """Robertson's idf is negative for a term in most documents; such matches are still hits."""
    index = build([("d1", "a"), ("d2", "a"), ("d3", "a b")])
    # df(a) = 3 = N: idf = ln(0.5/3.5) < 0; norm with b = 0 is 1.
    want = math.log(0.5 / 3.5) * 1 / (1 + 0.9)
    hits = index.search("a", variant="robertson", b=0.0, length="exact")
    assert [h.docid for h in hits] == ["d1", "d2", "d3"]
    assert [h.score for h in hits] == pytest.approx([want] * 3, rel=1e-6)
    assert want < 0


def test_golden_bm25_explicit_delta():
    """An explicit δ replaces the default of BM25+ (k1 = 0: the term part is 1 + δ)."""
    index = build([("d1", "a"), ("d2", "b")])
    # N = 2, df = 1: idf = ln(3/1); (k1+1)*tf/(tf + 0) + δ = 1 + 2.5.
    [hit] = index.search("a", variant="bm25+", k1=0.0, delta=2.5, length="exact")
    assert hit.score == pytest.approx(math.log(3) * 3.5, rel=1e-6)


def test_golden_tfidf():
    """TF-IDF cosine of a two-document corpus, with an unknown query term in the norm."""
    index = build([("d1", "a b"), ("d2", "a a c")])
    # N = 2: idf(a) = ln(3/3) + 1 = 1, idf(b) = idf(c) = ln(3/2) + 1.
    idf_bc = math.log(1.5) + 1
    norm_d1 = math.sqrt(1 + idf_bc**2)
    norm_d2 = math.sqrt((1 + math.log(2)) ** 2 + idf_bc**2)
    q = 1 / math.sqrt(2)  # "a" and the unknown "z", each 1 + ln 1 = 1
    d1 = q * 1 / norm_d1
    d2 = q * (1 + math.log(2)) / norm_d2
    hits = index.search("a z", model="tfidf")
    assert [h.docid for h in hits] == ["d2", "d1"]
    assert [h.score for h in hits] == pytest.approx([d2, d1], rel=1e-6)


def test_golden_ties_follow_docid_code_point_order():
    """Equal scores are ordered by docid in code-point (UTF-8 byte) order, not UTF-16 order."""
    docids = ["b", "a", "\U0001f600", "\uffff", "Z", "a0", "é"]
    index = build([(d, "same text") for d in docids])
    for kwargs in ({}, {"model": "tfidf"}, {"variant": "atire", "length": "exact"}):
        hits = index.search("text", k=len(docids), **kwargs)
        assert [h.docid for h in hits] == sorted(docids)
        assert len({h.score for h in hits}) == 1
        top3 = index.search("text", k=3, **kwargs)
        assert [h.docid for h in top3] == sorted(docids)[:3]


def test_golden_only_documents_sharing_a_term_are_returned():
    """Documents without a query term are never hits, even when k asks for more."""
    index = build(GOLDEN_DOCS)
    assert [h.docid for h in index.search("a", k=10)] == ["d1"]
    assert index.search("nothing here", k=10) == []


def test_golden_k1_zero_gives_the_idf():
    """With k1 = 0 a Lucene BM25 term scores its idf, whatever tf and length."""
    index = build([("d1", "a a a a b"), ("d2", "a"), ("d3", "c")])
    idf = math.log(1 + 1.5 / 2.5)  # N = 3, df(a) = 2
    hits = index.search("a", k1=0.0)
    assert [h.docid for h in hits] == ["d1", "d2"]
    assert [h.score for h in hits] == pytest.approx([idf, idf], rel=1e-6)
