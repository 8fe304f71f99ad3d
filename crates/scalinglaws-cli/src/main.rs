//! The `scalinglaws` command: parses the command line once (clap derive), turns the arguments
//! into the library's configuration (settings, data recipe, output targets), hands them to one
//! subcommand, and maps whatever went wrong to a message on stderr and an exit code:
//! 0 success, 2 bad input or usage, 1 a fit that could not be done.

mod cmd_backtest;
mod cmd_compare;
mod cmd_compare_laws;
mod cmd_fit;
mod cmd_isoflop;
mod cmd_laws;
mod cmd_lr;
mod cmd_optimal;
mod cmd_plot;
mod cmd_predict;
mod cmd_report;
mod cmd_schedule;
mod cmd_select;
mod input;
mod output;
mod wording;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand};
use scalinglaws::fit::{Bounds, Covariance, FitSettings, LossKind, Space};

use crate::input::{constant, split_top_level, Derive, Filter, Recipe};
use crate::output::Destination;

/// Fit scaling laws to the records of ML scaling experiments.
#[derive(Debug, Parser)]
#[command(name = "scalinglaws", version, long_about = None)]
#[command(
    about = "Fit scaling laws to the records of ML scaling experiments",
    after_help = "Example:\n  scalinglaws fit runs.csv --law chinchilla --target loss --map N=params --derive \"D=C/(6*N)\""
)]
#[command(propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the built-in laws with their formula, summary and citation.
    Laws(LawsArgs),
    /// Fit a law to a CSV/TSV/JSONL file of runs and print a report (or JSON).
    Fit(Box<FitArgs>),
    /// Evaluate a fitted law (a JSON file written by `fit --json`) at new points, with
    /// confidence and prediction intervals.
    Predict(PredictArgs),
    /// The compute-optimal N*, D* of a saved fit at training budgets, with intervals from its
    /// bootstrap replicates, and the exponents of the frontier.
    Optimal(Box<OptimalArgs>),
    /// IsoFLOP analysis: per compute budget, the loss-optimal model size, and the power laws
    /// N* ∝ C^a, D* ∝ C^b through the minima.
    Isoflop(Box<IsoflopArgs>),
    /// Fit on the smaller scales, predict the held-out larger ones, and score the errors and
    /// the coverage of the prediction intervals.
    Backtest(Box<BacktestArgs>),
    /// Fit several laws to the same data: objective, likelihood, AIC/BIC, backtest error, and
    /// likelihood-ratio tests between nested laws.
    CompareLaws(Box<CompareLawsArgs>),
    /// Choose and average laws by rolling-origin backtests over scale: every candidate's score,
    /// the winner, stacking weights, and predictions whose intervals hold the spread between
    /// laws; --check tests the procedure by nested rolling origins.
    Select(Box<SelectArgs>),
    /// Compare recipes (tracks): fit each track, separately or with shared parameters, and
    /// report the compute multiplier, loss gap and odds of winning at each budget.
    Compare(Box<CompareArgs>),
    /// The learning rate (and batch size) to use at a target scale: each (N, D) cell's optimal
    /// LR with flags, the law lr* = c·N^a·D^b (or curved) with a curvature test, predictions,
    /// and a backtest of extrapolating in D against in N.
    Lr(Box<LrArgs>),
    /// Loss curves under learning-rate schedules: fit a curve law (multi-power, LR annealing)
    /// to logged runs, then predict, compare and optimise schedules and cooldowns.
    Schedule(cmd_schedule::ScheduleArgs),
    /// Pictures of a fit (data and curves, residuals) or of a saved fit (frontier, bootstrap
    /// distributions), as SVG or PNG.
    Plot(PlotArgs),
    /// One self-contained HTML page for a fit: parameters with intervals, warnings, plots,
    /// allocation, backtest, and the command that reproduces it.
    Report(Box<ReportArgs>),
}

#[derive(Debug, Args)]
struct ReportArgs {
    #[command(flatten)]
    fit: FitArgs,

    /// The HTML file to write ('-' for stdout).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE.html|-",
        default_value = "report.html"
    )]
    output: String,
}

#[derive(Debug, Args)]
struct PlotArgs {
    #[command(subcommand)]
    kind: PlotKind,
}

#[derive(Debug, Subcommand)]
enum PlotKind {
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
struct PlotTracksArgs {
    #[command(flatten)]
    compare: CompareArgs,

    #[command(flatten)]
    output: PlotOutputArgs,
}

#[derive(Debug, Args)]
struct PlotIsoflopArgs {
    #[command(flatten)]
    data: DataArgs,

    /// The column of each run's compute budget in FLOPs.
    #[arg(long, value_name = "COLUMN")]
    compute: String,

    /// The column of model size N.
    #[arg(long, value_name = "COLUMN")]
    size: String,

    /// Keep only the runs whose COLUMN reads VALUE (text; repeatable), e.g. one
    /// configuration of a study with several.
    #[arg(long = "select", value_name = "COLUMN=VALUE")]
    select: Vec<String>,

    /// The local curve through each budget's minimum: auto, cubic, parabola, parabola3,
    /// parabola:all, cubic:all (see `isoflop --help`).
    #[arg(long, value_name = "NAME", default_value = "auto")]
    shape: String,

    /// Budgets closer than this (relative) are one budget.
    #[arg(long, value_name = "X", default_value_t = 1e-3)]
    tolerance: f64,

    /// Bootstrap replicates for the intervals on N*.
    #[arg(long, value_name = "K", default_value_t = 0)]
    bootstrap: usize,

    #[command(flatten)]
    output: PlotOutputArgs,
}

/// Where a picture goes.
#[derive(Debug, Args)]
struct PlotOutputArgs {
    /// The picture: FILE.svg, FILE.png, or - for SVG on stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE.svg|FILE.png|-")]
    output: String,

    /// Picture size in pixels [default: about 640x420 per panel].
    #[arg(long = "pixels", value_name = "WxH")]
    pixels: Option<String>,
}

#[derive(Debug, Args)]
struct PlotFitArgs {
    #[command(flatten)]
    fit: FitArgs,

    /// The law variable on the x axis [default: the law's first variable].
    #[arg(long, value_name = "VAR")]
    x: Option<String>,

    #[command(flatten)]
    output: PlotOutputArgs,
}

#[derive(Debug, Args)]
struct PlotFrontierArgs {
    /// A fit written by `scalinglaws fit --json PATH` (of a law with variables N and D).
    #[arg(value_name = "FIT.json")]
    fit: PathBuf,

    /// The smallest budget on the x axis, in FLOPs.
    #[arg(long, value_name = "C", default_value = "1e18")]
    from: String,

    /// The largest budget on the x axis, in FLOPs.
    #[arg(long, value_name = "C", default_value = "1e26")]
    to: String,

