//! Every algorithm returns exactly the hits of exhaustive scoring: the same
//! documents, in the same order, with bit-identical scores.

use std::sync::Arc;

use proptest::prelude::*;

use crate::analysis::AnalyzerConfig;
use crate::document::Doc;
use crate::index::Index;
use crate::scoring::qld::QldParams;
use crate::scoring::{Bm25Params, Bm25Variant, LengthMode};
use crate::search::{Algorithm, Model, Request, ScoredDoc, query_terms};
use crate::shards::global_stats::GlobalStats;
use crate::shards::merge::merge_topk;

/// Documents of words `w0`, `w1`, … drawn with a skew (low numbers
/// common), so that some lists span many blocks and others are short.
fn corpus(seed: u64, docs: usize, vocab: u64) -> Vec<Doc> {
    let mut next = crate::testing::xorshift(seed | 1);
    (0..docs)
        .map(|d| {
            let len = 1 + next() % (1 + next() % 120);
            let words: Vec<String> = (0..len)
                .map(|_| {
                    let r = next() % vocab;
                    format!("w{}", r * r / vocab)
                })
                .collect();
            Doc::new(format!("d{:05}", (d * 7919) % 100_000), words.join(" "))
        })
        .collect()
}

fn index(seed: u64, docs: usize, vocab: u64, deletes: usize, extra: usize) -> Index {
    let config = AnalyzerConfig::preset("whitespace").unwrap();
    let all = corpus(seed, docs + extra, vocab);
    let (first, added) = all.split_at(docs);
    let mut index = Index::build_docs(config, first.to_vec(), false).unwrap();
    if deletes > 0 || extra > 0 {
        let gone: Vec<String> = first
            .iter()
            .step_by((docs / deletes.max(1)).max(1))
            .take(deletes)
            .map(|d| d.docid.clone())
            .collect();
        index = index.with_changes(added.to_vec(), &gone, false).unwrap();
    }
    index
}

fn variant(i: usize) -> Bm25Variant {
    [
        Bm25Variant::Lucene,
        Bm25Variant::Robertson,
        Bm25Variant::Atire,
        Bm25Variant::Bm25L,
        Bm25Variant::Bm25Plus,
    ][i % 5]
}

fn check(index: &Index, query: &str, k: usize, model: &Model) -> Result<(), TestCaseError> {
    check_algorithms(query, k, |algorithm| {
        search_with(index, query, k, model, algorithm)
    })
}

