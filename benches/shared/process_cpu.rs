//! The CPU time this process has used, for the benches whose tables compare CPU per run.
//! Included with `#[path]` by the benches that use it.

use std::time::Duration;

/// Process CPU time so far: user + system, every thread (the runtime's workers, tokio's
/// blocking pool, an exporter's thread).
pub fn cpu_now() -> Duration {
    // SAFETY: getrusage writes into the zeroed struct we own.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}
