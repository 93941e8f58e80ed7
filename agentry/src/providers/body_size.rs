//! How much room a request body starts with.
//!
//! A body written into a `Vec` that starts empty grows by doubling: five or six copies of a
//! few-kilobyte body, each a `realloc` big enough to miss the allocator's caches. A model's
//! next body is nearly always its last one plus a few messages (the same conversation going
//! on, or another run of the same agent), so the buffer starts at the last body's size plus
//! half. A smaller body wastes the difference for the life of one request; a much larger one
//! grows as before.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Room for a body when nothing has been sent yet.
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
        let room = if last == 0 { FIRST } else { last + last / 2 };
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
        assert_eq!(size.buffer().capacity(), 15);
    }
}
