//! Instruction counts of the running bench binary, run again under callgrind with other
//! arguments (its single-case mode). Shared by `checkpoint_cpu` and the root package's `mcp`.

use std::process::{Command, Stdio};

/// The instructions callgrind counts for this binary run with `args`. Panics when valgrind is
/// missing or the child fails: this is a bench, its reader fixes the machine.
pub fn instructions_of_self(args: &[&str]) -> u64 {
    let exe = std::env::current_exe().expect("the bench binary");
    let out = std::env::temp_dir().join(format!(
        "callgrind-{}-{}.out",
        std::process::id(),
        args.join("-")
    ));
    let status = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(exe)
        .args(args)
        .stderr(Stdio::null())
        .status()
        .expect("valgrind runs (the distribution's `valgrind` package)");
    assert!(status.success(), "the callgrind child failed");
    let text = std::fs::read_to_string(&out).expect("callgrind output");
    let _ = std::fs::remove_file(&out);
    text.lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|n| n.split_whitespace().next()?.parse().ok())
        .expect("callgrind totals")
}
