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
//! keeps each track's size); separate fits draw per track from their own seeded streams and
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
use crate::error::{Error, Result};
use crate::fit::{fit, fit_with_starts, FitData, FitResult, FitSettings};
use crate::law::{Grid, Law, ParamSpec};
use crate::uncertainty::bootstrap::{attach, bootstrap, BootstrapOptions, Resampling};
use crate::uncertainty::dist::percentile_interval;
use crate::uncertainty::{calibrate, CalibrationOptions, IntervalNote};

/// The runs of one track, with the law's variables in its order.
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    pub label: String,
    pub data: FitData,
}

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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrackParam {
    pub name: String,
    pub value: f64,
    pub shared: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci: Option<[f64; 2]>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrackFit {
    pub track: String,
    pub rows: usize,
    pub params: Vec<TrackParam>,
    /// The track's share of the objective.
    pub objective: f64,
    pub converged: bool,
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub value: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci: Option<[f64; 2]>,
}

/// Track B against the baseline A at one budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BudgetComparison {
    pub budget: f64,
    pub loss_baseline: f64,
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellWins {
    pub shared: usize,
    pub track_wins: usize,
    pub baseline_wins: usize,
    pub ties: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairComparison {
    pub baseline: String,
    pub track: String,
    /// B − A for every parameter that is not shared.
    pub differences: Vec<(String, Estimate)>,
    pub budgets: Vec<BudgetComparison>,
    /// The budget where the compute-optimal losses cross, between 1e15 and 1e30 FLOPs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crossover: Option<f64>,
    pub cells: CellWins,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrackComparison {
    pub law: String,
    pub shared: Vec<String>,
    pub tracks: Vec<TrackFit>,
    pub pairs: Vec<PairComparison>,
    /// Replicates asked for, and paired draws every quantity's interval comes from.
    pub bootstrap: usize,
    pub draws: usize,
    pub level: f64,
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
            return Err(Error::settings(format!(
                "--shared {name}: not a parameter of {}; its parameters are {}",
                law.label(),
                law.param_names().join(", ")
            )));
        }
    }
    if settings.shared.len() == law.params.len() {
        return Err(Error::settings(
            "every parameter is shared: the tracks would be one law; leave at least one parameter per track",
        ));
    }
    if !(settings.level > 0.0 && settings.level < 1.0) {
        return Err(Error::settings(format!(
            "level {}: give a probability between 0 and 1, e.g. 0.95",
            settings.level
        )));
    }
    if !(settings.cell_tolerance > 0.0 && settings.cell_tolerance < 1.0) {
        return Err(Error::settings(format!(
            "cell tolerance {}: give a relative tolerance in (0, 1), e.g. 1e-3",
            settings.cell_tolerance
        )));
    }
    let per_track = law
        .params
        .iter()
        .filter(|p| !settings.shared.contains(&p.name) && !settings.fit.fixed.contains_key(&p.name))
        .count();
    if let Some(track) = tracks.iter().find(|t| t.data.target.len() < per_track) {
        return Err(Error::settings(format!(
            "track '{}' has {} run(s), fewer than the {per_track} parameters fitted per track; is the track column right? (or share parameters with --shared)",
            track.label,
            track.data.target.len()
        )));
    }
    Ok(())
}

/// Every track's fitted parameters (in the law's order), its share of the objective, and the
/// paired bootstrap draws: `draws[r][t]` is track t's parameters in replicate r.
struct Fitted {
    params: Vec<Vec<f64>>,
    stderr: Vec<Vec<Option<f64>>>,
    objective: Vec<f64>,
    converged: Vec<bool>,
    warnings: Vec<Vec<String>>,
    draws: Vec<Vec<Vec<f64>>>,
    predictor: Predictor,
}

/// The fits the tracks' prediction intervals come from.
enum Predictor {
    /// One fit per track.
    Separate(Vec<FitResult>),
    /// The joint fit of the joint law; track t's points carry the indicators of `tracks`
    /// tracks.
    Joint {
        result: Box<FitResult>,
        law: Box<Law>,
        tracks: usize,
    },
}

impl Predictor {
    /// Track t's fit, the law it fitted (None: the track's law) and the values its points
    /// carry after the law's variables.
    fn of(&self, t: usize) -> (&FitResult, Option<&Law>, Vec<f64>) {
        match self {
            Predictor::Separate(results) => (&results[t], None, Vec::new()),
            Predictor::Joint {
                result,
                law,
                tracks,
            } => (
                result,
                Some(law),
                (0..*tracks)
                    .map(|u| if u == t { 1.0 } else { 0.0 })
                    .collect(),
            ),
        }
    }
}

/// The calibration of `law` fitted to `data` by `scale`, refused (with a reason) when a new
/// point's scale cannot be computed from the law's variables.
fn calibrated(
    result: &mut FitResult,
    law: &Law,
    data: &FitData,
    by: &str,
    scale: &[f64],
    settings: &TrackSettings,
    fit_settings: &FitSettings,
) -> Result<()> {
    let options = CalibrationOptions {
        level: settings.level,
        ..CalibrationOptions::default()
    };
    let calibration = calibrate(law, data, by, scale, fit_settings, &options)?;
    result.calibration = Some(calibration.require_rule());
    Ok(())
}

fn fit_separately(law: &Law, tracks: &[Track], settings: &TrackSettings) -> Result<Fitted> {
    let mut results = Vec::with_capacity(tracks.len());
    let mut per_track_draws = Vec::with_capacity(tracks.len());
    for (t, track) in tracks.iter().enumerate() {
        let mut result =
            fit(law, &track.data, &settings.fit).map_err(|e| in_track(e, &track.label))?;
        if let Some(c) = &settings.calibration {
            let scale = c.scales.get(t).map_or(&[][..], Vec::as_slice);
            calibrated(
                &mut result,
                law,
                &track.data,
                &c.by,
                scale,
                settings,
                &settings.fit,
            )
            .map_err(|e| in_track(e, &track.label))?;
        }
        let draws = if settings.bootstrap > 0 {
            let options = BootstrapOptions {
                replicates: settings.bootstrap,
                level: settings.level,
                seed: settings.seed.wrapping_add(t as u64 * 0x9E37_79B9),
                resampling: Resampling::Rows,
            };
            let summary = bootstrap(law, &track.data, &settings.fit, &result, &options, &|_| {})?;
            let draws = summary.draws.clone();
            attach(&mut result, summary);
            draws
        } else {
            Vec::new()
        };
        per_track_draws.push(draws);
        results.push(result);
    }
    let paired = per_track_draws.iter().map(Vec::len).min().unwrap_or(0);
    let draws = (0..paired)
        .map(|r| per_track_draws.iter().map(|d| d[r].clone()).collect())
        .collect();
    Ok(Fitted {
        params: results.iter().map(FitResult::param_values).collect(),
        stderr: results
            .iter()
            .map(|r| r.params.iter().map(|(_, p)| p.stderr).collect())
            .collect(),
        objective: results.iter().map(|r| r.objective).collect(),
        converged: results.iter().map(|r| r.converged).collect(),
        warnings: results.iter().map(|r| r.warnings.clone()).collect(),
        draws,
        predictor: Predictor::Separate(results),
    })
}

/// Names the track in a fit's or a setting's error (data errors already name their row).
fn in_track(error: Error, label: &str) -> Error {
    match error {
        Error::Fit { message } => Error::fit(message.after(format!("track '{label}': "))),
        Error::Settings { key, message } => Error::Settings {
            key,
            message: message.after(format!("track '{label}': ")),
        },
        other => other,
    }
}

/// Where each track's parameters sit in the joint law's parameter vector.
struct JointLayout {
    /// `index[t][p]`: the joint index of parameter p of the law for track t.
    index: Vec<Vec<usize>>,
}

impl JointLayout {
    fn track_params(&self, joint: &[f64], t: usize) -> Vec<f64> {
        self.index[t].iter().map(|&i| joint[i]).collect()
    }
}

/// The law with one copy of every unshared parameter per track, selected by indicator
/// variables `track__1`, `track__2`, ….
fn joint_law(law: &Law, shared: &[String], tracks: usize) -> Result<(Law, JointLayout)> {
    let mut definitions = String::new();
    let mut params: Vec<ParamSpec> = Vec::new();
    let mut index = vec![vec![0; law.params.len()]; tracks];
    for (p, spec) in law.params.iter().enumerate() {
        if shared.contains(&spec.name) {
            for row in index.iter_mut() {
                row[p] = params.len();
            }
            params.push(spec.clone());
            continue;
        }
        let terms: Vec<String> = (1..=tracks)
            .map(|t| format!("{}__{t}*track__{t}", spec.name))
            .collect();
        definitions.push_str(&format!("{} = {}; ", spec.name, terms.join(" + ")));
        for (t, row) in index.iter_mut().enumerate() {
            row[p] = params.len();
            params.push(ParamSpec {
                name: format!("{}__{}", spec.name, t + 1),
                // One start value per copy: the joint search starts from the separate fits,
                // and the shared parameters keep their grid.
                grid: match &spec.grid {
                    Grid::Values(values) if !values.is_empty() => {
                        Grid::Values(vec![values[values.len() / 2]])
                    }
                    other => other.clone(),
                },
                ..spec.clone()
            });
        }
    }
    let mut variables: Vec<String> = law.variables.clone();
    variables.extend((1..=tracks).map(|t| format!("track__{t}")));
    let variable_refs: Vec<&str> = variables.iter().map(String::as_str).collect();
    let formula = format!("{definitions}{}", law.formula);
    let joint = Law::with_specs(
        &format!("{} (joint over tracks)", law.label()),
        &formula,
        law.citation.as_deref().unwrap_or(""),
        &variable_refs,
        params,
    )?;
    Ok((joint, JointLayout { index }))
}

/// All tracks' rows in one dataset with indicator columns, and each row's track.
fn joint_data(tracks: &[Track]) -> (FitData, Vec<usize>) {
    let variables = tracks[0].data.variables.len();
    let mut data = FitData {
        variables: vec![Vec::new(); variables + tracks.len()],
        target: Vec::new(),
        weights: None,
    };
    let mut weights = Vec::new();
    let mut ids = Vec::new();
    for (t, track) in tracks.iter().enumerate() {
        let rows = track.data.target.len();
        for (v, column) in track.data.variables.iter().enumerate() {
            data.variables[v].extend_from_slice(column);
        }
        for u in 0..tracks.len() {
            let indicator = if u == t { 1.0 } else { 0.0 };
            data.variables[variables + u].extend(std::iter::repeat(indicator).take(rows));
        }
        data.target.extend_from_slice(&track.data.target);
        match &track.data.weights {
            Some(w) => weights.extend_from_slice(w),
            None => weights.extend(std::iter::repeat(1.0).take(rows)),
        }
        ids.extend(std::iter::repeat(t).take(rows));
    }
    if tracks.iter().any(|t| t.data.weights.is_some()) {
        data.weights = Some(weights);
    }
    (data, ids)
}

fn fit_jointly(law: &Law, tracks: &[Track], settings: &TrackSettings) -> Result<Fitted> {
    // Separate fits only seed the joint search: a track too small to fit alone (the reason
    // to share parameters) starts from the others' mean instead.
    let separate: Vec<Option<Vec<f64>>> = tracks
        .iter()
        .map(|track| {
            fit(law, &track.data, &settings.fit)
                .ok()
                .map(|r| r.param_values())
        })
        .collect();
    let (joint, layout) = joint_law(law, &settings.shared, tracks.len())?;
    let joint_settings = per_track_settings(&settings.fit, &settings.shared, tracks.len());
    let (data, ids) = joint_data(tracks);
    let warm = joint_warm_starts(
        law,
        &layout,
        &separate,
        &settings.shared,
        joint.params.len(),
    );
    let words = JointWords::new(law, &settings.shared, tracks);
    let mut result =
        fit_with_starts(&joint, &data, &joint_settings, &warm).map_err(|e| words.error(e))?;
    if let Some(c) = &settings.calibration {
        let scale: Vec<f64> = c.scales.iter().flatten().copied().collect();
        calibrated(
            &mut result,
            &joint,
            &data,
            &c.by,
            &scale,
            settings,
            &joint_settings,
        )
        .map_err(|e| words.error(e))?;
    }
    let draws = if settings.bootstrap > 0 {
        let options = BootstrapOptions {
            replicates: settings.bootstrap,
            level: settings.level,
            seed: settings.seed,
            resampling: Resampling::Strata {
                column: "track".into(),
                ids: ids.clone(),
            },
        };
        let summary = bootstrap(&joint, &data, &joint_settings, &result, &options, &|_| {})
            .map_err(|e| words.error(e))?;
        let draws = summary
            .draws
            .iter()
            .map(|d| {
                (0..tracks.len())
                    .map(|t| layout.track_params(d, t))
                    .collect()
            })
            .collect();
        attach(&mut result, summary);
        draws
    } else {
        Vec::new()
    };
    let joint_values = result.param_values();
    let params: Vec<Vec<f64>> = (0..tracks.len())
        .map(|t| layout.track_params(&joint_values, t))
        .collect();
    let stderr = (0..tracks.len())
        .map(|t| {
            layout.index[t]
                .iter()
                .map(|&i| result.params[i].1.stderr)
                .collect()
        })
        .collect();
    let objective = tracks
        .iter()
        .zip(&params)
        .map(|(track, p)| track_objective(law, track, p, &settings.fit))
        .collect::<Result<Vec<f64>>>()?;
    Ok(Fitted {
        params,
        stderr,
        objective,
        converged: vec![result.converged; tracks.len()],
        warnings: (0..tracks.len())
            .map(|t| words.warnings(&result.warnings, t))
            .collect(),
        draws,
        predictor: Predictor::Joint {
            result: Box::new(result),
            law: Box::new(joint),
            tracks: tracks.len(),
        },
    })
}

/// The joint law's internal names in the user's words: the copy `P__t` of an unshared
/// parameter is "P (track 'name')" and the indicator `track__t` is "the indicator of track
/// 'name'", so that no message of a joint fit shows a name the user never wrote.
struct JointWords {
    names: BTreeMap<String, String>,
    /// `owner[name]`: the track an internal name belongs to.
    owner: BTreeMap<String, usize>,
    indicators: Vec<String>,
}

impl JointWords {
    fn new(law: &Law, shared: &[String], tracks: &[Track]) -> JointWords {
        let mut names = BTreeMap::new();
        let mut owner = BTreeMap::new();
        let mut indicators = Vec::new();
        for (t, track) in tracks.iter().enumerate() {
            let indicator = format!("track__{}", t + 1);
            names.insert(
                indicator.clone(),
                format!("the indicator of track '{}'", track.label),
            );
            owner.insert(indicator.clone(), t);
            indicators.push(indicator);
            for spec in law.params.iter().filter(|p| !shared.contains(&p.name)) {
                let copy = format!("{}__{}", spec.name, t + 1);
                names.insert(
                    copy.clone(),
                    format!("{} (track '{}')", spec.name, track.label),
                );
                owner.insert(copy, t);
            }
        }
        JointWords {
            names,
            owner,
            indicators,
        }
    }

    /// The identifiers (letters, digits, `_`) of a text, with their byte ranges.
    fn identifiers(text: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in text.char_indices() {
            let word = c.is_alphanumeric() || c == '_';
            match (word, start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    out.push((s, i));
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            out.push((s, text.len()));
        }
        out
    }

    fn text(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for (s, e) in Self::identifiers(text) {
            out.push_str(&text[last..s]);
            out.push_str(
                self.names
                    .get(&text[s..e])
                    .map_or(&text[s..e], String::as_str),
            );
            last = e;
        }
        out.push_str(&text[last..]);
        out
    }

    fn error(&self, error: Error) -> Error {
        match error {
            Error::Fit { message } => Error::fit(message.map_literals(|text| self.text(text))),
            Error::Settings { key, message } => Error::Settings {
                key,
                message: message.map_literals(|text| self.text(text)),
            },
            other => other,
        }
    }

    /// The joint fit's warnings that concern track t (those naming only other tracks' copies
    /// are theirs), in the user's words. The indicators' collinearity is left out: they sum
    /// to one on every row by construction, which says nothing about the data.
    fn warnings(&self, warnings: &[String], t: usize) -> Vec<String> {
        warnings
            .iter()
            .filter(|w| {
                let owners: Vec<usize> = Self::identifiers(w)
                    .into_iter()
                    .filter_map(|(s, e)| self.owner.get(&w[s..e]).copied())
                    .collect();
                let indicators = Self::identifiers(w)
                    .into_iter()
                    .filter(|(s, e)| self.indicators.iter().any(|i| *i == w[*s..*e]))
                    .count();
                indicators < 2 && (owners.is_empty() || owners.contains(&t))
            })
            .map(|w| self.text(w))
            .collect()
    }
}

/// Joint starts from the separate fits: every track at its own optimum, the shared
/// parameters at each track's value in turn and at their mean.
fn joint_warm_starts(
    law: &Law,
    layout: &JointLayout,
    separate: &[Option<Vec<f64>>],
    shared: &[String],
    size: usize,
) -> Vec<Vec<f64>> {
    let fitted: Vec<&Vec<f64>> = separate.iter().flatten().collect();
    if fitted.is_empty() {
        return Vec::new();
    }
    let mean: Vec<f64> = (0..law.params.len())
        .map(|p| fitted.iter().map(|s| s[p]).sum::<f64>() / fitted.len() as f64)
        .collect();
    let separate: Vec<&Vec<f64>> = separate
        .iter()
        .map(|s| s.as_ref().unwrap_or(&mean))
        .collect();
    let shared_from = |source: &dyn Fn(usize) -> f64| {
        let mut start = vec![0.0; size];
        for (t, own) in separate.iter().enumerate() {
            for (p, spec) in law.params.iter().enumerate() {
                start[layout.index[t][p]] = if shared.contains(&spec.name) {
                    source(p)
                } else {
                    own[p]
                };
            }
        }
        start
    };
    let mut starts = vec![shared_from(&|p| mean[p])];
    for own in fitted {
        starts.push(shared_from(&|p| own[p]));
    }
    starts
}

/// The fit settings of the joint law: a setting (fixed value, bounds, start values) of a
/// parameter that is not shared applies to each track's copy of it.
fn per_track_settings(settings: &FitSettings, shared: &[String], tracks: usize) -> FitSettings {
    fn spread<T: Clone>(
        map: &BTreeMap<String, T>,
        shared: &[String],
        tracks: usize,
    ) -> BTreeMap<String, T> {
        let mut out = BTreeMap::new();
        for (name, value) in map {
            if shared.contains(name) {
                out.insert(name.clone(), value.clone());
            } else {
                for t in 1..=tracks {
                    out.insert(format!("{name}__{t}"), value.clone());
                }
            }
        }
        out
    }
    FitSettings {
        fixed: spread(&settings.fixed, shared, tracks),
        bounds: spread(&settings.bounds, shared, tracks),
        grids: spread(&settings.grids, shared, tracks),
        ..settings.clone()
    }
}

/// The objective of one track's rows at its parameters.
fn track_objective(
    law: &Law,
    track: &Track,
    params: &[f64],
    settings: &FitSettings,
) -> Result<f64> {
    let problem = crate::fit::problem_for(law, &track.data, settings)?;
    let mut scratch = problem.tape().scratch();
    Ok(problem.objective_natural(params, &mut scratch))
}

/// Budgets, the law and the allocation settings: compute-optimal losses and the compute to
/// reach a loss, for any parameter vector.
struct Frontiers<'a> {
    law: &'a Law,
    settings: &'a TrackSettings,
    budgets: &'a [f64],
}

impl Frontiers<'_> {
    /// The allocations of `params` at `budgets` or for `target_losses` (one of the two).
    fn solve(
        &self,
        params: &[f64],
        budgets: Vec<f64>,
        target_losses: Vec<f64>,
    ) -> Result<Vec<Allocation>> {
        let settings = AllocationSettings {
            budgets,
            target_losses,
            draws: Vec::new(),
            ..self.settings.allocation.clone()
        };
        optimal(self.law, params, &settings).map(|f| f.allocations)
    }

    fn allocations(&self, params: &[f64]) -> Result<Vec<Allocation>> {
        if self.budgets.is_empty() {
            return Ok(Vec::new());
        }
        self.solve(params, self.budgets.to_vec(), Vec::new())
    }

    fn loss_at(&self, params: &[f64], budget: f64) -> Option<f64> {
        Some(self.solve(params, vec![budget], Vec::new()).ok()?[0].loss)
    }

    /// The least compute at which `params` reaches `loss` (None: never).
    fn compute_for(&self, params: &[f64], loss: f64) -> Option<f64> {
        Some(self.solve(params, Vec::new(), vec![loss]).ok()?[0].budget)
    }

    /// Gap, multiplier and its mirror at every budget, for one pair of parameter vectors.
    fn compare(&self, a: &[f64], b: &[f64]) -> Vec<PairAt> {
        self.budgets
            .iter()
            .map(|&c| {
                let (la, lb) = (self.loss_at(a, c), self.loss_at(b, c));
                PairAt {
                    loss_a: la,
                    loss_b: lb,
                    multiplier: lb.and_then(|l| self.compute_for(a, l)).map(|x| x / c),
                    track_needs: la.and_then(|l| self.compute_for(b, l)).map(|x| x / c),
                }
            })
            .collect()
    }

    /// The first budget in [1e15, 1e30] where L*_B − L*_A changes sign.
    fn crossover(&self, a: &[f64], b: &[f64]) -> Option<f64> {
        let gap = |log_c: f64| {
            let c = log_c.exp();
            Some(self.loss_at(b, c)? - self.loss_at(a, c)?)
        };
        let (lo, hi) = (
            15.0 * std::f64::consts::LN_10,
            30.0 * std::f64::consts::LN_10,
        );
        let steps = 60;
        let mut previous: Option<(f64, f64)> = None;
        for i in 0..=steps {
            let x = lo + (hi - lo) * i as f64 / steps as f64;
            let Some(g) = gap(x) else { continue };
            if let Some((px, pg)) = previous {
                if pg.signum() != g.signum() && pg != 0.0 {
                    let (mut l, mut h) = (px, x);
                    for _ in 0..60 {
                        let mid = 0.5 * (l + h);
                        match gap(mid) {
                            Some(m) if m.signum() == pg.signum() => l = mid,
                            _ => h = mid,
                        }
                    }
                    return Some((0.5 * (l + h)).exp());
                }
            }
            previous = Some((x, g));
        }
        None
    }
}

