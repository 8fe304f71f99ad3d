//! The candidate runs of a design: a log grid over ranges of the law's variables
//! (`N=1e7..1e11,D=1e8..1e13`, a single value holding a variable, `track=0|1` listing values),
//! kept within a tokens-per-parameter range and a cost cap, or the runs listed; as points of the
//! law's variables with their costs.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::analysis::allocation::Flops;
use crate::analysis::design::refuse;
use crate::analysis::design::Candidates;
use crate::error::{short_number, Result, Setting};
use crate::law::Law;

/// How the candidate runs are laid out.
#[derive(Debug, Clone, PartialEq)]
pub enum CandidateSpace {
    /// Every combination of `per_decade` log-spaced values of each range (a variable given
    /// one value is held there), keeping the runs whose tokens per parameter D/N lie in
    /// `tokens_per_param` and whose cost is at most `max_cost`.
    Grid {
        ranges: Vec<(String, Axis)>,
        per_decade: usize,
        tokens_per_param: Option<[f64; 2]>,
        max_cost: Option<f64>,
    },
    /// The runs given, each with every variable of the law.
    List(Vec<BTreeMap<String, f64>>),
}

/// One variable's candidate values: log-spaced over a range of positive values, or the
/// values listed (a variable held at one value, or tracks coded 0 and 1).
#[derive(Debug, Clone, PartialEq)]
pub enum Axis {
    Range(f64, f64),
    Values(Vec<f64>),
}

impl Axis {
    /// How many values [`Axis::values`] gives (a float: a range over hundreds of decades is
    /// counted before anything is allocated).
    fn count(&self, per_decade: usize) -> f64 {
        match self {
            Axis::Values(values) => values.len() as f64,
            Axis::Range(lo, hi) => Self::steps(*lo, *hi, per_decade) + 1.0,
        }
    }

    /// Intervals between a range's values: the decades it spans (as a difference of logs, so
    /// that 1e-200..1e200 does not overflow) times `per_decade`.
    fn steps(lo: f64, hi: f64, per_decade: usize) -> f64 {
        ((hi.log10() - lo.log10()) * per_decade as f64)
            .round()
            .max(0.0)
    }

    /// The axis's values, a range with `per_decade` points per decade (both ends included).
    /// Call after [`Axis::count`] has been checked.
    fn values(&self, per_decade: usize) -> Vec<f64> {
        match self {
            Axis::Values(values) => values.clone(),
            Axis::Range(lo, hi) => {
                let steps = Self::steps(*lo, *hi, per_decade) as usize;
                let (log_lo, log_hi) = (lo.log10(), hi.log10());
                (0..=steps)
                    .map(|i| {
                        if steps == 0 {
                            *lo
                        } else {
                            10f64.powf(log_lo + (log_hi - log_lo) * i as f64 / steps as f64)
                        }
                    })
                    .collect()
            }
        }
    }
}

/// The tokens-per-parameter range of a grid: `[low, high]`, or `any`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum TokensPerParam {
    Range([f64; 2]),
    Any(AnyRatio),
}

/// `any`: every ratio of tokens to parameters.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, JsonSchema)]
pub enum AnyRatio {
    #[serde(rename = "any")]
    Any,
}

impl CandidateSpace {
    /// The grid over `ranges`, each setting left out the library's default: [`PER_DECADE`]
    /// points per decade, [`TOKENS_PER_PARAM`], no cost cap.
    pub fn grid(
        ranges: Vec<(String, Axis)>,
        per_decade: Option<usize>,
        tokens_per_param: Option<TokensPerParam>,
        max_cost: Option<f64>,
    ) -> CandidateSpace {
        CandidateSpace::Grid {
            ranges,
            per_decade: per_decade.unwrap_or(PER_DECADE),
            tokens_per_param: match tokens_per_param {
                None => Some(TOKENS_PER_PARAM),
                Some(TokensPerParam::Range(range)) => Some(range),
                Some(TokensPerParam::Any(_)) => None,
            },
            max_cost,
        }
    }

