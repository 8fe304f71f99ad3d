//! The calibration as a fit file keeps it ([`Calibration`]: its rolling origins, its scores and
//! the cross-study prior's update by them) and how it widens a prediction interval at a new
//! point. It lies below `record.rs`, whose [`super::FitRecord`] holds one, while the backtests
//! that compute it (`calibration.rs`) refit through a record and so lie above.

use serde::{Deserialize, Serialize};

use super::prediction::{back, forward, regime_name, PointPrediction, Regime};
use super::prior::{weighted_quantile, LevelCalibration, Observed, Point, Posterior, PriorModel};
use crate::error::Text;
use crate::fit::{ScaleRule, Space};
use crate::stats::normal_quantile;

/// One rolling origin of the calibration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationOrigin {
    pub trained_up_to: f64,
    pub train_rows: usize,
    pub held_out: usize,
    /// Scale groups beyond the origin.
    pub groups: usize,
    /// Why this origin gave no scores (a failed fit, no covariance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Text>,
}

/// The measured form error and how it widens prediction intervals beyond the data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub method: String,
    /// The column that orders scale.
    pub by: String,
    /// How a new point's scale is computed (None: it cannot be, so nothing is widened).
    pub rule: Option<ScaleRule>,
    pub level: f64,
    /// Largest scale of the fitted data (distance is measured from it).
    pub largest_scale: f64,
    /// Distinct scale groups in the data.
    pub scale_groups: usize,
    /// Whether the intervals are widened; when not, `reason` says why.
    pub calibrated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Extra standard deviation in the fitted space at one decade beyond the data; at d
    /// decades it is tau_per_decade · d^growth.
    pub tau_per_decade: f64,
    pub growth: f64,
    pub origins: Vec<CalibrationOrigin>,
    /// Held-out runs scored over all origins, and the (origin, scale group) units they form.
    pub held_out: usize,
    pub units: usize,
    /// Farthest extrapolation scored, in decades.
    pub max_distance_decades: f64,
    /// Weighted share of the scored runs inside the fit's own interval, and inside the widened
    /// one (the latter reaches `level` by construction: the honest check is a nested backtest).
    pub coverage_fit: Option<f64>,
    pub coverage_calibrated: Option<f64>,
    /// Every scored run's [error, sd_fit, decades beyond its origin, weight, the origin's span
    /// in decades, its fit at a bound (0 or 1)] in the fitted space: saved as those arrays
    /// ([`Score::to_array`]), held as the scores themselves (a million held-out runs held as a
    /// vector each took 70 MB more).
    #[serde(default)]
    pub scores: Vec<Score>,
    /// Smallest scale of the fitted data (distance below is measured from it; None in files
    /// written before distances were two-sided).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smallest_scale: Option<f64>,
    /// The cross-study prior and its update by these backtests (None in files written before
    /// it: their intervals are widened by the conformal τ above, as then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prior: Option<PriorUpdate>,
}

impl Calibration {
    /// Signed distance in decades of a point at `scale` from the fitted data: beyond the
    /// largest fitted scale (> 0), below the smallest (< 0), or inside (0).
    pub fn distance(&self, scale: f64) -> f64 {
        if !(scale > 0.0 && self.largest_scale > 0.0) {
            return 0.0;
        }
        if scale > self.largest_scale {
            return (scale / self.largest_scale).log10();
        }
        match self.smallest_scale {
            Some(smallest) if smallest > 0.0 && scale < smallest => -(smallest / scale).log10(),
            _ => 0.0,
        }
    }

    /// Refuses to widen new points' intervals when their scale cannot be computed from the
    /// law's variables (a backtest, which knows each held-out run's scale, needs no rule).
    pub fn require_rule(mut self) -> Calibration {
        if self.rule.is_none() && self.calibrated {
            self.calibrated = false;
            self.reason = Some(format!(
                "the law defines no scale of its own (it is neither a law in N and D nor in one variable) and the scale '{}' is neither a variable of the law nor proportional to N·D, so a new point's distance beyond the data is unknown; order the scale by a variable of the law",
                self.by
            ));
        }
        self
    }

