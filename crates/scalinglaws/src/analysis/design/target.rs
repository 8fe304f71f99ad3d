//! What a design buys certainty about: a scalar function g(θ) of the law's parameters. The
//! loss at a given point is the law itself; the compute-optimal quantities at a budget come
//! from the allocation room (`analysis::allocation`, Hoffmann et al. 2022's closed form or the
//! numerical search), so any law and FLOPs formula the allocation accepts can be designed
//! for; the value of a variable that minimises the law at a point (the optimal learning rate
//! at a scale, for a law with an LR variable) is found by a scan and bisection in log x; the
//! compute multiplier between two values of a variable (tracks coded in one law, e.g. an
//! indicator column) is the effective-compute ratio of `analysis::tracks`: the compute the
//! baseline needs to reach the other's compute-optimal loss at C, per unit of C. Gradients are
//! exact for the loss at a point (one reverse sweep of the tape) and central differences
//! otherwise.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::allocation::{optimal, AllocationSettings, Flops};
use crate::error::{Error, Result, Setting};
use crate::law::Law;
use crate::uncertainty::intervals::gradient_at;

/// A quantity at the compute-optimal allocation of a budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Quantity {
    /// The loss at the optimum, L*(C).
    OptimalLoss,
    /// N*(C).
    OptimalN,
    /// D*(C).
    OptimalD,
    /// D*/N* at C.
    TokensPerParam,
}

impl Quantity {
    pub const ALL: [Quantity; 4] = [
        Quantity::OptimalLoss,
        Quantity::OptimalN,
        Quantity::OptimalD,
        Quantity::TokensPerParam,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Quantity::OptimalLoss => "optimal_loss",
            Quantity::OptimalN => "optimal_N",
            Quantity::OptimalD => "optimal_D",
            Quantity::TokensPerParam => "tokens_per_param",
        }
    }
}

/// One target of a design.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Target {
    /// The law's value at a point (every variable of the law named).
    Loss { point: BTreeMap<String, f64> },
    /// A compute-optimal quantity at `budget` FLOPs (counted by the design's FLOPs formula),
    /// the law's other variables held at `held`.
    AtBudget {
        quantity: Quantity,
        budget: f64,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        held: BTreeMap<String, f64>,
    },
    /// The value of `variable` that minimises the law, every other variable at `point`.
    Argmin {
        variable: String,
        point: BTreeMap<String, f64>,
    },
    /// C_base(L*_other(C)) / C at `budget`: the compute the law with `variable` = `baseline`
    /// needs to reach the compute-optimal loss of `variable` = `other` at C, per unit of C
    /// (> 1: `other` is the more efficient), the law's remaining variables at `held`.
    Multiplier {
        budget: f64,
        variable: String,
        baseline: f64,
        other: f64,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        held: BTreeMap<String, f64>,
    },
}

impl Target {
    /// `optimal_loss@1e23`, `loss@N=7e10,D=1.4e12`.
    pub fn label(&self) -> String {
        match self {
            Target::Loss { point } => format!("loss@{}", pairs(point).join(",")),
            Target::AtBudget {
                quantity,
                budget,
                held,
            } => {
                let mut parts = vec![label_number(*budget)];
                parts.extend(pairs(held));
                format!("{}@{}", quantity.name(), parts.join(","))
            }
            Target::Argmin { variable, point } => {
                format!("argmin_{variable}@{}", pairs(point).join(","))
            }
            Target::Multiplier {
                budget,
                variable,
                baseline,
                other,
                held,
            } => {
                let mut parts = vec![
                    label_number(*budget),
                    format!(
                        "{variable}={}:{}",
                        label_number(*baseline),
                        label_number(*other)
                    ),
                ];
                parts.extend(pairs(held));
                format!("multiplier@{}", parts.join(","))
            }
        }
    }

    /// The target's value at `params` (None where the law has no optimum there).
    pub fn value(&self, law: &Law, flops: &Flops, params: &[f64]) -> Option<f64> {
        self.evaluate(law, flops, params).ok()
    }

    /// The target's value at `params`, or why it has none (the allocation's reason).
    pub fn evaluate(&self, law: &Law, flops: &Flops, params: &[f64]) -> Result<f64> {
        let value = match self {
            Target::Loss { point } => law.eval(params, &point_of(law, point)?),
            Target::AtBudget {
                quantity,
                budget,
                held,
            } => at_budget(law, flops, params, *quantity, *budget, held)?,
            Target::Argmin { variable, point } => argmin(law, params, variable, point)?,
            Target::Multiplier {
                budget,
                variable,
                baseline,
                other,
                held,
            } => multiplier(
                law,
                flops,
                params,
                *budget,
                (variable, *baseline, *other),
                held,
            )?,
        };
        if value.is_finite() {
            Ok(value)
        } else {
            Err(refuse(format!(
                "{} is not finite at the current estimate ({value})",
                self.label()
            )))
        }
    }

