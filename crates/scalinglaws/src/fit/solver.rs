//! A damped second-order minimiser (Levenberg–Marquardt on a local quadratic model, with
//! Nielsen's damping update: Nielsen 1999, "Damping parameter in Marquardt's method";
//! Madsen, Nielsen & Tingleff 2004, "Methods for non-linear least squares problems", §3.2).
//! The curvature is Gauss–Newton with IRLS weights (always positive semi-definite: fast and
//! safe far from an optimum), the exact Hessian (quadratic convergence near one), or, on large
//! data, the exact Hessian's first-order part (see `search.rs`).
//! Termination is returned as a value, never an error.

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};

use super::problem::LocalModel;

/// What the minimiser needs from a problem.
pub trait Objective {
    fn dim(&self) -> usize;
    /// The objective (infinite when undefined).
    fn value(&mut self, u: &[f64]) -> f64;
    /// Objective, gradient and curvature; None when not finite.
    fn model(&mut self, u: &[f64]) -> Option<LocalModel>;
}

/// Why a minimisation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    // The aliases read the names schedule fits wrote before they used this type (the Debug
    // name lowercased).
    /// The gradient is negligible relative to the objective.
    Gradient,
    /// The last accepted step changed the objective by less than the tolerance, or the Newton
    /// step would (see `below_tolerance`).
    Objective,
    /// The last step was negligible relative to the parameters.
    Step,
    /// The iteration budget ran out.
    #[serde(alias = "maxiterations")]
    MaxIterations,
    /// No step decreased the objective even with heavy damping.
    #[serde(alias = "noprogress")]
    NoProgress,
    /// The objective was not finite at the start.
    #[serde(alias = "notfinite")]
    NotFinite,
    /// A parameter ran off to infinity: no optimum there.
    Diverged,
    /// Stationary only because a parameter no longer affects the fit (a plateau, such as an
    /// exponential rate so large that its term is constant): a start that led nowhere.
    Plateau,
    /// A parameter ran orders of magnitude beyond every start (the data do not bound it).
    Runaway,
}

/// The name JSON uses (`max_iterations`, ...).
impl std::fmt::Display for Termination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Termination::Gradient => "gradient",
            Termination::Objective => "objective",
            Termination::Step => "step",
            Termination::MaxIterations => "max_iterations",
            Termination::NoProgress => "no_progress",
            Termination::NotFinite => "not_finite",
            Termination::Diverged => "diverged",
            Termination::Plateau => "plateau",
            Termination::Runaway => "runaway",
        })
    }
}

impl Termination {
    pub fn converged(self) -> bool {
        matches!(
            self,
            Termination::Gradient | Termination::Objective | Termination::Step
        )
    }

    pub fn describe(self) -> &'static str {
        match self {
            Termination::Gradient => "gradient below tolerance",
            Termination::Objective => "objective change below tolerance",
            Termination::Step => "step below tolerance",
            Termination::MaxIterations => "iteration limit reached",
            Termination::NoProgress => "no decreasing step found",
            Termination::NotFinite => "objective not finite at the start",
            Termination::Diverged => "a parameter diverged",
            Termination::Plateau => "stationary on a plateau where a parameter has no effect",
            Termination::Runaway => "a parameter ran far beyond its starts",
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub max_iterations: usize,
    /// Relative objective decrease below which an accepted step, or the Newton step the model
    /// predicts, ends the search.
    pub ftol: f64,
    /// Relative step size below which the search ends.
    pub xtol: f64,
    /// Gradient infinity norm, relative to the objective, below which the search ends.
    pub gtol: f64,
}

#[derive(Debug, Clone)]
pub struct Minimum {
    pub u: Vec<f64>,
    pub value: f64,
    pub iterations: usize,
    pub termination: Termination,
    /// The damping reached, to resume from (see [`minimize_from`]).
    pub damping: f64,
    /// The local model at `u` when the iteration budget ran out, to resume from.
    pub model: Option<LocalModel>,
}

/// Initial Levenberg–Marquardt damping, relative to the curvature's diagonal.
pub const INITIAL_DAMPING: f64 = 1e-3;

const MAX_DAMPING: f64 = 1e16;

/// Relative changes of the objective below this are rounding noise of its sum.
const NOISE: f64 = 1e-9;

/// Minimises from `u0`.
pub fn minimize(objective: &mut impl Objective, u0: &[f64], options: &Options) -> Minimum {
    minimize_from(objective, u0, options, INITIAL_DAMPING, None)
}

/// Minimises from `u0` with a given initial damping (to resume an earlier run).
pub fn minimize_from(
    objective: &mut impl Objective,
    u0: &[f64],
    options: &Options,
    initial_damping: f64,
    model_at_u0: Option<LocalModel>,
) -> Minimum {
    minimize_gated(
        objective,
        u0,
        options,
        initial_damping,
        model_at_u0,
        Gate::NONE,
    )
}

/// When a small step or a small objective change may end a run as converged: only where the
/// [`scaled_gradient`] is at most `gradient`, or the objective is at most `value` (residuals at
/// the rounding level of the data, where the gradient's direction is noise).
#[derive(Debug, Clone, Copy)]
pub struct Gate {
    pub gradient: f64,
    pub value: f64,
}

impl Gate {
    /// No gate: the step and objective tests alone decide.
    pub const NONE: Gate = Gate {
        gradient: f64::INFINITY,
        value: f64::INFINITY,
    };

