"""``rserini.Bm25``: one value for BM25's parameters, taken as ``scoring=`` everywhere.

The loose keywords (``k1=``, ``b=``, ``variant=`` ...) are sugar for it: every entry
point gives the same results either way, refuses both at once, and checks values in the
one place ``Bm25`` does. Defaults and option names come from the core, once.
"""

from __future__ import annotations

import copy
import math
import pickle
import random
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rserini
from rserini import (
    BM25_VARIANTS,
    DEFAULT_B,
    DEFAULT_K1,
    LENGTH_MODES,
    Analyzer,
    AnalyzerError,
    Bm25,
    Index,
    QueryError,
)
from rserini.pyserini import LuceneSearcher, NotSupportedError

WORDS = "network packet router switch frame plant energy sunlight asteroid orbit data".split()  # noqa: SIM905


@pytest.fixture(scope="module")
def index() -> Index:
    """Documents of varied lengths, so that b, the variants and the length modes matter."""
    rng = random.Random(7)
    docs = [
        (f"d{i}", " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 40)))) for i in range(60)
    ]
    return Index.build(docs, progress=False)


QUERIES = ["network packet", "plant energy sunlight", "orbit", "router switch data frame"]

bm25_values = st.builds(
    Bm25,
    k1=st.floats(0.0, 30.0),
    b=st.floats(0.0, 1.0),
    variant=st.sampled_from(BM25_VARIANTS),
    length=st.sampled_from(LENGTH_MODES),
    delta=st.none() | st.floats(0.0, 3.0),
)


def keywords(scoring: Bm25) -> dict[str, Any]:
    """The loose keywords that mean ``scoring``."""
    return {
        "k1": scoring.k1,
        "b": scoring.b,
        "variant": scoring.variant,
        "length": scoring.length,
        "delta": scoring.delta,
    }


# --- the value --------------------------------------------------------------------------


def test_the_defaults_are_the_core_s() -> None:
    default = Bm25()
    assert (DEFAULT_K1, DEFAULT_B) == (0.9, 0.4)
    assert (default.k1, default.b) == (DEFAULT_K1, DEFAULT_B)
    assert (default.variant, default.length, default.delta) == ("lucene", "lucene", None)
    assert BM25_VARIANTS == ("lucene", "robertson", "atire", "bm25l", "bm25+")
    assert LENGTH_MODES == ("lucene", "exact")
    assert rserini.DEFAULT_MU == 1000.0
    assert rserini.MODELS == ("bm25", "tfidf", "qld")


@settings(max_examples=40, deadline=None)
@given(value=bm25_values)
def test_repr_eq_hash_and_pickle_give_back_the_same_value(value: Bm25) -> None:
    assert eval(repr(value), {"Bm25": Bm25}) == value
    again = pickle.loads(pickle.dumps(value))
    assert again == value and hash(again) == hash(value) and repr(again) == repr(value)
    assert copy.deepcopy(value) == value
    assert Bm25(*pickle.loads(pickle.dumps(value)).__reduce__()[1]) == value


def test_equality_is_by_value() -> None:
    assert Bm25(1, 0.5) == Bm25(k1=1.0, b=0.5)
    assert Bm25(-0.0, 0.0) == Bm25(0.0, -0.0) and hash(Bm25(-0.0)) == hash(Bm25(0.0))
    assert Bm25(1.2) != Bm25(1.3) and Bm25(variant="bm25l") != Bm25(variant="bm25+")
    # The delta as given: None (the variant's default) is not the same value as 0.5.
    assert Bm25(variant="bm25l") != Bm25(variant="bm25l", delta=0.5)
    assert Bm25() != (0.9, 0.4) and Bm25() != "Bm25()"
    assert len({Bm25(), Bm25(0.9, 0.4), Bm25(1.2)}) == 2
    assert repr(Bm25(1, 0.75, "bm25+", "exact", 0.25)) == (
        "Bm25(k1=1.0, b=0.75, variant='bm25+', length='exact', delta=0.25)"
    )


def test_the_value_is_frozen() -> None:
    value = Bm25()
    for name in ("k1", "b", "variant", "length", "delta"):
        with pytest.raises(AttributeError):
            setattr(value, name, 1.0)
    with pytest.raises(AttributeError):
        value.other = 1  # type: ignore[attr-defined]
    assert value == Bm25()


BAD = [
    ({"k1": -0.1}, QueryError, r"^k1 must be a finite number >= 0, at most .* \(got -0\.1\)"),
    ({"k1": math.nan}, QueryError, r"^k1 must be a finite number >= 0"),
    ({"k1": math.inf}, QueryError, r"^k1 must be a finite number >= 0"),
    ({"k1": 1e39}, QueryError, r"^k1 must be a finite number >= 0, at most .*\(float32\)"),
    ({"b": 1.01}, QueryError, r"^b must be between 0 and 1 \(got 1\.01\)"),
    ({"b": -0.01}, QueryError, r"^b must be between 0 and 1 \(got -0\.01\)"),
    ({"b": math.nan}, QueryError, r"^b must be between 0 and 1"),
    ({"delta": -1.0}, QueryError, r"^delta must be between 0 and 1000"),
    ({"delta": math.inf}, QueryError, r"^delta must be between 0 and 1000"),
    ({"variant": "bm26"}, QueryError, r'^unknown BM25 variant "bm26"; choose one of lucene, '),
    ({"length": "approx"}, QueryError, r'^unknown length mode "approx"; choose "lucene"'),
]


@pytest.mark.parametrize(("bad", "error", "message"), BAD, ids=[str(b[0]) for b in BAD])
def test_every_bad_value_raises_the_same_precise_error_everywhere(
    index: Index, bad: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message) as from_value:
        Bm25(**bad)
    # The keywords are checked by the same code, with the same words.
    with pytest.raises(error) as from_keywords:
        index.search("network", **bad)
    assert str(from_keywords.value) == str(from_value.value)
    with pytest.raises(error) as from_batch:
        index.batch_search(QUERIES, 5, **bad)
    assert str(from_batch.value) == str(from_value.value)


def test_a_value_of_the_wrong_type_is_a_type_error(index: Index) -> None:
    with pytest.raises(TypeError):
        Bm25(k1="0.9")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"^Index\.search\(\) argument 'k1': "):
        index.search("network", k1="0.9")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="scoring"):
        index.search("network", scoring=(0.9, 0.4))  # type: ignore[arg-type]


