//! The design job: fit the law to the runs so far (the fit job's recipe, law and settings),
//! lay out the candidate runs (a log grid over ranges of the law's variables, or a list),
//! and choose the batch ([`crate::analysis::design`]). The texts both front ends take are
//! parsed here once: goals (`optimal_loss@1e23`, `tokens_per_param@1e23`, `optimal_N@1e23`,
//! `optimal_D@1e23`, each with `,VAR=VALUE` for the law's other variables; `loss@N=7e10,D=1.4e12`),
//! and ranges (`N=1e7..1e11,D=1e8..1e13`, a single value holding a variable: `U=2e10`).

use std::collections::BTreeMap;

use crate::analysis::allocation::Flops;
use crate::analysis::design::refuse;
use crate::analysis::design::{
    design, Candidates, DesignResult, DesignSettings, Knowledge, Quantity, Target,
};
use crate::data::recipe::Table;
use crate::error::{Result, Setting};
use crate::law::Law;
use crate::uncertainty::FitRecord;

use super::fit::FitJob;

/// How the candidate runs are laid out.
#[derive(Debug, Clone, PartialEq)]
pub enum CandidateSpace {
    /// Every combination of `per_decade` log-spaced values of each range (a variable given
    /// one value is held there), keeping the runs whose tokens per parameter D/N lie in
    /// `tokens_per_param` and whose cost is at most `max_cost`.
    Grid {
        ranges: Vec<(String, f64, f64)>,
        per_decade: usize,
        tokens_per_param: Option<[f64; 2]>,
        max_cost: Option<f64>,
    },
    /// The runs given, each with every variable of the law.
    List(Vec<BTreeMap<String, f64>>),
}

/// Points per decade of a candidate grid by default.
pub const PER_DECADE: usize = 8;
/// Tokens per parameter of a grid's candidates by default: from undertrained to 25× past
/// Chinchilla's 20 (runs outside it are rarely launched, and the law is least tested there).
pub const TOKENS_PER_PARAM: [f64; 2] = [2.0, 500.0];

/// A design to run: the fit of the runs so far, the candidates, the cost formula and the
/// design's settings. `noise` replaces the fit's residual scale when given.
#[derive(Debug, Clone)]
pub struct DesignJob {
    pub fit: FitJob,
    pub candidates: CandidateSpace,
    pub cost: Flops,
    pub noise: Option<f64>,
    pub settings: DesignSettings,
}

/// What [`DesignJob::run`] gives: the design, the fit it started from, and the candidates
/// and runs so far as points of the law's variables (for plots).
#[derive(Debug, Clone)]
pub struct DesignOutcome {
    pub result: DesignResult,
    pub fit: FitRecord,
    pub law: Law,
    pub existing: Vec<Vec<f64>>,
    pub candidates: Candidates,
}

impl DesignJob {
    pub fn run(&self, table: &Table) -> Result<DesignOutcome> {
        let outcome = self.fit.run(table, &|_| {})?;
        let law = outcome.law.clone();
        let settings = self.fit.settings.for_law(&self.fit.law);
        let knowledge = Knowledge::from_fit(
            law.clone(),
            settings,
            outcome.data.clone(),
            &outcome.result.fit,
            self.noise,
        )?;
        let candidates = self.candidates(&law)?;
        let result = crate::fit::with_threads(self.fit.settings.settings.threads, || {
            design(
                &knowledge,
                &candidates,
                &self.settings,
                Some(&outcome.result.fit),
            )
        })??;
        Ok(DesignOutcome {
            result,
            fit: outcome.result,
            existing: outcome.data.points(),
            law,
            candidates,
        })
    }

