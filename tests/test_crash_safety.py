"""Crash safety: SIGKILL a process that saves and commits; the folder stays a committed state."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import rserini
from rserini import Index

ANALYZER = "plain"
QUERY = "common alpha beta gamma delta"
KILLS = 220
MAX_DELAY = 0.04

Docs = list[tuple[str, str]]

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
A = [(f"a{i:02d}", f"common {WORDS[i % 6]} {WORDS[(i * 5) % 6]} a{i}") for i in range(12)]
B = [(f"b{i:02d}", f"common {WORDS[(i * 2) % 6]} b{i} " + "gamma " * (i % 3)) for i in range(9)]
STATES: dict[str, Docs] = {
    "A": A,
    "A1": [*A[3:], ("e0", "common alpha alpha"), ("e1", "common zeta")],
    "B": B,
    "B1": [*B[:4], *B[5:], ("f0", "common delta beta")],
}
SIBLING = {"A": "A1", "A1": "A", "B": "B1", "B1": "B"}

# The victim: saves prebuilt indexes (A or B) and cycles a loaded folder between a
# state and its sibling with delete + add + commit (and sometimes optimize), forever.
CHILD = textwrap.dedent(
    """
    import json, os, random, sys
    from rserini import Index

    folder, spec, seed = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    states = {name: [tuple(d) for d in docs] for name, docs in spec["states"].items()}
    prebuilt = {
        name: Index.build(states[name], analyzer=spec["analyzer"], progress=False)
        for name in ("A", "B")
    }

    def identify(index):
        for name, docs in states.items():
            if len(index) == len(docs) and all(d in index for d, _ in docs):
                return name
        raise SystemExit(f"the folder holds no known state ({len(index)} documents)")

    os.write(1, b"started\\n")
    while True:
        if rng.random() < 0.4:
            prebuilt[rng.choice("AB")].save(folder)
            continue
        index = Index.load(folder, mmap=rng.random() < 0.5)
        current = states[identify(index)]
        target = states[spec["sibling"][identify(index)]]
        ids = {d for d, _ in current}
        target_ids = {d for d, _ in target}
        index.delete(sorted(ids - target_ids))
        index.add([(d, t) for d, t in target if d not in ids])
        index.commit()
        if rng.random() < 0.2:
            index.optimize()
        del index
    """
)


def build(docs: Docs) -> Index:
    return Index.build(docs, analyzer=ANALYZER, progress=False)


def ranked(index: Index, query: str, k: int = 50) -> list[tuple[str, float]]:
    return [(h.docid, h.score) for h in index.search(query, k=k)]


def listed_files(folder: Path) -> set[str]:
    meta = json.loads((folder / "meta.json").read_text())
    names = {f["name"] for s in meta["segments"] for f in s["files"]}
    return names | {s["deletions"]["name"] for s in meta["segments"] if s["deletions"]}


def committed_state(folder: Path, expected: dict[str, tuple], mmap: bool) -> str:
    """Loads the folder and names the committed state it holds (asserting it is one)."""
    index = Index.load(folder, mmap=mmap)
    docids = frozenset(h.docid for h in index.search("common", k=100))
    results = tuple(ranked(index, QUERY))
    names = [
        name
        for name, (ids, want) in expected.items()
        if ids == docids and want == results and len(index) == len(ids)
    ]
    assert names, f"not a committed state: {sorted(docids)} {results}"
    index.verify()
    return names[0]


def test_sigkill_during_saves_and_commits_leaves_a_committed_state(tmp_path: Path) -> None:
    """After each of 220 SIGKILLs the folder loads, verifies and equals a committed state."""
    rng = random.Random(1234)
    folder = tmp_path / "idx"
    expected = {
        name: (frozenset(d for d, _ in docs), tuple(ranked(build(docs), QUERY)))
        for name, docs in STATES.items()
    }
    spec = json.dumps({"states": STATES, "sibling": SIBLING, "analyzer": ANALYZER})
    prebuilt = {name: build(docs) for name, docs in STATES.items()}
    seen: set[str] = set()
    interrupted = 0
    for kill in range(KILLS):
        # Each child starts from each state in turn, so every state is seen
        # however far (or little) a child gets before its kill.
        prebuilt[list(STATES)[kill % len(STATES)]].save(folder)
        seed = rng.randrange(2**32)
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(folder), spec, str(seed)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            started = child.stdout.readline() == b"started\n"
            if started:
                time.sleep(rng.uniform(0, MAX_DELAY))
            alive = started and child.poll() is None
        finally:
            child.kill()
            _, stderr = child.communicate(timeout=60)
        assert alive, f"kill #{kill} (seed {seed}): the child failed by itself:\n{stderr.decode()}"
        leftovers = set(os.listdir(folder)) - listed_files(folder) - {"meta.json", "write.lock"}
        interrupted += bool(leftovers)
        try:
            seen.add(committed_state(folder, expected, mmap=kill % 2 == 0))
            # The killed writer's lock died with it.
            probe = Index.load(folder)
            probe.add([("probe", "common")])
            del probe
        except (AssertionError, rserini.RseriniError) as e:
            raise AssertionError(f"kill #{kill} (child seed {seed}): {e}") from e
    assert interrupted > 0, "no kill interrupted a save: the test did not exercise crashes"
    assert seen == set(STATES), seen
    # The next save removes what the crashes left behind.
    build(B).save(folder)
    assert set(os.listdir(folder)) == listed_files(folder) | {"meta.json", "write.lock"}
    assert committed_state(folder, expected, mmap=True) == "B"
