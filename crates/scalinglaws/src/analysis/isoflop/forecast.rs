//! IsoFLOP predictions at new budgets, with intervals that say how far to trust them.
//!
//! The power laws through the per-budget minima (approach 2) predict N*, D* and the minimum
//! loss at any budget. Two sources of error are measured, in ln units:
//!
//! - **The minima's noise**, by a parametric bootstrap over the runs within each budget: every
//!   run's ln loss in its budget's window is redrawn around the budget's local curve at the
//!   scatter pooled over all budgets (the same model as the N* intervals), each budget's minimum
//!   is found again, the power laws refitted and the new budget predicted; the spread over
//!   replicates is sd_boot.
//! - **The form's error beyond the data**, by rolling-origin backtests over the budgets
//!   (Tashman 2000; the scheme of `uncertainty::calibration` with budgets as the scale groups):
//!   fit on the smallest k budgets for every k from 3 to all but one, predict the minima of the
//!   larger ones, and widen the interval by τ·d^g at d decades beyond the largest budget
//!   (g = [`GROWTH`]), τ the weighted split-conformal quantile (Vovk et al. 2005) of the
//!   scores √(max(0, (e/z)² − sd_pred² − sd_obs²))/d^g, one unit of weight per (origin, budget).
//!   sd_obs, the held-out minimum's own bootstrap spread, is taken out because the target is
//!   the true optimum, not a noisy estimate of it.
//!
//! The interval is then ln value ± z·√(sd_boot² + (τ·d^g)²); without calibration (too few
//! budgets), the bootstrap's percentile interval, and the result says why it is not calibrated.
//! The loss at a new budget is the power law through the budgets' minimum losses, a point
//! value without an interval: with no irreducible term it undershoots beyond the data (on a
//! synthetic Chinchilla study, 1.90 against a true 2.07 one decade out), so `fit` and `predict`
//! are the way to a calibrated loss.

use serde::{Deserialize, Serialize};

use super::{
    group_by_budget, local_fit, local_minimum, profile, tokens_at, Isoflop, IsoflopData,
    IsoflopSettings, Shape,
};
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;
use crate::rng::Rng;
use crate::stats::{normal_quantile, percentile_interval, sample_std};
use crate::uncertainty::calibration::{weighted_quantile, GROWTH};

/// Fewest budgets with a minimum a calibration runs on (three to train the smallest origin,
/// two beyond it).
pub const MIN_BUDGETS: usize = 5;
/// Fewest (origin, held-out budget) units a calibration is computed from.
pub const MIN_UNITS: usize = 6;
/// Bootstrap replicates per rolling origin (the full data keeps the requested count).
const ORIGIN_REPLICATES: usize = 200;

/// A prediction at one new budget.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BudgetPrediction {
    pub budget: f64,
    /// Decades beyond the largest budget with a minimum (0 inside the data).
    pub decades_out: f64,
    #[serde(rename = "N")]
    pub n: Quantity,
    #[serde(rename = "D")]
    pub d: Quantity,
    pub loss: Quantity,
}

/// One predicted quantity: the point value, its interval, and the bootstrap's own interval.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Quantity {
    pub value: f64,
    /// The calibrated interval when calibrated, else the bootstrap's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<[f64; 2]>,
    /// Percentile interval over the bootstrap replicates (the minima's noise only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bootstrap_interval: Option<[f64; 2]>,
}

/// How the intervals beyond the data were widened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ForecastCalibration {
    pub calibrated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Training sizes (in budgets) of the rolling origins.
    pub origins: Vec<usize>,
    /// (origin, held-out budget) units scored.
    pub units: usize,
    pub max_distance_decades: f64,
    /// τ of N*, D* and the loss, per decade^g in ln units.
    pub tau_n: f64,
    pub tau_d: f64,
    pub tau_loss: f64,
    /// Share of the units whose D* fell inside the bootstrap-only interval, and after widening.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage_bootstrap: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage_calibrated: Option<f64>,
}

/// ln N*, ln D*, ln loss* of each budget (None without a minimum).
type Minima = Vec<Option<[f64; 3]>>;

/// The budgets' rows and the analysis' resolved shape: what a replicate needs.
struct Profiles<'a> {
    data: &'a IsoflopData,
    groups: Vec<Vec<usize>>,
    shape: Shape,
}

