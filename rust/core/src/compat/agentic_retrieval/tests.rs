//! Goldens and fast-path properties of the lexical arms and their fusion.

use proptest::prelude::*;

use super::fit::fit_in_runs;
use super::store;
use super::*;
use crate::fusion;

fn texts(docs: &[&str]) -> Vec<String> {
    docs.iter().map(|s| s.to_string()).collect()
}

const NETWORKS: [&str; 4] = [
    "Routers forward packets between networks and carry data.",
    "Photosynthesis converts sunlight into chemical energy in plants.",
    "The asteroid belt lies between Mars and Jupiter.",
    "Switches direct frames within a local area network domain.",
];

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 5e-7
}

#[test]
fn worked_vectors() {
    let (t, b) = fit(Mode::Plain, &texts(&NETWORKS));
    let q = "what carries data between networks";
    let tr = ranking(&t.scores(q));
    let br = ranking(&b.scores(q, 1.5, 0.75));
    assert_eq!(tr.iter().map(|p| p.0).collect::<Vec<_>>(), [0, 2, 1, 3]);
    assert!(close(tr[0].1, 0.463348) && close(tr[1].1, 0.131010));
    assert!(close(br[0].1, 3.143965) && close(br[1].1, 0.702730));
    let order = |q| search(&t, &b, q, 1.5, 0.75, 10).unwrap();
    assert_eq!(order(q), [0, 2, 1, 3]);
    assert_eq!(
        order("how do plants convert light into energy"),
        [1, 0, 2, 3]
    );
    assert_eq!(order("asteroid belt mars jupiter"), [2, 0, 1, 3]);
    assert_eq!(order("network"), [3, 0, 1, 2]);
    assert!(close(
        ranking(&b.scores("network", 1.5, 0.75))[0].1,
        1.156655
    ));
    assert_eq!(order("no shared vocabulary whatsoever xyzzy"), [0, 1, 2, 3]);
    assert_eq!(order(""), [0, 1, 2, 3]);
    assert_eq!(search(&t, &b, q, 1.5, 0.75, 2).unwrap(), [0, 2]);
}

#[test]
fn tie_golden_goes_to_the_tfidf_order() {
    let (t, b) = fit(Mode::Plain, &texts(&["e e b", "d d c d c", "e"]));
    let br = ranking(&b.scores("e f", 1.5, 0.75));
    assert_eq!(br[0].1, br[1].1);
    assert_eq!(br.iter().map(|p| p.0).collect::<Vec<_>>(), [0, 2, 1]);
    assert_eq!(search(&t, &b, "e f", 1.5, 0.75, 3).unwrap(), [2, 0, 1]);
}

