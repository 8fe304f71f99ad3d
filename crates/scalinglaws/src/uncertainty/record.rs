//! A fit with everything learnt about it afterwards: the data summary, the bootstrap, the
//! profiles and the calibration. It exists so that [`crate::fit::FitResult`] stays the pure fit
//! (what [`crate::fit::fit`] returns) and imports nothing above it, while the file a fit saves
//! as JSON, and `predict`, `optimal`, `plot`, `report` and Python read, is one record. It
//! derefs to its fit, so `record.value("alpha")` and `&record` as a `&FitResult` work.
//! The JSON is the fit's keys, then these parts, then the fit's `variance` (schema_version 1).

use std::ops::{Deref, DerefMut};

use serde::{Deserialize, Serialize, Serializer};

use super::{Calibration, Profile};
use crate::error::{short_number, Error, Result};
use crate::fit::result::{check_schema_version, DataSummary};
use crate::fit::{check_in_bounds, edited};
use crate::fit::{FitResult, VarianceModel};

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FitRecord {
    #[serde(flatten)]
    pub fit: FitResult,
    #[serde(default)]
    pub data: Option<DataSummary>,
    /// Bootstrap replicates (with every replicate's parameters), when the `bootstrap` setting asks for them.
    #[serde(default)]
    pub bootstrap: Option<BootstrapSummary>,
    /// Profile-likelihood intervals, when the `profile` setting asks for them.
    #[serde(default)]
    pub profiles: Vec<Profile>,
    /// How prediction intervals beyond the data are widened (rolling-origin backtests).
    #[serde(default)]
    pub calibration: Option<Calibration>,
    /// Quality control of the runs, when it flagged any (every flag, and the rows removed).
    #[serde(default)]
    pub qc: Option<crate::data::qc::FitQc>,
    /// The frontier of a sweep, when the recipe named swept columns: each cell's runs, its
    /// frontier and how it was found.
    #[serde(default)]
    pub sweep: Option<crate::data::sweep::Frontier>,
}

/// The bootstrap as stored in a fit file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BootstrapSummary {
    /// Replicates asked for (`draws` holds those that succeeded).
    pub replicates: usize,
    pub seed: u64,
    /// The column whose runs were resampled whole (None: rows).
    pub cluster: Option<String>,
    /// Number of clusters (runs) when resampling runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clusters: Option<usize>,
    pub level: f64,
    /// Replicates whose search did not converge or could not be fitted (left out of `draws`).
    pub failed: usize,
    /// Every successful replicate's parameters, in the law's order.
    pub draws: Vec<Vec<f64>>,
}

/// The record as written: the fit's keys without `variance`, the record's parts, then
/// `variance` last (the key order of files written before the record existed).
#[derive(Serialize)]
struct Written<'a> {
    #[serde(flatten)]
    fit: FitResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: &'a Option<DataSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    bootstrap: &'a Option<BootstrapSummary>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    profiles: &'a Vec<Profile>,
    #[serde(skip_serializing_if = "Option::is_none")]
    calibration: &'a Option<Calibration>,
    #[serde(skip_serializing_if = "Option::is_none")]
    qc: &'a Option<crate::data::qc::FitQc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sweep: &'a Option<crate::data::sweep::Frontier>,
    #[serde(skip_serializing_if = "Option::is_none")]
    variance: &'a Option<VarianceModel>,
}

impl Serialize for FitRecord {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        Written {
            fit: FitResult {
                variance: None,
                ..self.fit.clone()
            },
            data: &self.data,
            bootstrap: &self.bootstrap,
            profiles: &self.profiles,
            calibration: &self.calibration,
            qc: &self.qc,
            sweep: &self.sweep,
            variance: &self.fit.variance,
        }
        .serialize(s)
    }
}

impl From<FitResult> for FitRecord {
    fn from(fit: FitResult) -> FitRecord {
        FitRecord {
            fit,
            data: None,
            bootstrap: None,
            profiles: Vec::new(),
            calibration: None,
            qc: None,
            sweep: None,
        }
    }
}

impl Deref for FitRecord {
    type Target = FitResult;
    fn deref(&self) -> &FitResult {
        &self.fit
    }
}

