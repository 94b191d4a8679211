"""Errors that name the fix: a path that does not exist, given to any command, is named as
missing (not as a damaged index or a wrong format), and `rserini tune` names the extras it
lacks and what `--corpus` takes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from support import TINY
from test_cli import rserini as cli


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("paths")
    corpus = root / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in TINY))
    (root / "queries.tsv").write_text("q1\tnetwork packets\n")
    (root / "qrels.txt").write_text("q1 0 d1 1\n")
    (root / "run.trec").write_text("q1 Q0 d1 1 1.0 x\n")
    assert cli("index", "--input", corpus, "--index", root / "idx").returncode == 0
    return root


def commands(w: Path, gone: Path) -> list[tuple[str | Path, ...]]:
    """Each command with one path argument replaced by ``gone``, which does not exist."""
    return [
        ("index", "--input", gone, "--index", w / "new"),
        ("index", "--append", "--input", gone, "--index", w / "idx"),
        ("search", "--index", gone, "words"),
        ("search", "--root", gone, "words"),
        ("run", "--index", w / "idx", "--queries", gone, "--output", w / "out.trec"),
        ("explain", "--index", gone, "--docid", "d1", "words"),
        ("info", "--index", gone),
        ("delete", "--index", gone, "d1"),
        ("eval", "--qrels", gone, "--run", w / "run.trec"),
        ("eval", "--qrels", w / "qrels.txt", "--run", gone),
        ("tune", "--no-plot", "--corpus", gone),
        ("tune", "--no-plot", "--index", gone, "--queries", w / "queries.tsv", "--qrels", gone),
        ("tune", "--no-plot", "--index", w / "idx", "--queries", gone, "--qrels", w / "qrels.txt"),
    ]


def test_a_missing_path_is_named_as_missing(work: Path) -> None:
    gone = work / "scifact"
    for args in commands(work, gone):
        out = cli(*args)
        assert out.returncode != 0, args
        err = out.stderr
        assert "Traceback" not in err and "corrupt" not in err, (args, err)
        assert "no such" in err.lower() and str(gone) in err, (args, err)
    assert not (work / "out.trec").exists() and not (work / "new").exists()


def test_tune_says_what_corpus_takes(work: Path) -> None:
    out = cli("tune", "--no-plot", "--corpus", "scifact", cwd=work)
    assert out.returncode == 1
    assert "no such folder or file: scifact" in out.stderr
    assert "BEIR folder (corpus.jsonl or corpus.jsonl.gz, queries.jsonl" in out.stderr
    # A JSONL corpus that exists still needs its topics and judgments.
    out = cli("tune", "--no-plot", "--corpus", work / "corpus.jsonl")
    assert "--queries and --qrels are needed" in out.stderr and "is not one" in out.stderr


@pytest.mark.parametrize(
    ("blocked", "flags", "message"),
    [
        (["matplotlib"], [], "the heatmap needs matplotlib: pip install 'rserini[plot]' (or pass"),
        (["ir_measures"], ["--no-plot"], "metrics need ir_measures: pip install 'rserini[eval]'"),
        (
            ["ir_measures", "matplotlib"],
            [],
            "the metrics need ir_measures and the heatmap needs matplotlib: "
            "pip install 'rserini[eval,plot]'",
        ),
    ],
)
def test_tune_names_the_missing_extras(
    work: Path, blocked: list[str], flags: list[str], message: str
) -> None:
    # The modules are made unimportable as if their extra were not installed.
    code = (
        "import sys\n"
        f"for name in {blocked!r}: sys.modules[name] = None\n"
        "from rserini.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    args = ["tune", *flags, "--corpus", str(work / "scifact")]
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 1
    assert message in out.stderr, out.stderr  # before the corpus is looked at
