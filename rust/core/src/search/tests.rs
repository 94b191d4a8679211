//! Every algorithm returns exactly the hits of exhaustive scoring: the same
//! documents, in the same order, with bit-identical scores.

use proptest::prelude::*;

use crate::analysis::AnalyzerConfig;
use crate::document::Doc;
use crate::index::Index;
use crate::scoring::{Bm25Params, Bm25Variant, LengthMode};
use crate::search::{Algorithm, Model, search_with};

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
    let expected = search_with(index, query, k, model, Algorithm::Exhaustive);
    for algorithm in [
        Algorithm::MaxScore,
        Algorithm::BlockMaxWand,
        Algorithm::Auto,
    ] {
        let got = search_with(index, query, k, model, algorithm);
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
