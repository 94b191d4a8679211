use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::*;
use crate::lucene::input::FOOTER_LENGTH;

/// Lucene's own dump of one segment (see testdata/adi/README.md).
struct Dump {
    segment: String,
    max_doc: u32,
    fields: Vec<(u32, String, FieldLayout, String, String)>,
    /// field name -> (terms, sumTotalTermFreq, sumDocFreq, docCount)
    totals: BTreeMap<String, (u64, u64, u64, u32)>,
    /// field name -> lines "hex\tdf\tttf\tdocs\tfreqs"
    terms: BTreeMap<String, Vec<String>>,
}

fn layout(options: &str, payloads: bool) -> FieldLayout {
    FieldLayout {
        freqs: options.starts_with("DOCS_AND_FREQS"),
        positions: options.starts_with("DOCS_AND_FREQS_AND_POSITIONS"),
        offsets_or_payloads: options.ends_with("OFFSETS") || payloads,
    }
}

/// Parses the dumps of every segment in `text`.
fn parse_dumps(text: &str) -> Vec<Dump> {
    let mut out: Vec<Dump> = Vec::new();
    let mut field = String::new();
    for line in text.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        match cols[0] {
            "S" => out.push(Dump {
                segment: cols[1].split('(').next().unwrap().to_string(),
                max_doc: cols[2].parse().unwrap(),
                fields: Vec::new(),
                totals: BTreeMap::new(),
                terms: BTreeMap::new(),
            }),
            "F" => out.last_mut().unwrap().fields.push((
                cols[1].parse().unwrap(),
                cols[2].to_string(),
                layout(cols[3], cols[4] == "1"),
                cols[5].to_string(),
                cols[6].to_string(),
            )),
            "T" => {
                field = cols[1].to_string();
                let t = (
                    cols[2].parse().unwrap(),
                    cols[3].parse().unwrap(),
                    cols[4].parse().unwrap(),
                    cols[5].parse().unwrap(),
                );
                out.last_mut().unwrap().totals.insert(field.clone(), t);
            }
            _ => out
                .last_mut()
                .unwrap()
                .terms
                .entry(field.clone())
                .or_default()
                .push(line.to_string()),
        }
    }
    out
}

/// The segment id, read from the index header of one of its files.
fn segment_id(data: &[u8]) -> [u8; ID_LENGTH] {
    let name_len = data[4] as usize;
    let at = 4 + 1 + name_len + 4;
    data[at..at + ID_LENGTH].try_into().unwrap()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn join(v: &[u32]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads every field, term and postings list of one segment of the index
/// in `dir` and compares them with Lucene's dump; returns (terms, postings).
fn compare(dir: &Path, files: &BTreeMap<String, Vec<u8>>, dump: &Dump) -> Result<(u64, u64)> {
    walk(dir, files, dump, &id_of(files, dump), true)
}

/// The segment's id, from its `.tmd` header.
fn id_of(files: &BTreeMap<String, Vec<u8>>, dump: &Dump) -> [u8; ID_LENGTH] {
    let f = dump.fields.iter().find(|f| f.3 != "None").unwrap();
    segment_id(&files[&format!("{}_{}_{}.tmd", dump.segment, f.3, f.4)])
}

/// Reads every term and postings list of the segment, comparing them with
/// the dump when `check`; returns (terms, postings).
fn walk(
    dir: &Path,
    files: &BTreeMap<String, Vec<u8>>,
    dump: &Dump,
    id: &[u8; ID_LENGTH],
    check: bool,
) -> Result<(u64, u64)> {
    let paths: BTreeMap<&str, PathBuf> = files.keys().map(|k| (k.as_str(), dir.join(k))).collect();
    let open = |name: &str| -> Result<Input<'_>> {
        let data = files
            .get(name)
            .ok_or_else(|| Error::corrupted(dir.join(name), "missing"))?;
        Ok(Input::new(&paths[name], data))
    };
    let (mut n_terms, mut n_postings) = (0, 0);
    let indexed: Vec<_> = dump.fields.iter().filter(|f| f.3 != "None").collect();
    let (format, suffix) = (&indexed[0].3, &indexed[0].4);
    let specs: Vec<FieldSpec> = indexed
        .iter()
        .map(|f| FieldSpec {
            number: f.0,
            layout: f.2,
        })
        .collect();
    let terms = SegmentTerms::open(
        &open,
        &dump.segment,
        format,
        suffix,
        id,
        dump.max_doc,
        &specs,
    )?;
    if !check {
        let (mut docs, mut freqs) = (Vec::new(), Vec::new());
        for i in 0..terms.fields().len() {
            let mut e = terms.terms(i);
            while e.next()?.is_some() {
                n_terms += 1;
                e.postings(&mut docs, &mut freqs)?;
                n_postings += docs.len() as u64;
            }
        }
        return Ok((n_terms, n_postings));
    }
    assert_eq!(terms.fields().len(), dump.totals.len());
    let (mut docs, mut freqs) = (Vec::new(), Vec::new());
    for (i, f) in terms.fields().iter().enumerate() {
        let name = &dump.fields.iter().find(|x| x.0 == f.number).unwrap().1;
        let t = dump.totals[name];
        assert_eq!(
            (
                f.num_terms,
                f.sum_total_term_freq,
                f.sum_doc_freq,
                f.doc_count
            ),
            t,
            "{name}"
        );
        let expected = &dump.terms[name];
        let mut e = terms.terms(i);
        let mut k = 0;
        while let Some(s) = e.next()? {
            let line = format!("{}\t{}\t{}", hex(s.term), s.doc_freq, s.total_term_freq);
            e.postings(&mut docs, &mut freqs)?;
            let line = format!("{line}\t{}\t{}", join(&docs), join(&freqs));
            assert_eq!(line, expected[k], "{name} term {k}");
            k += 1;
            n_postings += docs.len() as u64;
        }
        assert_eq!(k, expected.len());
        n_terms += k as u64;
    }
    Ok((n_terms, n_postings))
}

fn read_dir(dir: &Path, segment: &str) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(&format!("{segment}_")) && !n.ends_with(".txt"))
        .map(|n| (n.clone(), std::fs::read(dir.join(&n)).unwrap()))
        .collect()
}