/// One pair at one budget, for one parameter draw.
#[derive(Clone, Copy)]
struct PairAt {
    loss_a: Option<f64>,
    loss_b: Option<f64>,
    multiplier: Option<f64>,
    track_needs: Option<f64>,
}

fn track_fit(
    law: &Law,
    track: &Track,
    fitted: &Fitted,
    t: usize,
    frontier: &Frontiers,
    settings: &TrackSettings,
) -> Result<TrackFit> {
    let params = &fitted.params[t];
    let level = settings.level;
    let draws: Vec<&Vec<f64>> = fitted.draws.iter().map(|d| &d[t]).collect();
    let track_params = law
        .params
        .iter()
        .enumerate()
        .map(|(p, spec)| TrackParam {
            name: spec.name.clone(),
            value: params[p],
            shared: settings.shared.contains(&spec.name),
            stderr: fitted.stderr[t][p],
            ci: (!draws.is_empty())
                .then(|| percentile_interval(draws.iter().map(|d| d[p]).collect(), level)),
        })
        .collect();
    let mut allocations = frontier
        .allocations(params)
        .map_err(|e| in_track(e, &track.label))?;
    let drawn: Vec<Vec<Allocation>> = draws
        .par_iter()
        .filter_map(|d| frontier.allocations(d).ok())
        .collect();
    if !drawn.is_empty() {
        add_intervals(&mut allocations, None, &drawn, level, "budget");
    }
    let prediction_intervals = if allocations.is_empty() {
        None
    } else {
        let (result, fitted_law, extra) = fitted.predictor.of(t);
        let (held, _) = split_held(&settings.allocation.held);
        let fitted_law = fitted_law.unwrap_or(law);
        let source = predict_allocations(
            result,
            fitted_law,
            law,
            &held,
            &mut allocations,
            &extra,
            level,
        )
        .map_err(|e| in_track(e, &track.label))?;
        Some(IntervalNote::of(result, source, level))
    };
    Ok(TrackFit {
        track: track.label.clone(),
        rows: track.data.target.len(),
        params: track_params,
        objective: fitted.objective[t],
        converged: fitted.converged[t],
        warnings: fitted.warnings[t].clone(),
        allocations,
        prediction_intervals,
    })
}

