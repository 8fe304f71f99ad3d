//! Recipe comparison: the runs of several tracks (recipes: architectures, objectives, data
//! mixes) fitted with one law, separately or jointly with named parameters shared across
//! tracks, then compared where a practitioner decides:
//! - per track, the parameters and the compute-optimal allocation (D*/N*) at each budget;
//! - between a track B and the baseline A, at each budget C:
//!   - the loss gap L*_B(C) − L*_A(C) of the compute-optimal losses;
//!   - the effective-compute multiplier C_A(L*_B(C)) / C, the compute A needs to reach B's loss
//!     at C, per unit of C (> 1: B is the more efficient recipe; a constant m when B's law is
//!     A's with N and D worth s·N and t·D, s·t = m), and its mirror C_B(L*_A(C)) / C, the
//!     compute B needs to match A ("B needs 0.62× the compute of A");
//!   - the probability that B beats A, the share of bootstrap draws with L*_B(C) < L*_A(C);
//! - the budget where the two frontiers cross, if they do between 1e15 and 1e30 FLOPs;
//! - paired-cell wins: cells (the same values of every law variable, compared on a log grid
//!   whose step is the cell tolerance) run in both tracks, counted by which track reached the
//!   lower mean loss.
//!
//! Joint fits (`shared`): the law is rewritten with one copy of every other parameter per
//! track, p = p__1·[track 1] + p__2·[track 2] + …, so that one fit with the ordinary engine
//! minimises the summed objective with the shared parameters common to all tracks (how the
//! looped-transformer exponent phi or the repetition constant R_D* of each objective is read
//! against a common Chinchilla backbone). The joint search starts from the separate fits.
//!
//! Intervals come from the bootstrap: rows are resampled within each track (every replicate
//! keeps each track's size); separate fits draw per track from their own streams (`Rng::stream(seed, track)`) and
//! are paired by replicate index; a joint fit's replicates carry every track at once. Every
//! quantity (parameters, differences, allocations, multipliers, gaps) is computed on every
//! draw and gets a percentile interval. Each track's compute-optimal loss also gets the
//! prediction interval of a new run there, from the track's fit (the joint fit, with shared
//! parameters), calibrated beyond the data by rolling-origin backtests of that fit when a scale
//! column is given (see [`crate::uncertainty::calibration`]).

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::analysis::allocation::{
    add_intervals, optimal, predict_allocations, split_held, Allocation, AllocationSettings,
};
use crate::data::label_ids;
use crate::error::{Error, Result, Setting};
use crate::fit::{fit, fit_with_starts, FitData, FitSettings};
use crate::law::{Grid, Law, ParamSpec};
use crate::rng::Rng;
use crate::stats::percentile_interval;
use crate::text;
use crate::uncertainty::bootstrap::{attach, bootstrap, BootstrapOptions, Resampling};
use crate::uncertainty::{calibrate, CalibrationOptions, FitRecord, IntervalNote};

mod compare;
mod fits;
mod joint;
#[cfg(test)]
mod tests;

use compare::{pair, track_fit, Frontiers};
use fits::{calibrated, fit_separately, in_track, Fitted, Predictor};
use joint::fit_jointly;

/// The runs of one track, with the law's variables in its order.
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    pub label: String,
    pub data: FitData,
}

/// How close (relative) two tracks' runs' law variables must be to share a cell unless told
/// otherwise.
pub const DEFAULT_CELL_TOLERANCE: f64 = 1e-3;

#[derive(Debug, Clone)]
pub struct TrackSettings {
    pub fit: FitSettings,
    /// Parameters common to all tracks (empty: every track fitted separately).
    pub shared: Vec<String>,
    /// The index of the track the others are compared with.
    pub baseline: usize,
    /// Budgets, FLOPs formula and held variables for allocations and multipliers (its
    /// `budgets` are the comparison's budgets; its draws are ignored).
    pub allocation: AllocationSettings,
    pub bootstrap: usize,
    pub seed: u64,
    pub level: f64,
    /// Runs whose law variables agree within this relative tolerance share a cell.
    pub cell_tolerance: f64,
    /// Calibrate the prediction intervals of the compute-optimal losses beyond the data (None:
    /// the fits' own intervals).
    pub calibration: Option<TrackCalibration>,
}

/// The scale that orders each track's runs for the rolling-origin calibration.
#[derive(Debug, Clone)]
pub struct TrackCalibration {
    /// The column that orders scale.
    pub by: String,
    /// Every track's scale, one value per run, tracks in their order.
    pub scales: Vec<Vec<f64>>,
}

/// A parameter of one track, with its interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TrackParam {
    /// The parameter's name.
    pub name: String,
    /// Its value in this track.
    pub value: f64,
    /// Whether the parameter is shared by every track (a joint fit).
    pub shared: bool,
    /// Standard error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<f64>,
    /// Percentile interval over the bootstrap draws.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci: Option<[f64; 2]>,
}

