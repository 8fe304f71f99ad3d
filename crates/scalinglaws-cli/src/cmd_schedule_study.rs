//! `scalinglaws schedule cooldown-study`: constant learning rate with a cooldown against a cosine
//! at each training length, under a saved fit (issue 26; the library's
//! `analysis::schedule::cooldown`). Kept out of `cmd_schedule.rs` so each command file stays
//! small.

use std::path::PathBuf;

use anyhow::Result;
use scalinglaws::analysis::schedule::cooldown::{self, StudySettings};
use scalinglaws::analysis::schedule::cost;
use scalinglaws::analysis::schedule::intervals::{self, BootstrapSettings};
use scalinglaws::analysis::schedule::spec::Decay;
use scalinglaws::analysis::schedule::{predict, ParsedSpec, Prediction, Schedule, ScheduleFit};
use scalinglaws_plot::kinds::MAX_SCHEDULES;
use scalinglaws_report::analyses::cooldown_study::StudyReport;
use scalinglaws_report::plots::schedules_page;

use crate::args::schedule::CooldownStudyArgs;
use crate::figure::{self, Output};
use crate::output::{self, Destination};
use crate::{input_error, saved};

/// The study's options as given; values left out are taken from the fit when it is read.
#[derive(Debug)]
pub struct StudyConfig {
    pub fit: PathBuf,
    pub steps: Vec<usize>,
    pub fraction: f64,
    pub decay: Decay,
    pub level: f64,
    /// `--bootstrap`: the replicates the intervals are taken over.
    pub bootstrap: Option<BootstrapSettings>,
    pub peak: Option<f64>,
    pub warmup: Option<usize>,
    pub last: Option<f64>,
    pub plot: Option<Output>,
    pub json: Option<Destination>,
    /// `--max-work`.
    pub max_work: f64,
}

/// The arguments, with the values no fit can make right refused here (exit 2, naming the
/// option).
pub fn config(args: CooldownStudyArgs) -> Result<StudyConfig> {
    if !(args.fraction > 0.0 && args.fraction < 1.0) {
        return Err(input_error(format!(
            "--fraction {}: the cooldown's share of the run must lie strictly between 0 and 1 (0.2: the last 20 %)",
            args.fraction
        )));
    }
    if let Some(t) = args.steps.iter().find(|&&t| t < 2) {
        return Err(input_error(format!(
            "--steps {t}: each training length needs at least 2 steps"
        )));
    }
    for (name, value) in [("--peak", args.peak), ("--final", args.last)] {
        if let Some(v) = value.filter(|v| !(v.is_finite() && *v >= 0.0)) {
            return Err(input_error(format!(
                "{name} {v}: a learning rate is a finite number ≥ 0"
            )));
        }
    }
    let (plot, json) =
        crate::config::schedule::plot_and_json(args.plot.as_deref(), args.json.as_deref())?;
    // `--bootstrap 0` is no bootstrap: a level then has no interval to set.
    if args.level.is_some() && crate::config::replicates(args.bootstrap).is_none() {
        return Err(input_error(
            "--level sets the bootstrap intervals' level: give --bootstrap K (K > 0) with it",
        ));
    }
    let level = args
        .level
        .unwrap_or(scalinglaws::uncertainty::DEFAULT_LEVEL);
    Ok(StudyConfig {
        max_work: args.work.budget()?,
        fit: args.saved.fit,
        steps: args.steps,
        fraction: args.fraction,
        decay: args.decay.into(),
        level,
        bootstrap: crate::config::schedule::bootstrap_settings(args.bootstrap, args.seed, level)?,
        peak: args.peak,
        warmup: args.warmup,
        last: args.last,
        plot,
        json,
    })
}

fn settings(c: &StudyConfig, fit: &ScheduleFit) -> StudySettings {
    let defaults = StudySettings::for_fit(fit);
    let peak = c.peak.unwrap_or(defaults.peak);
    StudySettings {
        steps: if c.steps.is_empty() {
            defaults.steps
        } else {
            c.steps.clone()
        },
        fraction: c.fraction,
        decay: c.decay,
        peak,
        warmup: c.warmup.unwrap_or(defaults.warmup),
        last: c.last.unwrap_or(peak / 10.0),
        level: c.level,
    }
}

pub fn run(c: &StudyConfig) -> Result<()> {
    let fit = saved::schedule_fit(&c.fit)?;
    let settings = settings(c, &fit);
    let replicates = c.bootstrap.as_ref().map_or(0, |b| b.replicates);
    let mut estimate = cost::study(&settings, replicates);
    if replicates > 0 {
        let curves = intervals::saved_curves(&fit)?;
        estimate = estimate.plus(cost::bootstrap(&fit, &curves, replicates));
    }
    estimate.check(c.max_work)?;
    // The replicates of the moving-block bootstrap of the fit's training curves (as `predict
    // --bootstrap`); without `--bootstrap` the study has no intervals and says so.
    let replicates = match &c.bootstrap {
        Some(boot) => {
            let curves = intervals::saved_curves(&fit)?;
            intervals::bootstrap_fit(&fit, &curves, boot)?.replicates
        }
        None => Vec::new(),
    };
    let study = cooldown::study(&fit, &settings, &replicates)?;
    if let Some(target) = &c.plot {
        plot(&fit, &settings, target)?;
    }
    output::emit(c.json.as_ref(), &StudyReport(&study))
}

/// Each length's cooldown and cosine with their predicted curves (the first lengths that fit
/// on one page; the rest are named on stderr).
fn plot(fit: &ScheduleFit, settings: &StudySettings, target: &Output) -> Result<()> {
    let pairs = cooldown::pairs(fit.law, settings)?;
    let shown = pairs.len().min(MAX_SCHEDULES / 2);
    if pairs.len() > shown {
        let left: Vec<String> = pairs[shown..].iter().map(|p| p.steps.to_string()).collect();
        eprintln!(
            "--plot: {shown} lengths drawn; not drawn: {}",
            left.join(", ")
        );
    }
    let mut predictions: Vec<Prediction> = Vec::new();
    for pair in &pairs[..shown] {
        for (name, schedule) in [
            (
                format!("{} steps, cooldown from {}", pair.steps, pair.start),
                &pair.cooldown,
            ),
            (format!("{} steps, cosine", pair.steps), &pair.cosine),
        ] {
            let spec = ParsedSpec {
                text: name,
                main: Schedule {
                    lrs: schedule.lrs.clone(),
                },
                branches: Vec::new(),
            };
            predictions.push(predict(fit, &spec, 0)?);
        }
    }
    let observed = vec![None; predictions.len()];
    let title = format!(
        "constant + {} cooldown against cosine under the fitted {}",
        settings.decay.name(),
        fit.law.name()
    );
    figure::write(&schedules_page(&title, &predictions, &observed)?, target)
}
