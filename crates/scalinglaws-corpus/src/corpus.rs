//! The corpus itself: every study set fitted at several cut-offs of its own scale, each
//! held-out run's error recorded with its signed distance from the fitted range, and what the
//! fit could see of itself (its residual scale, its scale groups, its condition number, the
//! scores of its own rolling-origin backtests). A cut-off is a *unit*: its held-out runs share
//! one fitted law, so calibration is judged per unit, not per run.
//!
//! Cut-offs, in decades of the law's own scale (6·N·D, or its one variable):
//! - `beyond k`: fit the scale groups at most k decades below the largest, predict the rest
//!   (k = 0.5, 1, 1.5, 2, 2.5, 3, wherever at least [`MIN_TRAIN_GROUPS`] groups remain);
//! - `first3`: fit the three smallest scale groups, predict the rest (the few-scales case);
//! - `below k`: fit the groups at least k decades above the smallest, predict the smaller runs
//!   (k = 0.5, 1, 2), so that the corpus sees errors on both sides of the data.

use rayon::prelude::*;
use scalinglaws::fit::{fit, FitData, FitSettings, ScaleRule};
use scalinglaws::law::{catalog, Law};
use scalinglaws::uncertainty::calibration::{
    backtest_scores, scale_groups, tau_quantile, CalibrationOptions, Scored, MIN_GROUPS, MIN_UNITS,
};
use scalinglaws::uncertainty::intervals::predict_fit_intervals_of;
use scalinglaws::uncertainty::FitRecord;
use serde::{Deserialize, Serialize};

use crate::studies::StudySet;

/// Fewest scale groups a cut-off's fit is trained on.
pub const MIN_TRAIN_GROUPS: usize = 3;
/// The `beyond` cut-offs, in decades below the largest scale.
pub const BEYOND: [f64; 6] = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0];
/// The `below` cut-offs, in decades above the smallest scale.
pub const BELOW: [f64; 3] = [0.5, 1.0, 2.0];
/// Level of the fits' own intervals recorded (their sd is level-free).
const LEVEL: f64 = 0.95;

/// How a unit's training rows were chosen.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "decades")]
pub enum Cut {
    Beyond(f64),
    First3,
    Below(f64),
}

impl Cut {
    pub fn label(&self) -> String {
        match self {
            Cut::Beyond(k) => format!("beyond {k}"),
            Cut::First3 => "first3".into(),
            Cut::Below(k) => format!("below {k}"),
        }
    }
}

/// One cut-off of one set: the fit and what it could see.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Unit {
    pub study: String,
    pub set: String,
    pub law: String,
    pub cut: Cut,
    pub train_rows: usize,
    pub train_groups: usize,
    /// Smallest and largest fitted scale.
    pub lo: f64,
    pub hi: f64,
    /// The fit's residual scale, condition number, convergence and parameters at a bound.
    pub sigma: Option<f64>,
    pub condition: Option<f64>,
    pub converged: bool,
    pub at_bound: Vec<String>,
    /// Why the unit has no held-out errors (a failed fit), if so.
    pub error: Option<String>,
    /// The scores of the training rows' own rolling origins (`Score::to_array`).
    pub scores: Vec<Vec<f64>>,
    /// Rolling origins that gave scores, and (origin, scale group) units they scored.
    pub origins_scored: usize,
    pub origin_units: usize,
    /// Today's (conformal, own-backtest) τ at 95 %, where it calibrates (≥ 5 groups, ≥ 2
    /// scored origins, ≥ 6 units); None: today's interval is the fit's own.
    pub tau_today: Option<f64>,
    pub held_out: Vec<HeldOut>,
}

/// One held-out run of a unit.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct HeldOut {
    /// Its scale and signed distance in decades (> 0 beyond the largest fitted run, < 0 below
    /// the smallest).
    pub scale: f64,
    pub distance: f64,
    /// Prediction − run in the fitted space (log loss), and the fit's own sd there.
    pub error: f64,
    pub sd_fit: f64,
    /// One in total per held-out scale group of the unit.
    pub weight: f64,
    pub group: usize,
}

/// Every unit of every set (in parallel over units; the result is in set and cut order).
pub fn build(sets: &[StudySet]) -> Vec<Unit> {
    let jobs: Vec<(&StudySet, Cut)> = sets
        .iter()
        .flat_map(|set| cuts().into_iter().map(move |cut| (set, cut)))
        .collect();
    jobs.par_iter()
        .filter_map(|(set, cut)| unit(set, *cut))
        .collect()
}

fn cuts() -> Vec<Cut> {
    let mut all: Vec<Cut> = BEYOND.iter().map(|&k| Cut::Beyond(k)).collect();
    all.push(Cut::First3);
    all.extend(BELOW.iter().map(|&k| Cut::Below(k)));
    all
}

/// The law of a set and each row's scale in the law's own units.
fn law_and_scale(set: &StudySet) -> Option<(Law, Vec<f64>)> {
    let law = catalog::lookup(&set.law).ok()?;
    let rule = ScaleRule::of_law(&law)?;
    let scale: Option<Vec<f64>> = rule.of_rows(&law, &set.data).into_iter().collect();
    Some((law, scale?))
}

