//! Long schedules within bounded memory (issue 50): `schedule predict` of a 2e7-step constant
//! run and of a cooldown at every step reads the schedule step by step (before, 60 bytes a
//! step: 1.2 GB here, and 5 GB for the cooldowns), measured as the peak resident memory of the
//! child (Linux; elsewhere skipped with the reason in the skip log); and the runs whose work
//! is only bounded by refusing are refused up front, naming the setting.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use common::{fails, scalinglaws_in_root};

/// A multi-power fit of the 400M curves (constant, two-stage and cosine runs), saved.
fn saved_fit(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "scalinglaws-schedule-memory-{}-{name}.json",
        std::process::id()
    ));
    let status = scalinglaws_in_root()
        .args([
            "schedule",
            "fit",
            "examples/schedule/runs_400m.csv",
            "--run",
            "run",
            "--warmup",
            "2160",
            "--train",
            "constant_24000,wsdcon_3,cosine_24000",
            "--json",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    path
}

/// The peak resident memory of `command`'s run to success, in MB (None off Linux).
fn peak_mb(command: &mut Command) -> Option<f64> {
    let stderr = std::env::temp_dir().join(format!(
        "scalinglaws-schedule-rss-{}.txt",
        std::process::id()
    ));
    let Some(usage) = common::child::measured(command, &stderr) else {
        common::skip::skip("peak memory of a child is measured with wait4 on Linux only");
        return None;
    };
    let _ = std::fs::remove_file(&stderr);
    assert!(
        usage.code == Some(0),
        "{command:?} failed: {}",
        usage.stderr
    );
    Some(usage.peak_mb())
}

#[test]
fn long_schedules_and_cooldown_families_predict_within_bounded_memory() {
    let fit = saved_fit("rss");
    for spec in [
        "constant:steps=20000000",
        "cooldowns:every=1,len=1",
        "cooldowns:every=100000,len=50000,steps=20000000",
    ] {
        let mut command = scalinglaws_in_root();
        command
            .args(["schedule", "predict"])
            .arg(&fit)
            .args(["--schedule", spec]);
        if let Some(mb) = peak_mb(&mut command) {
            assert!(mb < 200.0, "{spec}: peak {mb:.0} MB");
        }
    }
    let _ = std::fs::remove_file(fit);
}

#[test]
fn work_bounded_only_by_refusing_is_refused_up_front() {
    let fit = saved_fit("refusals");
    fails(
        scalinglaws_in_root()
            .args(["schedule", "optimize"])
            .arg(&fit)
            .args(["--steps", "10000000"]),
        &[
            "--steps 10000000 × 400 iterations",
            "lower --steps to at most 1,000,000",
        ],
    );
    fails(
        scalinglaws_in_root()
            .args(["schedule", "predict"])
            .arg(&fit)
            .args(["--schedule", "cooldowns:every=1,len=1,steps=1000000"]),
        &["cooldown branches, more than the limit of 100,000 (one row each); raise every"],
    );
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("nine.csv");
    let mut rows = String::from("run,step,lr,loss\n");
    for run in ["a", "b", "c"] {
        for (step, loss) in [(100, 4.0), (50_000_000, 3.0), (99_999_999, 2.8)] {
            rows += &format!("{run},{step},3e-4,{loss}\n");
        }
    }
    std::fs::write(&log, rows).unwrap();
    fails(
        scalinglaws_in_root()
            .args(["schedule", "fit"])
            .arg(&log)
            .args(["--run", "run"]),
        &[
            "reach 100,000,000 steps in all with run 'a'",
            "more than the limit of 20,000,000",
        ],
    );
    let _ = std::fs::remove_file(fit);
}
