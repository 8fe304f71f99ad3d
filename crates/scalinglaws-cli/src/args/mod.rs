//! The command line as clap sees it: one struct per command (in the files below, one per
//! command or group), and the argument groups several commands share (data, law, fit
//! settings). Only clap attributes and doc strings live here; turning arguments into the
//! library's jobs and configurations is `config/`.

mod fit;
pub mod names;
mod plot;
pub mod schedule;
pub mod sim;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub use self::names::ReportFormat;
use self::names::{CovarianceKind, Loss, ResidualSpace};

pub use self::fit::{FitArgs, FitCommandArgs, ReportArgs};
pub use self::plot::{PlotArgs, PlotFrontierArgs, PlotIsoflopArgs, PlotKind, PlotOutputArgs};
pub use self::schedule::ScheduleArgs;

/// Fit scaling laws to the records of ML scaling experiments.
#[derive(Debug, Parser)]
#[command(name = "scalinglaws", version, long_about = None)]
#[command(
    about = "Fit scaling laws to the records of ML scaling experiments",
    after_help = "Example:\n  scalinglaws fit runs.csv --law chinchilla --target loss --map N=params --derive \"D=C/(6*N)\""
)]
#[command(propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// How a printed report is written: text for the terminal, markdown for a pull request
    /// or a wiki, html for a self-contained page (--json is unchanged).
    #[arg(long, global = true, value_name = "FORMAT", value_enum, default_value_t = ReportFormat::Text,
          display_order = 900)]
    pub format: ReportFormat,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the built-in laws with their formula, summary and citation.
    Laws(LawsArgs),
    /// Fit a law to a CSV/TSV/JSONL file of runs and print a report (or JSON).
    Fit(Box<FitCommandArgs>),
    /// Evaluate a fitted law (a JSON file written by `fit --json`) at new points, with
    /// confidence and prediction intervals.
    Predict(Box<crate::cmd_predict::PredictArgs>),
    /// The compute-optimal N*, D* of a saved fit at training budgets, with intervals from its
    /// bootstrap replicates, and the exponents of the frontier.
    Optimal(Box<crate::cmd_optimal::OptimalArgs>),
    /// IsoFLOP analysis: per compute budget, the loss-optimal model size, and the power laws
    /// N* ∝ C^a, D* ∝ C^b through the minima.
    Isoflop(Box<crate::cmd_isoflop::IsoflopArgs>),
    /// Task accuracy at a larger model from smaller models' evaluations (and a model's own
    /// early checkpoints): each task diagnosed, then forecast by the logistic law, the
    /// two-stage chain and the pooled trajectory model, with calibrated intervals.
    Downstream(Box<crate::cmd_downstream::DownstreamArgs>),
    /// Which runs to launch next: fit the runs so far, then choose among candidate runs the
    /// batch that most narrows the goals' intervals (the compute-optimal loss, N*, D* or
    /// D*/N* at a budget, or the loss at a point) within a spend and a number of runs.
    /// Before any run: --prior instead of DATA and --target.
    #[command(
        mut_arg("data", |a| a.required(false)),
        mut_arg("target", |a| a.required(false))
    )]
    Design(Box<crate::cmd_design::DesignArgs>),
    /// Fit on the smaller scales, predict the held-out larger ones, and score the errors and
    /// the coverage of the prediction intervals.
    Backtest(Box<crate::cmd_backtest::BacktestArgs>),
    /// Fit several laws to the same data: objective, likelihood, AIC/BIC, backtest error, and
    /// likelihood-ratio tests between nested laws.
    CompareLaws(Box<crate::cmd_compare_laws::CompareLawsArgs>),
    /// Choose and average laws by rolling-origin backtests over scale: every candidate's score,
    /// the winner, stacking weights, and predictions whose intervals hold the spread between
    /// laws; --check tests the procedure by nested rolling origins.
    Select(Box<crate::cmd_select::SelectArgs>),
    /// How far the prediction at a point moves when each scale group is left out of the fit:
    /// the full fit's prediction and interval, then one refit per left-out group.
    Sensitivity(Box<crate::cmd_sensitivity::SensitivityArgs>),
    /// Flag the runs to set aside before a fit, each row with its rule, value and threshold:
    /// broken or diverged losses, repeated rows, checkpoints at initialisation or in warm-up,
    /// runs out of line with their scale or a fitted law, runs far above the curve of their
    /// budget's sweep. Removes nothing.
    Qc(Box<crate::cmd_qc::QcArgs>),
    /// Compare recipes (tracks): fit each track, separately or with shared parameters, and
    /// report the compute multiplier, loss gap and odds of winning at each budget.
    Compare(Box<crate::cmd_compare::CompareArgs>),
    /// The learning rate (and batch size) to use at a target scale: each (N, D) cell's optimal
    /// LR with flags, the law lr* = c·N^a·D^b (or curved) with a curvature test, predictions,
    /// and a backtest of extrapolating in D against in N.
    Lr(Box<crate::cmd_lr::LrArgs>),
    /// Loss curves under learning-rate schedules: fit a curve law (multi-power, LR annealing)
    /// to logged runs, then predict, compare and optimise schedules and cooldowns.
    Schedule(ScheduleArgs),
    /// Pictures of a fit (data and curves, residuals) or of a saved fit (frontier, bootstrap
    /// distributions), as SVG or PNG.
    Plot(PlotArgs),
    /// One self-contained HTML page for a fit: parameters with intervals, warnings, plots,
    /// allocation, backtest, and the command that reproduces it.
    Report(Box<ReportArgs>),
    /// The lab: exact simulators of the theory settings behind the seed papers (NVFP4 dot
    /// products, SGD vs signSGD, associative recall, model editing, multi-index targets), each
    /// writing a CSV dataset.
    Sim(sim::SimArgs),
}