    /// τ for intervals at `level` (the calibrated level's τ when the scores are missing).
    pub fn tau_at(&self, level: f64) -> f64 {
        if self.scores.is_empty() || (level - self.level).abs() < 1e-12 {
            return self.tau_per_decade;
        }
        tau_quantile(&self.scores, level)
    }

    /// Widens `prediction`'s prediction interval at `level` for a point at `scale` of a fit
    /// with (`at_bound`) or without a parameter at a bound, keeping the fit's own as `pi_fit`.
    pub fn widen_at_level(
        &self,
        prediction: &mut PointPrediction,
        scale: f64,
        space: Space,
        level: f64,
        at_bound: bool,
    ) {
        prediction.pi_fit = prediction.pi;
        if !self.calibrated {
            return;
        }
        let d = self.distance(scale);
        prediction.distance_decades = Some(d);
        let Some([lo, hi]) = prediction.pi else {
            return;
        };
        let centre = forward(space, prediction.value);
        let (below, above) = (centre - forward(space, lo), forward(space, hi) - centre);
        let widened = match &self.prior {
            Some(update) => {
                let z = normal_quantile(0.5 + level / 2.0);
                let point = Point {
                    sd: (below + above) / (2.0 * z),
                    distance: d,
                    at_bound,
                    span: update.span,
                };
                let regime = if d == 0.0 {
                    Regime::Inside
                } else {
                    Regime::of(update.posterior.own_weight)
                };
                prediction.regime = Some(regime);
                if d == 0.0 {
                    // Inside the data the fit's own interval stands: that is its calibration.
                    prediction.calibrated = true;
                    return;
                }
                let [e_lo, e_hi] = update.error_interval(&point, level);
                // e = prediction − run, so the run lies in [prediction − e_hi, prediction − e_lo].
                [back(space, centre - e_hi), back(space, centre - e_lo)]
            }
            None => {
                prediction.regime = Some(Regime::Backtests);
                let z = normal_quantile(0.5 + level / 2.0);
                let extra = z * self.tau_at(level) * d.max(0.0).powf(self.growth);
                [
                    back(space, centre - below.hypot(extra)),
                    back(space, centre + above.hypot(extra)),
                ]
            }
        };
        if widened.iter().all(|v| v.is_finite()) {
            prediction.pi = Some(widened);
            prediction.calibrated = true;
        }
    }

    pub fn describe(&self) -> String {
        if !self.calibrated {
            return format!(
                "not calibrated beyond the data: {}",
                self.reason.as_deref().unwrap_or("unknown reason")
            );
        }
        let scored = self.origins.iter().filter(|o| o.error.is_none()).count();
        match &self.prior {
            Some(update) => format!(
                "cross-study prior {} ({} studies' extrapolation errors) updated by {scored} rolling-origin backtests by {} ({} held-out runs in {} (origin, scale group) units): the law's form error is {:.4} (fitted space, sd) one decade beyond the data, growing as d^{:.2}; the backtests removed {:.0}% of the prior's uncertainty ({} regime)",
                update.version,
                update.studies,
                self.by,
                self.held_out,
                self.units,
                self.tau_per_decade,
                self.growth,
                100.0 * update.posterior.own_weight,
                regime_name(Regime::of(update.posterior.own_weight)),
            ),
            None => format!(
                "calibrated by {scored} rolling-origin backtests by {} ({} held-out runs in {} scale units, up to {:.2} decades beyond): sd² = sd_fit² + ({:.4}·d^{})² at d decades beyond the data",
                self.by,
                self.held_out,
                self.units,
                self.max_distance_decades,
                self.tau_per_decade,
                self.growth
            ),
        }
    }
}

/// The cross-study prior ([`super::prior`]) a fit's intervals beyond the data come from, and
/// its update by the fit's own rolling-origin backtests: everything a saved fit needs to give
/// the same interval later, whatever prior a newer build ships.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriorUpdate {
    pub version: String,
    /// Independent studies the prior was fitted to.
    #[serde(default)]
    pub studies: usize,
    pub model: PriorModel,
    pub levels: LevelCalibration,
    pub evidence_weight: f64,
    /// Decades of the law's scale the fitted data span.
    pub span: f64,
    /// Total weight of the own (origin, scale group) units that updated the prior.
    pub own_units: f64,
    pub posterior: Posterior,
}

