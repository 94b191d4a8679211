use std::os::unix::fs::MetadataExt;

use super::*;
use crate::lucene::reader::tests::fixture;
use crate::scoring::Bm25Params;
use crate::scoring::qld::QldParams;
use crate::search::{Model, Request};

const QUERIES: [&str; 4] = [
    "information retrieval",
    "library catalog indexing",
    "computer science documentation",
    "the of a",
];

/// A copy of a committed fixture in a temporary folder.
fn copy_of(name: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    copy_into(name, tmp.path());
    tmp
}

fn copy_into(name: &str, dir: &Path) {
    for entry in fs::read_dir(fixture(name)).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
}

/// Every query's top 1000 under BM25 and QLD (and over the fields with
/// boosts, where there are some), as (docid, score bits).
fn rankings(index: &Index) -> Vec<Vec<(String, u32)>> {
    let mut requests = vec![
        Request::new(Model::Bm25(Bm25Params::default()), 1000),
        Request::new(Model::Qld(QldParams::default()), 1000),
    ];
    if index.field_names().len() > 1 {
        let boosts = index
            .field_names()
            .iter()
            .map(|n| (n.to_string(), 0.5))
            .collect();
        requests
            .push(Request::new(Model::Bm25(Bm25Params::default()), 1000).with_fields(Some(boosts)));
    }
    let mut out = Vec::new();
    for request in &requests {
        for query in QUERIES {
            let hits = request.search(index, query).unwrap();
            out.push(
                hits.iter()
                    .map(|h| (index.docid(h.doc).unwrap().to_owned(), h.score.to_bits()))
                    .collect(),
            );
        }
    }
    out
}

/// Name, bytes and modification time of every file of `dir`.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>, i64, i64)> {
    let mut files: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let meta = e.metadata().unwrap();
            let bytes = fs::read(e.path()).unwrap();
            let name = e.file_name().into_string().unwrap();
            (name, bytes, meta.mtime(), meta.mtime_nsec())
        })
        .collect();
    files.sort();
    files
}

fn meta_identity(entry: &Path) -> (u64, i64, i64) {
    let meta = fs::metadata(entry.join("meta.json")).unwrap();
    (meta.ino(), meta.mtime(), meta.mtime_nsec())
}

#[test]
fn the_second_open_reads_the_entry_and_ranks_as_the_conversion() {
    for name in [
        "9.9.1/adi-1seg-raw",
        "9.3.0/adi-3files-2threads-raw-del5",
        "9.9.1/adi-3files-2threads-fields-title-raw",
        "9.3.0/adi-3files-2threads-cfs-drop3",
    ] {
        let root = tempfile::tempdir().unwrap();
        let lucene = fixture(name);
        let before = snapshot(&lucene);
        let reference = convert::load(&lucene).unwrap();
        let first = open(&lucene, Some(root.path()), true).unwrap();
        let CacheUse::Written(entry) = &first.cache else {
            panic!("{name}: {:?} {:?}", first.cache, first.warning)
        };
        assert_eq!(
            entry,
            &root
                .path()
                .join(LUCENE_DIR)
                .join(cache_key(&lucene).unwrap())
        );
        let written = meta_identity(entry);
        let second = open(&lucene, Some(root.path()), true).unwrap();
        assert_eq!(second.cache, CacheUse::Read(entry.clone()), "{name}");
        assert_eq!(
            meta_identity(entry),
            written,
            "{name}: the entry was rewritten"
        );
        let expected = rankings(&reference);
        assert_eq!(rankings(&first.index), expected, "{name}");
        assert_eq!(rankings(&second.index), expected, "{name}");
        let (a, b) = (reference.stats(), second.index.stats());
        assert_eq!(
            (a.num_docs, a.num_deleted, a.total_terms),
            (b.num_docs, b.num_deleted, b.total_terms)
        );
        assert_eq!(second.index.lucene_version(), reference.lucene_version());
        assert_eq!(second.index.field_names(), reference.field_names());
        assert!(
            second.index.dir().is_none(),
            "an open index never saves into the cache"
        );
        assert_eq!(
            snapshot(&lucene),
            before,
            "{name}: the Lucene folder changed"
        );
    }
}

#[test]
fn the_key_follows_the_content_not_the_path() {
    let (a, b) = (copy_of("9.9.1/adi-1seg-raw"), copy_of("9.9.1/adi-1seg-raw"));
    let key = cache_key(a.path()).unwrap();
    assert_eq!(key, cache_key(b.path()).unwrap());
    assert_eq!(key.len(), 32);
    // A stray file outside the commit changes nothing.
    fs::write(b.path().join("notes.txt"), b"x").unwrap();
    assert_eq!(key, cache_key(b.path()).unwrap());
    // Another checksum in a footer (a rewritten file) is another key.
    let path = b.path().join("_0.nvd");
    let mut bytes = fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    fs::write(&path, bytes).unwrap();
    assert_ne!(key, cache_key(b.path()).unwrap());
}