    /// The candidate runs as points of `law`'s variables, with their costs.
    pub fn candidates(&self, law: &Law) -> Result<Candidates> {
        if law.variable_index("N").is_none() || law.variable_index("D").is_none() {
            return Err(refuse(Setting::Cost, format!(
                "a run's cost is counted from N and D ({}), and the law's variables are {}; design needs a law of N and D",
                self.cost.text,
                law.variables.join(", ")
            )));
        }
        let points = match &self.candidates {
            CandidateSpace::Grid {
                ranges,
                per_decade,
                tokens_per_param,
                max_cost,
            } => grid(
                law,
                ranges,
                *per_decade,
                *tokens_per_param,
                *max_cost,
                &self.cost,
            )?,
            CandidateSpace::List(runs) => runs
                .iter()
                .map(|run| point_of(law, run))
                .collect::<Result<Vec<_>>>()?,
        };
        let cost: Vec<f64> = points.iter().map(|p| cost_at(law, &self.cost, p)).collect();
        // A run that costs more than the whole spend can never be chosen.
        let spend = self.settings.spend.unwrap_or(f64::INFINITY);
        let (points, cost): (Vec<Vec<f64>>, Vec<f64>) = points
            .into_iter()
            .zip(cost)
            .filter(|(_, c)| !(*c > spend))
            .unzip();
        if points.is_empty() {
            return Err(refuse(
                Setting::Spend,
                "every candidate run costs more than the spend; raise it or add cheaper candidates",
            ));
        }
        Ok(Candidates { points, cost })
    }
}

fn cost_at(law: &Law, flops: &Flops, point: &[f64]) -> f64 {
    let get = |name: &str| law.variable_index(name).map(|i| point[i]);
    match (get("N"), get("D")) {
        (Some(n), Some(d)) => flops.at(n, d),
        _ => f64::NAN,
    }
}

fn point_of(law: &Law, run: &BTreeMap<String, f64>) -> Result<Vec<f64>> {
    law.variables
        .iter()
        .map(|v| {
            run.get(v).copied().ok_or_else(|| {
                refuse(
                    Setting::Candidates,
                    format!(
                        "a candidate run needs every variable of the law ({}); '{v}' is missing",
                        law.variables.join(", ")
                    ),
                )
            })
        })
        .collect()
}

/// The log grid over `ranges` (every law variable named once).
fn grid(
    law: &Law,
    ranges: &[(String, f64, f64)],
    per_decade: usize,
    tokens_per_param: Option<[f64; 2]>,
    max_cost: Option<f64>,
    flops: &Flops,
) -> Result<Vec<Vec<f64>>> {
    if !(1..=100).contains(&per_decade) {
        return Err(refuse(
            Setting::Candidates,
            format!("{per_decade} points per decade; give 1 to 100"),
        ));
    }
    if let Some((name, _, _)) = ranges
        .iter()
        .find(|(n, _, _)| law.variable_index(n).is_none())
    {
        return Err(refuse(
            Setting::Candidates,
            format!(
                "'{name}' is not a variable of the law (its variables are {})",
                law.variables.join(", ")
            ),
        ));
    }
    let mut axes: Vec<Vec<f64>> = Vec::new();
    for v in &law.variables {
        let Some((_, lo, hi)) = ranges.iter().find(|(name, _, _)| name == v) else {
            return Err(refuse(Setting::Candidates, format!(
                "the candidate ranges name no values of the law's variable '{v}'; give {v}=LOW..HIGH or {v}=VALUE"
            )));
        };
        let steps = ((hi / lo).log10() * per_decade as f64).round().max(0.0) as usize;
        axes.push(
            (0..=steps)
                .map(|i| {
                    if steps == 0 {
                        *lo
                    } else {
                        lo * (hi / lo).powf(i as f64 / steps as f64)
                    }
                })
                .collect(),
        );
    }
    let total = axes
        .iter()
        .try_fold(1usize, |acc, a| acc.checked_mul(a.len()))
        .unwrap_or(usize::MAX);
    if total > crate::analysis::design::MAX_CANDIDATES {
        return Err(refuse(Setting::Candidates, format!(
            "the grid has {total} candidate runs, more than {}; narrow the ranges or use fewer points per decade",
            crate::analysis::design::MAX_CANDIDATES
        )));
    }
    let mut points = vec![Vec::new()];
    for axis in &axes {
        points = points
            .into_iter()
            .flat_map(|p| {
                axis.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push(*v);
                    q
                })
            })
            .collect();
    }
    let (n, d) = (law.variable_index("N"), law.variable_index("D"));
    points.retain(|p| {
        let ratio_ok = match (tokens_per_param, n, d) {
            (Some([lo, hi]), Some(n), Some(d)) => (lo..=hi).contains(&(p[d] / p[n])),
            _ => true,
        };
        ratio_ok && max_cost.is_none_or(|m| cost_at(law, flops, p) <= m)
    });
    if points.is_empty() {
        return Err(refuse(Setting::Candidates, "no candidate run is left once the tokens-per-parameter range and the cost cap are applied; widen them"));
    }
    Ok(points)
}

