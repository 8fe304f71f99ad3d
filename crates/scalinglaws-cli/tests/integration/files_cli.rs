//! Files through the command line (issue 21): outputs are checked before the work and written
//! whole (an interrupt, and on Linux a `kill -9`, leaves no temporary file; every option that
//! writes a file refuses a directory, a path ending in '/', or a directory that is missing or
//! not writable before any data is read, issue 50; a replaced file keeps its mode, a dangling
//! link is followed, the data is never overwritten), a PNG that cannot be written names its
//! path, a missing data file says its error once, `-` reads the data from stdin, and the
//! reader names an unterminated quote, a number beyond f64, a semicolon file and decimal
//! commas.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::prelude::*;

use common::{scalinglaws, CHINCHILLA};

/// The README's data copied into `dir` as data.csv.
fn chinchilla_data(dir: &Path) -> PathBuf {
    let data = dir.join("data.csv");
    std::fs::copy(common::root().join(CHINCHILLA[1]), &data).unwrap();
    data
}

/// `fit data.csv` with the README's law and columns, in `dir`, plus `extra`.
fn fit_in(dir: &Path, extra: &[&str]) -> Command {
    chinchilla_data(dir);
    let mut command = scalinglaws();
    command
        .current_dir(dir)
        .args(["fit", "data.csv"])
        .args(&CHINCHILLA[2..])
        .args(extra);
    command
}

/// Runs `command` and returns (exit code, stderr).
fn run(command: &mut Command) -> (Option<i32>, String) {
    let output = command.output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The names in `dir` that are temporary files of an output.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".tmp"))
        .collect()
}

/// True when process `pid` holds a file in `dir` that has no name (Linux's `O_TMPFILE`, shown
/// in /proc as `DIR/#INODE (deleted)`): the claim of an output made before the work.
fn holds_unnamed_file(dir: &Path, pid: u32) -> bool {
    let Ok(descriptors) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    let dir = dir.canonicalize().unwrap();
    descriptors.flatten().any(|descriptor| {
        std::fs::read_link(descriptor.path()).is_ok_and(|target| {
            target.starts_with(&dir) && target.to_string_lossy().ends_with("(deleted)")
        })
    })
}

/// Waits until the output of process `pid` in `dir` is claimed (its temporary file made,
/// named or unnamed), so the work has started.
fn wait_for_claim(dir: &Path, pid: u32) {
    let start = Instant::now();
    while temporaries(dir).is_empty() && !holds_unnamed_file(dir, pid) {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no temporary file was made"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn write_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// A file of x,loss rows the laws fit, as `x,loss` CSV text with `delimiter`.
fn power_law_rows(delimiter: char) -> String {
    let mut text = format!("x{delimiter}loss\n");
    for i in 0..12 {
        let x = 10f64.powf(6.0 + 0.25 * i as f64);
        let loss = 1.5 + 300.0 * x.powf(-0.3) * (1.0 + 0.01 * (i as f64).sin());
        text.push_str(&format!("{x}{delimiter}{loss}\n"));
    }
    text
}

fn fit_power_law(dir: &Path, data: &str) -> Command {
    let mut command = scalinglaws();
    command.current_dir(dir).args([
        "fit",
        data,
        "--formula",
        "E + A/x^alpha",
        "--target",
        "loss",
    ]);
    command
}

#[cfg(unix)]
fn interrupted_bootstrap_leaves_no_temporary_file(signal: &str, number: i32) {
    use std::os::unix::process::ExitStatusExt;
    let dir = tempfile::tempdir().unwrap();
    let mut child = fit_in(
        dir.path(),
        &[
            "--bootstrap",
            "200000",
            "--max-work",
            "1e6",
            "--json",
            "out.json",
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    // The output's temporary file is made before the work: wait for it, then interrupt.
    wait_for_claim(dir.path(), child.id());
    std::thread::sleep(Duration::from_millis(300));
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(number), "{status:?}");
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
    assert!(!dir.path().join("out.json").exists());
}

/// Files 1: SIGINT during a long bootstrap removes the output's temporary file, and the
/// process still ends by the signal (as the shell expects of Ctrl-C).
#[cfg(unix)]
#[test]
fn an_interrupt_leaves_no_temporary_file() {
    interrupted_bootstrap_leaves_no_temporary_file("-INT", 2);
}

/// Files 1: so does SIGTERM.
#[cfg(unix)]
#[test]
fn a_termination_leaves_no_temporary_file() {
    interrupted_bootstrap_leaves_no_temporary_file("-TERM", 15);
}

/// Files 2: replacing an output keeps its mode (600 stays 600).
#[cfg(unix)]
#[test]
fn a_replaced_output_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let out = write_file(dir.path(), "fit.json", "{}\n");
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
    fit_in(dir.path(), &["--json", "fit.json"])
        .assert()
        .success();
    let meta = std::fs::metadata(&out).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .contains("\"schema_version\""));
}

/// Files 2: a dangling link as the destination is followed: its target is made, the link kept.
#[cfg(unix)]
#[test]
fn a_dangling_link_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("results/fit.json", dir.path().join("link.json")).unwrap();
    std::fs::create_dir(dir.path().join("results")).unwrap();
    fit_in(dir.path(), &["--json", "link.json"])
        .assert()
        .success();
    let link = std::fs::symlink_metadata(dir.path().join("link.json")).unwrap();
    assert!(link.file_type().is_symlink());
    let written = std::fs::read_to_string(dir.path().join("results/fit.json")).unwrap();
    assert!(written.contains("\"schema_version\""));
}

