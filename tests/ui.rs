//! The compile-fail suite: every misuse the macros catch, with the exact message users see.
//! The forms that must compile, `tests/ui/pass`, are test targets of their own (`ui_pass_*` in
//! Cargo.toml): a trybuild pass case would make trybuild build every dependency again with code
//! generation, where compile-fail cases alone are type-checked.

use std::path::Path;

/// What trybuild's second type check of every dependency (under `target/tests/trybuild`) takes
/// on disk from scratch: 0.9 GB measured, with headroom.
const FIRST_BUILD_BYTES: u64 = 3 << 29;
/// What a rebuild over an existing `target/tests/trybuild` takes: the cases' own metadata.
const REBUILD_BYTES: u64 = 1 << 28;

#[test]
fn ui() {
    enough_disk_for_trybuild();
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

/// When trybuild's build fails as a whole (a dependency that cannot be written, a full disk),
/// no case gets a diagnostic of its own, and trybuild reports every compile-fail case as
/// "expected to fail to compile, but it succeeded". A full disk does that, and is the cause we
/// know of: check it first and say so.
fn enough_disk_for_trybuild() {
    let exe = std::env::current_exe().expect("the test binary's path");
    // target/debug/deps/ui-<hash> → target/
    let target = exe
        .ancestors()
        .nth(3)
        .expect("the test binary lives under target/<profile>/deps");
    let trybuild = target.join("tests").join("trybuild");
    let needed = if trybuild.is_dir() {
        REBUILD_BYTES
    } else {
        FIRST_BUILD_BYTES
    };
    let free = free_bytes(target);
    assert!(
        free >= needed,
        "the compile-fail suite checks every dependency again under {}, which needs about \
         {:.1} GiB free; the disk holding it has {:.1} GiB: free space (`cargo clean`, old \
         target directories) and run again",
        trybuild.display(),
        needed as f64 / f64::from(1u32 << 30),
        free as f64 / f64::from(1u32 << 30),
    );
}

/// Bytes an unprivileged writer may still use on the file system holding `path`.
fn free_bytes(path: &Path) -> u64 {
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes()).expect("a path without NUL");
    let mut stats = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c_path` is a NUL-terminated path and `stats` is written by `statvfs` before
    // it is read (only when it returns 0).
    let rc = unsafe { libc::statvfs(c_path.as_ptr(), stats.as_mut_ptr()) };
    assert_eq!(
        rc,
        0,
        "statvfs({}): {}",
        path.display(),
        std::io::Error::last_os_error()
    );
    // SAFETY: `statvfs` returned 0, so it filled `stats`.
    let stats = unsafe { stats.assume_init() };
    // The field types differ between platforms (`fsblkcnt_t` is 32 bits on macOS).
    #[allow(clippy::useless_conversion)]
    let (blocks, size) = (u64::from(stats.f_bavail), u64::from(stats.f_frsize));
    blocks.saturating_mul(size)
}