/// The power-law predictions (ln N*, ln D*, ln loss*) at `targets` from `minima`.
fn predict_lines(budgets: &[f64], minima: &Minima, targets: &[f64]) -> Option<Vec<[f64; 3]>> {
    let mut lines = Vec::with_capacity(3);
    for k in 0..3 {
        let points: Vec<(f64, f64)> = budgets
            .iter()
            .zip(minima)
            .filter_map(|(c, m)| m.map(|m| (c.ln(), m[k])))
            .collect();
        if points.len() < 2 || points.iter().all(|p| p.0 == points[0].0) {
            return None;
        }
        lines.push(super::line(&points));
    }
    Some(
        targets
            .iter()
            .map(|c| {
                let x = c.ln();
                [0, 1, 2].map(|k| lines[k].1 + lines[k].0 * x)
            })
            .collect(),
    )
}

impl Profiles<'_> {
    fn budgets(&self) -> Vec<f64> {
        self.groups
            .iter()
            .map(|rows| super::geometric_mean(rows.iter().map(|&r| self.data.compute[r])))
            .collect()
    }

    /// Each budget's minimum: of the observed data without `rng`, else of the window's ln
    /// losses redrawn around the local curve with normal noise of sd `sigma`.
    fn minima(&self, sigma: f64, rng: Option<&mut Rng>) -> Minima {
        let mut rng = rng;
        let budgets = self.budgets();
        self.groups
            .iter()
            .zip(budgets)
            .map(|(rows, budget)| {
                let points = profile(self.data, rows);
                let x: Vec<f64> = points.iter().map(|p| p.0).collect();
                let mut y: Vec<f64> = points.iter().map(|p| p.1).collect();
                if let Some(rng) = rng.as_deref_mut() {
                    let fit = local_fit(&x, &y, self.shape)?;
                    for (value, fitted) in y[fit.range.clone()].iter_mut().zip(&fit.fitted) {
                        *value = fitted + sigma * rng.normal();
                    }
                }
                let (x_star, y_star) = local_minimum(&x, &y, self.shape)?;
                let d = tokens_at(self.data, &points, x_star, budget);
                Some([x_star, d.ln(), y_star])
            })
            .collect()
    }

    /// The scatter of ln loss about the local curves, pooled over budgets.
    fn sigma(&self) -> Option<f64> {
        let (rss, dof) = self
            .groups
            .iter()
            .filter_map(|rows| {
                let points = profile(self.data, rows);
                let x: Vec<f64> = points.iter().map(|p| p.0).collect();
                let y: Vec<f64> = points.iter().map(|p| p.1).collect();
                local_fit(&x, &y, self.shape)
            })
            .fold((0.0, 0usize), |(r, d), f| (r + f.rss, d + f.dof));
        (dof >= 2).then(|| (rss / dof as f64).sqrt())
    }

    /// Bootstrap replicates of the predictions at `targets` and of every budget's minimum
    /// (fewer once `stop` is set: the caller then discards them).
    fn replicates(&self, targets: &[f64], count: usize, seed: u64, stop: &Interrupt) -> Replicates {
        let mut out = Replicates {
            predictions: vec![Vec::with_capacity(count); targets.len()],
            minima: vec![Vec::with_capacity(count); self.groups.len()],
        };
        let Some(sigma) = self.sigma() else {
            return out;
        };
        let budgets = self.budgets();
        for replicate in 0..count {
            if stop.is_interrupted() {
                break;
            }
            let mut rng = Rng::stream(seed ^ 0x5EED_F0CA_57ED_0001, replicate as u64);
            let minima = self.minima(sigma, Some(&mut rng));
            for (slot, m) in out.minima.iter_mut().zip(&minima) {
                if let Some(m) = m {
                    slot.push(*m);
                }
            }
            if let Some(predictions) = predict_lines(&budgets, &minima, targets) {
                for (slot, p) in out.predictions.iter_mut().zip(predictions) {
                    slot.push(p);
                }
            }
        }
        out
    }
}

/// Each budget's compute (the geometric mean of its runs').
pub(crate) fn budgets_of(data: &IsoflopData, groups: &[Vec<usize>]) -> Vec<f64> {
    groups
        .iter()
        .map(|rows| super::geometric_mean(rows.iter().map(|&r| data.compute[r])))
        .collect()
}

/// Each budget's own minimum (ln N*, ln D*, ln loss*) under `shape`, None without one.
pub(crate) fn own_minima(
    data: &IsoflopData,
    groups: &[Vec<usize>],
    shape: Shape,
) -> Vec<Option<[f64; 3]>> {
    Profiles {
        data,
        groups: groups.to_vec(),
        shape,
    }
    .minima(0.0, None)
}

