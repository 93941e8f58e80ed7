//! Random ids (pause ids, thread ids, tool-call ids), from the operating system's generator.
//!
//! `getrandom` is the crate `rand` itself reads the OS through, and already in the dependency
//! graph; ids need no more than it gives, and `rand`'s generators (four crates) were linked
//! into every program for these few calls.

use std::hash::{BuildHasher, RandomState};

/// A random `u64`.
pub(crate) fn u64() -> u64 {
    // The OS generator does not fail on the platforms the SDK supports; should it, a hasher
    // with the standard library's per-process random keys (SipHash, seeded from the OS once)
    // over a counter still gives ids no outsider can predict.
    getrandom::u64().unwrap_or_else(|_| {
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        RandomState::new().hash_one(COUNTER.fetch_add(1, Ordering::Relaxed))
    })
}

/// A random `u128`.
#[cfg(feature = "server")]
pub(crate) fn u128() -> u128 {
    (u128::from(u64()) << 64) | u128::from(u64())
}