# --- scoring= is the keywords ------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(scoring=bm25_values)
def test_scoring_gives_what_the_keywords_give_on_every_entry_point(
    index: Index, scoring: Bm25
) -> None:
    loose = keywords(scoring)
    for query in QUERIES:
        assert index.search(query, 10, scoring=scoring) == index.search(query, 10, **loose)
        assert index.search_pairs(query, 60, scoring=scoring) == index.search_pairs(
            query, 60, **loose
        )
    ids, scores = index.batch_search(QUERIES, 20, scoring=scoring)
    loose_ids, loose_scores = index.batch_search(QUERIES, 20, **loose)
    np.testing.assert_array_equal(ids, loose_ids)
    np.testing.assert_array_equal(scores, loose_scores)
    assert index.batch_search_pairs(QUERIES, 20, scoring=scoring) == index.batch_search_pairs(
        QUERIES, 20, **loose
    )
    docid = index.search_pairs(QUERIES[0], 1)[0][0]
    assert str(index.explain(QUERIES[0], docid, scoring=scoring)) == str(
        index.explain(QUERIES[0], docid, **loose)
    )


def test_scoring_changes_the_ranking(index: Index) -> None:
    # So that the equalities above cannot hold by the parameters being ignored.
    base = index.search_pairs("network packet", 60)
    assert index.search_pairs("network packet", 60, scoring=Bm25(1.2, 0.9)) != base
    assert index.search_pairs("network packet", 60, scoring=Bm25(variant="bm25+")) != base
    assert index.search_pairs("network packet", 60, scoring=Bm25()) == base


@settings(max_examples=10, deadline=None)
@given(k1=st.floats(0.0, 5.0), b=st.floats(0.0, 1.0))
def test_feedback_takes_scoring_as_its_first_stage(index: Index, k1: float, b: float) -> None:
    scoring = Bm25(k1, b)
    for batch, expand in (
        (index.batch_search_rm3, index.rm3_query),
        (index.batch_search_rocchio, index.rocchio_query),
    ):
        ids, scores = batch(QUERIES, 10, scoring=scoring)
        loose_ids, loose_scores = batch(QUERIES, 10, k1=k1, b=b)
        np.testing.assert_array_equal(ids, loose_ids)
        np.testing.assert_array_equal(scores, loose_scores)
        assert expand(QUERIES[0], scoring=scoring) == expand(QUERIES[0], k1=k1, b=b)


