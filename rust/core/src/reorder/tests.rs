use proptest::prelude::*;

use super::bisection::{BisectionConfig, ForwardIndex, bisect};
use super::{Reorder, reordered};
use crate::analysis::AnalyzerConfig;
use crate::document::Doc;
use crate::index::{Duplicates, Index, IndexBuilder};
use crate::scoring::{Bm25Params, Bm25Variant, LengthMode};
use crate::search::{Algorithm, Model, Request};

/// `clusters` groups of documents, each drawing its terms from a
/// vocabulary of its own (plus a few shared terms), interleaved in the input
/// order so that no group is contiguous.
fn planted(seed: u64, docs: usize, clusters: u32, per_doc: usize) -> (Vec<Vec<u32>>, Vec<u32>) {
    let mut next = crate::testing::xorshift(seed | 1);
    let vocab = 40u32;
    let shared = 10u32;
    let mut forward = Vec::with_capacity(docs);
    let mut labels = Vec::with_capacity(docs);
    for d in 0..docs {
        let cluster = (d as u32) % clusters;
        let mut terms: Vec<u32> = (0..per_doc)
            .map(|_| {
                let r = next();
                if r.is_multiple_of(8) {
                    clusters * vocab + (r >> 8) as u32 % shared
                } else {
                    cluster * vocab + (r >> 8) as u32 % vocab
                }
            })
            .collect();
        terms.sort_unstable();
        terms.dedup();
        forward.push(terms);
        labels.push(cluster);
    }
    (forward, labels)
}

fn small_partitions() -> BisectionConfig {
    BisectionConfig {
        min_partition: 4,
        ..BisectionConfig::default()
    }
}

fn is_permutation(order: &[u32], n: usize) -> bool {
    let mut seen = vec![false; n];
    order.len() == n
        && order
            .iter()
            .all(|&d| (d as usize) < n && !std::mem::replace(&mut seen[d as usize], true))
}

#[test]
fn bisection_recovers_planted_clusters() {
    let (docs, labels) = planted(7, 2048, 8, 12);
    let forward = ForwardIndex::new(&docs, 8 * 40 + 10);
    let identity: Vec<u32> = (0..docs.len() as u32).collect();
    let order = bisect(&forward, &BisectionConfig::default());
    assert!(is_permutation(&order, docs.len()));
    let (before, after) = (
        forward.log_gap_cost(&identity),
        forward.log_gap_cost(&order),
    );
    // Interleaved clusters cost about log2(8) = 3 bits a posting; grouped,
    // far less.
    assert!(after < 0.6 * before, "cost {before} -> {after}");
    // Each cluster ends up in one run of documents (up to a few stragglers).
    let changes = order
        .windows(2)
        .filter(|w| labels[w[0] as usize] != labels[w[1] as usize])
        .count();
    assert!(
        changes <= 3 * 8,
        "{changes} cluster changes along the order"
    );
}

#[test]
fn bisection_is_independent_of_the_thread_count() {
    // Large enough for the parallel gain computation and parallel halves.
    let (docs, _) = planted(11, 10_000, 16, 6);
    let forward = ForwardIndex::new(&docs, 16 * 40 + 10);
    let config = BisectionConfig::default();
    let orders: Vec<Vec<u32>> = [1, 2, 3]
        .iter()
        .map(|&threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| bisect(&forward, &config))
        })
        .collect();
    assert!(is_permutation(&orders[0], docs.len()));
    assert_eq!(orders[0], orders[1]);
    assert_eq!(orders[0], orders[2]);
}

