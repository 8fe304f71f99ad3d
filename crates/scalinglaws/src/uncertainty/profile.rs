//! Profile-likelihood interval of one parameter, a cross-check of the bootstrap that needs no
//! resampling: hold the parameter at a value, refit every other parameter (the full global
//! search, warm-started from the neighbouring profile point), and find where the objective has
//! risen by the threshold on either side of the optimum.
//!
//! For an M-estimator (any robust loss) the rise of the profiled objective S is not a χ²
//! statistic by itself; it is once divided by the sandwich-to-Hessian ratio of the parameter
//! (the "drop in dispersion" test of Schrader & Hettmansperger 1980; Huber 1981 §7.10): near the
//! optimum 2ΔS(θⱼ) ≈ (θⱼ − θ̂ⱼ)²/(H⁻¹)ⱼⱼ while Var θ̂ⱼ = Vⱼⱼ (sandwich), so the interval is
//! {θⱼ : ΔS ≤ ½·χ²₁(level)·Vⱼⱼ/(H⁻¹)ⱼⱼ}, H the bread of the fit's covariance (the
//! kernel-smoothed Hessian of `smoothed_sandwich`: under Huber's small δ the exact Hessian
//! counts the few residuals inside ±δ, while the objective's rise over an interval's width
//! follows the error density, as the smoothed one does). For least squares this is the
//! classical profile interval with σ² estimated from the residuals. Where the law is nonlinear
//! the profile bends and the interval is asymmetric, which is what the Wald interval
//! (± z·stderr) misses.
//!
//! A heteroscedastic fit is profiled with its variance model held at the fitted σ(x) (the
//! weighted least-squares objective it ends on), the usual conditional profile of a
//! variance-weighted fit (Carroll & Ruppert 1988, §2.3).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result, Setting};
use crate::fit::smoothed::smoothed_bread;
use crate::fit::{fit_best, problem_for, Covariance, FitData, FitResult, FitSettings};
use crate::law::Law;
use crate::stats::chi2_quantile;
use crate::text;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub param: String,
    pub level: f64,
    /// The parameter at the optimum.
    pub value: f64,
    /// Lower and upper end; None where the objective never rose to the threshold before a
    /// bound or the step limit (the interval is open on that side).
    pub ci: [Option<f64>; 2],
    /// The rise of the objective that bounds the interval.
    pub threshold: f64,
    /// Vⱼⱼ/(H⁻¹)ⱼⱼ, the robust scale of the objective's rise.
    pub scale: f64,
    /// (parameter value, objective) along the profile, in increasing parameter order.
    pub points: Vec<[f64; 2]>,
}

/// Steps outward on each side before giving up on finding the threshold.
const MAX_STEPS: usize = 40;
/// Refinements of each end once bracketed.
const REFINEMENTS: usize = 10;

/// Most refits of one profile: both sides, every step and refinement (for the work model).
pub const MOST_REFITS: usize = 2 * (MAX_STEPS + REFINEMENTS);

/// The profile interval of parameter `name` at `level`, around the fit `base` of `law` to
/// `data` with `settings`.
pub fn profile(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    base: &FitResult,
    name: &str,
    level: f64,
) -> Result<Profile> {
    super::check_level(level)?;
    if let Some(model) = &base.variance {
        let weighted = model.weighted_data(law, data)?;
        let fixed_weights = FitSettings {
            heteroscedastic: None,
            ..settings.clone()
        };
        return profile(
            law,
            &weighted,
            &fixed_weights,
            &without_variance(base),
            name,
            level,
        );
    }
    let index = profiled_param(law, settings, name)?;
    let param = base
        .param(name)
        .ok_or_else(|| Error::settings(format!("the fit has no parameter '{name}'")))?;
    let (h_inverse, variance) = curvature_of(law, data, settings, base, name)?;
    let scale = variance / h_inverse;
    let threshold = 0.5 * chi2_quantile(level, 1.0) * scale;
    let walk = Walk {
        law,
        data,
        settings,
        index,
        name,
        optimum: base.objective,
        threshold,
        lower: param.lower.unwrap_or(f64::NEG_INFINITY),
        upper: param.upper.unwrap_or(f64::INFINITY),
        step: 0.5 * variance.sqrt(),
    };
    let mut points = vec![[param.value, base.objective]];
    let low = walk.side(base, -1.0, &mut points);
    let high = walk.side(base, 1.0, &mut points);
    points.sort_by(|a, b| a[0].total_cmp(&b[0]));
    settings.interrupt.check()?;
    Ok(Profile {
        param: name.to_string(),
        level,
        value: param.value,
        ci: [low, high],
        threshold,
        scale,
        points,
    })
}

fn without_variance(base: &FitResult) -> FitResult {
    FitResult {
        variance: None,
        ..base.clone()
    }
}

/// The index of the parameter `profile` names: it must exist and be free.
pub fn profiled_param(law: &Law, settings: &FitSettings, name: &str) -> Result<usize> {
    let index = law.param_index(name).ok_or_else(|| {
        let hint = crate::suggest::closest(name, law.param_names())
            .map(|s| format!(" (did you mean '{s}'?)"))
            .unwrap_or_default();
        Error::setting(
            Setting::Profile,
            text![
                Setting::Profile.subject(),
                format!(
                    " names '{name}', not a parameter of the law{hint}; its parameters are {}",
                    law.param_names().join(", ")
                )
            ],
        )
    })?;
    if settings.fixed.contains_key(name) {
        return Err(Error::setting(
            Setting::Profile,
            text![
                Setting::Profile.text(name),
                ": the parameter is fixed, so it has no interval"
            ],
        ));
    }
    Ok(index)
}

