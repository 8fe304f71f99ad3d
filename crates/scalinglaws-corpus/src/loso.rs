//! From the corpus to the prior, and the check that it holds where it was not fitted: each
//! study left out in turn, the prior refitted on the others, the study's cut-offs predicted
//! with the interval a user would get (the prior updated by the cut-off's own rolling-origin
//! scores), and the held-out runs scored. Coverage is counted per unit (a cut-off: its
//! held-out scale groups share one fitted law), each held-out scale group counting once within
//! its unit; a study's coverage is the mean over its units, and the pooled coverage the mean
//! over studies (each study once) beside the mean over all units.

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use scalinglaws::uncertainty::prior::{
    fit_evidence_weight, fit_model, LevelCalibration, Observed, OwnAndHeldOut, PriorModel,
    SetEvidence,
};
use serde::Serialize;

use crate::corpus::{Cut, Unit};

/// The cut-offs of the leave-one-study-out check (decades below the study's largest scale).
pub const CHECK_CUTS: [Cut; 3] = [Cut::Beyond(1.0), Cut::Beyond(2.0), Cut::Beyond(3.0)];
/// Level of the intervals checked.
pub const LEVEL: f64 = 0.95;
/// Bands of distance beyond the data the table reports, in decades.
pub const BANDS: [(f64, f64); 4] = [(0.0, 0.5), (0.5, 1.0), (1.0, 2.0), (2.0, 3.5)];

/// Whether a unit's errors feed the prior (the `beyond` and `below` cut-offs; `first3` is a
/// check of the few-scales case only).
fn feeds_prior(unit: &Unit) -> bool {
    matches!(unit.cut, Cut::Beyond(_) | Cut::Below(_)) && unit.error.is_none()
}

/// The prior's evidence: one entry per set, each study weighing one in total.
pub fn evidence(units: &[Unit], leave_out: Option<&str>) -> Vec<SetEvidence> {
    let mut sets: BTreeMap<(&str, &str), Vec<Observed>> = BTreeMap::new();
    let mut per_study: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for unit in units.iter().filter(|u| feeds_prior(u)) {
        if Some(unit.study.as_str()) == leave_out {
            continue;
        }
        per_study
            .entry(&unit.study)
            .or_default()
            .insert(&unit.set);
        let observed = sets.entry((&unit.study, &unit.set)).or_default();
        observed.extend(unit.held_out.iter().filter(|h| h.distance != 0.0).map(|h| Observed {
            error: h.error,
            sd: h.sd_fit,
            distance: h.distance,
            weight: h.weight,
        }));
    }
    sets.into_iter()
        .map(|((study, _), observed)| SetEvidence {
            weight: 1.0 / per_study[study].len() as f64,
            observed,
        })
        .collect()
}

/// A unit's own rolling-origin scores as observations.
pub fn own_scores(unit: &Unit) -> Vec<Observed> {
    unit.scores
        .iter()
        .map(|s| Observed {
            error: s[0],
            sd: s[1],
            distance: s[2],
            weight: s[3],
        })
        .collect()
}

/// One held-out run scored by the new interval and by today's.
#[derive(Debug, Clone, Serialize)]
pub struct Scored {
    pub study: String,
    pub set: String,
    pub cut: String,
    pub distance: f64,
    pub weight: f64,
    pub error: f64,
    pub inside: bool,
    pub width: f64,
    /// Today's interval: the fit's own widened by the conformal τ·√d when the unit calibrates.
    pub inside_today: bool,
    pub width_today: f64,
    pub own_weight: f64,
}

/// Every held-out run of `study`'s units at `cuts`, scored with `model` updated by each unit's
/// own scores at `evidence_weight`.
pub fn score_study(units: &[Unit], study: &str, cuts: &[Cut], fitted: &Fitted) -> Vec<Scored> {
    let model = &fitted.model;
    let level = fitted.levels.at(LEVEL);
    let z = scalinglaws::stats::normal_quantile(0.5 + LEVEL / 2.0);
    let mut scored = Vec::new();
    for unit in units.iter().filter(|u| u.study == study && u.error.is_none() && cuts.contains(&u.cut)) {
        let posterior = model.posterior(&own_scores(unit), fitted.evidence_weight);
        for h in &unit.held_out {
            let [lo, hi] = posterior.error_interval(model, h.sd_fit, h.distance, level);
            let tau = unit.tau_today.unwrap_or(0.0);
            let half_today = z * h.sd_fit.hypot(tau * h.distance.max(0.0).sqrt());
            scored.push(Scored {
                study: unit.study.clone(),
                set: unit.set.clone(),
                cut: unit.cut.label(),
                distance: h.distance,
                weight: h.weight,
                error: h.error,
                inside: lo <= h.error && h.error <= hi,
                width: hi - lo,
                inside_today: h.error.abs() <= half_today,
                width_today: 2.0 * half_today,
                own_weight: posterior.own_weight,
            });
        }
    }
    scored
}

/// Every study left out in turn: its runs scored with the prior fitted to the others (the
/// model and, unless `evidence_weight` fixes it, the weight of own backtests).
pub fn leave_one_study_out(units: &[Unit], cuts: &[Cut], evidence_weight: Option<f64>) -> Vec<Scored> {
    let studies: BTreeSet<&str> = units.iter().map(|u| u.study.as_str()).collect();
    let per_study: Vec<Vec<Scored>> = studies
        .par_iter()
        .map(|study| {
            let has_cut = units.iter().any(|u| u.study == *study && cuts.contains(&u.cut) && !u.held_out.is_empty());
            if !has_cut {
                return Vec::new();
            }
            match fit_prior(units, Some(study), evidence_weight) {
                Some(fitted) => score_study(units, study, cuts, &fitted),
                None => Vec::new(),
            }
        })
        .collect();
    per_study.into_iter().flatten().collect()
}