#[test]
fn degenerate_inputs_give_the_identity() {
    for n in [0usize, 1, 2, 63] {
        let docs: Vec<Vec<u32>> = (0..n).map(|d| vec![d as u32 % 3]).collect();
        let order = bisect(&ForwardIndex::new(&docs, 3), &BisectionConfig::default());
        assert_eq!(order, (0..n as u32).collect::<Vec<_>>());
    }
    // No kept term at all: nothing to gain.
    let docs = vec![Vec::new(); 500];
    let order = bisect(&ForwardIndex::new(&docs, 0), &BisectionConfig::default());
    assert_eq!(order, (0..500).collect::<Vec<u32>>());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn bisection_gives_a_permutation_and_lowers_the_cost_of_clustered_input(
        seed in any::<u64>(),
        docs in 64usize..800,
        clusters in 2u32..12,
        per_doc in 3usize..20,
    ) {
        let (forward, _) = planted(seed, docs, clusters, per_doc);
        let forward = ForwardIndex::new(&forward, (clusters * 40 + 10) as usize);
        let order = bisect(&forward, &small_partitions());
        prop_assert!(is_permutation(&order, docs));
        let identity: Vec<u32> = (0..docs as u32).collect();
        prop_assert!(forward.log_gap_cost(&order) < forward.log_gap_cost(&identity));
    }

    #[test]
    fn bisection_gives_a_permutation_of_any_graph(
        docs in proptest::collection::vec(proptest::collection::btree_set(0u32..30, 0..8), 0..300),
        min_partition in 1usize..8,
    ) {
        let docs: Vec<Vec<u32>> = docs.into_iter().map(|s| s.into_iter().collect()).collect();
        let config = BisectionConfig { min_partition, ..BisectionConfig::default() };
        let order = bisect(&ForwardIndex::new(&docs, 30), &config);
        prop_assert!(is_permutation(&order, docs.len()));
    }
}

/// Documents of words `w0`, `w1`, … in topical groups: document `d` draws
/// mostly from group `d % 5`'s words, so that reordering moves documents far.
fn corpus(seed: u64, docs: usize, vocab: u64) -> Vec<Doc> {
    let mut next = crate::testing::xorshift(seed | 1);
    (0..docs)
        .map(|d| {
            let len = 1 + next() % (1 + next() % 60);
            let group = d as u64 % 5;
            let words: Vec<String> = (0..len)
                .map(|_| {
                    let r = next() % vocab;
                    let w = if next().is_multiple_of(4) {
                        r * r / vocab
                    } else {
                        r / 5 * 5 + group
                    };
                    format!("w{w}")
                })
                .collect();
            let mut doc = Doc::new(format!("d{:05}", (d * 7919) % 100_000), words.join(" "));
            doc.raw = Some(format!(
                "{{\"id\": \"{}\", \"contents\": \"{}\"}}",
                doc.docid, doc.contents
            ));
            doc.derived = d % 3 == 0;
            doc
        })
        .collect()
}

fn whitespace() -> AnalyzerConfig {
    AnalyzerConfig::preset("whitespace").unwrap()
}

fn bp(index: &Index) -> Index {
    reordered(index, &small_partitions()).unwrap()
}

/// The hits of `index` as (docid, score bits).
fn hits(
    index: &Index,
    query: &str,
    k: usize,
    model: &Model,
    algorithm: Algorithm,
) -> Vec<(String, u32)> {
    Request::new(*model, k)
        .with_algorithm(algorithm)
        .search(index, query)
        .unwrap()
        .iter()
        .map(|h| (index.docid(h.doc).unwrap().to_owned(), h.score.to_bits()))
        .collect()
}

const ALGORITHMS: [Algorithm; 4] = [
    Algorithm::Exhaustive,
    Algorithm::MaxScore,
    Algorithm::BlockMaxWand,
    Algorithm::Auto,
];

