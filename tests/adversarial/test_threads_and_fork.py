"""Thread pools: safe in a forked child, bounded in number, ``threads=`` checked.

Every case that could hang runs in its own process group with a timeout.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from hang_guard import run_python

import rserini
from rserini import QueryError

# Each operation builds what it needs, so that a spawned child (which re-imports
# this script) can run it too; all of them use a thread pool.
SCRIPT = textwrap.dedent(
    """
    import multiprocessing as mp
    import os
    import sys
    import tempfile

    import rserini
    from rserini.formats import read_documents
    from rserini.project_index import ProjectIndex
    from rserini.retrieval import Document, LexicalRetriever

    DOCS = [(f"d{i}", f"w{i % 13} shared text number {i}") for i in range(3000)]
    QUERIES = [f"w{i % 13} text" for i in range(64)]
    INDEX = rserini.Index.build(DOCS, progress=False)


    def op(name):
        if name == "build":
            return len(rserini.Index.build(DOCS, threads=2, progress=False))
        if name == "from_jsonl":
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "c.jsonl")
                with open(path, "w") as f:
                    for docid, text in DOCS[:500]:
                        f.write('{"id": "%s", "contents": "%s"}\\n' % (docid, text))
                return len(rserini.Index.from_jsonl(path, progress=False))
        if name == "batch_search":
            ids, _ = INDEX.batch_search(QUERIES, k=3)
            return INDEX.docids(ids)
        if name == "batch_search_threads":
            ids, _ = INDEX.batch_search(QUERIES, k=3, threads=2)
            return INDEX.docids(ids)
        if name == "batch_search_pairs":
            return INDEX.batch_search_pairs(QUERIES, k=3, threads=2)
        if name == "analyze_batch":
            return rserini.Analyzer("lucene-english").analyze_batch(QUERIES * 20)
        if name == "read_documents":
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "c.jsonl")
                with open(path, "w") as f:
                    for docid, text in DOCS[:500]:
                        f.write('{"id": "%s", "contents": "%s"}\\n' % (docid, text))
                return read_documents(path)
        if name == "lexical_index":
            retriever = LexicalRetriever()
            retriever.index([Document(docid, text) for docid, text in DOCS])
            return retriever.search("w3 text", 5)
        if name == "project_index":
            with tempfile.TemporaryDirectory() as tmp:
                for i in range(40):
                    with open(os.path.join(tmp, f"f{i}.py"), "w") as f:
                        f.write("\\n".join(f"def w{j % 13}_{i}(): return {j}" for j in range(50)))
                project = ProjectIndex.open(tmp)
                return len(project.index), project.index.search_pairs("w3_7", k=3)
        if name == "commit":
            index = rserini.Index.build(DOCS[:200], progress=False)
            index.add([("new", "fresh text")])
            index.delete(["d3"])
            index.commit(threads=2)
            index.optimize()
            return len(index), index.search_pairs("fresh", k=1)
        raise ValueError(name)


    def child(name, queue):
        queue.put(op(name))


    if __name__ == "__main__":
        name, method = sys.argv[1:3]
        expected = op(name)  # the parent's pools are alive from here on
        if method == "os.fork":
            pid = os.fork()
            if pid == 0:
                os._exit(0 if op(name) == expected else 3)
            _, status = os.waitpid(pid, 0)
            assert os.waitstatus_to_exitcode(status) == 0, status
        elif method == "pool":
            with mp.get_context("fork").Pool(2) as pool:
                assert pool.map(op, [name] * 4) == [expected] * 4
        else:
            ctx = mp.get_context(method)
            queue = ctx.Queue()
            process = ctx.Process(target=child, args=(name, queue))
            process.start()
            assert queue.get(timeout=60) == expected
            process.join(60)
            assert process.exitcode == 0
        # And the parent still works after its child.
        assert op(name) == expected
        print("ok")
    """
)

OPERATIONS = [
    "build",
    "from_jsonl",
    "batch_search",
    "batch_search_threads",
    "batch_search_pairs",
    "analyze_batch",
    "commit",
    "read_documents",
    "lexical_index",
    "project_index",
]


@pytest.fixture(scope="module")
def script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fork") / "fork_case.py"
    path.write_text(SCRIPT)
    return path


@pytest.mark.parametrize("operation", OPERATIONS)
@pytest.mark.parametrize("method", ["os.fork", "fork", "forkserver", "spawn"])
def test_pool_users_work_in_a_child_process(script: Path, operation: str, method: str) -> None:
    """The same call in a forked (or spawned) child returns the parent's result."""
    out = run_python(script, operation, method, timeout=90)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


