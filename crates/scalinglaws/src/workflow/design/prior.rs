//! What is known of a law's parameters before any run: a value or a range per parameter
//! (`E=1.82,A=200..800`), read as the centre and sd of a prior in the design's coordinates.

use std::collections::BTreeMap;

use schemars::JsonSchema;

use crate::analysis::design::refuse;
use crate::analysis::design::Coordinates;
use crate::error::{short_number, Result, Setting};
use crate::law::Law;

/// What is known of the parameters before any run: per parameter a value (the centre, with
/// the prior sd `sd`) or a range LOW..HIGH (read as the centre ± 2 sd). Both are in the
/// design's coordinates: log θ for a parameter bounded below by zero, θ otherwise.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PriorSpec {
    pub entries: BTreeMap<String, PriorEntry>,
    /// The prior sd of a parameter given one value.
    pub sd: f64,
}

/// One parameter's prior.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PriorEntry {
    /// The centre, with the prior's sd of a value.
    Value(f64),
    /// `[low, high]`, read as the centre ± 2 sd.
    Range([f64; 2]),
}

/// The prior sd of a parameter given one value, by default: in log θ, a factor e^0.5 ≈ 1.65
/// either way at one sd (an exponent of 0.34 known to lie in 0.12..0.92 at 2 sd): the
/// knowledge of a published law carried to a new setting, not its fit's own precision.
pub const PRIOR_SD: f64 = 0.5;

impl PriorSpec {
    /// The prior of `entries`, a value's sd `sd` when given, else [`PRIOR_SD`].
    pub fn new(entries: BTreeMap<String, PriorEntry>, sd: Option<f64>) -> PriorSpec {
        PriorSpec {
            entries,
            sd: sd.unwrap_or(PRIOR_SD),
        }
    }

    /// The rules that need no law: the sd positive and finite, a parameter at least, each
    /// value finite and each range LOW < HIGH.
    pub fn check(&self) -> Result<()> {
        if !(self.sd.is_finite() && self.sd > 0.0) {
            return Err(refuse(
                Setting::PriorSd,
                format!("{} must be positive and finite", short_number(self.sd)),
            ));
        }
        if self.entries.is_empty() {
            return Err(refuse(
                Setting::Prior,
                "no parameter; give each free parameter of the law a value or a range",
            ));
        }
        match self.entries.iter().find(|(_, e)| !e.is_valid()) {
            Some((name, _)) => Err(refuse(
                Setting::Prior,
                format!("'{name}': give a finite value, or a range LOW..HIGH with LOW < HIGH"),
            )),
            None => Ok(()),
        }
    }

    /// The prior's sd is positive and its names, and the held ones, are the law's parameters,
    /// none both held and given a prior.
    fn check_names(&self, law: &Law, fixed: &BTreeMap<String, f64>) -> Result<()> {
        self.check()?;
        if let Some(name) = self.entries.keys().find(|n| law.param_index(n).is_none()) {
            return Err(refuse(
                Setting::Prior,
                format!(
                    "'{name}' is not a parameter of the law (its parameters are {})",
                    law.param_names().join(", ")
                ),
            ));
        }
        if let Some(name) = fixed.keys().find(|n| law.param_index(n).is_none()) {
            return Err(refuse(
                Setting::Fix,
                format!(
                    "'{name}' is not a parameter of the law (its parameters are {})",
                    law.param_names().join(", ")
                ),
            ));
        }
        if let Some(name) = self.entries.keys().find(|n| fixed.contains_key(*n)) {
            return Err(refuse(
                Setting::Prior,
                format!("'{name}' is also held at a value; give it a prior or hold it, not both"),
            ));
        }
        Ok(())
    }

