"""The command line, run as a user would (a subprocess of the installed package)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from rserini import INDEX_FORMAT_VERSION
from support import TINY


def rserini(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rserini", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_help_explains_every_command() -> None:
    out = rserini("--help")
    assert out.returncode == 0
    for command in ("index", "search", "run", "explain"):
        assert command in out.stdout
    out = rserini("search", "--help")
    assert "--k1" in out.stdout and ".gitignore" in out.stdout


def test_index_search_run_explain(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(json.dumps({"_id": d, "title": "", "text": t}) + "\n" for d, t in TINY)
    )
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\tnetwork packets\nd3\tMars Jupiter asteroid\nq3\tzzz\n")
    out = rserini("index", "--input", corpus, "--index", tmp_path / "idx")
    assert out.returncode == 0, out.stderr
    assert "indexed: 4 documents" in out.stdout

    out = rserini("search", "--index", tmp_path / "idx", "--json", "network", "packets")
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)["hits"]
    assert hits[0]["docid"] == "d1" and hits[0]["rank"] == 1

    run = tmp_path / "run.trec"
    out = rserini(
        "run",
        "--index",
        tmp_path / "idx",
        "--queries",
        queries,
        "--output",
        run,
        "--k",
        "2",
        "--remove-query",
        "-q",
    )
    assert out.returncode == 0, out.stderr
    lines = [line.split() for line in run.read_text().splitlines()]
    assert lines[0][:4] == ["q1", "Q0", "d1", "1"]
    assert all(len(line) == 6 and line[5] == "rserini" for line in lines)
    assert not any(line[0] == "d3" and line[2] == "d3" for line in lines)
    assert {line[0] for line in lines} == {"q1"}  # d3 matched only itself; q3 matched nothing

    out = rserini("explain", "--index", tmp_path / "idx", "--docid", "d1", "network")
    assert out.returncode == 0, out.stderr
    assert "network" in out.stdout and "k1=0.9" in out.stdout


def backdate(root: Path, seconds: int = 100) -> None:
    when = time.time_ns() - seconds * 10**9
    for path in root.rglob("*"):
        os.utime(path, ns=(when, when), follow_symlinks=False)


def test_search_without_index_caches_the_project(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "engine.py").write_text("import math\n\ndef computeBm25Score(): return 1\n")
    (tmp_path / "notes.md").write_text("Dynamic pruning with block max wand.\n")
    (tmp_path / "ignored.log").write_text("computeBm25Score everywhere\n")
    (tmp_path / ".gitignore").write_text("*.log\n")
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01binary score")
    (tmp_path / "yarn.lock").write_text("score 1.0.0\n")
    backdate(tmp_path)  # Out of the racy window: files just written are read again.

    first = rserini("search", "score", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    docid, score, line = first.stdout.rstrip("\n").split(None, 2)
    assert (docid, line) == ("src/engine.py:1-3", "def computeBm25Score(): return 1")
    assert float(score) > 0 and first.stdout.count("\n") == 1
    assert "rebuilt the index (no manifest): 3 files read" in first.stderr
    assert "skipped 1 binary, 1 generated" in first.stderr
    assert (tmp_path / ".rserini" / "index" / "meta.json").exists()
    assert (tmp_path / ".rserini" / ".gitignore").read_text() == "*\n"

    again = rserini("search", "score", cwd=tmp_path)
    assert again.returncode == 0 and "rebuilt" not in again.stderr  # reused the cache
    assert again.stdout == first.stdout

    (tmp_path / "more.txt").write_text("another score to find\n")
    changed = rserini("search", "--json", "score", cwd=tmp_path)
    assert "1 re-read, 1 re-indexed, 0 removed" in changed.stderr
    hits = json.loads(changed.stdout)["hits"]
    assert {h["docid"] for h in hits} == {"src/engine.py:1-3", "more.txt:1-1"}
    more = next(h for h in hits if h["path"] == "more.txt")
    assert more == {
        "rank": more["rank"],
        "docid": "more.txt:1-1",
        "score": more["score"],
        "path": "more.txt",
        "start_line": 1,
        "end_line": 1,
        "line": "another score to find",
    }

    fused = rserini("search", "--model", "rrf", "-q", "score", "wand", cwd=tmp_path)
    assert fused.returncode == 0 and fused.stderr == ""
    rows = [row.split(None, 2) for row in fused.stdout.splitlines()]
    assert {r[0] for r in rows} == {"src/engine.py:1-3", "more.txt:1-1", "notes.md:1-1"}
    assert all(0 < float(r[1]) <= round(2 / 61, 4) for r in rows)  # printed to 4 places


def test_search_skips_non_utf8_file_names_instead_of_failing(tmp_path: Path) -> None:
    """a\\xff.txt and a\ufffd.txt once made one lossy docid and failed the whole search."""
    (tmp_path / "a\ufffd.txt").write_text("findme here\n")
    with open(os.path.join(os.fsencode(tmp_path), b"a\xff.txt"), "wb") as f:
        f.write(b"findme there\n")
    out = rserini("search", "--json", "findme", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert [h["docid"] for h in json.loads(out.stdout)["hits"]] == ["a\ufffd.txt:1-1"]
    assert "skipped 1 non-utf8-name" in out.stderr


def test_search_index_output_is_unchanged(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in TINY))
    assert rserini("index", "--input", corpus, "--index", tmp_path / "idx", "-q").returncode == 0
    out = rserini("search", "--index", tmp_path / "idx", "--no-text", "network")
    rows = [row.split() for row in out.stdout.splitlines()]
    assert [(r[0], r[2]) for r in rows] == [("1", "d1"), ("2", "d4")]
    assert all(len(r) == 3 and float(r[1]) > 0 for r in rows)
    assert out.stderr == ""
    # By default each row goes on with the document's first line (tests/test_cli_output.py).
    shown = rserini("search", "--index", tmp_path / "idx", "network").stdout.splitlines()
    assert [row.split()[:3] for row in shown] == [r[:3] for r in rows]
    assert shown[0].split()[3:5] == ["Routers", "forward"]
    fused = rserini("search", "--index", tmp_path / "idx", "--model", "rrf", "--json", "network")
    hits = json.loads(fused.stdout)["hits"]
    assert [(h["rank"], h["docid"]) for h in hits] == [(1, "d1"), (2, "d4")]
    assert hits[0]["score"] == 2 / 61  # first in both the BM25 and the TF-IDF ranking


def test_errors_are_one_line_with_exit_status_1(tmp_path: Path) -> None:
    out = rserini("search", "--index", tmp_path / "missing", "x")
    assert out.returncode == 1 and "rserini: error:" in out.stderr
    assert "Traceback" not in out.stderr
    (tmp_path / "bad.jsonl").write_text('{"id": "a", "contents": "ok"}\n{"id": broken\n')
    out = rserini("index", "--input", tmp_path / "bad.jsonl", "--index", tmp_path / "i")
    assert out.returncode == 1 and "bad.jsonl:2" in out.stderr
    out = rserini("search", "--index", tmp_path / "i", "--k1", "-1", "x")
    assert out.returncode == 1


def test_append_delete_info(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in TINY[:2]))
    more = tmp_path / "more.jsonl"
    more.write_text("".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in TINY[2:]))
    index = tmp_path / "idx"
    assert rserini("index", "--input", corpus, "--index", index, "-q").returncode == 0
    out = rserini("index", "--append", "--input", more, "--index", index)
    assert out.returncode == 0, out.stderr
    assert "added 2 documents: 4 documents" in out.stdout
    again = rserini("index", "--append", "--input", more, "--index", index)
    assert again.returncode == 1 and "already in the index" in again.stderr
    out = rserini("delete", "--index", index, "d1", "d3")
    assert out.returncode == 0 and "2 remain" in out.stdout
    out = rserini("delete", "--index", index, "nope")
    assert out.returncode == 1 and "unknown docid" in out.stderr
    out = rserini("info", "--index", index, "--json")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    assert info["documents"] == 2 and info["format_version"] == INDEX_FORMAT_VERSION
    # Each segment lost half its documents: the merge policy rewrote both.
    assert [(s["documents"], s["deleted"]) for s in info["segments"]] == [(1, 0), (1, 0)]
    out = rserini("search", "--index", index, "--json", "network")
    assert {h["docid"] for h in json.loads(out.stdout)["hits"]} == {"d4"}


def test_run_pyserini_mode_writes_pyserini_s_run(tmp_path: Path) -> None:
    """`rserini run --pyserini` on ADI writes, line for line, the committed Pyserini run."""
    import gzip

    from support import REPO, collection

    folder = collection("adi")
    assert (
        rserini(
            "index", "--input", folder / "corpus.jsonl", "--index", tmp_path / "i", "-q"
        ).returncode
        == 0
    )
    run = tmp_path / "run.trec"
    out = rserini(
        "run",
        "--index",
        tmp_path / "i",
        "--queries",
        folder / "queries.jsonl",
        "--output",
        run,
        "--pyserini",
        "--tag",
        "pyserini-k1=0.9-b=0.4",
        "-q",
    )
    assert out.returncode == 0, out.stderr
    with gzip.open(REPO / "tests" / "data" / "adi-pyserini-bm25.trec.gz", "rt") as f:
        golden = [line for line in f if line.rstrip().endswith("pyserini-k1=0.9-b=0.4")]
    assert run.read_text().splitlines(keepends=True) == golden
