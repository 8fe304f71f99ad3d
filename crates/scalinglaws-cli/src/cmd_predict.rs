//! `scalinglaws predict`: evaluates a saved fit at new points, so that a fit written once by
//! `fit --json` answers "what loss at N, D?" without refitting. Points are given per law
//! variable (`N=7e10 D=1.4e12`), as lists for several points. The workflow, its default level
//! and its checks are the library's (`scalinglaws::workflow::predict`); this file holds the
//! arguments and turns them into its spec.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use scalinglaws::workflow::predict::{PredictJob, PredictWorkflow};
use scalinglaws::workflow::Ctx;

use crate::config::destination;
use crate::config::values::named_lists;
use crate::workflow::{run as run_workflow, Io};

#[derive(Debug, Args)]
pub struct PredictArgs {
    /// A fit written by `scalinglaws fit --json PATH`.
    #[arg(value_name = "FIT.json")]
    pub fit: PathBuf,

    /// Values of every law variable: N=7e10 D=1.4e12, or lists N=1e9,1e10 D=2e10 (lists of
    /// equal length; a single value is used for every point).
    #[arg(value_name = "VAR=VALUE", required = true)]
    pub points: Vec<String>,

    /// Confidence level of the intervals.
    #[arg(long, value_name = "P", default_value_t = scalinglaws::uncertainty::DEFAULT_LEVEL)]
    pub level: f64,

    /// Write the predictions as JSON to PATH (the table still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}

pub fn run(args: PredictArgs) -> Result<()> {
    let spec = PredictJob {
        points: named_lists("predict", "VAR=VALUE, e.g. N=7e10", &args.points)?,
        level: args.level,
    };
    let io = Io {
        path: args.fit,
        delimiter: None,
        json: destination(args.json.as_deref()),
    };
    run_workflow::<PredictWorkflow>(&io, &spec, &Ctx::default())
}
