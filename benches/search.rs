//! Top-k latency per algorithm (exhaustive, MaxScore, block-max WAND, auto)
//! on a seeded synthetic corpus with a Zipf-like vocabulary: k = 10 and
//! k = 1000, Lucene BM25; and block decoding throughput. Run: `cargo bench
//! -p rserini-benches --bench search`. Each iteration checks its results
//! against the exhaustive ones, so a broken path cannot post a fast time.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use rserini_core::analysis::AnalyzerConfig;
use rserini_core::index::Index;
use rserini_core::postings::{self, BlockDecoder, PostingList};
use rserini_core::scoring::Bm25Params;
use rserini_core::search::{Algorithm, Model, Request, ScoredDoc};

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
    for k in [10usize, 1000] {
        let mut group = c.benchmark_group(format!("top-k/k={k}"));
        let expected: Vec<Vec<ScoredDoc>> = queries
            .iter()
            .map(|q| {
                let request = Request::new(model, k).with_algorithm(Algorithm::Exhaustive);
                request.search(&index, q.as_str()).expect("searched")
            })
            .collect();
        for (name, algorithm) in [
            ("exhaustive", Algorithm::Exhaustive),
            ("maxscore", Algorithm::MaxScore),
            ("bmw", Algorithm::BlockMaxWand),
            ("auto", Algorithm::Auto),
        ] {
            let request = Request::new(model, k).with_algorithm(algorithm);
            group.bench_function(name, |b| {
                b.iter(|| {
                    for (q, hits) in queries.iter().zip(&expected) {
                        let got = request
                            .search(&index, black_box(q.as_str()))
                            .expect("searched");
                        assert_eq!(&got, hits);
                    }
                })
            });
        }
        group.finish();
    }
}

/// Decoding a long posting list, block by block.
fn bench_decode(c: &mut Criterion) {
    let mut rng = Lcg(3);
    let mut doc = 0u32;
    let (docs, tfs): (Vec<u32>, Vec<u32>) = (0..1_000_000)
        .map(|_| {
            doc += 1 + (rng.next() % 16) as u32;
            (doc, 1 + (rng.term(20) as u32))
        })
        .unzip();
    let (mut bytes, mut blocks) = (Vec::new(), Vec::new());
    let info = postings::encode(&docs, &tfs, |_| 10, &mut bytes, &mut blocks);
    let list = PostingList {
        bytes: &bytes,
        blocks: &blocks,
        df: info.df,
    };
    let mut group = c.benchmark_group("decode");
    group.throughput(criterion::Throughput::Elements(docs.len() as u64));
    group.bench_function("1M postings", |b| {
        let mut decoder = BlockDecoder::default();
        b.iter(|| {
            let mut sum = 0u64;
            for block in 0..list.num_blocks() {
                let n = decoder.decode(&list, block).expect("valid list");
                sum += u64::from(decoder.docs[n - 1]);
            }
            assert!(sum > 0);
            sum
        })
    });
    group.finish();
}

criterion_group!(benches, bench_search, bench_decode);
criterion_main!(benches);
