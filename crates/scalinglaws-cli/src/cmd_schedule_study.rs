//! `scalinglaws schedule cooldown-study`: constant learning rate with a cooldown against a cosine
//! at each training length, under a saved fit (issue 26; the library's
//! `analysis::schedule::cooldown`), run as the library's workflow `cooldown_study` by the one
//! runner (`workflow.rs`); this file builds its spec and draws its `--plot`.

use anyhow::Result;
use scalinglaws::analysis::schedule::cooldown;
use scalinglaws::analysis::schedule::{predict, ParsedSpec, Prediction, Schedule, ScheduleFit};
use scalinglaws::workflow::cooldown_study::{CooldownStudySpec, CooldownStudyWorkflow};
use scalinglaws::workflow::Ctx;
use scalinglaws_plot::kinds::MAX_SCHEDULES;
use scalinglaws_report::plots::schedules_page;

use crate::args::schedule::CooldownStudyArgs;
use crate::figure::{self, Output};
use crate::saved;
use crate::workflow::{run as run_workflow, Io};

/// The study's spec (the library's, with every default and rule), where its fit comes from and
/// its outputs go.
#[derive(Debug)]
pub struct StudyConfig {
    pub spec: CooldownStudySpec,
    pub io: Io,
    pub plot: Option<Output>,
    /// `--max-work`.
    pub max_work: f64,
}

/// The arguments as the library's spec (syntax only: every rule is the spec's).
pub fn config(args: CooldownStudyArgs) -> Result<StudyConfig> {
    let (plot, json) =
        crate::config::schedule::plot_and_json(args.plot.as_deref(), args.json.as_deref())?;
    Ok(StudyConfig {
        max_work: args.work.budget()?,
        io: Io {
            path: args.saved.fit,
            delimiter: None,
            json,
        },
        spec: CooldownStudySpec {
            steps: args.steps,
            fraction: args.fraction,
            decay: args.decay.into(),
            bootstrap: args.bootstrap.unwrap_or(0),
            level: args.level,
            seed: args.seed,
            peak: args.peak,
            warmup: args.warmup,
            last: args.last,
        },
        plot,
    })
}

pub fn run(c: &StudyConfig) -> Result<()> {
    let ctx = Ctx {
        max_work: Some(c.max_work),
        ..Ctx::default()
    };
    run_workflow::<CooldownStudyWorkflow>(&c.io, &c.spec, &ctx)?;
    if let Some(target) = &c.plot {
        let fit = saved::schedule_fit(&c.io.path)?;
        plot(&fit, &c.spec.settings_for(&fit), target)?;
    }
    Ok(())
}

/// Each length's cooldown and cosine with their predicted curves (the first lengths that fit
/// on one page; the rest are named on stderr).
fn plot(fit: &ScheduleFit, settings: &cooldown::StudySettings, target: &Output) -> Result<()> {
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
