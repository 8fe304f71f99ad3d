//! `scalinglaws qc`: which runs to set aside before a fit, each flagged row with its rule, the
//! value it measured and the threshold (`scalinglaws::workflow::qc`). This file only turns the
//! arguments into the workflow's spec; the rules, defaults and checks are the library's.

use anyhow::Result;
use clap::Args;
use scalinglaws::data::qc::{QcSettings, DEFAULT_CUTOFF, DEFAULT_DUPLICATE_TOLERANCE};
use scalinglaws::job::LawChoice;
use scalinglaws::workflow::qc::{Qc, QcSpec};

use crate::args::DataArgs;
use crate::config::{destination, recipe};
use crate::workflow::{run as run_workflow, Io};

#[derive(Debug, Args)]
pub struct QcArgs {
    #[command(flatten)]
    pub data: DataArgs,

    /// A built-in law fitted to the runs the data rules leave: rows far from it are flagged
    /// (law_outlier). Without a law that rule does not run.
    #[arg(long, value_name = "NAME", conflicts_with = "formula")]
    pub law: Option<String>,

    /// A law as a formula, instead of --law.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub formula: Option<String>,

    /// A column that places a run at one scale (repeat: --scale N --scale D). Rows equal on
    /// every scale column are neighbours, and with the loss they are the columns compared for
    /// duplicates [default: the law's variables].
    #[arg(long = "scale", value_name = "COLUMN")]
    pub scale: Vec<String>,

    /// The column of the compute budget (repeat to add columns that tell configurations
    /// apart): a run more than 10 % above the curve the other runs of its budget trace along a
    /// --scale (or --step) column that varies (a swept learning rate, a profile's size) is
    /// flagged.
    #[arg(long = "budget", value_name = "COLUMN")]
    pub budget: Vec<String>,

    /// The column of steps or tokens seen: checkpoints at 0 are flagged (and before --warmup).
    #[arg(long, value_name = "COLUMN")]
    pub step: Option<String>,

    /// The warm-up length in the --step column's units: earlier checkpoints are flagged (none
    /// is assumed).
    #[arg(long, value_name = "STEPS")]
    pub warmup: Option<f64>,

    /// The cutoff of the law rule on robust (median/MAD) modified z-scores (Iglewicz &
    /// Hoaglin 1993), and of the neighbour rule as the deletion t as rare as |z| > cutoff.
    #[arg(long, value_name = "Z", default_value_t = DEFAULT_CUTOFF)]
    pub cutoff: f64,

    /// Rows whose loss and compared columns all agree within this relative difference are
    /// near-duplicates (0: exact duplicates only).
    #[arg(long = "duplicate-tolerance", value_name = "REL", default_value_t = DEFAULT_DUPLICATE_TOLERANCE)]
    pub duplicate_tolerance: f64,

    /// Compare losses as they are, not in log space (for targets that can be 0 or negative).
    #[arg(long)]
    pub linear: bool,

    /// Write every flag as JSON to PATH (the report still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}

pub fn run(args: QcArgs) -> Result<()> {
    let data = recipe(args.data)?;
    let law = match (args.law, args.formula) {
        (None, None) => None,
        (law, formula) => Some(LawChoice::from_request(law, formula)?),
    };
    let trim = |names: Vec<String>| names.into_iter().map(|n| n.trim().to_string()).collect();
    let spec = QcSpec {
        recipe: data.recipe,
        law,
        scale: trim(args.scale),
        budget: trim(args.budget),
        step: args.step.map(|s| s.trim().to_string()),
        settings: QcSettings {
            cutoff: args.cutoff,
            duplicate_tolerance: args.duplicate_tolerance,
            warmup: args.warmup,
        },
        log: !args.linear,
    };
    let io = Io {
        path: data.path,
        delimiter: data.delimiter,
        json: destination(args.json.as_deref()),
    };
    run_workflow::<Qc>(&io, &spec, &scalinglaws::workflow::Ctx::default())
}
