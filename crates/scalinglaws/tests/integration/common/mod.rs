//! Shared helpers of the integration tests: the bundled example datasets, the published data
//! copied into testdata/, and the skip log.
#![allow(dead_code)]

pub mod lr;
pub mod nist;
#[cfg(feature = "parquet")]
pub mod parquet_writer;
pub mod real;
pub mod skip;

use std::path::PathBuf;

use scalinglaws::data::Dataset;
use scalinglaws::fit::{FitData, FitSettings};

/// `testdata/<path>`: published data copied into the repository (see testdata/README.md).
pub fn testdata(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata")
        .join(path)
}

/// The repository's root (where README.md and bench/ live).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn example(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(path)
}

/// Epoch AI's protocol on Hoffmann et al.'s Fig. 4 data: drop the 5 highest losses (240 rows
/// left), D = C / (6 N).
pub fn chinchilla_epoch() -> FitData {
    let data = Dataset::read(&example("chinchilla/chinchilla_epoch.csv"), None).unwrap();
    let n = data.positive("Model Size", "test").unwrap();
    let c = data.positive("Training FLOP", "test").unwrap();
    let loss = data.positive("loss", "test").unwrap();
    let mut order: Vec<usize> = (0..loss.len()).collect();
    order.sort_by(|&a, &b| loss[b].total_cmp(&loss[a]));
    let dropped = &order[..5];
    let keep: Vec<usize> = (0..loss.len()).filter(|i| !dropped.contains(i)).collect();
    FitData {
        variables: vec![
            keep.iter().map(|&i| n[i]).collect(),
            keep.iter().map(|&i| c[i] / (6.0 * n[i])).collect(),
        ],
        target: keep.iter().map(|&i| loss[i]).collect(),
        weights: None,
        trials: None,
        exposure: None,
    }
}

/// Chinchilla's law at Epoch's published optimum.
pub fn epoch_prediction(n: f64, d: f64) -> f64 {
    1.81721 + 477.86 * n.powf(-0.347315) + 2142.56 * d.powf(-0.367153)
}

/// Epoch's grid: alpha, beta in 0..2 step 0.5; log E in -1..1 step 0.5; log A, log B in 0..25
/// step 5 (4,500 starts, every one polished from its grid point).
pub fn epoch_grid() -> FitSettings {
    let mut settings = FitSettings::default();
    let steps = |lo: f64, hi: f64, step: f64| -> Vec<f64> {
        let n = ((hi - lo) / step).round() as usize;
        (0..=n).map(|i| lo + step * i as f64).collect()
    };
    let exp = |v: Vec<f64>| v.into_iter().map(f64::exp).collect::<Vec<_>>();
    settings.grids.insert("alpha".into(), steps(0.0, 2.0, 0.5));
    settings.grids.insert("beta".into(), steps(0.0, 2.0, 0.5));
    settings
        .grids
        .insert("E".into(), exp(steps(-1.0, 1.0, 0.5)));
    settings
        .grids
        .insert("A".into(), exp(steps(0.0, 25.0, 5.0)));
    settings
        .grids
        .insert("B".into(), exp(steps(0.0, 25.0, 5.0)));
    settings
}

/// The 9 schedules of each model size of the multi-power law's data (Luo et al. 2025), in the
/// upstream order.
pub const MULTI_POWER_RUNS: [&str; 9] = [
    "cosine_24000",
    "constant_24000",
    "constant_72000",
    "cosine_72000",
    "wsd_20000_24000",
    "wsdld_20000_24000",
    "wsdcon_3",
    "wsdcon_9",
    "wsdcon_18",
];

/// One size's 9 runs of the multi-power data as `schedule fit --warmup 2160` reads them (the
/// logged lr interpolated between logged steps, the 2160-step warmup rebuilt).
pub fn multi_power_curves(size: &str) -> Vec<scalinglaws::analysis::schedule::Curve> {
    use scalinglaws::analysis::schedule::{curves_from_logs, RunLog};
    use scalinglaws::error::Location;
    let logs: Vec<RunLog> = MULTI_POWER_RUNS
        .iter()
        .map(|run| {
            let path = testdata(&format!("multipower_law/csv_{size}/{run}.csv"));
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let mut log = RunLog {
                run: run.to_string(),
                steps: Vec::new(),
                lrs: Vec::new(),
                loss: Vec::new(),
                locations: Vec::new(),
            };
            let rows = text.lines().skip(1).filter(|l| !l.trim().is_empty());
            for (i, line) in rows.enumerate() {
                let f: Vec<f64> = line.trim().split(',').map(|x| x.parse().unwrap()).collect();
                log.steps.push(f[0]);
                log.lrs.push(f[1]);
                log.loss.push(f[2]);
                log.locations.push(Location {
                    file: path.display().to_string(),
                    row: Some(i + 1),
                    line: None,
                    column: None,
                });
            }
            log
        })
        .collect();
    curves_from_logs(&logs, 2160).unwrap()
}

/// The numbers of the markdown table row of `hay` that starts with `| first |` (a trailing
/// `%` dropped), for fast tests that check a results file's row.
pub fn recorded_row(hay: &str, first: &str) -> Option<Vec<f64>> {
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
