//! Which runs to launch next: the batch of candidate runs that most narrows the goals within a
//! spend, designed from the fit of the runs so far or, before any run, from a prior; as
//! `scalinglaws design --json`.

use std::collections::BTreeMap;

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::analysis::allocation::Flops;
use scalinglaws::analysis::design::DesignSettings;
use scalinglaws::error::Setting;
use scalinglaws::job::design::{
    parse_goal, parse_ranges, simulations, CandidateSpace, DesignJob, PriorEntry, PriorSpec,
    PRIOR_SD,
};
use scalinglaws::job::{FitJob, FitRequest};
use scalinglaws_report::analyses::design::DesignReport;

use crate::data::{table, Data};
use crate::errors::{interruptible, py, request};

/// The candidate runs of a request: the ranges of a grid (`"N=1e7..1e11,D=1e8..1e13"`), or
/// the runs themselves, each with a value per law variable.
#[derive(Deserialize)]
#[serde(untagged)]
enum Candidates {
    Ranges(String),
    List(Vec<BTreeMap<String, f64>>),
}

/// A design's request: the fit's request (its recipe, law and settings; the recipe is unused
/// before any run), and the design's own settings.
#[derive(Deserialize)]
struct DesignRequest {
    #[serde(flatten)]
    fit: FitRequest,
    goal: Vec<String>,
    candidates: Candidates,
    /// The grid's shape (the Python layer refuses them with a list).
    per_decade: usize,
    tokens_per_param: Option<[f64; 2]>,
    max_cost: Option<f64>,
    cost: String,
    spend: Option<f64>,
    runs: usize,
    draws: usize,
    /// None: the library's default (none before any run).
    simulations: Option<usize>,
    sequential: usize,
    noise: Option<f64>,
    level: f64,
    /// What is known of each parameter before any run (None: the runs' fit is).
    prior: Option<BTreeMap<String, PriorEntry>>,
    /// The prior sd of a parameter the prior gives one value (None: the library's default).
    prior_sd: Option<f64>,
}

/// The design from the runs in `data` (with `data` None: from the request's prior); returns
/// the document of `scalinglaws design --json`, the law's variables in the law's order (the
/// document's runs name them in alphabetical order; the table of the runs to launch follows
/// the law, as the command's `--csv`), and the design's text report.
#[pyfunction]
#[pyo3(signature = (data, request_json))]
pub(crate) fn design(
    py_: Python<'_>,
    data: Option<Data>,
    request_json: &str,
) -> PyResult<(String, Vec<String>, String)> {
    let request: DesignRequest = request(request_json)?;
    let mut fit = py(FitJob::try_from(request.fit))?;
    // The design fits with the loss only and no bootstrap (as the command); the job itself
    // calibrates the fit beyond the data (`DesignJob::run`).
    fit.uncertainty.bootstrap = None;
    fit.uncertainty.level = request.level;
    let seed = fit.settings.settings.seed;
    let targets = request
        .goal
        .iter()
        .map(|text| parse_goal(text))
        .collect::<Result<Vec<_>, _>>();
    let candidates = match request.candidates {
        Candidates::Ranges(text) => CandidateSpace::Grid {
            ranges: py(parse_ranges(&text))?,
            per_decade: request.per_decade,
            tokens_per_param: request.tokens_per_param,
            max_cost: request.max_cost,
        },
        Candidates::List(runs) => CandidateSpace::List(runs),
    };
    let refits = py(simulations(request.simulations, request.prior.is_some()))?;
    let cost = py(Flops::parse(&request.cost).map_err(|e| e.within(Setting::Cost.subject())))?;
    fit.settings.settings.max_work = crate::fit::max_work();
    let interrupt = fit.settings.settings.interrupt.clone();
    let job = DesignJob {
        fit,
        prior: request.prior.map(|entries| PriorSpec {
            entries,
            sd: request.prior_sd.unwrap_or(PRIOR_SD),
        }),
        candidates,
        cost: cost.clone(),
        noise: request.noise,
        settings: DesignSettings {
            targets: py(targets)?,
            runs: request.runs,
            spend: request.spend,
            flops: cost,
            draws: request.draws,
            simulations: refits,
            rounds: request.sequential,
            level: request.level,
            seed,
        },
    };
    let table = match data {
        Some(data) => Some(py(table(data, &job.fit.recipe))?),
        None => None,
    };
    let outcome = interruptible(py_, &interrupt, || match &table {
        Some(table) => job.run(table),
        None => job.run_prior(),
    })?;
    let source = table.as_ref().map_or("none", |t| t.dataset.source());
    let (document, text) = crate::report::reported(&DesignReport {
        outcome: &outcome,
        source,
        cost: &job.cost.text,
    })?;
    Ok((document, outcome.law.variables, text))
}
