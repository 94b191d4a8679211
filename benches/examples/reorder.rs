//! Times the phases of document reordering on a JSON-lines corpus and prints
//! the log-gap cost and postings size before and after:
//! `cargo run --release -p rserini-benches --example reorder -- CORPUS [THREADS]`.

use std::path::PathBuf;
use std::time::Instant;

use rserini_core::analysis::AnalyzerConfig;
use rserini_core::corpus;
use rserini_core::index::IndexBuilder;
use rserini_core::reorder::{self, BisectionConfig, bisection};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().expect("usage: reorder CORPUS [THREADS]"));
    let threads: usize = args.next().map_or(1, |t| t.parse().expect("threads"));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    pool.install(|| {
        let start = Instant::now();
        let mut builder = IndexBuilder::new(AnalyzerConfig::default(), false).expect("builder");
        corpus::read_documents(&path, false, corpus::DEFAULT_MAX_LINE_BYTES, |batch| {
            builder.add_batch(batch)
        })
        .expect("read");
        let index = builder.finish().expect("finish");
        eprintln!("build: {:.2} s", start.elapsed().as_secs_f64());
        let config = BisectionConfig::default();
        let data = index.segments()[0].data();
        let start = Instant::now();
        let forward = bisection::ForwardIndex::from_segment(data, &config);
        eprintln!(
            "forward index: {:.2} s, {} documents, {} edges",
            start.elapsed().as_secs_f64(),
            forward.len(),
            forward.num_edges()
        );
        let start = Instant::now();
        let order = bisection::bisect(&forward, &config);
        eprintln!("bisection: {:.2} s", start.elapsed().as_secs_f64());
        let identity: Vec<u32> = (0..forward.len() as u32).collect();
        let (before, after) = (
            forward.log_gap_cost(&identity),
            forward.log_gap_cost(&order),
        );
        eprintln!(
            "log-gap cost: {:.0} -> {:.0} bits ({:.3} -> {:.3} bits a posting)",
            before,
            after,
            before / forward.num_edges() as f64,
            after / forward.num_edges() as f64
        );
        let start = Instant::now();
        let reordered = reorder::reordered(&index, &config).expect("reorder");
        eprintln!(
            "whole reorder (forward index, bisection, rewrite): {:.2} s",
            start.elapsed().as_secs_f64()
        );
        eprintln!(
            "postings bytes: {} -> {}",
            index.stats().postings_bytes,
            reordered.stats().postings_bytes
        );
    });
}