    /// Training FLOPs as a formula of N and D.
    #[arg(long, value_name = "FORMULA", default_value = "6*N*D")]
    flops: String,

    /// Hold another variable of the law at a value, e.g. U=25e9 (repeatable).
    #[arg(long = "set", value_name = "VAR=V")]
    held: Vec<String>,

    #[command(flatten)]
    output: PlotOutputArgs,
}

#[derive(Debug, Args)]
struct PlotBootstrapArgs {
    /// A fit written by `scalinglaws fit --bootstrap K --json PATH`.
    #[arg(value_name = "FIT.json")]
    fit: PathBuf,

    #[command(flatten)]
    output: PlotOutputArgs,
}

#[derive(Debug, Args)]
struct LawsArgs {
    /// Write the list as JSON to PATH instead of the table ('-' for stdout).
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
}

/// Where the runs come from and which columns feed the law (shared by every command that
/// reads data).
#[derive(Debug, Args)]
struct DataArgs {
    /// The runs: .csv, .tsv/.tab or .jsonl/.ndjson (or any delimited text with --delimiter).
    #[arg(value_name = "DATA")]
    data: PathBuf,

    /// The column the law predicts (e.g. loss).
    #[arg(long, value_name = "COLUMN")]
    target: String,

    /// Give a column a name usable as a law variable and in expressions: N="Model Size".
    #[arg(long = "map", value_name = "VAR=COLUMN")]
    maps: Vec<String>,

    /// Add a column computed row by row from other columns: "D=C/(6*N)". Applied in order,
    /// before --where.
    #[arg(long = "derive", value_name = "VAR=EXPR")]
    derives: Vec<String>,

    /// Keep only the rows where a comparison holds: "loss < 3.44" (< <= > >= == !=).
    /// Repeat to require several; removed rows are counted in the result.
    #[arg(long = "where", value_name = "EXPR", allow_hyphen_values = true)]
    filters: Vec<String>,

    /// A column of non-negative row weights.
    #[arg(long, value_name = "COLUMN")]
    weights: Option<String>,

    /// Field delimiter of DATA (one character, or "tab"); overrides the file extension.
    #[arg(long, value_name = "C")]
    delimiter: Option<String>,
}

/// How a law is fitted (shared by every command that fits).
#[derive(Debug, Args)]
struct SettingsArgs {
    /// Robust loss per residual.
    #[arg(long, value_name = "NAME", default_value = "huber",
          value_parser = PossibleValuesParser::new(LossKind::ALL.map(LossKind::name)))]
    loss: String,

    /// Scale of the loss (Huber's delta), in units of the residuals.
    #[arg(long = "f-scale", value_name = "X", default_value_t = 1e-3)]
    f_scale: f64,

    /// Where residuals are taken [default: the law's own; log for --formula].
    #[arg(long, value_name = "SPACE", value_parser = PossibleValuesParser::new(["log", "linear"]))]
    space: Option<String>,

    /// Hold a parameter at a value (a number or a constant expression such as exp(6.26)).
    #[arg(long = "fix", value_name = "NAME=VALUE")]
    fixes: Vec<String>,

    /// Replace a parameter's bounds: E=0:inf, alpha=0:2, c=:0 (an empty side is unbounded).
    #[arg(long = "bound", value_name = "NAME=LO:HI")]
    bounds: Vec<String>,

    /// Replace a parameter's start values: alpha=0,0.5,1 or A=exp(5),exp(10).
    #[arg(long = "grid", value_name = "NAME=V1,V2,...")]
    grids: Vec<String>,

    /// Seed of every random step (bootstrap draws; the fit itself is deterministic).
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,

    /// Worker threads [default: all cores]; the result does not depend on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    threads: Option<u32>,

    /// Gauss–Newton iterations of each start before it is polished.
    #[arg(long = "max-iter", value_name = "N", default_value_t = 200,
          value_parser = clap::value_parser!(u32).range(1..))]
    max_iter: u32,

    /// Covariance behind the standard errors [default: auto: gauss_newton for --loss linear,
    /// sandwich for robust losses].
    #[arg(long, value_name = "KIND", default_value = "auto",
          value_parser = PossibleValuesParser::new(["auto", "gauss_newton", "hessian", "sandwich"]))]
    covariance: String,
}

/// One law: a catalog name or a formula.
#[derive(Debug, Args)]
struct LawArgs {
    /// A built-in law (see `scalinglaws laws`), e.g. chinchilla or bnsl:2.
    #[arg(
        long,
        value_name = "NAME",
        conflicts_with = "formula",
        required_unless_present = "formula"
    )]
    law: Option<String>,

    /// A law written as text, e.g. "E + A*N^-alpha". Names of columns (or --map/--derive names)
    /// are variables; every other name is a fitted parameter.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    formula: Option<String>,
}

#[derive(Debug, Args)]
struct FitArgs {
    #[command(flatten)]
    data: DataArgs,

    #[command(flatten)]
    law: LawArgs,

    #[command(flatten)]
    settings: SettingsArgs,

    /// Refit K resampled copies of the data (each with the full search) for percentile
    /// intervals; the replicates are kept in the JSON for later intervals.
    #[arg(long, value_name = "K")]
    bootstrap: Option<usize>,

    /// Resample whole runs named by this column instead of rows (for checkpoints of runs).
    #[arg(long, value_name = "COLUMN", requires = "bootstrap")]
    cluster: Option<String>,

    /// Confidence level of bootstrap and profile intervals.
    #[arg(long, value_name = "P", default_value_t = 0.95)]
    level: f64,

    /// Profile-likelihood interval of a parameter (repeat for several).
    #[arg(long = "profile", value_name = "PARAM")]
    profiles: Vec<String>,

    /// The column that orders scale for the extrapolation calibration of prediction intervals
    /// [default: C if the data have it, else 6*N*D, else the law's first variable].
    #[arg(long, value_name = "COLUMN")]
    by: Option<String>,

    /// Keep the fit's own prediction intervals beyond the data (no rolling-origin calibration).
    #[arg(long = "no-calibration", conflicts_with = "by")]
    no_calibration: bool,

    /// Fit a residual scale that varies with COLUMN, sigma(x) = sigma0*(x/x0)^s (a variable of
    /// the law, or compute C = 6*N*D); prediction intervals use sigma at each point. Needs
    /// --loss linear.
    #[arg(long, value_name = "COLUMN")]
    heteroscedastic: Option<String>,

    /// Write the fit as JSON to PATH (the report still prints), or to stdout instead of the
    /// report with '-'.
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
}

