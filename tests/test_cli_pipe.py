"""A command whose reader leaves (`rserini search ... | head -1`) ends quietly, with the
status of a process that SIGPIPE ended, as the other tools of a pipeline do."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_cli import rserini as cli


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    # Far more than a pipe buffer (64 KiB) of hits, so the writer meets the closed pipe.
    corpus = tmp_path / "corpus.jsonl"
    text = "common words for every document " * 4
    corpus.write_text(
        "".join(json.dumps({"id": f"doc{i:05d}", "contents": text}) + "\n" for i in range(6000))
    )
    assert cli("index", "--input", corpus, "--index", tmp_path / "idx").returncode == 0
    for extra, reader in (([], "head -1"), (["--no-text"], "head -1"), (["--json"], "head -c 9")):
        search = f'"{sys.executable}" -m rserini search --index "{tmp_path / "idx"}"'
        words = " ".join([*extra, "--k 6000 common words"])
        command = f'{search} {words} | {reader}; echo "status=${{PIPESTATUS[0]}}" >&2'
        done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
        assert done.stdout.count("\n") == 1 or done.stdout == '{"query":', done.stdout[:200]
        assert done.stderr.strip() == "status=141", done.stderr  # 128 + SIGPIPE, nothing else
