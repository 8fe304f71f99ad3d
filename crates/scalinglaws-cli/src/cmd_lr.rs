//! `scalinglaws lr`: the learning rate (and batch size) to use at a target scale, from LR
//! sweeps on smaller runs (`scalinglaws::workflow::lr`). This file only turns the arguments
//! into the workflow's spec (and `--predict N=V,D=V` into pairs); the defaults, ranges and
//! rules are the library's.

use anyhow::{Context, Result};
use clap::Args;
use scalinglaws::analysis::lr::LrSettings;
use scalinglaws::workflow::lr::{Lr, LrColumns, LrSpec};
use scalinglaws::workflow::Ctx;

use crate::args::names::{named, LrCurvature, LrForm, LrMethod};
use crate::args::DataArgs;
use crate::config::{destination, recipe, split_name};
use crate::input::{constant, split_top_level};
use crate::input_error;
use crate::workflow::{run as run_workflow, Io};

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  scalinglaws lr sweep.csv --lr peak_lr --size N --tokens D --target loss \\\n      --predict N=7e9,D=1.4e12"
)]
pub struct LrArgs {
    #[command(flatten)]
    pub data: DataArgs,

    /// The column of each run's (peak) learning rate.
    #[arg(long, value_name = "COLUMN")]
    pub lr: String,

    /// The column of model size N.
    #[arg(long, value_name = "COLUMN")]
    pub size: String,

    /// The column of training tokens D.
    #[arg(long, value_name = "COLUMN")]
    pub tokens: String,

    /// The column of batch size: cells become (N, D, B), and B* = c·D^b is fitted too.
    #[arg(long, value_name = "COLUMN")]
    pub batch: Option<String>,

    /// The law of the optimal LR: loglinear (ln lr* linear in ln N, ln D) or curved (adds
    /// squared logs).
    #[arg(long, value_name = "FORM", value_enum, default_value_t = named::<LrForm, _>(LrSettings::default().form))]
    pub law: LrForm,

    /// joint: one fit over every run near each cell's optimum (edge cells count as bounds);
    /// cells: weighted least squares on the per-cell optima.
    #[arg(long, value_name = "METHOD", value_enum, default_value_t = named::<LrMethod, _>(LrSettings::default().method))]
    pub method: LrMethod,

    /// The joint fit's profile curvatures: law (ln k linear in ln N, ln D; calibrated) or cell
    /// (a free curvature per cell).
    #[arg(long, value_name = "KIND", value_enum, default_value_t = named::<LrCurvature, _>(LrSettings::default().curvature))]
    pub curvature: LrCurvature,

    /// Predict lr* (and B*) at this scale (repeatable).
    #[arg(long = "predict", value_name = "N=V,D=V")]
    pub predict: Vec<String>,

    /// Distinct LRs on each side of a cell's best one that its parabola uses.
    #[arg(long, value_name = "K", default_value_t = LrSettings::default().half_window)]
    pub window: usize,

    /// Runs whose loss is more than this fraction above their cell's best are left out of the
    /// parabola (diverged, or too far from the optimum).
    #[arg(long = "max-rise", value_name = "F", default_value_t = LrSettings::default().max_rise)]
    pub max_rise: f64,

    /// The loss noise (seed-to-seed standard deviation) [default: estimated].
    #[arg(long, value_name = "SIGMA", allow_hyphen_values = true)]
    pub noise: Option<f64>,

    /// Fraction of horizons (per N) and of model sizes the backtests hold out.
    #[arg(long, value_name = "F", default_value_t = LrSettings::default().holdout)]
    pub holdout: f64,

    /// Level of the intervals.
    #[arg(long, value_name = "P", default_value_t = LrSettings::default().level)]
    pub level: f64,

    /// Write the analysis as JSON to PATH (the report still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}

pub fn run(args: LrArgs) -> Result<()> {
    let data = recipe(args.data)?;
    let spec = LrSpec {
        recipe: data.recipe,
        columns: LrColumns {
            lr: args.lr,
            size: args.size,
            tokens: args.tokens,
            batch: args.batch,
        }
        .trimmed(),
        settings: LrSettings {
            form: args.law.into(),
            method: args.method.into(),
            curvature: args.curvature.into(),
            half_window: args.window,
            max_rise: args.max_rise,
            noise: args.noise,
            level: args.level,
            targets: args
                .predict
                .iter()
                .map(|text| target(text))
                .collect::<Result<_>>()?,
            holdout: args.holdout,
        },
    };
    let io = Io {
        path: data.path,
        delimiter: data.delimiter,
        json: destination(args.json.as_deref()),
    };
    run_workflow::<Lr>(&io, &spec, &Ctx::default())
}

/// `N=V,D=V` (values may be constant expressions such as 7e9 or 20*7e9); their range is the
/// library's rule.
fn target(text: &str) -> Result<(f64, f64)> {
    let form = "N=V,D=V, e.g. N=7e9,D=1.4e12";
    let mut n = None;
    let mut d = None;
    for piece in split_top_level(text) {
        let (name, value) = split_name("--predict", piece.trim(), form)?;
        let value = constant(text, value).context("--predict")?;
        match name {
            "N" => n = Some(value),
            "D" => d = Some(value),
            other => {
                return Err(input_error(format!(
                    "--predict '{text}': '{other}' is neither N nor D; expected {form}"
                )))
            }
        }
    }
    match (n, d) {
        (Some(n), Some(d)) => Ok((n, d)),
        _ => Err(input_error(format!(
            "--predict '{text}': give both N and D, as {form}"
        ))),
    }
}
