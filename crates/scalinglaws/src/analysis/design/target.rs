//! What a design buys certainty about: a scalar function g(θ) of the law's parameters. The
//! loss at a given point is the law itself; the compute-optimal quantities at a budget come
//! from the allocation room (`analysis::allocation`, Hoffmann et al. 2022's closed form or the
//! numerical search), so any law and FLOPs formula the allocation accepts can be designed
//! for. Gradients are exact for the loss at a point (one reverse sweep of the tape) and
//! central differences of the allocation otherwise.

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
}

impl Target {
    /// `optimal_loss@1e23`, `loss@N=7e10,D=1.4e12`.
    pub fn label(&self) -> String {
        match self {
            Target::Loss { point } => {
                let parts: Vec<String> = point
                    .iter()
                    .map(|(k, v)| format!("{k}={}", crate::error::short_number(*v)))
                    .collect();
                format!("loss@{}", parts.join(","))
            }
            Target::AtBudget {
                quantity,
                budget,
                held,
            } => {
                let mut label = format!(
                    "{}@{}",
                    quantity.name(),
                    crate::error::short_number(*budget)
                );
                for (k, v) in held {
                    label.push_str(&format!(",{k}={}", crate::error::short_number(*v)));
                }
                label
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
            Target::AtBudget { .. } => central_differences(params, |p| self.value(law, flops, p)),
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
                if !(budget.is_finite() && *budget > 0.0) {
                    return Err(refuse(format!(
                        "the budget of {} must be positive and finite",
                        self.label()
                    )));
                }
                for role in ["N", "D"] {
                    if law.variable_index(role).is_none() {
                        return Err(refuse(format!(
                            "{} needs a law of N and D; the law's variables are {}",
                            self.label(),
                            law.variables.join(", ")
                        )));
                    }
                }
                unknown_names(law, held.keys(), &self.label())?;
                if let Some(v) = held.keys().find(|k| *k == "N" || *k == "D") {
                    return Err(refuse(format!(
                        "{}: {v} is what the allocation chooses; give only the law's other variables",
                        self.label()
                    )));
                }
                let missing: Vec<&String> = law
                    .variables
                    .iter()
                    .filter(|v| *v != "N" && *v != "D" && !held.contains_key(*v))
                    .collect();
                match missing.first() {
                    None => Ok(()),
                    Some(v) => Err(refuse(format!(
                        "{} needs a value of the law's variable '{v}' (give it as {v}=VALUE)",
                        self.label()
                    ))),
                }
            }
        }
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