def test_feedback_runs_over_lucene_bm25_only(index: Index) -> None:
    for scoring in (Bm25(variant="bm25+"), Bm25(length="exact")):
        with pytest.raises(QueryError, match=r"^RM3 feedback runs over Lucene's BM25"):
            index.batch_search_rm3(QUERIES, 10, scoring=scoring)
        with pytest.raises(QueryError, match=r"^Rocchio feedback runs over Lucene's BM25"):
            index.rocchio_query(QUERIES[0], scoring=scoring)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'variant'"):
        index.rm3_query(QUERIES[0], variant="lucene")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'delta'"):
        index.rocchio_query(QUERIES[0], delta=None)  # type: ignore[call-arg]


CALLS = {
    "search": lambda i, **kw: i.search("network", **kw),
    "search_pairs": lambda i, **kw: i.search_pairs("network", **kw),
    "batch_search": lambda i, **kw: i.batch_search(QUERIES, **kw),
    "batch_search_pairs": lambda i, **kw: i.batch_search_pairs(QUERIES, **kw),
    "explain": lambda i, **kw: i.explain("network", "d1", **kw),
    "batch_search_rm3": lambda i, **kw: i.batch_search_rm3(QUERIES, **kw),
    "batch_search_rocchio": lambda i, **kw: i.batch_search_rocchio(QUERIES, **kw),
    "rm3_query": lambda i, **kw: i.rm3_query("network", **kw),
    "rocchio_query": lambda i, **kw: i.rocchio_query("network", **kw),
}


@pytest.mark.parametrize("method", CALLS)
def test_scoring_and_a_keyword_together_is_a_type_error(index: Index, method: str) -> None:
    call = CALLS[method]
    with pytest.raises(
        TypeError,
        match=rf"^Index\.{method}\(\) takes scoring= or the keywords .*k1.*, not both "
        r"\(got scoring= and b=\)$",
    ):
        call(index, scoring=Bm25(), b=0.4)
    with pytest.raises(TypeError, match=rf"^Index\.{method}\(\) got an unexpected keyword "):
        call(index, k2=1.0)
    call(index, scoring=Bm25())  # alone, it is fine


def test_only_bm25_keywords_conflict_with_scoring(index: Index) -> None:
    with pytest.raises(TypeError, match=r"\(got scoring= and model=, mu=\)$"):
        index.search("network", scoring=Bm25(), model="qld", mu=100.0)
    # delta=None is the default said out loud, not a second scoring.
    assert index.search("network", scoring=Bm25(), delta=None) == index.search("network")


# --- the Pyserini facade and tune --------------------------------------------------------


def test_lucene_searcher_takes_scoring(index: Index) -> None:
    searcher = LuceneSearcher(index, scoring=Bm25(1.2, 0.75))
    assert (searcher.k1, searcher.b) == (float(np.float32(1.2)), 0.75)
    other = LuceneSearcher(index)
    assert other.scoring == Bm25(float(np.float32(DEFAULT_K1)), float(np.float32(DEFAULT_B)))
    other.set_bm25(1.2, 0.75)
    assert searcher.scoring == other.scoring
    assert [(h.docid, h.score) for h in searcher.search("network packet", 20)] == [
        (h.docid, h.score) for h in other.search("network packet", 20)
    ]
    with pytest.raises(NotSupportedError, match="Lucene's BM25"):
        LuceneSearcher(index, scoring=Bm25(variant="atire"))
    with pytest.raises(QueryError, match="b must be between 0 and 1"):
        other.set_bm25(0.9, 2.0)