    /// The rules that need no law: a grid's points per decade in range, its tokens-per-parameter
    /// range and cost cap positive; a list not empty, each run's N and D positive and its
    /// other values finite.
    pub fn check(&self) -> Result<()> {
        match self {
            CandidateSpace::Grid {
                per_decade,
                tokens_per_param,
                max_cost,
                ..
            } => {
                if !(1..=MAX_PER_DECADE).contains(per_decade) {
                    return Err(refuse(
                        Setting::PerDecade,
                        format!("{per_decade} points per decade; give 1 to {MAX_PER_DECADE}"),
                    ));
                }
                if let Some([low, high]) = tokens_per_param {
                    if !(low.is_finite() && high.is_finite() && 0.0 < *low && low <= high) {
                        return Err(refuse(
                            Setting::TokensPerParam,
                            format!(
                                "{}..{}: give LOW..HIGH with 0 < LOW <= HIGH, e.g. 2..500",
                                short_number(*low),
                                short_number(*high)
                            ),
                        ));
                    }
                }
                match max_cost {
                    Some(cost) if !(cost.is_finite() && *cost > 0.0) => Err(refuse(
                        Setting::MaxCost,
                        format!("{}: give a positive number of FLOPs", short_number(*cost)),
                    )),
                    _ => Ok(()),
                }
            }
            CandidateSpace::List(runs) => check_runs(runs),
        }
    }

    /// The candidate runs as points of `law`'s variables with their costs by `flops`, those
    /// that cost more than the whole `spend` left out (they can never be chosen).
    pub fn points(&self, law: &Law, flops: &Flops, spend: Option<f64>) -> Result<Candidates> {
        if law.variable_index("N").is_none() || law.variable_index("D").is_none() {
            return Err(refuse(Setting::Cost, format!(
                "a run's cost is counted from N and D ({}), and the law's variables are {}; design needs a law of N and D",
                flops.text,
                law.variables.join(", ")
            )));
        }
        let points = match self {
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
                flops,
            )?,
            CandidateSpace::List(runs) => runs
                .iter()
                .map(|run| point_of(law, run))
                .collect::<Result<Vec<_>>>()?,
        };
        let cost: Vec<f64> = points.iter().map(|p| cost_at(law, flops, p)).collect();
        let spend = spend.unwrap_or(f64::INFINITY);
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

    /// The variables the candidates give values to (a formula's variables before any run).
    pub fn names(&self) -> Vec<String> {
        match self {
            CandidateSpace::Grid { ranges, .. } => ranges.iter().map(|(n, _)| n.clone()).collect(),
            CandidateSpace::List(runs) => runs.iter().flat_map(|r| r.keys().cloned()).collect(),
        }
    }
}

/// A list of candidate runs: at least one, each run's N and D positive (a run's size and
/// tokens) and its other values (a track coded 0/1) finite.
fn check_runs(runs: &[BTreeMap<String, f64>]) -> Result<()> {
    if runs.iter().all(BTreeMap::is_empty) {
        return Err(refuse(
            Setting::Candidates,
            "no candidate runs; give a run per row, with a number per law variable",
        ));
    }
    for (i, run) in runs.iter().enumerate() {
        for (name, value) in run {
            let positive = name == "N" || name == "D";
            if !(value.is_finite() && (!positive || *value > 0.0)) {
                let need = if positive { "positive" } else { "finite" };
                return Err(refuse(Setting::Candidates, format!(
                    "run {} (counting from 1), '{name}': {} is not {need}; a candidate run's N and D are positive numbers, its other variables finite",
                    i + 1,
                    short_number(*value)
                )));
            }
        }
    }
    Ok(())
}

/// Points per decade of a candidate grid by default, and at most.
pub const PER_DECADE: usize = 8;
pub const MAX_PER_DECADE: usize = 100;

