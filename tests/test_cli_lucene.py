"""The command line on Lucene index folders: ``info`` describes them, ``search``, ``run``
and ``explain`` read them (``--index`` or ``--prebuilt NAME``), ``run --pyserini`` writes
Pyserini's run, ``delete`` and ``index --append`` refuse to write to them; the folder is
never modified."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from lucene_fixtures import LUCENE_DATA, expected_outputs, folder_digest
from rserini.cli import main
from rserini.lucene import prebuilt
from rserini.lucene.prebuilt import PrebuiltIndex
from rserini.pyserini import LuceneSearcher
from support import collection

FOLDER = LUCENE_DATA / "9.9.1" / "adi-1seg-raw"


def test_info_describes_a_lucene_folder(capsys: pytest.CaptureFixture[str]) -> None:
    before = folder_digest(FOLDER)
    assert main(["info", "--index", str(FOLDER)]) == 0
    out = capsys.readouterr().out
    assert "kind: Lucene index, written by Lucene 9.9.1" in out
    assert "documents: 82" in out and "generation: 1 (segments_1)" in out
    assert "_0: 82 documents, 0 deleted (Lucene99, Lucene 9.9.1)" in out
    assert "contents: DOCS_AND_FREQS, norms" in out
    assert "corrupted" not in out
    older = LUCENE_DATA / "9.3.0" / "adi-3files-2threads-raw-pos-dv"
    assert main(["info", "--json", "--index", str(older)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["kind"], info["lucene_version"], info["documents"]) == ("lucene", "9.3.0", 82)
    assert sorted(f["name"] for f in info["fields"]) == ["contents", "id", "raw"]
    assert folder_digest(FOLDER) == before


def test_info_of_deletions_and_compound_files(capsys: pytest.CaptureFixture[str]) -> None:
    folder = LUCENE_DATA / "9.9.1" / "adi-3files-2threads-cfs-drop3"
    assert main(["info", "--json", "--index", str(folder)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["documents"], info["max_doc"], info["deleted"]) == (79, 82, 3)
    assert [s["compound"] for s in info["segments"]] == [True]


def test_search_and_explain_read_a_lucene_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "--json", "--index", str(FOLDER), "--k", "5", "library catalog"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    want = LuceneSearcher(FOLDER).search("library catalog", k=5)
    assert [h["docid"] for h in hits] == [h.docid for h in want]
    assert [h["score"] for h in hits] == pytest.approx([h.raw_score for h in want], abs=1e-6)
    top = want[0].docid
    assert main(["explain", "--index", str(FOLDER), "--docid", top, "library catalog"]) == 0
    assert "librari" in capsys.readouterr().out


def test_run_pyserini_writes_pyserinis_run(tmp_path: Path) -> None:
    expected = expected_outputs(FOLDER.name)
    run = next(r for r in expected["runs"] if r["model"] == "bm25" and r["k1"] == 0.9)
    output = tmp_path / "run.trec"
    queries = collection("adi") / "queries.jsonl"
    argv = ["run", "--index", str(FOLDER), "--queries", str(queries), "--output", str(output)]
    assert main([*argv, "--pyserini", "--k1", "0.9", "--b", "0.4", "--tag", "Anserini", "-q"]) == 0
    want = [
        f"{qid} Q0 {docid} {rank} {score:.6f} Anserini"
        for qid, hits in run["hits"].items()
        for rank, (docid, score) in enumerate(hits, start=1)
    ]
    assert sorted(output.read_text().splitlines()) == sorted(want)


def test_run_by_prebuilt_name_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    index = PrebuiltIndex(
        name="adi-test",
        tarball="lucene-inverted.adi-test.20250101.abcdef.tar.gz",
        md5=hashlib.md5(b"adi-test").hexdigest(),
        urls=("http://127.0.0.1:9/never-used",),
    )
    monkeypatch.setattr(prebuilt, "prebuilt_indexes", lambda: {"adi-test": index})
    monkeypatch.setenv("PYSERINI_CACHE", str(tmp_path / "cache"))
    shutil.copytree(FOLDER, index.cached_path())
    queries = collection("adi") / "queries.jsonl"
    by_name, by_folder = tmp_path / "by-name.trec", tmp_path / "by-folder.trec"
    common = ["--queries", str(queries), "--k", "100", "-q"]
    assert main(["run", "--prebuilt", "adi-test", *common, "--output", str(by_name)]) == 0
    assert main(["run", "--index", str(FOLDER), *common, "--output", str(by_folder)]) == 0
    assert by_name.read_text() == by_folder.read_text() != ""
    assert main(["info", "--prebuilt", "adi-test"]) == 0
    assert "Lucene 9.9.1" in capsys.readouterr().out
    assert main(["search", "--prebuilt", "adi-tset", "x"]) == 1
    assert "did you mean adi-test" in capsys.readouterr().err


def test_writing_commands_refuse_a_lucene_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "lucene"
    shutil.copytree(FOLDER, folder)
    before = folder_digest(folder)
    assert main(["delete", "--index", str(folder), "1"]) == 1
    err = capsys.readouterr().err
    assert "is a Lucene index" in err and "never writes to a Lucene folder" in err
    corpus = tmp_path / "more.jsonl"
    corpus.write_text(json.dumps({"id": "x", "contents": "more text"}) + "\n")
    assert main(["index", "--append", "--input", str(corpus), "--index", str(folder)]) == 1
    assert "is a Lucene index" in capsys.readouterr().err
    assert main(["index", "--input", str(corpus), "--index", str(folder)]) == 1
    assert "is a Lucene index" in capsys.readouterr().err
    assert folder_digest(folder) == before


def test_help_names_lucene_folders_and_prebuilt_names(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("run", "search", "info", "explain"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        assert "--prebuilt NAME" in out and "Lucene" in out, command
    with pytest.raises(SystemExit):
        main(["run", "--queries", "q.jsonl", "--output", "r.trec"])
    assert "one of the arguments --index --prebuilt is required" in capsys.readouterr().err
