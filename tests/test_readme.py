"""The README's Python examples run as written, in order, in one namespace.

Its ``sh`` blocks are not run here: the first builds and tests the project itself
(``make run``, ``make test``), the others are the command line over the user's own
files (``corpus.jsonl.gz``, ``queries.jsonl``, ``qrels.tsv``), each command of which
``tests/test_cli.py`` and ``tests/test_cli_options.py`` run on a small corpus.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from support import REPO

LUCENE_INDEX = REPO / "tests" / "data" / "lucene" / "9.9.1" / "adi-1seg-raw"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def readme_blocks(language: str) -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return [body for lang, body in FENCE.findall(text) if lang == language]


def test_readme_has_python_examples() -> None:
    assert len(readme_blocks("python")) >= 3


def test_readme_python_blocks_run_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    # The Lucene example's folder: a Lucene index Anserini wrote, as a user has one.
    shutil.copytree(LUCENE_INDEX, tmp_path / "lucene-index.adi")
    namespace: dict[str, object] = {"__name__": "__readme__"}
    for number, block in enumerate(readme_blocks("python"), 1):
        code = compile(block, f"README.md python block {number}", "exec")
        exec(code, namespace)
    assert os.path.isdir(tmp_path / "my-index")
    assert "d2" in capsys.readouterr().out
