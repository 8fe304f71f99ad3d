//! `scalinglaws optimal`: the compute-optimal model size and token count of a saved fit (or of
//! a catalog law with published parameters) at one or more training budgets, or the cheapest
//! allocation that reaches a target loss; under caps on memory, active parameters and data, and
//! with expected inference tokens. Intervals come from the fit's bootstrap replicates when it
//! has them; over several budgets the exponents of the frontier are reported. From a fit, each
//! allocation's loss also gets the prediction interval of a new run there, calibrated beyond
//! the data by the fit's calibration (as in `predict`), the fit's own beside it. The library's
//! `OptimalJob` does the work; this command reads the fit and prints.

use std::path::PathBuf;

use anyhow::Result;
use scalinglaws::job::{OptimalJob, OptimalSource};
use scalinglaws::law::Law;

use crate::output::{self, Destination};
use crate::saved;
use scalinglaws_report::analyses::optimal::{OptimalReport, Parameters};

/// Where the law and its parameters come from (one value per run: its size does not matter).
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
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
    /// The budgets or target losses, the FLOPs formula, held variables, caps, inference
    /// tokens and level (the draws come from the fit).
    pub job: OptimalJob,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let (source, parameters) = match &config.source {
        Source::Fit(path) => (OptimalSource::Fit(saved::fit(path)?.0), Parameters::Fitted),
        Source::Published { law, params } => (
            OptimalSource::Published {
                law: law.clone(),
                params: params.clone(),
            },
            Parameters::Given,
        ),
    };
    let frontier = config.job.run(&source)?;
    let report = OptimalReport {
        frontier: &frontier,
        law: &source.label()?,
        parameters,
    };
    output::emit(config.json.as_ref(), &report)
}
