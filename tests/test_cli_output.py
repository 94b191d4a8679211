"""What `rserini search --index` prints for a person: each hit's title or first line, cut to
the terminal's width, the query's words in bold on a terminal; the stored fields in its
JSON."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from rserini.hit_text import BOLD, ELLIPSIS, RESET
from test_cli import rserini as cli

DOCS = [
    {"_id": "v1", "title": "Vitamin D and bone health", "text": "Deficiency is common in winter."},
    {"_id": "v2", "title": "", "text": "Sunlight makes vitamin D in the skin.\nSecond line."},
    {"_id": "r1", "title": "Routers", "text": "Routers forward packets between networks."},
]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("output")
    corpus = root / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in DOCS))
    out = cli("index", "--input", corpus, "--index", root / "idx")
    assert out.returncode == 0, out.stderr
    out = cli("index", "--input", corpus, "--index", root / "bare", "--no-store")
    assert out.returncode == 0, out.stderr
    return root


def search(*args: str | Path, columns: int = 200) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rserini", "search", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": str(columns)},
    )


def test_each_hit_shows_its_title_or_first_line(index: Path) -> None:
    out = search("--index", index / "idx", "vitamin D")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].split()[:3] == ["1", lines[0].split()[1], "v1"]
    assert lines[0].endswith("Vitamin D and bone health")
    assert lines[1].endswith("Sunlight makes vitamin D in the skin.")  # no title: first line
    assert BOLD not in out.stdout  # not a terminal: no escape codes


def test_fields_and_no_text(index: Path) -> None:
    out = search("--index", index / "idx", "--fields", "text,title", "vitamin")
    assert out.stdout.splitlines()[0].endswith(
        "Deficiency is common in winter. | Vitamin D and bone health"
    )
    out = search("--index", index / "idx", "--no-text", "vitamin")
    assert [line.split()[2:] for line in out.stdout.splitlines()] == [["v1"], ["v2"]]
    # An index that stores no text prints what it has.
    out = search("--index", index / "bare", "vitamin")
    assert out.returncode == 0, out.stderr
    assert [len(line.split()) for line in out.stdout.splitlines()] == [3, 3]


def test_text_is_cut_to_the_terminal_width(index: Path) -> None:
    out = search("--index", index / "idx", "vitamin", columns=30)
    for line in out.stdout.splitlines():
        assert len(line) <= 30 and line.endswith(ELLIPSIS), line


def test_json_has_the_stored_fields(index: Path) -> None:
    hits = json.loads(search("--index", index / "idx", "--json", "vitamin").stdout)["hits"]
    assert hits[0]["docid"] == "v1" and hits[0]["rank"] == 1
    assert hits[0]["fields"] == {"title": DOCS[0]["title"], "text": DOCS[0]["text"]}
    hits = json.loads(
        search("--index", index / "idx", "--json", "--fields", "title", "vitamin").stdout
    )["hits"]
    assert hits[1]["fields"] == {"title": ""}
    hits = json.loads(search("--index", index / "idx", "--json", "--no-text", "vitamin").stdout)
    assert all("fields" not in h for h in hits["hits"])


def test_matching_words_are_bold_on_a_terminal(index: Path) -> None:
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "rserini", "search", "--index", index / "idx", "vitamins"],
            stdout=follower,
            stderr=subprocess.PIPE,
            timeout=120,
            env={**os.environ, "COLUMNS": "200"},
        )
        os.close(follower)
        follower = -1
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end closed
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert done.returncode == 0, done.stderr
    shown = b"".join(chunks).decode()
    # "vitamins" and "Vitamin" share the stem: both are the query's word.
    assert f"{BOLD}Vitamin{RESET} D and bone health" in shown
    assert f"makes {BOLD}vitamin{RESET} D" in shown