fn adi() -> (PathBuf, BTreeMap<String, Vec<u8>>, Dump) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lucene/testdata/adi");
    let text = std::fs::read_to_string(dir.join("lucene-dump.txt")).unwrap();
    let dump = parse_dumps(&text).pop().unwrap();
    let files = read_dir(&dir, "_0");
    (dir, files, dump)
}

#[test]
fn a_pyserini_index_reads_as_lucene_reads_it() {
    let (dir, files, dump) = adi();
    let (terms, postings) = compare(&dir, &files, &dump).unwrap();
    // Every term of both indexed fields (id and contents) was compared.
    assert_eq!(terms, dump.totals.values().map(|t| t.0).sum::<u64>());
    assert_eq!(postings, dump.totals.values().map(|t| t.2).sum::<u64>());
}

#[test]
fn an_unknown_postings_format_is_a_version_error() {
    let (dir, files, dump) = adi();
    let paths: BTreeMap<&str, PathBuf> = files.keys().map(|k| (k.as_str(), dir.join(k))).collect();
    let open = |name: &str| -> Result<Input<'_>> {
        let data = files.get(&name.replace("Lucene50", "Lucene99")).unwrap();
        Ok(Input::new(
            &paths[name.replace("Lucene50", "Lucene99").as_str()],
            data,
        ))
    };
    let err = SegmentTerms::open(&open, "_0", "Lucene50", "0", &[0; 16], dump.max_doc, &[])
        .err()
        .unwrap();
    assert!(matches!(err, Error::LuceneVersion { .. }), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Any flipped bit or truncation of any of the four files is an error
    /// (the checksums see it), never a panic.
    #[test]
    fn damage_is_an_error_not_a_panic(file in 0usize..4, at in any::<prop::sample::Index>(), bit in 0u8..8, truncate in any::<bool>()) {
        let (dir, mut files, dump) = adi();
        let id = id_of(&files, &dump);
        let name = files.keys().nth(file).unwrap().clone();
        let data = files.get_mut(&name).unwrap();
        let i = at.index(data.len());
        if truncate { data.truncate(i); } else { data[i] ^= 1 << bit; }
        prop_assert!(walk(&dir, &files, &dump, &id, false).is_err());
    }

    /// With the checksums set right again, damage inside the terms
    /// dictionary or postings is still an error or a readable index,
    /// never a panic, hang or huge allocation.
    #[test]
    fn damage_behind_valid_checksums_never_panics(file in 0usize..4, at in any::<prop::sample::Index>(), bit in 0u8..8) {
        let (dir, mut files, dump) = adi();
        let id = id_of(&files, &dump);
        let name = files.keys().nth(file).unwrap().clone();
        let data = files.get_mut(&name).unwrap();
        let body = data.len() - FOOTER_LENGTH;
        data[at.index(body)] ^= 1 << bit;
        let crc = crc32fast::hash(&data[..data.len() - 8]);
        let n = data.len();
        data[n - 8..].copy_from_slice(&u64::from(crc).to_be_bytes());
        // Any outcome but a panic: Ok when the flip hit a byte that does
        // not matter (an unused statistic, the FST) or decodes to other
        // valid postings.
        let _ = walk(&dir, &files, &dump, &id, false);
    }
}

/// The full comparison over Lucene indexes too large to ship, when
/// `RSERINI_LUCENE_DUMPS` lists (`:`-separated) `INDEX_DIR@DUMP_FILE`
/// pairs, each dump written by Lucene as testdata/adi/README.md says.
#[test]
fn pyserini_indexes_named_by_the_environment() {
    let Ok(list) = std::env::var("RSERINI_LUCENE_DUMPS") else {
        eprintln!("skipped: RSERINI_LUCENE_DUMPS is not set");
        return;
    };
    for entry in list.split(':') {
        let (dir, dump) = entry.split_once('@').expect("INDEX_DIR@DUMP_FILE");
        let dir = Path::new(dir);
        let text = std::fs::read_to_string(dump).unwrap();
        let (mut terms, mut postings, mut segments) = (0, 0, 0);
        let mut walk_time = std::time::Duration::ZERO;
        for dump in parse_dumps(&text) {
            let files = read_dir(dir, &dump.segment);
            let start = std::time::Instant::now();
            walk(dir, &files, &dump, &id_of(&files, &dump), false).unwrap();
            walk_time += start.elapsed();
            let (t, p) = compare(dir, &files, &dump).unwrap();
            terms += t;
            postings += p;
            segments += 1;
        }
        eprintln!(
            "{}: {segments} segments, {terms} terms, {postings} postings equal; read in {:.1} ms",
            dir.display(),
            walk_time.as_secs_f64() * 1e3
        );
    }
}