fn estimate(value: Option<f64>, draws: &[Option<f64>], level: f64, with_ci: bool) -> Estimate {
    let finite: Vec<f64> = draws
        .iter()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    Estimate {
        value,
        // An interval only when (nearly) every draw has the value.
        ci: (with_ci && !finite.is_empty() && finite.len() * 20 >= draws.len() * 19)
            .then(|| percentile_interval(finite, level)),
    }
}

fn pair(
    law: &Law,
    tracks: &[Track],
    fitted: &Fitted,
    a: usize,
    b: usize,
    frontier: &Frontiers,
    settings: &TrackSettings,
) -> Result<PairComparison> {
    let level = settings.level;
    let with_ci = !fitted.draws.is_empty();
    let differences = law
        .params
        .iter()
        .enumerate()
        .filter(|(_, spec)| !settings.shared.contains(&spec.name))
        .map(|(p, spec)| {
            let value = fitted.params[b][p] - fitted.params[a][p];
            let draws: Vec<Option<f64>> = fitted
                .draws
                .iter()
                .map(|d| Some(d[b][p] - d[a][p]))
                .collect();
            (
                spec.name.clone(),
                estimate(Some(value), &draws, level, with_ci),
            )
        })
        .collect();
    let point = frontier.compare(&fitted.params[a], &fitted.params[b]);
    let drawn: Vec<Vec<PairAt>> = fitted
        .draws
        .par_iter()
        .map(|d| frontier.compare(&d[a], &d[b]))
        .collect();
    let budgets = frontier
        .budgets
        .iter()
        .enumerate()
        .map(|(i, &budget)| {
            let at = point[i];
            let column = |f: fn(&PairAt) -> Option<f64>| -> Vec<Option<f64>> {
                drawn.iter().map(|d| f(&d[i])).collect()
            };
            let gap = |p: &PairAt| Some(p.loss_b? - p.loss_a?);
            let gaps = column(gap);
            let better = gaps.iter().flatten().filter(|g| **g < 0.0).count();
            let compared = gaps.iter().flatten().count();
            Ok(BudgetComparison {
                budget,
                loss_baseline: at.loss_a.ok_or_else(|| no_optimum(tracks, a, budget))?,
                loss_track: at.loss_b.ok_or_else(|| no_optimum(tracks, b, budget))?,
                gap: estimate(gap(&at), &gaps, level, with_ci),
                multiplier: estimate(at.multiplier, &column(|p| p.multiplier), level, with_ci),
                track_needs: estimate(at.track_needs, &column(|p| p.track_needs), level, with_ci),
                p_track_better: (compared > 0).then(|| better as f64 / compared as f64),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let crossover = if frontier.budgets.is_empty() {
        None
    } else {
        frontier.crossover(&fitted.params[a], &fitted.params[b])
    };
    Ok(PairComparison {
        baseline: tracks[a].label.clone(),
        track: tracks[b].label.clone(),
        differences,
        budgets,
        crossover,
        cells: cell_wins(&tracks[a].data, &tracks[b].data, settings.cell_tolerance),
    })
}

fn no_optimum(tracks: &[Track], t: usize, budget: f64) -> Error {
    Error::fit(format!(
        "track '{}' has no compute-optimal allocation at {budget:e} FLOPs",
        tracks[t].label
    ))
}

/// Cells (rows with the same law variables, within the tolerance) of both tracks, and which
/// track's mean loss is lower in each.
fn cell_wins(a: &FitData, b: &FitData, tolerance: f64) -> CellWins {
    let (cells_a, cells_b) = (cells(a, tolerance), cells(b, tolerance));
    let mut wins = CellWins {
        shared: 0,
        track_wins: 0,
        baseline_wins: 0,
        ties: 0,
    };
    for (key, loss_a) in &cells_a {
        let Some(loss_b) = cells_b.get(key) else {
            continue;
        };
        wins.shared += 1;
        match loss_b.total_cmp(loss_a) {
            std::cmp::Ordering::Less => wins.track_wins += 1,
            std::cmp::Ordering::Greater => wins.baseline_wins += 1,
            std::cmp::Ordering::Equal => wins.ties += 1,
        }
    }
    wins
}

/// The mean target of each cell, keyed by every variable rounded on a log grid of the
/// tolerance's width.
fn cells(data: &FitData, tolerance: f64) -> BTreeMap<Vec<i64>, f64> {
    let step = tolerance.max(1e-12);
    let mut sums: BTreeMap<Vec<i64>, (f64, usize)> = BTreeMap::new();
    for row in 0..data.target.len() {
        let key = data
            .variables
            .iter()
            .map(|column| {
                let x = column[row];
                let scaled = if x > 0.0 { x.ln() } else { x };
                (scaled / step).round() as i64
            })
            .collect();
        let entry = sums.entry(key).or_insert((0.0, 0));
        entry.0 += data.target[row];
        entry.1 += 1;
    }
    sums.into_iter()
        .map(|(k, (sum, count))| (k, sum / count as f64))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::law::catalog;

    fn chinchilla_track(label: &str, params: [f64; 5], noise: f64, seed: u64) -> Track {
        let mut rng = crate::rng::Rng::new(seed);
        let law = catalog::lookup("chinchilla").unwrap();
        let mut data = FitData {
            variables: vec![Vec::new(), Vec::new()],
            target: Vec::new(),
            weights: None,
        };
        for i in 0..8 {
            for j in 0..5 {
                let n = 5e7 * 10f64.powf(i as f64 * 2.5 / 7.0);
                let d = 20.0 * n * 10f64.powf((j as f64 - 2.0) * 0.4);
                let loss = law.eval(&params, &[n, d]) * (noise * rng.normal()).exp();
                data.variables[0].push(n);
                data.variables[1].push(d);
                data.target.push(loss);
            }
        }
        Track {
            label: label.into(),
            data,
        }
    }

    fn settings(shared: &[&str], bootstrap: usize) -> TrackSettings {
        TrackSettings {
            fit: FitSettings::default(),
            shared: shared.iter().map(|s| s.to_string()).collect(),
            baseline: 0,
            allocation: AllocationSettings::at_budgets(vec![1e20, 1e22]),
            bootstrap,
            seed: 1,
            level: 0.95,
            cell_tolerance: 1e-3,
            calibration: None,
        }
    }

    /// B is A with N and D each worth √2 times as much: B is worth twice A's compute at every
    /// budget, and wins every shared cell.
    #[test]
    fn a_known_compute_multiplier_is_recovered_without_noise() {
        let a = [1.69, 406.4, 0.34, 410.7, 0.28];
        let s = 2f64.sqrt();
        let b = [a[0], a[1] * s.powf(-a[2]), a[2], a[3] * s.powf(-a[4]), a[4]];
        let tracks = [
            chinchilla_track("A", a, 0.0, 1),
            chinchilla_track("B", b, 0.0, 1),
        ];
        let result = compare_tracks(
            &catalog::lookup("chinchilla").unwrap(),
            &tracks,
            &settings(&[], 0),
        )
        .unwrap();
        let pair = &result.pairs[0];
        for at in &pair.budgets {
            let m = at.multiplier.value.unwrap();
            assert!((m - 2.0).abs() < 1e-3, "multiplier {m} at {:e}", at.budget);
            let mirror = at.track_needs.value.unwrap();
            assert!((mirror - 0.5).abs() < 1e-3, "track needs {mirror}");
            assert!(at.gap.value.unwrap() < 0.0);
        }
        assert_eq!(pair.cells.shared, 40);
        assert_eq!(pair.cells.track_wins, 40);
        assert!(pair.crossover.is_none());
    }

    /// Sharing every parameter but E: the joint fit recovers both tracks' offsets and the
    /// common exponents, and the difference of E gets an interval.
    #[test]
    fn a_joint_fit_shares_the_named_parameters() {
        let a = [1.69, 406.4, 0.34, 410.7, 0.28];
        let b = [1.79, 406.4, 0.34, 410.7, 0.28];
        let tracks = [
            chinchilla_track("A", a, 0.002, 2),
            chinchilla_track("B", b, 0.002, 3),
        ];
        let law = catalog::lookup("chinchilla").unwrap();
        let result =
            compare_tracks(&law, &tracks, &settings(&["A", "alpha", "B", "beta"], 40)).unwrap();
        let e_a = result.tracks[0].params[0].value;
        let e_b = result.tracks[1].params[0].value;
        assert!(
            (e_a - 1.69).abs() < 0.05 && (e_b - 1.79).abs() < 0.05,
            "{e_a} {e_b}"
        );
        let alpha_a = &result.tracks[0].params[2];
        let alpha_b = &result.tracks[1].params[2];
        assert!(alpha_a.shared && alpha_a.value == alpha_b.value);
        let (name, difference) = &result.pairs[0].differences[0];
        assert_eq!(name, "E");
        let [lo, hi] = difference.ci.unwrap();
        assert!(lo < 0.1 && 0.1 < hi, "[{lo}, {hi}]");
        assert_eq!(result.pairs[0].differences.len(), 1);
    }

    #[test]
    fn bad_comparisons_are_refused() {
        let law = catalog::lookup("chinchilla").unwrap();
        let a = [1.69, 406.4, 0.34, 410.7, 0.28];
        let one = [chinchilla_track("A", a, 0.0, 1)];
        assert!(compare_tracks(&law, &one, &settings(&[], 0)).is_err());
        let two = [
            chinchilla_track("A", a, 0.0, 1),
            chinchilla_track("B", a, 0.0, 2),
        ];
        let error = compare_tracks(&law, &two, &settings(&["gamma"], 0)).unwrap_err();
        assert!(error.to_string().contains("gamma"), "{error}");
        let all = ["E", "A", "alpha", "B", "beta"];
        assert!(compare_tracks(&law, &two, &settings(&all, 0)).is_err());
    }
}
