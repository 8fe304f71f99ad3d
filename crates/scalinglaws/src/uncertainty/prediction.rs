//! A prediction at one point, as every interval function returns it: its value and intervals
//! ([`PointPrediction`]), where the fit's own intervals came from ([`IntervalSource`]), how its
//! prediction interval was made ([`Regime`]), and the map to and from the fitted space. These
//! plain values sit at the bottom of the directory so that the saved calibration
//! (`widening.rs`), which widens a prediction, lies below the record that holds it, and the
//! interval functions (`intervals.rs`) that read the record lie above it.

use serde::{Deserialize, Serialize};

use crate::fit::Space;

/// Where intervals came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IntervalSource {
    Bootstrap,
    Delta,
    /// Neither bootstrap draws nor a covariance: no intervals.
    None,
}

impl IntervalSource {
    pub fn describe(self) -> &'static str {
        match self {
            IntervalSource::Bootstrap => "bootstrap percentiles",
            IntervalSource::Delta => "delta method",
            IntervalSource::None => "none available",
        }
    }
}

/// A law's prediction at a point, with its intervals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PointPrediction {
    /// The law's value there.
    pub value: f64,
    /// Confidence interval of the law's mean (parameter uncertainty only).
    pub ci: Option<[f64; 2]>,
    /// Prediction interval of a new run: calibrated beyond the data when the fit carries a
    /// calibration (`calibrated`), else the fit's own.
    pub pi: Option<[f64; 2]>,
    /// The fit's own prediction interval (parameters plus residual scatter), before calibration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pi_fit: Option<[f64; 2]>,
    /// Whether `pi` was widened by the fit's extrapolation calibration.
    #[serde(default)]
    pub calibrated: bool,
    /// Signed decades from the fitted range in the law's own scale (with a calibration):
    /// beyond the largest fitted run (> 0), below the smallest (< 0), inside (0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance_decades: Option<f64>,
    /// How `pi` was made (with a calibration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regime: Option<Regime>,
}

impl PointPrediction {
    pub fn new(value: f64, ci: Option<[f64; 2]>, pi: Option<[f64; 2]>) -> PointPrediction {
        PointPrediction {
            value,
            ci,
            pi,
            pi_fit: pi,
            calibrated: false,
            distance_decades: None,
            regime: None,
        }
    }
}

/// How an interval was made, for each prediction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Regime {
    /// Inside the fitted range: the fit's own interval.
    Inside,
    /// Beyond or below the data, governed by the cross-study prior (the fit's own backtests
    /// removed less than [`OWN_BLENDED`] of its uncertainty, or there were none).
    Prior,
    /// The cross-study prior and the fit's own backtests both weigh.
    Blended,
    /// The fit's own backtests dominate (they removed at least [`OWN_DOMINATES`] of the
    /// prior's uncertainty).
    Own,
    /// Widened by the conformal τ of a fit file written before the prior existed.
    Backtests,
}

/// Share of the prior's variance of ln τ the own backtests must remove for a blended regime ...
pub const OWN_BLENDED: f64 = 0.2;
/// ... and for their own.
pub const OWN_DOMINATES: f64 = 0.8;

impl Regime {
    /// The regime of an update whose own backtests removed `own_weight` of the prior's variance.
    pub fn of(own_weight: f64) -> Regime {
        if own_weight >= OWN_DOMINATES {
            Regime::Own
        } else if own_weight >= OWN_BLENDED {
            Regime::Blended
        } else {
            Regime::Prior
        }
    }
}

/// The regime's name as it is serialised.
pub fn regime_name(regime: Regime) -> &'static str {
    match regime {
        Regime::Inside => "inside",
        Regime::Prior => "prior",
        Regime::Blended => "blended",
        Regime::Own => "own",
        Regime::Backtests => "backtests",
    }
}

/// y in the fitted space.
pub(crate) fn forward(space: Space, y: f64) -> f64 {
    match space {
        Space::Log => y.ln(),
        Space::Linear => y,
    }
}

/// Back from the fitted space to y.
pub(crate) fn back(space: Space, z: f64) -> f64 {
    match space {
        Space::Log => z.exp(),
        Space::Linear => z,
    }
}
