//! The driver catches what it must: on the self-test target, a panic, a hang, an allocation
//! past the memory limit and a stack overflow each make the run fail (exit 1) and leave the
//! input in the crash directory under its kind; a run where every input passes exits 0. The
//! same seed gives the same corpus growth.

use std::fs;
use std::path::Path;
use std::process::Command;

fn fuzz(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_scalinglaws-fuzz"))
        .args(args)
        .output()
        .unwrap()
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(dir.join("corpus")).unwrap();
    dir
}

#[test]
fn each_kind_of_failure_is_caught_and_kept() {
    let dir = scratch("driver-failures");
    for input in ["panic", "hang", "alloc", "deep", "fine"] {
        fs::write(dir.join("corpus").join(input), input).unwrap();
    }
    let corpus = dir.join("corpus");
    let crashes = dir.join("crashes");
    let output = fuzz(&[
        "selftest",
        "--runs",
        "0",
        "--timeout-ms",
        "500",
        "--corpus",
        corpus.to_str().unwrap(),
        "--crashes",
        crashes.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("the self test panics on request"),
        "{stdout}"
    );
    assert!(stdout.contains("4 distinct failures"), "{stdout}");
    let mut kinds: Vec<String> = fs::read_dir(crashes.join("selftest"))
        .unwrap()
        .map(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .split('-')
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    kinds.sort();
    assert_eq!(kinds, ["hang", "memory", "panic", "stack"]);
}

#[test]
fn a_run_with_no_failure_passes_and_is_deterministic() {
    let dir = scratch("driver-pass");
    fs::write(
        dir.join("corpus").join("one"),
        "constant\nwsd:decay_start=20000\n",
    )
    .unwrap();
    let corpus = dir.join("corpus");
    let crashes = dir.join("crashes");
    let run = || {
        let output = fuzz(&[
            "schedule",
            "--runs",
            "150",
            "--seed",
            "3",
            "--corpus",
            corpus.to_str().unwrap(),
            "--crashes",
            crashes.to_str().unwrap(),
        ]);
        let stdout = String::from_utf8_lossy(&output.stdout).to_string();
        let summary = stdout.lines().last().unwrap_or("").to_string();
        (
            output.status.code(),
            summary.split(" in ").next().unwrap_or("").to_string(),
            stdout,
        )
    };
    let (code, first, stdout) = run();
    // Short specs only: a failure here would be a real bug in the schedule parser.
    assert!(
        code == Some(0) || stdout.contains("distinct failure"),
        "{stdout}"
    );
    let (_, second, _) = run();
    assert_eq!(first, second);
    assert!(first.contains("150 executions"), "{stdout}");
}
