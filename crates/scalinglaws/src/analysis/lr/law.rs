//! The law of the optimal learning rate over cells: `loglinear`,
//! ln lr* = c + a·ln(N/N₀) + b·ln(D/D₀) (Step Law, Li et al. 2025: lr* = C·N^a·D^b), or
//! `curved`, which adds a2·ln²(N/N₀) + b2·ln²(D/D₀) (the upward bend at larger scales of the seed
//! paper on LR transfer). N₀ and D₀ are the geometric means of the fitted cells, so that c is
//! the log-LR at the centre of the data and the linear and quadratic terms are nearly
//! uncorrelated. A variable with one value in the data has no term (and a quadratic term needs
//! three values).
//!
//! Over cells the law is fitted by weighted least squares on the cells' ln lr_opt with weights
//! 1/se² (their delta-method standard errors), the scale estimated from the weighted residuals
//! (s² = χ²/dof), t intervals. The curvature test is the F test of the nested forms.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::stats::{f_sf, t_quantile};

/// The shape of the law.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    /// ln lr* linear in ln N and ln D.
    Loglinear,
    /// With squared logs (the bend of learning-rate transfer).
    Curved,
}

impl Form {
    pub const ALL: [Form; 2] = [Form::Loglinear, Form::Curved];

    pub fn name(self) -> &'static str {
        match self {
            Form::Loglinear => "loglinear",
            Form::Curved => "curved",
        }
    }

    pub fn from_name(name: &str) -> Option<Form> {
        Form::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// How the law is estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Weighted least squares on the per-cell optima.
    Cells,
    /// One fit over every run near each cell's optimum (see `joint.rs`).
    Joint,
}

impl Method {
    pub const ALL: [Method; 2] = [Method::Joint, Method::Cells];

    pub fn name(self) -> &'static str {
        match self {
            Method::Cells => "cells",
            Method::Joint => "joint",
        }
    }

    pub fn from_name(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Term {
    Const,
    LogN,
    LogD,
    LogN2,
    LogD2,
}

impl Term {
    fn name(self) -> &'static str {
        match self {
            Term::Const => "c",
            Term::LogN => "a",
            Term::LogD => "b",
            Term::LogN2 => "a2",
            Term::LogD2 => "b2",
        }
    }

    fn is_curvature(self) -> bool {
        matches!(self, Term::LogN2 | Term::LogD2)
    }
}

/// Which terms a law has and where its logs are centred.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Design {
    terms: Vec<Term>,
    pub n0: f64,
    pub d0: f64,
    /// The one N (D) of the points when they hold one only (the law then has no ln N term).
    only_n: Option<f64>,
    only_d: Option<f64>,
}

impl Design {
    /// The terms `form` can have on cells at these (N, D), centred at `centre` (N₀, D₀) or,
    /// without one, at the geometric means of the points.
    pub fn new(form: Form, points: &[(f64, f64)], centre: Option<(f64, f64)>) -> Design {
        let distinct = |values: Vec<f64>| {
            let mut keys: Vec<i64> = values.iter().map(|v| super::cells::key(*v)).collect();
            keys.sort_unstable();
            keys.dedup();
            keys.len()
        };
        let n_values = distinct(points.iter().map(|p| p.0).collect());
        let d_values = distinct(points.iter().map(|p| p.1).collect());
        let mut terms = vec![Term::Const];
        if n_values >= 2 {
            terms.push(Term::LogN);
        }
        if d_values >= 2 {
            terms.push(Term::LogD);
        }
        if form == Form::Curved {
            if n_values >= 3 {
                terms.push(Term::LogN2);
            }
            if d_values >= 3 {
                terms.push(Term::LogD2);
            }
        }
        let mean_log = |f: fn(&(f64, f64)) -> f64| {
            (points.iter().map(|p| f(p).ln()).sum::<f64>() / points.len().max(1) as f64).exp()
        };
        let (n0, d0) = centre.unwrap_or_else(|| (mean_log(|p| p.0), mean_log(|p| p.1)));
        let only = |count: usize, f: fn(&(f64, f64)) -> f64| {
            (count == 1).then(|| points.first().map(f)).flatten()
        };
        Design {
            terms,
            n0,
            d0,
            only_n: only(n_values, |p| p.0),
            only_d: only(d_values, |p| p.1),
        }
    }