#[derive(Debug, Args)]
struct OptimalArgs {
    /// A fit written by `scalinglaws fit --json PATH` (of a law with variables N and D).
    #[arg(
        value_name = "FIT.json",
        required_unless_present = "law",
        conflicts_with = "law"
    )]
    fit: Option<PathBuf>,

    /// Instead of a fit: a catalog law with every parameter given, e.g.
    /// "chinchilla[E=1.82,A=482,alpha=0.348,B=2085,beta=0.366]".
    #[arg(long, value_name = "NAME[P=V,...]")]
    law: Option<String>,

    /// Training budgets in FLOPs: 5.88e23, or a list 1e21,1e22,1e23 (repeatable).
    #[arg(long = "budget", value_name = "C[,C2,...]", allow_hyphen_values = true)]
    budgets: Vec<String>,

    /// Instead of budgets: losses to reach with the least compute (repeatable).
    #[arg(
        long = "target-loss",
        value_name = "L[,L2,...]",
        allow_hyphen_values = true,
        conflicts_with = "budgets"
    )]
    target_losses: Vec<String>,

    /// Training FLOPs as a formula of N and D.
    #[arg(long, value_name = "FORMULA", default_value = "6*N*D")]
    flops: String,

    /// Hold another variable of the law at a value, e.g. unique tokens U=25e9; several values
    /// (E=1,8,64) are optimised over (repeatable).
    #[arg(long = "set", value_name = "VAR=V[,V2,...]")]
    held: Vec<String>,

    /// Total parameters as a formula of N and the --set variables [default: N], e.g.
    /// "N*(4+9*E)/13" for Switch-style MoE layers without embeddings.
    #[arg(long = "total-params", value_name = "FORMULA")]
    total_params: Option<String>,

    /// Cap on the total parameters (what fits in memory).
    #[arg(long = "max-params", value_name = "P")]
    max_params: Option<String>,

    /// Cap on N, the parameters each token passes through (inference cost per token).
    #[arg(long = "max-active", value_name = "P")]
    max_active: Option<String>,

    /// Cap on the training tokens D (e.g. the unique data available).
    #[arg(long = "max-tokens", value_name = "U")]
    max_tokens: Option<String>,

    /// Tokens the model will serve over its life, costing 2·N per token (Sardana et al.
    /// 2024): a budget then covers training and inference, and a target loss is reached at the
    /// least lifetime compute.
    #[arg(
        long = "inference-tokens",
        value_name = "T",
        allow_hyphen_values = true
    )]
    inference_tokens: Option<String>,

    /// Level of the intervals [default: the fit's bootstrap level].
    #[arg(long, value_name = "P")]
    level: Option<f64>,

    /// Write the allocations as JSON to PATH (the table still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
}

#[derive(Debug, Args)]
struct IsoflopArgs {
    #[command(flatten)]
    data: DataArgs,

    /// The column of each run's compute budget in FLOPs (runs within --tolerance share one).
    #[arg(long, value_name = "COLUMN")]
    compute: String,

    /// Analyse the runs of each value of this column separately (repeat to group by several).
    #[arg(long = "group", value_name = "COLUMN")]
    groups: Vec<String>,

    /// The column of model size N.
    #[arg(long, value_name = "COLUMN")]
    size: String,

    /// The column of training tokens D [default: D* = C/(6 N*)].
    #[arg(long, value_name = "COLUMN")]
    tokens: Option<String>,

    /// The local curve through each budget's minimum: auto (the parabola through every point
    /// unless a lack-of-fit test rejects it, then the cubic), cubic (5 nearest points),
    /// parabola (5), parabola3, parabola:all, cubic:all.
    #[arg(long, value_name = "NAME", default_value = "auto")]
    shape: String,

    /// Chinchilla's approach 1 on checkpoints instead of per-budget profiles: the lowest loss
    /// at each compute, from the lower convex hull of the checkpoints (hull) or from every
    /// run's interpolated curve at K log-spaced budgets (grid, grid:K; K = 1500 by default).
    #[arg(long, value_name = "hull|grid[:K]")]
    envelope: Option<String>,

    /// The column naming each checkpoint's run (the grid envelope and its bootstrap need it).
    #[arg(long, value_name = "COLUMN")]
    run: Option<String>,

    /// Budgets closer than this (relative) are one budget.
    #[arg(long, value_name = "X", default_value_t = 1e-3)]
    tolerance: f64,

    /// Bootstrap replicates for intervals on N*, the exponents and the predictions
    /// [default: 0; 1000 with --budget or --backtest].
    #[arg(long, value_name = "K")]
    bootstrap: Option<usize>,

    /// Seed of the bootstrap.
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,

    /// Level of the intervals.
    #[arg(long, value_name = "P", default_value_t = 0.95)]
    level: f64,

    /// Predict N*, D* and the loss at these budgets in FLOPs, with intervals: 1e22, or a list
    /// 1e22,1e23 (repeatable).
    #[arg(
        long = "budget",
        value_name = "C[,C2,...]",
        allow_hyphen_values = true,
        conflicts_with = "envelope"
    )]
    budgets: Vec<String>,

    /// Fit on all but the K largest budgets, predict their N* and D*, and report the errors
    /// and the intervals' coverage.
    #[arg(long, value_name = "K", conflicts_with_all = ["envelope", "budgets"])]
    backtest: Option<usize>,

    /// Keep the bootstrap's intervals beyond the data (no rolling-origin calibration).
    #[arg(long = "no-calibration")]
    no_calibration: bool,

    /// Write the analysis as JSON to PATH (the table still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  scalinglaws lr sweep.csv --lr peak_lr --size N --tokens D --target loss \\\n      --predict N=7e9,D=1.4e12"
)]
struct LrArgs {
    #[command(flatten)]
    data: DataArgs,

    /// The column of each run's (peak) learning rate.
    #[arg(long, value_name = "COLUMN")]
    lr: String,

    /// The column of model size N.
    #[arg(long, value_name = "COLUMN")]
    size: String,

    /// The column of training tokens D.
    #[arg(long, value_name = "COLUMN")]
    tokens: String,

    /// The column of batch size: cells become (N, D, B), and B* = c·D^b is fitted too.
    #[arg(long, value_name = "COLUMN")]
    batch: Option<String>,