/// Tokens per parameter of a grid's candidates by default: from undertrained to 25× past
/// Chinchilla's 20 (runs outside it are rarely launched, and the law is least tested there).
pub const TOKENS_PER_PARAM: [f64; 2] = [2.0, 500.0];

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
    ranges: &[(String, Axis)],
    per_decade: usize,
    tokens_per_param: Option<[f64; 2]>,
    max_cost: Option<f64>,
    flops: &Flops,
) -> Result<Vec<Vec<f64>>> {
    if let Some((name, _)) = ranges.iter().find(|(n, _)| law.variable_index(n).is_none()) {
        return Err(refuse(
            Setting::Candidates,
            format!(
                "'{name}' is not a variable of the law (its variables are {})",
                law.variables.join(", ")
            ),
        ));
    }
    let mut chosen: Vec<&Axis> = Vec::new();
    for v in &law.variables {
        let Some((_, axis)) = ranges.iter().find(|(name, _)| name == v) else {
            return Err(refuse(Setting::Candidates, format!(
                "the candidate ranges name no values of the law's variable '{v}'; give {v}=LOW..HIGH or {v}=VALUE"
            )));
        };
        chosen.push(axis);
    }
    let total: f64 = chosen.iter().map(|a| a.count(per_decade)).product();
    if !(total <= crate::analysis::design::MAX_CANDIDATES as f64) {
        return Err(refuse(Setting::Candidates, format!(
            "the grid has {} candidate runs, more than {}; narrow the ranges or use fewer points per decade",
            crate::error::short_number(total),
            crate::analysis::design::MAX_CANDIDATES
        )));
    }
    let mut axes: Vec<Vec<f64>> = Vec::new();
    for (v, axis) in law.variables.iter().zip(chosen) {
        let values = axis.values(per_decade);
        if (v == "N" || v == "D") && values.iter().any(|x| !(*x > 0.0)) {
            return Err(refuse(
                Setting::Candidates,
                format!("{v} must be positive (a run's size and tokens); list positive values"),
            ));
        }
        axes.push(values);
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

/// `N=1e7..1e11,D=1e8..1e13,U=2e10,track=0|1`: per variable a range (low..high, both
/// positive, log-spaced), one value, or values separated by `|`.
pub fn parse_ranges(text: &str) -> Result<Vec<(String, Axis)>> {
    let bad = |part: &str, why: &str| {
        refuse(
            Setting::Candidates,
            format!(
                "'{part}': {why}; write VAR=LOW..HIGH, VAR=VALUE or VAR=V1|V2, e.g. N=1e7..1e11,D=1e8..1e13"
            ),
        )
    };
    let mut out: Vec<(String, Axis)> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, values) = part.split_once('=').ok_or_else(|| bad(part, "no '='"))?;
        let name = name.trim();
        if out.iter().any(|(n, _)| n == name) {
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
            s.parse::<f64>().ok().filter(|v| v.is_finite())
        };
        let axis = match values.split_once("..") {
            Some((a, b)) => match (number(a), number(b)) {
                (Some(lo), Some(hi)) if lo > 0.0 && lo <= hi => Axis::Range(lo, hi),
                (Some(lo), Some(hi)) if lo > 0.0 && hi > 0.0 => {
                    return Err(bad(part, "the low end is above the high end"))
                }
                _ => {
                    return Err(bad(
                        part,
                        "a range's ends must be positive numbers (list other values as V1|V2)",
                    ))
                }
            },
            None => {
                let listed: Option<Vec<f64>> = values.split('|').map(number).collect();
                let mut listed = listed.ok_or_else(|| bad(part, "the values must be numbers"))?;
                listed.sort_by(f64::total_cmp);
                listed.dedup();
                Axis::Values(listed)
            }
        };
        out.push((name.to_string(), axis));
    }
    if out.is_empty() {
        return Err(bad(text, "no range"));
    }
    Ok(out)
}