#[test]
fn a_reordered_index_moves_documents_and_keeps_every_result() {
    let docs = corpus(3, 3000, 200);
    let plain = Index::build_docs(whitespace(), docs.clone(), true).unwrap();
    let bp = bp(&plain);
    let moved = (0..plain.id_space())
        .filter(|&id| plain.docid(id) != bp.docid(id))
        .count();
    assert!(moved > 1000, "only {moved} documents moved");
    assert_eq!(bp.len(), plain.len());
    for doc in &docs {
        let id = bp.doc(&doc.docid).unwrap();
        let (s, local) = bp.locate(id).unwrap();
        let stored = bp.segments()[s].data().stored(local).unwrap();
        assert_eq!(stored.raw, doc.raw);
        assert_eq!(stored.derived, doc.derived);
        assert_eq!(stored.contents, doc.contents);
    }
    let models = [
        Model::Bm25(Bm25Params::default()),
        Model::Bm25(
            Bm25Params::new(1.2, 0.75, Bm25Variant::Bm25Plus, LengthMode::Exact, None).unwrap(),
        ),
        Model::TfIdf,
    ];
    for model in &models {
        for query in [
            "w0 w1 w2",
            "w3",
            "w10 w15 w20 w25",
            "w199 w7",
            "w0 w5 w10 w40 w41",
        ] {
            for k in [1, 10, 129, 1000, 5000] {
                let expected = hits(&plain, query, k, model, Algorithm::Exhaustive);
                for algorithm in ALGORITHMS {
                    assert_eq!(
                        hits(&bp, query, k, model, algorithm),
                        expected,
                        "{query} {k} {algorithm:?}"
                    );
                }
            }
        }
    }
}

/// Any BM25 model: k1 and b at and between their extremes, every variant,
/// both length modes.
fn any_bm25() -> impl Strategy<Value = Model> {
    let k1 = prop_oneof![Just(0.0f64), 0.01f64..3.0, Just(25.0)];
    let b = prop_oneof![Just(0.0f64), 0.0f64..1.0, Just(1.0)];
    let variant = prop::sample::select(vec![
        Bm25Variant::Lucene,
        Bm25Variant::Robertson,
        Bm25Variant::Atire,
        Bm25Variant::Bm25L,
        Bm25Variant::Bm25Plus,
    ]);
    let length = prop::sample::select(vec![LengthMode::Lucene, LengthMode::Exact]);
    (k1, b, variant, length)
        .prop_map(|(k1, b, v, l)| Model::Bm25(Bm25Params::new(k1, b, v, l, None).unwrap()))
}

/// An index of the first `docs` of `all`, then changed: `deletes` of them
/// deleted, the rest of `all` added (two segments, deletions).
fn changed_index(all: &[Doc], docs: usize, deletes: usize) -> Index {
    let (first, added) = all.split_at(docs);
    let index = Index::build_docs(whitespace(), first.to_vec(), false).unwrap();
    if deletes == 0 && added.is_empty() {
        return index;
    }
    let step = (docs / deletes.max(1)).max(1);
    let gone: Vec<String> = first
        .iter()
        .step_by(step)
        .take(deletes)
        .map(|d| d.docid.clone())
        .collect();
    index.with_changes(added.to_vec(), &gone, false).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn reordered_indexes_search_like_plain_ones_and_pruned_like_exhaustive(
        (seed, docs, vocab) in (any::<u64>(), 1usize..1200, 2u64..300),
        (deletes, extra) in (0usize..40, 0usize..200),
        queries in proptest::collection::vec(proptest::collection::vec(0u64..300, 1..10), 1..5),
        k in prop_oneof![1usize..20, 20usize..1500],
        model in any_bm25(),
    ) {
        let plain = changed_index(&corpus(seed, docs + extra, vocab), docs, deletes.min(docs / 2));
        let bp = bp(&plain);
        for q in &queries {
            let words: Vec<String> = q.iter().map(|r| format!("w{}", r % vocab)).collect();
            let query = words.join(" ");
            let expected = hits(&plain, &query, k, &model, Algorithm::Exhaustive);
            for algorithm in ALGORITHMS {
                prop_assert_eq!(&hits(&bp, &query, k, &model, algorithm), &expected, "{} {:?}", query, algorithm);
            }
        }
    }
}