    pub fn len(&self) -> usize {
        self.terms.len()
    }

    /// The regressors of the law at (N, D).
    pub fn features(&self, n: f64, d: f64) -> Vec<f64> {
        let (u, v) = ((n / self.n0).ln(), (d / self.d0).ln());
        self.terms
            .iter()
            .map(|term| match term {
                Term::Const => 1.0,
                Term::LogN => u,
                Term::LogD => v,
                Term::LogN2 => u * u,
                Term::LogD2 => v * v,
            })
            .collect()
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.terms.iter().map(|t| t.name()).collect()
    }

    /// The curvature terms of this design.
    pub fn curvature_names(&self) -> Vec<String> {
        self.terms
            .iter()
            .filter(|t| t.is_curvature())
            .map(|t| t.name().to_string())
            .collect()
    }

    /// Why the law of `quantity` (lr*, B*) cannot predict at (N, D): it has no ln N term (the
    /// data hold one N) and N is another, or likewise for D. A law without the term would
    /// predict the same value at every N with an interval that knows nothing of how it moves
    /// with N: wrong in silence.
    pub fn unmeasured_at(&self, n: f64, d: f64, quantity: &str) -> Option<String> {
        let key = super::cells::key;
        let unmeasured = |only: Option<f64>, x: f64, name: &str| {
            let only = only.filter(|o| key(*o) != key(x))?;
            Some(format!(
                "{name} = {x:e} (the cells the law was fitted on are all at {name} = {only:e}, so \
                 how {quantity} moves with {name} is not measured)"
            ))
        };
        let why: Vec<String> = [
            unmeasured(self.only_n, n, "N"),
            unmeasured(self.only_d, d, "D"),
        ]
        .into_iter()
        .flatten()
        .collect();
        (!why.is_empty()).then(|| why.join(" and "))
    }

    /// What the design leaves out, and why.
    pub fn missing(&self, form: Form) -> Vec<String> {
        let has = |t: Term| self.terms.contains(&t);
        let mut missing = Vec::new();
        if !has(Term::LogN) {
            missing.push("a: one model size N in the data".to_string());
        }
        if !has(Term::LogD) {
            missing.push("b: one token count D in the data".to_string());
        }
        if form == Form::Curved {
            if has(Term::LogN) && !has(Term::LogN2) {
                missing.push("a2: fewer than 3 model sizes".to_string());
            }
            if has(Term::LogD) && !has(Term::LogD2) {
                missing.push("b2: fewer than 3 token counts".to_string());
            }
        }
        missing
    }
}

/// One coefficient with its standard error and interval.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "LrParam")]
pub struct Param {
    /// The coefficient's name (`c`, `a`, `b`, ...).
    pub name: String,
    pub value: f64,
    /// Standard error.
    pub se: f64,
    /// Confidence interval at the analysis's `level`.
    pub ci: [f64; 2],
}

/// The centre of the logs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "LrReference")]
pub struct Reference {
    /// Model parameters N.
    #[serde(rename = "N")]
    pub n: f64,
    /// Training tokens D.
    #[serde(rename = "D")]
    pub d: f64,
}

