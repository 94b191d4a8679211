"""Command-line options users reach for: --algorithm, and every command's --help."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rserini import Index
from support import TINY
from test_cli import rserini

ALGORITHMS = ("auto", "exhaustive", "maxscore", "bmw")


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cli-options")
    corpus = folder / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in TINY))
    out = rserini("index", "--input", corpus, "--index", folder / "idx", "-q")
    assert out.returncode == 0, out.stderr
    return folder / "idx"


def test_search_gives_the_same_hits_with_every_algorithm(index_dir: Path) -> None:
    outputs = set()
    for algorithm in ALGORITHMS:
        out = rserini("search", "--index", index_dir, "--algorithm", algorithm, "network")
        assert out.returncode == 0, out.stderr
        outputs.add(out.stdout)
    (output,) = outputs
    expected = [docid for docid, _ in Index.load(index_dir).search_pairs("network")]
    assert [line.split()[2] for line in output.splitlines()] == expected


def test_run_gives_the_same_run_with_every_algorithm(index_dir: Path, tmp_path: Path) -> None:
    queries = tmp_path / "queries.tsv"
    queries.write_text("q1\tnetwork packets\nq2\tplants energy\n")
    runs = set()
    for algorithm in ALGORITHMS:
        run = tmp_path / f"{algorithm}.trec"
        out = rserini(
            "run", "--index", index_dir, "--queries", queries, "--output", run,
            "--algorithm", algorithm, "-q",
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        runs.add(run.read_text())
    (run_text,) = runs
    assert run_text.splitlines()[0].split()[:3] == ["q1", "Q0", "d1"]


@pytest.mark.parametrize("command", ["search", "run"])
def test_unknown_algorithm_is_a_usage_error_naming_the_choices(
    command: str, index_dir: Path, tmp_path: Path
) -> None:
    if command == "run":
        extra = ["--queries", tmp_path / "q.tsv", "--output", tmp_path / "r"]
    else:
        extra = ["x"]
    out = rserini(command, "--index", index_dir, "--algorithm", "wand", *extra)
    assert out.returncode == 2
    assert "argument --algorithm: invalid choice: 'wand'" in out.stderr
    assert "'auto', 'exhaustive', 'maxscore', 'bmw'" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(
    ("command", "words"),
    [("info", "format version"), ("explain", "contribution")],
)
def test_info_and_explain_describe_themselves(command: str, words: str) -> None:
    out = rserini(command, "--help")
    assert out.returncode == 0, out.stderr
    usage, _, rest = out.stdout.partition("\n\n")
    assert usage.startswith("usage:")
    assert words in rest.split("\n\n")[0].replace("\n", " ")