/// Every pruning's hits (`run` by algorithm) equal exhaustive scoring's.
fn check_algorithms(
    query: &str,
    k: usize,
    run: impl Fn(Algorithm) -> Vec<ScoredDoc>,
) -> Result<(), TestCaseError> {
    let expected = run(Algorithm::Exhaustive);
    for algorithm in [
        Algorithm::MaxScore,
        Algorithm::BlockMaxWand,
        Algorithm::Auto,
    ] {
        let got = run(algorithm);
        prop_assert_eq!(got.len(), expected.len(), "{:?} {}", algorithm, query);
        for (g, e) in got.iter().zip(&expected) {
            prop_assert_eq!(g.doc, e.doc, "{:?} {} k={}", algorithm, query, k);
            prop_assert_eq!(g.score.to_bits(), e.score.to_bits());
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn pruned_equals_exhaustive(
        seed in any::<u64>(),
        docs in 1usize..1500,
        vocab in 2u64..400,
        deletes in 0usize..40,
        extra in 0usize..300,
        queries in proptest::collection::vec(proptest::collection::vec(0u64..400, 1..12), 1..6),
        k in prop_oneof![1usize..20, 20usize..2000],
        k1 in prop_oneof![Just(0.0f64), 0.01f64..3.0, Just(25.0)],
        b in prop_oneof![Just(0.0f64), 0.0f64..1.0, Just(1.0)],
        v in 0usize..5,
        exact in any::<bool>(),
    ) {
        let index = index(seed, docs, vocab, deletes.min(docs / 2), extra);
        let length = if exact { LengthMode::Exact } else { LengthMode::Lucene };
        let model = Model::Bm25(Bm25Params::new(k1, b, variant(v), length, None).unwrap());
        for q in &queries {
            let words: Vec<String> = q.iter().map(|r| format!("w{}", r * r / vocab.max(1))).collect();
            check(&index, &words.join(" "), k, &model)?;
        }
    }
}

#[test]
fn ties_at_the_threshold_are_broken_by_docid() {
    // Every document has the same length and one matching term: all
    // scores tie, so the top k is decided by docid alone.
    let config = AnalyzerConfig::preset("whitespace").unwrap();
    let docs: Vec<Doc> = (0..1000)
        .map(|d| Doc::new(format!("d{:04}", (d * 389) % 1000), "a b"))
        .collect();
    let index = Index::build_docs(config, docs, false).unwrap();
    let model = Model::Bm25(Bm25Params::default());
    for k in [1, 10, 129, 999, 1000, 1001] {
        check(&index, "a b", k, &model).unwrap();
        let hits = search_with(&index, "a", k, &model, Algorithm::MaxScore);
        let first: Vec<&str> = hits.iter().map(|h| index.docid(h.doc).unwrap()).collect();
        assert_eq!(first[0], "d0000");
    }
}

#[test]
fn length_bounds_matter_when_every_tf_is_one() {
    // One posting per document for each query term, lengths all
    // different: only the length part of the bound separates documents.
    let config = AnalyzerConfig::preset("whitespace").unwrap();
    let docs: Vec<Doc> = (0..3000)
        .map(|d| {
            let length = 1 + (d * 7919) % 97;
            let mut words = vec!["x"; length];
            words[0] = if d % 3 == 0 { "a" } else { "b" };
            if d % 5 == 0 {
                words.push("c");
            }
            Doc::new(format!("d{d:05}"), words.join(" "))
        })
        .collect();
    let index = Index::build_docs(config, docs, false).unwrap();
    for b in [0.0, 0.3, 0.75, 1.0] {
        for exact in [false, true] {
            let length = if exact {
                LengthMode::Exact
            } else {
                LengthMode::Lucene
            };
            let params = Bm25Params::new(1.2, b, Bm25Variant::Lucene, length, None).unwrap();
            for k in [1, 5, 50, 400] {
                check(&index, "a c", k, &Model::Bm25(params)).unwrap();
                check(&index, "b", k, &Model::Bm25(params)).unwrap();
            }
        }
    }
}

#[test]
fn tfidf_and_negative_weights_fall_back_to_exhaustive() {
    let index = index(7, 800, 30, 0, 0);
    check(&index, "w0 w1 w2 w17", 10, &Model::TfIdf).unwrap();
    // Robertson's idf is negative for terms in over half the documents.
    let robertson =
        Bm25Params::new(1.2, 0.75, Bm25Variant::Robertson, LengthMode::Exact, None).unwrap();
    check(&index, "w0 w1 w20", 10, &Model::Bm25(robertson)).unwrap();
}

/// `index`'s statistics with the dfs and cfs of `query`'s terms.
fn stats_for(index: &Index, query: &str) -> GlobalStats {
    let terms = query_terms(index, query).unwrap();
    GlobalStats::of_terms(index, terms.iter().map(|t| t.term.as_str()), true)
}

/// [`check`] under foreign statistics `stats`.
fn check_with_stats(
    index: &Index,
    query: &str,
    k: usize,
    model: &Model,
    stats: &GlobalStats,
) -> Result<(), TestCaseError> {
    check_algorithms(query, k, |algorithm| {
        Request::new(*model, k)
            .with_algorithm(algorithm)
            .with_stats(Some(Arc::new(stats.clone())))
            .search(index, query)
            .unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    /// Block-max bounds are built from the weights at query time, so they
    /// stay exact when the weights come from another collection's
    /// statistics (here this index's plus another's, as a shard sees them).
    #[test]
    fn pruned_equals_exhaustive_under_foreign_statistics(
        seed in any::<u64>(),
        other_seed in any::<u64>(),
        docs in 1usize..1200,
        other_docs in 0usize..3000,
        vocab in 2u64..300,
        deletes in 0usize..40,
        queries in proptest::collection::vec(proptest::collection::vec(0u64..300, 1..10), 1..5),
        k in prop_oneof![1usize..20, 20usize..1500],
        k1 in prop_oneof![Just(0.0f64), 0.01f64..3.0, Just(25.0)],
        b in prop_oneof![Just(0.0f64), 0.0f64..1.0, Just(1.0)],
        v in 0usize..5,
        exact in any::<bool>(),
    ) {
        let index = index(seed, docs, vocab, deletes.min(docs / 2), 0);
        let other = index_of(corpus(other_seed, other_docs, vocab));
        let length = if exact { LengthMode::Exact } else { LengthMode::Lucene };
        let model = Model::Bm25(Bm25Params::new(k1, b, variant(v), length, None).unwrap());
        for q in &queries {
            let words: Vec<String> = q.iter().map(|r| format!("w{}", r * r / vocab.max(1))).collect();
            let query = words.join(" ");
            let stats = GlobalStats::sum([&stats_for(&index, &query), &stats_for(&other, &query)]).unwrap();
            check_with_stats(&index, &query, k, &model, &stats)?;
        }
    }
}

fn index_of(docs: Vec<Doc>) -> Index {
    Index::build_docs(AnalyzerConfig::preset("whitespace").unwrap(), docs, false).unwrap()
}

/// A corpus with empty documents and repeated texts, its first `built`
/// documents built into an index, then the rest added and `gone` deleted;
/// and the same documents split into `shards` indexes by `shard_of`, each
/// changed alike.
fn single_and_shards(
    docs: &[Doc],
    built: usize,
    gone: &[String],
    shards: usize,
    shard_of: impl Fn(usize) -> usize,
) -> (Index, Vec<Index>) {
    let apply = |first: Vec<Doc>, added: Vec<Doc>, gone: Vec<String>| {
        let index = index_of(first);
        if added.is_empty() && gone.is_empty() {
            index
        } else {
            index.with_changes(added, &gone, false).unwrap()
        }
    };
    let single = apply(
        docs[..built].to_vec(),
        docs[built..].to_vec(),
        gone.to_vec(),
    );
    let parts = (0..shards)
        .map(|s| {
            let mine = |range: std::ops::Range<usize>| -> Vec<Doc> {
                range
                    .filter(|&i| shard_of(i) == s)
                    .map(|i| docs[i].clone())
                    .collect()
            };
            let first = mine(0..built);
            let gone = first
                .iter()
                .filter(|d| gone.contains(&d.docid))
                .map(|d| d.docid.clone())
                .collect();
            apply(first, mine(built..docs.len()), gone)
        })
        .collect();
    (single, parts)
}

/// `query` over `shards`, each scored with the sum of their statistics,
/// merged: `(docid, score bits)`, best first.
fn sharded_search(
    shards: &[Index],
    query: &str,
    k: usize,
    model: &Model,
    algorithm: Algorithm,
    global: bool,
) -> Vec<(String, u32)> {
    let parts_stats: Vec<GlobalStats> = shards.iter().map(|s| stats_for(s, query)).collect();
    let stats = GlobalStats::sum(&parts_stats).unwrap();
    let rankings: Vec<Vec<(String, f32)>> = shards
        .iter()
        .zip(&parts_stats)
        .map(|(shard, own)| {
            let stats = if global { &stats } else { own };
            Request::new(*model, k)
                .with_algorithm(algorithm)
                .with_stats(Some(Arc::new(stats.clone())))
                .search(shard, query)
                .unwrap()
                .into_iter()
                .map(|h| (shard.docid(h.doc).unwrap().to_owned(), h.score))
                .collect()
        })
        .collect();
    let parts: Vec<Vec<(&[u8], f32)>> = rankings
        .iter()
        .map(|r| r.iter().map(|(d, s)| (d.as_bytes(), *s)).collect())
        .collect();
    merge_topk(&parts, k)
        .unwrap()
        .into_iter()
        .map(|(p, i)| (rankings[p][i].0.clone(), rankings[p][i].1.to_bits()))
        .collect()
}

fn single_search(index: &Index, query: &str, k: usize, model: &Model) -> Vec<(String, u32)> {
    search_with(index, query, k, model, Algorithm::Exhaustive)
        .into_iter()
        .map(|h| (index.docid(h.doc).unwrap().to_owned(), h.score.to_bits()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    /// Any partition into shards, each searched with the summed statistics
    /// and merged, gives the single index's hits bit for bit: empty
    /// documents, deletions, equal texts in different shards (ties across
    /// shards), terms missing from some shards and empty shards included.
    #[test]
    fn shards_with_global_statistics_equal_one_index(
        seed in any::<u64>(),
        docs in 0usize..600,
        extra in 0usize..100,
        vocab in 2u64..200,
        deletes in 0usize..30,
        shards in 1usize..9,
        queries in proptest::collection::vec(proptest::collection::vec(0u64..200, 1..8), 1..4),
        k in prop_oneof![1usize..15, 15usize..800],
        k1 in prop_oneof![Just(0.9f64), 0.0f64..3.0, Just(25.0)],
        b in prop_oneof![Just(0.4f64), 0.0f64..1.0, Just(1.0)],
        v in 0usize..5,
        exact in any::<bool>(),
        mu in prop_oneof![Just(1000.0f64), 0.0f64..3000.0],
    ) {
        let mut next = crate::testing::xorshift(seed | 1);
        let mut all = corpus(seed, docs + extra, vocab);
        for i in 0..all.len() {
            match next() % 8 {
                0 => all[i].contents = String::new(),
                1 if i > 0 => all[i].contents = all[i - 1].contents.clone(),
                _ => {}
            }
        }
        let shard_of: Vec<usize> = (0..all.len()).map(|_| (next() % shards as u64) as usize).collect();
        let gone: Vec<String> = all[..docs]
            .iter()
            .filter(|_| next() % 20 < deletes as u64 % 20)
            .map(|d| d.docid.clone())
            .collect();
        let (single, parts) = single_and_shards(&all, docs, &gone, shards, |i| shard_of[i]);
        let length = if exact { LengthMode::Exact } else { LengthMode::Lucene };
        let model = Model::Bm25(Bm25Params::new(k1, b, variant(v), length, None).unwrap());
        for q in &queries {
            let words: Vec<String> = q.iter().map(|r| format!("w{}", r * r / vocab.max(1))).collect();
            let query = words.join(" ");
            let expected = single_search(&single, &query, k, &model);
            prop_assert_eq!(&single_search(&single.merged().unwrap(), &query, k, &model), &expected);
            for algorithm in [Algorithm::Exhaustive, Algorithm::MaxScore, Algorithm::BlockMaxWand, Algorithm::Auto] {
                let got = sharded_search(&parts, &query, k, &model, algorithm, true);
                prop_assert_eq!(&got, &expected, "{:?} {} k={}", algorithm, query, k);
            }
            // Query likelihood, with the summed collection frequencies.
            let qld = Model::Qld(QldParams::new(mu).unwrap());
            let got = sharded_search(&parts, &query, k, &qld, Algorithm::Auto, true);
            prop_assert_eq!(&got, &single_search(&single, &query, k, &qld), "qld {}", query);
        }
    }
}

#[test]
fn shard_local_statistics_give_other_rankings() {
    // The guard of the test above: without the summed statistics, shards
    // score differently, so that test could fail.
    let all = corpus(11, 400, 60);
    let (single, parts) = single_and_shards(&all, 400, &[], 3, |i| i % 3);
    let model = Model::Bm25(Bm25Params::default());
    let query = "w0 w3 w17 w40";
    let expected = single_search(&single, query, 50, &model);
    assert_eq!(
        sharded_search(&parts, query, 50, &model, Algorithm::Auto, true),
        expected
    );
    assert_ne!(
        sharded_search(&parts, query, 50, &model, Algorithm::Auto, false),
        expected
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Exhaustive scoring over materialized lists (`crate::impacts`), on
    /// one thread and on several, returns what the decoding path of the
    /// pruned algorithms does, bit for bit.
    #[test]
    fn materialized_lists_score_as_decoded_ones(
        seed in any::<u64>(),
        docs in 1usize..1500,
        vocab in 2u64..400,
        deletes in 0usize..40,
        extra in 0usize..300,
        queries in proptest::collection::vec(proptest::collection::vec(0u64..400, 1..12), 1..8),
        k in prop_oneof![1usize..20, 20usize..2000],
        k1 in prop_oneof![Just(0.0f64), 0.01f64..3.0, Just(25.0)],
        b in prop_oneof![Just(0.0f64), 0.0f64..1.0, Just(1.0)],
    ) {
        let index = index(seed, docs, vocab, deletes.min(docs / 2), extra);
        let params = Bm25Params::new(k1, b, Bm25Variant::Lucene, LengthMode::Lucene, None).unwrap();
        let model = Model::Bm25(params);
        let scorer = crate::scoring::Bm25Scorer::new(params, index.collection_stats(params.length));
        let mut inverses = *scorer.lucene_norm_cache().unwrap();
        inverses[0] = f32::NAN;
        for segment in index.segments() {
            prop_assert!(segment.impacts.get(segment.data(), &inverses, u64::MAX).is_some());
        }
        let texts: Vec<String> = queries
            .iter()
            .map(|q| q.iter().map(|r| format!("w{}", r * r / vocab.max(1))).collect::<Vec<_>>().join(" "))
            .collect();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let batch = pool.install(|| {
            Request::new(model, k)
                .with_algorithm(Algorithm::Exhaustive)
                .batch(&index, &texts)
                .unwrap()
        });
        for (query, batch) in texts.iter().zip(&batch) {
            let expected = search_with(&index, query, k, &model, Algorithm::MaxScore);
            let got = search_with(&index, query, k, &model, Algorithm::Exhaustive);
            for got in [&got, batch] {
                prop_assert_eq!(got.len(), expected.len(), "{}", query);
                for (g, e) in got.iter().zip(&expected) {
                    prop_assert_eq!(g.doc, e.doc, "{} k={}", query, k);
                    prop_assert_eq!(g.score.to_bits(), e.score.to_bits());
                }
            }
        }
        // The searches ran on the materialized lists.
        for segment in index.segments() {
            prop_assert!(segment.impacts.is_built());
        }
    }
}

/// Materialized lists across several accumulation ranges (segments of more
/// than 32,768 documents), with deletions: the same hits as the decoding
/// path of MaxScore.
#[test]
fn materialized_lists_span_accumulation_ranges() {
    let config = AnalyzerConfig::preset("whitespace").unwrap();
    let docs: Vec<Doc> = (0..70_000u64)
        .map(|d| {
            let text = format!("w{} w{} w{}", d % 3, d % 50, (d * d) % 997);
            Doc::new(format!("d{d:06}"), text)
        })
        .collect();
    let gone: Vec<String> = (0..70_000)
        .step_by(97)
        .map(|d| format!("d{d:06}"))
        .collect();
    let index = Index::build_docs(config, docs, false)
        .unwrap()
        .with_changes(Vec::new(), &gone, false)
        .unwrap();
    let params = Bm25Params::new(1.2, 0.75, Bm25Variant::Lucene, LengthMode::Lucene, None).unwrap();
    let model = Model::Bm25(params);
    let scorer = crate::scoring::Bm25Scorer::new(params, index.collection_stats(params.length));
    let mut inverses = *scorer.lucene_norm_cache().unwrap();
    inverses[0] = f32::NAN;
    for segment in index.segments() {
        assert!(segment.data().len() > 2 * (1 << 15));
        assert!(
            segment
                .impacts
                .get(segment.data(), &inverses, u64::MAX)
                .is_some()
        );
    }
    for query in ["w1 w7", "w0 w13 w500", "w2", "w49 w996 w3"] {
        for k in [1, 10, 1000] {
            let expected = search_with(&index, query, k, &model, Algorithm::MaxScore);
            let got = search_with(&index, query, k, &model, Algorithm::Exhaustive);
            assert_eq!(got.len(), expected.len(), "{query} k={k}");
            for (g, e) in got.iter().zip(&expected) {
                assert_eq!(
                    (g.doc, g.score.to_bits()),
                    (e.doc, e.score.to_bits()),
                    "{query} k={k}"
                );
            }
        }
    }
    for segment in index.segments() {
        assert!(segment.impacts.is_built());
    }
}

/// The hits of `query` under `model`, found by `algorithm`.
fn search_with(
    index: &Index,
    query: &str,
    k: usize,
    model: &Model,
    algorithm: Algorithm,
) -> Vec<ScoredDoc> {
    Request::new(*model, k)
        .with_algorithm(algorithm)
        .search(index, query)
        .unwrap()
}
