use std::path::Path;

use proptest::prelude::*;

use super::*;
use crate::lucene::testing::Out;

/// A `.doc` file body with one term of 130 documents at offset 3: a packed
/// block of documents 1..=128 (gaps of 1 counted from 0) with frequency 2
/// each, then documents 200 (freq 1) and 205 (freq 3) as vInts.
fn lucene99_term() -> (Vec<u8>, TermMeta) {
    let mut o = Out::default();
    o.raw(&[9, 9, 9]);
    o.byte(0); // FOR deltas: every gap is 1
    o.byte(0); // PFOR freqs: no exceptions, all equal...
    o.vlong(2); // ...to 2
    // Two codes, fewer than a group of four, so vInts: 128 + 72 = 200
    // with freq 1, then 205 whose freq follows the codes.
    o.vint(72 << 1 | 1);
    o.vint(5 << 1);
    o.vint(3);
    let meta = TermMeta {
        doc_freq: 130,
        total_term_freq: 128 * 2 + 1 + 3,
        doc_start_fp: 3,
        singleton_doc: -1,
        ..TermMeta::default()
    };
    (o.bytes, meta)
}

fn read(
    bytes: &[u8],
    version: PostingsVersion,
    freqs: bool,
    meta: &TermMeta,
) -> Result<(Vec<u32>, Vec<u32>)> {
    let input = Input::new(Path::new("_0_Lucene99_0.doc"), bytes);
    let (mut d, mut f) = (Vec::new(), Vec::new());
    read_postings(&input, version, freqs, meta, 1000, &mut d, &mut f)?;
    Ok((d, f))
}

#[test]
fn a_packed_block_then_vints() {
    let (bytes, meta) = lucene99_term();
    let (docs, freqs) = read(&bytes, PostingsVersion::Lucene99, true, &meta).unwrap();
    let mut expected: Vec<u32> = (1..=128).collect();
    expected.extend([200, 205]);
    assert_eq!(docs, expected);
    assert_eq!(&freqs[126..], &[2, 2, 1, 3]);
}

#[test]
fn lucene99_tails_are_group_varints_then_frequencies() {
    // Documents 0, 300, 70300, 70301, 70302 (freqs 1, 2, 1, 1, 5): one
    // group of four codes of 1, 2, 3 and 1 bytes, a fifth code as a vInt,
    // then the two frequencies that are not 1.
    let mut o = Out::default();
    o.byte(0b00_01_10_00);
    o.byte(1); // 0 << 1 | 1
    o.raw(&(300u32 << 1).to_le_bytes()[..2]);
    o.raw(&((70000u32 << 1) | 1).to_le_bytes()[..3]);
    o.byte(3); // 1 << 1 | 1
    o.vint(1 << 1);
    o.vint(2);
    o.vint(5);
    let meta = TermMeta {
        doc_freq: 5,
        total_term_freq: 10,
        singleton_doc: -1,
        ..TermMeta::default()
    };
    let input = Input::new(Path::new("_0_Lucene99_0.doc"), &o.bytes);
    let (mut d, mut f) = (Vec::new(), Vec::new());
    read_postings(
        &input,
        PostingsVersion::Lucene99,
        true,
        &meta,
        100_000,
        &mut d,
        &mut f,
    )
    .unwrap();
    assert_eq!(d, vec![0, 300, 70300, 70301, 70302]);
    assert_eq!(f, vec![1, 2, 1, 1, 5]);
}

#[test]
fn lucene90_counts_gaps_from_zero_in_pfor_blocks() {
    let mut o = Out::default();
    o.byte(0); // PFOR gaps: all equal...
    o.vlong(1); // ...to 1: documents 1..=128
    o.byte(0);
    o.vlong(1); // freqs all 1
    let meta = TermMeta {
        doc_freq: 128,
        total_term_freq: 128,
        singleton_doc: -1,
        ..TermMeta::default()
    };
    let (docs, freqs) = read(&o.bytes, PostingsVersion::Lucene90, true, &meta).unwrap();
    assert_eq!(docs, (1..=128).collect::<Vec<u32>>());
    assert!(freqs.iter().all(|&f| f == 1));
}

#[test]
fn without_frequencies_the_vints_are_bare_gaps() {
    let mut o = Out::default();
    o.vint(4); // Lucene 9.0: the first gap counts from 0, so document 4
    o.vint(6); // document 10
    let meta = TermMeta {
        doc_freq: 2,
        total_term_freq: 2,
        singleton_doc: -1,
        ..TermMeta::default()
    };
    let (docs, freqs) = read(&o.bytes, PostingsVersion::Lucene90, false, &meta).unwrap();
    assert_eq!((docs, freqs), (vec![4, 10], vec![1, 1]));
}

#[test]
fn a_singleton_comes_from_the_metadata() {
    let meta = TermMeta {
        doc_freq: 1,
        total_term_freq: 4,
        singleton_doc: 77,
        ..TermMeta::default()
    };
    assert_eq!(
        read(&[], PostingsVersion::Lucene99, true, &meta).unwrap(),
        (vec![77], vec![4])
    );
    assert_eq!(
        read(&[], PostingsVersion::Lucene99, false, &meta).unwrap(),
        (vec![77], vec![1])
    );
    let bad = TermMeta {
        singleton_doc: 1000,
        ..meta
    };
    assert!(read(&[], PostingsVersion::Lucene99, true, &bad).is_err());
}

#[test]
fn a_wrong_total_term_freq_is_corruption() {
    let (bytes, mut meta) = lucene99_term();
    meta.total_term_freq += 1;
    let err = read(&bytes, PostingsVersion::Lucene99, true, &meta).unwrap_err();
    assert!(err.to_string().contains("_0_Lucene99_0.doc"), "{err}");
}

proptest! {
    #[test]
    fn truncations_and_bit_flips_are_errors_or_valid_postings(
        cut in 0usize..20, flip in 0usize..160, bit in 0u8..8, df in 1u32..300
    ) {
        let (mut bytes, mut meta) = lucene99_term();
        if flip < bytes.len() {
            bytes[flip] ^= 1 << bit;
        }
        bytes.truncate(bytes.len().saturating_sub(cut));
        meta.doc_freq = df;
        for version in [PostingsVersion::Lucene90, PostingsVersion::Lucene99] {
            for freqs in [true, false] {
                if let Ok((docs, f)) = read(&bytes, version, freqs, &meta) {
                    prop_assert_eq!(docs.len(), df as usize);
                    prop_assert!(docs.windows(2).all(|w| w[0] < w[1]));
                    prop_assert_eq!(f.len(), df as usize);
                }
            }
        }
    }
}
