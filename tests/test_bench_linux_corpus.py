"""benches/linux_corpus.py on a small synthetic tarball: which files are kept, the
32-line chunks and their ids, the query sampling, and that a second run does nothing."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
import tarfile

from support import REPO


def load_linux_corpus():
    path = REPO / "benches" / "linux_corpus.py"
    spec = importlib.util.spec_from_file_location("bench_linux_corpus", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def source_lines(n: int, name: str) -> str:
    return "".join(f"int {name}_value_{i} = compute({i}, flags);\n" for i in range(1, n + 1))


FILES = {
    "top/kernel/fork.c": source_lines(70, "fork").encode(),
    "top/kernel/short.h": b"one two three\nfour",  # no final newline: 2 lines
    "top/Documentation/notes.rst": "R\u00e9sum\u00e9 of the plan here\n".encode(),
    "top/firmware/blob.bin": b"ELF\x00\x01\x02 not text",
    "top/drivers/latin1.c": "caf\u00e9 au lait\n".encode("latin-1"),
    "top/drivers/empty.c": b"",
    "top/drivers/huge.h": source_lines(400, "huge").encode(),
}


def make_tarball(path):
    with tarfile.open(path, "w:xz") as tar:
        folder = tarfile.TarInfo("top/kernel")
        folder.type = tarfile.DIRTYPE
        tar.addfile(folder)
        for name, data in FILES.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("top/kernel/link.c")
        link.type = tarfile.SYMTYPE
        link.linkname = "fork.c"
        tar.addfile(link)
    return path


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_chunks_number_lines_from_one_and_keep_the_short_tail():
    lc = load_linux_corpus()
    text = "".join(f"line {i}\n" for i in range(1, 71))
    got = list(lc.chunks(text, 32))
    assert [(a, b) for a, b, _ in got] == [(1, 32), (33, 64), (65, 70)]
    assert got[2][2] == "\n".join(f"line {i}" for i in range(65, 71))
    assert list(lc.chunks("a\nb", 32)) == [(1, 2, "a\nb")]
    assert list(lc.chunks("a\r\nb\n", 32)) == [(1, 2, "a\r\nb")]


def test_builds_both_folders_from_a_tarball(tmp_path):
    lc = load_linux_corpus()
    tarball = make_tarball(tmp_path / "src.tar.xz")
    out = tmp_path / "out"
    files, chunked = lc.build(tarball, out, queries=6, seed=3, max_file_bytes=10_000)
    assert [files.name, chunked.name] == ["linux-files", "linux-chunks"]

    docs = read_jsonl(files / "corpus.jsonl")
    assert [d["_id"] for d in docs] == [
        "kernel/fork.c",
        "kernel/short.h",
        "Documentation/notes.rst",
    ]
    assert all(d["title"] == d["_id"] for d in docs)
    assert docs[0]["text"] == FILES["top/kernel/fork.c"].decode()

    chunks = read_jsonl(chunked / "corpus.jsonl")
    assert [c["_id"] for c in chunks] == [
        "kernel/fork.c:1-32",
        "kernel/fork.c:33-64",
        "kernel/fork.c:65-70",
        "kernel/short.h:1-2",
        "Documentation/notes.rst:1-1",
    ]
    assert chunks[1]["title"] == "kernel/fork.c"
    assert chunks[1]["text"].splitlines()[0] == "int fork_value_33 = compute(33, flags);"
    assert len(chunks[1]["text"].splitlines()) == 32

    manifest = json.loads((chunked / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["documents"] == 5
    assert manifest["text_files"] == 3
    assert manifest["skipped_files"] == {
        "over 10,000 bytes": 1,
        "empty": 1,
        "binary (NUL byte)": 1,
        "not UTF-8": 1,
    }

    queries = read_jsonl(chunked / "queries.jsonl")
    assert queries == read_jsonl(files / "queries.jsonl")
    assert [q["_id"] for q in queries] == [str(i) for i in range(len(queries))]
    assert 1 <= len(queries) <= 6
    assert len({q["text"] for q in queries}) == len(queries)
    by_id = {c["_id"]: c["text"] for c in chunks}
    for q in queries:
        words = q["text"].split()
        assert 3 <= len(words) <= 6
        lines = [line.split() for line in by_id[q["metadata"]["source"]].split("\n")]
        assert any(line[i : i + len(words)] == words for line in lines for i in range(len(line))), q

    # Same inputs and options: nothing is rewritten; the same seed elsewhere, same queries.
    stamp = (chunked / "corpus.jsonl").stat().st_mtime_ns
    assert lc.build(tarball, out, queries=6, seed=3, max_file_bytes=10_000) == [files, chunked]
    assert (chunked / "corpus.jsonl").stat().st_mtime_ns == stamp
    again = lc.build(tarball, tmp_path / "again", queries=6, seed=3, max_file_bytes=10_000)
    assert read_jsonl(again[1] / "queries.jsonl") == queries
    # Other options: rebuilt.
    lc.build(tarball, out, queries=6, seed=3, max_file_bytes=100_000)
    manifest = json.loads((chunked / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["documents"] == 5 + 13


def test_query_words_come_from_one_line_with_enough_words():
    lc = load_linux_corpus()
    rng = lc.random.Random(0)
    assert lc.pick_query("a b\n\nc", rng) is None
    for _ in range(50):
        query = lc.pick_query("x y\none two three four five six seven eight\nz", rng)
        words = query.split()
        assert 3 <= len(words) <= 6
        assert " ".join(words) in "one two three four five six seven eight"
