//! The writer's protocol: the lock, rebasing on other writers' commits,
//! rollback, and commits into a folder a crashed writer left behind.

use std::collections::HashSet;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use super::*;
use crate::analysis::AnalyzerConfig;
use crate::store;

fn build(docs: &[(&str, &str)]) -> Index {
    let docs = docs
        .iter()
        .map(|&(d, t)| (d.to_owned(), t.to_owned()))
        .collect();
    Index::build(AnalyzerConfig::default(), docs).unwrap()
}

fn saved(dir: &Path, docs: &[(&str, &str)]) -> Arc<Index> {
    Arc::new(store::save(&build(docs), dir, None).unwrap())
}

fn load(dir: &Path) -> Arc<Index> {
    Arc::new(store::load(dir, true).unwrap())
}

fn docs(pairs: &[(&str, &str)]) -> Vec<Doc> {
    pairs.iter().map(|&(d, t)| Doc::new(d, t)).collect()
}

fn strings(docids: &[&str]) -> Vec<String> {
    docids.iter().map(|&d| d.to_owned()).collect()
}

/// The live docids of `index`, sorted.
fn live(index: &Index) -> Vec<String> {
    let mut ids: Vec<String> = index.live_docids().into_iter().map(str::to_owned).collect();
    ids.sort();
    ids
}

#[test]
fn a_second_writer_is_locked_out_until_the_first_commits_then_builds_on_it() {
    let dir = tempfile::tempdir().unwrap();
    let index = saved(dir.path(), &[("a", "apple"), ("b", "banana")]);
    let mut first = IndexWriter::new(Arc::clone(&index)).unwrap();
    assert!(first.is_locked());
    first
        .add(docs(&[("x", "cherry")]), Duplicates::Error)
        .unwrap();
    // Another writer on the same folder, whether on the same snapshot or a fresh load.
    for other in [Arc::clone(&index), load(dir.path())] {
        match IndexWriter::new(other) {
            Err(Error::Locked(path)) => assert_eq!(path.file_name().unwrap(), "write.lock"),
            other => panic!("expected Error::Locked, got {other:?}"),
        }
    }
    assert!(matches!(
        store::save(&build(&[("z", "zz")]), dir.path(), None),
        Err(Error::Locked(_))
    ));
    let committed = first.commit().unwrap();
    assert!(!first.is_locked());
    assert_eq!(live(&committed), ["a", "b", "x"]);
    // The second writer started from the old snapshot: it moves to the
    // committed state, so its commit keeps the first writer's document.
    let mut second = IndexWriter::new(index).unwrap();
    assert_eq!(live(second.base()), ["a", "b", "x"]);
    second
        .add(docs(&[("y", "date")]), Duplicates::Error)
        .unwrap();
    second.commit().unwrap();
    assert_eq!(live(&load(dir.path())), ["a", "b", "x", "y"]);
}

#[test]
fn a_delete_another_writer_made_meanwhile_is_dropped_at_commit() {
    let dir = tempfile::tempdir().unwrap();
    // Queued in memory, without the lock; the folder is another writer's
    // to change until this writer commits.
    let mut late = IndexWriter::new(Arc::new(build(&[("a", "apple"), ("b", "banana")]))).unwrap();
    late.delete(strings(&["a"])).unwrap();
    late.add(docs(&[("n", "new")]), Duplicates::Error).unwrap();
    late.save(dir.path()).unwrap();
    assert!(!late.is_locked() && late.has_changes());

    let mut other = IndexWriter::new(load(dir.path())).unwrap();
    other.delete(strings(&["a"])).unwrap();
    other
        .add(docs(&[("o", "other")]), Duplicates::Error)
        .unwrap();
    other.commit().unwrap();

    let committed = late.commit().unwrap();
    assert_eq!(live(&committed), ["b", "n", "o"]);
    assert_eq!(live(&load(dir.path())), ["b", "n", "o"]);
}

