use std::path::Path;

use proptest::prelude::*;

use super::*;
use crate::lucene::testing::Out;

fn path() -> &'static Path {
    Path::new("_0.test")
}

#[test]
fn known_encodings() {
    let bytes = [0x7f, 0x80, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f];
    let mut input = Input::new(path(), &bytes);
    assert_eq!(input.read_vint().unwrap(), 127);
    assert_eq!(input.read_vint().unwrap(), 128);
    assert_eq!(input.read_vint().unwrap(), u32::MAX);
    assert_eq!(input.remaining(), 0);
    assert!(matches!(input.read_byte(), Err(Error::Corrupted { .. })));

    let le = [1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0];
    let mut input = Input::new(path(), &le);
    assert_eq!(input.read_int().unwrap(), 1);
    assert_eq!(input.read_long().unwrap(), 2);
    let mut out = Out::default();
    out.int(0xdead_beef);
    out.long(u64::MAX - 1);
    let mut input = Input::new(path(), &out.bytes);
    assert_eq!(input.read_int().unwrap(), 0xdead_beef);
    assert_eq!(input.read_long().unwrap(), u64::MAX - 1);
    let be = [0, 0, 0, 1];
    assert_eq!(Input::new(path(), &be).read_be_int().unwrap(), 1);
}

#[test]
fn overlong_varints_are_corruption() {
    // A fifth vInt byte may carry only 4 bits.
    let bytes = [0xff, 0xff, 0xff, 0xff, 0x1f];
    assert!(Input::new(path(), &bytes).read_vint().is_err());
    let bytes = [0x80; 10];
    assert!(Input::new(path(), &bytes).read_vlong().is_err());
}

#[test]
fn header_and_footer_round_trip() {
    let id = [7u8; ID_LENGTH];
    let mut out = Out::default();
    out.index_header("Demo", 3, &id, "x");
    out.vint(42);
    out.footer();
    let bytes = out.bytes;
    check_footer(path(), &bytes).unwrap();
    let mut input = Input::new(path(), &bytes);
    assert_eq!(input.check_index_header("Demo", 1, 5, &id, "x").unwrap(), 3);
    assert_eq!(input.read_vint().unwrap(), 42);

    let mut wrong = Input::new(path(), &bytes);
    assert!(matches!(
        wrong.check_index_header("Other", 1, 5, &id, "x"),
        Err(Error::Corrupted { .. })
    ));
    let mut old = Input::new(path(), &bytes);
    let err = old.check_index_header("Demo", 4, 5, &id, "x").unwrap_err();
    assert!(matches!(err, Error::LuceneVersion { .. }), "{err}");
    let mut other_id = Input::new(path(), &bytes);
    assert!(
        other_id
            .check_index_header("Demo", 1, 5, &[8u8; ID_LENGTH], "x")
            .is_err()
    );
    let mut other_suffix = Input::new(path(), &bytes);
    assert!(
        other_suffix
            .check_index_header("Demo", 1, 5, &id, "y")
            .is_err()
    );
}

#[test]
fn strings_maps_and_sets() {
    let mut out = Out::default();
    out.string("héllo");
    out.string_map(&[("a", "1"), ("b", "")]);
    out.string_set(&["x", "yz"]);
    let mut input = Input::new(path(), &out.bytes);
    assert_eq!(input.read_string().unwrap(), "héllo");
    assert_eq!(
        input.read_string_map().unwrap(),
        vec![("a".into(), "1".into()), ("b".into(), String::new())]
    );
    assert_eq!(input.read_string_set().unwrap(), vec!["x", "yz"]);
}

proptest! {
    #[test]
    fn varints_round_trip(a in any::<u32>(), b in 0..=i64::MAX as u64, c in any::<i32>(), d in any::<i64>()) {
        let mut out = Out::default();
        out.vint(a);
        out.vlong(b);
        out.zint(c);
        out.zlong(d);
        let mut input = Input::new(path(), &out.bytes);
        prop_assert_eq!(input.read_vint().unwrap(), a);
        prop_assert_eq!(input.read_vlong().unwrap(), b);
        prop_assert_eq!(input.read_zint().unwrap(), c);
        prop_assert_eq!(input.read_zlong().unwrap(), d);
        prop_assert_eq!(input.remaining(), 0);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        let mut input = Input::new(path(), &bytes);
        let _ = input.read_string_map();
        let mut input = Input::new(path(), &bytes);
        let _ = input.read_string_set();
        let mut input = Input::new(path(), &bytes);
        let _ = input.check_index_header("Demo", 0, 9, &[0; ID_LENGTH], "");
        let _ = check_footer(path(), &bytes);
        let mut input = Input::new(path(), &bytes);
        while input.read_zlong().is_ok() {}
    }

    #[test]
    fn any_bit_flip_fails_the_checksum(bit in 0usize..(8 * 60)) {
        let mut out = Out::default();
        out.index_header("Demo", 3, &[1; ID_LENGTH], "");
        out.string("some payload");
        out.footer();
        let mut bytes = out.bytes;
        let bit = bit % (8 * bytes.len());
        bytes[bit / 8] ^= 1 << (bit % 8);
        prop_assert!(check_footer(path(), &bytes).is_err());
    }

    #[test]
    fn any_truncation_fails_the_footer(cut in 0usize..60) {
        let mut out = Out::default();
        out.index_header("Demo", 3, &[1; ID_LENGTH], "");
        out.string("some payload");
        out.footer();
        let bytes = out.bytes;
        let cut = cut % bytes.len();
        prop_assert!(check_footer(path(), &bytes[..cut]).is_err());
    }
}
