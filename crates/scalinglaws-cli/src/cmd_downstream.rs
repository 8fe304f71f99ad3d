//! `scalinglaws downstream`: task accuracy at a larger model from the evaluations of smaller
//! models (and a model's own early checkpoints), or a backtest on held-out models
//! (`scalinglaws::workflow::downstream`). This file turns the arguments into the workflow's
//! spec (syntax only: `--at N=..,D=..`, a number or a column for `--trials` and `--chance`,
//! comma lists of `--holdout`) and draws its `--plot`; the defaults and rules are the
//! library's.

use anyhow::Result;
use clap::Args;
use scalinglaws::analysis::downstream::{DownstreamSettings, Target};
use scalinglaws::data::recipe::Trials;
use scalinglaws::workflow::downstream::{
    self, ColumnOrValue, Downstream, DownstreamJob, DownstreamSpec, TargetRequest,
};
use scalinglaws::workflow::Ctx;
use scalinglaws_report::plots::downstream_page;

use crate::args::DataArgs;
use crate::config::plot::plot_and_json;
use crate::config::recipe;
use crate::figure;
use crate::input_error;
use crate::workflow::{run_drawing, Io};

#[derive(Debug, Args)]
pub struct DownstreamArgs {
    #[command(flatten)]
    pub data: DataArgs,

    /// The column naming each evaluation's model (a run whose checkpoints are evaluated).
    #[arg(long, value_name = "COLUMN", default_value = downstream::MODEL_COLUMN)]
    pub model: String,

    /// The column naming each evaluation's task.
    #[arg(long, value_name = "COLUMN", default_value = downstream::TASK_COLUMN)]
    pub task: String,

    /// The column of model size N.
    #[arg(long, value_name = "COLUMN", default_value = downstream::SIZE_COLUMN)]
    pub size: String,

    /// The column of training tokens D at the checkpoint.
    #[arg(long, value_name = "COLUMN", default_value = downstream::TOKENS_COLUMN)]
    pub tokens: String,

    /// The column of each checkpoint's loss (the two-stage chain needs it).
    #[arg(long, value_name = "COLUMN")]
    pub loss: Option<String>,

    /// Each task's number of questions: a column (constant within a task) or one count.
    /// Gives binomial errors and the binomial likelihood of the logistic fits.
    #[arg(long, value_name = "COLUMN|N")]
    pub trials: Option<String>,

    /// Each task's chance level: a column (constant within a task) or one value [default: 0].
    #[arg(long, value_name = "COLUMN|X")]
    pub chance: Option<String>,

    /// Forecast a model of N parameters at D tokens: N=6.9e9,D=3e11 (repeatable; add
    /// model=NAME to forecast a model of the data from its own checkpoints).
    #[arg(long = "at", value_name = "N=..,D=..[,model=NAME]")]
    pub at: Vec<String>,

    /// Backtest: hold out these models (comma list, repeatable) and forecast them from the rest.
    #[arg(long, value_name = "MODEL[,MODEL]")]
    pub holdout: Vec<String>,

    /// With --holdout: keep the held-out models' checkpoints up to this many tokens and
    /// forecast their later ones.
    #[arg(long = "own-until", value_name = "TOKENS")]
    pub own_until: Option<f64>,

    /// How many of the largest model sizes the pooled model's trend runs through.
    #[arg(long, value_name = "K", default_value_t = DownstreamSettings::default().anchors)]
    pub anchors: usize,

    /// Tasks whose names start with PREFIX are unseen by the pooled model (a transfer check).
    #[arg(long, value_name = "PREFIX")]
    pub unseen: Option<String>,

    /// Level of the intervals.
    #[arg(long, value_name = "P", default_value_t = DownstreamSettings::default().level)]
    pub level: f64,

    /// Worker threads [default: all cores]; the result does not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,

    /// Also draw accuracy against compute per informative task, observed and forecast:
    /// FILE.svg, FILE.png or - (SVG on stdout).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<String>,

    /// Write the result as JSON to PATH (the report still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}

pub fn run(args: DownstreamArgs) -> Result<()> {
    let (plot, json) = plot_and_json(args.plot.as_deref(), args.json.as_deref())?;
    let data = recipe(args.data)?;
    let job = DownstreamJob {
        model: args.model,
        task: args.task,
        size: args.size,
        tokens: args.tokens,
        loss: args.loss,
        questions: args.trials.as_deref().map(column_or_count),
        chance: args.chance.as_deref().map(column_or_value),
        at: args.at.iter().map(|t| target(t)).collect::<Result<_>>()?,
        holdout: args
            .holdout
            .iter()
            .flat_map(|h| h.split(','))
            .filter(|h| !h.trim().is_empty())
            .map(str::to_string)
            .collect(),
        own_until: args.own_until,
        settings: DownstreamSettings {
            level: args.level,
            anchors: args.anchors,
            unseen: args.unseen,
            threads: args.threads.map(crate::config::capped_threads),
            interrupt: Default::default(),
        },
    }
    .trimmed();
    let spec = DownstreamSpec {
        recipe: data.recipe,
        job,
    };
    let io = Io {
        path: data.path,
        delimiter: data.delimiter,
        json,
    };
    run_drawing::<Downstream>(&io, &spec, &Ctx::default(), |_, analysis| match &plot {
        Some(target) => figure::write(&downstream_page(&analysis.result), target),
        None => Ok(()),
    })
}

/// `N=6.9e9,D=3e11[,model=NAME]` as the library's target request (its range is the library's
/// rule).
fn target(text: &str) -> Result<Target> {
    let mut request = TargetRequest {
        n: f64::NAN,
        d: f64::NAN,
        model: None,
    };
    let (mut n, mut d) = (false, false);
    for piece in text.split(',') {
        let Some((key, value)) = piece.split_once('=') else {
            return Err(input_error(format!(
                "--at '{text}': write N=6.9e9,D=3e11 (key=value pairs)"
            )));
        };
        let number = || {
            value.trim().parse::<f64>().map_err(|_| {
                input_error(format!(
                    "--at '{text}': {} must be a number, got '{}'",
                    key.trim(),
                    value.trim()
                ))
            })
        };
        match key.trim() {
            "N" => (request.n, n) = (number()?, true),
            "D" => (request.d, d) = (number()?, true),
            "model" => request.model = Some(value.trim().to_string()),
            other => {
                return Err(input_error(format!(
                    "--at '{text}': unknown key '{other}'; use N, D and model"
                )))
            }
        }
    }
    if !(n && d) {
        return Err(input_error(format!(
            "--at '{text}': give both N and D, e.g. N=6.9e9,D=3e11"
        )));
    }
    Ok(Target::try_from(request)?)
}

/// A number as one count for every task, else a column.
fn column_or_count(text: &str) -> Trials {
    match text.trim().parse::<f64>() {
        Ok(n) => Trials::Count(n),
        Err(_) => Trials::Column(text.to_string()),
    }
}

/// A number as one value for every task, else a column.
fn column_or_value(text: &str) -> ColumnOrValue {
    match text.trim().parse::<f64>() {
        Ok(x) => ColumnOrValue::Value(x),
        Err(_) => ColumnOrValue::Column(text.to_string()),
    }
}
