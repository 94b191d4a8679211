"""End to end in a language (marker ``parity``): a collection of real text indexed with
``rserini index --language`` ranks and scores as Pyserini's index built with ``-language``,
searched after ``set_language``, over the whole top 1,000.

The documents are the translated messages of the language corpus
(``data/languages/corpus.json.gz``); the queries are the first words of some of them and
frequent words of the language.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rserini.pyserini import LuceneSearcher
from support import IMPORT_ROOT, require_pyserini

pytestmark = pytest.mark.parity

HERE = Path(__file__).parent
CORPUS = json.loads(gzip.decompress((HERE / "data" / "languages" / "corpus.json.gz").read_bytes()))
LANGUAGES = ["de", "fi", "hi", "ar", "ja"]


def queries(code: str) -> list[tuple[str, str]]:
    """The first words of every fourth message, and 50 frequent words."""
    heads = [" ".join(text.split()[:4]) for text in CORPUS[code]["sentences"][::4]]
    return [(f"q{i}", q) for i, q in enumerate(heads + CORPUS[code]["words"][:50])]


@pytest.mark.parametrize("code", LANGUAGES)
def test_language_collection_ranks_as_pyserini(tmp_path: Path, code: str) -> None:
    require_pyserini()
    docs = tmp_path / "docs"
    docs.mkdir()
    lines = [
        json.dumps({"id": f"d{i}", "contents": text}, ensure_ascii=False)
        for i, text in enumerate(CORPUS[code]["sentences"])
    ]
    (docs / "docs.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "q.json").write_text(json.dumps(queries(code)), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([IMPORT_ROOT, str(HERE)])}
    script = HERE / "pyserini_language_search.py"
    subprocess.run(
        [sys.executable, str(script), code, str(docs), str(tmp_path / "q.json"),
         str(tmp_path / "lucene"), str(tmp_path / "theirs.json")],
        check=True, env=env,
    )  # fmt: skip
    theirs = json.loads((tmp_path / "theirs.json").read_text(encoding="utf-8"))
    done = subprocess.run(
        [sys.executable, "-m", "rserini", "index", "--input", str(docs), "--index",
         str(tmp_path / "ours"), "--language", code, "-q"],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    searcher = LuceneSearcher(str(tmp_path / "ours"))
    searcher.set_language(code)
    searcher.set_bm25(0.9, 0.4)
    ours = {qid: [[h.docid, h.score] for h in searcher.search(q, 1000)] for qid, q in queries(code)}
    assert sum(map(len, theirs.values())) > len(theirs), "the queries match documents"
    differ = [qid for qid in theirs if theirs[qid] != ours[qid]]
    assert differ == [], f"{len(differ)} of {len(theirs)} queries differ: {differ[:5]}"
