"""``rserini run`` never writes a malformed TREC run.

A TREC run separates its six columns by whitespace: a docid or query id holding
whitespace would shift them. ``rserini run`` refuses such ids with a clear error and
writes no file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hang_guard import run_python

import rserini
from rserini import DocumentError, QueryError
from rserini.formats import check_run_ids

BAD = ["a b", "tab\there", "new\nline", "nbsp\u00a0id", "ideographic\u3000space", " lead"]


def cli(*args: object) -> Any:
    code = "import sys; from rserini.cli import main; sys.exit(main(sys.argv[1:]))"
    return run_python(code, *map(str, args), timeout=60)


def corpus(folder: Path, docid: str) -> Path:
    path = folder / "corpus.jsonl"
    rows = [{"id": "ok", "contents": "packets travel"}, {"id": docid, "contents": "packets"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    index = folder / "idx"
    rserini.Index.from_jsonl(path, progress=False).save(index)
    return index


def run(folder: Path, docid: str, *flags: str, queries: str = "q1\tpackets\n") -> Any:
    """``rserini run`` over a two-document index holding ``docid``: (outcome, run path).

    ``queries`` is a ``qid<TAB>text`` file, or JSONL when it starts with ``{``.
    """
    index = corpus(folder, docid)
    path = folder / ("queries.jsonl" if queries.startswith("{") else "queries.tsv")
    path.write_text(queries)
    output = folder / "run.trec"
    return cli("run", "--index", index, "--queries", path, "--output", output, *flags), output


@pytest.mark.parametrize(
    ("docid", "pyserini"),
    # Pyserini strips docids as it writes them, and --pyserini does as it does.
    [(d, False) for d in BAD] + [(d, True) for d in BAD if d == d.strip()],
)
def test_run_refuses_a_docid_with_whitespace(tmp_path: Path, docid: str, pyserini: bool) -> None:
    out, output = run(tmp_path, docid, *(["--pyserini"] if pyserini else []))
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr
    assert out.stderr.startswith(f"rserini: error: docid {docid!r} is empty or contains")
    assert "contains whitespace, which a TREC run cannot hold" in out.stderr
    assert not output.exists()


def test_run_as_pyserini_strips_docids_as_pyserini_does(tmp_path: Path) -> None:
    out, output = run(tmp_path, " lead ", "--pyserini")
    assert out.returncode == 0, out.stderr
    assert [line.split()[2] for line in output.read_text().splitlines()] == ["lead", "ok"]


@pytest.mark.parametrize("qid", ["q 1", "q\u00a01"])
def test_run_refuses_a_query_id_with_whitespace(tmp_path: Path, qid: str) -> None:
    out, output = run(tmp_path, "fine", queries=json.dumps({"_id": qid, "text": "packets"}))
    assert out.returncode == 1, out.stderr
    assert out.stderr.startswith(f"rserini: error: query id {qid!r}")
    assert not output.exists()


def test_run_with_clean_ids_still_writes_every_line(tmp_path: Path) -> None:
    out, output = run(tmp_path, "fine")
    assert out.returncode == 0, out.stderr
    lines = output.read_text().splitlines()
    assert [line.split()[:4] for line in lines] == [
        ["q1", "Q0", "fine", "1"],
        ["q1", "Q0", "ok", "2"],
    ]
    assert all(len(line.split()) == 6 for line in lines)


def test_check_run_ids() -> None:
    check_run_ids("q1", ["a", "b-c", "d.e"])
    check_run_ids("q1", [])
    with pytest.raises(DocumentError, match=r"docid 'b c' is empty or contains whitespace"):
        check_run_ids("q1", ["a", "b c"])
    with pytest.raises(DocumentError, match="docid '' is empty"):
        check_run_ids("q1", [""])
    with pytest.raises(QueryError, match=r"query id 'q 1'"):
        check_run_ids("q 1", ["a"])
    # Also ValueErrors, as write_run documents.
    with pytest.raises(ValueError):
        check_run_ids("q1", ["x\u2003y"])
