//! Arguments of `design`: which runs to launch next, chosen to narrow what the user cares
//! about within a spend.

use clap::{ArgGroup, Args};

use super::{DataArgs, LawArgs, SettingsArgs, SweepArgs};

#[derive(Debug, Args)]
#[command(group(
    ArgGroup::new("candidate_space")
        .args(["candidates", "candidates_file"])
        .required(true)
        .multiple(false)
))]
pub struct DesignArgs {
    #[command(flatten)]
    pub data: DataArgs,

    #[command(flatten)]
    pub sweep: SweepArgs,

    #[command(flatten)]
    pub law: LawArgs,

    #[command(flatten)]
    pub settings: SettingsArgs,

    /// What the batch should narrow (repeatable): optimal_loss@C, tokens_per_param@C,
    /// optimal_N@C or optimal_D@C at a budget of C FLOPs (then ,VAR=VALUE for the law's other
    /// variables, e.g. optimal_loss@1e23,U=2e10); the compute multiplier of one track over
    /// another, tracks coded as values of a variable: multiplier@1e23,track=0:1; the loss at a
    /// point: loss@N=7e10,D=1.4e12; or the value of a variable that minimises the loss at a
    /// point (the optimal learning rate): argmin_lr@N=7e10,D=1.4e12.
    #[arg(long = "goal", value_name = "GOAL", required = true)]
    pub goals: Vec<String>,

    /// The candidate runs as a log grid over ranges of the law's variables:
    /// "N=1e7..1e11,D=1e8..1e13" (VAR=VALUE holds a variable at one value, VAR=V1|V2 lists
    /// its values, e.g. track=0|1).
    #[arg(long, value_name = "RANGES")]
    pub candidates: Option<String>,

    /// The candidate runs as a table (CSV, TSV or JSON Lines): a column per law variable, a
    /// row per candidate.
    #[arg(long = "candidates-file", value_name = "DATA")]
    pub candidates_file: Option<std::path::PathBuf>,

    /// Points per decade of the --candidates grid [default: 8].
    #[arg(
        long = "per-decade",
        value_name = "K",
        conflicts_with = "candidates_file"
    )]
    pub per_decade: Option<usize>,

    /// Keep the grid's runs whose tokens per parameter D/N lie in LOW..HIGH, or "any"
    /// [default: 2..500].
    #[arg(
        long = "tokens-per-param",
        value_name = "LOW..HIGH|any",
        conflicts_with = "candidates_file"
    )]
    pub tokens_per_param: Option<String>,

    /// Keep the grid's runs that cost at most this many FLOPs each.
    #[arg(
        long = "max-cost",
        value_name = "FLOPS",
        allow_negative_numbers = true,
        conflicts_with = "candidates_file"
    )]
    pub max_cost: Option<f64>,

    /// A run's cost (and how a goal's budget is counted), a formula of N and D.
    #[arg(long, value_name = "FORMULA", default_value = "6*N*D")]
    pub cost: String,

    /// Most total cost of the batch, in the units of --cost [default: no limit].
    #[arg(long, value_name = "FLOPS", allow_negative_numbers = true)]
    pub spend: Option<f64>,

    /// Most runs in the batch.
    #[arg(long, value_name = "K", default_value_t = 8)]
    pub runs: usize,

    /// Parameter draws the choice averages over (1: the current estimate only).
    #[arg(long, value_name = "K", default_value_t = 32)]
    pub draws: usize,

    /// Simulated outcomes and refits that check the expected widths (0: no check) [default:
    /// 200; none with --prior, whose widths a refit cannot check].
    #[arg(long, value_name = "K")]
    pub simulations: Option<usize>,

    /// Plan a campaign of this many rounds (each a batch, its simulated outcomes and a refit).
    #[arg(long, value_name = "ROUNDS", default_value_t = 1)]
    pub sequential: usize,

    /// Design before any run (no DATA, no --target): what is known of each parameter of the
    /// law, a value or a range: "E=1.82,A=482,alpha=0.2..0.5,B=2085,beta=0.366" (a range is
    /// read as the centre ± 2 sd; --fix holds a parameter instead). Needs --noise.
    #[arg(
        long,
        value_name = "NAME=VALUE|NAME=LOW..HIGH,...",
        allow_hyphen_values = true
    )]
    pub prior: Option<String>,

    /// The prior sd of a parameter --prior gives one value: in log θ for a parameter bounded
    /// below by 0 (0.5: a factor 1.65 at one sd), in θ otherwise [default: 0.5].
    #[arg(
        long = "prior-sd",
        value_name = "SD",
        requires = "prior",
        allow_negative_numbers = true
    )]
    pub prior_sd: Option<f64>,

    /// The noise of a run's outcome in the fitted space [default: the fit's residual scale].
    #[arg(long, value_name = "SIGMA", allow_negative_numbers = true)]
    pub noise: Option<f64>,

    /// Level of the widths (each is the width of an interval at this level).
    #[arg(long, value_name = "P", default_value_t = scalinglaws::uncertainty::DEFAULT_LEVEL)]
    pub level: f64,

    /// Write the design as JSON to PATH (the report still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,

    /// Write the runs to launch as CSV to PATH, or to stdout with '-': a column per law
    /// variable, the cost, and each goal's expected width once the run is added.
    #[arg(long, value_name = "PATH|-")]
    pub csv: Option<String>,

    /// Also draw the candidates, the runs so far and the runs to launch (D against N):
    /// FILE.svg, FILE.png or - (SVG on stdout).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<String>,
}
