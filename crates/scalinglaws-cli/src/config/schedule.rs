//! `schedule`'s configuration: each subcommand's arguments as the library's schedule job, with
//! `--fix` parsed by the one `--fix` parser (`parse_fixes`) and each file's recipe (`--where`,
//! `--delimiter`) built here.

use std::path::PathBuf;

use anyhow::{Context, Result};
use scalinglaws::analysis::schedule::intervals::BootstrapSettings;
use scalinglaws::analysis::schedule::profile::ProfileSettings;
use scalinglaws::data::recipe::{Filter, Recipe as LibraryRecipe};
use scalinglaws::job::schedule::{
    ScheduleCompareJob, ScheduleCooldownJob, ScheduleFitJob, ScheduleOptimizeJob,
    SchedulePredictJob,
};

pub use super::plot::plot_and_json;
use super::{destination, level, parse_delimiter, parse_fixes, replicates};
use crate::args::schedule::{
    CompareArgs, CooldownArgs, FitArgs, IntervalArgs, OptimizeArgs, PredictArgs, ScheduleArgs,
    ScheduleKind,
};
use crate::figure;
use crate::input::Recipe;
use crate::input_error;
use crate::output::Destination;

/// How `schedule predict` makes its prediction intervals.
#[derive(Debug)]
pub enum IntervalMethod {
    Bootstrap(BootstrapSettings),
    Profile(ProfileSettings),
}

/// One subcommand's job, with the saved fit it reads and where its outputs go.
#[derive(Debug)]
pub enum ScheduleConfig {
    Fit(ScheduleFitConfig),
    Predict {
        fit: PathBuf,
        job: SchedulePredictJob,
        /// `--max-work`.
        max_work: f64,
        /// `--bootstrap` or `--interval`: prediction intervals.
        intervals: Option<IntervalMethod>,
        plot: Option<figure::Output>,
        json: Option<Destination>,
    },
    Compare {
        fit: PathBuf,
        job: ScheduleCompareJob,
        plot: Option<figure::Output>,
        json: Option<Destination>,
    },
    Optimize {
        fit: PathBuf,
        job: ScheduleOptimizeJob,
        schedule_csv: Option<PathBuf>,
        plot: Option<figure::Output>,
        json: Option<Destination>,
    },
    Cooldown {
        fit: PathBuf,
        job: ScheduleCooldownJob,
        json: Option<Destination>,
    },
    CooldownStudy(Box<crate::cmd_schedule_study::StudyConfig>),
}

/// `schedule fit`: the files of logs (each read with the same recipe) and the fit job.
#[derive(Debug)]
pub struct ScheduleFitConfig {
    pub files: Vec<Recipe>,
    /// `--max-work`.
    pub max_work: f64,
    pub job: ScheduleFitJob,
    pub plot: Option<figure::Output>,
    pub json: Option<Destination>,
}

