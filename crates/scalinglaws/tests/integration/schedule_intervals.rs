//! Curve prediction intervals (issue 26): the moving-block bootstrap (Künsch 1989) of the
//! multi-power law (Luo et al. 2025, arXiv:2503.12811) fitted on `cosine_24000` alone, as
//! `schedule fit --warmup 2160` reads the logs, and the coverage of its 95 % prediction
//! intervals on the logged points of the other 8 schedules, per model size.
//!
//! `intervals_table` (an experiment:
//! `cargo run --release -p scalinglaws --example schedule_tables -- schedule_intervals`) writes `bench/results/schedule_intervals.md` with 200 replicates; the fast
//! test recomputes the 25M totals from 20 replicates and checks them against the file.
//!
//! The same for the profile-likelihood band (`analysis::schedule::profile`; Venzon &
//! Moolgavkar 1988): `profile_table` writes the file's profile section (the band at the
//! likelihood-ratio threshold, widened by the factor its calibration on the training curve's
//! later half chose, and the factor the held-out runs would have needed, as a diagnostic), and
//! `profile_coverage_matches_the_recorded_table` recomputes the 25M row at the threshold.

use crate::common;

use std::fmt::Write as _;

use scalinglaws::analysis::schedule::intervals::{
    bootstrap_fit, bootstrap_fit_calibrated, coverage, BootstrapSettings, Coverage, CurveBootstrap,
};
use scalinglaws::analysis::schedule::profile::{
    factors, profile_coverages, profile_fit, profile_fit_calibrated, CurveProfile, ProfileSettings,
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
/// Where the profile section of the results file starts, and the fast profile test's row.
const PROFILE_MARK: &str = "## Profile-likelihood band";
const PROFILE_FAST_ROW: &str = "25M held-out total, profile at Δ";

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

/// The held-out totals of `rows` against a recorded table row (coverage in %, mean width),
/// within the rounding of the file.
fn assert_matches_recorded(rows: &[Coverage], row: &[f64]) {
    let (c, w) = held_out_totals(rows);
    assert!(
        (100.0 * c - row[0]).abs() <= 0.051,
        "coverage {c} against {}: rerun its experiment (examples/schedule_tables.rs)",
        row[0]
    );
    assert!(
        (w - row[1]).abs() <= 0.6e-5,
        "width {w} against {}: rerun its experiment (examples/schedule_tables.rs)",
        row[1]
    );
}

/// (covered fraction, mean width) over the held-out runs' logged points.
fn held_out_totals(rows: &[Coverage]) -> (f64, f64) {
    let held: Vec<&Coverage> = rows.iter().filter(|r| r.run != TRAIN).collect();
    let points: usize = held.iter().map(|r| r.points).sum();
    let covered: usize = held.iter().map(|r| r.covered).sum();
    let width: f64 = held.iter().map(|r| r.mean_width * r.points as f64).sum();
    (covered as f64 / points as f64, width / points as f64)
}

/// Writes bench/results/schedule_intervals.md (3 fits and 600 refits, minutes).
// An experiment, not a test: run by this crate's `examples/schedule_tables.rs`.
#[allow(dead_code)]
pub fn intervals_table() {
    let measured: Vec<(CurveBootstrap, Vec<Coverage>, Vec<Coverage>)> =
        SIZES.iter().map(|s| measure(s, REPLICATES, true)).collect();
    let mut out = String::from(
        "# Curve prediction intervals of a single-schedule fit\n\n\
         Written by `cargo run --release -p scalinglaws --example schedule_tables -- schedule_intervals schedule_intervals_profiles`.\n\
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
    let previous = std::fs::read_to_string(common::root().join(RESULTS)).unwrap_or_default();
    let (_, profile) = split_results(&previous);
    if !profile.is_empty() {
        out = format!("{}\n\n{profile}", out.trim_end());
    }
    std::fs::write(common::root().join(RESULTS), out).unwrap();
}

/// The 25M held-out totals from 20 replicates, recomputed: the same numbers as the row the
/// experiment recorded (the bootstrap is seeded and deterministic).
#[test]
fn held_out_coverage_matches_the_recorded_table() {
    let text = std::fs::read_to_string(common::root().join(RESULTS)).unwrap_or_else(|e| {
        panic!("{RESULTS}: {e}: run its experiment (examples/schedule_tables.rs)")
    });
    let row = common::recorded_row(&text, FAST_ROW)
        .expect("the fast test's row: rerun its experiment (examples/schedule_tables.rs)");
    let (_, rows, _) = measure("25", FAST_REPLICATES, false);
    assert_matches_recorded(&rows, &row);
}

/// The profile-likelihood band (`profile.rs`) of the same fit and its coverage of every run
/// at each factor of the threshold (1, 2, 4, … up to the explored one; index 0: the threshold
/// itself).
fn measure_profile(size: &str, settings: &ProfileSettings) -> (CurveProfile, Vec<Vec<Coverage>>) {
    let curves = common::multi_power_curves(size);
    let fit = fit_curves(CurveLaw::MultiPower, &curves, &[TRAIN.into()], &[]).unwrap();
    let profile = if settings.calibrate {
        profile_fit_calibrated(&fit, &curves, settings).unwrap()
    } else {
        profile_fit(&fit, &curves, settings).unwrap()
    };
    let all = factors(settings.max_factor);
    let per_run: Vec<Vec<Coverage>> = curves
        .iter()
        .map(|c| profile_coverages(&profile, c, &all).unwrap())
        .collect();
    let by_factor = (0..all.len())
        .map(|k| per_run.iter().map(|r| r[k].clone()).collect())
        .collect();
    (profile, by_factor)
}

/// The rows at the profile's own factor.
fn at_own(profile: &CurveProfile, by_factor: &[Vec<Coverage>]) -> Vec<Coverage> {
    let k = profile.summary.factor.log2().round() as usize;
    by_factor[k].clone()
}

/// The smallest factor (1, 2, 4, …) at which the band holds 90 % of the held-out points, with
/// the coverage and mean width there: a diagnostic measured on the held-out runs, never used
/// by the method.
fn needed_factor(by_factor: &[Vec<Coverage>]) -> Option<(f64, f64, f64)> {
    by_factor.iter().enumerate().find_map(|(k, rows)| {
        let (c, w) = held_out_totals(rows);
        (c >= 0.9).then_some((2f64.powi(k as i32), c, w))
    })
}

fn profile_section(measured: &[(CurveProfile, Vec<Vec<Coverage>>)]) -> String {
    let mut out = String::from(
        "\n\n## Profile-likelihood band\n\n\
         The same fit's profile-likelihood band (`analysis::schedule::profile`): every refit\n\
         with one parameter held on a trace (steps doubling by √2 in log space, the rest\n\
         refitted) whose training objective lies within Δ = ½·χ²₁(0.95)·s²·(1+ρ)/(1−ρ) of the\n\
         fit's (s²: the Huber fit's dispersion, ρ: lag-1 autocorrelation of the residuals), the\n\
         envelope of their curves, widened by the training residuals' 2.5 % and 97.5 %\n\
         quantiles. `LR`: at Δ; `calibrated`: at Δ times the factor (1, 2, 4, …) a profile of\n\
         the fit on the training curve's first half needed to hold 95 % of its later half;\n\
         `width`: the calibrated band's mean width. Nothing is calibrated on the held-out runs.\n\n\
         | run | 25M LR | 25M calibrated | 25M width | 100M LR | 100M calibrated | 100M width | 400M LR | 400M calibrated | 400M width |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (i, run) in RUNS.iter().enumerate() {
        let role = if *run == TRAIN { " (train)" } else { "" };
        let _ = write!(out, "| `{run}`{role} |");
        for (p, by) in measured {
            let (lr, wide) = (&by[0], at_own(p, by));
            let _ = write!(
                out,
                " {:.1}% | {:.1}% | {:.5} |",
                100.0 * lr[i].fraction(),
                100.0 * wide[i].fraction(),
                wide[i].mean_width
            );
        }
        out.push('\n');
    }
    let _ = write!(out, "| held-out total |");
    for (p, by) in measured {
        let ((c, _), (cw, w)) = (held_out_totals(&by[0]), held_out_totals(&at_own(p, by)));
        let _ = write!(out, " {:.1}% | {:.1}% | {w:.5} |", 100.0 * c, 100.0 * cw);
    }
    out
}

fn profile_details(measured: &[(CurveProfile, Vec<Vec<Coverage>>)]) -> String {
    let mut out = String::from(
        "\n\n| size | s² | ρ | τ | Δ | factor | later-half coverage | fits inside | refits | failed | factor for 90 % held-out (diagnostic) | its mean width |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for (size, (p, by)) in SIZES.iter().zip(measured) {
        let s = &p.summary;
        let cal = s.calibration.as_ref().unwrap();
        let (need, width) = match needed_factor(by) {
            Some((f, _, w)) => (format!("{f}"), format!("{w:.5}")),
            None => ("> 4096".into(), "-".into()),
        };
        let _ = writeln!(
            out,
            "| {size}M | {:.3e} | {:.3} | {:.2} | {:.3e} | {} | {:.1}% | {} | {} | {} | {need} | {width} |",
            s.dispersion, s.lag1, s.inflation, s.base_threshold, s.factor,
            100.0 * cal.coverage, s.fits, s.trials, s.failed
        );
    }
    out.push_str(
        "\nEach parameter's reach inside the calibrated band (`open`: its trace reached the bound,\n\
         or e^12 times the fit, without leaving the region):\n\n\
         | size | parameter | estimate | low | high |\n|---|---|---:|---:|---:|\n",
    );
    for (size, (p, _)) in SIZES.iter().zip(measured) {
        for r in &p.summary.reach {
            let open = |v: bool| if v { " (open)" } else { "" };
            let _ = writeln!(
                out,
                "| {size}M | {} | {:.4} | {:.4}{} | {:.4}{} |",
                r.name,
                r.estimate,
                r.low,
                open(r.low_open),
                r.high,
                open(r.high_open)
            );
        }
    }
    out
}

/// The part of the results file from the profile section on (empty when there is none).
fn split_results(text: &str) -> (&str, &str) {
    match text.find(PROFILE_MARK) {
        Some(at) => (text[..at].trim_end(), &text[at..]),
        None => (text.trim_end(), ""),
    }
}

/// Writes the profile section of bench/results/schedule_intervals.md (3 sizes, minutes).
// An experiment, not a test: run by this crate's `examples/schedule_tables.rs`.
#[allow(dead_code)]
pub fn profile_table() {
    let settings = ProfileSettings::default();
    let measured: Vec<(CurveProfile, Vec<Vec<Coverage>>)> = SIZES
        .iter()
        .map(|s| {
            let start = std::time::Instant::now();
            let m = measure_profile(s, &settings);
            eprintln!("{s}M: {:.1} s", start.elapsed().as_secs_f64());
            m
        })
        .collect();
    let path = common::root().join(RESULTS);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let (before, _) = split_results(&text);
    let mut out = format!(
        "{before}{}{}",
        profile_section(&measured),
        profile_details(&measured)
    );
    let (_, fast) = measure_profile("25", &fast_settings());
    let (c, w) = held_out_totals(&fast[0]);
    let _ = write!(
        out,
        "\nThe fast test's check (`profile_coverage_matches_the_recorded_table`), 25M, traces to \
         Δ only, no calibration:\n\n| {PROFILE_FAST_ROW} | {:.1}% | {w:.5} |\n",
        100.0 * c
    );
    std::fs::write(path, out).unwrap();
}

/// The fast test's settings: traces to the threshold itself, no calibration.
fn fast_settings() -> ProfileSettings {
    ProfileSettings {
        max_factor: 1.0,
        calibrate: false,
        ..ProfileSettings::default()
    }
}

/// The 25M profile band at Δ, recomputed: the same held-out totals as the recorded row (the
/// profile draws nothing at random), and the band holds the training curve at the level.
#[test]
fn profile_coverage_matches_the_recorded_table() {
    let text = std::fs::read_to_string(common::root().join(RESULTS)).unwrap_or_else(|e| {
        panic!("{RESULTS}: {e}: run its experiment (examples/schedule_tables.rs)")
    });
    let row = common::recorded_row(&text, PROFILE_FAST_ROW)
        .expect("the fast test's row: run profile_table");
    let (profile, by_factor) = measure_profile("25", &fast_settings());
    let rows = &by_factor[0];
    assert_matches_recorded(rows, &row);
    let train = rows.iter().find(|r| r.run == TRAIN).unwrap();
    assert!(
        train.fraction() >= 0.9,
        "training coverage {}",
        train.fraction()
    );
    assert_eq!(profile.summary.failed, 0);
    assert!(
        profile.summary.fits > 10,
        "{} fits inside",
        profile.summary.fits
    );
}