    /// The law of the optimal LR: loglinear (ln lr* linear in ln N, ln D) or curved (adds
    /// squared logs).
    #[arg(long, value_name = "FORM", default_value = "loglinear",
          value_parser = PossibleValuesParser::new(["loglinear", "curved"]))]
    law: String,

    /// joint: one fit over every run near each cell's optimum (edge cells count as bounds);
    /// cells: weighted least squares on the per-cell optima.
    #[arg(long, value_name = "METHOD", default_value = "joint",
          value_parser = PossibleValuesParser::new(["joint", "cells"]))]
    method: String,

    /// The joint fit's profile curvatures: law (ln k linear in ln N, ln D; calibrated) or cell
    /// (a free curvature per cell).
    #[arg(long, value_name = "KIND", default_value = "law",
          value_parser = PossibleValuesParser::new(["law", "cell"]))]
    curvature: String,

    /// Predict lr* (and B*) at this scale (repeatable).
    #[arg(long = "predict", value_name = "N=V,D=V")]
    predict: Vec<String>,

    /// Distinct LRs on each side of a cell's best one that its parabola uses.
    #[arg(long, value_name = "K", default_value_t = 2)]
    window: usize,

    /// Runs whose loss is more than this fraction above their cell's best are left out of the
    /// parabola (diverged, or too far from the optimum).
    #[arg(long = "max-rise", value_name = "F", default_value_t = 0.15)]
    max_rise: f64,

    /// The loss noise (seed-to-seed standard deviation) [default: estimated].
    #[arg(long, value_name = "SIGMA", allow_hyphen_values = true)]
    noise: Option<f64>,

    /// Fraction of horizons (per N) and of model sizes the backtests hold out.
    #[arg(long, value_name = "F", default_value_t = 0.25)]
    holdout: f64,

    /// Level of the intervals.
    #[arg(long, value_name = "P", default_value_t = 0.95)]
    level: f64,

    /// Write the analysis as JSON to PATH (the report still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
}

#[derive(Debug, Args)]
struct CompareArgs {
    #[command(flatten)]
    data: DataArgs,

    #[command(flatten)]
    law: LawArgs,

    #[command(flatten)]
    settings: SettingsArgs,

    /// The column naming each run's track (recipe); the first track in the file is the
    /// baseline unless --baseline says otherwise.
    #[arg(long, value_name = "COLUMN")]
    track: String,

    /// Parameters common to every track (fitted jointly): E,alpha,beta.
    #[arg(long, value_name = "NAME[,NAME...]", value_delimiter = ',')]
    shared: Vec<String>,

    /// The track the others are compared with.
    #[arg(long, value_name = "TRACK")]
    baseline: Option<String>,

    /// Budgets in FLOPs for allocations, compute multipliers and loss gaps (repeatable).
    #[arg(long = "budget", value_name = "C[,C2,...]", allow_hyphen_values = true)]
    budgets: Vec<String>,

    /// Training FLOPs as a formula of N and D.
    #[arg(long, value_name = "FORMULA", default_value = "6*N*D")]
    flops: String,

    /// Hold another variable of the law at a value for the allocations, e.g. U=25e9.
    #[arg(long = "set", value_name = "VAR=V[,V2,...]")]
    held: Vec<String>,

    /// Bootstrap replicates (rows resampled within each track) for every interval.
    #[arg(long, value_name = "K", default_value_t = 0)]
    bootstrap: usize,

    /// Level of the intervals.
    #[arg(long, value_name = "P", default_value_t = 0.95)]
    level: f64,

    /// Runs of two tracks whose law variables agree within this relative tolerance share a
    /// cell (for paired-cell wins).
    #[arg(long = "cell-tolerance", value_name = "X", default_value_t = 1e-3)]
    cell_tolerance: f64,

    /// The column that orders scale for the extrapolation calibration of each track's
    /// prediction intervals [default: C if the data have it, else 6*N*D, else the law's first
    /// variable].
    #[arg(long, value_name = "COLUMN")]
    by: Option<String>,

    /// Keep the fits' own prediction intervals beyond the data (no rolling-origin calibration).
    #[arg(long = "no-calibration", conflicts_with = "by")]
    no_calibration: bool,

    /// Write the comparison as JSON to PATH (the report still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
}

#[derive(Debug, Args)]
struct BacktestArgs {
    #[command(flatten)]
    data: DataArgs,

    #[command(flatten)]
    law: LawArgs,

    #[command(flatten)]
    settings: SettingsArgs,

    /// The column that orders scale (e.g. compute): fit on small values, predict large ones.
    #[arg(long, value_name = "COLUMN")]
    by: String,

    /// Hold out the rows at the K largest distinct values of --by.
    #[arg(long = "holdout-top", value_name = "K", group = "holdout")]
    holdout_top: Option<usize>,

    /// Hold out the largest fraction F of rows by --by (ties held out together).
    #[arg(long = "holdout-frac", value_name = "F", group = "holdout")]
    holdout_frac: Option<f64>,

    /// Fit up to each scale and predict the next, for every step of --steps groups.
    #[arg(long, group = "holdout")]
    rollout: bool,

    /// Rollout: split the distinct values of --by into this many groups of scales.
    #[arg(long, value_name = "G", default_value_t = 6, requires = "rollout")]
    steps: usize,

    /// Rolling origins: fit on the scale groups up to each of --origins origins (from half the
    /// groups to all but the last) and predict every run beyond it.
    #[arg(long, group = "holdout")]
    rolling: bool,

    /// Rolling: the most origins.
    #[arg(long, value_name = "K", default_value_t = 5, requires = "rolling")]
    origins: usize,

    /// Calibrate each training fit's prediction intervals beyond its data by rolling-origin
    /// backtests nested inside its own training rows (as `fit` does by default), and score them.
    #[arg(long)]
    calibrate: bool,

    /// Level of the prediction intervals whose coverage is scored.
    #[arg(long, value_name = "P", default_value_t = 0.95)]
    level: f64,

    /// Bootstrap replicates per training fit for the intervals (default: delta method).
    #[arg(long, value_name = "K")]
    bootstrap: Option<usize>,

    /// Write the backtest as JSON to PATH (the report still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
}

#[derive(Debug, Args)]
struct CompareLawsArgs {
    #[command(flatten)]
    data: DataArgs,

    /// A law to compare (repeat): a catalog name, optionally with parameters held at values,
    /// e.g. "chinchilla[E=1.69,A=406.4,B=410.7,alpha=0.34,beta=0.28]".
    #[arg(long = "law", value_name = "NAME[P=V,...]")]
    laws: Vec<String>,

    /// A formula to compare (repeat).
    #[arg(long = "formula", value_name = "TEXT", allow_hyphen_values = true)]
    formulas: Vec<String>,

    #[command(flatten)]
    settings: SettingsArgs,

    /// Score each law by a backtest that holds out the largest --holdout-frac of rows by this
    /// column.
    #[arg(long, value_name = "COLUMN")]
    by: Option<String>,

    /// Fraction of rows the backtest holds out.
    #[arg(long = "holdout-frac", value_name = "F", default_value_t = 0.2)]
    holdout_frac: f64,

    /// Level of the backtest's prediction intervals.
    #[arg(long, value_name = "P", default_value_t = 0.95)]
    level: f64,

    /// Write the comparison as JSON to PATH (the table still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
}

#[derive(Debug, Args)]
struct SelectArgs {
    #[command(flatten)]
    data: DataArgs,

