"""The Ray engine on a local two-node cluster (loopback): the same shard bytes as the
local engine, the same rankings, and answers that survive a killed actor and a removed
node with two replicas; one replica killed is a ShardUnavailableError (or a partial
result when allowed); a shard at a new generation makes the search gather the
statistics again. Every wait is bounded, so a hang fails."""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import rserini
from rserini.distributed import ShardedIndex, ShardUnavailableError, build_shards, shard_of
from rserini.distributed.manifest import read_manifest
from sharding import delete_everywhere, folder_bytes, write_corpus
from support import cli

pytestmark = [
    pytest.mark.ray,
    # Ray's own modules warn on import in some environments; none of ours do.
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

# Ray resolves "127.0.0.1" to the machine's outward address unless told that this is a
# single-machine setup, read when Ray is imported: then every node and this driver bind
# and connect on loopback only.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
try:
    import ray
    from ray.cluster_utils import Cluster
except ImportError:  # pragma: no cover - the ray extra is part of the test install
    if os.environ.get("CI"):
        raise
    pytest.skip('Ray is not installed: pip install "rserini[ray]"', allow_module_level=True)

NODE = {"num_cpus": 1, "node_ip_address": "127.0.0.1"}
SHARDS = 2
WORDS = [
    *("router", "packet", "network", "switch", "frame"),
    *("plant", "energy", "sunlight", "asteroid", "orbit"),
]
DOCS = [
    (f"d{i:04d}", " ".join(WORDS[(i * j + j) % len(WORDS)] for j in range(1 + i % 7)))
    for i in range(400)
]
QUERIES = ["router network", "plant energy sunlight", "asteroid", "frame switch packet"]


def wait_alive(actor: object, timeout: float = 60) -> None:
    """Waits until a restarting actor answers again (a call meanwhile fails at once)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            ray.get(actor.ready.remote(), timeout=timeout)  # type: ignore[attr-defined]
            return
        except ray.exceptions.ActorUnavailableError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    c = Cluster(initialize_head=True, head_node_args={**NODE, "include_dashboard": False})
    c.add_node(**NODE)
    c.wait_for_nodes(timeout=60)
    ray.init(address=c.address, logging_level="WARNING", log_to_driver=False)
    yield c
    ray.shutdown()
    c.shutdown()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("corpus") / "docs.jsonl", DOCS)


@pytest.fixture(scope="module")
def sharded(corpus: Path, tmp_path_factory: pytest.TempPathFactory, cluster: Cluster) -> Path:
    return build_shards(corpus, tmp_path_factory.mktemp("ray") / "s", SHARDS, engine="ray")


@pytest.fixture(scope="module")
def single(corpus: Path) -> rserini.Index:
    return rserini.Index.from_jsonl(corpus, progress=False)


def test_ray_builds_the_bytes_the_local_engine_builds(sharded: Path, corpus: Path, tmp_path: Path):
    by_ray = folder_bytes(sharded)
    copy = tmp_path / "copy"
    shutil.copytree(sharded, copy)
    shutil.rmtree(sharded)
    try:
        assert folder_bytes(build_shards(corpus, sharded, SHARDS, workers=1)) == by_ray
    finally:  # the module's later tests read it: leave the Ray build in place
        shutil.rmtree(sharded)
        shutil.copytree(copy, sharded)


def test_replicas_answer_as_one_index_through_a_killed_actor_and_a_removed_node(
    sharded: Path, single: rserini.Index, cluster: Cluster
):
    expected = single.batch_search_pairs(QUERIES, 50, k1=1.2, b=0.75)
    with ShardedIndex.open(sharded, engine="ray", replicas=2, deadline_s=20) as index:
        engine = index.engine
        # The two replicas of every shard run on different nodes.
        assert all(len(set(nodes)) == 2 for nodes in engine.placement), engine.placement
        assert index.batch_search_pairs(QUERIES, 50, k1=1.2, b=0.75) == expected
        assert index.search_pairs("router", 5) == single.search_pairs("router", 5)
        docid = expected[0][0][0]
        assert str(index.explain(QUERIES[0], docid)) == str(single.explain(QUERIES[0], docid))

        # Killed actors restart (max_restarts); meanwhile their replicas answer.
        ray.kill(engine.actors[0][0], no_restart=False)
        ray.kill(engine.actors[1][1], no_restart=False)
        for _ in range(3):
            assert index.batch_search_pairs(QUERIES, 50, k1=1.2, b=0.75) == expected
        # Both back before the node leaves: each shard keeps a replica on the head node.
        for actor in (a for shard in engine.actors for a in shard):
            wait_alive(actor)

        worker = next(iter(cluster.worker_nodes))
        answers: list[object] = []
        errors: list[BaseException] = []
        stop = threading.Event()

        def search() -> None:
            try:
                while not stop.is_set():
                    answers.append(index.batch_search_pairs(QUERIES * 20, 50, k1=1.2, b=0.75))
            except BaseException as e:
                errors.append(e)

        searcher = threading.Thread(target=search)
        searcher.start()
        try:
            time.sleep(0.5)
            cluster.remove_node(worker)  # mid-batch: the searcher never pauses
            before = len(answers)
            deadline = time.monotonic() + 60
            while len(answers) < before + 2 and time.monotonic() < deadline:
                time.sleep(0.2)
        finally:
            stop.set()
            searcher.join(timeout=90)
            cluster.add_node(**NODE)
            cluster.wait_for_nodes(timeout=60)
        assert not searcher.is_alive(), "the search hung"
        assert not errors, errors
        assert len(answers) >= before + 2, "no answer after the node left"
        assert all(a == expected * 20 for a in answers)


def test_one_replica_killed_is_a_shard_unavailable_error(sharded: Path, single: rserini.Index):
    with ShardedIndex.open(sharded, engine="ray", replicas=1, deadline_s=20) as index:
        assert index.search_pairs("network", 1000) == single.search_pairs("network", 1000)
        ray.kill(index.engine.actors[1][0], no_restart=True)
        with pytest.raises(ShardUnavailableError, match=r"^shard 1 ") as e:
            index.search_pairs("network", 1000)
        assert e.value.shard == 1
        partial = index.search_pairs("network", 1000, allow_partial=True)
        assert partial.partial and partial.missing_shards == (1,)
        assert {d for d, _ in partial} == {
            d for d, _ in single.search_pairs("network", 1000) if shard_of(d, SHARDS) == 0
        }
        assert index.search_pairs("network", 10, allow_partial=True).missing_shards == (1,)
        ray.kill(index.engine.actors[0][0], no_restart=True)
        nothing = index.batch_search_pairs(["network", "plant"], 10, allow_partial=True)
        assert nothing == [[], []] and nothing.missing_shards == (0, 1)


def test_a_missed_deadline_goes_to_the_next_replica_then_fails(sharded: Path):
    with (
        ShardedIndex.open(sharded, engine="ray", replicas=2, deadline_s=1e-6) as index,
        pytest.raises(ShardUnavailableError, match="none of its 2 replica"),
    ):
        index.search_pairs("network", 10)


def test_a_new_generation_makes_the_search_gather_statistics_again(
    sharded: Path, corpus: Path, tmp_path: Path
):
    copy = tmp_path / "s"
    shutil.copytree(sharded, copy)
    gone = next(d for d, _ in DOCS if shard_of(d, SHARDS) == 1 and "router" in dict(DOCS)[d])
    with ShardedIndex.open(copy, engine="ray", replicas=2, deadline_s=20) as index:
        before = index.search_pairs("router network", 100)
        rounds = index.stats_rounds
        assert index.search_pairs("router network", 100) == before
        assert index.stats_rounds == rounds  # cached: no round 1
        single = rserini.Index.from_jsonl(corpus, progress=False)
        delete_everywhere(copy, SHARDS, single, [gone])
        index.refresh()
        after = index.search_pairs("router network", 100)
        assert index.stats_rounds == rounds + 1  # round 2 answered stale: round 1 again
    assert after == single.search_pairs("router network", 100) != before


def test_a_commit_reaches_every_replica(sharded: Path, corpus: Path, tmp_path: Path):
    copy = tmp_path / "s"
    shutil.copytree(sharded, copy)
    single = rserini.Index.from_jsonl(corpus, progress=False)
    added, gone = [("n1", "router router network"), ("n2", "asteroid orbit")], ["d0001", "d0002"]
    with (
        ShardedIndex.open(copy, engine="ray", replicas=2, deadline_s=20) as index,
        ShardedIndex.open(copy, engine="ray", deadline_s=20) as reader,
    ):
        before = reader.batch_search_pairs(QUERIES, 50)
        index.delete(gone)
        index.add(added)
        index.commit()
        single.delete(gone)
        single.add(added)
        single.commit()
        expected = single.batch_search_pairs(QUERIES, 50)
        for _ in range(3):  # requests turn over the replicas
            assert index.batch_search_pairs(QUERIES, 50) == expected
        recorded = [s.generation for s in read_manifest(copy).shards]
        for shard, replicas in enumerate(index.engine.actors):  # type: ignore[attr-defined]
            answers = ray.get([a.call.remote("round1", ([], False)) for a in replicas], timeout=60)
            assert {generation for _, (generation, _) in answers} == {recorded[shard]}
        assert reader.batch_search_pairs(QUERIES, 50) == before
        reader.refresh()
        assert reader.batch_search_pairs(QUERIES, 50) == expected != before


def test_cli_index_shards_on_the_cluster(corpus: Path, sharded: Path, cluster: Cluster, tmp_path):
    out = tmp_path / "cli"
    done = cli("index", "--input", corpus, "--index", out, "--shards", str(SHARDS),
               "--ray", cluster.address, "-q", timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    # Another output folder, the same bytes (meta.json and sharded.json included).
    data = folder_bytes(out)
    assert data == folder_bytes(sharded)
    assert len(data) >= SHARDS * 9
