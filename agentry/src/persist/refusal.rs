//! Why a database refused a checkpoint write: a lost lease, a thread leased to another worker,
//! or a thread that moved on. The SQL backends write with one guarded statement (or script)
//! and, when the guard stops it, read the thread's step and lease and name the reason here, in
//! one order for both: the lease first (a fenced worker learns it lost the thread, whatever
//! the step), then the step.

use super::{CheckpointWrite, PersistError};

/// A thread's lease row as the database holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LeaseRow {
    pub(crate) worker: String,
    pub(crate) token: u64,
    /// `0` once released.
    pub(crate) expires_at_ms: i64,
}

/// What a refused writer finds in the database after the refusal.
#[derive(Clone, Debug, Default)]
pub(crate) struct Seen {
    /// The thread's newest step (`None`: no such thread).
    pub(crate) found: Option<u64>,
    /// The thread's lease row, if any.
    pub(crate) lease: Option<LeaseRow>,
    /// The database's clock, in Unix milliseconds.
    pub(crate) now_ms: i64,
}

/// The error for `write`, refused by the database, given what is there now.
pub(crate) fn refusal(write: &CheckpointWrite<'_>, seen: Seen) -> PersistError {
    let thread_id = write.thread_id.to_string();
    match (write.lease, &seen.lease) {
        (Some(mine), held) => {
            let still_mine = held.as_ref().is_some_and(|l| {
                l.token == mine.token && l.worker == mine.worker && l.expires_at_ms > 0
            });
            if !still_mine {
                return PersistError::LeaseLost { thread_id };
            }
        }
        (None, Some(held)) if held.expires_at_ms > seen.now_ms => {
            return PersistError::Leased {
                thread_id,
                worker: held.worker.clone(),
            };
        }
        (None, _) => {}
    }
    if seen.found != write.after {
        return PersistError::Conflict {
            thread_id,
            expected: write.after,
            found: seen.found,
        };
    }
    // Nothing explains the refusal any more: the lease changed between the write and this
    // look (it expired, or was released). Name the lease, which was the obstacle.
    match (write.lease, seen.lease) {
        (Some(_), _) => PersistError::LeaseLost { thread_id },
        (None, Some(held)) => PersistError::Leased {
            thread_id,
            worker: held.worker,
        },
        (None, None) => PersistError::Conflict {
            thread_id,
            expected: write.after,
            found: seen.found,
        },
    }
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use serde_json::Value;

    use super::*;
    use crate::persist::Lease;

    fn lease(worker: &str, token: u64) -> Lease {
        Lease {
            thread_id: "t".into(),
            worker: worker.into(),
            token,
            expires_at: UNIX_EPOCH,
        }
    }

    fn row(worker: &str, token: u64, expires_at_ms: i64) -> Option<LeaseRow> {
        Some(LeaseRow {
            worker: worker.into(),
            token,
            expires_at_ms,
        })
    }

    #[test]
    fn a_taken_over_lease_is_lost_even_when_the_thread_also_moved_on() {
        let mine = lease("a", 1);
        let write = CheckpointWrite::next("t", 1, &[], &Value::Null).lease(&mine);
        let seen = Seen {
            found: Some(2),
            lease: row("b", 2, 5_000),
            now_ms: 1_000,
        };
        assert!(matches!(
            refusal(&write, seen),
            PersistError::LeaseLost { .. }
        ));
    }

    #[test]
    fn a_write_without_a_lease_on_a_leased_thread_names_the_holder() {
        let write = CheckpointWrite::next("t", 1, &[], &Value::Null);
        let seen = Seen {
            found: Some(1),
            lease: row("b", 2, 5_000),
            now_ms: 1_000,
        };
        let err = refusal(&write, seen);
        assert!(
            matches!(&err, PersistError::Leased { worker, .. } if worker == "b"),
            "{err:?}"
        );
    }

    #[test]
    fn an_expired_lease_of_another_does_not_hide_a_conflict() {
        let write = CheckpointWrite::next("t", 1, &[], &Value::Null);
        let seen = Seen {
            found: Some(3),
            lease: row("b", 2, 500),
            now_ms: 1_000,
        };
        let err = refusal(&write, seen);
        assert!(
            matches!(err, PersistError::Conflict { found: Some(3), .. }),
            "{err:?}"
        );
    }

    #[test]
    fn a_held_lease_and_a_moved_thread_is_a_conflict() {
        let mine = lease("a", 1);
        let write = CheckpointWrite::next("t", 1, &[], &Value::Null).lease(&mine);
        let seen = Seen {
            found: Some(2),
            lease: row("a", 1, 5_000),
            now_ms: 1_000,
        };
        assert!(matches!(
            refusal(&write, seen),
            PersistError::Conflict { .. }
        ));
    }

    #[test]
    fn a_released_lease_is_lost() {
        let mine = lease("a", 1);
        let write = CheckpointWrite::next("t", 1, &[], &Value::Null).lease(&mine);
        let seen = Seen {
            found: Some(1),
            lease: row("a", 1, 0),
            now_ms: 1_000,
        };
        assert!(matches!(
            refusal(&write, seen),
            PersistError::LeaseLost { .. }
        ));
    }
}
