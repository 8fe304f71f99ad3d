//! The goals of a design as a face writes them, parsed once for every face:
//! `optimal_loss@1e23`, `tokens_per_param@1e23`, `optimal_N@1e23`, `optimal_D@1e23`, each with
//! `,VAR=VALUE` for the law's other variables; `loss@N=7e10,D=1.4e12`; `argmin_lr@N=1e9,D=2e10`,
//! the optimal value of a variable; `multiplier@1e23,track=0:1`, the compute multiplier of track
//! 1 over track 0.

use std::collections::BTreeMap;

use crate::analysis::design::refuse;
use crate::analysis::design::{Quantity, Target};
use crate::error::{Result, Setting};

/// `0:1`: two numbers.
fn two_values(text: &str) -> Option<[f64; 2]> {
    let (a, b) = text.split_once(':')?;
    let number = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    Some([number(a)?, number(b)?])
}

/// `optimal_loss@1e23`, `tokens_per_param@1e23,U=2e10`, `loss@N=7e10,D=1.4e12`,
/// `argmin_lr@N=1e9,D=2e10`, `multiplier@1e23,track=0:1`.
/// `multiplier@C,VAR=BASELINE:OTHER[,VAR=VALUE...]` after its budget: the tracks' variable with
/// its two values, and the values held.
fn multiplier_goal<'a>(
    parts: impl Iterator<Item = &'a str>,
    budget: f64,
    bad: &dyn Fn(&str) -> crate::Error,
    insert: &dyn Fn(&mut BTreeMap<String, f64>, &str) -> Result<()>,
) -> Result<Target> {
    let mut pairs = BTreeMap::new();
    let mut tracks = None;
    for p in parts.filter(|p| !p.is_empty()) {
        match p.split_once('=').filter(|(_, v)| v.contains(':')) {
            Some(_) if tracks.is_some() => {
                return Err(bad("two variables are given as BASELINE:OTHER; give one"))
            }
            Some((k, v)) => {
                tracks = Some((
                    k.trim().to_string(),
                    two_values(v)
                        .ok_or_else(|| bad(&format!("'{v}' is not BASELINE:OTHER, two numbers")))?,
                ))
            }
            None => insert(&mut pairs, p)?,
        }
    }
    let (variable, [baseline, other]) = tracks
        .ok_or_else(|| bad("a multiplier needs the tracks' variable as VAR=BASELINE:OTHER"))?;
    Ok(Target::Multiplier {
        budget,
        variable,
        baseline,
        other,
        held: pairs,
    })
}

pub fn parse_goal(text: &str) -> Result<Target> {
    let bad = |why: &str| {
        refuse(Setting::Goal, format!(
            "'{text}': {why}; write optimal_loss@C, tokens_per_param@C, optimal_N@C or optimal_D@C (C in FLOPs, then ,VAR=VALUE for the law's other variables), multiplier@C,VAR=BASELINE:OTHER, loss@N=..,D=.., or argmin_VAR@N=..,D=.."
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
    let kind = kind.trim();
    if kind == "loss" || kind.starts_with("argmin_") {
        for p in parts.filter(|p| !p.is_empty()) {
            insert(&mut pairs, p)?;
        }
        return Ok(match kind.strip_prefix("argmin_") {
            None => Target::Loss { point: pairs },
            Some("") => return Err(bad("argmin_ names no variable (argmin_lr@N=..,D=..)")),
            Some(variable) => Target::Argmin {
                variable: variable.to_string(),
                point: pairs,
            },
        });
    }
    let budget: f64 = parts
        .next()
        .and_then(|b| b.parse().ok())
        .ok_or_else(|| bad("the budget is not a number"))?;
    if kind == "multiplier" {
        return multiplier_goal(parts, budget, &bad, &insert);
    }
    let quantity = Quantity::ALL
        .into_iter()
        .find(|q| q.name().eq_ignore_ascii_case(kind))
        .ok_or_else(|| bad(&format!("unknown goal '{kind}'")))?;
    for p in parts.filter(|p| !p.is_empty()) {
        insert(&mut pairs, p)?;
    }
    Ok(Target::AtBudget {
        quantity,
        budget,
        held: pairs,
    })
}