/// One track's fit and its compute-optimal allocations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TrackFit {
    /// The track's label.
    pub track: String,
    /// Rows of the track.
    pub rows: usize,
    /// The track's parameters, in the law's order.
    pub params: Vec<TrackParam>,
    /// The track's share of the objective.
    pub objective: f64,
    /// Whether the fit converged.
    pub converged: bool,
    /// The fit's warnings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Compute-optimal allocation at each budget (empty when the law has no N and D).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allocations: Vec<Allocation>,
    /// What the allocations' prediction intervals (`pi`, `pi_fit`) are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prediction_intervals: Option<IntervalNote>,
}

/// A value with its percentile interval over the draws (None without a bootstrap, or when
/// the value does not exist, e.g. a loss one track never reaches).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "TrackEstimate")]
pub struct Estimate {
    /// The value (None when it does not exist).
    pub value: Option<f64>,
    /// Percentile interval over the paired draws.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci: Option<[f64; 2]>,
}

/// Track B against the baseline A at one budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BudgetComparison {
    /// The compute budget C (FLOPs).
    pub budget: f64,
    /// L*_A(C), the baseline's compute-optimal loss.
    pub loss_baseline: f64,
    /// L*_B(C), the track's.
    pub loss_track: f64,
    /// L*_B(C) − L*_A(C).
    pub gap: Estimate,
    /// C_A(L*_B(C)) / C: the compute A needs to match B at C, per unit of C.
    pub multiplier: Estimate,
    /// C_B(L*_A(C)) / C: the compute B needs to match A at C, per unit of C.
    pub track_needs: Estimate,
    /// Share of paired draws with L*_B(C) < L*_A(C).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_track_better: Option<f64>,
}

/// Cells run in both tracks, by which reached the lower loss.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CellWins {
    /// Cells (N, D) run in both tracks.
    pub shared: usize,
    /// Cells where the track reached the lower loss.
    pub track_wins: usize,
    /// Cells where the baseline reached the lower loss.
    pub baseline_wins: usize,
    /// Cells where both tracks reached exactly the same loss.
    pub ties: usize,
}

/// One track against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairComparison {
    /// The baseline's label.
    pub baseline: String,
    /// The track's label.
    pub track: String,
    /// B − A for every parameter that is not shared.
    pub differences: Vec<(String, Estimate)>,
    /// The comparison at each budget.
    pub budgets: Vec<BudgetComparison>,
    /// The budget where the compute-optimal losses cross, between 1e15 and 1e30 FLOPs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crossover: Option<f64>,
    /// Paired cells, by which track won.
    pub cells: CellWins,
}

/// Every track's fit and each track against the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TrackComparison {
    /// The law's name (or formula).
    pub law: String,
    /// Parameters shared between the tracks.
    pub shared: Vec<String>,
    /// Every track's fit, the baseline first.
    pub tracks: Vec<TrackFit>,
    /// Each other track against the baseline.
    pub pairs: Vec<PairComparison>,
    /// Bootstrap replicates asked for.
    pub bootstrap: usize,
    /// Paired draws every quantity's interval comes from.
    pub draws: usize,
    /// The intervals' level (e.g. 0.95).
    pub level: f64,
    /// Notes on the comparison (what was left out, and why).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// The values of each track (a label per row), tracks in order of first appearance (the
/// order of [`split_by_labels`]).
pub fn split_values(values: &[f64], labels: &[String]) -> Vec<Vec<f64>> {
    let (ids, count) = label_ids(labels);
    let mut split = vec![Vec::new(); count];
    for (&id, &value) in ids.iter().zip(values) {
        split[id].push(value);
    }
    split
}

/// The rows of each track (a label per row), tracks in order of first appearance.
pub fn split_by_labels(data: &FitData, labels: &[String]) -> Vec<Track> {
    let (ids, count) = label_ids(labels);
    let mut rows = vec![Vec::new(); count];
    for (row, &id) in ids.iter().enumerate() {
        rows[id].push(row);
    }
    rows.into_iter()
        .map(|rows| {
            let pick = |column: &[f64]| rows.iter().map(|&r| column[r]).collect::<Vec<f64>>();
            Track {
                label: labels[rows[0]].clone(),
                data: FitData {
                    variables: data.variables.iter().map(|c| pick(c)).collect(),
                    target: pick(&data.target),
                    weights: data.weights.as_deref().map(pick),
                    trials: data.trials.as_deref().map(pick),
                    exposure: data.exposure.as_deref().map(pick),
                },
            }
        })
        .collect()
}

