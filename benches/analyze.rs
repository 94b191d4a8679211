//! Analyzer throughput: tokens per second of each preset on a fixed,
//! generated English-like text. Run: `cargo bench -p rserini-benches --bench analyze`.
//! The token count is asserted inside the timed loop, so a broken analyzer
//! cannot post a fast time.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rserini_core::analysis::Analyzer;

/// About 1 MB of text from a seeded generator over a mixed vocabulary.
fn text() -> String {
    const WORDS: [&str; 16] = [
        "The",
        "running",
        "foxes'",
        "quickly-jumped",
        "over",
        "lazy",
        "dogs",
        "U.S.A.",
        "3.14",
        "getUserById",
        "e-mail",
        "user@example.com",
        "generalizations",
        "naïve",
        "東京",
        "it's",
    ];
    let mut state = 42u64;
    let mut out = String::new();
    while out.len() < 1_000_000 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.push_str(WORDS[(state >> 60) as usize]);
        out.push(' ');
    }
    out
}

fn bench_analyzers(c: &mut Criterion) {
    let text = text();
    let mut group = c.benchmark_group("analyze");
    group.throughput(Throughput::Bytes(text.len() as u64));
    for preset in ["lucene-english", "plain", "code", "whitespace"] {
        let analyzer = Analyzer::preset(preset).expect("preset exists");
        let mut expected = 0usize;
        analyzer.analyze_with(&text, &mut |_| expected += 1);
        group.bench_function(preset, |b| {
            b.iter(|| {
                let mut count = 0usize;
                analyzer.analyze_with(black_box(&text), &mut |_| count += 1);
                assert_eq!(count, expected);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench_analyzers);
criterion_main!(benches);