impl PriorUpdate {
    /// The interval at nominal `level` of the error e = prediction − run at `point`.
    pub fn error_interval(&self, point: &Point, level: f64) -> [f64; 2] {
        self.posterior
            .error_interval(&self.model, point, self.levels.at(level))
    }
}

/// A held-out run's score, in the fitted space: its error (prediction − run), the fit's own
/// standard deviation there (parameters and residual scatter), its distance in decades beyond
/// the origin's largest training run, and its weight (one in total per (origin, scale group)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    pub error: f64,
    pub sd: f64,
    pub distance: f64,
    pub weight: f64,
    /// Decades of the law's scale the origin's training rows span, and whether its fit had a
    /// parameter at a bound.
    pub span: f64,
    pub at_bound: bool,
    /// How many of [`Score::to_array`]'s values it is saved with: the six it is made with, or
    /// as many as it was read with (four in files written before the span was recorded), so a
    /// saved fit is written back as it was read.
    pub(super) saved: u8,
}

/// The values a score is saved with ([`Score::to_array`]).
pub(super) const SCORE_VALUES: u8 = 6;

impl Score {
    /// The score as an observation of the cross-study model.
    pub fn observed(&self) -> Observed {
        Observed {
            error: self.error,
            weight: self.weight,
            at: Point {
                sd: self.sd,
                distance: self.distance,
                at_bound: self.at_bound,
                span: self.span,
            },
        }
    }

    /// [error, sd, distance, weight, span, at bound (0 or 1)], as saved.
    pub fn to_array(self) -> Vec<f64> {
        self.row().to_vec()
    }

    /// [`Score::to_array`] without the allocation.
    fn row(&self) -> [f64; 6] {
        let bound = if self.at_bound { 1.0 } else { 0.0 };
        [
            self.error,
            self.sd,
            self.distance,
            self.weight,
            self.span,
            bound,
        ]
    }

    /// A saved score (files written before the span was recorded have four values: their
    /// span is unknown and counts as the smallest).
    pub fn from_array(s: &[f64]) -> Score {
        let at = |i: usize| s.get(i).copied().unwrap_or(0.0);
        Score {
            error: at(0),
            sd: at(1),
            distance: at(2),
            weight: at(3),
            span: at(4),
            at_bound: at(5) > 0.5,
            saved: s.len().min(SCORE_VALUES.into()) as u8,
        }
    }

    /// The smallest τ whose interval at the normal quantile z holds this run.
    fn tau(&self, z: f64) -> f64 {
        ((self.error / z).powi(2) - self.sd * self.sd)
            .max(0.0)
            .sqrt()
            / self.distance
    }
}

/// A score is saved as [`Score::to_array`]'s array (a JSON array of six numbers; of as many as
/// it was read with).
impl Serialize for Score {
    fn serialize<S: serde::Serializer>(
        &self,
        serializer: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let row = self.row();
        let row = &row[..usize::from(self.saved)];
        let mut seq = serializer.serialize_seq(Some(row.len()))?;
        for value in row {
            seq.serialize_element(value)?;
        }
        seq.end()
    }
}

/// A saved score is read by [`Score::from_array`] (four values in older files).
impl<'de> Deserialize<'de> for Score {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        let row = Vec::<f64>::deserialize(deserializer)?;
        Ok(Score::from_array(&row))
    }
}

/// The weighted conformal quantile of the runs' τ at `level`.
pub fn tau_quantile(scores: &[Score], level: f64) -> f64 {
    let z = normal_quantile(0.5 + level / 2.0);
    let mut pairs: Vec<(f64, f64)> = scores.iter().map(|s| (s.tau(z), s.weight)).collect();
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    weighted_quantile(&pairs, level)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_score_is_saved_with_as_many_values_as_it_was_read_with() {
        for saved in ["[-0.5,0.25,0.75,0.04]", "[-0.5,0.25,0.75,0.04,1.5,1.0]"] {
            let score: Score = serde_json::from_str(saved).unwrap();
            assert_eq!(serde_json::to_string(&score).unwrap(), saved);
            assert_eq!(score.to_array().len(), 6);
        }
    }
}
