//! `schedule`'s configuration: each subcommand's arguments as the library's schedule job, with
//! `--fix` parsed by the one `--fix` parser (`parse_fixes`) and each file's recipe (`--where`,
//! `--delimiter`) built here.

use std::path::PathBuf;

use anyhow::{Context, Result};
use scalinglaws::data::recipe::{Filter, Recipe};
use scalinglaws::workflow::schedule_compare::ScheduleCompareSpec;
use scalinglaws::workflow::schedule_cooldown::ScheduleCooldownSpec;
use scalinglaws::workflow::schedule_fit::ScheduleFitSpec;
use scalinglaws::workflow::schedule_optimize::ScheduleOptimizeSpec;

pub use super::plot::plot_and_json;
use super::{destination, parse_delimiter, parse_fixes};
use crate::args::schedule::{
    CompareArgs, CooldownArgs, FitArgs, OptimizeArgs, ScheduleArgs, ScheduleKind,
};
use crate::figure;
use crate::input_error;
use crate::output::Destination;

/// One subcommand's job, with the saved fit it reads and where its outputs go.
#[derive(Debug)]
pub enum ScheduleConfig {
    Fit(Box<ScheduleFitConfig>),
    Predict(Box<crate::cmd_schedule_predict::PredictConfig>),
    Compare {
        io: crate::workflow::Io,
        spec: ScheduleCompareSpec,
        plot: Option<figure::Output>,
        /// `--max-work`.
        max_work: f64,
    },
    Optimize {
        io: crate::workflow::Io,
        spec: ScheduleOptimizeSpec,
        schedule_csv: Option<PathBuf>,
        plot: Option<figure::Output>,
    },
    Cooldown {
        io: crate::workflow::Io,
        spec: ScheduleCooldownSpec,
    },
    CooldownStudy(Box<crate::cmd_schedule_study::StudyConfig>),
}

/// `schedule fit`: the files of logs (each read with the spec's recipe) and the spec.
#[derive(Debug)]
pub struct ScheduleFitConfig {
    pub files: Vec<PathBuf>,
    pub delimiter: Option<u8>,
    /// `--max-work`.
    pub max_work: f64,
    pub spec: ScheduleFitSpec,
    pub plot: Option<figure::Output>,
    pub json: Option<Destination>,
}

pub fn schedule_config(args: ScheduleArgs) -> Result<ScheduleConfig> {
    Ok(match args.kind {
        ScheduleKind::Fit(a) => ScheduleConfig::Fit(Box::new(fit_config(a)?)),
        ScheduleKind::Predict(a) => {
            ScheduleConfig::Predict(Box::new(crate::cmd_schedule_predict::config(a)?))
        }
        ScheduleKind::Compare(a) => compare_config(a)?,
        ScheduleKind::Optimize(a) => optimize_config(a)?,
        ScheduleKind::Cooldown(a) => cooldown_config(a),
        ScheduleKind::CooldownStudy(a) => {
            ScheduleConfig::CooldownStudy(Box::new(crate::cmd_schedule_study::config(a)?))
        }
    })
}

/// Refuses a file of logs given twice (by the same or another path to it): each file is a run
/// (or holds runs), so it would count twice.
fn refuse_repeated_files(paths: &[PathBuf]) -> Result<()> {
    let same = |path: &PathBuf| std::fs::canonicalize(path).unwrap_or_else(|_| path.clone());
    for (i, path) in paths.iter().enumerate() {
        if let Some(earlier) = paths[..i].iter().find(|p| same(p) == same(path)) {
            return Err(input_error(format!(
                "{} is given twice (as {} and {}): its runs would count twice; give each file once",
                path.display(),
                earlier.display(),
                path.display()
            )));
        }
    }
    Ok(())
}

fn fit_config(args: FitArgs) -> Result<ScheduleFitConfig> {
    refuse_repeated_files(&args.data)?;
    let delimiter = args.delimiter.as_deref().map(parse_delimiter).transpose()?;
    let filters: Vec<Filter> = args
        .filters
        .iter()
        .map(|t| Filter::parse(t).context("--where"))
        .collect::<Result<_>>()?;
    let spec = ScheduleFitSpec {
        run: args.run,
        step: args.step,
        lr: args.lr,
        law: args.law.into(),
        train: args.train,
        warmup: args.warmup,
        fix: parse_fixes(&args.fixes)?.into_iter().collect(),
        recipe: Recipe {
            target: args.target,
            filters,
            ..Recipe::default()
        },
    };
    let (plot, json) = plot_and_json(args.plot.as_deref(), args.json.as_deref())?;
    Ok(ScheduleFitConfig {
        files: args.data,
        delimiter,
        max_work: args.work.budget()?,
        spec,
        plot,
        json,
    })
}

fn compare_config(args: CompareArgs) -> Result<ScheduleConfig> {
    let (plot, json) = plot_and_json(args.plot.as_deref(), args.json.as_deref())?;
    Ok(ScheduleConfig::Compare {
        io: saved_fit_io(args.saved.fit, json),
        spec: ScheduleCompareSpec {
            schedules: args.schedules,
            every: args.every,
        },
        plot,
        max_work: args.work.budget()?,
    })
}

fn optimize_config(args: OptimizeArgs) -> Result<ScheduleConfig> {
    let (plot, json) = plot_and_json(args.plot.as_deref(), args.json.as_deref())?;
    if args.schedule_csv.as_deref() == Some(std::path::Path::new("-")) {
        return Err(input_error(
            "--schedule-csv -: the report is on standard output; give the schedule a file, \
             e.g. --schedule-csv schedule.csv",
        ));
    }
    Ok(ScheduleConfig::Optimize {
        io: saved_fit_io(args.saved.fit, json),
        spec: ScheduleOptimizeSpec {
            steps: args.steps,
            peak: args.peak,
            warmup: args.warmup,
            floor: args.floor,
            max_iterations: args.max_iterations,
            whole_schedule: args.schedule_csv.is_some(),
        },
        schedule_csv: args.schedule_csv,
        plot,
    })
}

/// A saved schedule fit read from `path`, the document written to `json`.
fn saved_fit_io(path: PathBuf, json: Option<Destination>) -> crate::workflow::Io {
    crate::workflow::Io {
        path,
        delimiter: None,
        json,
    }
}

fn cooldown_config(args: CooldownArgs) -> ScheduleConfig {
    ScheduleConfig::Cooldown {
        io: saved_fit_io(args.saved.fit, destination(args.json.as_deref())),
        spec: ScheduleCooldownSpec {
            at: args.at,
            lengths: args.lengths,
            peak: args.peak,
            warmup: args.warmup,
            last: args.last,
            decay: args.decay.into(),
        },
    }
}