/// Bootstrap draws: per target, per replicate, the three ln predictions; per budget, the
/// replicates' minima.
struct Replicates {
    predictions: Vec<Vec<[f64; 3]>>,
    minima: Vec<Vec<[f64; 3]>>,
}

fn spread(draws: &[[f64; 3]], k: usize) -> Option<f64> {
    sample_std(&draws.iter().map(|d| d[k]).collect::<Vec<_>>())
}

/// Predictions at `targets` for an analysis already run on `data` (its shape resolved).
pub(crate) fn predict_budgets(
    data: &IsoflopData,
    groups: Vec<Vec<usize>>,
    analysis: &mut Isoflop,
    settings: &IsoflopSettings,
) -> Result<()> {
    check_targets(&settings.predict_at)?;
    let profiles = Profiles {
        data,
        groups,
        shape: analysis.shape,
    };
    let budgets = profiles.budgets();
    let minima = profiles.minima(0.0, None);
    let Some(points) = predict_lines(&budgets, &minima, &settings.predict_at) else {
        analysis.predictions_note =
            Some("fewer than 2 budgets have a minimum: nothing to extrapolate".into());
        return Ok(());
    };
    let largest = budgets
        .iter()
        .zip(&minima)
        .filter(|(_, m)| m.is_some())
        .map(|(c, _)| *c)
        .fold(0.0, f64::max);
    let stop = &settings.interrupt;
    let draws = profiles.replicates(
        &settings.predict_at,
        settings.bootstrap,
        settings.seed,
        stop,
    );
    let calibration = settings
        .calibrate
        .then(|| calibrate(&profiles, &budgets, &minima, settings));
    let z = normal_quantile(0.5 + settings.level / 2.0);
    analysis.predictions = settings
        .predict_at
        .iter()
        .zip(points)
        .zip(&draws.predictions)
        .map(|((&budget, point), draws)| {
            let decades = (budget / largest).log10().max(0.0);
            let quantity = |k: usize, tau: Option<f64>| {
                quantity(
                    point[k],
                    draws,
                    k,
                    tau.map(|t| t * decades.powf(GROWTH)),
                    z,
                    settings,
                )
            };
            let taus = calibration
                .as_ref()
                .filter(|c| c.calibrated)
                .map(|c| [c.tau_n, c.tau_d, c.tau_loss]);
            BudgetPrediction {
                budget,
                decades_out: decades,
                n: quantity(0, taus.map(|t| t[0])),
                d: quantity(1, taus.map(|t| t[1])),
                // A power law through the minima's losses has no irreducible term, so it
                // bends the wrong way beyond the data: a point value only, no interval.
                loss: Quantity {
                    value: point[2].exp(),
                    interval: None,
                    bootstrap_interval: None,
                },
            }
        })
        .collect();
    analysis.calibration = calibration;
    Ok(())
}

fn check_targets(targets: &[f64]) -> Result<()> {
    match targets.iter().find(|c| !(c.is_finite() && **c > 0.0)) {
        Some(c) => Err(Error::settings(format!(
            "budget {c}: budgets to predict at must be positive FLOP counts, e.g. 1e22"
        ))
        .within("budget")),
        None => Ok(()),
    }
}

/// One quantity from its ln point value, the bootstrap draws of it, and the form-error sd.
fn quantity(
    ln_value: f64,
    draws: &[[f64; 3]],
    k: usize,
    form_sd: Option<f64>,
    z: f64,
    settings: &IsoflopSettings,
) -> Quantity {
    let enough = !draws.is_empty() && draws.len() * 2 >= settings.bootstrap;
    let bootstrap_interval = enough.then(|| {
        percentile_interval(draws.iter().map(|d| d[k]).collect(), settings.level).map(f64::exp)
    });
    let calibrated = match (form_sd, enough.then(|| spread(draws, k)).flatten()) {
        (Some(form), Some(boot)) => {
            let half = z * (boot * boot + form * form).sqrt();
            Some([(ln_value - half).exp(), (ln_value + half).exp()])
        }
        _ => None,
    };
    Quantity {
        value: ln_value.exp(),
        interval: calibrated.or(bootstrap_interval),
        bootstrap_interval,
    }
}

/// One held-out (origin, budget) unit's errors and spreads, in ln units.
struct Unit {
    error: [f64; 3],
    sd: [f64; 3],
    distance: f64,
    weight: f64,
}

impl Unit {
    fn tau(&self, k: usize, z: f64) -> f64 {
        ((self.error[k] / z).powi(2) - self.sd[k].powi(2))
            .max(0.0)
            .sqrt()
            / self.distance.powf(GROWTH)
    }
}

