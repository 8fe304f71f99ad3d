//! What a fit's diagnostics say that matters wherever its predictions are used: a parameter at
//! a bound, a barely determined combination (an ill-conditioned Hessian), no covariance (not
//! positive definite, or as many parameters as rows), no convergence, a rival optimum. The
//! fit's `warnings` word these once, where the fit is made; a [`FitCaveat`] is the same fact as
//! a value, derived from the fit's own fields by [`caveats`] (the one place for the rule), so
//! that `predict`, `optimal`, `design` and the report carry it in their results and each front
//! end words it its own way. A test checks that every caveat has its warning among the fit's.

use serde::{Deserialize, Serialize};

use super::diagnostics::{ill_conditioned, near_tie};
use super::result::FitResult;

/// Which end of its range a parameter sits at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BoundSide {
    Lower,
    Upper,
}

impl BoundSide {
    pub fn name(self) -> &'static str {
        match self {
            BoundSide::Lower => "lower",
            BoundSide::Upper => "upper",
        }
    }
}

/// A fact about a fit that predictions from it inherit (serialised with its `kind`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FitCaveat {
    /// A free parameter ended at a bound of its range: the data push it there, its standard
    /// error is not meaningful, and predictions beyond the data lean on the bound's value.
    AtBound {
        param: String,
        side: BoundSide,
        /// The bound (None when the file holds no finite bound on that side).
        bound: Option<f64>,
        value: f64,
    },
    /// The Hessian scaled to unit diagonal has a condition number above
    /// [`super::diagnostics::ILL_CONDITIONED`]: some combination of parameters is barely
    /// determined.
    IllConditioned { condition: f64 },
    /// No covariance: the Hessian (or JᵀWJ) at the optimum is not positive definite.
    NotPositiveDefinite,
    /// No covariance: as many free parameters as rows, so the law interpolates the data.
    Interpolates { params: usize },
    /// The best optimum did not converge (or ran away from its starts).
    NotConverged { termination: String },
    /// A different optimum's objective is within [`super::diagnostics::NEAR_TIE`] (relative)
    /// of the best: the parameters are not uniquely determined.
    RivalOptimum { relative_gap: f64 },
}

/// The caveats of `fit`, in the order its warnings come: convergence, bounds, rival optima,
/// the covariance, the conditioning.
pub fn caveats(fit: &FitResult) -> Vec<FitCaveat> {
    let mut out = Vec::new();
    if !fit.converged {
        out.push(FitCaveat::NotConverged {
            termination: fit.termination.clone(),
        });
    }
    for (name, p) in fit.params.iter().filter(|(_, p)| p.at_bound && !p.fixed) {
        let distance = |bound: Option<f64>| bound.map_or(f64::INFINITY, |b| (p.value - b).abs());
        let side = if distance(p.lower) <= distance(p.upper) {
            BoundSide::Lower
        } else {
            BoundSide::Upper
        };
        let bound = match side {
            BoundSide::Lower => p.lower,
            BoundSide::Upper => p.upper,
        };
        out.push(FitCaveat::AtBound {
            param: name.clone(),
            side,
            bound,
            value: p.value,
        });
    }
    if let Some(gap) = fit.optima.relative_gap.filter(|g| near_tie(*g)) {
        out.push(FitCaveat::RivalOptimum { relative_gap: gap });
    }
    if fit.covariance.is_none() {
        let free = fit.params.iter().filter(|(_, p)| !p.fixed).count();
        out.push(if fit.stats.dof == 0 {
            FitCaveat::Interpolates { params: free }
        } else {
            FitCaveat::NotPositiveDefinite
        });
    }
    if let Some(c) = fit.condition_number.filter(|c| ill_conditioned(*c)) {
        out.push(FitCaveat::IllConditioned { condition: c });
    }
    out
}