/// Files 2: `--json` naming the data file, directly, through a link or spelt another way, is
/// refused before any work and the data is left as it was.
#[test]
fn an_output_over_the_data_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let data = chinchilla_data(dir.path());
    let before = std::fs::read(&data).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("data.csv", dir.path().join("alias.csv")).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let mut spellings = vec!["data.csv", "./sub/../data.csv"];
    if cfg!(unix) {
        spellings.push("alias.csv");
    }
    for spelling in spellings {
        let (code, stderr) = run(&mut fit_in(dir.path(), &["--json", spelling]));
        assert_eq!(code, Some(2), "{spelling}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "--json '{spelling}' is the file read by DATA 'data.csv'"
            )) && stderr.contains("choose another path"),
            "{stderr}"
        );
        assert_eq!(std::fs::read(&data).unwrap(), before);
    }
    // `plot fit -o` too.
    let mut plot = scalinglaws();
    plot.current_dir(dir.path())
        .args(["plot", "fit", "data.csv"])
        .args(&CHINCHILLA[2..])
        .args(["-o", "data.csv"]);
    let (code, stderr) = run(&mut plot);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--output 'data.csv' is the file read by DATA"),
        "{stderr}"
    );
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
}

/// Files 3: a destination in a missing directory is refused at once, before a bootstrap that
/// would take minutes, naming the path, and leaves nothing behind.
#[test]
fn an_unwritable_output_is_refused_before_the_work() {
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let output = assert_cmd::Command::from_std(fit_in(
        dir.path(),
        &["--bootstrap", "200000", "--json", "missing/fit.json"],
    ))
    .timeout(Duration::from_secs(120))
    .output()
    .unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("cannot write 'missing/fit.json': the directory 'missing' does not exist"),
        "{stderr}"
    );
    assert!(output.stdout.is_empty());
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
}

