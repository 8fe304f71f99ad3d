//! Arguments of `downstream`: task accuracies at a larger model, forecast or backtested.

use clap::Args;

use super::DataArgs;

#[derive(Debug, Args)]
pub struct DownstreamArgs {
    #[command(flatten)]
    pub data: DataArgs,

    /// The column naming each evaluation's model (a run whose checkpoints are evaluated).
    #[arg(long, value_name = "COLUMN", default_value = "model")]
    pub model: String,

    /// The column naming each evaluation's task.
    #[arg(long, value_name = "COLUMN", default_value = "task")]
    pub task: String,

    /// The column of model size N.
    #[arg(long, value_name = "COLUMN", default_value = "N")]
    pub size: String,

    /// The column of training tokens D at the checkpoint.
    #[arg(long, value_name = "COLUMN", default_value = "D")]
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
    #[arg(long, value_name = "MODEL[,MODEL]", conflicts_with = "at")]
    pub holdout: Vec<String>,

    /// With --holdout: keep the held-out models' checkpoints up to this many tokens and
    /// forecast their later ones.
    #[arg(long = "own-until", value_name = "TOKENS", requires = "holdout")]
    pub own_until: Option<f64>,

    /// How many of the largest model sizes the pooled model's trend runs through.
    #[arg(long, value_name = "K", default_value_t = 4)]
    pub anchors: usize,

    /// Tasks whose names start with PREFIX are unseen by the pooled model (a transfer check).
    #[arg(long, value_name = "PREFIX")]
    pub unseen: Option<String>,

    /// Level of the intervals.
    #[arg(long, value_name = "P", default_value_t = scalinglaws::uncertainty::DEFAULT_LEVEL)]
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