    /// A candidate law (repeat): a catalog name, optionally with parameters held at values.
    #[arg(long = "law", value_name = "NAME[P=V,...]")]
    laws: Vec<String>,

    /// A candidate formula (repeat).
    #[arg(long = "formula", value_name = "TEXT", allow_hyphen_values = true)]
    formulas: Vec<String>,

    #[command(flatten)]
    settings: SettingsArgs,

    /// The column that orders scale (default: a column C, else 6·N·D, else the first law's
    /// first variable).
    #[arg(long, value_name = "COLUMN")]
    by: Option<String>,

    /// Most rolling origins.
    #[arg(long, value_name = "K", default_value_t = 5)]
    origins: usize,

    /// Level of the prediction intervals.
    #[arg(long, value_name = "P", default_value_t = 0.95)]
    level: f64,

    /// Keep each law's own prediction intervals beyond the data (no calibration).
    #[arg(long = "no-calibration")]
    no_calibration: bool,

    /// Predict at these values (repeat per variable): N=7e10 or a list N=1e10,7e10.
    #[arg(long = "at", value_name = "VAR=VALUE[,...]")]
    at: Vec<String>,

    /// Check the selection by nested rolling origins (each outer split selects on its own
    /// training runs and scores the winner, the average and every law on the runs beyond).
    #[arg(long)]
    check: bool,

    /// Write the selection as JSON to PATH (the table still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
}

#[derive(Debug, Args)]
struct PredictArgs {
    /// A fit written by `scalinglaws fit --json PATH`.
    #[arg(value_name = "FIT.json")]
    fit: PathBuf,

    /// Values of every law variable: N=7e10 D=1.4e12, or lists N=1e9,1e10 D=2e10 (lists of
    /// equal length; a single value is used for every point).
    #[arg(value_name = "VAR=VALUE", required = true)]
    points: Vec<String>,

    /// Confidence level of the intervals.
    #[arg(long, value_name = "P", default_value_t = 0.95)]
    level: f64,

    /// Write the predictions as JSON to PATH instead of the table ('-' for stdout).
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
}

/// An error in what the user typed or named (arguments, files): exit code 2, like the
/// library's input errors.
#[derive(Debug)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// Shorthand for an [`InputError`] as an `anyhow::Error`.
pub fn input_error(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(InputError(message.into()))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", wording::describe(&error));
            ExitCode::from(exit_code(&error))
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Laws(args) => cmd_laws::run(&destination(args.json.as_deref())),
        Command::Fit(args) => cmd_fit::run(&fit_config(*args)?),
        Command::Predict(args) => cmd_predict::run(&cmd_predict::Config {
            fit: args.fit,
            points: args.points,
            level: level("--level", args.level)?,
            json: destination(args.json.as_deref()),
        }),
        Command::Optimal(args) => cmd_optimal::run(&cmd_optimal::Config {
            source: match (args.fit, args.law) {
                (Some(path), _) => cmd_optimal::Source::Fit(path),
                (None, Some(law)) => cmd_optimal::Source::Published(law),
                (None, None) => unreachable!("clap requires FIT.json or --law"),
            },
            budgets: args.budgets,
            target_losses: args.target_losses,
            flops: args.flops,
            held: args.held,
            total_params: args.total_params,
            max_params: args.max_params,
            max_active: args.max_active,
            max_tokens: args.max_tokens,
            inference_tokens: args.inference_tokens,
            level: args.level.map(|l| level("--level", l)).transpose()?,
            json: destination(args.json.as_deref()),
        }),
        Command::Isoflop(args) => cmd_isoflop::run(&isoflop_config(*args)?),
        Command::Backtest(args) => cmd_backtest::run(&backtest_config(*args)?),
        Command::CompareLaws(args) => cmd_compare_laws::run(&compare_laws_config(*args)?),
        Command::Select(args) => cmd_select::run(&select_config(*args)?),
        Command::Compare(args) => cmd_compare::run(&compare_config(*args)?),
        Command::Lr(args) => cmd_lr::run(&lr_config(*args)?),
        Command::Schedule(args) => cmd_schedule::run(args),
        Command::Plot(args) => cmd_plot::run(&plot_config(args.kind)?),
        Command::Report(args) => {
            let args = *args;
            cmd_report::run(&cmd_report::Config {
                fit: fit_config(args.fit)?,
                output: Destination::parse(args.output.trim()),
                command: command_line(),
            })
        }
    }
}

/// 2 for anything the user can fix in their input, 1 for a fit that could not be done (and
/// for failures outside the user's input, such as a full disk), 130 for interrupted work.
fn exit_code(error: &anyhow::Error) -> u8 {
    for cause in error.chain() {
        if let Some(library) = cause.downcast_ref::<scalinglaws::Error>() {
            if library.is_interrupted() {
                return 130; // as a shell reports SIGINT
            }
            return if library.is_input_error() { 2 } else { 1 };
        }
        if cause.downcast_ref::<InputError>().is_some() {
            return 2;
        }
    }
    1
}

fn destination(json: Option<&str>) -> Option<Destination> {
    json.map(Destination::parse)
}

// ---------------------------------------------------------------------------------------------
// From the fit's arguments to the library's configuration
// ---------------------------------------------------------------------------------------------

/// Which law to fit.
#[derive(Debug, Clone)]
pub enum LawChoice {
    Catalog(String),
    Formula(String),
}

/// How a fitted law is fitted, before the law is known: settings with `space` still to be
/// decided when None (it depends on the law).
#[derive(Debug, Clone)]
pub struct SettingsConfig {
    pub settings: FitSettings,
    pub space: Option<Space>,
}

impl SettingsConfig {
    /// The settings for `law`: the law's own default space unless --space was given.
    pub fn for_law(&self, law: &LawChoice) -> FitSettings {
        use scalinglaws::law::catalog::{self, DefaultSpace};
        let space = self.space.unwrap_or(match law {
            LawChoice::Catalog(name) => match catalog::entry(name).map(|e| e.default_space) {
                Some(DefaultSpace::Linear) => Space::Linear,
                _ => Space::Log,
            },
            LawChoice::Formula(_) => Space::Log,
        });
        FitSettings {
            space,
            ..self.settings.clone()
        }
    }
}

/// Uncertainty asked of `fit`.
#[derive(Debug, Clone)]
pub struct UncertaintyConfig {
    pub bootstrap: Option<usize>,
    pub cluster: Option<String>,
    pub level: f64,
    pub profiles: Vec<String>,
    /// Calibrate prediction intervals beyond the data, ordering scale by `by`.
    pub calibrate: bool,
    pub by: Option<String>,
}

/// Everything `fit` needs, parsed and checked as far as can be done without the data.
#[derive(Debug)]
pub struct FitConfig {
    pub recipe: Recipe,
    pub law: LawChoice,
    pub settings: SettingsConfig,
    pub uncertainty: UncertaintyConfig,
    /// The column the residual scale varies with (`--heteroscedastic`).
    pub heteroscedastic: Option<String>,
    pub json: Option<Destination>,
}

