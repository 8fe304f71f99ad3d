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
    fit_model_from, LevelCalibration, Observed, Point, PriorModel, SetEvidence,
};
use serde::Serialize;

use scalinglaws::uncertainty::calibration::Score;

use crate::corpus::{Cut, HeldOut, Unit};

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
pub fn evidence(units: &[Unit], leave_out: &[&str]) -> Vec<SetEvidence> {
    let mut sets: BTreeMap<(&str, &str), Vec<Observed>> = BTreeMap::new();
    let mut per_study: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for unit in units.iter().filter(|u| feeds_prior(u)) {
        if leave_out.contains(&unit.study.as_str()) {
            continue;
        }
        per_study.entry(&unit.study).or_default().insert(&unit.set);
        let observed = sets.entry((&unit.study, &unit.set)).or_default();
        observed.extend(thinned(unit).into_iter().map(|(h, w)| Observed {
            weight: w,
            ..held_out_observed(unit, h)
        }));
    }
    sets.into_iter()
        .map(|((study, _), observed)| SetEvidence {
            weight: 1.0 / per_study[study].len() as f64,
            observed,
        })
        .collect()
}

/// Most held-out runs of one (unit, scale group) the model is fitted to.
pub const RUNS_PER_GROUP: usize = 8;

/// A unit's held-out runs (off the fitted range) for the model's fit, its level calibration
/// and the choice of the weight of own backtests (the check scores every run), at most
/// [`RUNS_PER_GROUP`] of each scale group, evenly spaced in the group's order (by scale), each
/// kept run carrying its group's weight in equal shares: a group still counts once, and a
/// group of a thousand checkpoints costs the fit no more than one of eight runs.
fn thinned(unit: &Unit) -> Vec<(&HeldOut, f64)> {
    let mut groups: BTreeMap<usize, Vec<&HeldOut>> = BTreeMap::new();
    for h in unit.held_out.iter().filter(|h| h.distance != 0.0) {
        groups.entry(h.group).or_default().push(h);
    }
    let mut kept = Vec::new();
    for mut runs in groups.into_values() {
        runs.sort_by(|a, b| a.scale.total_cmp(&b.scale));
        let weight: f64 = runs.iter().map(|h| h.weight).sum();
        let take = runs.len().min(RUNS_PER_GROUP);
        let step = runs.len() as f64 / take as f64;
        for k in 0..take {
            let run = runs[((k as f64 + 0.5) * step) as usize];
            kept.push((run, weight / take as f64));
        }
    }
    kept
}

/// Where a unit predicted held-out run `h`.
pub fn point_of(unit: &Unit, h: &HeldOut) -> Point {
    Point {
        sd: h.sd_fit,
        distance: h.distance,
        at_bound: !unit.at_bound.is_empty(),
        span: (unit.hi / unit.lo).log10(),
    }
}

/// A held-out run as an observation.
fn held_out_observed(unit: &Unit, h: &HeldOut) -> Observed {
    Observed {
        error: h.error,
        weight: h.weight,
        at: point_of(unit, h),
    }
}