/// (H⁻¹)ⱼⱼ from the exact Hessian at the optimum (the kernel-smoothed one when the fit's
/// covariance is `smoothed_sandwich`, [`crate::fit::smoothed`]) and Vⱼⱼ from the fit's
/// covariance.
fn curvature_of(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    base: &FitResult,
    name: &str,
) -> Result<(f64, f64)> {
    let unavailable = |why: &str| {
        Error::fit(text![
            Setting::Profile.text(name),
            format!(": {why}, so the profile's threshold cannot be scaled (no profile interval)")
        ])
    };
    let covariance = base
        .covariance
        .as_ref()
        .ok_or_else(|| unavailable("the fit has no covariance"))?;
    let slot = covariance
        .names
        .iter()
        .position(|n| n == name)
        .ok_or_else(|| unavailable("the parameter is not in the covariance"))?;
    // The objective at the fit's optimum: a family's nuisance values held at the fitted ones.
    let held = FitSettings {
        family: base.held_settings().family,
        ..settings.clone()
    };
    let problem = problem_for(law, data, &held)?;
    let values = base.param_values();
    let model = problem
        .exact_natural(&values)
        .ok_or_else(|| unavailable("the Hessian is undefined at the optimum"))?;
    // The curvature the covariance took as its bread: the profile's rise over the interval
    // follows it, not the exact Hessian's count of residuals inside Huber's δ.
    let hessian = if base.covariance_kind == Covariance::SmoothedSandwich.name() {
        smoothed_bread(
            &problem,
            &values,
            &model.curvature,
            &problem.residuals(&values),
        )
        .ok_or_else(|| unavailable("the smoothed Hessian is undefined at the optimum"))?
    } else {
        model.curvature
    };
    let inverse = hessian
        .try_inverse()
        .ok_or_else(|| unavailable("the Hessian is singular"))?;
    let (h, v) = (inverse[(slot, slot)], covariance.values[slot][slot]);
    if !(h > 0.0 && v > 0.0 && h.is_finite() && v.is_finite()) {
        return Err(unavailable("the Hessian is not positive definite"));
    }
    Ok((h, v))
}

struct Walk<'a> {
    law: &'a Law,
    data: &'a FitData,
    settings: &'a FitSettings,
    index: usize,
    name: &'a str,
    optimum: f64,
    threshold: f64,
    lower: f64,
    upper: f64,
    step: f64,
}

/// One profile point: the parameter held at `value`, everything else refitted.
struct Point {
    value: f64,
    rise: f64,
    params: Vec<f64>,
}

impl Walk<'_> {
    fn refit(&self, value: f64, warm: &[f64]) -> Option<Point> {
        let mut settings = self.settings.clone();
        settings.fixed.insert(self.name.to_string(), value);
        let mut start = warm.to_vec();
        start[self.index] = value;
        let best = fit_best(self.law, self.data, &settings, &[start]).ok()?;
        Some(Point {
            value,
            rise: best.objective - self.optimum,
            params: best.params,
        })
    }

    /// Walks from the optimum in `direction` until the rise passes the threshold, then
    /// refines the crossing; None when it never does.
    fn side(&self, base: &FitResult, direction: f64, points: &mut Vec<[f64; 2]>) -> Option<f64> {
        let mut inside = Point {
            value: base.param_values()[self.index],
            rise: 0.0,
            params: base.param_values(),
        };
        let mut step = self.step;
        for _ in 0..MAX_STEPS {
            let bound = if direction < 0.0 {
                self.lower
            } else {
                self.upper
            };
            let mut value = inside.value + direction * step;
            let at_bound = (value - bound) * direction >= 0.0;
            if at_bound {
                value = bound;
            }
            let point = self.refit(value, &inside.params)?;
            points.push([point.value, point.rise + self.optimum]);
            if point.rise >= self.threshold {
                return Some(self.refine(inside, point, points));
            }
            if at_bound {
                return None;
            }
            inside = point;
            step *= 1.6;
        }
        None
    }

    /// The crossing between a point inside the interval and one outside, by regula falsi on
    /// √rise (nearly linear in the parameter) safeguarded by bisection.
    fn refine(&self, mut inside: Point, mut outside: Point, points: &mut Vec<[f64; 2]>) -> f64 {
        let root = self.threshold.sqrt();
        for _ in 0..REFINEMENTS {
            let (a, b) = (inside.rise.max(0.0).sqrt(), outside.rise.sqrt());
            let fraction = ((root - a) / (b - a)).clamp(0.1, 0.9);
            let value = inside.value + fraction * (outside.value - inside.value);
            let Some(point) = self.refit(value, &inside.params) else {
                break;
            };
            points.push([point.value, point.rise + self.optimum]);
            if point.rise >= self.threshold {
                outside = point;
            } else {
                inside = point;
            }
            if (outside.value - inside.value).abs() < 1e-6 * self.step {
                break;
            }
        }
        let (a, b) = (inside.rise.max(0.0).sqrt(), outside.rise.sqrt());
        let fraction = ((root - a) / (b - a)).clamp(0.0, 1.0);
        inside.value + fraction * (outside.value - inside.value)
    }
}
