//! The peak resident memory of this process, for the tests that bound it in a child process.

/// Peak resident set size so far (`VmHWM`), in bytes.
pub fn peak_rss() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status (Linux)");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
        .expect("VmHWM in /proc/self/status")
        * 1024
}
