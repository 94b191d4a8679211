"""Building sharded indexes: the partition rule, the manifest, byte-identical shards,
the checks at open, merging back into one index, the CLI, and Ray as an option."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from hashlib import blake2b
from pathlib import Path

import pytest

import rserini
from rserini.distributed import (
    MANIFEST,
    ShardedIndex,
    build_shards,
    is_sharded,
    merge_shards,
    shard_of,
)
from rserini.distributed.manifest import Manifest, read_manifest, write_manifest
from rserini.exceptions import IndexCorruptedError, ParseError
from sharding import folder_bytes, write_corpus
from support import TINY, cli

DOCS = [(f"doc{i:03d}", f"{'alpha' if i % 3 else 'beta'} gamma{i % 7} text {i}") for i in range(60)]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus" / "docs.jsonl", DOCS)


def test_the_docid_hash_is_the_documented_one() -> None:
    # The rule is a file format: blake2b, 8 bytes, little-endian, modulo the shard count.
    for docid in ["doc1", "MED-10", "é", "", "x" * 300]:
        digest = blake2b(docid.encode(), digest_size=8).digest()
        for n in (1, 2, 3, 8, 1000):
            assert shard_of(docid, n) == int.from_bytes(digest, "little") % n
    counts = [0] * 4
    for i in range(4000):
        counts[shard_of(f"d{i}", 4)] += 1
    assert all(900 < c < 1100 for c in counts), counts


def test_shards_hold_their_documents_and_the_manifest_says_so(corpus: Path, tmp_path: Path):
    out = build_shards(corpus, tmp_path / "sharded", 3)
    assert is_sharded(out) and not is_sharded(corpus.parent)
    manifest = read_manifest(out)
    assert manifest.num_shards == 3 and manifest.documents == len(DOCS)
    assert manifest.analyzer == rserini.Analyzer("lucene-english").config
    seen = []
    for i, entry in enumerate(manifest.shards):
        shard = rserini.Index.load(out / entry.path)
        docids = shard.docids(list(range(len(shard))))
        assert len(shard) == entry.documents
        assert all(shard_of(d, 3) == i for d in docids)
        seen += docids
        for d in docids:  # the stored JSON is the corpus line's
            assert shard.doc(d) == {"id": d, "contents": dict(DOCS)[d]}
    assert sorted(seen) == [d for d, _ in DOCS]
    assert not [p for p in out.iterdir() if p.name.startswith(".")], "spill left behind"


def test_same_inputs_give_the_same_bytes_whatever_the_workers(corpus: Path, tmp_path: Path):
    out = tmp_path / "s"
    first = folder_bytes(build_shards(corpus, out, 4, workers=1, threads=1))
    shutil.rmtree(out)
    again = folder_bytes(build_shards(corpus, out, 4, workers=4, threads=2, memory_mb=0.01))
    assert first == again and len(first) > 4 * 9


def test_same_inputs_give_the_same_bytes_whatever_the_output_folder(corpus: Path, tmp_path: Path):
    here = build_shards(corpus, tmp_path / "here", 4)
    there = build_shards(corpus, tmp_path / "elsewhere" / "deeper", 4, workers=2)
    assert folder_bytes(here) == folder_bytes(there)  # meta.json and sharded.json too
    shards = read_manifest(here).shards
    assert [s.meta_sha256 for s in shards] == [s.meta_sha256 for s in read_manifest(there).shards]
    # What a shard records as its source: the corpus as given, and its place.
    assert rserini.Index.load(here / "shard-00003").source == f"jsonl:{corpus} (shard 3 of 4)"


def test_empty_shards_gz_inputs_and_several_inputs(tmp_path: Path):
    first = write_corpus(tmp_path / "in1" / "a.jsonl", TINY[:2])
    gz = tmp_path / "in2" / "b.jsonl.gz"
    gz.parent.mkdir()
    with gzip.open(gz, "wt", encoding="utf-8") as f:
        f.write("\ufeff" + "\n".join(json.dumps({"id": d, "contents": t}) for d, t in TINY[2:]))
        f.write("\n\n   \n")
    out = build_shards([first.parent, gz.parent], tmp_path / "s", 8)
    manifest = read_manifest(out)
    assert manifest.documents == 4 and sum(s.documents == 0 for s in manifest.shards) >= 4
    with ShardedIndex.open(out) as index:
        single = rserini.Index.build(TINY, progress=False)
        assert index.search_pairs("network", 10) == single.search_pairs("network", 10)


def test_a_bad_line_is_located_before_any_shard_is_built(tmp_path: Path):
    bad = tmp_path / "c" / "x.jsonl"
    bad.parent.mkdir()
    bad.write_text('{"id": "a", "contents": "ok"}\n{"id": "b"}\n', encoding="utf-8")
    with pytest.raises(ParseError) as e:
        build_shards(bad, tmp_path / "s", 2)
    assert e.value.line == 2 and e.value.path == str(bad)
    assert not is_sharded(tmp_path / "s")
    with pytest.raises(ValueError, match="num_shards"):
        build_shards(bad, tmp_path / "t", 0)
    with pytest.raises(FileExistsError):
        build_shards(bad, bad.parent, 2)


def test_duplicates_are_refused_per_shard_as_one_index_refuses_them(tmp_path: Path):
    dup = write_corpus(tmp_path / "c" / "d.jsonl", [*TINY, ("d2", "again")])
    with pytest.raises(rserini.DocumentError, match="d2"):
        build_shards(dup, tmp_path / "s", 3)
    out = build_shards(dup, tmp_path / "k", 3, duplicates="keep")
    single = rserini.Index.from_jsonl(dup, progress=False, duplicates="keep")
    with ShardedIndex.open(out) as index:
        assert index.search_pairs("again plants", 10) == single.search_pairs("again plants", 10)


def _relist(out: Path, **changes: object) -> None:
    """Rewrites the manifest with ``changes``, checksum and all: a manifest that lies."""
    m = read_manifest(out)
    write_manifest(out, Manifest(**{**m.__dict__, **changes}))


def test_lying_manifests_are_refused_at_open(corpus: Path, tmp_path: Path):
    out = build_shards(corpus, tmp_path / "s", 3)
    pristine = tmp_path / "pristine"
    shutil.copytree(out, pristine)

    def reset() -> None:
        shutil.rmtree(out)
        shutil.copytree(pristine, out)

    m = read_manifest(out)
    _relist(out, shards=m.shards[:2])  # wrong shard count
    with pytest.raises(IndexCorruptedError, match=r"shard-00002 that sharded\.json does not list"):
        ShardedIndex.open(out)
    reset()
    shutil.rmtree(out / "shard-00001")  # missing shard
    with pytest.raises(IndexCorruptedError, match="shard 1 of 3 is missing"):
        ShardedIndex.open(out)
    reset()
    other = build_shards(corpus, tmp_path / "plain", 3, analyzer="plain")
    shutil.rmtree(out / "shard-00002")  # a shard analyzed otherwise
    shutil.copytree(other / "shard-00002", out / "shard-00002")
    with pytest.raises(IndexCorruptedError, match=r"shard 2 .* analyzer"):
        ShardedIndex.open(out)
    reset()
    fewer = write_corpus(tmp_path / "fewer" / "c.jsonl", DOCS[:30])
    another = build_shards(fewer, tmp_path / "another", 3)
    shutil.rmtree(out / "shard-00000")  # a shard of another build
    shutil.copytree(another / "shard-00000", out / "shard-00000")
    with pytest.raises(IndexCorruptedError, match=r"shard 0 .*another build"):
        ShardedIndex.open(out)
    reset()
    two = build_shards(corpus, tmp_path / "two", 2)  # shards of a 2-way split, listed as 3
    for i in (0, 1):
        shutil.rmtree(out / f"shard-0000{i}")
        shutil.copytree(two / f"shard-0000{i}", out / f"shard-0000{i}")
    shards = (*read_manifest(two).shards, read_manifest(out).shards[2])
    _relist(out, shards=shards)
    with pytest.raises(IndexCorruptedError, match="routes it to shard"):
        ShardedIndex.open(out)
    reset()
    text = (out / MANIFEST).read_text().replace('"documents": 60', '"documents": 61')
    (out / MANIFEST).write_text(text)  # edited by hand: the checksum catches it
    with pytest.raises(IndexCorruptedError, match="damaged"):
        ShardedIndex.open(out)
    with pytest.raises(FileNotFoundError, match="not a sharded index"):
        ShardedIndex.open(corpus.parent)
    reset()
    ShardedIndex.open(out).close()


def test_merge_shards_gives_one_index_with_the_same_rankings(corpus: Path, tmp_path: Path):
    out = build_shards(corpus, tmp_path / "s", 3)
    merged = merge_shards(out, tmp_path / "merged")
    single = rserini.Index.from_jsonl(corpus, progress=False)
    assert len(merged) == len(single) and merged.analyzer == single.analyzer
    queries = ["alpha gamma3", "beta text", "gamma1 gamma2 gamma5"]
    assert merged.batch_search_pairs(queries, 100) == single.batch_search_pairs(queries, 100)
    assert rserini.Index.load(tmp_path / "merged").doc("doc007") == single.doc("doc007")
    no_store = build_shards(corpus, tmp_path / "n", 2, store=False)
    with pytest.raises(rserini.QueryError, match="store=False"):
        merge_shards(no_store, tmp_path / "m2")


def test_cli_index_shards_then_search_and_run_unchanged(corpus: Path, tmp_path: Path):
    sharded, single = tmp_path / "sharded", tmp_path / "single"
    done = cli("index", "--input", corpus, "--index", sharded, "--shards", "3", "-q", timeout=120)
    assert done.returncode == 0, done.stderr
    assert cli("index", "--input", corpus, "--index", single, "-q", timeout=120).returncode == 0
    for index in (sharded, single):
        assert (found := cli("search", "--index", index, "alpha", "gamma3", timeout=60))
        assert found.returncode == 0, found.stderr
    assert (
        cli("search", "--index", sharded, "alpha gamma3", "--json", timeout=60).stdout
        == cli("search", "--index", single, "alpha gamma3", "--json", timeout=60).stdout
    )
    queries = tmp_path / "q.tsv"
    queries.write_text("q1\talpha gamma3\nq2\tbeta text 7\n", encoding="utf-8")
    for index in (sharded, single):
        ran = cli("run", "--index", index, "--queries", queries, "--output",
                  tmp_path / f"{index.name}.trec", "-q", timeout=60)  # fmt: skip
        assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "sharded.trec").read_text() == (tmp_path / "single.trec").read_text()
    explained = cli("explain", "--index", sharded, "--docid", "doc004", "alpha", timeout=60)
    assert (
        explained.stdout
        == cli("explain", "--index", single, "--docid", "doc004", "alpha", timeout=60).stdout
    )


def test_cli_refuses_zero_shards(corpus: Path, tmp_path: Path):
    done = cli("index", "--input", corpus, "--index", tmp_path / "s", "--shards", "0", timeout=60)
    assert done.returncode == 2
    assert "0 shards: a sharded index needs at least 1" in done.stderr
    assert not (tmp_path / "s").exists()
    done = cli("index", "--input", corpus, "--index", tmp_path / "r", "--ray", "auto", timeout=60)
    assert done.returncode != 0 and "--ray builds a sharded index: add --shards N" in done.stderr
    assert not (tmp_path / "r").exists()


def test_importing_rserini_does_not_import_ray():
    code = (
        "import sys, rserini, rserini.distributed, rserini.cli\n"
        "assert 'ray' not in sys.modules, 'ray imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_without_ray_the_error_names_the_extra(corpus: Path, tmp_path: Path):
    # `None` in sys.modules makes `import ray` fail as if Ray were not installed.
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "from rserini.distributed import build_shards\n"
        "try:\n"
        f"    build_shards({str(corpus)!r}, {str(tmp_path / 'r')!r}, 2, engine='ray')\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert 'pip install "rserini[ray]"' in done.stdout, done.stderr
    script = (
        "import sys, runpy; sys.modules['ray'] = None; sys.argv[0] = 'rserini'\n"
        "runpy.run_module('rserini', run_name='__main__')\n"
    )
    args = ["index", "--input", str(corpus), "--index", str(tmp_path / "c"), "--shards", "2",
            "--ray", "auto"]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=60
    )
    assert done.returncode != 0 and 'pip install "rserini[ray]"' in done.stderr
