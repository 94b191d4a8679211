"""The Lucene fixtures: the committed ones are what their README says (checked without a JVM),
their expected outputs are Pyserini's own (checked live), and the builder writes the input
it describes."""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lucene_fixtures import (
    COMMITTED_VERSIONS,
    LUCENE_DATA,
    LuceneBuild,
    committed_build,
    committed_indexes,
    expected_outputs,
    pyserini_runtime,
)
from rserini.parity.lucene_build import read_beir_corpus, segment_count, write_inputs
from rserini.parity.lucene_expected import default_runs, pyserini_outputs_many
from support import DATA, collection

# The postings format each committed version writes (its files are _N_<format>_0.doc).
POSTINGS = {"9.9.1": "Lucene99", "9.3.0": "Lucene90", "8.11.0": "Lucene84"}
CODEC_MAGIC = 0x3FD76C17


def _vint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def segments_file_version(folder: Path) -> tuple[int, int, int]:
    """The Lucene version that wrote the newest ``segments_N``: after the codec header
    (magic, codec name, format version, 16-byte id, generation suffix) come three vInts."""
    newest = max(folder.glob("segments_*"), key=lambda p: int(p.name[9:], 36))
    data = newest.read_bytes()
    assert int.from_bytes(data[:4], "big") == CODEC_MAGIC
    length, pos = _vint(data, 4)
    assert data[pos : pos + length] == b"segments"
    pos += length + 4 + 16  # format version, segment-infos id
    pos += 1 + data[pos]  # the generation suffix
    major, pos = _vint(data, pos)
    minor, pos = _vint(data, pos)
    bugfix, pos = _vint(data, pos)
    return major, minor, bugfix


