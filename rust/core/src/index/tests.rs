use super::duplicates::DocidSet;
use super::*;
use crate::scoring::Bm25Params;
use crate::search::{Model, Request};

/// A small corpus with a skewed vocabulary, some empty and some
/// stopword-only documents.
fn corpus(n: usize) -> Vec<Doc> {
    let mut next = crate::testing::xorshift(12345);
    (0..n)
        .map(|i| {
            let words = (next() % 40) as usize;
            let text: Vec<String> = (0..words)
                .map(|_| {
                    let r = next() % 1000;
                    match r % 7 {
                        0 => "the".to_owned(),
                        1 => format!("running{}", r % 13),
                        _ => format!("w{}", (r * r) % 997),
                    }
                })
                .collect();
            // Docids out of order, so docid ranks matter.
            let docid = format!("d{}", (i * 7919) % n);
            let raw = format!(
                "{{\"id\": \"{docid}\", \"contents\": \"{}\"}}",
                text.join(" ")
            );
            Doc {
                docid,
                contents: text.join(" "),
                raw: Some(raw),
                derived: true,
            }
        })
        .collect()
}

fn build(docs: &[Doc], store: bool, budget: Option<usize>, batch: usize) -> Index {
    let mut builder = IndexBuilder::new(AnalyzerConfig::default(), store).unwrap();
    if let Some(b) = budget {
        builder = builder.with_memory_budget(b);
    }
    for part in docs.chunks(batch) {
        builder.add_batch(part.to_vec()).unwrap();
    }
    builder.finish().unwrap()
}

fn same(a: &Index, b: &Index) {
    // Stores hold the same documents; their compressed blocks are cut at
    // run boundaries.
    let unstored = |i: &Index| IndexStats {
        store_bytes: 0,
        ..i.stats()
    };
    assert_eq!(unstored(a), unstored(b));
    assert_eq!(a.segments.len(), 1);
    assert_eq!(b.segments.len(), 1);
    let (x, y) = (a.segments[0].data(), b.segments[0].data());
    assert_eq!(x.docids.bytes(), y.docids.bytes());
    assert_eq!(x.docid_rank, y.docid_rank);
    assert_eq!(x.lengths, y.lengths);
    assert_eq!(x.norms, y.norms);
    assert_eq!(x.terms.as_fst().as_bytes(), y.terms.as_fst().as_bytes());
    assert_eq!(&x.postings[..], &y.postings[..]);
    assert_eq!(x.num_terms(), y.num_terms());
    for ord in 0..x.num_terms() as u32 {
        assert_eq!(x.term_info(ord), y.term_info(ord));
    }
    assert_eq!(x.store.is_some(), y.store.is_some());
    for d in 0..x.len() as u32 {
        assert_eq!(x.stored(d), y.stored(d));
    }
    let model = Model::Bm25(Bm25Params::default());
    for query in ["w1 w2 w3", "running", "the w5", "w996 running3", "nothing"] {
        let search = |index| Request::new(model, 50).search(index, query).unwrap();
        let (ha, hb) = (search(a), search(b));
        assert_eq!(ha.len(), hb.len());
        for (p, q) in ha.iter().zip(&hb) {
            assert_eq!((p.doc, p.score.to_bits()), (q.doc, q.score.to_bits()));
        }
    }
}

#[test]
fn a_memory_budget_builds_the_same_index() {
    let docs = corpus(3000);
    for store in [false, true] {
        let whole = build(&docs, store, None, 100_000);
        for (budget, batch) in [(0, 7), (0, 37), (1, 500), (20_000, 64), (200_000, 1000)] {
            let spilled = build(&docs, store, Some(budget), batch);
            same(&whole, &spilled);
        }
    }
}

/// A builder with a memory budget of 0, given `docs` in batches of `batch`:
/// every batch becomes a run of its own.
fn zero_budget_builder(docs: &[Doc], batch: usize) -> IndexBuilder {
    let mut builder = IndexBuilder::new(AnalyzerConfig::default(), false)
        .unwrap()
        .with_memory_budget(0);
    for part in docs.chunks(batch) {
        builder.add_batch(part.to_vec()).unwrap();
    }
    builder
}

#[test]
fn a_budget_keeps_compressed_runs_until_finish() {
    let docs = corpus(500);
    let builder = zero_budget_builder(&docs, 50);
    assert_eq!(builder.done.len(), 10);
    assert_eq!(builder.len(), 500);
    assert_eq!(builder.finish().unwrap().segments.len(), 1);
}

#[test]
fn duplicates_are_found_across_flushed_segments() {
    let docs = corpus(300);
    let mut builder = zero_budget_builder(&docs, 100);
    let again = vec![Doc::new("x", "new"), docs[5].clone()];
    let err = builder.add_batch(again).unwrap_err().to_string();
    assert!(err.contains("duplicate docid"), "{err}");
    assert!(err.contains("documents #5 and #301"), "{err}");
    // Nothing was added by the failed batch.
    assert_eq!(builder.len(), 300);
    builder.add_batch(vec![Doc::new("x", "new")]).unwrap();
    let err = builder
        .add_batch(vec![Doc::new("y", "a"), Doc::new("y", "b")])
        .unwrap_err()
        .to_string();
    assert!(err.contains("documents #301 and #302"), "{err}");
    let index = builder.finish().unwrap();
    assert_eq!(index.len(), 301);
    assert_eq!(index.doc("x").unwrap(), 300);
}

#[test]
fn docid_hash_clashes_are_told_apart() {
    let mut set = DocidSet::default();
    let docids = ["a", "b", "c", "c", "a", "d"];
    let at = |p: usize| docids.get(p).copied();
    // "a", "c" and "d" share a hash.
    assert_eq!(set.insert("a", 7, 0, at), Ok(()));
    assert_eq!(set.insert("b", 8, 1, at), Ok(()));
    assert_eq!(set.insert("c", 7, 2, at), Ok(()));
    assert_eq!(set.clashes.get("c"), Some(&2));
    assert_eq!(set.insert("c", 7, 3, at), Err(2));
    assert_eq!(set.insert("a", 7, 4, at), Err(0));
    assert_eq!(set.insert("d", 7, 5, at), Ok(()));
    set.remove("d", 7, 5);
    set.remove("a", 7, 0);
    assert_eq!(set.clashes.get("d"), None);
    assert_eq!(set.insert("a", 7, 4, at), Ok(()));
    assert_eq!(set.insert("c", 7, 3, at), Err(2));
}
