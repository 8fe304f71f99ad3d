//! `scalinglaws optimal`: the compute-optimal model size and token count of a saved fit (or of
//! a catalog law with published parameters) at one or more training budgets, or the cheapest
//! allocation that reaches a target loss; under caps on memory, active parameters and data, and
//! with expected inference tokens. Intervals come from the fit's bootstrap replicates when it
//! has them; over several budgets the exponents of the frontier are reported. From a fit, each
//! allocation's loss also gets the prediction interval of a new run there, calibrated beyond
//! the data by the fit's calibration (as in `predict`), the fit's own beside it.

use std::path::PathBuf;

use anyhow::Result;
use scalinglaws::analysis::allocation::{optimal, AllocationSettings};
use scalinglaws::law::Law;
use scalinglaws::uncertainty::FitRecord;

use crate::output::{self, Destination};
use crate::saved;
use scalinglaws::job::allocation_from_fit;
use scalinglaws_report::analyses::optimal::{OptimalReport, Parameters};

/// Where the law and its parameters come from.
#[derive(Debug)]
pub enum Source {
    /// A fit written by `scalinglaws fit --json`.
    Fit(PathBuf),
    /// A catalog law with every parameter given (`chinchilla[E=1.82,A=482,...]`): the law and
    /// its parameters in its order.
    Published { law: Law, params: Vec<f64> },
}

#[derive(Debug)]
pub struct Config {
    pub source: Source,
    /// The budgets or target losses, the FLOPs formula, held variables, caps and inference
    /// tokens (the draws and level come from the fit).
    pub settings: AllocationSettings,
    pub level: Option<f64>,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let (law, params, fitted) = law_and_params(&config.source)?;
    let settings = allocation_from_fit(config.settings.clone(), fitted.as_ref(), config.level);
    let mut frontier = optimal(&law, &params, &settings)?;
    if let Some(result) = &fitted {
        frontier.add_prediction_intervals(result, settings.level)?;
    }
    let report = OptimalReport {
        frontier: &frontier,
        law: &law_label(&config.source, &law),
        parameters: match config.source {
            Source::Fit(_) => Parameters::Fitted,
            Source::Published { .. } => Parameters::Given,
        },
    };
    output::emit(config.json.as_ref(), &report)
}

/// The law, its parameters and the fit they come from (none for published parameters).
fn law_and_params(source: &Source) -> Result<(Law, Vec<f64>, Option<FitRecord>)> {
    match source {
        Source::Fit(path) => {
            let (result, law) = saved::fit(path)?;
            Ok((law, result.param_values(), Some(result)))
        }
        Source::Published { law, params } => Ok((law.clone(), params.clone(), None)),
    }
}

fn law_label(source: &Source, law: &Law) -> String {
    match source {
        Source::Fit(_) => law.label().to_string(),
        Source::Published { .. } => format!("{} (given parameters)", law.label()),
    }
}