/// A fitted law of the optimal LR.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct LrLaw {
    /// Fitted over the cells' optima, or jointly to every run.
    pub method: Method,
    pub form: Form,
    /// ln lr* = c + a·ln(N/N₀) + b·ln(D/D₀) [+ a2·ln²(N/N₀) + b2·ln²(D/D₀)].
    pub formula: String,
    /// N₀ and D₀ of the formula.
    pub reference: Reference,
    /// The coefficients, in the formula's order.
    pub params: Vec<Param>,
    /// For the loglinear form: lr* = coef·N^a·D^b, with its interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coef: Option<f64>,
    /// The interval of `coef`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coef_ci: Option<[f64; 2]>,
    /// Cells (and, for the joint fit, runs) the law was fitted to.
    pub cells: usize,
    /// Runs the joint fit used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<usize>,
    /// Degrees of freedom.
    pub dof: usize,
    /// Residual scale: s = √(χ²/dof) of the weighted cell fit (1 when the cells' standard
    /// errors explain the scatter), or the loss noise σ of the joint fit.
    pub scale: f64,
    /// The joint fit's curvature law ln k(N, D) = k0 + kN·ln(N/N₀) + kD·ln(D/D₀), k being the
    /// loss paid per squared e-fold of LR away from the optimum.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub curvature_law: Vec<Param>,
    /// Terms the data cannot support.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
    #[serde(skip)]
    pub(crate) design: Design,
    #[serde(skip)]
    pub(crate) covariance: Vec<Vec<f64>>,
    /// The t (or normal, dof = 0) quantile of the intervals.
    #[serde(skip)]
    pub(crate) quantile: f64,
    #[serde(skip)]
    pub objective: f64,
}

impl LrLaw {
    /// ln lr* at (N, D) and its standard error.
    pub fn log_lr(&self, n: f64, d: f64) -> (f64, f64) {
        let f = self.design.features(n, d);
        let mean = f.iter().zip(&self.params).map(|(x, p)| x * p.value).sum();
        (mean, quadratic_form(&self.covariance, &f).max(0.0).sqrt())
    }

    /// lr* at (N, D) with its confidence interval.
    pub fn predict(&self, n: f64, d: f64) -> (f64, [f64; 2]) {
        let (mean, se) = self.log_lr(n, d);
        let half = self.quantile * se;
        (mean.exp(), [(mean - half).exp(), (mean + half).exp()])
    }

    pub fn param(&self, name: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.name == name)
    }
}

/// The result of a (weighted) linear least-squares fit: coefficients, covariance (already
/// scaled), the objective and its degrees of freedom.
pub(crate) struct Linear {
    pub beta: Vec<f64>,
    pub covariance: Vec<Vec<f64>>,
    pub objective: f64,
    pub dof: usize,
}

impl Linear {
    /// The residual scale s = √(objective/dof) of a weighted fit (1 without spare degrees of
    /// freedom, where the weights are taken as exact).
    pub fn scale(&self) -> f64 {
        if self.dof > 0 {
            (self.objective / self.dof as f64).sqrt()
        } else {
            1.0
        }
    }
}

/// Weighted least squares of `y` on `features` with weights 1/se²; the covariance is scaled by
/// s² = χ²/dof (left unscaled when dof = 0).
pub(crate) fn weighted_fit(features: &[Vec<f64>], y: &[f64], se: &[f64]) -> Option<Linear> {
    let (m, p) = (y.len(), features.first()?.len());
    if m < p {
        return None;
    }
    let x = nalgebra::DMatrix::from_fn(m, p, |i, j| features[i][j] / se[i]);
    let z = nalgebra::DVector::from_iterator(m, y.iter().zip(se).map(|(v, s)| v / s));
    let normal = x.transpose() * &x;
    let inverse = normal.clone().try_inverse()?;
    let beta = &inverse * (x.transpose() * &z);
    let objective = (&z - &x * &beta).norm_squared();
    let dof = m - p;
    let scale = if dof > 0 { objective / dof as f64 } else { 1.0 };
    let covariance = (0..p)
        .map(|i| (0..p).map(|j| inverse[(i, j)] * scale).collect())
        .collect();
    beta.iter().all(|b| b.is_finite()).then(|| Linear {
        beta: beta.iter().copied().collect(),
        covariance,
        objective,
        dof,
    })
}

/// vᵀ M v.
pub(crate) fn quadratic_form(matrix: &[Vec<f64>], v: &[f64]) -> f64 {
    matrix
        .iter()
        .zip(v)
        .map(|(row, vi)| vi * row.iter().zip(v).map(|(m, vj)| m * vj).sum::<f64>())
        .sum()
}

