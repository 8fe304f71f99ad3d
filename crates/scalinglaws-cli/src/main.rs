//! The `scalinglaws` command: parses the command line once (clap derive), turns the arguments
//! into the library's configuration (settings, data recipe, output targets), hands them to one
//! subcommand, and maps whatever went wrong to a message on stderr and an exit code:
//! 0 success, 2 bad input or usage, 1 a fit that could not be done.

mod cmd_fit;
mod cmd_laws;
mod cmd_predict;
mod input;
mod output;
mod report;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand};
use scalinglaws::fit::{Bounds, FitSettings, LossKind, Space};

use crate::input::{Derive, Filter, Recipe};
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
    /// Evaluate a fitted law (a JSON file written by `fit --json`) at new points.
    Predict(PredictArgs),
}

#[derive(Debug, Args)]
struct LawsArgs {
    /// Write the list as JSON to PATH instead of the table ('-' for stdout).
    #[arg(long, value_name = "PATH|-")]
    json: Option<String>,
}

#[derive(Debug, Args)]
struct FitArgs {
    /// The runs: .csv, .tsv/.tab or .jsonl/.ndjson (or any delimited text with --delimiter).
    #[arg(value_name = "DATA")]
    data: PathBuf,

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

    /// A column of non-negative row weights.
    #[arg(long, value_name = "COLUMN")]
    weights: Option<String>,

    /// Hold a parameter at a value (a number or a constant expression such as exp(6.26)).
    #[arg(long = "fix", value_name = "NAME=VALUE")]
    fixes: Vec<String>,

    /// Replace a parameter's bounds: E=0:inf, alpha=0:2, c=:0 (an empty side is unbounded).
    #[arg(long = "bound", value_name = "NAME=LO:HI")]
    bounds: Vec<String>,

    /// Replace a parameter's start values: alpha=0,0.5,1 or A=exp(5),exp(10).
    #[arg(long = "grid", value_name = "NAME=V1,V2,...")]
    grids: Vec<String>,

    /// Seed of every random step (the fit itself is deterministic).
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,

    /// Worker threads [default: all cores]; the result does not depend on it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    threads: Option<u32>,

    /// Field delimiter of DATA (one character, or "tab"); overrides the file extension.
    #[arg(long, value_name = "C")]
    delimiter: Option<String>,

    /// Write the fit as JSON to PATH (the report still prints), or to stdout instead of the
    /// report with '-'.
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
            eprintln!("error: {error:#}");
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
            json: destination(args.json.as_deref()),
        }),
    }
}

/// 2 for anything the user can fix in their input, 1 for a fit that could not be done (and
/// for failures outside the user's input, such as a full disk).
fn exit_code(error: &anyhow::Error) -> u8 {
    for cause in error.chain() {
        if let Some(library) = cause.downcast_ref::<scalinglaws::Error>() {
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

/// Everything `fit` needs, parsed and checked as far as can be done without the data.
#[derive(Debug)]
pub struct FitConfig {
    pub recipe: Recipe,
    pub law: LawChoice,
    /// Settings with `space` still to be decided when None (it depends on the law).
    pub settings: FitSettings,
    pub space: Option<Space>,
    pub json: Option<Destination>,
}

fn fit_config(args: FitArgs) -> Result<FitConfig> {
    let law = match (args.law, args.formula) {
        (Some(name), None) => LawChoice::Catalog(name.trim().to_string()),
        (None, Some(text)) => LawChoice::Formula(text),
        // clap enforces exactly one of the two.
        _ => {
            return Err(input_error(
                "give exactly one of --law NAME and --formula TEXT",
            ))
        }
    };
    let delimiter = args.delimiter.as_deref().map(parse_delimiter).transpose()?;
    let recipe = Recipe {
        path: args.data,
        delimiter,
        maps: args
            .maps
            .iter()
            .map(|text| input::parse_map(text))
            .collect::<Result<_>>()?,
        derives: args
            .derives
            .iter()
            .map(|text| Derive::parse(text))
            .collect::<Result<_>>()?,
        filters: args
            .filters
            .iter()
            .map(|text| Filter::parse(text))
            .collect::<Result<_>>()?,
        target: args.target.trim().to_string(),
        weights: args.weights.map(|w| w.trim().to_string()),
    };
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
        ..FitSettings::default()
    };
    Ok(FitConfig {
        recipe,
        law,
        settings,
        space,
        json: destination(args.json.as_deref()),
    })
}

fn parse_delimiter(text: &str) -> Result<u8> {
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
    let Some((name, rest)) = text.split_once('=') else {
        return Err(input_error(format!(
            "{option} '{text}': expected {form} (no '=' found)"
        )));
    };
    let name = name.trim();
    if !input::is_identifier(name) {
        return Err(input_error(format!(
            "{option} '{text}': '{name}' is not a name; names start with a letter or '_' and \
             hold letters, digits and '_' (expected {form})"
        )));
    }
    Ok((name, rest))
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
