//! How much room a request body starts with.
//!
//! A body written into a `Vec` that starts empty grows by doubling: five or six copies of a
//! few-kilobyte body, each a `realloc` big enough to miss the allocator's caches. A model's
//! next body is nearly always its last one plus a few messages (the same conversation going
//! on, or another run of the same agent), so the buffer starts at the last body's size plus
//! half. A smaller body wastes the difference for the life of one request; a much larger one
//! grows as before.
//!
//! A last body that fit in `FIRST` bytes gets `FIRST` again, not its size plus half: the
//! two requests of a short run (460 and 690 bytes in the overhead bench) would otherwise ask
//! 1,039 bytes, just past what glibc's per-thread cache holds (1,032), and 691 bytes for a
//! 693-byte body, a `realloc`; each cost ≈ 1,200 instructions against ≈ 60 for a cached
//! allocation.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Room for a body when nothing has been sent yet, or when the last body fit in it: the
/// largest allocation glibc's per-thread cache serves (1,032 bytes) rounded down.
const FIRST: usize = 1024;

/// The most room given up front: a single huge request must not make every later one reserve
/// as much.
const MOST: usize = 1 << 20;

/// The size of a model's last request body.
#[derive(Debug, Default)]
pub(crate) struct BodySize {
    last: AtomicUsize,
}

impl BodySize {
    /// An empty buffer with room for the next body.
    pub(crate) fn buffer(&self) -> Vec<u8> {
        let last = self.last.load(Ordering::Relaxed);
        let room = if last <= FIRST {
            FIRST
        } else {
            last + last / 2
        };
        Vec::with_capacity(room.min(MOST))
    }

    /// Notes the size of the body just written.
    pub(crate) fn note(&self, len: usize) {
        self.last.store(len, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_follows_the_last_body_within_bounds() {
        let size = BodySize::default();
        assert_eq!(size.buffer().capacity(), FIRST);
        size.note(2000);
        assert_eq!(size.buffer().capacity(), 3000);
        size.note(10 * MOST);
        assert_eq!(size.buffer().capacity(), MOST);
        size.note(10);
        assert_eq!(size.buffer().capacity(), FIRST);
        size.note(693);
        assert_eq!(size.buffer().capacity(), FIRST);
        size.note(FIRST + 2);
        assert_eq!(size.buffer().capacity(), FIRST + 2 + (FIRST + 2) / 2);
    }
}