/// Issue 50: `kill -9` during the work (which no handler can catch) leaves no temporary file
/// beside the destination: on Linux it has no name until it is whole.
#[cfg(target_os = "linux")]
#[test]
fn a_kill_9_during_the_work_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = fit_in(
        dir.path(),
        &[
            "--bootstrap",
            "200000",
            "--max-work",
            "1e6",
            "--json",
            "out.json",
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    wait_for_claim(dir.path(), child.id());
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
    assert!(!dir.path().join("out.json").exists());
}

/// Every option that writes a file, with the command's other arguments.
const OUTPUT_OPTIONS: &[(&[&str], &str)] = &[
    (&["laws"], "--json"),
    (
        &[
            "fit",
            "absent.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
        ],
        "--json",
    ),
    (
        &[
            "fit",
            "absent.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--group",
            "g",
        ],
        "--table",
    ),
    (&["predict", "absent.json", "N=1e9"], "--json"),
    (&["optimal", "absent.json"], "--json"),
    (
        &[
            "isoflop",
            "absent.csv",
            "--target",
            "loss",
            "--compute",
            "C",
            "--size",
            "N",
        ],
        "--json",
    ),
    (&["downstream", "absent.csv", "--target", "acc"], "--json"),
    (&["downstream", "absent.csv", "--target", "acc"], "--plot"),
    (
        &[
            "design",
            "absent.csv",
            "--law",
            "chinchilla",
            "--goal",
            "loss",
            "--candidates",
            "N=1e8..1e9",
        ],
        "--json",
    ),
    (
        &[
            "design",
            "absent.csv",
            "--law",
            "chinchilla",
            "--goal",
            "loss",
            "--candidates",
            "N=1e8..1e9",
        ],
        "--csv",
    ),
    (
        &[
            "design",
            "absent.csv",
            "--law",
            "chinchilla",
            "--goal",
            "loss",
            "--candidates",
            "N=1e8..1e9",
        ],
        "--plot",
    ),
    (
        &[
            "backtest",
            "absent.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--by",
            "N",
        ],
        "--json",
    ),
    (
        &["compare-laws", "absent.csv", "--target", "loss"],
        "--json",
    ),
    (&["select", "absent.csv", "--target", "loss"], "--json"),
    (
        &[
            "compare",
            "absent.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--track",
            "t",
        ],
        "--json",
    ),
    (
        &[
            "lr",
            "absent.csv",
            "--target",
            "loss",
            "--lr",
            "lr",
            "--size",
            "N",
            "--tokens",
            "D",
        ],
        "--json",
    ),
    (
        &[
            "report",
            "absent.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
        ],
        "--output",
    ),
    (
        &[
            "report",
            "absent.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
        ],
        "--json",
    ),
    (
        &[
            "plot",
            "fit",
            "absent.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
        ],
        "--output",
    ),
    (
        &[
            "plot",
            "fit",
            "absent.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "-o",
            "f.svg",
        ],
        "--json",
    ),
    (&["plot", "frontier", "absent.json"], "--output"),
    (&["sim", "sgd"], "--output"),
    (&["sim", "sgd", "-o", "d.csv"], "--plot"),
    (&["schedule", "fit", "absent.csv"], "--json"),
    (&["schedule", "fit", "absent.csv"], "--plot"),
    (
        &["schedule", "predict", "absent.json", "--schedule", "cosine"],
        "--json",
    ),
    (
        &["schedule", "compare", "absent.json", "--schedule", "cosine"],
        "--plot",
    ),
    (&["schedule", "optimize", "absent.json"], "--schedule-csv"),
    (
        &[
            "schedule",
            "cooldown",
            "absent.json",
            "--at",
            "100",
            "--len",
            "10",
        ],
        "--json",
    ),
    (&["schedule", "cooldown-study", "absent.json"], "--plot"),
];

/// Issue 50: every option that writes a file refuses a directory before anything else, before
/// the data or fit it names is read (they do not exist here, and are not complained of),
/// with exit 2 and a message naming the option, the path and the fix; nothing is left behind.
#[test]
fn every_output_option_refuses_a_directory_before_reading_anything() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    for (arguments, option) in OUTPUT_OPTIONS {
        for destination in ["out", "out/"] {
            let mut command = scalinglaws();
            command
                .current_dir(dir.path())
                .args(*arguments)
                .args([*option, destination]);
            let (code, stderr) = run(&mut command);
            let expected = format!(
                "error: {option}: cannot write '{destination}': it is a directory; give a file path"
            );
            assert_eq!(code, Some(2), "{arguments:?} {option}: {stderr}");
            assert!(
                stderr.contains(&expected),
                "{arguments:?} {option}: {stderr}"
            );
            assert!(
                !stderr.contains("absent"),
                "{arguments:?} {option}: {stderr}"
            );
        }
    }
    // A default destination too: `report` writes report.html unless told otherwise.
    std::fs::create_dir(dir.path().join("report.html")).unwrap();
    let (code, stderr) = run(scalinglaws().current_dir(dir.path()).args([
        "report",
        "absent.csv",
        "--law",
        "chinchilla",
        "--target",
        "loss",
    ]));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--output: cannot write 'report.html': it is a directory"),
        "{stderr}"
    );
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
}

/// Issue 50: the refusal comes before the work. A bootstrap of 200,000 replicates under a
/// budget of 0.001 core-seconds is refused by the budget before it starts; a destination that
/// is a directory (or a path ending in '/') is refused before that, so before any fitting.
#[test]
fn a_directory_is_refused_before_the_work_is_costed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    let work = ["--bootstrap", "200000", "--max-work", "0.001"];
    let (code, stderr) = run(&mut fit_in(dir.path(), &work));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("--max-work"),
        "the budget refuses it: {stderr}"
    );
    for (destination, reason) in [
        ("out", "it is a directory"),
        ("new/", "a path ending in '/' (or '/.') names a directory"),
    ] {
        let mut command = fit_in(dir.path(), &work);
        let output = command.args(["--json", destination]).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("--json: cannot write '{destination}': {reason}")),
            "{stderr}"
        );
        assert!(!stderr.contains("--max-work"), "{stderr}");
        assert!(output.stdout.is_empty());
    }
    assert!(!dir.path().join("new").exists());
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
}

