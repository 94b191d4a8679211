//! How tight the pruned algorithms' block bounds are: for every block of
//! the posting lists of every query term, the best exact BM25 score of its
//! postings against the bound from its metadata (largest tf, smallest
//! length), and the size of the block's frontier of (norm, tf) pairs that
//! no other pair beats in both (what a block would store to give an exact
//! maximum for every k1 and b, as Lucene's impacts do).
//!
//! `cargo run --release -p rserini-benches --example block_bounds --
//! INDEX_DIR QUERIES` (BM25 k1 = 0.9, b = 0.4).

use std::path::PathBuf;

use rserini_core::postings::BlockDecoder;
use rserini_core::scoring::{Bm25Params, Bm25Scorer, Bm25Variant, LengthMode};
use rserini_core::{corpus, fieldnorm, search, store};

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: block_bounds INDEX_DIR QUERIES";
    let dir = PathBuf::from(args.next().expect(usage));
    let queries_path = PathBuf::from(args.next().expect(usage));
    let index = store::load(&dir, false).expect("load");
    let queries: Vec<String> = corpus::read_queries(&queries_path)
        .expect("queries")
        .into_iter()
        .map(|(_, text)| text)
        .collect();
    let params =
        Bm25Params::new(0.9, 0.4, Bm25Variant::Lucene, LengthMode::Lucene, None).expect("params");
    let scorer = Bm25Scorer::new(params, index.collection_stats(LengthMode::Lucene));
    let mut decoder = BlockDecoder::default();
    let (mut block_ratios, mut list_ratios) = (Vec::new(), Vec::new());
    let mut frontiers = [0u64; 9];
    for query in &queries {
        let terms = search::query_terms(&index, query).unwrap();
        for segment in index.segments() {
            let data = segment.data();
            for term in &terms {
                let Some(ord) = data.term_ord(&term.term) else {
                    continue;
                };
                let list = data.postings(ord);
                if list.blocks.is_empty() {
                    continue;
                }
                let weight = scorer.term_weight(term.df, term.query_tf);
                let (mut list_bound, mut list_best) = (0f32, 0f32);
                for (b, meta) in list.blocks.iter().enumerate() {
                    let len = decoder.decode(&list, b).unwrap_or(0);
                    let bound = scorer.score(
                        weight,
                        meta.max_tf,
                        fieldnorm::length_to_norm(meta.min_length),
                        meta.min_length,
                    );
                    let mut best = 0f32;
                    let mut pairs: Vec<(u8, u32)> = Vec::with_capacity(len);
                    for (&doc, &tf) in decoder.docs[..len].iter().zip(&decoder.tfs[..len]) {
                        best = best.max(scorer.score(weight, tf, data.norm(doc), data.length(doc)));
                        pairs.push((data.norm(doc), tf));
                    }
                    // Norm ascending (shortest documents first), tf descending:
                    // a pair is on the frontier when its tf beats every tf before.
                    pairs.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
                    let (mut top_tf, mut size) = (0, 0);
                    for &(_, tf) in &pairs {
                        if tf > top_tf {
                            (top_tf, size) = (tf, size + 1);
                        }
                    }
                    frontiers[size.min(8)] += 1;
                    block_ratios.push(best / bound);
                    (list_bound, list_best) = (list_bound.max(bound), list_best.max(best));
                }
                list_ratios.push(list_best / list_bound);
            }
        }
    }
    let quantiles = |v: &mut Vec<f32>| {
        v.sort_by(f32::total_cmp);
        [0.1, 0.25, 0.5, 0.75, 0.9]
            .map(|q| format!("{:.3}", v[((v.len() - 1) as f64 * q) as usize]))
            .join(" / ")
    };
    println!(
        "{} blocks of {} lists",
        block_ratios.len(),
        list_ratios.len()
    );
    println!(
        "best exact score / bound, per block, p10 / p25 / p50 / p75 / p90: {}",
        quantiles(&mut block_ratios)
    );
    println!("the same per list: {}", quantiles(&mut list_ratios));
    println!(
        "blocks by frontier size 1, 2, ..., 7, 8 or more: {:?}",
        &frontiers[1..]
    );
}