#[derive(Debug, Args)]
pub struct LawsArgs {
    /// Write the list as JSON to PATH instead of the table ('-' for stdout).
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}

/// Where the runs come from and which columns feed the law (shared by every command that
/// reads data).
#[derive(Debug, Default, Args)]
pub struct DataArgs {
    /// The runs: .csv, .tsv/.tab, .jsonl/.ndjson or .parquet/.pq (or any delimited text with
    /// --delimiter); '-' reads standard input: CSV (or --delimiter), Parquet when it starts
    /// with PAR1, JSON Lines when it starts with '{'.
    #[arg(value_name = "DATA", required = true)]
    pub data: Option<PathBuf>,

    /// The column the law predicts (e.g. loss).
    #[arg(long, value_name = "COLUMN", required = true)]
    pub target: Option<String>,

    /// Give a column a name usable as a law variable and in expressions: N="Model Size".
    #[arg(long = "map", value_name = "VAR=COLUMN")]
    pub maps: Vec<String>,

    /// Add a column computed row by row from other columns: "D=C/(6*N)". Applied in order,
    /// before --where.
    #[arg(long = "derive", value_name = "VAR=EXPR")]
    pub derives: Vec<String>,

    /// Keep only the rows where a comparison holds: "loss < 3.44" (< <= > >= == !=).
    /// Repeat to require several; removed rows are counted in the result.
    #[arg(long = "where", value_name = "EXPR", allow_hyphen_values = true)]
    pub filters: Vec<String>,

    /// A column of non-negative row weights.
    #[arg(long, value_name = "COLUMN")]
    pub weights: Option<String>,

    /// Field delimiter of DATA (one character, or "tab"); overrides the file extension.
    #[arg(long, value_name = "C")]
    pub delimiter: Option<String>,
}

/// Runs that differ only in swept settings (every command that fits a law to runs).
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// A swept column (repeat for several: learning rate, batch size, weight decay): the law is
    /// fitted to each cell's frontier (per value of the law's variables: the minimum of the
    /// parabola in the log setting through the best run and its two neighbours when one column
    /// varies over 3 values or more, else the best run), not to every run. The report lists
    /// the frontier and the runs set aside.
    #[arg(long = "sweep", value_name = "COLUMN")]
    pub sweep: Vec<String>,
}

impl SweepArgs {
    /// The swept columns, as typed.
    pub fn columns(&self) -> Vec<String> {
        self.sweep.iter().map(|c| c.trim().to_string()).collect()
    }
}

/// Candidate laws weighed against each other (`compare-laws`, `select`).
#[derive(Debug, Args)]
pub struct CandidateArgs {
    /// A candidate law (repeat): a catalog name, optionally with parameters held at values,
    /// e.g. "chinchilla[E=1.69,A=406.4,B=410.7,alpha=0.34,beta=0.28]".
    #[arg(long = "law", value_name = "NAME[P=V,...]")]
    pub laws: Vec<String>,

    /// A candidate formula (repeat).
    #[arg(long = "formula", value_name = "TEXT", allow_hyphen_values = true)]
    pub formulas: Vec<String>,
}

