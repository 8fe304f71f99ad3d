//! `scalinglaws design`: which runs to launch next. The law is fitted to the runs so far, the
//! candidate runs are laid out (a log grid over ranges, or a list), and the batch that most
//! narrows the goals' intervals within the spend and the number of runs is chosen, its
//! expected widths checked by simulated outcomes and refits (and, with `--sequential`, a
//! campaign of several rounds planned).

use std::path::PathBuf;

use anyhow::Result;
use scalinglaws::error::Setting;
use scalinglaws::job::design::{CandidateSpace, DesignJob};
use scalinglaws_report::analyses::design::{runs_csv, DesignReport};
use scalinglaws_report::plots::design_page;

use crate::figure;
use crate::input;
use crate::output::{self, Destination};

#[derive(Debug)]
pub struct Config {
    /// The runs so far (None: a design before any run, from the job's prior).
    pub path: Option<PathBuf>,
    pub delimiter: Option<u8>,
    pub job: DesignJob,
    pub json: Option<Destination>,
    pub csv: Option<Destination>,
    pub plot: Option<figure::Output>,
}

pub fn run(config: &Config) -> Result<()> {
    let outcome = match &config.path {
        Some(path) => {
            let table = input::read(path, config.delimiter, &config.job.fit.recipe)?;
            config.job.run(&table)
        }
        None => config.job.run_prior(),
    };
    let outcome = outcome.map_err(|error| {
        // The library's key of the candidates is one for the grid and the list.
        let listed = matches!(config.job.candidates, CandidateSpace::List(_));
        if listed && error.key() == Some(Setting::Candidates) {
            anyhow::Error::new(error).context("--candidates-file")
        } else {
            anyhow::Error::new(error)
        }
    })?;
    if let Some(target) = &config.plot {
        figure::write(&design_page(&outcome)?, target)?;
    }
    if let Some(csv) = &config.csv {
        output::write(csv, &runs_csv(&outcome))?;
    }
    let source = config
        .path
        .as_ref()
        .map_or("none".to_string(), |p| p.display().to_string());
    let report = DesignReport {
        outcome: &outcome,
        source: &source,
        cost: &config.job.cost.text,
    };
    // The CSV or the picture on stdout is all that goes there (`output::emit`; the JSON, if
    // asked for, is then a file: config/design.rs lets one output at most take stdout).
    output::emit(config.json.as_ref(), &report)
}
