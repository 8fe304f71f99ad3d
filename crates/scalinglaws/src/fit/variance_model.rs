//! The variance model of a heteroscedastic fit, as asked ([`Heteroscedastic`]) and as fitted
//! ([`VarianceModel`], σ(x) = σ0·(x/x0)^s), apart from the fit that finds it (`variance.rs`):
//! a fit result holds a fitted model and the fit file checks it, while the fit of the model
//! runs fits and reads their results, so the model sits below result.rs, file.rs and
//! variance.rs. Old paths stay: `variance::{Heteroscedastic, VarianceModel}`.

use serde::{Deserialize, Serialize};

use super::{data_error, FitData, ScaleRule};
use crate::error::Result;
use crate::law::Law;

/// The variance model asked of a fit: σ varies with the column `by`, computed at a row or a
/// new point by `rule` from the law's variables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Heteroscedastic {
    /// The column σ varies with (a variable of the law, or a column such as C = 6·N·D).
    pub by: String,
    pub rule: ScaleRule,
}

/// The fitted variance model σ(x) = σ0·(x/x0)^s of a heteroscedastic fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VarianceModel {
    pub method: String,
    pub by: String,
    pub rule: ScaleRule,
    /// Weighted geometric mean of x over the fitted rows.
    pub x0: f64,
    /// Residual sd at x0 in the fitted space, √(Σwᵢrᵢ²(xᵢ/x0)^(−2s)/(W − k)) (the fit's
    /// `stats.residual_scale`).
    pub sigma0: f64,
    pub s: f64,
    /// From the observed information of the joint likelihood (None when it is singular).
    pub s_stderr: Option<f64>,
    /// 2·(L(0) − L(ŝ)), the likelihood-ratio statistic of s = 0, and its χ²₁ p-value.
    pub lr_statistic: f64,
    pub lr_p_value: f64,
    /// Log-likelihood of the homoscedastic fit (s = 0) the test compares with.
    pub log_likelihood_homoscedastic: f64,
    /// Profile evaluations (weighted refits) the search for ŝ took.
    pub evaluations: usize,
    /// ŝ reached the largest |s| tried: the data push it further.
    pub at_limit: bool,
}

impl VarianceModel {
    /// σ(x)/σ0 = (x/x0)^s.
    pub fn relative_sd(&self, x: f64) -> f64 {
        (x / self.x0).powf(self.s)
    }

    /// σ in the fitted space at a point (one value per law variable); None when its x is not
    /// a positive number.
    pub fn sd_at(&self, law: &Law, point: &[f64]) -> Option<f64> {
        let x = self.rule.at(law, point)?;
        (x.is_finite() && x > 0.0).then(|| self.sigma0 * self.relative_sd(x))
    }

    /// `data` with its weights multiplied by the model's inverse variances (x0 and s held):
    /// the fixed-weight problem a heteroscedastic fit ends on (profiles refit it).
    pub fn weighted_data(&self, law: &Law, data: &FitData) -> Result<FitData> {
        let by = Heteroscedastic {
            by: self.by.clone(),
            rule: self.rule.clone(),
        };
        let x = scale_of_rows(law, data, &by)?;
        let log_ratio: Vec<f64> = x.iter().map(|v| (v / self.x0).ln()).collect();
        Ok(reweighted(data, &user_weights(data), &log_ratio, self.s))
    }
}

/// x of every row by the model's rule, each a positive number.
pub(super) fn scale_of_rows(law: &Law, data: &FitData, by: &Heteroscedastic) -> Result<Vec<f64>> {
    (0..data.target.len())
        .map(|row| {
            let point: Vec<f64> = data.variables.iter().map(|c| c[row]).collect();
            match by.rule.at(law, &point) {
                Some(x) if x.is_finite() && x > 0.0 => Ok(x),
                other => Err(data_error(
                    Some(row),
                    &by.by,
                    format!(
                        "{} is not a positive number, but the heteroscedastic variance model takes log({})",
                        other.map_or("missing".to_string(), |x| x.to_string()),
                        by.by
                    ),
                    "remove the row, or let sigma vary with a positive column",
                )),
            }
        })
        .collect()
}

pub(super) fn user_weights(data: &FitData) -> Vec<f64> {
    data.weights
        .clone()
        .unwrap_or_else(|| vec![1.0; data.target.len()])
}

pub(super) fn reweighted(data: &FitData, weights: &[f64], log_ratio: &[f64], s: f64) -> FitData {
    FitData {
        variables: data.variables.clone(),
        target: data.target.clone(),
        weights: Some(
            weights
                .iter()
                .zip(log_ratio)
                .map(|(w, l)| w * (-2.0 * s * l).exp())
                .collect(),
        ),
        trials: data.trials.clone(),
        exposure: data.exposure.clone(),
    }
}