/// Coverage, widths and the oracle width of a group of scored runs.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub units: usize,
    pub runs: usize,
    /// Mean over units of each unit's weighted coverage (new interval, today's).
    pub coverage: f64,
    pub coverage_today: f64,
    /// Mean widths in the fitted space (log loss), and the oracle width: twice the 95th
    /// percentile of the absolute errors (the narrowest symmetric interval holding 95 %).
    pub width: f64,
    pub width_today: f64,
    pub width_oracle: f64,
}

/// The summary of `runs` (empty: None).
pub fn summarize(runs: &[&Scored]) -> Option<Summary> {
    if runs.is_empty() {
        return None;
    }
    let mut units: BTreeMap<(&str, &str, &str), [f64; 3]> = BTreeMap::new();
    for r in runs {
        let entry = units.entry((&r.study, &r.set, &r.cut)).or_default();
        entry[0] += r.weight;
        entry[1] += r.weight * f64::from(u8::from(r.inside));
        entry[2] += r.weight * f64::from(u8::from(r.inside_today));
    }
    let n = units.len() as f64;
    let mut errors: Vec<f64> = runs.iter().map(|r| r.error.abs()).collect();
    errors.sort_by(f64::total_cmp);
    let rank = ((0.95 * errors.len() as f64).ceil() as usize).clamp(1, errors.len()) - 1;
    let mean = |f: &dyn Fn(&Scored) -> f64| runs.iter().map(|r| f(r)).sum::<f64>() / runs.len() as f64;
    Some(Summary {
        units: units.len(),
        runs: runs.len(),
        coverage: units.values().map(|u| u[1] / u[0]).sum::<f64>() / n,
        coverage_today: units.values().map(|u| u[2] / u[0]).sum::<f64>() / n,
        width: mean(&|r| r.width),
        width_today: mean(&|r| r.width_today),
        width_oracle: 2.0 * errors[rank],
    })
}

/// The evidence for the weight of own backtests: every `beyond` unit with own scores and
/// held-out runs beyond, each study counting once in total.
pub fn own_and_held_out(units: &[Unit], leave_out: Option<&str>) -> Vec<OwnAndHeldOut> {
    let usable: Vec<&Unit> = units
        .iter()
        .filter(|u| matches!(u.cut, Cut::Beyond(_)) && u.error.is_none())
        .filter(|u| Some(u.study.as_str()) != leave_out && !u.scores.is_empty())
        .collect();
    let mut per_study: BTreeMap<&str, usize> = BTreeMap::new();
    for u in &usable {
        *per_study.entry(&u.study).or_default() += 1;
    }
    usable
        .iter()
        .map(|u| OwnAndHeldOut {
            own: own_scores(u),
            held_out: u
                .held_out
                .iter()
                .filter(|h| h.distance > 0.0)
                .map(|h| Observed {
                    error: h.error,
                    sd: h.sd_fit,
                    distance: h.distance,
                    weight: h.weight,
                })
                .collect(),
            weight: 1.0 / per_study[u.study.as_str()] as f64,
        })
        .collect()
}

/// The fitted parts of a prior.
#[derive(Debug, Clone)]
pub struct Fitted {
    pub model: PriorModel,
    pub evidence_weight: f64,
    pub levels: LevelCalibration,
}

/// The prior fitted to `units` (less `leave_out`): the model, then the weight of own
/// backtests that best predicts the held-out runs under it (unless `evidence_weight` fixes
/// it), then the calibration of its levels on the same units.
pub fn fit_prior(units: &[Unit], leave_out: Option<&str>, evidence_weight: Option<f64>) -> Option<Fitted> {
    let model = fit_model(&evidence(units, leave_out)).ok()?;
    let evidence_weight = evidence_weight
        .unwrap_or_else(|| fit_evidence_weight(&model, &own_and_held_out(units, leave_out)));
    let levels = LevelCalibration::fit(&central_levels(units, leave_out, &model, evidence_weight));
    Some(Fitted {
        model,
        evidence_weight,
        levels,
    })
}

/// Every prior unit's held-out runs' central levels under the posterior from the unit's own
/// scores, weighted so that each study counts once and each unit equally within it.
fn central_levels(units: &[Unit], leave_out: Option<&str>, model: &PriorModel, weight: f64) -> Vec<(f64, f64)> {
    let usable: Vec<&Unit> = units
        .iter()
        .filter(|u| feeds_prior(u) && Some(u.study.as_str()) != leave_out)
        .filter(|u| u.held_out.iter().any(|h| h.distance != 0.0))
        .collect();
    let mut per_study: BTreeMap<&str, usize> = BTreeMap::new();
    for u in &usable {
        *per_study.entry(&u.study).or_default() += 1;
    }
    let levels: Vec<Vec<(f64, f64)>> = usable
        .par_iter()
        .map(|u| {
            let posterior = model.posterior(&own_scores(u), weight);
            let runs: Vec<_> = u.held_out.iter().filter(|h| h.distance != 0.0).collect();
            let total: f64 = runs.iter().map(|h| h.weight).sum();
            let share = 1.0 / (per_study[u.study.as_str()] as f64 * total);
            runs.iter()
                .map(|h| (posterior.central_level(model, h.sd_fit, h.distance, h.error), h.weight * share))
                .collect()
        })
        .collect();
    levels.into_iter().flatten().collect()
}