/// A unit's own rolling-origin scores as observations.
pub fn own_scores(unit: &Unit) -> Vec<Observed> {
    unit.scores
        .iter()
        .map(|s| Score::from_array(s).to_array())
        .map(|s| Observed {
            error: s[0],
            weight: s[3],
            at: Point {
                sd: s[1],
                distance: s[2],
                at_bound: s[5] > 0.5,
                span: s[4],
            },
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
    for unit in units
        .iter()
        .filter(|u| u.study == study && u.error.is_none() && cuts.contains(&u.cut))
    {
        let posterior = model.posterior(&own_scores(unit), fitted.evidence_weight);
        for h in &unit.held_out {
            let [lo, hi] = posterior.error_interval(model, &point_of(unit, h), level);
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
    let mean =
        |f: &dyn Fn(&Scored) -> f64| runs.iter().map(|r| f(r)).sum::<f64>() / runs.len() as f64;
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

/// The fitted parts of a prior.
#[derive(Debug, Clone)]
pub struct Fitted {
    pub model: PriorModel,
    pub evidence_weight: f64,
    pub levels: LevelCalibration,
}

/// Mean per-study coverage misses closer than this (half a percentage point) are a tie.
pub const COVERAGE_TIE: f64 = 0.005;

/// The weights of own backtests tried ([`Folds::choose_evidence_weight`]).
pub const EVIDENCE_WEIGHTS: [f64; 7] = [0.0, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0];

/// The studies whose units feed the prior.
pub fn prior_studies(units: &[Unit]) -> Vec<&str> {
    let studies: BTreeSet<&str> = units
        .iter()
        .filter(|u| feeds_prior(u) && !u.held_out.is_empty())
        .map(|u| u.study.as_str())
        .collect();
    studies.into_iter().collect()
}

/// Every model fit the prior and its check need: the full one, one without each study, and one
/// without each pair of studies (so that a study's level calibration never sees it). The
/// models do not depend on the weight of own backtests, which is chosen afterwards.
pub struct Folds {
    pub full: PriorModel,
    single: BTreeMap<String, PriorModel>,
    pair: BTreeMap<(String, String), PriorModel>,
}

impl Folds {
    /// Fits them all (the partial fits start from the full fit's model), in parallel; the pairs
    /// only when `pairs` (the leave-one-study-out check needs them, the prior alone does not).
    pub fn fit(units: &[Unit], pairs: bool) -> Option<Folds> {
        let full = fit_model_from(&evidence(units, &[]), None).ok()?;
        let studies = prior_studies(units);
        let fit = |out: &[&str]| fit_model_from(&evidence(units, out), Some(&full)).ok();
        let single = studies
            .par_iter()
            .filter_map(|s| Some((s.to_string(), fit(&[s])?)))
            .collect();
        let couples: Vec<(&str, &str)> = if pairs {
            studies
                .iter()
                .enumerate()
                .flat_map(|(i, a)| studies[i + 1..].iter().map(move |b| (*a, *b)))
                .collect()
        } else {
            Vec::new()
        };
        let pair = couples
            .par_iter()
            .filter_map(|&(a, b)| Some(((a.to_string(), b.to_string()), fit(&[a, b])?)))
            .collect();
        Some(Folds { full, single, pair })
    }

    /// The model fitted without `leave_out` (one or two studies), if it was made.
    fn without(&self, leave_out: &[&str]) -> Option<&PriorModel> {
        match leave_out {
            [] => Some(&self.full),
            [a] => self.single.get(*a),
            [a, b] => {
                let (a, b) = if a <= b { (a, b) } else { (b, a) };
                self.pair.get(&(a.to_string(), b.to_string()))
            }
            _ => None,
        }
    }

    /// The level calibration without the studies `leave_out` at weight `weight`: every other
    /// study's held-out runs, each scored under the model that left that study out too
    /// (jackknife+ across studies: Barber, Candès, Ramdas & Tibshirani 2021, "Predictive
    /// inference with the jackknife+", Ann. Statist. 49:486), each study once.
    fn levels(&self, units: &[Unit], leave_out: &[&str], weight: f64) -> Option<LevelCalibration> {
        let others = others(units, leave_out);
        let count = others.len() as f64;
        let mut scores = Vec::new();
        for study in others {
            let model = self.without(&with(leave_out, study))?;
            let levels = central_levels(units, study, model, weight);
            scores.extend(levels.into_iter().map(|(l, w)| (l, w / count)));
        }
        Some(LevelCalibration::fit(&scores))
    }

    /// The weight of own backtests, without the studies `leave_out`, whose intervals hold
    /// closest to their level study by study: the least mean over the other studies of
    /// |coverage − 95 %| (group-conditional calibration, the goal a user of one study has;
    /// Vovk 2012, "Conditional validity of inductive conformal predictors"), each study's held-out
    /// runs predicted by the model without it and the level calibration without `leave_out`
    /// (which, for the check that cannot afford a third level of refits, includes the scored
    /// study among its thirteen or so). Among the weights within [`COVERAGE_TIE`] of the least
    /// miss, the sharpest wins: the least mean interval score (Gneiting & Raftery 2007, §6.2).
    pub fn choose_evidence_weight(&self, units: &[Unit], leave_out: &[&str]) -> Option<f64> {
        let mut tried: Vec<(f64, f64, f64)> = Vec::new();
        for weight in EVIDENCE_WEIGHTS {
            let levels = self.levels(units, leave_out, weight)?;
            let others = others(units, leave_out);
            let (mut miss, mut score) = (0.0, 0.0);
            for study in &others {
                let fitted = Fitted {
                    model: *self.without(&with(leave_out, study))?,
                    evidence_weight: weight,
                    levels: levels.clone(),
                };
                let (coverage, interval) = calibration_of(units, study, &fitted);
                miss += (coverage - LEVEL).abs();
                score += interval;
            }
            let count = others.len() as f64;
            let (miss, score) = (miss / count, score / count);
            if leave_out.is_empty() {
                eprintln!("evidence weight {weight}: mean |coverage - level| {miss:.4}, interval score {score:.4}");
            }
            tried.push((weight, miss, score));
        }
        let least = tried.iter().map(|t| t.1).fold(f64::INFINITY, f64::min);
        tried
            .iter()
            .filter(|t| t.1 <= least + COVERAGE_TIE)
            .min_by(|a, b| a.2.total_cmp(&b.2))
            .map(|t| t.0)
    }

    /// The prior without the studies `leave_out` (none or one): its model, the weight of own
    /// backtests chosen without them (unless `weight` fixes it), and its level calibration.
    pub fn prior(&self, units: &[Unit], leave_out: &[&str], weight: Option<f64>) -> Option<Fitted> {
        let model = *self.without(leave_out)?;
        let evidence_weight = match weight {
            Some(w) => w,
            None => self.choose_evidence_weight(units, leave_out)?,
        };
        let levels = self.levels(units, leave_out, evidence_weight)?;
        Some(Fitted {
            model,
            evidence_weight,
            levels,
        })
    }
}

/// The prior studies other than `leave_out`.
fn others<'a>(units: &'a [Unit], leave_out: &[&str]) -> Vec<&'a str> {
    prior_studies(units)
        .into_iter()
        .filter(|s| !leave_out.contains(s))
        .collect()
}

/// `leave_out` and `study`.
fn with<'a>(leave_out: &[&'a str], study: &'a str) -> Vec<&'a str> {
    let mut out = leave_out.to_vec();
    out.push(study);
    out
}

/// The coverage at [`LEVEL`] and the mean interval score (width + (2/α)·distance outside) of
/// `study`'s level-calibrating units under `fitted`: each unit once, each held-out scale group
/// once within it.
fn calibration_of(units: &[Unit], study: &str, fitted: &Fitted) -> (f64, f64) {
    let alpha = 1.0 - LEVEL;
    let level = fitted.levels.at(LEVEL);
    let (mut coverage, mut score, mut count) = (0.0, 0.0, 0.0);
    for u in units
        .iter()
        .filter(|u| u.study == study && feeds_prior(u) && calibrates_levels(u))
    {
        let posterior = fitted
            .model
            .posterior(&own_scores(u), fitted.evidence_weight);
        let runs = thinned(u);
        let weights: f64 = runs.iter().map(|r| r.1).sum();
        if weights <= 0.0 {
            continue;
        }
        let (mut inside, mut unit_score) = (0.0, 0.0);
        for (h, w) in runs {
            let [lo, hi] = posterior.error_interval(&fitted.model, &point_of(u, h), level);
            let outside = (lo - h.error).max(0.0) + (h.error - hi).max(0.0);
            inside += w * f64::from(u8::from(outside == 0.0));
            unit_score += w * (hi - lo + 2.0 / alpha * outside);
        }
        coverage += inside / weights;
        score += unit_score / weights;
        count += 1.0;
    }
    if count > 0.0 {
        (coverage / count, score / count)
    } else {
        (LEVEL, 0.0)
    }
}

/// Every study left out in turn: its units at `cuts` scored with the prior fitted without it.
pub fn leave_one_study_out(
    units: &[Unit],
    cuts: &[Cut],
    folds: &Folds,
    weight: Option<f64>,
) -> Vec<Scored> {
    let studies = prior_studies(units);
    let per_study: Vec<Vec<Scored>> = studies
        .par_iter()
        .map(|study| match folds.prior(units, &[study], weight) {
            Some(fitted) => score_study(units, study, cuts, &fitted),
            None => Vec::new(),
        })
        .collect();
    per_study.into_iter().flatten().collect()
}

/// Whether a unit's held-out runs calibrate the levels (and choose the weight of own
/// backtests): the cut-offs a user extrapolates from, at least a decade below the largest
/// scale (where the check is made too), and every cut-off below the data.
fn calibrates_levels(unit: &Unit) -> bool {
    match unit.cut {
        Cut::Beyond(k) => k >= 1.0,
        Cut::Below(_) => true,
        Cut::First3 => false,
    }
}

/// `study`'s held-out runs' central levels under the posterior from each unit's own scores,
/// weighted so that the study counts once, each of its units equally.
fn central_levels(units: &[Unit], study: &str, model: &PriorModel, weight: f64) -> Vec<(f64, f64)> {
    let usable: Vec<&Unit> = units
        .iter()
        .filter(|u| u.study == study && feeds_prior(u) && calibrates_levels(u))
        .filter(|u| u.held_out.iter().any(|h| h.distance != 0.0))
        .collect();
    let count = usable.len() as f64;
    let mut levels = Vec::new();
    for u in usable {
        let posterior = model.posterior(&own_scores(u), weight);
        let runs = thinned(u);
        let total: f64 = runs.iter().map(|r| r.1).sum();
        levels.extend(runs.iter().map(|&(h, w)| {
            let level = posterior.central_level(model, &point_of(u, h), h.error);
            (level, w / (count * total))
        }));
    }
    levels
}
