//! `scalinglaws design`: which runs to launch next. The law is fitted to the runs so far (or,
//! before any run, `--prior` says what is known of it), the candidate runs are laid out (a log
//! grid over ranges, or a list), and the batch that most narrows the goals' intervals within
//! the spend and the number of runs is chosen, its expected widths checked by simulated
//! outcomes and refits (and, with `--sequential`, a campaign of several rounds planned). The
//! workflow, its defaults and its rules are the library's (`scalinglaws::workflow::design`);
//! this file holds the arguments and turns them into its spec (the texts of goals, ranges and
//! priors, the candidates file), and writes the runs to launch as CSV and the figure.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{ArgGroup, Args};
use scalinglaws::analysis::allocation::Flops;
use scalinglaws::analysis::design::DesignSettings;
use scalinglaws::error::Setting;
use scalinglaws::workflow::compare::DEFAULT_FLOPS;
use scalinglaws::workflow::design::{
    fit_job, parse_goal, parse_prior, parse_ranges, simulations, CandidateSpace, DesignJob,
    DesignWorkflow, PriorSpec,
};
use scalinglaws::workflow::Ctx;
use scalinglaws_report::analyses::design::runs_csv;
use scalinglaws_report::plots::design_page;

use crate::args::{DataArgs, LawArgs, SettingsArgs, SweepArgs};
use crate::config::plot::picture;
use crate::config::values::tokens_per_param;
use crate::config::{destination, law_choice, optional_recipe, settings_config};
use crate::figure;
use crate::input;
use crate::input_error;
use crate::output::{self, Destination};
use crate::workflow::{run_drawing, Io};

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
    /// row per candidate (text columns, such as a run's name, are left out).
    #[arg(long = "candidates-file", value_name = "DATA")]
    pub candidates_file: Option<PathBuf>,

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
    #[arg(long, value_name = "FORMULA", default_value = DEFAULT_FLOPS)]
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

pub fn run(mut args: DesignArgs) -> Result<()> {
    let (json, csv, plot) = outputs(&args)?;
    let data = std::mem::take(&mut args.data);
    let (path, delimiter, mut recipe) = optional_recipe(data)?;
    recipe.sweep = args.sweep.columns();
    let listed = args.candidates_file.clone();
    let spec = spec(args, recipe)?;
    let io = Io {
        path: path.unwrap_or_default(),
        delimiter,
        json,
    };
    run_drawing::<DesignWorkflow>(&io, &spec, &Ctx::default(), |_, document| {
        if let Some(target) = &plot {
            figure::write(&design_page(document)?, target)?;
        }
        match &csv {
            Some(csv) => output::write(csv, &runs_csv(document)),
            None => Ok(()),
        }
    })
    .map_err(|error| in_candidates_file(error, listed.as_deref()))
}

/// The arguments as the library's spec (syntax only: the library checks every rule).
fn spec(args: DesignArgs, recipe: scalinglaws::data::recipe::Recipe) -> Result<DesignJob> {
    let prior = match &args.prior {
        Some(text) => Some(PriorSpec::new(parse_prior(text)?, args.prior_sd)),
        None => None,
    };
    let cost = Flops::parse(&args.cost).context("--cost")?;
    let seed = args.settings.seed.unwrap_or(0);
    let targets = args
        .goals
        .iter()
        .map(|goal| parse_goal(goal).map_err(anyhow::Error::from))
        .collect::<Result<Vec<_>>>()?;
    let settings = DesignSettings {
        targets,
        runs: args.runs,
        spend: args.spend,
        flops: cost.clone(),
        draws: args.draws,
        simulations: simulations(args.simulations, prior.is_some())?,
        rounds: args.sequential,
        level: args.level,
        seed,
    };
    let candidates = candidate_space(&args)?;
    let law = law_choice(args.law)?;
    // The design fits with the loss only (no likelihood family).
    let fitting = settings_config(args.settings, None)?;
    Ok(DesignJob {
        fit: fit_job(recipe, law, fitting, args.level, seed),
        prior,
        candidates,
        cost,
        noise: args.noise,
        settings,
    })
}

/// A refusal of the candidates named by the file they came from, when they were listed.
fn in_candidates_file(error: anyhow::Error, listed: Option<&Path>) -> anyhow::Error {
    let key = error
        .downcast_ref::<scalinglaws::Error>()
        .and_then(|e| e.key());
    match (listed, key) {
        (Some(path), Some(Setting::Candidates)) => {
            error.context(format!("--candidates-file '{}'", path.display()))
        }
        _ => error,
    }
}

type Outputs = (
    Option<Destination>,
    Option<Destination>,
    Option<figure::Output>,
);

/// `--json`, `--csv` and `--plot`, at most one of them on standard output.
fn outputs(args: &DesignArgs) -> Result<Outputs> {
    let json = destination(args.json.as_deref());
    let csv = args.csv.as_deref().map(|c| Destination::parse(c.trim()));
    let plot = args.plot.as_deref().map(picture);
    let on_stdout: Vec<&str> = [
        (json.as_ref(), "--json -"),
        (csv.as_ref(), "--csv -"),
        (plot.as_ref().map(|p| &p.destination), "--plot -"),
    ]
    .into_iter()
    .filter(|(d, _)| *d == Some(&Destination::Stdout))
    .map(|(_, option)| option)
    .collect();
    if on_stdout.len() > 1 {
        return Err(input_error(format!(
            "{} all write to standard output; send all but one of them to a file",
            on_stdout.join(" and ")
        )));
    }
    Ok((json, csv, plot))
}

/// `--candidates` (a grid, shaped by `--per-decade`, `--tokens-per-param` and `--max-cost`)
/// or `--candidates-file` (a list); clap makes sure exactly one is given.
fn candidate_space(args: &DesignArgs) -> Result<CandidateSpace> {
    if let Some(path) = &args.candidates_file {
        return Ok(CandidateSpace::List(input::candidate_runs(path)?));
    }
    Ok(CandidateSpace::grid(
        parse_ranges(args.candidates.as_deref().unwrap_or_default())?,
        args.per_decade,
        tokens_per_param(args.tokens_per_param.as_deref())?,
        args.max_cost,
    ))
}
