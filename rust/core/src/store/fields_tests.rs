//! Saving and loading multifield indexes: round trips, saves in place,
//! interrupted saves and the field folders' garbage.

use std::path::Path;

use super::save::save_field;
use super::*;
use crate::analysis::AnalyzerConfig;
use crate::error::Error;
use crate::index::Index;
use crate::scoring::Bm25Params;
use crate::search::search_fields;

fn multifield(docs: &[(&str, &str, &str)]) -> Index {
    let config = AnalyzerConfig::preset("lucene-english").unwrap();
    let main = docs.iter().map(|d| (d.0.to_owned(), d.1.to_owned()));
    let main = Index::build(config.clone(), main.collect()).unwrap();
    let title = docs.iter().map(|d| crate::document::Doc::new(d.0, d.2));
    let title = Index::build_docs(config, title.collect(), false).unwrap();
    main.with_fields(vec![("title".into(), title)]).unwrap()
}

const DOCS: [(&str, &str, &str); 4] = [
    ("d1", "cats chase mice in the garden", "garden cats"),
    ("d2", "dogs chase cats", "dogs"),
    ("d3", "mice eat cheese", ""),
    ("d4", "a garden of roses and cats", "roses in a garden"),
];

fn ranking(index: &Index, query: &str) -> Vec<(String, f32)> {
    let fields = [("contents".to_owned(), 1.0), ("title".to_owned(), 0.5)];
    search_fields(index, query, 10, &Bm25Params::default(), &fields)
        .unwrap()
        .into_iter()
        .map(|h| (index.docid(h.doc).unwrap().to_owned(), h.score))
        .collect()
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn a_multifield_index_saves_and_loads_with_its_fields() {
    let dir = tempfile::tempdir().unwrap();
    let index = multifield(&DOCS);
    let expected = ranking(&index, "garden cats");
    let saved = save(&index, dir.path(), None).unwrap();
    assert_eq!(saved.field_names(), ["contents", "title"]);
    assert_eq!(ranking(&saved, "garden cats"), expected);
    for mmap in [true, false] {
        let loaded = load(dir.path(), mmap).unwrap();
        assert_eq!(loaded.field_names(), ["contents", "title"]);
        assert_eq!(ranking(&loaded, "garden cats"), expected);
    }
    let meta = read_meta(dir.path()).unwrap();
    assert_eq!(meta.fields.len(), 1);
    assert_eq!(meta.fields[0].name, "title");
    // The field folder is a complete index of its own, with no document store.
    let folder = dir.path().join(FIELDS_DIR).join("title");
    assert_eq!(read_meta(&folder).unwrap(), meta.fields[0].index);
    assert!(!files(&folder).iter().any(|f| f.ends_with(".store")));
    assert_eq!(load(&folder, true).unwrap().len(), 4);
    verify(dir.path()).unwrap();
    // Saved again in place: the same files, a new generation.
    let loaded = load(dir.path(), true).unwrap();
    let before = files(&folder);
    let again = save(&loaded, dir.path(), None).unwrap();
    assert_eq!(again.generation(), 2);
    assert_eq!(files(&folder), before);
    assert_eq!(
        ranking(&load(dir.path(), true).unwrap(), "garden cats"),
        expected
    );
}

#[test]
fn an_interrupted_save_leaves_the_old_fields_and_the_next_save_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let old = multifield(&DOCS);
    let expected = ranking(&old, "garden cats");
    save(&old, dir.path(), None).unwrap();
    // A save of other documents that stops after writing the field folders.
    let new = multifield(&[("x", "garden", "cats cats"), ("y", "cats", "garden")]);
    let parent = read_meta(dir.path()).unwrap();
    let (_, field) = &new.extra_fields()[0];
    save_field("title", field, dir.path(), Some(&parent)).unwrap();
    let loaded = load(dir.path(), true).unwrap();
    assert_eq!(ranking(&loaded, "garden cats"), expected);
    verify(dir.path()).unwrap();
    // The next save numbers past both listings and removes what neither keeps.
    save(&new, dir.path(), None).unwrap();
    let loaded = load(dir.path(), true).unwrap();
    assert_eq!(
        ranking(&loaded, "garden cats"),
        ranking(&new, "garden cats")
    );
    let folder = dir.path().join(FIELDS_DIR).join("title");
    let listed = &read_meta(dir.path()).unwrap().fields[0].index.segments;
    // seg000001 the old save's, seg000002 the interrupted one's.
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].name, "seg000003");
    let mut kept: Vec<String> = listed[0].files.iter().map(|f| f.name.clone()).collect();
    kept.extend(["meta.json".to_owned()]);
    kept.sort();
    assert_eq!(files(&folder), kept);
    // A flat index saved over it removes the field folders.
    let flat = Index::build(AnalyzerConfig::default(), vec![("z".into(), "x".into())]).unwrap();
    save(&flat, dir.path(), None).unwrap();
    assert!(!dir.path().join(FIELDS_DIR).exists());
    assert_eq!(load(dir.path(), true).unwrap().field_names(), ["contents"]);
}

#[test]
fn damaged_or_foreign_fields_are_precise_errors() {
    let dir = tempfile::tempdir().unwrap();
    save(&multifield(&DOCS), dir.path(), None).unwrap();
    let folder = dir.path().join(FIELDS_DIR).join("title");
    std::fs::rename(&folder, dir.path().join("elsewhere")).unwrap();
    match load(dir.path(), true) {
        Err(Error::Corrupted { path, message }) => {
            assert_eq!(path, folder);
            assert!(message.contains("title"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let config = AnalyzerConfig::default();
    let one = || Index::build(config.clone(), vec![("a".into(), "x".into())]).unwrap();
    for bad in ["", ".hidden", "a/b", "..", "tïtle"] {
        let index = one().with_fields(vec![(bad.into(), one())]).unwrap();
        let target = tempfile::tempdir().unwrap();
        assert!(
            matches!(save(&index, target.path(), None), Err(Error::Argument(_))),
            "{bad:?}"
        );
    }
}

#[test]
fn a_writer_commits_changes_to_every_field() {
    let dir = tempfile::tempdir().unwrap();
    save(&multifield(&DOCS), dir.path(), None).unwrap();
    let loaded = std::sync::Arc::new(load(dir.path(), true).unwrap());
    let mut writer = crate::writer::IndexWriter::new(loaded).unwrap();
    let mut doc = crate::document::Doc::new("d5", "cats and more cats");
    doc.raw = Some(r#"{"id": "d5", "contents": "cats and more cats", "title": "garden"}"#.into());
    writer.add(vec![doc], Default::default()).unwrap();
    writer.delete(vec!["d2".into()]).unwrap();
    writer.commit().unwrap();
    let mut docs = DOCS.to_vec();
    docs.remove(1);
    docs.push(("d5", "cats and more cats", "garden"));
    let expected = ranking(&multifield(&docs), "garden cats");
    assert_eq!(
        ranking(&load(dir.path(), true).unwrap(), "garden cats"),
        expected
    );
    verify(dir.path()).unwrap();
}