/// Rolling-origin backtests over the budgets with a minimum: the widening τ per quantity.
fn calibrate(
    full: &Profiles,
    budgets: &[f64],
    minima: &Minima,
    settings: &IsoflopSettings,
) -> ForecastCalibration {
    let with_minimum: Vec<usize> = (0..budgets.len())
        .filter(|&i| minima[i].is_some())
        .collect();
    let mut result = ForecastCalibration {
        calibrated: false,
        reason: None,
        origins: Vec::new(),
        units: 0,
        max_distance_decades: 0.0,
        tau_n: 0.0,
        tau_d: 0.0,
        tau_loss: 0.0,
        coverage_bootstrap: None,
        coverage_calibrated: None,
    };
    if with_minimum.len() < MIN_BUDGETS {
        result.reason = Some(format!(
            "{} budgets have a minimum; calibration needs {MIN_BUDGETS}",
            with_minimum.len()
        ));
        return result;
    }
    let replicates = settings.bootstrap.clamp(1, ORIGIN_REPLICATES);
    let stop = &settings.interrupt;
    let observed_sd = full.replicates(&[], replicates, settings.seed, stop).minima;
    let mut units = Vec::new();
    for size in 3..with_minimum.len() {
        let cut = with_minimum[size - 1];
        let origin = Profiles {
            data: full.data,
            groups: full.groups[..=cut].to_vec(),
            shape: full.shape,
        };
        let held: Vec<usize> = with_minimum[size..].to_vec();
        let targets: Vec<f64> = held.iter().map(|&i| budgets[i]).collect();
        let Some(points) = predict_lines(&origin.budgets(), &origin.minima(0.0, None), &targets)
        else {
            continue;
        };
        let draws = origin.replicates(&targets, replicates, settings.seed, stop);
        result.origins.push(size);
        for ((&i, point), draws) in held.iter().zip(points).zip(&draws.predictions) {
            let observed = minima[i].expect("held-out budgets have a minimum");
            let sd = |k: usize| {
                let own = spread(draws, k).unwrap_or(0.0);
                let obs = spread(&observed_sd[i], k).unwrap_or(0.0);
                (own * own + obs * obs).sqrt()
            };
            units.push(Unit {
                error: [0, 1, 2].map(|k| observed[k] - point[k]),
                sd: [sd(0), sd(1), sd(2)],
                distance: (budgets[i] / budgets[cut]).log10().max(1e-9),
                weight: 1.0,
            });
        }
    }
    finish(&mut result, &units, settings.level);
    result
}

fn finish(result: &mut ForecastCalibration, units: &[Unit], level: f64) {
    result.units = units.len();
    result.max_distance_decades = units.iter().map(|u| u.distance).fold(0.0, f64::max);
    if units.len() < MIN_UNITS {
        result.reason = Some(format!(
            "the rolling origins held out {} (origin, budget) units; calibration needs {MIN_UNITS}",
            units.len()
        ));
        return;
    }
    let z = normal_quantile(0.5 + level / 2.0);
    let tau = |k: usize| {
        let mut pairs: Vec<(f64, f64)> = units.iter().map(|u| (u.tau(k, z), u.weight)).collect();
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        weighted_quantile(&pairs, level)
    };
    result.tau_n = tau(0);
    result.tau_d = tau(1);
    result.tau_loss = tau(2);
    let total: f64 = units.iter().map(|u| u.weight).sum();
    let covered = |t: f64| {
        units
            .iter()
            .filter(|u| u.tau(1, z) <= t * (1.0 + 1e-12))
            .map(|u| u.weight)
            .sum::<f64>()
            / total
    };
    result.coverage_bootstrap = Some(covered(0.0));
    result.coverage_calibrated = Some(covered(result.tau_d));
    result.calibrated = true;
}

/// One held-out budget of an IsoFLOP backtest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct HeldOutBudget {
    /// The prediction from the training budgets.
    pub predicted: BudgetPrediction,
    /// The budget's own minimum (same shape), absent when it has none.
    #[serde(
        rename = "observed_N",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub observed_n: Option<f64>,
    #[serde(
        rename = "observed_D",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub observed_d: Option<f64>,
    /// ln observed − ln predicted.
    #[serde(
        rename = "ln_error_N",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub ln_error_n: Option<f64>,
    #[serde(
        rename = "ln_error_D",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub ln_error_d: Option<f64>,
    #[serde(rename = "covered_N", default, skip_serializing_if = "Option::is_none")]
    pub covered_n: Option<bool>,
    #[serde(rename = "covered_D", default, skip_serializing_if = "Option::is_none")]
    pub covered_d: Option<bool>,
}