#[test]
fn a_new_commit_gets_a_new_entry() {
    let root = tempfile::tempdir().unwrap();
    let lucene = copy_of("9.9.1/adi-1seg-raw");
    let first = open(lucene.path(), Some(root.path()), true).unwrap();
    assert!(matches!(first.cache, CacheUse::Written(_)));
    // The folder now holds another index (deletions: a new commit).
    for e in fs::read_dir(lucene.path()).unwrap() {
        fs::remove_file(e.unwrap().path()).unwrap();
    }
    copy_into("9.3.0/adi-3files-2threads-raw-del5", lucene.path());
    let second = open(lucene.path(), Some(root.path()), true).unwrap();
    assert!(
        matches!(second.cache, CacheUse::Written(_)),
        "{:?}",
        second.cache
    );
    assert_ne!(first.cache, second.cache);
    let reference = convert::load(lucene.path()).unwrap();
    assert_eq!(rankings(&second.index), rankings(&reference));
    assert_eq!(second.index.stats().num_deleted, 5);
}

#[test]
fn a_damaged_entry_is_converted_again() {
    let lucene = fixture("9.3.0/adi-3files-2threads-raw-del5");
    let expected = rankings(&convert::load(&lucene).unwrap());
    let damages: [fn(&Path); 4] = [
        |entry| {
            let path = entry.join("seg000001.lengths");
            let mut bytes = fs::read(&path).unwrap();
            bytes[3] ^= 0x10;
            fs::write(&path, bytes).unwrap();
        },
        |entry| {
            let path = entry.join("seg000001.postings");
            let bytes = fs::read(&path).unwrap();
            fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        },
        |entry| fs::remove_file(entry.join("meta.json")).unwrap(),
        |entry| {
            // Not a conversion: an rserini index of something else.
            for e in fs::read_dir(entry).unwrap() {
                fs::remove_file(e.unwrap().path()).unwrap();
            }
            let other = Index::build(Default::default(), vec![("d".into(), "t".into())]);
            store::save(&other.unwrap(), entry, None).unwrap();
        },
    ];
    for damage in damages {
        let root = tempfile::tempdir().unwrap();
        let CacheUse::Written(entry) = open(&lucene, Some(root.path()), true).unwrap().cache else {
            panic!("not written")
        };
        damage(&entry);
        let again = open(&lucene, Some(root.path()), true).unwrap();
        assert_eq!(again.cache, CacheUse::Written(entry.clone()));
        assert_eq!(rankings(&again.index), expected);
        let third = open(&lucene, Some(root.path()), true).unwrap();
        assert_eq!(third.cache, CacheUse::Read(entry.clone()));
        // Only the entry and its lock remain.
        assert_eq!(fs::read_dir(entry.parent().unwrap()).unwrap().count(), 2);
    }
}

#[test]
fn concurrent_opens_convert_once() {
    let root = tempfile::tempdir().unwrap();
    let lucene = fixture("9.9.1/adi-3files-2threads-fields-title-raw");
    let opened: Vec<Opened> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| s.spawn(|| open(&lucene, Some(root.path()), true).unwrap()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let written = opened
        .iter()
        .filter(|o| matches!(o.cache, CacheUse::Written(_)))
        .count();
    assert_eq!(
        written,
        1,
        "{:?}",
        opened.iter().map(|o| &o.cache).collect::<Vec<_>>()
    );
    let expected = rankings(&opened[0].index);
    for o in &opened {
        assert_eq!(rankings(&o.index), expected);
    }
}

#[test]
fn an_unwritable_cache_converts_in_memory_with_a_warning() {
    let root = tempfile::tempdir().unwrap();
    let blocked = root.path().join("a-file");
    fs::write(&blocked, b"in the way").unwrap();
    let lucene = fixture("9.9.1/adi-1seg-raw");
    let opened = open(&lucene, Some(&blocked), true).unwrap();
    assert_eq!(opened.cache, CacheUse::NotUsed);
    assert!(opened.warning.unwrap().contains("converted in memory"));
    assert_eq!(
        rankings(&opened.index),
        rankings(&convert::load(&lucene).unwrap())
    );
    // No cache: nothing written, no warning.
    let off = open(&lucene, None, true).unwrap();
    assert_eq!((off.cache, off.warning), (CacheUse::NotUsed, None));
    assert_eq!(fs::read(&blocked).unwrap(), b"in the way");
}

#[test]
fn damage_in_the_lucene_folder_is_an_error_not_a_fallback() {
    let root = tempfile::tempdir().unwrap();
    let lucene = copy_of("9.9.1/adi-1seg-raw");
    let path = lucene.path().join("_0.nvd");
    let mut bytes = fs::read(&path).unwrap();
    bytes[40] ^= 0x01;
    fs::write(&path, bytes).unwrap();
    let result = open(lucene.path(), Some(root.path()), true);
    assert!(
        matches!(result, Err(Error::Corrupted { .. })),
        "{:?}",
        result.map(|o| o.cache)
    );
    let entries = root.path().join(LUCENE_DIR);
    let left: Vec<_> = fs::read_dir(&entries)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left.len(), 1, "only the lock: {left:?}");
}
