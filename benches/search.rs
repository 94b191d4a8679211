//! Exhaustive top-k latency on a seeded synthetic corpus with a Zipf-like
//! vocabulary: k = 10 and k = 1000, short and long queries, Lucene BM25.
//! Run: `cargo bench -p rserini-benches --bench search`. Each iteration
//! checks the number of hits, so a broken search cannot post a fast time.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rserini_core::analysis::AnalyzerConfig;
use rserini_core::index::Index;
use rserini_core::scoring::Bm25Params;
use rserini_core::search::{self, Model};

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    /// A Zipf-like term id: small ids are much more frequent.
    fn term(&mut self, vocab: u64) -> u64 {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        (vocab as f64).powf(u) as u64
    }
}

fn corpus(docs: usize) -> Vec<(String, String)> {
    let mut rng = Lcg(7);
    (0..docs)
        .map(|i| {
            let len = 20 + rng.next() % 200;
            let text: Vec<String> = (0..len).map(|_| format!("t{}", rng.term(50_000))).collect();
            (format!("doc{i}"), text.join(" "))
        })
        .collect()
}

fn bench_search(c: &mut Criterion) {
    let index = Index::build(
        AnalyzerConfig::preset("whitespace").unwrap(),
        corpus(100_000),
    )
    .unwrap();
    let mut rng = Lcg(11);
    let queries: Vec<String> = (0..64)
        .map(|_| {
            let len = 2 + rng.next() % 5;
            (0..len)
                .map(|_| format!("t{}", rng.term(50_000)))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let model = Model::Bm25(Bm25Params::default());
    let mut group = c.benchmark_group("exhaustive");
    for k in [10usize, 1000] {
        let expected: Vec<usize> = queries
            .iter()
            .map(|q| search::search(&index, q, k, &model).len())
            .collect();
        group.bench_function(format!("k={k}"), |b| {
            b.iter(|| {
                for (q, &n) in queries.iter().zip(&expected) {
                    assert_eq!(search::search(&index, black_box(q), k, &model).len(), n);
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_search);
criterion_main!(benches);
