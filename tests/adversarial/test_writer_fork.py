"""A writer's lock and fork(): the child inherits the open lock but never commits under it,
and nothing the parent commits is lost. Each case forks inside a fresh interpreter, with a
timeout, so a hang fails instead of blocking."""

from __future__ import annotations

from pathlib import Path

import rserini
from support import outcome

PARENT_DOCS = [(f"p{i:04d}", f"parent words {i}") for i in range(3000)]


def saved(tmp_path: Path) -> Path:
    folder = tmp_path / "idx"
    rserini.Index.build([("a", "apple"), ("b", "banana")], progress=False).save(folder)
    return folder


def test_a_forked_child_cannot_commit_under_its_parents_lock(tmp_path: Path) -> None:
    """Both sides add 3,000 documents and commit: the child's commit is IndexLockedError,
    the parent's lands whole, and the folder verifies."""
    folder = saved(tmp_path)
    code = """
    import os
    index = rserini.Index.load(ARGS[0])
    index.add([(f"p{i:04d}", f"parent words {i}") for i in range(3000)])
    pid = os.fork()
    if pid == 0:
        try:
            index.add([(f"c{i:04d}", f"child words {i}") for i in range(3000)])
            index.commit()
            os._exit(0)
        except rserini.IndexLockedError:
            os._exit(3)
        except BaseException:
            os._exit(4)
    index.commit()
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 3, os.waitstatus_to_exitcode(status)
    """
    assert outcome(code, folder, timeout=120) == "ok"
    index = rserini.Index.load(folder)
    index.verify()
    assert len(index) == 2 + len(PARENT_DOCS)
    assert all(d in index for d, _ in PARENT_DOCS) and "c0000" not in index


def test_the_parent_writes_again_while_its_forked_child_lives(tmp_path: Path) -> None:
    """After the parent commits, the lock is free for the parent's next change even though
    a child still holds a copy of the lock file."""
    folder = saved(tmp_path)
    code = """
    import os
    index = rserini.Index.load(ARGS[0])
    index.add([("x", "cherry")])
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.read(read, 1)  # lives, with its copy of the lock, until the parent is done
        os._exit(0)
    try:
        index.commit()
        index.add([("y", "date")])
        index.commit()
    finally:
        os.write(write, b"x")
        os.waitpid(pid, 0)
    """
    assert outcome(code, folder) == "ok"
    index = rserini.Index.load(folder)
    assert "x" in index and "y" in index


def test_a_forked_child_writes_after_rolling_back_once_the_parent_is_done(
    tmp_path: Path,
) -> None:
    """The child may not use the inherited lock, nor take its own while the parent holds
    it; once the parent commits, a rolled-back child loads the index and writes."""
    folder = saved(tmp_path)
    code = """
    import os
    index = rserini.Index.load(ARGS[0])
    index.delete("a")
    child_ready, parent_done = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:
        results = []
        for attempt in (index.commit, lambda: rserini.Index.load(ARGS[0]).add([("z", "fig")])):
            try:
                attempt()
                results.append("ok")
            except rserini.IndexLockedError:
                results.append("locked")
        index.rollback()
        os.write(child_ready[1], b"x")
        os.read(parent_done[0], 1)
        own = rserini.Index.load(ARGS[0])
        own.add([("z", "fig")])
        own.commit()
        os._exit(0 if results == ["locked", "locked"] else 5)
    os.read(child_ready[0], 1)
    index.commit()
    os.write(parent_done[1], b"x")
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, os.waitstatus_to_exitcode(status)
    """
    assert outcome(code, folder) == "ok"
    index = rserini.Index.load(folder)
    index.verify()
    assert sorted(d for d in ["a", "b", "z"] if d in index) == ["b", "z"]