    /// Each parameter's centre (fixed ones at their value) in the law's order, and each free
    /// parameter's prior sd in the design's coordinates.
    pub fn resolve(
        &self,
        law: &Law,
        fixed: &BTreeMap<String, f64>,
    ) -> Result<(Vec<f64>, Vec<f64>)> {
        self.check_names(law, fixed)?;
        let mut centre = Vec::with_capacity(law.params.len());
        for p in &law.params {
            let value = match (fixed.get(&p.name), self.entries.get(&p.name)) {
                (Some(v), _) => *v,
                (None, Some(entry)) => entry_centre(p, *entry)?,
                (None, None) => {
                    return Err(refuse(Setting::Prior, format!(
                        "'{}' has no prior; give every free parameter of the law ({}) a value or a range",
                        p.name,
                        law.param_names().join(", ")
                    )))
                }
            };
            if !(value >= p.lower && value <= p.upper) {
                return Err(refuse(
                    Setting::Prior,
                    format!(
                        "{}={} lies outside the parameter's bounds [{}, {}]",
                        p.name,
                        short_number(value),
                        short_number(p.lower),
                        short_number(p.upper)
                    ),
                ));
            }
            centre.push(value);
        }
        for p in &law.params {
            if let Some(PriorEntry::Range([lo, hi])) = self.entries.get(&p.name) {
                if *lo < p.lower || *hi > p.upper || (p.lower >= 0.0 && *lo <= 0.0) {
                    return Err(refuse(
                        Setting::Prior,
                        format!(
                            "{}={}..{} reaches outside the parameter's bounds [{}, {}]{}",
                            p.name,
                            short_number(*lo),
                            short_number(*hi),
                            short_number(p.lower),
                            short_number(p.upper),
                            if p.lower >= 0.0 {
                                "; a range of a positive parameter is read in log θ, so its low end must be above 0"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
            }
        }
        let coords = Coordinates::new(law, &|name| fixed.contains_key(name), &centre);
        let sd = coords
            .free
            .iter()
            .zip(&coords.log)
            .map(|(&i, &log)| match self.entries[&law.params[i].name] {
                PriorEntry::Value(_) => self.sd,
                PriorEntry::Range([lo, hi]) if log => (hi / lo).ln() / 4.0,
                PriorEntry::Range([lo, hi]) => (hi - lo) / 4.0,
            })
            .collect();
        Ok((centre, sd))
    }

    /// `E=1.82, alpha=0.2..0.5 (sd 0.5 of a value)`.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .entries
            .iter()
            .map(|(name, entry)| match entry {
                PriorEntry::Value(v) => format!("{name}={}", short_number(*v)),
                PriorEntry::Range([lo, hi]) => {
                    format!("{name}={}..{}", short_number(*lo), short_number(*hi))
                }
            })
            .collect();
        let values = self
            .entries
            .values()
            .any(|e| matches!(e, PriorEntry::Value(_)));
        let sd = if values {
            format!(" (a value with sd {})", short_number(self.sd))
        } else {
            String::new()
        };
        format!("{}{sd}", parts.join(", "))
    }
}

impl PriorEntry {
    /// A finite value, or a range of finite ends with LOW < HIGH.
    fn is_valid(&self) -> bool {
        match *self {
            PriorEntry::Value(v) => v.is_finite(),
            PriorEntry::Range([lo, hi]) => lo.is_finite() && hi.is_finite() && lo < hi,
        }
    }
}

/// A parameter's prior centre: its value, or the middle of its range (geometric for a range
/// of positive values of a parameter bounded below by zero, which the design moves in log θ).
fn entry_centre(param: &crate::law::ParamSpec, entry: PriorEntry) -> Result<f64> {
    match entry {
        PriorEntry::Value(v) if v.is_finite() => Ok(v),
        PriorEntry::Range([lo, hi]) if lo.is_finite() && hi.is_finite() && lo < hi => {
            Ok(if param.lower >= 0.0 && lo > 0.0 {
                (lo * hi).sqrt()
            } else {
                (lo + hi) / 2.0
            })
        }
        _ => Err(refuse(
            Setting::Prior,
            format!(
                "'{}': give a finite value, or a range LOW..HIGH with LOW < HIGH",
                param.name
            ),
        )),
    }
}

/// `E=1.82,A=200..800,alpha=0.34`: a value or a range per parameter (a range's ends may be
/// negative for a parameter that can be).
pub fn parse_prior(text: &str) -> Result<BTreeMap<String, PriorEntry>> {
    let bad = |part: &str, why: &str| {
        refuse(Setting::Prior, format!(
            "'{part}': {why}; write NAME=VALUE or NAME=LOW..HIGH per parameter, e.g. E=1.82,A=200..800"
        ))
    };
    let mut out = BTreeMap::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = part.split_once('=').ok_or_else(|| bad(part, "no '='"))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(bad(part, "the parameter's name is empty"));
        }
        let number = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite());
        let entry = match value.split_once("..") {
            Some((a, b)) => match (number(a), number(b)) {
                (Some(lo), Some(hi)) if lo < hi => PriorEntry::Range([lo, hi]),
                (Some(_), Some(_)) => {
                    return Err(bad(part, "the low end is not below the high end"))
                }
                _ => return Err(bad(part, "the ends must be numbers")),
            },
            None => PriorEntry::Value(number(value).ok_or_else(|| bad(part, "not a number"))?),
        };
        if out.insert(name.to_string(), entry).is_some() {
            return Err(bad(part, "the parameter is named twice"));
        }
    }
    if out.is_empty() {
        return Err(bad(text, "no parameter"));
    }
    Ok(out)
}
