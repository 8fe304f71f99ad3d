//! What the CLI tests share: the README's first command as arguments, the skip log, running
//! the binary (in the workspace root, on the README's data), reading what it printed, and the
//! bootstrap fit that several files use.
#![allow(dead_code)]

// The library's tests' skip log, compiled here too (its paths resolve against this crate).
#[path = "../../../../scalinglaws/tests/integration/common/skip.rs"]
pub mod skip;

pub mod child;

// The library's tests' Parquet writer.
#[cfg(feature = "parquet")]
#[path = "../../../../scalinglaws/tests/integration/common/parquet_writer.rs"]
pub mod parquet_writer;

/// `schedule fit` on the bundled 400M curves, trained on cosine_24000 (the README's schedule
/// example).
pub const SCHEDULE_FIT: [&str; 9] = [
    "schedule",
    "fit",
    "examples/schedule/runs_400m.csv",
    "--run",
    "run",
    "--warmup",
    "2160",
    "--train",
    "cosine_24000",
];

/// Epoch AI's protocol on the bundled Chinchilla data (the README's first command).
pub const CHINCHILLA: &[&str] = &[
    "fit",
    "examples/chinchilla/chinchilla_epoch.csv",
    "--law",
    "chinchilla",
    "--target",
    "loss",
    "--map",
    "N=Model Size",
    "--map",
    "C=Training FLOP",
    "--derive",
    "D=C/(6*N)",
    "--where",
    "loss < 3.44",
];

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------------------------

/// The binary, run in the test's own working directory.
pub fn scalinglaws() -> Command {
    Command::new(env!("CARGO_BIN_EXE_scalinglaws"))
}

/// The workspace root, where the README's commands run.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The binary, run in the workspace root (so that `examples/...` paths resolve).
pub fn scalinglaws_in_root() -> Command {
    let mut command = scalinglaws();
    command.current_dir(root());
    command
}

/// `WORDS` (a subcommand such as `plot fit` or `report`) with the README's data, law and
/// column arguments, in the workspace root.
pub fn with_chinchilla(words: &[&str]) -> Command {
    let mut command = scalinglaws_in_root();
    command.args(words).args(&CHINCHILLA[1..]);
    command
}

/// `SUBCOMMAND` with the README's data, law and column arguments (for `fit` and `backtest`).
pub fn chinchilla(subcommand: &str) -> Command {
    with_chinchilla(&[subcommand])
}

/// `fit` with a formula instead of the README's law, on the README's data and columns.
pub fn chinchilla_formula(formula: &str) -> Command {
    let mut command = scalinglaws_in_root();
    command
        .args(["fit", CHINCHILLA[1], "--formula", formula])
        .args(&CHINCHILLA[4..]);
    command
}

/// `compare` on the bundled two-recipe example (examples/tracks), by recipe.
pub fn compare_tracks() -> Command {
    let mut command = scalinglaws_in_root();
    command.args([
        "compare",
        "examples/tracks/two_recipes.csv",
        "--law",
        "chinchilla",
        "--target",
        "loss",
        "--track",
        "recipe",
    ]);
    command
}

/// `isoflop` on the bundled IsoFLOP example (examples/isoflop), by compute C and size N.
pub fn isoflop_runs() -> Command {
    let mut command = scalinglaws_in_root();
    command.args([
        "isoflop",
        "examples/isoflop/runs.csv",
        "--compute",
        "C",
        "--size",
        "N",
        "--target",
        "loss",
    ]);
    command
}

// ---------------------------------------------------------------------------------------------
// What it printed
// ---------------------------------------------------------------------------------------------

/// Runs `command`, asserts it succeeded, and returns its stdout (UTF-8).
pub fn stdout(command: &mut Command) -> String {
    let output = command.output().expect("run scalinglaws");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{command:?} failed: {stderr}");
    String::from_utf8(output.stdout).expect("stdout is UTF-8")
}

/// Runs `command`, asserts it succeeded, and parses its stdout as JSON.
pub fn stdout_json(command: &mut Command) -> Value {
    serde_json::from_str(&stdout(command)).expect("stdout is JSON")
}

/// The stdout of `scalinglaws ARGS` run in the workspace root, which must succeed.
pub fn stdout_of(args: &[&str]) -> String {
    stdout(scalinglaws_in_root().args(args))
}

/// Asserts exit code 2, an `error` message holding every `expected` piece, and no panic.
pub fn fails(command: &mut Command, expected: &[&str]) {
    let output = command.output().expect("run scalinglaws");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{command:?} should exit 2: {stderr}"
    );
    assert!(stderr.contains("error"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for needle in expected {
        assert!(stderr.contains(needle), "expected {needle:?} in: {stderr}");
    }
}

/// The JSON file at `path`.
pub fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).expect("the file is JSON")
}

// ---------------------------------------------------------------------------------------------
// Reading the JSON
// ---------------------------------------------------------------------------------------------

/// A two-number array (an interval): panics unless `value` is an array of exactly two numbers.
pub fn pair(value: &Value) -> [f64; 2] {
    let list = value
        .as_array()
        .unwrap_or_else(|| panic!("not a pair: {value}"));
    assert_eq!(list.len(), 2, "{value}");
    [list[0].as_f64().unwrap(), list[1].as_f64().unwrap()]
}

/// A number: panics unless `value` is one.
pub fn number(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("not a number: {value}"))
}

/// |a − b| / |b|.
pub fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

// ---------------------------------------------------------------------------------------------
// Saved fits
// ---------------------------------------------------------------------------------------------

/// The 60-replicate bootstrap fit of the Chinchilla data with seed 3, run once per test
/// binary: (the JSON text it wrote, its report on stdout).
pub fn bootstrap_fit() -> &'static (String, String) {
    static FIT: OnceLock<(String, String)> = OnceLock::new();
    FIT.get_or_init(|| run_bootstrap_fit(&[]))
}

/// `fit ... --bootstrap 60 --seed 3 --json PATH` plus `extra`: (JSON text, stdout).
pub fn run_bootstrap_fit(extra: &[&str]) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fit.json");
    let output = chinchilla("fit")
        .args(["--bootstrap", "60", "--seed", "3"])
        .args(extra)
        .arg("--json")
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "failed: {stderr}");
    (
        std::fs::read_to_string(&path).unwrap(),
        String::from_utf8(output.stdout).unwrap(),
    )
}

/// The JSON of [`bootstrap_fit`].
pub fn bootstrap_json() -> Value {
    serde_json::from_str(&bootstrap_fit().0).unwrap()
}

/// Writes `text` as `fit.json` in a fresh directory.
pub fn fit_file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fit.json");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}
