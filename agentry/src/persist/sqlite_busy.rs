//! Waiting for a busy SQLite file. A statement waits up to [`BUSY_TIMEOUT`] in SQLite's own
//! busy handler. Opening a file that another process is setting up is different: while that
//! connection switches a new file to WAL or recovers its WAL, SQLite answers an open with
//! `SQLITE_BUSY` at once, without calling the handler, so the open is tried again a few
//! milliseconds apart ([`open_retries`]). Both openers use it: the pool's connect (sqlx) and
//! the checkpointer's writing connection (rusqlite).

use std::time::Duration;

use backon::{BackoffBuilder, ExponentialBuilder};

/// How long a statement waits for a busy file, and how long an open keeps trying.
pub(crate) const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The pauses between attempts at an open: 2 ms, doubling up to 100 ms, [`BUSY_TIMEOUT`] in
/// all; when it ends, the last attempt's error stands.
pub(crate) fn open_retries() -> impl Iterator<Item = Duration> {
    ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(2))
        .with_max_delay(Duration::from_millis(100))
        .with_factor(2.0)
        .without_max_times()
        .with_total_delay(Some(BUSY_TIMEOUT))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pauses_double_up_to_a_cap_and_end_at_the_busy_timeout() {
        let pauses: Vec<Duration> = open_retries().collect();
        let ms = |n| Duration::from_millis(n);
        // Whole milliseconds: backon multiplies by an `f32` factor.
        let whole: Vec<u128> = pauses.iter().map(Duration::as_millis).collect();
        assert_eq!(whole[..7], [2, 4, 8, 16, 32, 64, 100]);
        assert!(pauses.iter().skip(6).all(|p| *p == ms(100)));
        let total: Duration = pauses.iter().sum();
        assert!(
            total <= BUSY_TIMEOUT && total > BUSY_TIMEOUT - ms(100),
            "{total:?}"
        );
    }
}