/// The scale groups a cut trains on, or None when it leaves too few or nothing to predict.
fn train_groups(cut: Cut, centres: &[f64]) -> Option<Vec<bool>> {
    let count = centres.len();
    let (lo, hi) = (centres[0], centres[count - 1]);
    let train: Vec<bool> = match cut {
        Cut::Beyond(k) => centres.iter().map(|&c| c <= hi - k + 1e-9).collect(),
        Cut::First3 => (0..count).map(|g| g < 3).collect(),
        Cut::Below(k) => centres.iter().map(|&c| c >= lo + k - 1e-9).collect(),
    };
    let fitted = train.iter().filter(|t| **t).count();
    (fitted >= MIN_TRAIN_GROUPS && fitted < count).then_some(train)
}

/// Each group's centre in log10 scale (the mean of its rows' log10 scales).
fn group_centres(groups: &[usize], count: usize, scale: &[f64]) -> Vec<f64> {
    let mut sum = vec![0.0; count];
    let mut rows = vec![0usize; count];
    for (&g, &s) in groups.iter().zip(scale) {
        sum[g] += s.log10();
        rows[g] += 1;
    }
    sum.iter().zip(&rows).map(|(s, &n)| s / n as f64).collect()
}

fn unit(set: &StudySet, cut: Cut) -> Option<Unit> {
    let (law, scale) = law_and_scale(set)?;
    let (groups, count) = scale_groups(&scale);
    if count < 2 {
        return None;
    }
    let centres = group_centres(&groups, count, &scale);
    let in_train = train_groups(cut, &centres)?;
    let train: Vec<usize> = (0..scale.len()).filter(|&i| in_train[groups[i]]).collect();
    let test: Vec<usize> = (0..scale.len()).filter(|&i| !in_train[groups[i]]).collect();
    if train.len() <= law.params.len() {
        return None;
    }
    let train_scale: Vec<f64> = train.iter().map(|&i| scale[i]).collect();
    let mut unit = Unit {
        study: set.study.clone(),
        set: set.set.clone(),
        law: set.law.clone(),
        cut,
        train_rows: train.len(),
        train_groups: in_train.iter().filter(|t| **t).count(),
        lo: train_scale.iter().copied().fold(f64::INFINITY, f64::min),
        hi: train_scale
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max),
        sigma: None,
        condition: None,
        converged: false,
        at_bound: Vec::new(),
        error: None,
        scores: Vec::new(),
        origins_scored: 0,
        origin_units: 0,
        tau_today: None,
        held_out: Vec::new(),
    };
    let train_data = set.data.subset(&train);
    let settings = FitSettings::default();
    match fit(&law, &train_data, &settings) {
        Ok(result) => {
            let record = FitRecord::from(result);
            describe_fit(&mut unit, &record);
            unit.held_out = held_out(&law, &record, &set.data, &scale, &groups, &test, &unit);
            own_scores(&mut unit, &law, &train_data, &train_scale, &settings);
        }
        Err(error) => unit.error = Some(error.to_string()),
    }
    Some(unit)
}

fn describe_fit(unit: &mut Unit, record: &FitRecord) {
    unit.sigma = record.stats.residual_scale;
    unit.condition = record.condition_number;
    unit.converged = record.converged;
    unit.at_bound = record
        .params
        .iter()
        .filter(|(_, p)| p.at_bound)
        .map(|(name, _)| name.clone())
        .collect();
}

fn held_out(
    law: &Law,
    record: &FitRecord,
    data: &FitData,
    scale: &[f64],
    groups: &[usize],
    test: &[usize],
    unit: &Unit,
) -> Vec<HeldOut> {
    let points: Vec<Vec<f64>> = test
        .iter()
        .map(|&i| data.variables.iter().map(|c| c[i]).collect())
        .collect();
    let Ok((predictions, _)) = predict_fit_intervals_of(law, record, &points, LEVEL) else {
        return Vec::new();
    };
    let mut per_group = std::collections::BTreeMap::<usize, usize>::new();
    for &i in test {
        *per_group.entry(groups[i]).or_default() += 1;
    }
    let z = scalinglaws::stats::normal_quantile(0.5 + LEVEL / 2.0);
    test.iter()
        .zip(&predictions)
        .filter_map(|(&i, p)| {
            let [lo, hi] = p.pi?;
            let sd_fit = (hi.ln() - lo.ln()) / (2.0 * z);
            let error = p.value.ln() - data.target[i].ln();
            let distance = if scale[i] > unit.hi {
                (scale[i] / unit.hi).log10()
            } else if scale[i] < unit.lo {
                -(unit.lo / scale[i]).log10()
            } else {
                0.0
            };
            (error.is_finite() && sd_fit.is_finite()).then_some(HeldOut {
                scale: scale[i],
                distance,
                error,
                sd_fit,
                weight: 1.0 / per_group[&groups[i]] as f64,
                group: groups[i],
            })
        })
        .collect()
}

fn own_scores(unit: &mut Unit, law: &Law, data: &FitData, scale: &[f64], settings: &FitSettings) {
    let options = CalibrationOptions::default();
    let Ok(Scored::Done(scored)) = backtest_scores(law, data, "scale", scale, settings, &options)
    else {
        return;
    };
    let good: Vec<_> = scored
        .origins
        .iter()
        .filter(|o| o.error.is_none())
        .collect();
    unit.origins_scored = good.len();
    unit.origin_units = good.iter().map(|o| o.groups).sum();
    unit.scores = scored.scores.iter().map(|s| s.to_array()).collect();
    let today = scored.scale_groups >= MIN_GROUPS
        && unit.origins_scored >= 2
        && unit.origin_units >= MIN_UNITS
        && !scored.scores.is_empty();
    if today {
        unit.tau_today = Some(tau_quantile(&scored.scores, LEVEL));
    }
}
