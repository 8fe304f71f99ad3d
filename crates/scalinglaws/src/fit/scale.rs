//! The scale of a point (the variable, or the product of two, that orders runs from small to
//! large): what rolling-origin backtests cut on, what calibrated intervals widen with, and what a
//! heteroscedastic variance model grows along. It lives in `fit` because the variance model of a
//! fit needs it; the calibration in `uncertainty` and the data recipe use it from here.

use serde::{Deserialize, Serialize};

use crate::law::Law;

use super::FitData;

/// How the scale of a new point is computed from the law's variables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ScaleRule {
    /// The scale is a variable of the law.
    Variable { name: String },
    /// The scale is factor · a · b of two variables (compute C = 6·N·D).
    Product { factor: f64, of: [String; 2] },
}

impl ScaleRule {
    /// The law's own scale, in which distances beyond the data are measured whatever columns
    /// the data carry: compute-equivalent 6·N·D for a law in N and D (the convention of
    /// Kaplan et al. 2020 and Hoffmann et al. 2022), the variable of a one-variable law, else
    /// None (the scale must then come from a column: [`ScaleRule::infer`]).
    pub fn of_law(law: &Law) -> Option<ScaleRule> {
        let has = |name: &str| law.variables.iter().any(|v| v == name);
        if has("N") && has("D") {
            return Some(ScaleRule::Product {
                factor: 6.0,
                of: ["N".into(), "D".into()],
            });
        }
        match law.variables.as_slice() {
            [only] => Some(ScaleRule::Variable { name: only.clone() }),
            _ => None,
        }
    }

    /// The scale of every row of `data` (None where a row's scale is not a positive number).
    pub fn of_rows(&self, law: &Law, data: &FitData) -> Vec<Option<f64>> {
        let mut point = vec![0.0; law.variables.len()];
        (0..data.target.len())
            .map(|row| {
                for (slot, column) in point.iter_mut().zip(&data.variables) {
                    *slot = column[row];
                }
                self.at(law, &point).filter(|s| s.is_finite() && *s > 0.0)
            })
            .collect()
    }

    /// The rule for a scale column given beside the law's variables: the column itself when
    /// it is a variable, else factor·N·D when the column is proportional to N·D on every row
    /// (to 1e-6), else None.
    pub fn infer(law: &Law, data: &FitData, by: &str, scale: &[f64]) -> Option<ScaleRule> {
        if let Some(i) = law.variables.iter().position(|v| v == by) {
            let same = data.variables[i]
                .iter()
                .zip(scale)
                .all(|(a, b)| (a - b).abs() <= 1e-9 * b.abs().max(1e-300));
            return same.then(|| ScaleRule::Variable { name: by.into() });
        }
        let n = law.variables.iter().position(|v| v == "N")?;
        let d = law.variables.iter().position(|v| v == "D")?;
        let ratios: Vec<f64> = scale
            .iter()
            .enumerate()
            .map(|(row, s)| s / (data.variables[n][row] * data.variables[d][row]))
            .collect();
        let factor = *ratios.first()?;
        let constant = factor.is_finite()
            && factor > 0.0
            && ratios.iter().all(|r| (r / factor - 1.0).abs() <= 1e-6);
        constant.then(|| ScaleRule::Product {
            factor,
            of: ["N".into(), "D".into()],
        })
    }

    /// The scale at a point (one value per law variable).
    pub fn at(&self, law: &Law, point: &[f64]) -> Option<f64> {
        let value = |name: &str| {
            law.variables
                .iter()
                .position(|v| v == name)
                .and_then(|i| point.get(i).copied())
        };
        match self {
            ScaleRule::Variable { name } => value(name),
            ScaleRule::Product { factor, of } => Some(factor * value(&of[0])? * value(&of[1])?),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            ScaleRule::Variable { name } => name.clone(),
            ScaleRule::Product { factor, of } => format!("{factor}*{}*{}", of[0], of[1]),
        }
    }
}