impl DerefMut for FitRecord {
    fn deref_mut(&mut self) -> &mut FitResult {
        &mut self.fit
    }
}

impl FitRecord {
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&crate::document::envelope(self))
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// Reads a fit file, checking its schema version first, the fit's formula and values
    /// after, then its parts. Parses straight from the text so that parameters and variables
    /// keep their order.
    pub fn from_json(text: &str) -> Result<FitRecord> {
        check_schema_version(text)?;
        let mut record: FitRecord = serde_json::from_str(text)
            .map_err(|e| Error::settings(format!("not a fit file: {e}")))?;
        record.fit.check_read()?;
        record.check_levels()?;
        record.check_draws()?;
        if let Some(frontier) = &record.sweep {
            frontier.check_read(record.settings.space == crate::fit::Space::Log)?;
        }
        Ok(record)
    }

    /// The level of the fit's intervals when none is asked for: its bootstrap's, else its
    /// calibration's, else the default (a saved fit's frontier, picture and page).
    pub fn level(&self) -> f64 {
        self.bootstrap
            .as_ref()
            .map(|b| b.level)
            .or_else(|| self.calibration.as_ref().map(|c| c.level))
            .unwrap_or(super::DEFAULT_LEVEL)
    }

    /// The levels of the bootstrap, the calibration and the profiles lie in (0, 1), and the
    /// calibration's widening is not negative (a hand-edited file is refused, naming the key).
    fn check_levels(&self) -> Result<()> {
        let mut levels: Vec<(String, f64)> = Vec::new();
        if let Some(bootstrap) = &self.bootstrap {
            levels.push(("bootstrap.level".into(), bootstrap.level));
        }
        if let Some(calibration) = &self.calibration {
            levels.push(("calibration.level".into(), calibration.level));
            if calibration.tau_per_decade < 0.0 {
                let key = "calibration.tau_per_decade";
                return Err(edited(key, calibration.tau_per_decade, "0 or more"));
            }
            check_scale(calibration)?;
            if let Some(update) = &calibration.prior {
                check_prior(update)?;
                for pair in &update.levels.pairs {
                    levels.push(("calibration.prior.levels".into(), pair[1]));
                }
            }
        }
        for profile in &self.profiles {
            levels.push((format!("profiles ({}).level", profile.param), profile.level));
        }
        let outside = |level: f64| level <= 0.0 || level >= 1.0 || level.is_nan();
        match levels.iter().find(|(_, level)| outside(*level)) {
            Some((key, level)) => Err(edited(key, *level, "a level between 0 and 1")),
            None => Ok(()),
        }
    }

    /// The bootstrap draws must match the parameters (a hand-edited or truncated file is
    /// refused here rather than misread later).
    fn check_draws(&self) -> Result<()> {
        let Some(bootstrap) = &self.bootstrap else {
            return Ok(());
        };
        let k = self.params.len();
        if let Some(i) = bootstrap.draws.iter().position(|d| d.len() != k) {
            return Err(Error::settings(format!(
                "not a consistent fit file: bootstrap draw {} has {} values for {k} parameters",
                i + 1,
                bootstrap.draws[i].len()
            )));
        }
        for (i, draw) in bootstrap.draws.iter().enumerate() {
            for (value, (name, param)) in draw.iter().zip(&self.params) {
                let key = format!("bootstrap.draws[{i}] ({name})");
                // A fixed parameter's draws are its value, which may lie outside its bounds.
                let (lower, upper) = match param.fixed {
                    true => (None, None),
                    false => (param.lower, param.upper),
                };
                check_in_bounds(&key, *value, lower, upper)?;
            }
        }
        self.check_draw_intervals(bootstrap)
    }

    /// Each free parameter's interval lies within its draws' range, give or take one width of
    /// the interval: draws edited apart from their interval (1e300 beside [266, 760], or two
    /// parameters' entries swapped) would give predictions far outside the parameters' own
    /// intervals. (Not the exact percentile interval, which the tool's own files match: a
    /// caller may thin or repeat the draws, as the Python interrupt tests repeat 100 draws
    /// into 10,000, and the file still means what it says.)
    fn check_draw_intervals(&self, bootstrap: &BootstrapSummary) -> Result<()> {
        if bootstrap.draws.is_empty() {
            return Ok(());
        }
        for (index, (name, param)) in self.params.iter().enumerate() {
            let Some([lo, hi]) = param.ci.filter(|_| !param.fixed) else {
                continue;
            };
            let values = bootstrap.draws.iter().map(|d| d[index]);
            let (least, most) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
            let slack = (hi - lo) + 1e-9 * lo.abs().max(hi.abs()).max(1e-300);
            if lo < least - slack || hi > most + slack {
                return Err(Error::settings(format!(
                    "not a consistent fit file: `params.{name}.ci` is [{}, {}], but its \
                     bootstrap draws range over [{}, {}]; was the file edited? Restore it or fit \
                     again",
                    short_number(lo),
                    short_number(hi),
                    short_number(least),
                    short_number(most)
                )));
            }
        }
        Ok(())
    }
}