#[test]
fn a_writer_opened_on_a_stale_snapshot_sees_the_newer_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let stale = saved(dir.path(), &[("a", "apple"), ("b", "banana")]);
    let mut other = IndexWriter::new(load(dir.path())).unwrap();
    other.delete(strings(&["a"])).unwrap();
    other.commit().unwrap();

    let mut writer = IndexWriter::new(stale).unwrap();
    assert!(matches!(
        writer.delete(strings(&["a"])),
        Err(Error::UnknownDocid(d)) if d == "a"
    ));
    assert!(!writer.has_changes() && writer.is_locked());
    writer.delete(strings(&["b"])).unwrap();
    assert!(writer.commit().unwrap().is_empty());
}

#[test]
fn rollback_releases_the_lock_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let index = saved(dir.path(), &[("a", "apple")]);
    let meta = fs::read(dir.path().join("meta.json")).unwrap();
    let mut writer = IndexWriter::new(Arc::clone(&index)).unwrap();
    writer
        .add(docs(&[("x", "cherry")]), Duplicates::Error)
        .unwrap();
    writer.delete(strings(&["a"])).unwrap();
    writer.rollback();
    assert_eq!(fs::read(dir.path().join("meta.json")).unwrap(), meta);
    // Dropping a writer releases the lock as well.
    let mut dropped = IndexWriter::new(Arc::clone(&index)).unwrap();
    dropped
        .add(docs(&[("x", "cherry")]), Duplicates::Error)
        .unwrap();
    drop(dropped);
    let mut next = IndexWriter::new(index).unwrap();
    next.add(docs(&[("y", "date")]), Duplicates::Error).unwrap();
    next.commit().unwrap();
    assert_eq!(live(&load(dir.path())), ["a", "y"]);
}

#[test]
fn a_commit_into_a_folder_a_crashed_writer_left_behind_succeeds_and_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let index = saved(dir.path(), &[("a", "apple"), ("b", "banana")]);
    // What a writer killed mid-save leaves: its lock file (the OS released
    // the lock with the process), temporaries, and segment files that no
    // meta.json lists.
    let leftovers = [
        ".meta.json.99999-0.tmp",
        ".seg000009.postings.99999-3.tmp",
        "seg000009.postings",
        "seg000009.docids",
        "seg000001.7.del",
    ];
    for name in leftovers {
        fs::write(dir.path().join(name), b"partial").unwrap();
    }
    fs::write(dir.path().join("notes.txt"), b"the user's own").unwrap();
    let mut writer = IndexWriter::new(index).unwrap();
    writer
        .add(docs(&[("x", "cherry")]), Duplicates::Error)
        .unwrap();
    writer.delete(strings(&["a"])).unwrap();
    writer.commit().unwrap();

    let reloaded = load(dir.path());
    assert_eq!(live(&reloaded), ["b", "x"]);
    store::verify(dir.path()).unwrap();
    let files: HashSet<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    for name in leftovers {
        assert!(!files.contains(name), "{name} was left behind");
    }
    assert!(
        files.contains("notes.txt"),
        "a file not of ours was removed"
    );
}

#[test]
fn a_failed_commit_discards_the_changes_and_releases_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let index = saved(dir.path(), &[("a", "apple")]);
    let mut writer = IndexWriter::new(Arc::clone(&index)).unwrap();
    writer
        .add(docs(&[("a", "again")]), Duplicates::Error)
        .unwrap();
    let err = writer.commit().unwrap_err();
    assert!(matches!(err, Error::Document(_)), "{err}");
    assert!(!writer.is_locked() && !writer.has_changes());
    let mut next = IndexWriter::new(index).unwrap();
    next.add(docs(&[("n", "new"), ("n", "twice")]), Duplicates::Error)
        .unwrap();
    assert!(next.commit().is_err());
    assert_eq!(live(&load(dir.path())), ["a"]);
}

#[test]
fn a_commit_without_changes_does_not_republish_an_older_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let stale = saved(dir.path(), &[("a", "apple")]);
    let mut newer = IndexWriter::new(load(dir.path())).unwrap();
    newer
        .add(docs(&[("x", "cherry")]), Duplicates::Error)
        .unwrap();
    newer.commit().unwrap();
    // Opened on the stale snapshot with nothing to do.
    let mut idle = IndexWriter::new(stale).unwrap();
    let latest = idle.commit().unwrap();
    assert_eq!(live(&latest), ["a", "x"]);
    assert_eq!(live(&load(dir.path())), ["a", "x"]);
    assert_eq!(latest.generation(), load(dir.path()).generation());
}

