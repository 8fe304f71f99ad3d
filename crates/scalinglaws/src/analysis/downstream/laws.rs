//! The two baselines every downstream paper compares with, fitted with the library's own
//! global search: per task, a logistic law in log compute between the task's chance level and
//! a fitted ceiling (the bounded sigmoid of Ruan et al. 2024 and Gadre et al. 2024, with the
//! floor held at chance), and the two-stage chain of Llama 3 (Dubey et al. 2024, §5.3.1),
//! the OLMo ladder (Bhagia et al. 2024) and Gadre et al. 2024: a Chinchilla loss law in N and D
//! (Hoffmann et al. 2022), then per task a sigmoid of accuracy in that loss. The binomial
//! likelihood is used where the number of questions is known, least squares otherwise. Both
//! return the prediction and the variance of its mean (delta method on the fit's covariance;
//! for the chain, both stages).

use std::collections::BTreeMap;

use crate::error::Result;
use crate::fit::{
    self, Bounds, Family, FamilyKind, FitData, FitResult, FitSettings, LossKind, Space,
};
use crate::law::{catalog, Law};
use crate::uncertainty::intervals::gradient_at;

/// A fitted law and what predicting with it needs.
pub struct Fitted {
    law: Law,
    result: FitResult,
}

impl Fitted {
    /// The law's value at `point` and the variance of that value from the parameters'
    /// covariance (infinite without one).
    pub fn predict(&self, point: &[f64]) -> Result<(f64, f64)> {
        let value = self.result.predict_with(&self.law, &[point.to_vec()])?[0];
        Ok((value, self.mean_variance(point)))
    }

    /// Whether the fit has a covariance (every parameter identified), so its predictions
    /// have a finite variance.
    pub fn identified(&self) -> bool {
        self.result.covariance.is_some()
    }

    fn mean_variance(&self, point: &[f64]) -> f64 {
        let Some(cov) = &self.result.covariance else {
            return f64::INFINITY;
        };
        let gradient = gradient_at(&self.law, &self.result.param_values(), point);
        let slots: Vec<Option<usize>> = cov.names.iter().map(|n| self.law.param_index(n)).collect();
        let mut variance = 0.0;
        for (a, pa) in slots.iter().enumerate() {
            for (b, pb) in slots.iter().enumerate() {
                if let (Some(pa), Some(pb)) = (pa, pb) {
                    variance += gradient[*pa] * cov.values[a][b] * gradient[*pb];
                }
            }
        }
        if variance.is_finite() {
            variance.max(0.0)
        } else {
            f64::INFINITY
        }
    }
}

/// Which way accuracy moves with the variable: up with log compute, down with loss.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Direction {
    LogCompute,
    Loss,
}

/// The sigmoid from `chance` to a fitted ceiling in `x` (compute, or loss), fitted to the
/// accuracies `y` (binomial with `questions` per evaluation when known), on `run`'s threads
/// and stopped by its interrupt.
pub fn fit_sigmoid(
    x: &[f64],
    y: &[f64],
    chance: f64,
    questions: Option<f64>,
    direction: Direction,
    run: &FitSettings,
) -> Result<Fitted> {
    let (formula, variable) = match direction {
        Direction::LogCompute => (
            format!("{chance} + (ceil - {chance})*sigmoid(k*(log(C) - m))"),
            "C",
        ),
        Direction::Loss => (
            format!("{chance} + (ceil - {chance})*sigmoid(k*(m - L))"),
            "L",
        ),
    };
    let law = Law::from_formula(&formula, &|name| name == variable)?;
    let locations: Vec<f64> = match direction {
        Direction::LogCompute => x.iter().map(|c| c.ln()).collect(),
        Direction::Loss => x.to_vec(),
    };
    let mut settings = sigmoid_settings(&locations, direction, questions.is_some());
    settings.threads = run.threads;
    settings.interrupt = run.interrupt.clone();
    let data = FitData {
        variables: vec![x.to_vec()],
        target: y.to_vec(),
        weights: None,
        trials: questions.map(|n| vec![n; y.len()]),
        exposure: None,
    };
    let result = fit::fit(&law, &data, &settings)?;
    Ok(Fitted { law, result })
}

/// Starts for the sigmoid's location at the quartiles of the data and beyond its end (where
/// an unsaturated task's midpoint lies), slopes from gentle to sharp, and a non-negative k.
fn sigmoid_settings(locations: &[f64], direction: Direction, binomial: bool) -> FitSettings {
    let mut sorted = locations.to_vec();
    sorted.sort_by(f64::total_cmp);
    let q = |p: f64| crate::fit::quantile(&sorted, p);
    let (lo, hi) = (q(0.0), q(1.0));
    let span = (hi - lo).max(1e-3);
    let beyond = match direction {
        Direction::LogCompute => [hi + 0.5 * span, hi + 2.0 * span],
        Direction::Loss => [lo - 0.5 * span, lo - 2.0 * span],
    };
    let m_grid = vec![q(0.25), q(0.5), q(0.75), beyond[0], beyond[1]];
    let k_grid: Vec<f64> = [0.3, 1.0, 3.0, 10.0].iter().map(|k| k / span).collect();
    let mut settings = FitSettings {
        loss: LossKind::Linear,
        space: Space::Linear,
        ..FitSettings::default()
    };
    settings.grids = BTreeMap::from([("m".to_string(), m_grid), ("k".to_string(), k_grid)]);
    settings.bounds = BTreeMap::from([(
        "k".to_string(),
        Bounds {
            lower: Some(0.0),
            upper: None,
        },
    )]);
    if binomial {
        settings.family = Some(Family::new(FamilyKind::Binomial));
    }
    settings
}

/// The first stage of the chain: the Chinchilla loss law fitted to each checkpoint's
/// (N, D, loss), under the field's standard protocol (Huber on log residuals), on `run`'s
/// threads and stopped by its interrupt.
pub fn fit_loss_law(
    params: &[f64],
    tokens: &[f64],
    loss: &[f64],
    run: &FitSettings,
) -> Result<Fitted> {
    let law = catalog::lookup("chinchilla")?;
    let data = FitData {
        variables: vec![params.to_vec(), tokens.to_vec()],
        target: loss.to_vec(),
        weights: None,
        trials: None,
        exposure: None,
    };
    let settings = FitSettings {
        threads: run.threads,
        interrupt: run.interrupt.clone(),
        ..FitSettings::default()
    };
    let result = fit::fit(&law, &data, &settings)?;
    Ok(Fitted { law, result })
}

/// The chain's prediction at a loss known only to a variance: the second stage's value, and
/// its variance from both stages (the loss's variance carried by the sigmoid's slope).
pub fn chain(stage2: &Fitted, loss: f64, loss_variance: f64) -> Result<(f64, f64)> {
    let (value, variance) = stage2.predict(&[loss])?;
    let h = 1e-4 * loss.abs().max(1e-3);
    let up = stage2.predict(&[loss + h])?.0;
    let down = stage2.predict(&[loss - h])?.0;
    let slope = (up - down) / (2.0 * h);
    Ok((value, variance + slope * slope * loss_variance))
}
