//! Compute and size formulas over a law's variables: how training FLOPs are counted from the
//! model size N and the tokens D (6·N·D by default: Kaplan et al. 2020, "Scaling Laws for Neural
//! Language Models", §2.1; Hoffmann et al. 2022), and how the total parameter count follows from
//! N and held variables (an MoE's experts). They are written in the law language, so the same
//! parser and evaluator serve them; the allocation search in [`crate::analysis::allocation`]
//! inverts them.

use super::expr::{parse_expr, Expr};
use crate::error::{clipped, short_number, Error, Result};

/// Halvings of a bracket: 64 take any range below 1e4 to f64 resolution.
pub(crate) const BISECTION_STEPS: usize = 64;

/// A formula over named quantities (FLOPs in N and D, total parameters in N and the held
/// variables).
#[derive(Debug, Clone)]
pub struct Formula {
    pub text: String,
    expr: Expr,
}

impl Formula {
    /// Parses `text`, which may use only the names in `allowed` and numbers.
    pub fn parse(text: &str, allowed: &[&str], what: &str) -> Result<Formula> {
        let expr = parse_expr(text)?;
        let mut unknown = None;
        expr.for_each_ident(&mut |name, position| {
            if !allowed.contains(&name) && unknown.is_none() {
                unknown = Some((name.to_string(), position));
            }
        });
        if let Some((name, position)) = unknown {
            return Err(Error::Formula {
                formula: text.to_string(),
                position,
                message: format!(
                    "'{name}' is not known here; {what} may use only {} and numbers",
                    allowed.join(", ")
                )
                .into(),
            });
        }
        Ok(Formula {
            text: text.to_string(),
            expr,
        })
    }

    pub(crate) fn eval(&self, lookup: &impl Fn(&str) -> Option<f64>) -> f64 {
        self.expr.eval_f64(lookup).unwrap_or(f64::NAN)
    }
}

/// How training compute depends on N and D.
#[derive(Debug, Clone)]
pub struct Flops {
    pub text: String,
    formula: Formula,
    /// Some(k) when the formula is k·N·D (the closed form applies).
    pub(crate) linear_factor: Option<f64>,
}

impl Flops {
    /// A FLOPs formula in N and D, e.g. "6*N*D" or "6*N*D + 2*N*2048".
    pub fn parse(text: &str) -> Result<Flops> {
        let formula = Formula::parse(text, &["N", "D"], "the FLOPs formula")?;
        let flops = Flops {
            text: text.to_string(),
            formula,
            linear_factor: None,
        };
        flops.check_grows()?;
        // k·N·D when doubling N or D doubles the FLOPs everywhere we probe.
        let k = flops.at(1.0, 1.0);
        let bilinear = [(3.0, 7.0), (1e9, 1e12), (2e11, 5e9)]
            .iter()
            .all(|&(n, d)| (flops.at(n, d) / (k * n * d) - 1.0).abs() < 1e-12);
        Ok(Flops {
            linear_factor: (k > 0.0 && bilinear).then_some(k),
            ..flops
        })
    }

    /// Compute is positive and grows with N and with D wherever we probe (models of 1e6 to 1e12
    /// parameters on 20 tokens a parameter): else no budget has an allocation, or every budget
    /// has one at an end of the search, and the formula is what to fix.
    fn check_grows(&self) -> Result<()> {
        for n in [1e6, 1e9, 1e12] {
            let d = 20.0 * n;
            let here = self.at(n, d);
            let fault = if !(here.is_finite() && here > 0.0) {
                Some(format!(
                    "gives {} at N = {n:e}, D = {d:e}",
                    short_number(here)
                ))
            } else if !(self.at(2.0 * n, d) > here) {
                Some(format!("does not grow with N (at N = {n:e}, D = {d:e})"))
            } else if !(self.at(n, 2.0 * d) > here) {
                Some(format!("does not grow with D (at N = {n:e}, D = {d:e})"))
            } else {
                None
            };
            if let Some(fault) = fault {
                return Err(Error::settings(format!(
                    "the FLOPs formula '{}' {fault}; compute must be positive and grow with both the model size N and the tokens D, as in 6*N*D",
                    clipped(&self.text, false)
                )));
            }
        }
        Ok(())
    }

    pub fn standard() -> Flops {
        Flops::parse("6*N*D").expect("a valid formula")
    }

    pub fn at(&self, n: f64, d: f64) -> f64 {
        self.formula.eval(&|name: &str| match name {
            "N" => Some(n),
            "D" => Some(d),
            _ => None,
        })
    }

    /// The D with FLOPs(N, D) = C, or None when no positive D reaches C.
    pub(crate) fn tokens_for(&self, n: f64, budget: f64) -> Option<f64> {
        if budget.is_nan() || budget <= 0.0 {
            return None;
        }
        if let Some(k) = self.linear_factor {
            return Some(budget / (k * n));
        }
        let f = |log_d: f64| self.at(n, log_d.exp()) - budget;
        let (lo, hi) = (-10.0f64, 120.0f64);
        if !(f(lo) < 0.0 && f(hi) > 0.0) {
            return None;
        }
        Some(bisect(lo, hi, BISECTION_STEPS, |x| f(x) < 0.0).exp())
    }
}

/// The boundary in [lo, hi] between where `below` holds (left) and where it does not.
pub(crate) fn bisect(mut lo: f64, mut hi: f64, steps: usize, below: impl Fn(f64) -> bool) -> f64 {
    for _ in 0..steps {
        let mid = 0.5 * (lo + hi);
        if below(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}
