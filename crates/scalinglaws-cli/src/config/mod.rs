//! From parsed arguments (`args/`) to what the commands and the library take: each command's
//! `Config` is built here once, with every value parsed and checked as far as can be done
//! without the data. This file holds the conversions several commands share (data recipe,
//! law choice, fit settings, levels, `--fix`/`--bound`/`--grid`); the files below hold one
//! command or group each.

mod fit;
mod law_spec;
pub(crate) mod plot;
mod report;
pub mod schedule;
pub mod sim;
pub(crate) mod values;

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use scalinglaws::fit::{Bounds, FitSettings};

use crate::args::{DataArgs, LawArgs, SettingsArgs};
use crate::input::{self, Derive, Filter, Recipe};
use crate::input_error;
use crate::output::Destination;

pub use self::fit::{fit_command, fit_config, FitCommand, FitConfig, GroupsConfig};
pub use self::law_spec::LawSpec;
pub use self::plot::plot_config;
pub use self::report::{one_on_stdout, report_config, ReportConfig};
pub use self::schedule::{schedule_config, ScheduleConfig, ScheduleFitConfig};

pub fn destination(json: Option<&str>) -> Option<Destination> {
    json.map(Destination::parse)
}

pub use scalinglaws::job::{LawChoice, SettingsJob};

/// The law the arguments name (clap already enforces one of the two; the library holds the
/// rule for every face).
pub fn law_choice(args: LawArgs) -> Result<LawChoice> {
    Ok(LawChoice::from_request(args.law, args.formula)?)
}

pub fn recipe(args: DataArgs) -> Result<Recipe> {
    // clap requires both, except for `design` (which reads `optional_recipe`).
    let (Some(_), Some(_)) = (&args.data, &args.target) else {
        return Err(input_error(
            "give the runs (DATA) and the column the law predicts (--target COLUMN)",
        ));
    };
    let (path, delimiter, recipe) = optional_recipe(args)?;
    Ok(Recipe {
        path: path.unwrap_or_default(),
        delimiter,
        recipe,
    })
}

/// The data arguments of a command that may read no runs (`design` before any run): the path
/// (None: none given), the delimiter, and the recipe (its target empty when none is given;
/// the library says what a workflow needs). A delimiter without DATA is refused.
pub fn optional_recipe(
    args: DataArgs,
) -> Result<(
    Option<std::path::PathBuf>,
    Option<u8>,
    scalinglaws::data::recipe::Recipe,
)> {
    let delimiter = args.delimiter.as_deref().map(parse_delimiter).transpose()?;
    if args.data.as_ref().is_some_and(|p| p.as_os_str().is_empty()) {
        return Err(input_error(
            "DATA '': give the path of the runs, or '-' for standard input",
        ));
    }
    if delimiter.is_some() && args.data.is_none() {
        return Err(input_error(
            "--delimiter reads DATA, and no DATA is given: drop it, or give the runs",
        ));
    }
    Ok((
        args.data,
        delimiter,
        scalinglaws::data::recipe::Recipe {
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
            target: args.target.unwrap_or_default().trim().to_string(),
            weights: args.weights.map(|w| w.trim().to_string()),
            trials: None,
            exposure: None,
            sweep: Vec::new(),
        },
    ))
}

/// `--seed` refused by `command`, which draws nothing at random (`compare-laws`, `select`).
pub fn refuse_seed(args: &SettingsArgs, command: &str) -> Result<()> {
    match args.seed {
        None => Ok(()),
        Some(_) => Err(input_error(format!(
            "{command} draws nothing at random; drop --seed"
        ))),
    }
}

