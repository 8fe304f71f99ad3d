//! `scalinglaws optimal`: the compute-optimal model size and token count of a saved fit (or of
//! a catalog law with published parameters) at one or more training budgets, or the cheapest
//! allocation that reaches a target loss; under caps on memory, active parameters and data, and
//! with expected inference tokens. Intervals come from the fit's bootstrap replicates when it
//! has them; over several budgets the exponents of the frontier are reported. From a fit, each
//! allocation's loss also gets the prediction interval of a new run there, calibrated beyond
//! the data by the fit's calibration (as in `predict`), the fit's own beside it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, Result};
use scalinglaws::analysis::allocation::{optimal, AllocationSettings, Flops, Formula};
use scalinglaws::law::{catalog, Law};
use scalinglaws::uncertainty::FitRecord;

use crate::cmd_compare_laws::LawSpec;
use crate::cmd_predict::load_fit;
use crate::config::{split_name, LawChoice};
use crate::input;
use crate::input_error;
use crate::output::{self, Destination};
use scalinglaws::job::allocation_from_fit;
use scalinglaws_report::analyses::optimal::{OptimalReport, Parameters};

/// Where the law and its parameters come from.
#[derive(Debug)]
pub enum Source {
    /// A fit written by `scalinglaws fit --json`.
    Fit(PathBuf),
    /// A catalog law with every parameter given: `chinchilla[E=1.82,A=482,...]`.
    Published(String),
}

#[derive(Debug)]
pub struct Config {
    pub source: Source,
    pub budgets: Vec<String>,
    pub target_losses: Vec<String>,
    pub flops: String,
    pub held: Vec<String>,
    pub total_params: Option<String>,
    pub max_params: Option<String>,
    pub max_active: Option<String>,
    pub max_tokens: Option<String>,
    pub inference_tokens: Option<String>,
    pub level: Option<f64>,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let (law, params, fitted) = law_and_params(&config.source)?;
    let list = |option: &str, texts: &[String]| -> Result<Vec<f64>> {
        let mut values = Vec::new();
        for text in texts {
            values.extend(
                input::constant_list(text, text).with_context(|| format!("{option} '{text}'"))?,
            );
        }
        Ok(values)
    };
    let budgets = list("--budget", &config.budgets)?;
    let target_losses = list("--target-loss", &config.target_losses)?;
    if budgets.is_empty() == target_losses.is_empty() {
        return Err(input_error(
            "give the budgets to allocate (--budget C) or the losses to reach at least compute (--target-loss L), one of the two",
        ));
    }
    let one = |option: &str, text: &Option<String>| -> Result<Option<f64>> {
        text.as_deref()
            .map(|t| input::constant(t, t).with_context(|| format!("{option} '{t}'")))
            .transpose()
    };
    let held = held_values(&config.held)?;
    let mut allowed: Vec<&str> = vec!["N"];
    allowed.extend(held.keys().map(String::as_str));
    let total_params = match config.total_params.as_deref() {
        Some(text) => Some(
            Formula::parse(text, &allowed, "the total-parameters formula")
                .context("--total-params")?,
        ),
        None => None,
    };
    let settings = allocation_from_fit(
        AllocationSettings {
            budgets,
            target_losses,
            flops: Flops::parse(&config.flops).context("--flops")?,
            held,
            total_params,
            inference_tokens: one("--inference-tokens", &config.inference_tokens)?.unwrap_or(0.0),
            max_params: one("--max-params", &config.max_params)?,
            max_active: one("--max-active", &config.max_active)?,
            max_tokens: one("--max-tokens", &config.max_tokens)?,
            ..AllocationSettings::at_budgets(Vec::new())
        },
        fitted.as_ref(),
        config.level,
    );
    let mut frontier = optimal(&law, &params, &settings)?;
    if let Some(result) = &fitted {
        frontier.add_prediction_intervals(result, settings.level)?;
    }
    let report = OptimalReport {
        frontier: &frontier,
        law: &law_label(&config.source, &law),
        parameters: match config.source {
            Source::Fit(_) => Parameters::Fitted,
            Source::Published(_) => Parameters::Given,
        },
    };
    output::emit(config.json.as_ref(), &report)
}

/// The law, its parameters and the fit they come from (none for published parameters).
fn law_and_params(source: &Source) -> Result<(Law, Vec<f64>, Option<FitRecord>)> {
    match source {
        Source::Fit(path) => {
            let (result, law) = load_fit(path)?;
            Ok((law, result.param_values(), Some(result)))
        }
        Source::Published(text) => {
            let spec = LawSpec::parse(text)?;
            let LawChoice::Catalog(name) = &spec.choice else {
                unreachable!("LawSpec::parse gives catalog laws");
            };
            let law = catalog::lookup(name).with_context(|| format!("--law '{text}'"))?;
            let params = law
                .values_by_name(&spec.fixed, &format!("--law '{text}'"))
                .map_err(|e| input_error(e.to_string()))?;
            Ok((law, params, None))
        }
    }
}

fn law_label(source: &Source, law: &Law) -> String {
    match source {
        Source::Fit(_) => law.label().to_string(),
        Source::Published(_) => format!("{} (given parameters)", law.label()),
    }
}

/// `--set VAR=V` or `--set VAR=V1,V2,...` (several values: optimised over).
pub fn held_values(texts: &[String]) -> Result<BTreeMap<String, Vec<f64>>> {
    let mut held = BTreeMap::new();
    for text in texts {
        let (name, values) = split_name("--set", text, "VAR=VALUE[,VALUE...], e.g. U=25e9")?;
        let values =
            input::constant_list(text, values).with_context(|| format!("--set '{text}'"))?;
        if held.insert(name.to_string(), values).is_some() {
            return Err(input_error(format!("--set: '{name}' is given twice")));
        }
    }
    Ok(held)
}
