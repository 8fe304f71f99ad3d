//! Curve prediction intervals (issue 26): the moving-block bootstrap (Künsch 1989) of the
//! multi-power law (Luo et al. 2025, arXiv:2503.12811) fitted on `cosine_24000` alone, as
//! `schedule fit --warmup 2160` reads the logs, and the coverage of its 95 % prediction
//! intervals on the logged points of the other 8 schedules, per model size.
//!
//! `intervals_table` (opt-in: `cargo test --release -p scalinglaws --test schedule_intervals
//! -- --ignored`) writes `bench/results/schedule_intervals.md` with 200 replicates; the fast
//! test recomputes the 25M totals from 20 replicates and checks them against the file.

mod common;

use std::fmt::Write as _;

use scalinglaws::analysis::schedule::intervals::{
    bootstrap_fit, bootstrap_fit_calibrated, coverage, BootstrapSettings, Coverage, CurveBootstrap,
};
use scalinglaws::analysis::schedule::{fit_curves, CurveLaw};

use common::MULTI_POWER_RUNS as RUNS;

const SIZES: [&str; 3] = ["25", "100", "400"];
const TRAIN: &str = "cosine_24000";
const RESULTS: &str = "bench/results/schedule_intervals.md";
/// Replicates of the recorded table.
const REPLICATES: usize = 200;
/// Replicates of the fast test's row, and its label.
const FAST_REPLICATES: usize = 20;
const FAST_ROW: &str = "25M held-out total, 20 refits";

/// The bootstrap of the fit on `cosine_24000` alone (calibrated when asked) and its
/// coverage of every run: by the bootstrap's own intervals, and by the calibrated ones.
fn measure(
    size: &str,
    replicates: usize,
    calibrated: bool,
) -> (CurveBootstrap, Vec<Coverage>, Vec<Coverage>) {
    let curves = common::multi_power_curves(size);
    let fit = fit_curves(CurveLaw::MultiPower, &curves, &[TRAIN.into()], &[]).unwrap();
    let settings = BootstrapSettings::new(replicates);
    let boot = if calibrated {
        bootstrap_fit_calibrated(&fit, &curves, &settings).unwrap()
    } else {
        bootstrap_fit(&fit, &curves, &settings).unwrap()
    };
    let own = CurveBootstrap {
        calibration: None,
        ..boot.clone()
    };
    let raw = curves.iter().map(|c| coverage(&own, c).unwrap()).collect();
    let wide = curves.iter().map(|c| coverage(&boot, c).unwrap()).collect();
    (boot, raw, wide)
}

/// (covered fraction, mean width) over the held-out runs' logged points.
fn held_out_totals(rows: &[Coverage]) -> (f64, f64) {
    let held: Vec<&Coverage> = rows.iter().filter(|r| r.run != TRAIN).collect();
    let points: usize = held.iter().map(|r| r.points).sum();
    let covered: usize = held.iter().map(|r| r.covered).sum();
    let width: f64 = held.iter().map(|r| r.mean_width * r.points as f64).sum();
    (covered as f64 / points as f64, width / points as f64)
}

/// The numbers of the table row of `hay` that starts with `| first |`.
fn recorded(hay: &str, first: &str) -> Option<Vec<f64>> {
    let prefix = format!("| {first} |");
    let line = hay.lines().find(|l| l.starts_with(&prefix))?;
    Some(
        line[prefix.len()..]
            .split('|')
            .filter(|c| !c.trim().is_empty())
            .map(|c| c.trim().trim_end_matches('%').parse().unwrap())
            .collect(),
    )
}

#[test]
#[ignore = "writes bench/results/schedule_intervals.md (3 fits and 600 refits, minutes)"]
fn intervals_table() {
    let measured: Vec<(CurveBootstrap, Vec<Coverage>, Vec<Coverage>)> =
        SIZES.iter().map(|s| measure(s, REPLICATES, true)).collect();
    let mut out = String::from(
        "# Curve prediction intervals of a single-schedule fit\n\n\
         Written by `cargo test --release -p scalinglaws --test schedule_intervals -- --ignored`.\n\
         The multi-power law fitted on `cosine_24000` alone (`schedule fit --warmup 2160`), its\n\
         moving-block bootstrap (blocks of n^(1/3) logged steps, 200 refits, seed 0) and the\n\
         95 % prediction interval of a logged point at each logged step of every run: the share\n\
         of logged points inside the bootstrap's own interval (`own`), inside the interval\n\
         widened by the calibration on the training curve's later half (`calibrated`), and the\n\
         calibrated interval's mean width (loss units). Nothing is calibrated on the held-out\n\
         runs.\n\n\
         | run | 25M own | 25M calibrated | 25M width | 100M own | 100M calibrated | 100M width | 400M own | 400M calibrated | 400M width |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let cell = |out: &mut String, raw: &Coverage, wide: &Coverage| {
        let _ = write!(
            out,
            " {:.1}% | {:.1}% | {:.5} |",
            100.0 * raw.fraction(),
            100.0 * wide.fraction(),
            wide.mean_width
        );
    };
    for (i, run) in RUNS.iter().enumerate() {
        let role = if *run == TRAIN { " (train)" } else { "" };
        let _ = write!(out, "| `{run}`{role} |");
        for (_, raw, wide) in &measured {
            cell(&mut out, &raw[i], &wide[i]);
        }
        out.push('\n');
    }
    let _ = write!(out, "| held-out total |");
    for (_, raw, wide) in &measured {
        let ((c, _), (cw, w)) = (held_out_totals(raw), held_out_totals(wide));
        let _ = write!(out, " {:.1}% | {:.1}% | {w:.5} |", 100.0 * c, 100.0 * cw);
    }
    let (_, fast, _) = measure("25", FAST_REPLICATES, false);
    let (c, w) = held_out_totals(&fast);
    let _ = write!(
        out,
        "\n\nThe fast test's check (`held_out_coverage_matches_the_recorded_table`), 25M with \
         {FAST_REPLICATES} refits, the bootstrap's own intervals:\n\n| {FAST_ROW} | {:.1}% | {w:.5} |",
        100.0 * c
    );
    out.push_str(
        "\n\n| size | block | refits | failed | not converged | residual sd | calibration factor | half-fit points |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (size, (b, _, _)) in SIZES.iter().zip(&measured) {
        let cal = b.calibration.as_ref().unwrap();
        let _ = writeln!(
            out,
            "| {size}M | {} | {} | {} | {} | {:.6} | {:.2} | {} |",
            b.block, b.requested, b.failed, b.not_converged, b.residual_sd, cal.factor, cal.points
        );
    }
    std::fs::write(common::root().join(RESULTS), out).unwrap();
}

/// The 25M held-out totals from 20 replicates, recomputed: the same numbers as the row the
/// ignored test recorded (the bootstrap is seeded and deterministic).
#[test]
fn held_out_coverage_matches_the_recorded_table() {
    let text = std::fs::read_to_string(common::root().join(RESULTS))
        .unwrap_or_else(|e| panic!("{RESULTS}: {e}: run the ignored test"));
    let row = recorded(&text, FAST_ROW).expect("the fast test's row: rerun the ignored test");
    let (_, rows, _) = measure("25", FAST_REPLICATES, false);
    let (c, w) = held_out_totals(&rows);
    assert!(
        (100.0 * c - row[0]).abs() <= 0.051,
        "coverage {c} against {}: rerun the ignored test",
        row[0]
    );
    assert!(
        (w - row[1]).abs() <= 0.6e-5,
        "width {w} against {}: rerun the ignored test",
        row[1]
    );
}