/// Issue 50: a directory that takes no new file is refused before the work, naming the fix
/// (skipped as root, who may write anywhere).
#[cfg(unix)]
#[test]
fn an_unwritable_directory_is_refused_before_the_work() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    if std::fs::write(locked.join("probe"), "").is_ok() {
        eprintln!("skipped: this user may write into a read-only directory");
        return;
    }
    let work = ["--bootstrap", "200000", "--max-work", "0.001"];
    let (code, stderr) = run(fit_in(dir.path(), &work).args(["--json", "locked/fit.json"]));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "--json: cannot write 'locked/fit.json': the directory 'locked' is not writable; \
             give a path in a directory you can write to"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("--max-work"), "{stderr}");
}

/// Unclear: a PNG that cannot be written says "cannot write PATH: reason", no debug dump.
#[test]
fn a_png_write_error_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    chinchilla_data(dir.path());
    let mut plot = scalinglaws();
    plot.current_dir(dir.path())
        .args(["plot", "fit", "data.csv"])
        .args(&CHINCHILLA[2..])
        .args(["-o", "nowhere/fit.png"]);
    let (code, stderr) = run(&mut plot);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot write 'nowhere/fit.png': the directory 'nowhere'"),
        "{stderr}"
    );
    assert!(!stderr.contains("Error("), "{stderr}");
}

/// Unclear: a missing data file says the operating system's error once.
#[test]
fn a_missing_data_file_says_its_error_once() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stderr) = run(fit_power_law(dir.path(), "absent.csv").current_dir(dir.path()));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("absent.csv"), "{stderr}");
    assert_eq!(
        stderr.matches("No such file or directory").count(),
        1,
        "{stderr}"
    );
}

/// Unclear: `-` as DATA reads stdin, CSV by default and JSON Lines when it starts with `{`,
/// and fits what the same file fits.
#[test]
fn a_dash_reads_the_data_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let csv = power_law_rows(',');
    write_file(dir.path(), "runs.csv", &csv);
    let from_file = fit_power_law(dir.path(), "runs.csv").output().unwrap();
    assert!(from_file.status.success());
    let mut jsonl = String::new();
    for line in csv.lines().skip(1) {
        let (x, loss) = line.split_once(',').unwrap();
        jsonl.push_str(&format!("{{\"x\": {x}, \"loss\": {loss}}}\n"));
    }
    for input in [csv, jsonl] {
        let mut child = fit_power_law(dir.path(), "-")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let from_stdin = child.wait_with_output().unwrap();
        assert_eq!(from_stdin.status.code(), Some(0));
        let printed = String::from_utf8_lossy(&from_stdin.stdout).replace("stdin", "runs.csv");
        assert_eq!(printed, String::from_utf8_lossy(&from_file.stdout));
    }
}

/// Unclear: an unterminated quote is named where it starts, not "the row has 1 field".
#[test]
fn an_unterminated_quote_names_where_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    write_file(
        dir.path(),
        "runs.csv",
        "x,loss\n1e6,2.5\n2e6,\"2.4\n3e6,2.3\n",
    );
    let (code, stderr) = run(&mut fit_power_law(dir.path(), "runs.csv"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("unterminated quote starting at row 2, column 2 ('loss') (line 3)"),
        "{stderr}"
    );
    assert!(!stderr.contains("field"), "{stderr}");
}

/// Unclear: `1e400` in a cell is echoed as written and said to overflow f64.
#[test]
fn a_cell_beyond_f64_is_echoed_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = power_law_rows(',');
    text.push_str("1e400,2.0\n");
    write_file(dir.path(), "runs.csv", &text);
    let (code, stderr) = run(&mut fit_power_law(dir.path(), "runs.csv"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("row 13"), "{stderr}");
    assert!(stderr.contains("\"1e400\" overflows f64"), "{stderr}");
    assert!(!stderr.contains("inf"), "{stderr}");
}

/// Unclear: a semicolon file read as CSV hints the delimiter; decimal commas say to use a point.
#[test]
fn a_semicolon_file_and_decimal_commas_get_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let text = power_law_rows(';');
    write_file(dir.path(), "runs.csv", &text);
    let (code, stderr) = run(&mut fit_power_law(dir.path(), "runs.csv"));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("give the delimiter with --delimiter \";\""),
        "{stderr}"
    );
    let comma = text.replace('.', ",");
    write_file(dir.path(), "comma.csv", &comma);
    let mut command = fit_power_law(dir.path(), "comma.csv");
    let (code, stderr) = run(command.args(["--delimiter", ";"]));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("decimal commas are not read: use a point"),
        "{stderr}"
    );
}