fn law_choice(args: LawArgs) -> Result<LawChoice> {
    match (args.law, args.formula) {
        (Some(name), None) => Ok(LawChoice::Catalog(name.trim().to_string())),
        (None, Some(text)) => Ok(LawChoice::Formula(text)),
        // clap enforces exactly one of the two.
        _ => Err(input_error(
            "give exactly one of --law NAME and --formula TEXT",
        )),
    }
}

fn recipe(args: DataArgs) -> Result<Recipe> {
    let delimiter = args.delimiter.as_deref().map(parse_delimiter).transpose()?;
    Ok(Recipe {
        path: args.data,
        delimiter,
        recipe: scalinglaws::data::recipe::Recipe {
            maps: args
                .maps
                .iter()
                .map(|text| input::parse_map(text))
                .collect::<Result<_>>()?,
            derives: args
                .derives
                .iter()
                .map(|text| Derive::parse(text).context("--derive"))
                .collect::<Result<_>>()?,
            filters: args
                .filters
                .iter()
                .map(|text| Filter::parse(text).context("--where"))
                .collect::<Result<_>>()?,
            target: args.target.trim().to_string(),
            weights: args.weights.map(|w| w.trim().to_string()),
        },
    })
}

fn settings_config(args: SettingsArgs) -> Result<SettingsConfig> {
    let loss = LossKind::from_name(&args.loss)
        .ok_or_else(|| input_error(format!("unknown loss '{}'", args.loss)))?;
    let space = args.space.as_deref().map(|name| match name {
        "linear" => Space::Linear,
        _ => Space::Log,
    });
    let settings = FitSettings {
        loss,
        f_scale: args.f_scale,
        fixed: parse_fixes(&args.fixes)?,
        bounds: parse_bounds(&args.bounds)?,
        grids: parse_grids(&args.grids)?,
        seed: args.seed,
        threads: args.threads.map(|n| n as usize),
        max_iterations: args.max_iter as usize,
        covariance: Covariance::parse(&args.covariance).map_err(|e| input_error(e.to_string()))?,
        ..FitSettings::default()
    };
    Ok(SettingsConfig { settings, space })
}

/// A level given on the command line, checked.
fn level(option: &str, value: f64) -> Result<f64> {
    if value > 0.0 && value < 1.0 {
        Ok(value)
    } else {
        Err(input_error(format!(
            "{option} {value}: give a confidence level strictly between 0 and 1, e.g. 0.95"
        )))
    }
}

fn replicates(value: Option<usize>) -> Result<Option<usize>> {
    match value {
        Some(0) => Err(input_error(
            "--bootstrap 0: give the number of replicates, e.g. --bootstrap 1000",
        )),
        other => Ok(other),
    }
}

fn fit_config(args: FitArgs) -> Result<FitConfig> {
    Ok(FitConfig {
        recipe: recipe(args.data)?,
        law: law_choice(args.law)?,
        settings: settings_config(args.settings)?,
        uncertainty: UncertaintyConfig {
            bootstrap: replicates(args.bootstrap)?,
            cluster: args.cluster.map(|c| c.trim().to_string()),
            level: level("--level", args.level)?,
            profiles: args.profiles.iter().map(|p| p.trim().to_string()).collect(),
            calibrate: !args.no_calibration,
            by: args.by.map(|b| b.trim().to_string()),
        },
        heteroscedastic: args.heteroscedastic.map(|c| c.trim().to_string()),
        json: destination(args.json.as_deref()),
    })
}

fn isoflop_config(args: IsoflopArgs) -> Result<cmd_isoflop::Config> {
    if !(args.tolerance >= 0.0 && args.tolerance < 1.0) {
        return Err(input_error(format!(
            "--tolerance {}: give a relative tolerance in [0, 1), e.g. 1e-3",
            args.tolerance
        )));
    }
    let predict_at = cmd_isoflop::budgets(&args.budgets)?;
    if args.backtest == Some(0) {
        return Err(input_error(
            "--backtest 0: hold out at least the largest budget, e.g. --backtest 2",
        ));
    }
    let forecasting = !predict_at.is_empty() || args.backtest.is_some();
    if args.no_calibration && !forecasting {
        return Err(input_error(
            "--no-calibration acts on predictions beyond the data: give --budget C or --backtest K",
        ));
    }
    let bootstrap = args.bootstrap.unwrap_or(if forecasting { 1000 } else { 0 });
    Ok(cmd_isoflop::Config {
        recipe: recipe(args.data)?,
        groups: args.groups.iter().map(|g| g.trim().to_string()).collect(),
        compute: args.compute.trim().to_string(),
        size: args.size.trim().to_string(),
        tokens: args.tokens.map(|t| t.trim().to_string()),
        envelope: args
            .envelope
            .as_deref()
            .map(|text| {
                scalinglaws::analysis::envelope::EnvelopeMethod::parse(text.trim()).ok_or_else(
                    || {
                        input_error(format!(
                            "--envelope '{text}': use hull, grid, or grid:K with K >= 2 budgets"
                        ))
                    },
                )
            })
            .transpose()?,
        run: args.run.map(|r| r.trim().to_string()),
        settings: scalinglaws::analysis::isoflop::IsoflopSettings {
            shape: cmd_isoflop::shape(args.shape.trim())?,
            tolerance: args.tolerance,
            bootstrap,
            seed: args.seed,
            level: level("--level", args.level)?,
            predict_at,
            calibrate: !args.no_calibration,
        },
        backtest: args.backtest,
        json: destination(args.json.as_deref()),
    })
}

fn lr_config(args: LrArgs) -> Result<cmd_lr::Config> {
    use scalinglaws::analysis::lr::{Curvature, Form, LrSettings, Method};
    if args.window == 0 {
        return Err(input_error(
            "--window 0: the parabola needs at least one LR on each side of the best, e.g. 2",
        ));
    }
    if !(args.max_rise > 0.0 && args.max_rise.is_finite()) {
        return Err(input_error(format!(
            "--max-rise {}: give a positive fraction, e.g. 0.1 for 10% above the best loss",
            args.max_rise
        )));
    }
    if args.noise.is_some_and(|s| !(s > 0.0 && s.is_finite())) {
        return Err(input_error(format!(
            "--noise {}: give the loss noise as a positive number, e.g. 0.01",
            args.noise.unwrap_or(f64::NAN)
        )));
    }
    if !(args.holdout > 0.0 && args.holdout < 1.0) {
        return Err(input_error(format!(
            "--holdout {}: give a fraction strictly between 0 and 1, e.g. 0.25",
            args.holdout
        )));
    }
    Ok(cmd_lr::Config {
        recipe: recipe(args.data)?,
        lr: args.lr.trim().to_string(),
        size: args.size.trim().to_string(),
        tokens: args.tokens.trim().to_string(),
        batch: args.batch.map(|b| b.trim().to_string()),
        settings: LrSettings {
            form: Form::from_name(&args.law).unwrap_or(Form::Loglinear),
            method: Method::from_name(&args.method).unwrap_or(Method::Joint),
            curvature: Curvature::from_name(&args.curvature).unwrap_or(Curvature::Law),
            half_window: args.window,
            max_rise: args.max_rise,
            noise: args.noise,
            level: level("--level", args.level)?,
            targets: args
                .predict
                .iter()
                .map(|text| lr_target(text))
                .collect::<Result<_>>()?,
            holdout: args.holdout,
            voice: scalinglaws::error::Voice(&wording::CommandLine),
            ..LrSettings::default()
        },
        json: destination(args.json.as_deref()),
    })
}