/// The scale the calibration measures distances in: a compute factor a FLOPs formula gives
/// (positive, at most [`MAX_SCALE_FACTOR`]) and a positive largest scale; an edited sign or
/// size would silently move every prediction inside the data.
fn check_scale(calibration: &Calibration) -> Result<()> {
    if let Some(crate::fit::ScaleRule::Product { factor, .. }) = &calibration.rule {
        if !(*factor > 0.0 && *factor <= MAX_SCALE_FACTOR) {
            let expected = format!("a positive number at most {MAX_SCALE_FACTOR}");
            return Err(edited("calibration.rule.factor", *factor, &expected));
        }
    }
    let largest = calibration.largest_scale;
    if !(largest > 0.0 && largest.is_finite()) {
        return Err(edited(
            "calibration.largest_scale",
            largest,
            "a positive number",
        ));
    }
    Ok(())
}

/// The largest compute factor of a saved scale rule (FLOPs formulas use 2 to 8 per
/// parameter-token).
const MAX_SCALE_FACTOR: f64 = 1e3;

/// A saved prior's values are ones a fit writes: positive spreads and growth, finite means, a
/// posterior of finite non-negative weights summing to one with positive bias variances.
fn check_prior(update: &super::widening::PriorUpdate) -> Result<()> {
    let m = &update.model;
    let positive = [
        ("calibration.prior.model.log_tau_sd", m.log_tau_sd),
        ("calibration.prior.model.growth", m.growth),
        ("calibration.prior.model.below", m.below),
        ("calibration.prior.model.bias_sd", m.bias_sd),
    ];
    if let Some((key, value)) = positive.iter().find(|(_, v)| !(v.is_finite() && *v > 0.0)) {
        return Err(edited(key, *value, "a positive number"));
    }
    let finite = [
        ("calibration.prior.model.log_tau_mean", m.log_tau_mean),
        ("calibration.prior.model.bias", m.bias),
        ("calibration.prior.model.below_bias", m.below_bias),
        ("calibration.prior.model.at_bound", m.at_bound),
        ("calibration.prior.model.span", m.span),
        ("calibration.prior.span", update.span),
    ];
    if let Some((key, value)) = finite.iter().find(|(_, v)| !v.is_finite()) {
        return Err(edited(key, *value, "a finite number"));
    }
    if !(update.evidence_weight.is_finite() && update.evidence_weight >= 0.0) {
        let key = "calibration.prior.evidence_weight";
        return Err(edited(key, update.evidence_weight, "0 or more"));
    }
    let nodes = &update.posterior.nodes;
    let total: f64 = nodes.iter().map(|n| n.weight).sum();
    let node_ok = |n: &super::prior::Node| {
        n.log_tau.is_finite()
            && n.weight.is_finite()
            && n.weight >= 0.0
            && n.bias
                .iter()
                .all(|b| b.mean.is_finite() && b.variance > 0.0 && b.variance.is_finite())
    };
    if nodes.is_empty() || !nodes.iter().all(node_ok) || (total - 1.0).abs() > 1e-6 {
        let key = "calibration.prior.posterior.nodes";
        return Err(edited(key, total, "finite nodes whose weights sum to 1"));
    }
    Ok(())
}