def read_queries() -> list[dict[str, str]]:
    """adi's queries."""
    text = (collection("adi") / "queries.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


COMMITTED = committed_indexes()


def test_every_version_and_build_is_committed() -> None:
    versions = {version for version, _, _ in COMMITTED}
    assert versions == set(COMMITTED_VERSIONS)
    names = {name for _, name, _ in COMMITTED}
    assert {p.name.removesuffix(".json.gz") for p in (LUCENE_DATA / "expected").iterdir()} == names
    # Nothing else is kept: the core's reader tests read these folders too.
    assert {p.name for p in LUCENE_DATA.iterdir() if p.is_dir()} == {
        *COMMITTED_VERSIONS,
        "expected",
    }
    total = sum(p.stat().st_size for p in LUCENE_DATA.rglob("*") if p.is_file())
    assert total < 450_000, f"the Lucene fixtures take {total} bytes"


@pytest.mark.parametrize(("version", "name", "folder"), COMMITTED, ids=lambda v: str(v))
def test_committed_index_is_the_version_and_shape_it_claims(
    version: str, name: str, folder: Path
) -> None:
    assert segments_file_version(folder) == tuple(int(x) for x in version.split("."))
    expected = expected_outputs(name, version)
    index = expected["index"]
    assert segment_count(folder) == index["segments"] == index["stats"]["segments"]
    spec = committed_build(name)
    postings = f"_{POSTINGS[version]}_0.doc"
    if spec.compound:  # the compound file's entry table names the files inside
        (entries,) = folder.glob("*.cfe")
        assert postings.encode() in entries.read_bytes()
        assert not any(p.suffix == ".doc" for p in folder.iterdir())
    else:
        docs = [p for p in folder.iterdir() if p.suffix == ".doc"]
        assert docs and all(re.fullmatch(rf"_\w+{re.escape(postings)}", p.name) for p in docs)
    assert any(p.suffix == ".liv" for p in folder.iterdir()) == index["deletions"]
    assert len(index["order"]) == index["stats"]["max_doc"]
    assert sum(d is not None for d in index["order"]) == index["stats"]["num_docs"]
    live = sorted(d for d in index["order"] if d is not None)
    assert live == sorted(str(i) for i in range(1, 83 - spec.drop))
    for docid, lucene_docid in index["lucene_docids"].items():
        assert index["order"][lucene_docid] == docid


@pytest.mark.parametrize("name", sorted({n for _, n, _ in COMMITTED}))
def test_expected_documents_are_the_indexed_ones(name: str) -> None:
    """The raw documents Pyserini returned are the builder's input, replacements live."""
    expected = expected_outputs(name)
    spec = committed_build(name)
    corpus = {d["_id"]: d for d in read_beir_corpus(collection("adi"))}
    dropped = list(corpus)[len(corpus) - spec.drop :]
    for docid, doc in expected["docs"].items():
        if docid not in corpus or docid in dropped:
            assert doc is None
            continue
        if not spec.store_raw:
            assert doc["raw"] is None
            continue
        raw = json.loads(doc["raw"])
        text = corpus[docid]["title"] + " " + corpus[docid]["text"]
        if int(docid) <= spec.replaced:
            words = text.split()
            text = " ".join(reversed(words[: max(1, len(words) // 2)]))
        assert raw["id"] == docid
        assert raw["contents"] == text
        assert raw.get("title") == (corpus[docid]["title"] if spec.fields else None)
    settings = [{k: v for k, v in r.items() if k != "hits"} for r in expected["runs"]]
    assert settings and all(s in default_runs(spec.fields) for s in settings)
    assert any(s["fields"] for s in settings) == bool(spec.fields)
    for run in expected["runs"]:
        assert len(run["hits"]) == expected["queries"] == 35
        for hits in run["hits"].values():
            scores = [score for _, score in hits]
            assert scores == sorted(scores, reverse=True)


def test_lucene8_runs_are_unrounded_and_lucene9_runs_rounded() -> None:
    """Pyserini rounds scores to 4 decimals on Lucene 9 indexes only (see the README)."""
    lucene9 = expected_outputs("adi-1seg-raw", "9.9.1")["runs"][0]["hits"]
    lucene8 = expected_outputs("adi-1seg-raw", "8.11.0")["runs"][0]["hits"]
    assert lucene9.keys() == lucene8.keys()
    first9 = [hits[0][1] for hits in lucene9.values() if hits]
    first8 = [hits[0][1] for hits in lucene8.values() if hits]
    assert all(abs(s - round(s, 4)) < 1e-6 for s in first9)
    assert sum(abs(s - round(s, 4)) > 1e-6 for s in first8) > len(first8) // 2
    assert all(abs(a - b) < 1e-4 for a, b in zip(first9, first8, strict=True))


def test_inputs_are_dealt_into_files_with_replacements_after_their_originals(
    tmp_path: Path,
) -> None:
    spec = LuceneBuild("adi", files=3, threads=2, fields=("title",), replaced=4)
    collection("adi")
    written = write_inputs(spec, DATA, tmp_path)
    files = sorted(tmp_path.iterdir())
    assert [p.name for p in files] == ["part00.jsonl", "part01.jsonl", "part02.jsonl"]
    lines = [[json.loads(x) for x in p.read_text().splitlines()] for p in files]
    assert written == 86 == sum(map(len, lines))
    assert [len(x) for x in lines] == [28 + 4, 28, 26]
    ids = [d["id"] for part in lines for d in part]
    assert ids[:28] == [str(i) for i in range(1, 29)] and ids[28:32] == ["1", "2", "3", "4"]
    assert all(set(d) == {"id", "contents", "title"} for part in lines for d in part)
    assert lines[0][28]["contents"] != lines[0][0]["contents"]
    assert spec.name == "adi-3files-2threads-fields-title-del4"
    assert spec.options() == [
        *("-collection", "JsonCollection", "-threads", "2", "-uniqueDocid"),
        *("-fields", "title"),
    ]
    with pytest.raises(ValueError, match="cannot replace 30 of 28"):
        write_inputs(LuceneBuild("adi", files=3, replaced=30), DATA, tmp_path / "x")


NAMES = sorted({name for _, name, _ in COMMITTED})


@pytest.fixture(scope="module")
def fresh_builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Every committed build made again by the installed Pyserini's Anserini and searched
    by it, all in one child JVM: ``{name: Pyserini's outputs}``."""
    pyserini_runtime()
    root = tmp_path_factory.mktemp("fresh")
    queries = [[str(q["_id"]), q["text"]] for q in read_queries()]
    jobs = []
    for name in NAMES:
        expected = expected_outputs(name)
        jobs.append(
            {
                "index": str(root / name),
                "out": str(root / f"{name}.json"),
                "build": asdict(committed_build(name)),
                "data_root": str(DATA),
                "queries": queries,
                "runs": [{k: v for k, v in r.items() if k != "hits"} for r in expected["runs"]],
                "docids": list(expected["docs"]),
                "fields": ["contents"],
            }
        )
    pyserini_outputs_many(jobs)
    return {name: json.loads((root / f"{name}.json").read_text()) for name in NAMES}


@pytest.mark.parity
@pytest.mark.parametrize("name", NAMES)
def test_committed_outputs_are_live_pyserinis_on_a_fresh_build(
    name: str, fresh_builds: dict[str, dict[str, Any]]
) -> None:
    """A fresh build by the installed Pyserini (Lucene 9.9.1) gives the committed outputs
    again, whatever version the committed copy is (with two threads the segments may split
    differently; rankings and documents may not change)."""
    expected = expected_outputs(name)
    live = fresh_builds[name]
    for doc in live["docs"].values():
        if doc:
            del doc["lucene_docid"]
    assert live["docs"] == expected["docs"]
    for run in live["runs"]:  # Pyserini's float32 scores, as the recorded ones are read
        run["hits"] = {q: [[d, float(np.float32(s))] for d, s in h] for q, h in run["hits"].items()}
    assert live["runs"] == expected["runs"]
    assert live["stats"]["fields"]["contents"] == expected["index"]["stats"]["fields"]["contents"]
