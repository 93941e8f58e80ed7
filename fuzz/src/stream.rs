//! The property every stream target checks.

use super::split::{cut, pieces, without_synthetic_ids};

/// Bodies up to this many bytes are also decoded byte by byte; longer ones are cut at up to
/// [`FINE_CUTS`] derived places instead (byte by byte costs one read per byte, which made the
/// stream targets ten times slower on the recorded bodies without finding more).
pub const BYTE_BY_BYTE_MAX: usize = 512;

/// The most cuts of the fine split used for bodies over [`BYTE_BY_BYTE_MAX`].
const FINE_CUTS: u64 = 64;

/// The property every stream target checks, for `provider`'s stream decoder (driven as the
/// model drives it: SSE parsing, key redaction, caps, tool-call checks): it never panics; the
/// body split at derived places, and byte by byte (or, when longer than
/// [`BYTE_BY_BYTE_MAX`], at up to 64 derived places), yields the same items as the whole;
/// nothing follows an error or the completing event.
pub fn check_stream(provider: agentry::__fuzz::Provider, data: &[u8]) {
    let whole = stream_items(provider, vec![data]);
    assert_eq!(
        whole,
        stream_items(provider, pieces(data)),
        "split at derived places"
    );
    if data.len() <= BYTE_BY_BYTE_MAX {
        assert_eq!(
            whole,
            stream_items(provider, data.chunks(1).collect()),
            "byte by byte"
        );
    } else {
        assert_eq!(
            whole,
            stream_items(provider, cut(data, FINE_CUTS)),
            "split finely at derived places"
        );
    }
}

/// The items `provider`'s stream decoder yields for the body in `pieces`, printed.
fn stream_items(provider: agentry::__fuzz::Provider, pieces: Vec<&[u8]>) -> Vec<String> {
    use agentry::model::StreamEvent;
    let items =
        agentry::__fuzz::decode_stream(provider, pieces.into_iter().map(<[u8]>::to_vec).collect());
    for (i, item) in items.iter().enumerate() {
        let last = i + 1 == items.len();
        match item {
            Err(_) => assert!(last, "an item after an error"),
            Ok(StreamEvent::Completed { .. }) => assert!(last, "an item after completion"),
            Ok(_) => {}
        }
    }
    // The random ids drawn for calls without one differ between runs.
    items
        .iter()
        .map(|i| without_synthetic_ids(&format!("{i:?}")))
        .collect()
}