/// `N=1e7..1e11,D=1e8..1e13,U=2e10`: a range (low..high, both positive) or one value per
/// variable.
pub fn parse_ranges(text: &str) -> Result<Vec<(String, f64, f64)>> {
    let bad = |part: &str, why: &str| {
        refuse(
            Setting::Candidates,
            format!(
                "'{part}': {why}; write VAR=LOW..HIGH or VAR=VALUE, e.g. N=1e7..1e11,D=1e8..1e13"
            ),
        )
    };
    let mut out: Vec<(String, f64, f64)> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, values) = part.split_once('=').ok_or_else(|| bad(part, "no '='"))?;
        let name = name.trim();
        if out.iter().any(|(n, _, _)| n == name) {
            return Err(bad(part, "the variable is named twice"));
        }
        if name.is_empty() {
            return Err(bad(part, "the variable's name is empty"));
        }
        // `1e9...1e13` would read as 1e9 .. .1e13: a bound may not start with a dot.
        let number = |s: &str| {
            let s = s.trim();
            if s.starts_with('.') {
                return None;
            }
            s.parse::<f64>().ok().filter(|v| v.is_finite() && *v > 0.0)
        };
        let (lo, hi) = match values.split_once("..") {
            Some((a, b)) => (number(a), number(b)),
            None => (number(values), number(values)),
        };
        match (lo, hi) {
            (Some(lo), Some(hi)) if lo <= hi => out.push((name.to_string(), lo, hi)),
            (Some(_), Some(_)) => return Err(bad(part, "the low end is above the high end")),
            _ => return Err(bad(part, "the values must be positive numbers")),
        }
    }
    if out.is_empty() {
        return Err(bad(text, "no range"));
    }
    Ok(out)
}

/// `optimal_loss@1e23`, `tokens_per_param@1e23,U=2e10`, `loss@N=7e10,D=1.4e12`.
pub fn parse_goal(text: &str) -> Result<Target> {
    let bad = |why: &str| {
        refuse(Setting::Goal, format!(
            "'{text}': {why}; write optimal_loss@C, tokens_per_param@C, optimal_N@C or optimal_D@C (C in FLOPs, then ,VAR=VALUE for the law's other variables), or loss@N=..,D=.."
        ))
    };
    let (kind, rest) = text.trim().split_once('@').ok_or_else(|| bad("no '@'"))?;
    let mut parts = rest.split(',').map(str::trim);
    let mut pairs = BTreeMap::new();
    let pair = |p: &str| -> Result<(String, f64)> {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| bad(&format!("'{p}' is not VAR=VALUE")))?;
        let v: f64 = v
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| bad(&format!("'{v}' is not a number")))?;
        Ok((k.trim().to_string(), v))
    };
    let insert = |pairs: &mut BTreeMap<String, f64>, p: &str| -> Result<()> {
        let (k, v) = pair(p)?;
        if pairs.insert(k.clone(), v).is_some() {
            return Err(bad(&format!("'{k}' is given twice")));
        }
        Ok(())
    };
    if kind.trim() == "loss" {
        for p in parts.filter(|p| !p.is_empty()) {
            insert(&mut pairs, p)?;
        }
        return Ok(Target::Loss { point: pairs });
    }
    let quantity = Quantity::ALL
        .into_iter()
        .find(|q| q.name().eq_ignore_ascii_case(kind.trim()))
        .ok_or_else(|| bad(&format!("unknown goal '{}'", kind.trim())))?;
    let budget: f64 = parts
        .next()
        .and_then(|b| b.parse().ok())
        .ok_or_else(|| bad("the budget is not a number"))?;
    for p in parts.filter(|p| !p.is_empty()) {
        insert(&mut pairs, p)?;
    }
    Ok(Target::AtBudget {
        quantity,
        budget,
        held: pairs,
    })
}