impl FitResult {
    /// What this fit's predictions inherit from its diagnostics ([`caveats`]).
    pub fn caveats(&self) -> Vec<FitCaveat> {
        caveats(self)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fit::{fit, FitData, FitSettings};
    use crate::law::{catalog, Law};

    /// The warning among `warnings` that says what `caveat` says (the words are the fit's own,
    /// `diagnostics.rs` and `fit/mod.rs`).
    fn says(caveat: &FitCaveat, warning: &str) -> bool {
        match caveat {
            FitCaveat::AtBound { param, .. } => {
                warning.starts_with(&format!("{param} = ")) && warning.contains("sits at a bound")
            }
            FitCaveat::IllConditioned { .. } => warning.contains("is ill-conditioned"),
            FitCaveat::NotPositiveDefinite => warning.contains("not positive definite"),
            FitCaveat::Interpolates { params } => {
                warning.starts_with(&format!("as many parameters ({params}) as rows"))
            }
            FitCaveat::NotConverged { .. } => {
                warning.contains("did not converge")
                    || warning.contains("ran far beyond its starts")
                    || warning.contains("collapsed towards 0")
            }
            FitCaveat::RivalOptimum { .. } => warning.contains("a different optimum is within"),
        }
    }

    /// Whether `warning` is one of the warnings a caveat stands for.
    fn is_caveat_warning(warning: &str) -> bool {
        [
            "sits at a bound",
            "is ill-conditioned",
            "not positive definite",
            "as rows: the law interpolates",
            "did not converge",
            "a different optimum is within",
        ]
        .iter()
        .any(|w| warning.contains(w))
    }

    /// Each caveat has its warning, and each warning of those kinds its caveat.
    fn assert_agree(result: &FitResult) {
        let caveats = result.caveats();
        for caveat in &caveats {
            assert!(
                result.warnings.iter().any(|w| says(caveat, &w.to_string())),
                "{caveat:?} has no warning among {:#?}",
                result.warnings
            );
        }
        let warnings = result.warnings.iter().map(ToString::to_string);
        for warning in warnings.filter(|w| is_caveat_warning(w)) {
            assert!(
                caveats.iter().any(|c| says(c, &warning)),
                "'{warning}' has no caveat among {caveats:?}"
            );
        }
    }

    /// Chinchilla's law and a 5 × 4 grid of runs drawn from Epoch AI's parameters with a
    /// little deterministic scatter (shared with the prediction job's tests).
    pub(crate) fn chinchilla_data() -> (Law, FitData) {
        let law = catalog::lookup("chinchilla").unwrap();
        let truth = [1.82, 482.0, 0.348, 2085.0, 0.366];
        let (mut n, mut d, mut loss) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..5 {
            for j in 0..4 {
                let (size, tokens) = (1e8 * 3f64.powi(i), 2e9 * 4f64.powi(j));
                let scatter = 1.0 + 0.004 * ((i * 4 + j) as f64 * 1.7).sin();
                n.push(size);
                d.push(tokens);
                loss.push(law.eval(&truth, &[size, tokens]) * scatter);
            }
        }
        let data = FitData {
            variables: vec![n, d],
            target: loss,
            weights: None,
            trials: None,
            exposure: None,
        };
        (law, data)
    }

    #[test]
    fn a_well_determined_fit_has_no_caveat() {
        let (law, data) = chinchilla_data();
        let result = fit(&law, &data, &FitSettings::default()).unwrap();
        assert_eq!(result.caveats(), Vec::new(), "{:#?}", result.warnings);
        assert_agree(&result);
    }

    /// E held above its best value by a lower bound ends at that bound: a caveat naming E, its
    /// lower bound and value, which the fit's warnings say too; it round-trips through JSON.
    #[test]
    fn a_parameter_pushed_to_its_bound_is_a_caveat() {
        let (law, data) = chinchilla_data();
        let mut settings = FitSettings::default();
        settings
            .bounds
            .insert("E".into(), crate::fit::Bounds::between(1.95, 3.0));
        let result = fit(&law, &data, &settings).unwrap();
        let caveats = result.caveats();
        let at_bound: Vec<&FitCaveat> = caveats
            .iter()
            .filter(|c| matches!(c, FitCaveat::AtBound { .. }))
            .collect();
        assert_eq!(at_bound.len(), 1, "{caveats:?}");
        let FitCaveat::AtBound {
            param,
            side,
            bound,
            value,
        } = at_bound[0]
        else {
            unreachable!()
        };
        assert_eq!(
            (param.as_str(), *side, *bound),
            ("E", BoundSide::Lower, Some(1.95))
        );
        assert!((value - 1.95).abs() < 1e-6, "{value}");
        assert_agree(&result);
        let json = serde_json::to_string(at_bound[0]).unwrap();
        assert!(
            json.starts_with(r#"{"kind":"at_bound","param":"E","side":"lower""#),
            "{json}"
        );
        assert_eq!(
            &serde_json::from_str::<FitCaveat>(&json).unwrap(),
            at_bound[0]
        );
    }

    /// As many parameters as rows: no covariance, the law interpolates.
    #[test]
    fn an_interpolating_fit_is_a_caveat() {
        let law = Law::from_formula("E + A*N^-alpha", &|v| v == "N").unwrap();
        let data = FitData {
            variables: vec![vec![1e7, 1e8, 1e9]],
            target: vec![3.1, 2.6, 2.35],
            weights: None,
            trials: None,
            exposure: None,
        };
        let result = fit(&law, &data, &FitSettings::default()).unwrap();
        assert!(
            result
                .caveats()
                .contains(&FitCaveat::Interpolates { params: 3 }),
            "{:?}",
            result.caveats()
        );
        assert_agree(&result);
    }

    /// Two scales where the data see only their product: a flat direction, which the fit's
    /// covariance or conditioning shows, as a caveat and as a warning.
    #[test]
    fn a_flat_direction_is_a_caveat() {
        let law = Law::from_formula("E + A*B*N^-alpha", &|v| v == "N").unwrap();
        let n: Vec<f64> = (0..12).map(|i| 1e7 * 2f64.powi(i)).collect();
        let target = n
            .iter()
            .enumerate()
            .map(|(i, n)| (1.8 + 400.0 * n.powf(-0.3)) * (1.0 + 0.003 * (i as f64 * 1.3).sin()))
            .collect();
        let data = FitData {
            variables: vec![n],
            target,
            weights: None,
            trials: None,
            exposure: None,
        };
        let result = fit(&law, &data, &FitSettings::default()).unwrap();
        let caveats = result.caveats();
        assert!(
            caveats.iter().any(|c| matches!(
                c,
                FitCaveat::NotPositiveDefinite | FitCaveat::IllConditioned { .. }
            )),
            "{caveats:?} {:#?}",
            result.warnings
        );
        assert_agree(&result);
    }

    /// The rules read the fit's fields: an edited fit's caveats follow its fields.
    #[test]
    fn the_caveats_follow_the_fields() {
        let (law, data) = chinchilla_data();
        let mut result = fit(&law, &data, &FitSettings::default()).unwrap();
        result.converged = false;
        result.termination = "iteration limit reached".into();
        result.condition_number = Some(1e14);
        result.covariance = None;
        result.optima.relative_gap = Some(1e-5);
        assert_eq!(
            result.caveats(),
            vec![
                FitCaveat::NotConverged {
                    termination: "iteration limit reached".into()
                },
                FitCaveat::RivalOptimum { relative_gap: 1e-5 },
                FitCaveat::NotPositiveDefinite,
                FitCaveat::IllConditioned { condition: 1e14 },
            ]
        );
    }
}
