//! Times (or, under a profiler, repeats) the queries of a saved index, one
//! thread: `cargo run --release -p rserini-benches --example query_cost --
//! INDEX_DIR QUERIES K PASSES [search|batch|decode|bandwidth] [ALGORITHM]`.
//!
//! `search` calls `Request::search` per query (what `search_pairs` runs without
//! the GIL), `batch` calls `Request::batch` on a one-thread pool (what
//! `batch_search(threads=1)` runs), BM25 k1 = 0.9, b = 0.4, Lucene's
//! variant, by ALGORITHM (`auto`, the default, `exhaustive`, `maxscore` or
//! `bmw`). `decode` decodes every block of the queries' posting lists
//! once per pass (analysis included), to measure the block decoder's
//! postings per second; `bandwidth`
//! sums 1 GiB of memory per pass, to measure one core's read bandwidth.
//! Under callgrind, run with `PASSES` small: the figures are instruction
//! counts per query, not times.

use std::path::PathBuf;
use std::time::Instant;

use rserini_core::corpus;
use rserini_core::postings::BlockDecoder;
use rserini_core::scoring::{Bm25Params, Bm25Variant, LengthMode};
use rserini_core::search::{self, Algorithm, Model, Request};
use rserini_core::store;

fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: query_cost INDEX_DIR QUERIES K PASSES [search|batch|decode|bandwidth] [auto|exhaustive|maxscore|bmw]";
    let dir = PathBuf::from(args.next().expect(usage));
    let queries_path = PathBuf::from(args.next().expect(usage));
    let k: usize = args.next().expect(usage).parse().expect("k");
    let passes: usize = args.next().expect(usage).parse().expect("passes");
    let mode = args.next().unwrap_or_else(|| "search".into());
    let algorithm = Algorithm::parse(&args.next().unwrap_or_else(|| "auto".into())).expect(usage);
    let index = store::load(&dir, false).expect("load");
    let queries: Vec<String> = corpus::read_queries(&queries_path)
        .expect("queries")
        .into_iter()
        .map(|(_, text)| text)
        .collect();
    let params =
        Bm25Params::new(0.9, 0.4, Bm25Variant::Lucene, LengthMode::Lucene, None).expect("params");
    let model = Model::Bm25(params);
    let request = Request::new(model, k).with_algorithm(algorithm);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let mut best = f64::INFINITY;
    let mut units = 0u64;
    for _ in 0..passes {
        let start = Instant::now();
        units = match mode.as_str() {
            "search" => queries
                .iter()
                .map(|q| request.search(&index, q.as_str()).expect("searched").len() as u64)
                .sum(),
            "batch" => pool.install(|| {
                request
                    .batch(&index, &queries)
                    .expect("searched")
                    .iter()
                    .map(|r| r.len() as u64)
                    .sum()
            }),
            "decode" => decode_all(&index, &queries),
            "bandwidth" => read_memory(),
            other => panic!("unknown mode {other}; {usage}"),
        };
        best = best.min(start.elapsed().as_secs_f64());
    }
    if mode == "bandwidth" {
        eprintln!(
            "{:.1} GB/s read, one thread (best of {passes})",
            units as f64 / best / 1e9
        );
    } else if mode == "decode" {
        eprintln!(
            "{units} postings decoded in {best:.4} s (best of {passes}): {:.1} M postings/s",
            units as f64 / best / 1e6
        );
    } else {
        eprintln!(
            "{} queries, k = {k}, {mode}: {:.2} µs a query (best of {passes}), {units} hits",
            queries.len(),
            best / queries.len() as f64 * 1e6
        );
    }
}

/// Decodes every block of the posting lists of every query's terms, as a
/// query's exhaustive scoring does; returns the postings decoded (the last
/// doc id of each block summed, so that nothing is optimized out).
fn decode_all(index: &rserini_core::index::Index, queries: &[String]) -> u64 {
    let mut decoder = BlockDecoder::default();
    let (mut postings, mut checksum) = (0u64, 0u64);
    for query in queries {
        let terms = search::query_terms(index, query).unwrap();
        for segment in index.segments() {
            let data = segment.data();
            for ord in terms.iter().filter_map(|t| data.term_ord(&t.term)) {
                let list = data.postings(ord);
                for block in 0..list.num_blocks() {
                    let len = decoder.decode(&list, block).unwrap_or(0);
                    postings += len as u64;
                    checksum =
                        checksum.wrapping_add(u64::from(decoder.docs[len.saturating_sub(1)]));
                }
            }
        }
    }
    std::hint::black_box(checksum);
    postings
}

/// Sums 1 GiB of memory (made once, outside the timing of later passes) with
/// eight independent sums, so that the loads, not the adds, set the pace;
/// returns the bytes read.
fn read_memory() -> u64 {
    use std::sync::OnceLock;
    static BUFFER: OnceLock<Vec<u64>> = OnceLock::new();
    let buffer = BUFFER.get_or_init(|| (0..1u64 << 27).collect());
    let mut sums = [0u64; 8];
    for chunk in buffer.chunks_exact(8) {
        for (s, &x) in sums.iter_mut().zip(chunk) {
            *s = s.wrapping_add(x);
        }
    }
    std::hint::black_box(sums);
    (buffer.len() * 8) as u64
}