/// `N=V,D=V` (values may be constant expressions such as 7e9 or 20*7e9).
fn lr_target(text: &str) -> Result<(f64, f64)> {
    let form = "N=V,D=V, e.g. N=7e9,D=1.4e12";
    let mut n = None;
    let mut d = None;
    for piece in split_top_level(text) {
        let (name, value) = split_name("--predict", piece.trim(), form)?;
        let value = constant(text, value).context("--predict")?;
        if !(value > 0.0 && value.is_finite()) {
            return Err(input_error(format!(
                "--predict '{text}': {name} = {value} is not a positive number"
            )));
        }
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

fn backtest_config(args: BacktestArgs) -> Result<cmd_backtest::Config> {
    let holdout = match (args.holdout_top, args.holdout_frac, args.rollout) {
        (Some(0), _, _) => return Err(input_error("--holdout-top 0: hold out at least 1 scale")),
        (Some(k), _, _) => scalinglaws::analysis::backtest::Holdout::Top(k),
        (None, Some(f), _) if f > 0.0 && f < 1.0 => {
            scalinglaws::analysis::backtest::Holdout::Fraction(f)
        }
        (None, Some(f), _) => {
            return Err(input_error(format!(
                "--holdout-frac {f}: give a fraction strictly between 0 and 1, e.g. 0.2"
            )))
        }
        (None, None, true) if args.steps >= 2 => {
            scalinglaws::analysis::backtest::Holdout::Rollout(args.steps)
        }
        (None, None, true) => return Err(input_error("--steps: give at least 2 groups")),
        (None, None, false) if args.rolling && args.origins >= 1 => {
            scalinglaws::analysis::backtest::Holdout::Rolling(args.origins)
        }
        (None, None, false) if args.rolling => {
            return Err(input_error("--origins: give at least 1 origin"))
        }
        (None, None, false) => {
            return Err(input_error(
                "say what to hold out: --holdout-top K, --holdout-frac F, --rollout or --rolling",
            ))
        }
    };
    Ok(cmd_backtest::Config {
        recipe: recipe(args.data)?,
        law: law_choice(args.law)?,
        settings: settings_config(args.settings)?,
        by: args.by.trim().to_string(),
        holdout,
        level: level("--level", args.level)?,
        bootstrap: replicates(args.bootstrap)?,
        calibrate: args.calibrate,
        json: destination(args.json.as_deref()),
    })
}

/// The command as typed, quoted for a POSIX shell where needed.
fn command_line() -> String {
    let quote = |arg: String| {
        let plain = !arg.is_empty()
            && arg
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
        if plain {
            arg
        } else {
            format!("'{}'", arg.replace('\'', "'\\''"))
        }
    };
    let mut args = std::env::args();
    let _program = args.next();
    std::iter::once("scalinglaws".to_string())
        .chain(args.map(quote))
        .collect::<Vec<_>>()
        .join(" ")
}

fn plot_output(args: PlotOutputArgs) -> Result<cmd_plot::Output> {
    Ok(cmd_plot::Output {
        destination: Destination::parse(args.output.trim()),
        size: args
            .pixels
            .as_deref()
            .map(cmd_plot::parse_size)
            .transpose()?,
    })
}

fn plot_config(kind: PlotKind) -> Result<cmd_plot::Config> {
    Ok(match kind {
        PlotKind::Fit(args) => {
            let args = *args;
            cmd_plot::Config::Fit {
                fit: Box::new(fit_config(args.fit)?),
                x: args.x.map(|x| x.trim().to_string()),
                output: plot_output(args.output)?,
            }
        }
        PlotKind::Residuals(args) => {
            let args = *args;
            cmd_plot::Config::Residuals {
                fit: Box::new(fit_config(args.fit)?),
                output: plot_output(args.output)?,
            }
        }
        PlotKind::Frontier(args) => cmd_plot::Config::Frontier {
            fit: args.fit,
            from: args.from,
            to: args.to,
            flops: args.flops,
            held: args.held,
            output: plot_output(args.output)?,
        },
        PlotKind::Bootstrap(args) => cmd_plot::Config::Bootstrap {
            fit: args.fit,
            output: plot_output(args.output)?,
        },
        PlotKind::Tracks(args) => {
            let args = *args;
            cmd_plot::Config::Tracks {
                compare: Box::new(compare_config(args.compare)?),
                output: plot_output(args.output)?,
            }
        }
        PlotKind::Isoflop(args) => {
            let args = *args;
            cmd_plot::Config::Isoflop {
                recipe: recipe(args.data)?,
                compute: args.compute.trim().to_string(),
                size: args.size.trim().to_string(),
                select: args
                    .select
                    .iter()
                    .map(|text| {
                        text.split_once('=')
                            .map(|(c, v)| (c.trim().to_string(), v.trim().to_string()))
                            .ok_or_else(|| {
                                input_error(format!(
                                    "--select '{text}': expected COLUMN=VALUE, e.g. dataset=rw"
                                ))
                            })
                    })
                    .collect::<Result<_>>()?,
                settings: scalinglaws::analysis::isoflop::IsoflopSettings {
                    shape: cmd_isoflop::shape(args.shape.trim())?,
                    tolerance: args.tolerance,
                    bootstrap: args.bootstrap,
                    seed: 0,
                    level: 0.95,
                    ..Default::default()
                },
                output: plot_output(args.output)?,
            }
        }
    })
}

fn compare_config(args: CompareArgs) -> Result<cmd_compare::Config> {
    if !(args.cell_tolerance > 0.0 && args.cell_tolerance < 1.0) {
        return Err(input_error(format!(
            "--cell-tolerance {}: give a relative tolerance in (0, 1), e.g. 1e-3",
            args.cell_tolerance
        )));
    }
    Ok(cmd_compare::Config {
        recipe: recipe(args.data)?,
        law: law_choice(args.law)?,
        settings: settings_config(args.settings)?,
        track: args.track.trim().to_string(),
        shared: args
            .shared
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        baseline: args.baseline.map(|b| b.trim().to_string()),
        budgets: args.budgets,
        flops: args.flops,
        held: args.held,
        bootstrap: args.bootstrap,
        level: level("--level", args.level)?,
        cell_tolerance: args.cell_tolerance,
        calibrate: !args.no_calibration,
        by: args.by.map(|b| b.trim().to_string()),
        json: destination(args.json.as_deref()),
    })
}

fn compare_laws_config(args: CompareLawsArgs) -> Result<cmd_compare_laws::Config> {
    let mut laws = args
        .laws
        .iter()
        .map(|text| cmd_compare_laws::LawSpec::parse(text))
        .collect::<Result<Vec<_>>>()?;
    laws.extend(
        args.formulas
            .iter()
            .map(|text| cmd_compare_laws::LawSpec::formula(text)),
    );
    if laws.len() < 2 {
        return Err(input_error(
            "compare-laws needs at least two laws: repeat --law NAME (or --formula TEXT)",
        ));
    }
    if !(args.holdout_frac > 0.0 && args.holdout_frac < 1.0) {
        return Err(input_error(format!(
            "--holdout-frac {}: give a fraction strictly between 0 and 1, e.g. 0.2",
            args.holdout_frac
        )));
    }
    Ok(cmd_compare_laws::Config {
        recipe: recipe(args.data)?,
        laws,
        settings: settings_config(args.settings)?,
        by: args.by.map(|b| b.trim().to_string()),
        holdout_frac: args.holdout_frac,
        level: level("--level", args.level)?,
        json: destination(args.json.as_deref()),
    })
}

fn select_config(args: SelectArgs) -> Result<cmd_select::Config> {
    let mut laws = args
        .laws
        .iter()
        .map(|text| cmd_compare_laws::LawSpec::parse(text))
        .collect::<Result<Vec<_>>>()?;
    laws.extend(
        args.formulas
            .iter()
            .map(|text| cmd_compare_laws::LawSpec::formula(text)),
    );
    if laws.is_empty() {
        return Err(input_error(
            "select needs candidate laws: repeat --law NAME (or --formula TEXT)",
        ));
    }
    if !(2..=50).contains(&args.origins) {
        return Err(input_error(format!(
            "--origins {}: give between 2 and 50 rolling origins (default 5)",
            args.origins
        )));
    }
    Ok(cmd_select::Config {
        recipe: recipe(args.data)?,
        laws,
        settings: settings_config(args.settings)?,
        by: args.by.map(|b| b.trim().to_string()),
        origins: args.origins,
        level: level("--level", args.level)?,
        calibrate: !args.no_calibration,
        at: args.at,
        check: args.check,
        json: destination(args.json.as_deref()),
    })
}

pub fn parse_delimiter(text: &str) -> Result<u8> {
    let delimiter = match text {
        "tab" | "\\t" | "\t" => '\t',
        _ => {
            let mut chars = text.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => c,
                _ => {
                    return Err(input_error(format!(
                        "--delimiter '{text}': give one character, such as ';' or '|', or 'tab'"
                    )))
                }
            }
        }
    };
    u8::try_from(delimiter)
        .ok()
        .filter(u8::is_ascii)
        .ok_or_else(|| {
            input_error(format!(
                "--delimiter '{text}': the delimiter must be an ASCII character"
            ))
        })
}

/// Splits `NAME=REST` of an option's value, checking that NAME is a plain name.
pub fn split_name<'a>(option: &str, text: &'a str, form: &str) -> Result<(&'a str, &'a str)> {
    scalinglaws::data::recipe::split_assignment(option, text, form)
        .map_err(|error| input_error(error.to_string()))
}

