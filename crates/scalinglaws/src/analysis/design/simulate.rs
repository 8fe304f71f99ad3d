//! Checking the Fisher prediction by simulation, and planning a campaign round by round.
//!
//! The expected width a design promises is a linearisation: the information at the current
//! estimate, one noise level, and the delta method. [`check`] measures it instead: outcomes
//! of the chosen runs are drawn at the current estimate (with the fit's noise), the law is
//! refitted on the runs so far plus the simulated ones with the fit's own settings, and the
//! width each refit reports (the delta method on its own covariance) is recorded (a
//! preposterior check at the estimate; Chaloner & Verdinelli 1995, §2). Outcomes are not
//! drawn from other parameter draws: mixed with the runs so far, which came from one truth,
//! outcomes from a draw far from it make the refit's residuals, and so its widths, larger
//! than any truth would. The campaign (`campaign.rs`) follows one simulated truth through
//! several rounds.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{DesignSettings, Knowledge, Target};
use crate::analysis::allocation::Flops;
use crate::fit::{self, FitData, FitResult, Space};
use crate::law::Law;
use crate::rng::Rng;
use crate::stats::normal_quantile;

/// What the refits on simulated outcomes of the batch measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SimulationCheck {
    /// Refits asked for.
    pub simulations: usize,
    /// Those that converged with a covariance.
    pub refits: usize,
    /// Per goal: the median width the refits reported.
    pub median_widths: Vec<f64>,
}

/// A stream index no other random step of a design uses.
const CHECK_STREAM: u64 = 0x5EED_C4EC;

/// Refits on the runs so far plus `planned` runs' outcomes drawn at the current estimate,
/// `settings.simulations` times.
pub fn check(
    knowledge: &Knowledge,
    planned: &[Vec<f64>],
    settings: &DesignSettings,
) -> SimulationCheck {
    let targets = &settings.targets;
    let widths: Vec<Option<Vec<f64>>> = (0..settings.simulations)
        .into_par_iter()
        .map(|r| {
            let mut rng = Rng::stream(settings.seed ^ CHECK_STREAM, r as u64);
            let data = with_outcomes(knowledge, planned, &knowledge.centre, &mut rng);
            let refit = fit::fit(&knowledge.law, &data, &knowledge.settings).ok()?;
            widths_of(
                &knowledge.law,
                &refit,
                targets,
                &settings.flops,
                settings.level,
            )
        })
        .collect();
    let done: Vec<&Vec<f64>> = widths.iter().flatten().collect();
    let median_widths = (0..targets.len())
        .map(|t| {
            let mut w: Vec<f64> = done.iter().map(|w| w[t]).collect();
            w.sort_by(f64::total_cmp);
            if w.is_empty() {
                f64::NAN
            } else {
                crate::stats::quantile_sorted(&w, 0.5)
            }
        })
        .collect();
    SimulationCheck {
        simulations: settings.simulations,
        refits: done.len(),
        median_widths,
    }
}

/// The runs so far and `planned` runs whose outcomes are drawn from `truth` with the fit's
/// noise (multiplicative in log space, additive in linear space).
pub fn with_outcomes(
    knowledge: &Knowledge,
    planned: &[Vec<f64>],
    truth: &[f64],
    rng: &mut Rng,
) -> FitData {
    let mut data = knowledge.data.clone();
    let sigma = knowledge.noise;
    for point in planned {
        let mean = knowledge.law.eval(truth, point);
        let y = match knowledge.settings.space {
            Space::Log => mean * (sigma * rng.normal()).exp(),
            Space::Linear => mean + sigma * rng.normal(),
        };
        for (column, v) in data.variables.iter_mut().zip(point) {
            column.push(*v);
        }
        data.target.push(y);
        if let Some(w) = data.weights.as_mut() {
            w.push(1.0);
        }
    }
    data
}

/// Each target's width at `level` from a fit's covariance by the delta method (None without
/// a covariance or where a target is undefined).
pub fn widths_of(
    law: &Law,
    result: &FitResult,
    targets: &[Target],
    flops: &Flops,
    level: f64,
) -> Option<Vec<f64>> {
    let cov = result.covariance.as_ref()?;
    let params = result.param_values();
    let slots: Vec<usize> = cov
        .names
        .iter()
        .map(|n| law.param_index(n))
        .collect::<Option<_>>()?;
    let z = normal_quantile(0.5 + level / 2.0);
    targets
        .iter()
        .map(|t| {
            let g = t.gradient(law, flops, &params)?;
            let mut var = 0.0;
            for (a, &pa) in slots.iter().enumerate() {
                for (b, &pb) in slots.iter().enumerate() {
                    var += g[pa] * cov.values[a][b] * g[pb];
                }
            }
            (var.is_finite() && var >= 0.0).then(|| 2.0 * z * var.sqrt())
        })
        .collect()
}
