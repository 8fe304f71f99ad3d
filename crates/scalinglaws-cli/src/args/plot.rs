//! Arguments of `plot` and its kinds (fit, residuals, frontier, bootstrap, isoflop, tracks).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use scalinglaws::workflow::compare::DEFAULT_FLOPS;
use scalinglaws_report::plots::FRONTIER_BUDGETS;

use super::{DataArgs, FitArgs};
use crate::cmd_compare::CompareArgs;

#[derive(Debug, Args)]
pub struct PlotArgs {
    #[command(subcommand)]
    pub kind: PlotKind,
}

#[derive(Debug, Subcommand)]
pub enum PlotKind {
    /// The data against one variable with the fitted curves (one per group of the other
    /// variables), the interval band, and the extrapolation a decade beyond the data shaded.
    Fit(Box<PlotFitArgs>),
    /// The residuals of the fit against every variable.
    Residuals(Box<PlotFitArgs>),
    /// The compute-optimal N*(C), D*(C) of a saved fit, with bands from its bootstrap.
    Frontier(PlotFrontierArgs),
    /// The bootstrap distribution of every parameter of a saved fit.
    Bootstrap(PlotBootstrapArgs),
    /// IsoFLOP profiles with their local curves and minima, and the minima's power law.
    Isoflop(Box<PlotIsoflopArgs>),
    /// Recipes side by side: each track's runs and compute-optimal loss with its band.
    Tracks(Box<PlotTracksArgs>),
}

#[derive(Debug, Args)]
pub struct PlotTracksArgs {
    #[command(flatten)]
    pub compare: CompareArgs,

    #[command(flatten)]
    pub output: PlotOutputArgs,
}

#[derive(Debug, Args)]
pub struct PlotIsoflopArgs {
    #[command(flatten)]
    pub data: DataArgs,

    /// The column of each run's compute budget in FLOPs.
    #[arg(long, value_name = "COLUMN")]
    pub compute: String,

    /// The column of model size N.
    #[arg(long, value_name = "COLUMN")]
    pub size: String,

    /// Keep only the runs whose COLUMN reads VALUE (text; repeatable), e.g. one
    /// configuration of a study with several.
    #[arg(long = "select", value_name = "COLUMN=VALUE")]
    pub select: Vec<String>,

    /// The local curve through each budget's minimum: auto, cubic, parabola, parabola3,
    /// parabola:all, cubic:all (see `isoflop --help`).
    #[arg(long, value_name = "NAME", default_value = "auto")]
    pub shape: String,

    /// Budgets closer than this (relative) are one budget.
    #[arg(long, value_name = "X", default_value_t = scalinglaws::analysis::isoflop::DEFAULT_TOLERANCE)]
    pub tolerance: f64,

    /// Bootstrap replicates for the intervals on N*.
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub bootstrap: usize,

    /// Seed of the bootstrap.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// Level of the intervals on N*.
    #[arg(long, value_name = "P", default_value_t = scalinglaws::uncertainty::DEFAULT_LEVEL)]
    pub level: f64,

    #[command(flatten)]
    pub output: PlotOutputArgs,
}

/// Where a picture goes.
#[derive(Debug, Args)]
pub struct PlotOutputArgs {
    /// The picture: FILE.svg, FILE.png, or - for SVG on stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE.svg|FILE.png|-")]
    pub output: String,

    /// Picture size in pixels [default: about 640x420 per panel].
    #[arg(long = "pixels", value_name = "WxH")]
    pub pixels: Option<String>,
}

#[derive(Debug, Args)]
pub struct PlotFitArgs {
    #[command(flatten)]
    pub fit: FitArgs,

    /// The law variable on the x axis [default: the law's first variable].
    #[arg(long, value_name = "VAR")]
    pub x: Option<String>,

    #[command(flatten)]
    pub output: PlotOutputArgs,
}

#[derive(Debug, Args)]
pub struct PlotFrontierArgs {
    /// A fit written by `scalinglaws fit --json PATH` (of a law with variables N and D).
    #[arg(value_name = "FIT.json")]
    pub fit: PathBuf,

    /// The smallest budget on the x axis, in FLOPs.
    #[arg(long, value_name = "C", default_value_t = format!("{:e}", FRONTIER_BUDGETS.0))]
    pub from: String,

    /// The largest budget on the x axis, in FLOPs.
    #[arg(long, value_name = "C", default_value_t = format!("{:e}", FRONTIER_BUDGETS.1))]
    pub to: String,

    /// Training FLOPs as a formula of N and D.
    #[arg(long, value_name = "FORMULA", default_value = DEFAULT_FLOPS)]
    pub flops: String,

    /// Hold another variable of the law at a value, e.g. U=25e9 (repeatable).
    #[arg(long = "set", value_name = "VAR=V")]
    pub held: Vec<String>,

    #[command(flatten)]
    pub output: PlotOutputArgs,
}

#[derive(Debug, Args)]
pub struct PlotBootstrapArgs {
    /// A fit written by `scalinglaws fit --bootstrap K --json PATH`.
    #[arg(value_name = "FIT.json")]
    pub fit: PathBuf,

    #[command(flatten)]
    pub output: PlotOutputArgs,
}