pub fn schedule_config(args: ScheduleArgs) -> Result<ScheduleConfig> {
    Ok(match args.kind {
        ScheduleKind::Fit(a) => ScheduleConfig::Fit(fit_config(a)?),
        ScheduleKind::Predict(a) => predict_config(a)?,
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
    let files = args
        .data
        .iter()
        .map(|path| Recipe {
            path: path.clone(),
            delimiter,
            recipe: LibraryRecipe {
                maps: Vec::new(),
                derives: Vec::new(),
                filters: filters.clone(),
                target: args.target.clone(),
                weights: None,
                trials: None,
                exposure: None,
                sweep: Vec::new(),
            },
        })
        .collect();
    let job = ScheduleFitJob {
        run: args.run,
        step: args.step,
        lr: args.lr,
        target: args.target,
        law: args.law.into(),
        train: args.train,
        warmup: args.warmup,
        fix: parse_fixes(&args.fixes)?.into_iter().collect(),
        interrupt: Default::default(),
    };
    let (plot, json) = plot_and_json(args.plot.as_deref(), args.json.as_deref())?;
    Ok(ScheduleFitConfig {
        files,
        max_work: args.work.budget()?,
        job,
        plot,
        json,
    })
}

fn predict_config(args: PredictArgs) -> Result<ScheduleConfig> {
    let (plot, json) = plot_and_json(args.plot.as_deref(), args.json.as_deref())?;
    Ok(ScheduleConfig::Predict {
        fit: args.saved.fit,
        job: SchedulePredictJob {
            schedule: args.schedule,
            every: args.every,
            interrupt: Default::default(),
        },
        max_work: args.work.budget()?,
        intervals: interval_settings(&args.intervals)?,
        plot,
        json,
    })
}

/// `--interval`, `--bootstrap`, `--level` and `--seed` as the intervals' settings (None
/// without `--bootstrap` or `--interval`; clap refuses `--seed` without `--bootstrap`).
fn interval_settings(args: &IntervalArgs) -> Result<Option<IntervalMethod>> {
    let method = args.interval.as_deref();
    // `--bootstrap 0` is no bootstrap, as everywhere; a seed then seeds nothing.
    let bootstrap = replicates(args.bootstrap);
    if bootstrap.is_none() && args.seed.is_some() {
        return Err(input_error(
            "--seed seeds the bootstrap's draws: give --bootstrap K (K > 0) with it",
        ));
    }
    match (method, bootstrap) {
        (None | Some("bootstrap"), Some(_)) => Ok(bootstrap_settings(
            args.bootstrap,
            args.seed,
            args.level
                .unwrap_or(scalinglaws::uncertainty::DEFAULT_LEVEL),
        )?
        .map(IntervalMethod::Bootstrap)),
        (Some("bootstrap"), None) => Err(input_error(
            "--interval bootstrap needs --bootstrap K (the refits), e.g. --bootstrap 200",
        )),
        (Some("profile"), Some(_)) => Err(input_error(
            "--interval profile refits no resampled copies: leave out --bootstrap",
        )),
        (Some("profile"), None) => Ok(Some(IntervalMethod::Profile(ProfileSettings {
            level: level(
                args.level
                    .unwrap_or(scalinglaws::uncertainty::DEFAULT_LEVEL),
            )?,
            ..ProfileSettings::default()
        }))),
        (Some(other), _) => Err(input_error(format!(
            "--interval {other}: give bootstrap or profile"
        ))),
        (None, None) if args.level.is_some() => Err(input_error(
            "--level sets the prediction intervals' level: give --bootstrap K or --interval \
             profile with it",
        )),
        (None, None) => Ok(None),
    }
}

/// A curve bootstrap's settings from `--bootstrap`, `--seed` and `--level` (None without
/// `--bootstrap`).
pub fn bootstrap_settings(
    bootstrap: Option<usize>,
    seed: Option<u64>,
    confidence: f64,
) -> Result<Option<BootstrapSettings>> {
    let Some(replicates) = replicates(bootstrap) else {
        if seed.is_some() {
            return Err(input_error(
                "--seed seeds the bootstrap's draws: give --bootstrap K (K > 0) with it",
            ));
        }
        return Ok(None);
    };
    Ok(Some(BootstrapSettings {
        replicates,
        block: None,
        seed: seed.unwrap_or(0),
        level: level(confidence)?,
        stop: Default::default(),
    }))
}

fn compare_config(args: CompareArgs) -> Result<ScheduleConfig> {
    let (plot, json) = plot_and_json(args.plot.as_deref(), args.json.as_deref())?;
    Ok(ScheduleConfig::Compare {
        fit: args.saved.fit,
        job: ScheduleCompareJob {
            schedules: args.schedules,
            every: args.every,
            max_work: args.work.budget()?,
        },
        plot,
        json,
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
        fit: args.saved.fit,
        job: ScheduleOptimizeJob {
            steps: args.steps,
            peak: args.peak,
            warmup: args.warmup,
            floor: args.floor,
            max_iterations: args.max_iterations,
            interrupt: Default::default(),
        },
        schedule_csv: args.schedule_csv,
        plot,
        json,
    })
}

fn cooldown_config(args: CooldownArgs) -> ScheduleConfig {
    ScheduleConfig::Cooldown {
        fit: args.saved.fit,
        job: ScheduleCooldownJob {
            at: args.at,
            lengths: args.lengths,
            peak: args.peak,
            warmup: args.warmup,
            last: args.last,
            decay: args.decay.into(),
        },
        json: destination(args.json.as_deref()),
    }
}
