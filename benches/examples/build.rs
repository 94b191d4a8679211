//! Builds an index from a JSON-lines corpus and prints the time taken:
//! `cargo run --release -p rserini-benches --example build -- CORPUS [THREADS] [BUDGET_MB]`.

use std::path::PathBuf;
use std::time::Instant;

use rserini_core::analysis::AnalyzerConfig;
use rserini_core::corpus;
use rserini_core::index::IndexBuilder;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().expect("usage: build CORPUS [THREADS]"));
    let threads: usize = args.next().map_or(1, |t| t.parse().expect("threads"));
    let budget_mb: Option<usize> = args.next().map(|b| b.parse().expect("budget in MB"));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    let start = Instant::now();
    let index = pool.install(|| {
        let mut builder = IndexBuilder::new(AnalyzerConfig::default(), false).expect("builder");
        if let Some(mb) = budget_mb {
            builder = builder.with_memory_budget(mb << 20);
        }
        corpus::read_documents(&path, false, corpus::DEFAULT_MAX_LINE_BYTES, |batch| {
            builder.add_batch(batch)
        })
        .expect("read");
        builder.finish().expect("finish")
    });
    let stats = index.stats();
    eprintln!(
        "{:.2} s, {} docs, {} terms, {} postings, {} postings bytes",
        start.elapsed().as_secs_f64(),
        stats.num_docs,
        stats.num_terms,
        stats.num_postings,
        stats.postings_bytes
    );
}