#[test]
fn reordering_a_changed_index_equals_reordering_a_fresh_build() {
    let docs = corpus(5, 1200, 150);
    let (first, added) = docs.split_at(1000);
    let gone: Vec<String> = first.iter().step_by(7).map(|d| d.docid.clone()).collect();
    let changed = Index::build_docs(whitespace(), first.to_vec(), true)
        .unwrap()
        .with_changes(added.to_vec(), &gone, true)
        .unwrap();
    let live: Vec<Doc> = docs
        .iter()
        .filter(|d| !gone.contains(&d.docid))
        .cloned()
        .collect();
    let fresh = Index::build_docs(whitespace(), live, true).unwrap();
    let (a, b) = (bp(&changed), bp(&fresh));
    same_segment(&a, &b);
    // And a budgeted build, in runs, reorders into the same index too.
    let mut builder = IndexBuilder::new(whitespace(), true)
        .unwrap()
        .with_memory_budget(0);
    for part in docs.chunks(250) {
        builder.add_batch(part.to_vec()).unwrap();
    }
    let whole = Index::build_docs(whitespace(), docs.clone(), true).unwrap();
    same_segment(&bp(&builder.finish().unwrap()), &bp(&whole));
}

fn same_segment(a: &Index, b: &Index) {
    let (x, y) = (a.segments()[0].data(), b.segments()[0].data());
    assert_eq!(x.docids.bytes(), y.docids.bytes());
    assert_eq!(x.lengths, y.lengths);
    assert_eq!(x.terms.as_fst().as_bytes(), y.terms.as_fst().as_bytes());
    assert_eq!(&x.postings[..], &y.postings[..]);
    for d in 0..x.len() as u32 {
        assert_eq!(x.stored(d), y.stored(d));
    }
}

#[test]
fn copies_of_a_docid_keep_their_order() {
    // Copies with different texts: bisection would separate them, but the
    // first copy added stays first, for lookups and for ties.
    let mut docs = corpus(9, 1500, 100);
    for i in 0..200 {
        let mut copy = docs[(i * 37) % 1500].clone();
        copy.contents = format!("w{} w{}", i % 5, (i * 13) % 100);
        copy.raw = None;
        docs.push(copy);
    }
    let build = |docs: Vec<Doc>| {
        let mut builder = IndexBuilder::new(whitespace(), true)
            .unwrap()
            .with_duplicates(Duplicates::Keep);
        builder.add_batch(docs).unwrap();
        builder.finish().unwrap()
    };
    let plain = build(docs.clone());
    let bp = bp(&plain);
    for doc in &docs[..1500] {
        let copies = bp.copies(&doc.docid).unwrap();
        let texts: Vec<String> = copies
            .iter()
            .map(|&id| {
                let (s, d) = bp.locate(id).unwrap();
                bp.segments()[s].data().stored(d).unwrap().contents
            })
            .collect();
        let expected: Vec<&str> = docs
            .iter()
            .filter(|d| d.docid == doc.docid)
            .map(|d| d.contents.as_str())
            .collect();
        assert_eq!(texts, expected);
    }
    let model = Model::Bm25(Bm25Params::default());
    for query in ["w0", "w1 w2", "w13 w26"] {
        let expected = hits(&plain, query, 3000, &model, Algorithm::Exhaustive);
        let got = hits(&bp, query, 3000, &model, Algorithm::Exhaustive);
        // Equal docids compare by copy order: the same (docid, score) list.
        assert_eq!(got, expected);
    }
}

#[test]
fn reorder_names_parse() {
    assert_eq!(Reorder::parse("bp").unwrap(), Reorder::Bp);
    assert_eq!(Reorder::parse("none").unwrap(), Reorder::None);
    let err = Reorder::parse("random").unwrap_err().to_string();
    assert!(err.contains("unknown reorder \"random\""), "{err}");
    let empty = Index::build_docs(whitespace(), Vec::new(), true).unwrap();
    assert!(Reorder::Bp.apply(empty).unwrap().is_empty());
}