/// `isoflop` fitted on all but the largest budgets, scored on them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IsoflopBacktest {
    /// The analysis of the training budgets, with its predictions at the held-out ones.
    pub training: Isoflop,
    pub held_out: Vec<HeldOutBudget>,
    #[serde(
        rename = "mean_abs_ln_error_N",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub mean_abs_ln_error_n: Option<f64>,
    #[serde(
        rename = "mean_abs_ln_error_D",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub mean_abs_ln_error_d: Option<f64>,
    /// Share of the scored held-out budgets inside their intervals.
    #[serde(
        rename = "coverage_N",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub coverage_n: Option<f64>,
    #[serde(
        rename = "coverage_D",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub coverage_d: Option<f64>,
}

/// Fits the exponents on all but the `hold_out` largest budgets (the shape chosen on those
/// alone), predicts the held-out budgets' N* and D*, and scores them against the held-out
/// budgets' own minima under the same shape.
pub fn isoflop_backtest(
    data: &IsoflopData,
    settings: &IsoflopSettings,
    hold_out: usize,
) -> Result<IsoflopBacktest> {
    super::validate(data, settings)?;
    let groups = group_by_budget(&data.compute, settings.tolerance);
    if hold_out == 0 || hold_out + 2 > groups.len() {
        return Err(Error::settings(format!(
            "{hold_out} held-out budgets of {}: hold out at least 1 and keep at least 2 budgets to fit",
            groups.len()
        ))
        .within("backtest"));
    }
    let (train, _) = groups.split_at(groups.len() - hold_out);
    let rows: Vec<usize> = train.iter().flatten().copied().collect();
    let training_data = subset(data, &rows);
    let full = Profiles {
        data,
        groups: groups.clone(),
        shape: Shape::Cubic,
    };
    let targets: Vec<f64> = full.budgets()[train.len()..].to_vec();
    let training = super::isoflop(
        &training_data,
        &IsoflopSettings {
            predict_at: targets,
            ..settings.clone()
        },
    )?;
    let observed = Profiles {
        shape: training.shape,
        ..full
    }
    .minima(0.0, None);
    let held_out: Vec<HeldOutBudget> = training
        .predictions
        .iter()
        .zip(&observed[train.len()..])
        .map(|(prediction, observed)| score(prediction, observed))
        .collect();
    Ok(summarise(training, held_out))
}

pub(crate) fn subset(data: &IsoflopData, rows: &[usize]) -> IsoflopData {
    let pick = |column: &[f64]| rows.iter().map(|&r| column[r]).collect::<Vec<f64>>();
    IsoflopData {
        compute: pick(&data.compute),
        size: pick(&data.size),
        loss: pick(&data.loss),
        tokens: data.tokens.as_deref().map(pick),
    }
}

fn score(prediction: &BudgetPrediction, observed: &Option<[f64; 3]>) -> HeldOutBudget {
    let error = |q: &Quantity, k: usize| observed.map(|o| o[k] - q.value.ln());
    let covered = |q: &Quantity, k: usize| {
        let value = observed.map(|o| o[k].exp())?;
        q.interval.map(|[lo, hi]| lo <= value && value <= hi)
    };
    HeldOutBudget {
        predicted: prediction.clone(),
        observed_n: observed.map(|o| o[0].exp()),
        observed_d: observed.map(|o| o[1].exp()),
        ln_error_n: error(&prediction.n, 0),
        ln_error_d: error(&prediction.d, 1),
        covered_n: covered(&prediction.n, 0),
        covered_d: covered(&prediction.d, 1),
    }
}

fn summarise(training: Isoflop, held_out: Vec<HeldOutBudget>) -> IsoflopBacktest {
    let mean = |values: Vec<f64>| {
        (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
    };
    let abs = |f: fn(&HeldOutBudget) -> Option<f64>| {
        mean(held_out.iter().filter_map(f).map(f64::abs).collect())
    };
    let share = |f: fn(&HeldOutBudget) -> Option<bool>| {
        mean(
            held_out
                .iter()
                .filter_map(f)
                .map(|c| if c { 1.0 } else { 0.0 })
                .collect(),
        )
    };
    IsoflopBacktest {
        mean_abs_ln_error_n: abs(|h| h.ln_error_n),
        mean_abs_ln_error_d: abs(|h| h.ln_error_d),
        coverage_n: share(|h| h.covered_n),
        coverage_d: share(|h| h.covered_d),
        training,
        held_out,
    }
}
