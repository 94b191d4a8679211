"""Numeric arguments at their limits: k, k1, b, delta, and the command line's errors.

Every bad value gets the exact exception class naming the argument; the command line
prints ``rserini: error:`` and exits with status 1, never a traceback.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hang_guard import run_python

import rserini
from rserini import QueryError
from rserini.pyserini import LuceneSearcher
from rserini.tune import grid

F32_MAX = float(np.finfo(np.float32).max)
# The smallest float64 that rounds to float32 infinity (round to nearest).
F32_OVERFLOW = float(np.nextafter(np.float64(F32_MAX) + 2.0**103, np.inf))


@pytest.fixture(scope="module")
def index() -> rserini.Index:
    return rserini.Index.build(
        [("d1", "routers forward packets"), ("d2", "switches forward frames")], progress=False
    )


# ---------------------------------------------------------------------------------------
# k


def searches(index: rserini.Index) -> dict[str, Any]:
    return {
        "search": lambda k: index.search("packets", k=k),
        "search_pairs": lambda k: index.search_pairs("packets", k=k),
        "batch_search": lambda k: index.batch_search(["packets"], k=k),
        "batch_search_pairs": lambda k: index.batch_search_pairs(["packets"], k=k),
    }


@pytest.mark.parametrize("call", ["search", "search_pairs", "batch_search", "batch_search_pairs"])
@pytest.mark.parametrize("k", [0, -1, 2**63, 10**20, -(2**80), 2**200])
def test_k_out_of_range_is_a_query_error(index: rserini.Index, call: str, k: int) -> None:
    with pytest.raises(QueryError, match=r"^k must be a") as e:
        searches(index)[call](k)
    assert str(k) in str(e.value)


@pytest.mark.parametrize("call", ["search", "search_pairs", "batch_search", "batch_search_pairs"])
@pytest.mark.parametrize("k", [1.5, None, "3", True, 3.0])
def test_k_of_the_wrong_type_is_a_type_error(index: rserini.Index, call: str, k: object) -> None:
    with pytest.raises(TypeError, match="k must be an int"):
        searches(index)[call](k)


def test_the_largest_k_is_accepted(index: rserini.Index) -> None:
    assert index.search_pairs("packets", k=2**63 - 1) == index.search_pairs("packets")
    ids, _ = index.batch_search(["packets"], k=2**63 - 1)
    assert ids.shape == (1, 2)


# ---------------------------------------------------------------------------------------
# k1, b, delta: finite in float32, where scores are computed


def bm25_entry_points(index: rserini.Index) -> dict[str, Any]:
    searcher = LuceneSearcher(index)

    def tune(k1: float, b: float) -> None:
        grid(index, [("q1", "packets")], {"q1": {"d1": 1}}, k1s=[k1], bs=[b])

    return {
        "search": lambda k1, b, **kw: index.search("packets", k1=k1, b=b, **kw),
        "batch_search": lambda k1, b, **kw: index.batch_search(["packets"], k1=k1, b=b, **kw),
        "explain": lambda k1, b, **kw: index.explain("packets", "d1", k1=k1, b=b, **kw),
        "set_bm25": lambda k1, b, **kw: searcher.set_bm25(k1, b),
        "tune": lambda k1, b, **kw: tune(k1, b),
    }


ENTRY_POINTS = ["search", "batch_search", "explain", "set_bm25", "tune"]


@pytest.mark.parametrize("where", ENTRY_POINTS)
@pytest.mark.parametrize("k1", [1e39, F32_OVERFLOW, 1e308, math.inf, math.nan, -1.0])
def test_k1_beyond_float32_is_a_query_error(index: rserini.Index, where: str, k1: float) -> None:
    with pytest.raises(QueryError, match="k1 must be a finite number >= 0"):
        bm25_entry_points(index)[where](k1, 0.4)


@pytest.mark.parametrize("where", ENTRY_POINTS)
@pytest.mark.parametrize("b", [1.0000001, -1e-300, math.nan, 1e39])
def test_b_outside_the_unit_interval(index: rserini.Index, where: str, b: float) -> None:
    with pytest.raises(QueryError, match="b must be between 0 and 1"):
        bm25_entry_points(index)[where](0.9, b)


@pytest.mark.parametrize("where", ["search", "batch_search", "explain"])
@pytest.mark.parametrize("variant", ["bm25l", "bm25+"])
@pytest.mark.parametrize("delta", [3.4e38, 1000.0001, 1e39, F32_OVERFLOW, math.inf, math.nan, -0.5])
def test_delta_out_of_range_is_a_query_error(
    index: rserini.Index, where: str, variant: str, delta: float
) -> None:
    # D10: delta = 3.4e38 (finite in float32) scored every bm25+ hit inf.
    with pytest.raises(QueryError, match="delta must be between 0 and 1000"):
        bm25_entry_points(index)[where](0.9, 0.4, variant=variant, delta=delta)


@pytest.mark.parametrize("variant", ["bm25l", "bm25+"])
def test_the_largest_delta_scores_finitely(index: rserini.Index, variant: str) -> None:
    long = rserini.Index.build(
        [(f"d{i}", "packets " * (1 + i % 7) + "filler " * i) for i in range(200)], progress=False
    )
    query = " ".join(["packets"] * 5000)
    for ix in (index, long):
        hits = ix.search_pairs(query, k=200, k1=F32_MAX, b=1.0, variant=variant, delta=1000.0)
        assert hits and all(math.isfinite(s) for _, s in hits)


@pytest.mark.parametrize("mu", [0.0, 1e-300, 1e-40, -1.0, math.nan, math.inf, 1e39])
def test_qld_mu_must_be_a_normal_positive_float32(index: rserini.Index, mu: float) -> None:
    # N9: mu = 0 (or 1e-300) scored every match 0.0 and ranked by docid.
    with pytest.raises(QueryError, match="mu must be a finite number > 0"):
        index.search_pairs("packets", model="qld", mu=mu)


def test_the_smallest_normal_mu_ranks(index: rserini.Index) -> None:
    mu = float(np.finfo(np.float32).tiny)
    assert [d for d, _ in index.search_pairs("packets", model="qld", mu=mu)] == ["d1"]


@pytest.mark.parametrize("where", ENTRY_POINTS)
def test_the_largest_float32_k1_is_accepted(index: rserini.Index, where: str) -> None:
    bm25_entry_points(index)[where](F32_MAX, 0.4)


@pytest.mark.parametrize("variant", ["lucene", "atire", "bm25l", "bm25+"])
def test_large_finite_parameters_score_finitely(index: rserini.Index, variant: str) -> None:
    """The largest parameters the check lets through still give finite scores."""
    hits = index.search_pairs("packets", k1=1e30, variant=variant)
    assert [d for d, _ in hits] == ["d1"]
    assert all(math.isfinite(s) for _, s in hits)


# ---------------------------------------------------------------------------------------
# The command line: rserini: error:, never a traceback


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cli")
    corpus = folder / "corpus.jsonl"
    corpus.write_text(
        "\n".join(
            json.dumps({"id": d, "contents": t})
            for d, t in [("d1", "routers forward packets"), ("d2", "switches forward frames")]
        )
        + "\n"
    )
    rserini.Index.from_jsonl(corpus, progress=False).save(folder / "idx")
    (folder / "queries.tsv").write_text("q1\tforward packets\n")
    return folder


def cli(*args: object) -> Any:
    code = "import sys; from rserini.cli import main; sys.exit(main(sys.argv[1:]))"
    return run_python(code, *map(str, args), timeout=60)


def assert_clean_error(out: Any, *words: str) -> None:
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr
    assert out.stderr.startswith("rserini: error:"), out.stderr
    for word in words:
        assert word in out.stderr, out.stderr


@pytest.mark.parametrize("k", ["99999999999999999999", "-99999999999999999999", "0"])
def test_cli_search_with_an_absurd_k(saved: Path, k: str) -> None:
    out = cli("search", "--index", saved / "idx", "--k", k, "packets")
    assert_clean_error(out, "k must be a")


@pytest.mark.parametrize("pyserini", [False, True])
def test_cli_run_with_an_absurd_k(saved: Path, pyserini: bool) -> None:
    args = ["run", "--index", saved / "idx", "--queries", saved / "queries.tsv"]
    args += ["--output", saved / "run.trec", "--k", "99999999999999999999"]
    out = cli(*args, *(["--pyserini"] if pyserini else []))
    assert_clean_error(out, "k must be a", "99999999999999999999")


@pytest.mark.parametrize("threads", ["0", "99999999999999999999"])
def test_cli_run_with_absurd_threads(saved: Path, threads: str) -> None:
    args = ["run", "--index", saved / "idx", "--queries", saved / "queries.tsv"]
    out = cli(*args, "--output", saved / "run.trec", "--threads", threads)
    assert_clean_error(out, "threads must be at least 1")


def test_cli_search_with_k1_beyond_float32(saved: Path) -> None:
    out = cli("search", "--index", saved / "idx", "--k1", "1e39", "packets")
    assert_clean_error(out, "k1 must be a finite number")


@pytest.mark.parametrize("which", ["run", "qrels"])
def test_cli_eval_of_a_file_that_is_not_utf8(saved: Path, which: str) -> None:
    run = saved / f"run-{which}.trec"
    qrels = saved / f"qrels-{which}.txt"
    run.write_bytes(
        b"q1 Q0 d1 1 2.5 tag\n" + (b"q1 Q0 d\xff2 2 1.5 tag\n" if which == "run" else b"")
    )
    qrels.write_bytes(b"q1 0 d1 1\n" + (b"q1 0 d\xfe2 1\n" if which == "qrels" else b""))
    out = cli("eval", "--qrels", qrels, "--run", run, "--metrics", "nDCG@10")
    bad = run if which == "run" else qrels
    assert_clean_error(out, f"{bad}:2:", "not UTF-8")


def test_cli_errors_run_in_process_too(saved: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same errors through main() in this process (no subprocess)."""
    from rserini.cli import main

    assert main(["search", "--index", str(saved / "idx"), "--k", str(10**20), "x"]) == 1
    assert capsys.readouterr().err.startswith("rserini: error: k must be a")
