//! `scalinglaws compare`: fit every track (recipe) of the data with one law, separately or with
//! named parameters shared, and say which recipe wins at which budget and by how much compute,
//! with intervals from a bootstrap that resamples within tracks. Each track's compute-optimal
//! loss gets the prediction interval of a new run there, calibrated beyond the data by
//! rolling-origin backtests of the track's fit (by `--by`, as `fit` does) unless
//! `--no-calibration`, the fit's own beside it.

use anyhow::{Context, Result};
use scalinglaws::analysis::allocation::{AllocationSettings, Flops};
use scalinglaws::analysis::tracks::{
    baseline_index, compare_tracks, split_by_labels, split_values, Track, TrackCalibration,
    TrackComparison, TrackSettings,
};

use crate::cmd_fit::{build_law, check_enough_rows};
use crate::cmd_optimal::held_values;
use crate::config::{LawChoice, SettingsConfig};
use crate::input::{self, Recipe};
use crate::output::{self, Destination};
use scalinglaws::Law;
use scalinglaws_report::analyses::compare::CompareReport;

#[derive(Debug)]
pub struct Config {
    pub recipe: Recipe,
    pub law: LawChoice,
    pub settings: SettingsConfig,
    pub track: String,
    pub shared: Vec<String>,
    pub baseline: Option<String>,
    pub budgets: Vec<String>,
    pub flops: String,
    pub held: Vec<String>,
    pub bootstrap: usize,
    pub level: f64,
    pub cell_tolerance: f64,
    /// Calibrate the prediction intervals beyond the data, by `by` (None: the default scale).
    pub calibrate: bool,
    pub by: Option<String>,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let (comparison, _, _) = compare(config, false)?;
    let report = CompareReport {
        result: &comparison,
        track: &config.track,
    };
    output::emit(config.json.as_ref(), &report)
}

/// The comparison, with the tracks and the law: at the --budget values, or with `grid` at 25
/// budgets from the smallest run's compute to 100× the largest (for plots).
pub fn compare(config: &Config, grid: bool) -> Result<(TrackComparison, Vec<Track>, Law)> {
    let table = input::load(&config.recipe)?;
    let law = build_law(&config.law, &table)?;
    let fit_settings = config.settings.for_law(&config.law);
    check_enough_rows(&law, &fit_settings, &table)?;
    let data = table.fit_data(&law, &config.recipe, fit_settings.space)?;
    let labels = table.labels(&config.track, "--track")?;
    let tracks = split_by_labels(&data, &labels);
    let calibration = if config.calibrate {
        let (by, scale) = table.scale(&law, &data, config.by.as_deref(), "--by")?;
        Some(TrackCalibration {
            by,
            scales: split_values(&scale, &labels),
        })
    } else {
        None
    };
    let baseline =
        baseline_index(&tracks, config.baseline.as_deref(), &config.track).context("--baseline")?;
    let flops = Flops::parse(&config.flops).context("--flops")?;
    let budgets = if grid {
        // The plot's grid, with the --budget values the title reports.
        let mut budgets = budget_grid(&law, &tracks, &flops)?;
        budgets.extend(given_budgets(config)?);
        budgets.sort_by(f64::total_cmp);
        budgets.dedup();
        budgets
    } else {
        given_budgets(config)?
    };
    let allocation = AllocationSettings {
        flops,
        held: held_values(&config.held)?,
        ..AllocationSettings::at_budgets(budgets)
    };
    let settings = TrackSettings {
        seed: fit_settings.seed,
        fit: fit_settings,
        shared: config.shared.clone(),
        baseline,
        allocation,
        bootstrap: config.bootstrap,
        level: config.level,
        cell_tolerance: config.cell_tolerance,
        calibration,
    };
    let comparison = compare_tracks(&law, &tracks, &settings)?;
    Ok((comparison, tracks, law))
}

/// The --budget values, in order.
pub fn given_budgets(config: &Config) -> Result<Vec<f64>> {
    let mut budgets = Vec::new();
    for text in &config.budgets {
        budgets.extend(
            input::constant_list(text, text).with_context(|| format!("--budget '{text}'"))?,
        );
    }
    Ok(budgets)
}

/// 25 budgets from the smallest run's compute to 100× the largest.
fn budget_grid(law: &Law, tracks: &[Track], flops: &Flops) -> Result<Vec<f64>> {
    let (Some(n), Some(d)) = (law.variable_index("N"), law.variable_index("D")) else {
        return Err(crate::input_error(
            "the plot is loss against compute: the law needs variables N and D",
        ));
    };
    let computes: Vec<f64> = tracks
        .iter()
        .flat_map(|t| (0..t.data.target.len()).map(move |r| (t, r)))
        .map(|(t, r)| flops.at(t.data.variables[n][r], t.data.variables[d][r]))
        .filter(|c| *c > 0.0 && c.is_finite())
        .collect();
    let lo = computes.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = computes.iter().copied().fold(f64::NEG_INFINITY, f64::max) * 100.0;
    if !(lo.is_finite() && hi.is_finite()) {
        return Err(crate::input_error("no run has a positive compute"));
    }
    Ok((0..25)
        .map(|i| (lo.ln() + (hi.ln() - lo.ln()) * i as f64 / 24.0).exp())
        .collect())
}