/// The quantile of a two-sided interval at `level` with `dof` degrees of freedom (normal when
/// dof = 0, i.e. the scale is taken as known).
pub(crate) fn interval_quantile(level: f64, dof: usize) -> f64 {
    let df = if dof == 0 { f64::INFINITY } else { dof as f64 };
    t_quantile(0.5 + level / 2.0, df)
}

/// A law from its design and a linear fit's coefficients and covariance.
pub(crate) fn assemble(
    (method, form): (Method, Form),
    design: Design,
    fit: Linear,
    (cells, runs): (usize, Option<usize>),
    (scale, level): (f64, f64),
) -> LrLaw {
    let quantile = interval_quantile(level, fit.dof);
    let params: Vec<Param> = design
        .names()
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            let se = fit.covariance[i][i].max(0.0).sqrt();
            Param {
                name: name.to_string(),
                value: fit.beta[i],
                se,
                ci: [fit.beta[i] - quantile * se, fit.beta[i] + quantile * se],
            }
        })
        .collect();
    let missing = design.missing(form);
    let mut law = LrLaw {
        method,
        form,
        formula: formula(&design),
        reference: Reference {
            n: design.n0,
            d: design.d0,
        },
        params,
        coef: None,
        coef_ci: None,
        cells,
        runs,
        dof: fit.dof,
        scale,
        curvature_law: Vec::new(),
        missing,
        design,
        covariance: fit.covariance,
        quantile,
        objective: fit.objective,
    };
    if form == Form::Loglinear {
        // ln coef = c − a ln N₀ − b ln D₀: the law at N = D = 1.
        let f = law.design.features(1.0, 1.0);
        let mean: f64 = f.iter().zip(&law.params).map(|(x, p)| x * p.value).sum();
        let se = quadratic_form(&law.covariance, &f).max(0.0).sqrt();
        law.coef = Some(mean.exp());
        law.coef_ci = Some([(mean - quantile * se).exp(), (mean + quantile * se).exp()]);
    }
    law
}

fn formula(design: &Design) -> String {
    let mut text = "ln lr* = c".to_string();
    for name in design.names().into_iter().skip(1) {
        text.push_str(match name {
            "a" => " + a·ln(N/N0)",
            "b" => " + b·ln(D/D0)",
            "a2" => " + a2·ln²(N/N0)",
            _ => " + b2·ln²(D/D0)",
        });
    }
    text
}

/// The F test of the curved form against the loglinear one.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "LrCurvatureTest")]
pub struct CurvatureTest {
    /// The fit the test was made on.
    pub method: Method,
    /// The curvature terms tested.
    pub terms: Vec<String>,
    /// The F statistic.
    pub f: f64,
    /// Numerator and denominator degrees of freedom.
    pub df: [usize; 2],
    /// The test's p-value.
    pub p_value: f64,
    /// p below 1 − level: the straight law is rejected.
    pub significant: bool,
}

/// F = ((S₀ − S₁)/q) / (S₁/dof₁) for nested fits with objectives S₀ (straight) and S₁
/// (curved); None when the curved law adds no term or has no spare degrees of freedom.
pub(crate) fn curvature_test(
    method: Method,
    straight: &LrLaw,
    curved: &LrLaw,
    level: f64,
) -> Option<CurvatureTest> {
    let q = curved.params.len().checked_sub(straight.params.len())?;
    if q == 0 || curved.dof == 0 {
        return None;
    }
    let f = ((straight.objective - curved.objective).max(0.0) / q as f64)
        / (curved.objective / curved.dof as f64);
    let p_value = f_sf(f, q as f64, curved.dof as f64);
    Some(CurvatureTest {
        method,
        terms: curved.design.curvature_names(),
        f,
        df: [q, curved.dof],
        p_value,
        significant: p_value < 1.0 - level,
    })
}