/// The work budget (every command that computes more than a formula at a point).
#[derive(Debug, Args)]
pub struct WorkArgs {
    /// The most work the run may do, in estimated core-seconds: work estimated above it (from
    /// the rows, starts, replicates, tracks, groups, budgets, ...) is refused before it
    /// starts, naming what to shrink; memory is allowed 8 MB per unit.
    #[arg(long = "max-work", value_name = "SECONDS",
          default_value_t = scalinglaws::work::DEFAULT_MAX_WORK)]
    pub max_work: f64,
}

impl WorkArgs {
    /// The budget, checked.
    pub fn budget(&self) -> Result<f64, scalinglaws::Error> {
        scalinglaws::work::check_budget(self.max_work).map(|()| self.max_work)
    }
}

/// How a law is fitted (shared by every command that fits).
#[derive(Debug, Args)]
pub struct SettingsArgs {
    /// Robust loss per residual.
    #[arg(long, value_name = "NAME", value_enum, default_value_t = Loss::Huber)]
    pub loss: Loss,

    /// Scale of the loss (Huber's delta), in units of the residuals.
    #[arg(long = "f-scale", value_name = "X", default_value_t = scalinglaws::fit::DEFAULT_F_SCALE)]
    pub f_scale: f64,

    /// Where residuals are taken [default: the law's own; log for --formula].
    #[arg(long, value_name = "SPACE", value_enum)]
    pub space: Option<ResidualSpace>,

    /// Hold a parameter at a value (a number or a constant expression such as exp(6.26)).
    #[arg(long = "fix", value_name = "NAME=VALUE")]
    pub fixes: Vec<String>,

    /// Replace a parameter's bounds: E=0:inf, alpha=0:2, c=:0 (an empty side is unbounded).
    #[arg(long = "bound", value_name = "NAME=LO:HI")]
    pub bounds: Vec<String>,

    /// Replace a parameter's start values: alpha=0,0.5,1 or A=exp(5),exp(10).
    #[arg(long = "grid", value_name = "NAME=V1,V2,...")]
    pub grids: Vec<String>,

    /// Seed of every random step (bootstrap draws; the fit itself is deterministic) [default:
    /// 0]. Refused by the commands that draw nothing at random (compare-laws, select).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Worker threads [default: all cores]; the result does not depend on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,

    #[command(flatten)]
    pub work: WorkArgs,

    /// Gauss–Newton iterations of each start before it is polished.
    #[arg(long = "max-iter", value_name = "N", default_value_t = 200,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_iter: u32,

    /// Covariance behind the standard errors [default: auto: gauss_newton for --loss linear,
    /// smoothed_sandwich for robust losses, hessian (the observed information) under --family;
    /// sandwich is the plain H⁻¹BH⁻¹].
    #[arg(long, value_name = "KIND", value_enum, default_value_t = CovarianceKind::Auto,
          hide_default_value = true)]
    pub covariance: CovarianceKind,

    /// Maximise a likelihood instead of the robust loss [default: none, the robust least
    /// squares of --loss]: gaussian, student_t, poisson, negative_binomial (counts),
    /// binomial, beta_binomial (proportions out of --trials).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["loss", "f_scale"])]
    pub family: Option<String>,

    /// Student's t degrees of freedom (--family student_t) [default: fitted].
    #[arg(long, value_name = "NU", requires = "family")]
    pub nu: Option<f64>,

    /// Hold the family's dispersion at a value (negative_binomial's alpha, beta_binomial's
    /// rho, student_t's scale) [default: fitted].
    #[arg(long, value_name = "X", requires = "family")]
    pub dispersion: Option<f64>,

    /// Trials behind each proportion (binomial, beta_binomial): a column, or one number for
    /// every row. The target is then successes / trials.
    #[arg(long, value_name = "COLUMN|N", requires = "family")]
    pub trials: Option<String>,

    /// A column of exposures for counts (poisson, negative_binomial): the mean count is
    /// exposure × the law.
    #[arg(long, value_name = "COLUMN", requires = "family")]
    pub exposure: Option<String>,
}

/// One law: a catalog name or a formula.
#[derive(Debug, Args)]
pub struct LawArgs {
    /// A built-in law (see `scalinglaws laws`), e.g. chinchilla or bnsl:2.
    #[arg(
        long,
        value_name = "NAME",
        conflicts_with = "formula",
        required_unless_present = "formula"
    )]
    pub law: Option<String>,

    /// A law written as text, e.g. "E + A*N^-alpha". Names of columns (or --map/--derive names)
    /// are variables; every other name is a fitted parameter.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub formula: Option<String>,
}
