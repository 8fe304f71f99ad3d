//! Laws as `compare-laws`, `select` and `optimal --law` name them: `NAME`, or
//! `NAME[P=V,...]` with some (or, for `optimal`, all) parameters held at published values,
//! or a `--formula`.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use scalinglaws::job::CandidateSpec;
use scalinglaws::law::{catalog, Law};

use super::{split_name, LawChoice};
use crate::input;
use crate::input_error;

/// A law as given on the command line, with the parameters it holds at values.
#[derive(Debug, Clone)]
pub struct LawSpec {
    /// The law as typed (trimmed): its label in the reports.
    pub text: String,
    pub choice: LawChoice,
    pub fixed: BTreeMap<String, f64>,
}

impl LawSpec {
    /// `NAME` or `NAME[P=V,...]`.
    pub fn parse(text: &str) -> Result<LawSpec> {
        let trimmed = text.trim();
        let (name, fixed) = match trimmed.split_once('[') {
            None => (trimmed, BTreeMap::new()),
            Some((name, rest)) => {
                let Some(inner) = rest.strip_suffix(']') else {
                    return Err(input_error(format!(
                        "--law '{text}': a '[' must be closed by a ']' at the end, as in chinchilla[E=1.69,alpha=0.34]"
                    )));
                };
                (name.trim(), parse_fixed(text, inner)?)
            }
        };
        if name.is_empty() {
            return Err(input_error(format!(
                "--law '{text}': no law name before '['"
            )));
        }
        Ok(LawSpec {
            text: trimmed.to_string(),
            choice: LawChoice::Catalog(name.to_string()),
            fixed,
        })
    }

    /// A `--formula`: no parameter held.
    pub fn formula(text: &str) -> LawSpec {
        LawSpec {
            text: text.trim().to_string(),
            choice: LawChoice::Formula(text.to_string()),
            fixed: BTreeMap::new(),
        }
    }

    /// The laws of repeated `--law` and `--formula` options, laws first.
    pub fn all(laws: &[String], formulas: &[String]) -> Result<Vec<LawSpec>> {
        let mut specs = laws
            .iter()
            .map(|text| LawSpec::parse(text))
            .collect::<Result<Vec<_>>>()?;
        specs.extend(formulas.iter().map(|text| LawSpec::formula(text)));
        Ok(specs)
    }

    /// The candidates of `--law` and `--formula` (`compare-laws`, `select`), in that order,
    /// each labelled as typed.
    pub fn candidates(args: &crate::args::CandidateArgs) -> Result<Vec<CandidateSpec>> {
        let specs = LawSpec::all(&args.laws, &args.formulas)?;
        Ok(specs.into_iter().map(LawSpec::candidate).collect())
    }

    /// The law as a candidate of `compare-laws` or `select`, labelled as typed.
    fn candidate(self) -> CandidateSpec {
        CandidateSpec {
            label: self.text,
            law: self.choice,
            fixed: self.fixed,
        }
    }

    /// A catalog law with every parameter given (`optimal --law`): the law and its
    /// parameters in the law's order.
    pub fn published(text: &str) -> Result<(Law, Vec<f64>)> {
        let spec = LawSpec::parse(text)?;
        let LawChoice::Catalog(name) = &spec.choice else {
            unreachable!("LawSpec::parse gives catalog laws");
        };
        let law = catalog::lookup(name).with_context(|| format!("--law '{text}'"))?;
        let params = law
            .values_by_name(&spec.fixed, &format!("--law '{text}'"))
            .map_err(|e| input_error(e.to_string()))?;
        Ok((law, params))
    }
}

fn parse_fixed(text: &str, inner: &str) -> Result<BTreeMap<String, f64>> {
    let mut fixed = BTreeMap::new();
    for piece in input::split_top_level(inner) {
        let (name, value) = split_name("--law", piece, "NAME[P=V,...], e.g. chinchilla[E=1.69]")?;
        let value = input::constant(text, value).with_context(|| format!("--law '{text}'"))?;
        if !value.is_finite() {
            return Err(input_error(format!(
                "--law '{text}': {name}={value} is not a finite value"
            )));
        }
        if fixed.insert(name.to_string(), value).is_some() {
            return Err(input_error(format!(
                "--law '{text}': '{name}' is given twice"
            )));
        }
    }
    Ok(fixed)
}