    /// ∂g/∂θ at `params` (every parameter, in the law's order); None where g is undefined
    /// nearby.
    pub fn gradient(&self, law: &Law, flops: &Flops, params: &[f64]) -> Option<Vec<f64>> {
        match self {
            Target::Loss { point } => Some(gradient_at(law, params, &point_of(law, point).ok()?)),
            _ => central_differences(params, |p| self.value(law, flops, p)),
        }
    }

    /// Checks the target against the law: every variable named for a point, positive
    /// budgets, N and D among the law's variables for the optimum.
    pub fn check(&self, law: &Law) -> Result<()> {
        match self {
            Target::Loss { point } => {
                unknown_names(law, point.keys(), &self.label())?;
                point_of(law, point).map(|_| ())
            }
            Target::AtBudget { budget, held, .. } => {
                check_budget(law, &self.label(), *budget, held, &[])
            }
            Target::Argmin { variable, point } => {
                let label = self.label();
                unknown_names(law, point.keys().chain([variable]), &label)?;
                if point.contains_key(variable) {
                    return Err(refuse(format!("{label}: {variable} is what is minimised over; give only the law's other variables")));
                }
                let missing = law
                    .variables
                    .iter()
                    .find(|v| *v != variable && !point.contains_key(*v));
                match missing {
                    None => Ok(()),
                    Some(v) => Err(refuse(format!(
                        "{label} needs a value of the law's variable '{v}' (give it as {v}=VALUE)"
                    ))),
                }
            }
            Target::Multiplier {
                budget,
                variable,
                baseline,
                other,
                held,
            } => {
                let label = self.label();
                unknown_names(law, [variable].into_iter(), &label)?;
                if variable == "N" || variable == "D" || held.contains_key(variable) {
                    return Err(refuse(format!("{label}: the tracks' variable must be a variable of the law other than N and D, named once")));
                }
                if !(baseline.is_finite() && other.is_finite()) || baseline == other {
                    return Err(refuse(format!(
                        "{label}: give two different finite values of {variable}, BASELINE:OTHER"
                    )));
                }
                check_budget(law, &label, *budget, held, &[variable])
            }
        }
    }
}

/// A budget target's checks: a positive budget, N and D among the law's variables, every
/// other variable (but `chosen`) held, none of them N or D.
fn check_budget(
    law: &Law,
    label: &str,
    budget: f64,
    held: &BTreeMap<String, f64>,
    chosen: &[&String],
) -> Result<()> {
    if !(budget.is_finite() && budget > 0.0) {
        return Err(refuse(format!(
            "the budget of {label} must be positive and finite"
        )));
    }
    for role in ["N", "D"] {
        if law.variable_index(role).is_none() {
            return Err(refuse(format!(
                "{label} needs a law of N and D; the law's variables are {}",
                law.variables.join(", ")
            )));
        }
    }
    unknown_names(law, held.keys(), label)?;
    if let Some(v) = held.keys().find(|k| *k == "N" || *k == "D") {
        return Err(refuse(format!(
            "{label}: {v} is what the allocation chooses; give only the law's other variables"
        )));
    }
    let missing = law
        .variables
        .iter()
        .find(|v| *v != "N" && *v != "D" && !held.contains_key(*v) && !chosen.contains(v));
    match missing {
        None => Ok(()),
        Some(v) => Err(refuse(format!(
            "{label} needs a value of the law's variable '{v}' (give it as {v}=VALUE)"
        ))),
    }
}

/// `K=V` for each entry, numbers short.
fn pairs(values: &BTreeMap<String, f64>) -> Vec<String> {
    values
        .iter()
        .map(|(k, v)| format!("{k}={}", label_number(*v)))
        .collect()
}

/// A number in a goal's label as a user types it: `2e10`, `1e23`, `0.5`, `1.4e12`.
fn label_number(v: f64) -> String {
    if v == 0.0 || (1e-3..1e4).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// Refuses a name that is not one of the law's variables.
fn unknown_names<'a>(
    law: &Law,
    mut names: impl Iterator<Item = &'a String>,
    label: &str,
) -> Result<()> {
    match names.find(|n| law.variable_index(n).is_none()) {
        None => Ok(()),
        Some(n) => Err(refuse(format!(
            "{label}: '{n}' is not a variable of the law (its variables are {})",
            law.variables.join(", ")
        ))),
    }
}

fn refuse(message: String) -> Error {
    super::refuse(Setting::Goal, message)
}

/// The point in the law's variable order, every variable given.
fn point_of(law: &Law, point: &BTreeMap<String, f64>) -> Result<Vec<f64>> {
    law.variables
        .iter()
        .map(|v| {
            point.get(v).copied().ok_or_else(|| {
                refuse(format!(
                    "a loss target needs every variable of the law ({}); '{v}' is missing",
                    law.variables.join(", ")
                ))
            })
        })
        .collect()
}

fn at_budget(
    law: &Law,
    flops: &Flops,
    params: &[f64],
    quantity: Quantity,
    budget: f64,
    held: &BTreeMap<String, f64>,
) -> Result<f64> {
    let mut settings = AllocationSettings::at_budgets(vec![budget]);
    settings.flops = flops.clone();
    settings.held = held.iter().map(|(k, v)| (k.clone(), vec![*v])).collect();
    let frontier = optimal(law, params, &settings)?;
    let a = frontier
        .allocations
        .first()
        .ok_or_else(|| refuse("the allocation found no optimum".to_string()))?;
    Ok(match quantity {
        Quantity::OptimalLoss => a.loss,
        Quantity::OptimalN => a.n,
        Quantity::OptimalD => a.d,
        Quantity::TokensPerParam => a.tokens_per_param,
    })
}