def test_tune_takes_scoring_for_every_cell(index: Index) -> None:
    from rserini import tune

    queries = [(f"q{i}", q) for i, q in enumerate(QUERIES)]
    qrels = {
        qid: {docid: 1 for docid, _ in index.search_pairs(text, 3, k1=3.0, b=1.0)}
        for qid, text in queries
    }
    scoring = Bm25(variant="bm25+", length="exact", delta=0.5)
    shaped = tune.grid(
        index, queries, qrels, [0.5, 2.0], [0.3, 1.0], metric="nDCG@5", scoring=scoring
    )
    loose = tune.grid(
        index, queries, qrels, [0.5, 2.0], [0.3, 1.0], metric="nDCG@5",
        variant="bm25+", length="exact", delta=0.5,
    )  # fmt: skip
    assert shaped.rows == loose.rows

    class Recording:
        """The index, noting the scoring of each batch search."""

        def __init__(self) -> None:
            self.seen: list[Bm25] = []

        def __getattr__(self, name: str) -> Any:
            return getattr(index, name)

        def batch_search(self, *args: Any, **kwargs: Any) -> Any:
            self.seen.append(kwargs["scoring"])
            return index.batch_search(*args, **kwargs)

    recording = Recording()
    tune.grid(recording, queries, qrels, [0.5, 2.0], [0.3], scoring=scoring)  # type: ignore[arg-type]
    assert recording.seen == [
        Bm25(0.5, 0.3, "bm25+", "exact", 0.5),
        Bm25(2.0, 0.3, "bm25+", "exact", 0.5),
    ]
    with pytest.raises(TypeError, match="not both"):
        tune.grid(index, queries, qrels, [1.0], [0.5], scoring=scoring, variant="bm25+")
    assert tune.DEFAULT_K1 is rserini.DEFAULT_K1 and tune.DEFAULT_B is rserini.DEFAULT_B


# --- one home for defaults and names -----------------------------------------------------


def test_python_layers_read_the_core_s_defaults() -> None:
    from rserini import cli, pyserini, tune
    from rserini.cli import parity as parity_cli
    from rserini.parity import _harness

    assert pyserini.DEFAULT_K1 is rserini.DEFAULT_K1 and pyserini.DEFAULT_B is rserini.DEFAULT_B
    assert tune.DEFAULT_K1 is rserini.DEFAULT_K1
    assert _harness.DEFAULT_SETTINGS == ((DEFAULT_K1, DEFAULT_B),)
    args = cli.build_parser().parse_args(["search", "--index", "idx", "q"])
    assert (args.k1, args.b, args.variant, args.length) == (
        DEFAULT_K1,
        DEFAULT_B,
        "lucene",
        "lucene",
    )
    import argparse

    parser = argparse.ArgumentParser()
    parity_cli.add_arguments(parser)
    parsed = parser.parse_args(["--corpus", "c"])
    assert (parsed.k1, parsed.b, parsed.mu) == ([DEFAULT_K1], [DEFAULT_B], rserini.DEFAULT_MU)


@pytest.mark.parametrize("command", ["search", "run", "explain", "tune"])
def test_cli_help_shows_the_core_s_names_and_defaults(command: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "rserini", command, "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    out = " ".join(out.split())  # as argparse wraps it, on one line
    assert "{" + ",".join(BM25_VARIANTS) + "}" in out
    assert "{" + ",".join(LENGTH_MODES) + "}" in out
    assert "--delta" in out
    if command != "tune":
        assert f"(default {DEFAULT_K1:g}, as Pyserini;" in out
        assert f"(default {DEFAULT_B:g}, as Pyserini;" in out
    else:
        assert f"k1={DEFAULT_K1:g}, b={DEFAULT_B:g} marked" in out


def test_analyzer_option_names_are_the_core_s() -> None:
    assert rserini.TOKENIZERS == ("standard", "word", "whitespace")
    assert rserini.STEMMERS == ("none", "porter", "snowball-english", "lucene")
    assert rserini.STOPWORD_LISTS == ("none", "lucene-english")
    for tokenizer in rserini.TOKENIZERS:
        assert Analyzer("plain", tokenizer=tokenizer).config["tokenizer"] == tokenizer
    for stemmer in rserini.STEMMERS[:-1]:
        assert Analyzer("plain", stemmer=stemmer).config["stemmer"] == stemmer
    # "lucene" is a language preset's own stemmer.
    assert Analyzer("lucene-de", stemmer="none").config["stemmer"] == "none"
    with pytest.raises(AnalyzerError, match="a language's own"):
        Analyzer("plain", stemmer="lucene")
    for stopwords in rserini.STOPWORD_LISTS:
        assert Analyzer("plain", stopwords=stopwords).config["stopwords"] == stopwords
    assert Analyzer("plain", stopwords=["a", "b"]).config["stopwords"] == ["a", "b"]
    for option, name in (("tokenizer", "tokenizer"), ("stemmer", "stemmer")):
        with pytest.raises(AnalyzerError, match=rf'^unknown {name} "Porter"; choose "'):
            Analyzer("plain", **{option: "Porter"})
    with pytest.raises(AnalyzerError, match=r'^unknown stopword list "english"; choose "none"'):
        Analyzer("plain", stopwords="english")
