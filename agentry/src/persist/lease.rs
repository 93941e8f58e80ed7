//! Leases: one worker advances a thread at a time.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A worker's claim on a thread, valid until `expires_at` unless renewed.
///
/// Each acquisition by a new holder increments `token` (a fencing token): a write that carries
/// a lease is refused with [`PersistError::LeaseLost`](super::PersistError::LeaseLost) once
/// another worker took the thread over. A lease whose time ran out stays usable by its holder
/// until someone else acquires the thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The thread.
    pub thread_id: String,
    /// The worker that holds it.
    pub worker: String,
    /// The fencing token: grows with every change of holder.
    pub token: u64,
    /// When another worker may take the thread over.
    pub expires_at: SystemTime,
}

impl Lease {
    /// Whether the lease's time has run out (so another worker may take the thread).
    pub fn is_expired(&self) -> bool {
        SystemTime::now() >= self.expires_at
    }
}

pub(crate) fn to_ms(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

pub(crate) fn from_ms(ms: i64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(u64::try_from(ms).unwrap_or(0))
}

#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) fn now_ms() -> i64 {
    to_ms(SystemTime::now())
}

/// A TTL in whole milliseconds, refusing zero and absurd values.
pub(crate) fn ttl_ms(ttl: Duration) -> Result<i64, super::PersistError> {
    let ms = ttl.as_millis();
    if ms == 0 || ms > 365 * 24 * 3600 * 1000 {
        return Err(super::PersistError::Invalid {
            what: "lease ttl",
            reason: format!("{ttl:?} is not between 1 ms and a year"),
        });
    }
    Ok(ms as i64)
}