/// The compute `variable = baseline` needs to reach the compute-optimal loss of
/// `variable = other` at `budget`, per unit of budget.
fn multiplier(
    law: &Law,
    flops: &Flops,
    params: &[f64],
    budget: f64,
    (variable, baseline, other): (&String, f64, f64),
    held: &BTreeMap<String, f64>,
) -> Result<f64> {
    let with = |value: f64| {
        let mut h = held.clone();
        h.insert(variable.clone(), value);
        h
    };
    let loss = at_budget(
        law,
        flops,
        params,
        Quantity::OptimalLoss,
        budget,
        &with(other),
    )?;
    let mut settings = AllocationSettings::at_budgets(Vec::new());
    settings.target_losses = vec![loss];
    settings.flops = flops.clone();
    settings.held = with(baseline)
        .into_iter()
        .map(|(k, v)| (k, vec![v]))
        .collect();
    let frontier = optimal(law, params, &settings)?;
    let a = frontier
        .allocations
        .first()
        .ok_or_else(|| refuse("the allocation found no optimum".to_string()))?;
    Ok(a.budget / budget)
}

/// Decades of x scanned for the minimum of an argmin target: 1e-12 to 1e12, every 0.05
/// decade (a learning rate, a batch size or a width lies well inside).
const SCAN_DECADES: (f64, f64, usize) = (-12.0, 12.0, 480);
/// Half-width in ln x of the symmetric difference whose root is taken as the minimum: the
/// root is then a smooth function of θ (a fixed stencil), within O(h²) of the exact argmin.
const ARGMIN_STEP: f64 = 1e-3;

/// The x > 0 that minimises the law in `variable`, the others at `point`: the lowest finite
/// value on a log scan, then bisection of f(x·e^h) − f(x·e^−h) between its neighbours.
fn argmin(law: &Law, params: &[f64], variable: &str, point: &BTreeMap<String, f64>) -> Result<f64> {
    let slot = law
        .variable_index(variable)
        .ok_or_else(|| refuse(format!("'{variable}' is not a variable of the law")))?;
    let mut at = point_of_without(law, point, variable)?;
    let mut f = |u: f64| {
        at[slot] = u.exp();
        law.eval(params, &at)
    };
    let (lo, hi, steps) = SCAN_DECADES;
    let grid: Vec<f64> = (0..=steps)
        .map(|i| (lo + (hi - lo) * i as f64 / steps as f64) * std::f64::consts::LN_10)
        .collect();
    let best = grid
        .iter()
        .enumerate()
        .map(|(i, &u)| (i, f(u)))
        .filter(|(_, v)| v.is_finite())
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
        .ok_or_else(|| {
            refuse(format!(
                "the law is not finite at any {variable} between 1e-12 and 1e12"
            ))
        })?;
    if best == 0 || best == steps {
        return Err(refuse(format!(
            "the law has no minimum in {variable} between 1e-12 and 1e12 at the current estimate (it is lowest at the end of that range)"
        )));
    }
    let mut slope = |u: f64| f(u + ARGMIN_STEP) - f(u - ARGMIN_STEP);
    let (mut a, mut b) = (grid[best - 1], grid[best + 1]);
    if !(slope(a) < 0.0 && slope(b) > 0.0) {
        return Err(refuse(format!(
            "the law's minimum in {variable} is not a smooth valley at the current estimate"
        )));
    }
    for _ in 0..200 {
        let m = 0.5 * (a + b);
        if m <= a || m >= b {
            break;
        }
        if slope(m) < 0.0 {
            a = m;
        } else {
            b = m;
        }
    }
    Ok((0.5 * (a + b)).exp())
}

/// The point in the law's variable order, `skip` set to NaN (filled by the caller).
fn point_of_without(law: &Law, point: &BTreeMap<String, f64>, skip: &str) -> Result<Vec<f64>> {
    let mut full = point.clone();
    full.insert(skip.to_string(), f64::NAN);
    point_of(law, &full)
}

/// Relative step of the central differences: the allocation is solved to about 1e-12, so a
/// step of 1e-5 leaves a truncation and rounding error near 1e-7 of the derivative.
const STEP: f64 = 1e-5;

fn central_differences(params: &[f64], g: impl Fn(&[f64]) -> Option<f64>) -> Option<Vec<f64>> {
    let mut p = params.to_vec();
    let mut gradient = Vec::with_capacity(params.len());
    for i in 0..params.len() {
        let h = STEP * params[i].abs().max(1e-3);
        p[i] = params[i] + h;
        let up = g(&p)?;
        p[i] = params[i] - h;
        let down = g(&p)?;
        p[i] = params[i];
        gradient.push((up - down) / (2.0 * h));
    }
    Some(gradient)
}
