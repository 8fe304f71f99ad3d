//! Skipped tests, said out loud: a test (or part of one) that cannot run here, because data
//! beside the checkout (`../shared/data`, never copied into the repository for lack of a
//! license) is absent, says why on stderr and appends `binary::test: reason` to the file named by
//! `SCALINGLAWS_SKIP_LOG`. cargo hides a passing test's stderr, so `scripts/test-all.sh` sets
//! the variable and prints the file at the end.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

/// Record that the running test skips (all of it, or the part `reason` names).
pub fn skip(reason: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("?");
    let line = format!("{}::{test}: {reason}", env!("CARGO_CRATE_NAME"));
    eprintln!("skipped {line}");
    let Some(log) = std::env::var_os("SCALINGLAWS_SKIP_LOG") else {
        return;
    };
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .and_then(|mut file| writeln!(file, "{line}"));
    if let Err(error) = appended {
        eprintln!(
            "cannot append to the skip log {}: {error}",
            Path::new(&log).display()
        );
    }
}

/// `../shared/data/<path>` beside the checkout when it exists; otherwise the test skips (with
/// `what` naming the part skipped) and gets None.
pub fn shared(path: &str, what: &str) -> Option<PathBuf> {
    // crates/<crate> -> the repository -> the folder beside it.
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let beside = manifest.ancestors().nth(3).unwrap_or(manifest);
    let full = beside.join("shared/data").join(path);
    if full.exists() {
        Some(full)
    } else {
        skip(&format!(
            "{what} skipped: {} is absent (unlicensed data, kept beside the checkout, never in it)",
            full.display()
        ));
        None
    }
}