    fn open(&self, model: &LocalModel) -> bool {
        self.gradient.is_infinite()
            || model.value.abs() <= self.value
            || scaled_gradient(model) <= self.gradient
    }
}

/// The scaled gradient of a local model: the largest |gⱼ| / √(|Cⱼⱼ| · 2f), which for least
/// squares (f = ½‖r‖², C ≈ JᵀJ) is the cosine between the residual vector and a column of the
/// Jacobian — MINPACK's `gtol` test (Moré, Garbow & Hillstrom 1980, "User guide for
/// MINPACK-1", §2.3; Moré 1978, "The Levenberg–Marquardt algorithm: implementation and
/// theory"). It does not change when a parameter is rescaled, so a parameter of size 1e-38 is
/// judged like one of size 1.
pub fn scaled_gradient(model: &LocalModel) -> f64 {
    let two_f = (2.0 * model.value.abs()).max(f64::MIN_POSITIVE);
    let k = model.gradient.len();
    let diag_max = (0..k)
        .map(|i| model.curvature[(i, i)].abs())
        .fold(0.0, f64::max);
    (0..k)
        .map(|i| {
            let c = model.curvature[(i, i)]
                .abs()
                .max(1e-300)
                .max(1e-30 * diag_max);
            model.gradient[i].abs() / (c * two_f).sqrt()
        })
        .fold(0.0, f64::max)
}

/// [`minimize_from`] where a small step or a small objective change ends the run only when the
/// [`scaled_gradient`] is at most `gate` too: a tiny step on a badly scaled parameter is not an
/// optimum (it keeps iterating instead, and ends as not converged if the budget runs out).
pub fn minimize_gated(
    objective: &mut impl Objective,
    u0: &[f64],
    options: &Options,
    initial_damping: f64,
    model_at_u0: Option<LocalModel>,
    gate: Gate,
) -> Minimum {
    let mut u = DVector::from_column_slice(u0);
    let mut damping = initial_damping;
    let mut growth = 2.0;
    let mut last_accepted = true;
    let Some(mut model) = model_at_u0.or_else(|| objective.model(u.as_slice())) else {
        return finish(u, f64::INFINITY, 0, Termination::NotFinite, damping);
    };
    for iteration in 1..=options.max_iterations {
        let cosine_small = || gate.gradient.is_finite() && scaled_gradient(&model) <= options.gtol;
        if gradient_is_negligible(&model, &u, options.gtol) || cosine_small() {
            return finish(
                u,
                model.value,
                iteration - 1,
                Termination::Gradient,
                damping,
            );
        }
        if below_tolerance(&model, options.ftol) && gate.open(&model) {
            return finish(
                u,
                model.value,
                iteration - 1,
                Termination::Objective,
                damping,
            );
        }
        let Some((step, predicted)) = damped_step(&model, damping) else {
            damping *= growth;
            growth *= 2.0;
            if damping > MAX_DAMPING {
                return finish(u, model.value, iteration, stuck(&gate, &model), damping);
            }
            continue;
        };
        let candidate = &u + &step;
        // After an accepted step the next is likely accepted too: evaluate the whole model
        // there at once. After a rejection, probe the value alone first.
        let (value, mut candidate_model) = if last_accepted {
            let m = objective.model(candidate.as_slice());
            (m.as_ref().map_or(f64::INFINITY, |m| m.value), m)
        } else {
            (objective.value(candidate.as_slice()), None)
        };
        let actual = model.value - value;
        last_accepted = value.is_finite() && actual > 0.0;
        // Below the rounding noise of the objective a decrease cannot be seen: a gated run
        // (a polish near an optimum) then takes the step if it shrinks the scaled gradient.
        if !last_accepted
            && value.is_finite()
            && gate.gradient.is_finite()
            && predicted.abs() <= NOISE * model.value.abs()
        {
            if let Some(m) = candidate_model
                .take()
                .or_else(|| objective.model(candidate.as_slice()))
            {
                if scaled_gradient(&m) < scaled_gradient(&model) {
                    u = candidate;
                    model = m;
                    last_accepted = true;
                    continue;
                }
            }
        }
        if last_accepted {
            let gain = if predicted > 0.0 {
                actual / predicted
            } else {
                1.0
            };
            damping *= (1.0f64 / 3.0).max(1.0 - (2.0 * gain - 1.0).powi(3));
            growth = 2.0;
            let small_step = step.norm() <= options.xtol * (options.xtol + u.norm());
            let small_change = actual <= options.ftol * model.value.abs();
            u = candidate;
            let gated = gate.gradient.is_finite() && (small_change || small_step);
            if !gated {
                if small_change {
                    return finish(u, value, iteration, Termination::Objective, damping);
                }
                if small_step {
                    return finish(u, value, iteration, Termination::Step, damping);
                }
            }
            let Some(next) = candidate_model.or_else(|| objective.model(u.as_slice())) else {
                return finish(u, value, iteration, Termination::NotFinite, damping);
            };
            model = next;
            if gated && gate.open(&model) {
                let termination = if small_change {
                    Termination::Objective
                } else {
                    Termination::Step
                };
                return finish(u, value, iteration, termination, damping);
            }
        } else {
            if step.norm() <= options.xtol * (options.xtol + u.norm()) && gate.open(&model) {
                return finish(u, model.value, iteration, Termination::Step, damping);
            }
            damping *= growth;
            growth *= 2.0;
            if damping > MAX_DAMPING {
                return finish(u, model.value, iteration, stuck(&gate, &model), damping);
            }
        }
    }
    let mut minimum = finish(
        u,
        model.value,
        options.max_iterations,
        Termination::MaxIterations,
        damping,
    );
    minimum.model = Some(model);
    minimum
}

/// Why a run that found no decreasing step ends: at a gated run's optimum (the gate open: the
/// scaled gradient is small, only rounding noise is left) that is convergence.
fn stuck(gate: &Gate, model: &LocalModel) -> Termination {
    if gate.gradient.is_finite() && gate.open(model) {
        Termination::Gradient
    } else {
        Termination::NoProgress
    }
}

fn finish(
    u: DVector<f64>,
    value: f64,
    iterations: usize,
    termination: Termination,
    damping: f64,
) -> Minimum {
    Minimum {
        u: u.as_slice().to_vec(),
        value,
        iterations,
        termination,
        damping,
        model: None,
    }
}

/// Whether the undamped Newton step's predicted decrease, ½·gᵀH⁻¹g (half the squared Newton
/// decrement, the stopping test of Newton's method in Boyd & Vandenberghe 2004, "Convex
/// Optimization", §9.5.1), is at most `ftol` of the objective: the step would change the
/// objective by less than the tolerance an accepted step is judged by, so the run ends before
/// evaluating it. Near an optimum of many rows that step is rounding noise, and without this
/// test it was evaluated, rejected, and followed by evaluations at rising damping until the
/// step test ended the run (on a million rows, 9 objective sweeps). A damped step predicts less
/// than the Newton step, so the test is the undamped one; false where the curvature is not
/// positive definite.
fn below_tolerance(model: &LocalModel, ftol: f64) -> bool {
    let Some(cholesky) = nalgebra::Cholesky::new(model.curvature.clone()) else {
        return false;
    };
    // ½‖L⁻¹g‖², which rounding cannot make negative (gᵀ(LLᵀ)⁻¹g through a full solve can,
    // on a nearly singular curvature).
    let Some(whitened) = cholesky.l().solve_lower_triangular(&model.gradient) else {
        return false;
    };
    let decrement = 0.5 * whitened.norm_squared();
    decrement.is_finite() && decrement <= ftol * model.value.abs()
}

fn gradient_is_negligible(model: &LocalModel, u: &DVector<f64>, gtol: f64) -> bool {
    let scaled = model
        .gradient
        .iter()
        .zip(u.iter())
        .map(|(g, x)| (g * x.abs().max(1.0)).abs())
        .fold(0.0, f64::max);
    scaled <= gtol * model.value.abs().max(f64::MIN_POSITIVE)
}

/// Solves (H + λ·diag(H)) s = −g; returns the step and the reduction the model predicts.
/// None when the damped matrix is not positive definite.
fn damped_step(model: &LocalModel, damping: f64) -> Option<(DVector<f64>, f64)> {
    let k = model.gradient.len();
    let h = &model.curvature;
    let diag_max = (0..k)
        .map(|i| h[(i, i)].abs())
        .fold(0.0, f64::max)
        .max(f64::MIN_POSITIVE);
    let mut damped = h.clone();
    for i in 0..k {
        damped[(i, i)] += damping * h[(i, i)].abs().max(1e-12 * diag_max);
    }
    let cholesky = nalgebra::Cholesky::new(damped)?;
    let mut step = cholesky.solve(&model.gradient);
    step.neg_mut();
    if !step.iter().all(|s| s.is_finite()) {
        return None;
    }
    let curvature_along: f64 = (0..k)
        .map(|i| step[i] * (0..k).map(|j| h[(i, j)] * step[j]).sum::<f64>())
        .sum();
    let predicted = -(model.gradient.dot(&step) + 0.5 * curvature_along);
    Some((step, predicted))
}

/// Symmetric eigenvalues, ascending (for condition numbers and definiteness checks).
pub fn eigenvalues(m: &DMatrix<f64>) -> Vec<f64> {
    let mut values: Vec<f64> = m.clone().symmetric_eigenvalues().iter().copied().collect();
    values.sort_by(f64::total_cmp);
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rosenbrock with its exact Hessian.
    struct Rosenbrock;

    impl Objective for Rosenbrock {
        fn dim(&self) -> usize {
            2
        }
        fn value(&mut self, u: &[f64]) -> f64 {
            (1.0 - u[0]).powi(2) + 100.0 * (u[1] - u[0] * u[0]).powi(2)
        }
        fn model(&mut self, u: &[f64]) -> Option<LocalModel> {
            let (x, y) = (u[0], u[1]);
            Some(LocalModel {
                value: self.value(u),
                gradient: DVector::from_vec(vec![
                    -2.0 * (1.0 - x) - 400.0 * x * (y - x * x),
                    200.0 * (y - x * x),
                ]),
                curvature: DMatrix::from_row_slice(
                    2,
                    2,
                    &[
                        2.0 - 400.0 * y + 1200.0 * x * x,
                        -400.0 * x,
                        -400.0 * x,
                        200.0,
                    ],
                ),
            })
        }
    }

    #[test]
    fn finds_the_rosenbrock_minimum() {
        let options = Options {
            max_iterations: 500,
            ftol: 0.0,
            xtol: 1e-14,
            gtol: 0.0,
        };
        let m = minimize(&mut Rosenbrock, &[-1.2, 1.0], &options);
        assert!(m.termination.converged(), "{:?}", m.termination);
        assert!(
            (m.u[0] - 1.0).abs() < 1e-8 && (m.u[1] - 1.0).abs() < 1e-8,
            "{:?}",
            m.u
        );
    }
}
