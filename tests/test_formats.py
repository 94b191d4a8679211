"""Readers and writers of TREC runs, TREC and BEIR qrels, topics and BEIR folders."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import rserini
from rserini.formats import (
    beir_collection,
    ranked,
    read_qrels,
    read_queries,
    read_run,
    write_qrels,
    write_queries,
    write_run,
)
from support import collection

RUN = {
    "q1": {"d3": 2.5, "d1": 7.25, "d2": 2.5},
    "q2": {"d9": 0.125},
}
QRELS = {"q1": {"d1": 1, "d4": 0, "d7": 2}, "q2": {"d9": 1}}


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def parse_error_at(excinfo: pytest.ExceptionInfo[rserini.ParseError], path: Path, line: int):
    error = excinfo.value
    assert error.path == str(path)
    assert error.line == line
    assert str(error).startswith(f"{path}:{line}: ")
    return error


# Runs


def test_run_round_trip_ranks_by_score_then_docid(tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    assert write_run(RUN, path, tag="bm25") == 4
    lines = [line.split() for line in path.read_text().splitlines()]
    assert lines == [
        ["q1", "Q0", "d1", "1", "7.250000", "bm25"],
        ["q1", "Q0", "d2", "2", "2.500000", "bm25"],  # tie: docid ascending
        ["q1", "Q0", "d3", "3", "2.500000", "bm25"],
        ["q2", "Q0", "d9", "1", "0.125000", "bm25"],
    ]
    assert read_run(path) == RUN
    assert ranked(RUN["q1"]) == [("d1", 7.25), ("d2", 2.5), ("d3", 2.5)]


def test_run_reader_ignores_rank_column_and_blank_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "run", "\nq1 Q0 a 5 1.5 t\n\n  q1\tQ0\tb\t1\t-2e-3\tt\r\n")
    assert read_run(path) == {"q1": {"a": 1.5, "b": -0.002}}


def test_empty_run_file_reads_as_empty(tmp_path: Path) -> None:
    assert read_run(write(tmp_path / "empty.trec", "")) == {}
    assert read_run(write(tmp_path / "blank.trec", "\n \n")) == {}


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("q1 Q0 a 1 1.0 t\nq1 Q0 b 2 0.5\n", 2, "6 fields"),
        ("q1 Q0 a one 1.0 t\n", 1, "rank 'one' is not an integer"),
        ("q1 Q0 a 1 high t\n", 1, "score 'high' is not a number"),
        ("q1 Q0 a 1 nan t\n", 1, "not finite"),
        ("q1 Q0 a 1 1.0 t\nq2 Q0 a 1 1.0 t\nq1 Q0 a 2 0.5 t\n", 3, "listed twice for query 'q1'"),
    ],
)
def test_malformed_runs_name_file_and_line(tmp_path: Path, text: str, line: int, words: str):
    path = write(tmp_path / "bad.trec", text)
    with pytest.raises(rserini.ParseError) as excinfo:
        read_run(path)
    error = parse_error_at(excinfo, path, line)
    assert words in str(error)
    assert isinstance(error, ValueError)


def test_duplicate_docid_error_points_at_first_occurrence(tmp_path: Path) -> None:
    path = write(tmp_path / "dup.trec", "q Q0 x 1 2 t\nq Q0 y 2 1 t\nq Q0 x 3 0 t\n")
    with pytest.raises(rserini.ParseError, match="first at line 1"):
        read_run(path)


def test_write_run_rejects_ids_with_whitespace(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="docid"):
        write_run({"q": {"a b": 1.0}}, tmp_path / "r")
    with pytest.raises(ValueError, match="run tag"):
        write_run(RUN, tmp_path / "r", tag="two words")


# Qrels


def test_trec_and_beir_qrels_read_the_same(tmp_path: Path) -> None:
    trec = write(tmp_path / "qrels.txt", "q1 0 d1 1\nq1 0 d4 0\nq1 Q0 d7 2\n\nq2 0 d9 1\n")
    beir = write(
        tmp_path / "test.tsv",
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td4\t0\nq1\td7\t2\nq2\td9\t1\n",
    )
    headerless = write(tmp_path / "nohead.tsv", "q1\td1\t1\nq1\td4\t0\nq1\td7\t2\nq2\td9\t1\n")
    assert read_qrels(trec) == QRELS
    assert read_qrels(beir) == QRELS
    assert read_qrels(headerless) == QRELS


def test_qrels_round_trip_in_both_styles(tmp_path: Path) -> None:
    assert write_qrels(QRELS, tmp_path / "q.trec") == 4
    assert write_qrels(QRELS, tmp_path / "q.tsv", style="beir") == 4
    assert (tmp_path / "q.tsv").read_text().splitlines()[0] == "query-id\tcorpus-id\tscore"
    assert (tmp_path / "q.trec").read_text().splitlines()[0] == "q1 0 d1 1"
    assert read_qrels(tmp_path / "q.trec") == QRELS
    assert read_qrels(tmp_path / "q.tsv") == QRELS
    with pytest.raises(ValueError, match="style"):
        write_qrels(QRELS, tmp_path / "x", style="csv")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("q1 0 d1 1\nq1 0 d2\n", 2, "4 fields"),
        ("q1 0 d1 yes\n", 1, "relevance 'yes' is not an integer"),
        ("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\n", 3, "query-id<TAB>corpus-id<TAB>score"),
        ("query-id\tcorpus-id\tscore\nq1\td1\t0.5\n", 2, "not an integer"),
        ("q1 0 d1 1\nq2 0 d1 1\nq1 0 d1 0\n", 3, "judged twice for query 'q1' (first at line 1)"),
        ("just-one-field\n", 1, "expected TREC qrels"),
        ("q1\td1\t1\nq1 0 d2 1\n", 2, "query-id<TAB>corpus-id<TAB>score"),
    ],
)
def test_malformed_qrels_name_file_and_line(tmp_path: Path, text: str, line: int, words: str):
    path = write(tmp_path / "bad.qrels", text)
    with pytest.raises(rserini.ParseError) as excinfo:
        read_qrels(path)
    assert words in str(parse_error_at(excinfo, path, line))


def test_missing_files_are_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_run(tmp_path / "nope.trec")
    with pytest.raises(FileNotFoundError):
        read_qrels(tmp_path / "nope.tsv")


# Topics


def test_queries_round_trip_as_jsonl_and_tsv(tmp_path: Path) -> None:
    queries = [("q1", "what is bm25"), ("q2", "naïve “quotes” and émoji 😀")]
    assert write_queries(queries, tmp_path / "queries.jsonl") == 2
    assert write_queries(queries, tmp_path / "queries.tsv") == 2
    assert read_queries(tmp_path / "queries.jsonl") == queries
    assert read_queries(tmp_path / "queries.tsv") == queries
    first = json.loads((tmp_path / "queries.jsonl").read_text().splitlines()[0])
    assert first == {"_id": "q1", "text": "what is bm25"}
    with pytest.raises(ValueError, match="tab or line break"):
        write_queries([("q", "two\tcolumns")], tmp_path / "bad.tsv")


def test_malformed_topics_raise_parse_error_with_line(tmp_path: Path) -> None:
    path = write(tmp_path / "queries.tsv", "q1\tfine\nno tab here\n")
    with pytest.raises(rserini.ParseError) as excinfo:
        read_queries(path)
    assert excinfo.value.line == 2


# BEIR folders


def make_beir(folder: Path, *, gz: bool = False) -> Path:
    (folder / "qrels").mkdir(parents=True)
    docs = [{"_id": "d1", "title": "T", "text": "x"}, {"_id": "d2", "title": "", "text": "y"}]
    body = "".join(json.dumps(d) + "\n" for d in docs).encode()
    if gz:
        (folder / "corpus.jsonl.gz").write_bytes(gzip.compress(body))
    else:
        (folder / "corpus.jsonl").write_bytes(body)
    write_queries([("q1", "x"), ("q2", "y"), ("q3", "unjudged")], folder / "queries.jsonl")
    write_qrels({"q1": {"d1": 1}, "q2": {"d2": 1}}, folder / "qrels" / "test.tsv", style="beir")
    return folder


@pytest.mark.parametrize("gz", [False, True])
def test_beir_collection_finds_its_files(tmp_path: Path, gz: bool) -> None:
    beir = beir_collection(make_beir(tmp_path / "mini", gz=gz))
    assert beir.name == "mini"
    assert beir.corpus.name == ("corpus.jsonl.gz" if gz else "corpus.jsonl")
    assert [q for q, _ in beir.queries()] == ["q1", "q2", "q3"]
    assert [q for q, _ in beir.queries(judged_only=True)] == ["q1", "q2"]
    assert beir.qrels() == {"q1": {"d1": 1}, "q2": {"d2": 1}}
    index = rserini.Index.from_jsonl(beir.corpus, progress=False)
    assert len(index) == 2


def test_beir_collection_names_what_is_missing(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "mini")
    with pytest.raises(FileNotFoundError, match=r"dev\.tsv"):
        beir_collection(folder, split="dev")
    (folder / "queries.jsonl").unlink()
    with pytest.raises(FileNotFoundError, match=r"queries\.jsonl"):
        beir_collection(folder)
    (folder / "corpus.jsonl").unlink()
    with pytest.raises(FileNotFoundError, match=r"no corpus\.jsonl"):
        beir_collection(folder)
    with pytest.raises(FileNotFoundError, match="not a BEIR collection folder"):
        beir_collection(tmp_path / "absent")


def test_beir_collection_overrides(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "mini")
    other = write(tmp_path / "other.tsv", "q9\tnine\n")
    beir = beir_collection(folder, queries=other)
    assert beir.queries() == [("q9", "nine")]


@pytest.mark.parametrize(
    ("name", "queries", "judged"),
    [("scifact", 300, 300), ("cacm", 64, 52), ("cranfield", 225, 225), ("npl", 93, 93)],
)
def test_real_beir_folders(name: str, queries: int, judged: int) -> None:
    beir = beir_collection(collection(name))
    assert len(beir.queries()) == queries
    assert len(beir.qrels()) == judged
    assert len(beir.queries(judged_only=True)) == judged
