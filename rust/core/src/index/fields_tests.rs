//! Multifield indexes built, changed, merged and reordered: each field
//! always the index a fresh build of its texts gives.

use super::*;
use crate::scoring::Bm25Params;
use crate::search::search_fields;

/// Documents with a `title` member (some empty, some missing) as JSON.
fn corpus(n: usize, seed: u64) -> Vec<Doc> {
    let mut next = crate::testing::xorshift(seed);
    let mut words = |count: u64| -> String {
        let n = next() % count;
        (0..n)
            .map(|_| format!("w{}", next() % 50))
            .collect::<Vec<_>>()
            .join(" ")
    };
    (0..n)
        .map(|i| {
            let docid = format!("d{}", (i * 7919) % (n * 3));
            let contents = words(30);
            let title = words(6);
            let raw = match i % 5 {
                0 => format!("{{\"id\": \"{docid}\", \"contents\": \"{contents}\"}}"),
                _ => format!(
                    "{{\"id\": \"{docid}\", \"contents\": \"{contents}\", \"title\": \"{title}\"}}"
                ),
            };
            Doc {
                docid,
                contents,
                raw: Some(raw),
                derived: true,
            }
        })
        .collect()
}

fn title_docs(docs: &[Doc]) -> Vec<Doc> {
    let names = ["title".to_owned()];
    docs.iter()
        .map(|d| {
            let text = crate::document::field_texts(d, &names).unwrap().remove(0);
            Doc::new(d.docid.clone(), text)
        })
        .collect()
}

/// The reference: each field built on its own and attached.
fn reference(docs: &[Doc]) -> Index {
    let config = AnalyzerConfig::default();
    let main = Index::build_docs(config.clone(), docs.to_vec(), false).unwrap();
    let title = Index::build_docs(config, title_docs(docs), false).unwrap();
    main.with_fields(vec![("title".into(), title)]).unwrap()
}

fn build(docs: &[Doc], budget: usize) -> Index {
    let mut builder = IndexBuilder::new(AnalyzerConfig::default(), true)
        .unwrap()
        .with_fields(&["title".to_owned()])
        .unwrap()
        .with_memory_budget(budget);
    for batch in docs.chunks(37) {
        builder.add_batch(batch.to_vec()).unwrap();
    }
    builder.finish().unwrap()
}

fn rankings(index: &Index) -> Vec<Vec<(String, f32)>> {
    let boosts = [("contents".to_owned(), 1.0), ("title".to_owned(), 0.5)];
    let title = [("title".to_owned(), 1.3)];
    let mut out = Vec::new();
    for query in ["w1 w2", "w3 w3 w4 w7", "w10", "w49 w0 w5"] {
        for fields in [&boosts[..], &title[..]] {
            let hits = search_fields(index, query, 1000, &Bm25Params::default(), fields).unwrap();
            out.push(
                hits.iter()
                    .map(|h| (index.docid(h.doc).unwrap().to_owned(), h.score))
                    .collect(),
            );
        }
    }
    out
}

#[test]
fn a_multifield_build_is_each_field_built_on_its_own() {
    let docs = corpus(300, 7);
    let expected = rankings(&reference(&docs));
    for budget in [0, 4096, DEFAULT_MEMORY_BUDGET] {
        let index = build(&docs, budget);
        assert_eq!(index.field_names(), ["contents", "title"]);
        assert_eq!(rankings(&index), expected, "budget {budget}");
        let title = index.field("title").unwrap();
        assert!(!title.has_store());
        assert_eq!(title.stats().num_docs, 300);
        assert_eq!(
            title.stats().num_nonempty_docs,
            reference(&docs)
                .field("title")
                .unwrap()
                .stats()
                .num_nonempty_docs
        );
    }
}

#[test]
fn changes_merges_and_reordering_keep_every_field() {
    let docs = corpus(300, 11);
    let mut index = build(&docs[..120], DEFAULT_MEMORY_BUDGET);
    let mut live: Vec<Doc> = docs[..120].to_vec();
    // Many small commits, so the merge policy merges and rewrites.
    for (round, adds) in docs[120..].chunks(20).enumerate() {
        let deletes: Vec<String> = live
            .iter()
            .skip(round * 3)
            .step_by(4)
            .take(6)
            .map(|d| d.docid.clone())
            .collect();
        index = index.with_changes(adds.to_vec(), &deletes, true).unwrap();
        live.retain(|d| !deletes.contains(&d.docid));
        live.extend(adds.iter().cloned());
        assert_eq!(
            rankings(&index),
            rankings(&reference(&live)),
            "round {round}"
        );
    }
    assert!(index.segments().len() > 1);
    let expected = rankings(&reference(&live));
    assert_eq!(rankings(&index.merged().unwrap()), expected);
    let reordered = crate::reorder::Reorder::Bp.apply(index).unwrap();
    assert_eq!(rankings(&reordered), expected);
}

#[test]
fn bad_fields_are_refused_before_anything_is_added() {
    let builder = || IndexBuilder::new(AnalyzerConfig::default(), false).unwrap();
    for names in [vec!["contents"], vec!["t", "t"], vec!["a/b"], vec![""]] {
        let names: Vec<String> = names.into_iter().map(String::from).collect();
        assert!(
            matches!(builder().with_fields(&names), Err(Error::Argument(_))),
            "{names:?}"
        );
    }
    let mut builder = builder().with_fields(&["title".to_owned()]).unwrap();
    let mut doc = Doc::new("a", "x");
    doc.raw = Some(r#"{"id": "a", "contents": "x", "title": ["no"]}"#.into());
    let err = builder.add_batch(vec![doc]).unwrap_err();
    assert!(
        matches!(&err, Error::Document(m) if m.contains("\"a\"") && m.contains("title")),
        "{err}"
    );
    assert!(builder.is_empty());
}