/// How a law is fitted. `--seed` is no fit setting (the fit is deterministic): each command
/// takes it from its arguments into the one place its random steps read it (the fit job's
/// uncertainty settings, the backtest's, the comparison's; 0 when not given), and the
/// commands that draw nothing at random (`compare-laws`, `select`) refuse it.
pub fn settings_config(
    args: SettingsArgs,
    recipe: Option<&mut scalinglaws::data::recipe::Recipe>,
) -> Result<SettingsJob> {
    let max_work = args.work.budget()?;
    fit::refuse_fixed_and(&args.fixes, &args.bounds, "--bound")?;
    let family = family_config(&args, recipe)?;
    fit::refuse_fixed_and(&args.fixes, &args.grids, "--grid")?;
    let settings = FitSettings {
        loss: args.loss.into(),
        f_scale: args.f_scale,
        fixed: parse_fixes(&args.fixes)?,
        bounds: parse_bounds(&args.bounds)?,
        grids: parse_grids(&args.grids)?,
        threads: args.threads.map(|n| capped_threads(n as usize)),
        max_iterations: args.max_iter as usize,
        max_work,
        covariance: args.covariance.into(),
        family,
        ..FitSettings::default()
    };
    Ok(SettingsJob {
        settings,
        space: args.space.map(Into::into),
        heteroscedastic: None,
    })
}

/// `--family`, `--nu`, `--dispersion` into the settings and `--trials`, `--exposure` into the
/// recipe; refused (naming the command) where the command takes no family.
fn family_config(
    args: &SettingsArgs,
    recipe: Option<&mut scalinglaws::data::recipe::Recipe>,
) -> Result<Option<scalinglaws::fit::Family>> {
    let given = args.family.is_some()
        || args.nu.is_some()
        || args.dispersion.is_some()
        || args.trials.is_some()
        || args.exposure.is_some();
    let Some(recipe) = recipe else {
        if given {
            return Err(input_error(
                "--family, --nu, --dispersion, --trials and --exposure are taken by fit, backtest and compare-laws; this command fits with the loss only",
            ));
        }
        return Ok(None);
    };
    recipe.trials = args.trials.as_deref().map(|text| {
        let text = text.trim();
        match text.parse::<f64>() {
            Ok(n) => scalinglaws::data::recipe::Trials::Count(n),
            Err(_) => scalinglaws::data::recipe::Trials::Column(text.to_string()),
        }
    });
    recipe.exposure = args.exposure.as_ref().map(|e| e.trim().to_string());
    scalinglaws::job::family_setting(args.family.as_deref(), args.nu, args.dispersion)
        .map_err(anyhow::Error::from)
}

/// `--threads N`, at most the library's cap (a few per core): above it a warning, once, and
/// the cap (the result does not depend on the count; threads are started up front).
pub fn capped_threads(requested: usize) -> usize {
    static WARNED: std::sync::Once = std::sync::Once::new();
    if let Some(warning) = scalinglaws::limits::threads_warning(requested) {
        WARNED.call_once(|| {
            eprintln!("warning: {}", warning.worded(&crate::wording::CommandLine));
        });
    }
    scalinglaws::limits::threads(requested)
}

/// A level given on the command line, checked by the library's one rule.
pub fn level(value: f64) -> Result<f64> {
    scalinglaws::uncertainty::check_level(value)?;
    Ok(value)
}

/// `--bootstrap K` as every face reads a count of replicates (0: no bootstrap).
pub fn replicates(value: Option<usize>) -> Option<usize> {
    value.and_then(scalinglaws::uncertainty::replicates)
}

/// The command as typed, quoted for a POSIX shell where needed.
pub fn command_line() -> String {
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

pub fn parse_fixes(texts: &[String]) -> Result<BTreeMap<String, f64>> {
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

pub fn parse_bounds(texts: &[String]) -> Result<BTreeMap<String, Bounds>> {
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
                    "--bound '{text}': the lower bound {} must be below the upper bound {}",
                    scalinglaws::error::short_number(lo),
                    scalinglaws::error::short_number(hi)
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

pub fn parse_grids(texts: &[String]) -> Result<BTreeMap<String, Vec<f64>>> {
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