fn parse_fixes(texts: &[String]) -> Result<BTreeMap<String, f64>> {
    let mut fixed = BTreeMap::new();
    for text in texts {
        let (name, value) = split_name("--fix", text, "NAME=VALUE, e.g. E=1.69")?;
        let value = input::constant(text, value).with_context(|| format!("--fix '{text}'"))?;
        if !value.is_finite() {
            return Err(input_error(format!(
                "--fix '{text}': {value} is not a finite value"
            )));
        }
        if fixed.insert(name.to_string(), value).is_some() {
            return Err(input_error(format!("--fix: '{name}' is given twice")));
        }
    }
    Ok(fixed)
}

fn parse_bounds(texts: &[String]) -> Result<BTreeMap<String, Bounds>> {
    let mut bounds = BTreeMap::new();
    for text in texts {
        let form = "NAME=LO:HI, e.g. E=0:inf or alpha=0:2";
        let (name, range) = split_name("--bound", text, form)?;
        let Some((lower, upper)) = range.split_once(':') else {
            return Err(input_error(format!(
                "--bound '{text}': expected {form} (no ':' between the bounds)"
            )));
        };
        // `infinite` is the infinity that means "no bound" on this side.
        let side = |side: &str, infinite: f64| -> Result<Option<f64>> {
            let value = match side.trim() {
                "" => return Ok(None),
                "inf" | "+inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                _ => input::constant(text, side).with_context(|| format!("--bound '{text}'"))?,
            };
            if value == infinite {
                return Ok(None);
            }
            if !value.is_finite() {
                return Err(input_error(format!(
                    "--bound '{text}': '{}' is not a usable bound",
                    side.trim()
                )));
            }
            Ok(Some(value))
        };
        let lower = side(lower, f64::NEG_INFINITY)?;
        let upper = side(upper, f64::INFINITY)?;
        if let (Some(lo), Some(hi)) = (lower, upper) {
            if lo >= hi {
                return Err(input_error(format!(
                    "--bound '{text}': the lower bound {lo} must be below the upper bound {hi}"
                )));
            }
        }
        if bounds
            .insert(name.to_string(), Bounds { lower, upper })
            .is_some()
        {
            return Err(input_error(format!("--bound: '{name}' is given twice")));
        }
    }
    Ok(bounds)
}

fn parse_grids(texts: &[String]) -> Result<BTreeMap<String, Vec<f64>>> {
    let mut grids = BTreeMap::new();
    for text in texts {
        let (name, list) = split_name("--grid", text, "NAME=V1,V2,..., e.g. alpha=0.1,0.3,1")?;
        let values =
            input::constant_list(text, list).with_context(|| format!("--grid '{text}'"))?;
        if let Some(bad) = values.iter().find(|v| !v.is_finite()) {
            return Err(input_error(format!(
                "--grid '{text}': {bad} is not a finite start value"
            )));
        }
        if grids.insert(name.to_string(), values).is_some() {
            return Err(input_error(format!("--grid: '{name}' is given twice")));
        }
    }
    Ok(grids)
}