#[test]
fn fast_path_equals_full_fusion() {
    let mut next = crate::testing::xorshift(7);
    for round in 0..200 {
        let docs: Vec<String> = (0..1 + next() % 12)
            .map(|_| {
                (0..next() % 6)
                    .map(|_| ["a", "b", "c", "d", "E", "fG"][(next() % 6) as usize])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let mode = if round % 2 == 0 {
            Mode::Plain
        } else {
            Mode::Code
        };
        let (t, b) = fit(mode, &docs);
        // Degenerate k1 and b make zero, negative or NaN BM25 scores:
        // the general path; the others take the fast one.
        let params = [
            (1.5, 0.75),
            (0.0, 1.0),
            (-1.0, 0.75),
            (-0.5, 0.3),
            (2.0, 2.0),
        ];
        for q in ["a", "b b c", "z", "fg a e", ""] {
            for (k1, bb) in params {
                let full = fusion::rrf(
                    &[
                        t.scores(q).full_ranking(),
                        b.scores(q, k1, bb).full_ranking(),
                    ],
                    RRF_K,
                    None,
                    None,
                )
                .unwrap();
                let full: Vec<u32> = full.into_iter().map(|p| p.0).collect();
                let got = search(&t, &b, q, k1, bb, 100).unwrap();
                assert_eq!(got, full, "{docs:?} {q} {k1} {bb}");
            }
        }
    }
}

#[test]
fn candidate_fusion_equals_full_fusion_on_large_matching_sets() {
    let mut next = crate::testing::xorshift(11);
    let words = ["a", "b", "c", "d", "e", "f", "g", "h"];
    for _ in 0..8 {
        let docs: Vec<String> = (0..300 + next() % 300)
            .map(|_| {
                (0..1 + next() % 9)
                    .map(|_| words[(next() % 8) as usize])
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let (t, b) = fit(Mode::Plain, &docs);
        for q in ["a", "a b", "c c d e", "h g f e d"] {
            let full: Vec<u32> = fusion::rrf(
                &[
                    t.scores(q).full_ranking(),
                    b.scores(q, 1.5, 0.75).full_ranking(),
                ],
                RRF_K,
                None,
                None,
            )
            .unwrap()
            .into_iter()
            .map(|p| p.0)
            .collect();
            for top in [1, 2, 10, 50, 200, 1000] {
                let got = search(&t, &b, q, 1.5, 0.75, top).unwrap();
                assert_eq!(got[..], full[..top.min(full.len())], "{q} {top}");
            }
        }
    }
}

/// Term counts the slow way: each document analyzed on its own, each term
/// looked up by its string.
fn reference_counts(mode: Mode, docs: &[String]) -> (Vec<String>, Vec<Vec<(u32, u32)>>) {
    let analyzer = mode.analyzer();
    let mut vocab: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for doc in docs {
        let mut row: Vec<(u32, u32)> = Vec::new();
        for term in analyzer.analyze(doc) {
            let t = match vocab.iter().position(|v| *v == term) {
                Some(t) => t as u32,
                None => {
                    vocab.push(term);
                    vocab.len() as u32 - 1
                }
            };
            match row.iter_mut().find(|e| e.0 == t) {
                Some(e) => e.1 += 1,
                None => row.push((t, 1)),
            }
        }
        rows.push(row);
    }
    (vocab, rows)
}

/// Documents of words from a small vocabulary, with camel case, long and
/// non-ASCII words, and empty documents.
fn corpus() -> impl Strategy<Value = Vec<String>> {
    let word = prop::sample::select(vec![
        "a",
        "b",
        "The",
        "the",
        "getUserById",
        "user",
        "HTTPServer",
        "x_y",
        "café",
        "İstanbul",
        "東京",
        "averyveryverylongtokenword",
        "2",
        "_",
    ]);
    let doc = prop::collection::vec(word, 0..12).prop_map(|w| w.join(" "));
    prop::collection::vec(doc, 0..40)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Counting in any number of parallel runs gives what analyzing each
    /// document alone does, and the same arms, to the byte.
    #[test]
    fn counts_in_runs_equal_the_reference(docs in corpus(), runs in 2usize..6) {
        for mode in [Mode::Plain, Mode::Code] {
            let (vocab, rows) = reference_counts(mode, &docs);
            let counted = count::count_in_runs(mode, &docs, runs);
            let terms: Vec<&str> = (0..counted.vocab.len() as u32)
                .map(|t| counted.vocab.term(t))
                .collect();
            prop_assert_eq!(terms, vocab.iter().map(String::as_str).collect::<Vec<_>>());
            prop_assert_eq!(counted.tf.iter().map(<[_]>::to_vec).collect::<Vec<_>>(), rows);
            let one = fit_in_runs(mode, &docs, 1);
            let many = fit_in_runs(mode, &docs, runs);
            prop_assert_eq!(
                store::to_bytes("", &one.0, &one.1),
                store::to_bytes("", &many.0, &many.1)
            );
        }
    }

    /// A fitted TF-IDF arm, which computes its weights when it reads them,
    /// scores exactly as its stored statistics do.
    #[test]
    fn fitted_weights_equal_stored_weights(docs in corpus()) {
        let (t, b) = fit(Mode::Code, &docs);
        let bytes = store::to_bytes("", &t, &b);
        let (_, stored, _) = store::from_bytes(&bytes, std::path::Path::new("<m>")).unwrap();
        for q in ["the user", "get b b café", "東京 2 _ zzz", ""] {
            let fitted = ranking(&t.scores(q));
            let again = ranking(&stored.scores(q));
            prop_assert_eq!(
                fitted.iter().map(|p| (p.0, p.1.to_bits())).collect::<Vec<_>>(),
                again.iter().map(|p| (p.0, p.1.to_bits())).collect::<Vec<_>>()
            );
        }
    }
}