/// The index of the track called `name` (None: the first), or an error listing the tracks.
pub fn baseline_index(tracks: &[Track], name: Option<&str>, column: &str) -> Result<usize> {
    let Some(name) = name else { return Ok(0) };
    tracks.iter().position(|t| t.label == name).ok_or_else(|| {
        Error::settings(format!(
            "baseline '{name}': not a value of '{column}'; its values are {}",
            tracks
                .iter()
                .map(|t| t.label.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

/// Fits every track and compares each with the baseline.
pub fn compare_tracks(
    law: &Law,
    tracks: &[Track],
    settings: &TrackSettings,
) -> Result<TrackComparison> {
    validate(law, tracks, settings)?;
    let fitted = if settings.shared.is_empty() {
        fit_separately(law, tracks, settings)?
    } else {
        fit_jointly(law, tracks, settings)?
    };
    let mut notes = Vec::new();
    let allocates = law.variable_index("N").is_some() && law.variable_index("D").is_some();
    if !allocates && !settings.allocation.budgets.is_empty() {
        notes.push(format!(
            "the law has no variables N and D ({}): no allocations or compute multipliers",
            law.variables.join(", ")
        ));
    }
    let budgets = if allocates {
        settings.allocation.budgets.clone()
    } else {
        Vec::new()
    };
    let frontier = Frontiers {
        law,
        settings,
        budgets: &budgets,
    };
    let mut track_fits = Vec::with_capacity(tracks.len());
    for (t, track) in tracks.iter().enumerate() {
        track_fits.push(track_fit(law, track, &fitted, t, &frontier, settings)?);
    }
    let pairs = (0..tracks.len())
        .filter(|t| *t != settings.baseline)
        .map(|t| {
            pair(
                law,
                tracks,
                &fitted,
                settings.baseline,
                t,
                &frontier,
                settings,
            )
        })
        .collect::<Result<Vec<_>>>()?;
    if settings.bootstrap > 0 && fitted.draws.len() * 2 < settings.bootstrap {
        notes.push(format!(
            "only {} of {} bootstrap replicates converged in every track: the intervals are uncertain",
            fitted.draws.len(),
            settings.bootstrap
        ));
    }
    settings.fit.interrupt.check()?;
    Ok(TrackComparison {
        law: law.label().to_string(),
        shared: settings.shared.clone(),
        tracks: track_fits,
        pairs,
        bootstrap: settings.bootstrap,
        draws: fitted.draws.len(),
        level: settings.level,
        notes,
    })
}

/// Every held name must be one of the law's variables besides N and D, whether or not budgets
/// are given (a held value that nothing reads would be silently ignored).
fn check_held_names(law: &Law, held: &BTreeMap<String, Vec<f64>>) -> Result<()> {
    let others: Vec<&str> = law
        .variables
        .iter()
        .map(String::as_str)
        .filter(|v| *v != "N" && *v != "D")
        .collect();
    match held.keys().find(|name| !others.contains(&name.as_str())) {
        None => Ok(()),
        Some(name) => Err(Error::setting(
            Setting::Set,
            text![
                Setting::Set.key(name.as_str()),
                format!(
                    ": not one of the law's variables besides N and D ({}); remove it",
                    if others.is_empty() {
                        "it has none".to_string()
                    } else {
                        others.join(", ")
                    }
                )
            ],
        )),
    }
}

/// The comparison's settings that need no data: the level, and the cell tolerance in (0, 1).
pub fn check_settings(level: f64, cell_tolerance: f64) -> Result<()> {
    crate::uncertainty::check_level(level)?;
    if !(cell_tolerance > 0.0 && cell_tolerance < 1.0) {
        return Err(Error::setting(
            Setting::CellTolerance,
            text![
                Setting::CellTolerance.number(cell_tolerance),
                ": give a relative tolerance in (0, 1), e.g. 1e-3"
            ],
        ));
    }
    Ok(())
}

fn validate(law: &Law, tracks: &[Track], settings: &TrackSettings) -> Result<()> {
    if tracks.len() < 2 {
        return Err(Error::settings(format!(
            "{} track(s) in the data: a comparison needs at least two values in the track column",
            tracks.len()
        )));
    }
    if settings.baseline >= tracks.len() {
        return Err(Error::settings("the baseline is not one of the tracks"));
    }
    for name in &settings.shared {
        if law.param_index(name).is_none() {
            return Err(Error::setting(
                Setting::Shared,
                text![
                    Setting::Shared.text(name.as_str()),
                    format!(
                        ": not a parameter of {}; its parameters are {}",
                        law.label(),
                        law.param_names().join(", ")
                    )
                ],
            ));
        }
    }
    if settings.shared.len() == law.params.len() {
        return Err(Error::settings(
            "every parameter is shared: the tracks would be one law; leave at least one parameter per track",
        ));
    }
    check_settings(settings.level, settings.cell_tolerance)?;
    check_held_names(law, &settings.allocation.held)?;
    let per_track = law
        .params
        .iter()
        .filter(|p| !settings.shared.contains(&p.name) && !settings.fit.fixed.contains_key(&p.name))
        .count();
    if let Some(track) = tracks.iter().find(|t| t.data.target.len() < per_track) {
        return Err(Error::settings(text![
            format!(
                "track '{}' has {} run(s), fewer than the {per_track} parameters fitted per track; is the track column right? (or share parameters with ",
                track.label,
                track.data.target.len()
            ),
            Setting::Shared.named(),
            ")"
        ]));
    }
    Ok(())
}