#[test]
fn queued_adds_and_deletes_of_one_docid_cancel_or_replace() {
    let mut writer = IndexWriter::new(Arc::new(build(&[("a", "apple")]))).unwrap();
    assert!(!writer.is_locked());
    writer
        .add(docs(&[("n", "banana")]), Duplicates::Error)
        .unwrap();
    writer.delete(strings(&["n"])).unwrap();
    assert!(!writer.has_changes());
    writer.delete(strings(&["a"])).unwrap();
    writer
        .add(docs(&[("a", "grape")]), Duplicates::Error)
        .unwrap();
    let index = writer.commit().unwrap();
    assert_eq!(live(&index), ["a"]);
    assert_eq!(index.stored("a").unwrap().contents, "grape");
    assert!(index.dir().is_none());
}

#[test]
fn one_commit_takes_one_duplicates_policy_and_keep_deletes_every_copy() {
    let mut writer = IndexWriter::new(Arc::new(build(&[("a", "apple")]))).unwrap();
    writer
        .add(docs(&[("a", "again")]), Duplicates::Keep)
        .unwrap();
    let err = writer
        .add(docs(&[("b", "banana")]), Duplicates::Error)
        .unwrap_err()
        .to_string();
    assert!(err.contains("duplicates=\"keep\""), "{err}");
    let index = writer.commit().unwrap();
    assert_eq!(index.copies("a").unwrap().len(), 2);

    let mut writer = IndexWriter::new(index).unwrap();
    writer
        .add(docs(&[("a", "third")]), Duplicates::Keep)
        .unwrap();
    writer.delete(strings(&["a"])).unwrap();
    assert!(writer.commit().unwrap().is_empty());
}

#[test]
fn optimize_merges_and_keeps_the_lock_only_for_queued_changes() {
    let dir = tempfile::tempdir().unwrap();
    // One deletion in five documents: below the share the merge policy rewrites.
    let five = [
        ("a", "apple"),
        ("b", "banana"),
        ("e", "elder"),
        ("f", "fig"),
        ("g", "grape"),
    ];
    let index = saved(dir.path(), &five);
    let mut writer = IndexWriter::new(index).unwrap();
    writer
        .add(docs(&[("c", "cherry")]), Duplicates::Error)
        .unwrap();
    writer.delete(strings(&["a"])).unwrap();
    let committed = writer.commit().unwrap();
    assert_eq!(committed.segments().len(), 2);
    assert_eq!(committed.stats().num_deleted, 1);

    let mut writer = IndexWriter::new(committed).unwrap();
    writer
        .add(docs(&[("d", "date")]), Duplicates::Error)
        .unwrap();
    let merged = writer.optimize().unwrap();
    assert_eq!(merged.segments().len(), 1);
    assert_eq!(merged.stats().num_deleted, 0);
    assert!(
        writer.is_locked(),
        "the queued addition still needs the lock"
    );
    assert_eq!(load(dir.path()).segments().len(), 1);
    assert_eq!(
        live(&writer.commit().unwrap()),
        ["b", "c", "d", "e", "f", "g"]
    );

    let mut idle = IndexWriter::new(load(dir.path())).unwrap();
    idle.optimize().unwrap();
    assert!(!idle.is_locked());
    IndexWriter::new(load(dir.path())).unwrap();
}

#[test]
fn save_moves_queued_changes_to_the_new_folder_but_not_under_a_lock() {
    let dir = tempfile::tempdir().unwrap();
    let mut writer = IndexWriter::new(Arc::new(build(&[("a", "apple")]))).unwrap();
    writer
        .add(docs(&[("x", "cherry")]), Duplicates::Error)
        .unwrap();
    let saved = writer.save(&dir.path().join("idx")).unwrap();
    assert_eq!(live(&saved), ["a"]);
    assert_eq!(live(&writer.commit().unwrap()), ["a", "x"]);
    assert_eq!(live(&load(&dir.path().join("idx"))), ["a", "x"]);

    let mut locked = IndexWriter::new(load(&dir.path().join("idx"))).unwrap();
    let err = locked.save(&dir.path().join("elsewhere")).unwrap_err();
    assert!(matches!(err, Error::Query(_)), "{err}");
    assert!(!dir.path().join("elsewhere").exists());
}