@pytest.mark.parametrize("operation", ["batch_search", "batch_search_pairs", "analyze_batch"])
def test_multiprocessing_pool_with_fork(script: Path, operation: str) -> None:
    out = run_python(script, operation, "pool", timeout=90)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_grandchild_after_child_used_the_pools(script: Path) -> None:
    """A fork of a fork: each generation rebuilds its pools once."""
    code = textwrap.dedent(
        f"""
        import os, runpy
        ns = runpy.run_path({str(script)!r})
        expected = ns["op"]("batch_search")
        pid = os.fork()
        if pid == 0:
            assert ns["op"]("batch_search") == expected
            grandchild = os.fork()
            if grandchild == 0:
                os._exit(0 if ns["op"]("batch_search") == expected else 3)
            _, status = os.waitpid(grandchild, 0)
            os._exit(os.waitstatus_to_exitcode(status))
        _, status = os.waitpid(pid, 0)
        print(os.waitstatus_to_exitcode(status))
        """
    )
    out = run_python(code, timeout=90)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0"


def test_distinct_thread_counts_do_not_accumulate_threads() -> None:
    """threads=1..60 once each: only the few most recent pools stay alive."""
    code = textwrap.dedent(
        """
        import os, time
        import rserini
        index = rserini.Index.build([("a", "apple"), ("b", "banana")], progress=False)
        for n in range(1, 61):
            index.batch_search(["apple"], k=1, threads=n)
        deadline = time.monotonic() + 10
        while True:
            alive = len(os.listdir("/proc/self/task"))
            if alive <= 200 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        print(alive)
        """
    )
    out = run_python(code, timeout=60)
    assert out.returncode == 0, out.stderr
    # Three pools kept (58 + 59 + 60 threads) and the interpreter's own threads;
    # every pool kept forever would leave 1,830 pool threads.
    assert int(out.stdout) <= 200


THREADED_CALLS = {
    "build": lambda index, t: rserini.Index.build([("a", "x")], threads=t, progress=False),
    "commit": lambda index, t: index.commit(threads=t),
    "batch_search": lambda index, t: index.batch_search(["apple"], threads=t),
    "batch_search_pairs": lambda index, t: index.batch_search_pairs(["apple"], threads=t),
}


@pytest.fixture
def index() -> rserini.Index:
    return rserini.Index.build([("a", "apple pie"), ("b", "banana")], progress=False)


def max_threads() -> int:
    """The stated upper limit, read from the error message (it depends on the cores)."""
    index = rserini.Index.build([("a", "x")], progress=False)
    with pytest.raises(QueryError) as e:
        index.batch_search(["x"], threads=0)
    found = re.search(r"at most (\d+)", str(e.value))
    assert found is not None
    return int(found.group(1))


def test_the_limit_is_stated() -> None:
    assert max_threads() >= 256


@pytest.mark.parametrize("call", sorted(THREADED_CALLS))
@pytest.mark.parametrize("threads", [0, -1, -(2**70), 2**40, 2**70, "max+1"])
def test_threads_out_of_range_is_a_query_error(
    index: rserini.Index, call: str, threads: int | str
) -> None:
    n = max_threads() + 1 if threads == "max+1" else threads
    with pytest.raises(QueryError, match=r"threads must be at least 1 and at most \d+") as e:
        THREADED_CALLS[call](index, n)
    assert f"got {n}" in str(e.value)


@pytest.mark.parametrize("call", sorted(THREADED_CALLS))
@pytest.mark.parametrize("threads", [True, 1.5, "2", 2.0, [2]])
def test_threads_of_the_wrong_type_is_a_type_error(
    index: rserini.Index, call: str, threads: object
) -> None:
    with pytest.raises(TypeError, match="threads must be an int"):
        THREADED_CALLS[call](index, threads)


def test_threads_at_the_limit_works() -> None:
    code = textwrap.dedent(
        f"""
        import rserini
        index = rserini.Index.build([("a", "apple"), ("b", "banana")], progress=False)
        one = index.batch_search_pairs(["apple"] * 3, k=1, threads=1)
        print(index.batch_search_pairs(["apple"] * 3, k=1, threads={max_threads()}) == one)
        """
    )
    out = run_python(code, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
