//! Constant learning rate with a cooldown against a cosine at each training length, under a
//! saved schedule fit (Hägele et al. 2024, arXiv:2405.18392, on cooldowns; the computation is
//! `analysis::schedule::cooldown`), with percentile intervals from a moving-block bootstrap of
//! the fit's training curves when replicates are asked for. Every default and rule of the
//! study's settings is here, once: the command line's `schedule cooldown-study` and Python's
//! `cooldown_study` only build this spec.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Ctx, Workflow};
use crate::analysis::schedule::cooldown::{self, CooldownStudy, StudySettings};
use crate::analysis::schedule::intervals::{self, BootstrapSettings};
use crate::analysis::schedule::spec::Decay;
use crate::analysis::schedule::{cost, ScheduleFit};
use crate::error::{Error, Result, Setting};
use crate::interrupt::Interrupt;
use crate::text;

/// The workflow.
pub struct CooldownStudyWorkflow;

/// The study's settings; those left out are taken from the fit.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CooldownStudySpec {
    /// Training lengths in steps (empty: 0.5, 1, 2 and 4 times the fit's training run).
    #[serde(default)]
    pub steps: Vec<usize>,
    /// The cooldown's share of each run, strictly between 0 and 1.
    #[serde(default = "default_fraction")]
    pub fraction: f64,
    /// The cooldown's shape.
    #[serde(default = "default_decay")]
    pub decay: Decay,
    /// Bootstrap replicates of the fit's training curves for percentile intervals (0: none).
    #[serde(default)]
    pub bootstrap: usize,
    /// Coverage of the percentile intervals (None: 0.95); needs a bootstrap.
    #[serde(default)]
    pub level: Option<f64>,
    /// Seed of the bootstrap's draws (None: 0); needs a bootstrap.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Peak (constant) learning rate, also the cosine's (None: the fit's training run's).
    #[serde(default)]
    pub peak: Option<f64>,
    /// Warmup steps (None: the fit's training run's).
    #[serde(default)]
    pub warmup: Option<usize>,
    /// Learning rate at the end of the cooldown and of the cosine (None: peak/10).
    #[serde(default, rename = "final")]
    pub last: Option<f64>,
}

fn default_fraction() -> f64 {
    cooldown::DEFAULT_FRACTION
}

fn default_decay() -> Decay {
    super::schedule_cooldown::COOLDOWN_DECAY
}

impl CooldownStudySpec {
    /// The study's settings under `fit`: what is left out is the fit's.
    pub fn settings_for(&self, fit: &ScheduleFit) -> StudySettings {
        let defaults = StudySettings::for_fit(fit);
        let peak = self.peak.unwrap_or(defaults.peak);
        StudySettings {
            steps: match self.steps.is_empty() {
                true => defaults.steps,
                false => self.steps.clone(),
            },
            fraction: self.fraction,
            decay: self.decay,
            peak,
            warmup: self.warmup.unwrap_or(defaults.warmup),
            last: self.last.unwrap_or(peak / 10.0),
            level: self.level.unwrap_or(crate::uncertainty::DEFAULT_LEVEL),
        }
    }

    /// The bootstrap asked for (None: no intervals), stopped by `stop`.
    fn bootstrap(&self, stop: &Interrupt) -> Option<BootstrapSettings> {
        crate::uncertainty::replicates(self.bootstrap).map(|replicates| BootstrapSettings {
            replicates,
            block: None,
            seed: self.seed.unwrap_or(0),
            level: self.level.unwrap_or(crate::uncertainty::DEFAULT_LEVEL),
            stop: stop.clone(),
        })
    }
}

impl Workflow for CooldownStudyWorkflow {
    const NAME: &'static str = "cooldown_study";
    const SUMMARY: &'static str =
        "Constant learning rate with a cooldown against a cosine at each training length, under a schedule fit";
    type Request = CooldownStudySpec;
    type Spec = CooldownStudySpec;

    fn spec(request: CooldownStudySpec) -> Result<CooldownStudySpec> {
        Ok(request)
    }
    type Output = CooldownStudy;
    type Input = ScheduleFit;

    fn check(spec: &CooldownStudySpec) -> Result<()> {
        if spec.bootstrap == 0 {
            let needs = |setting: Setting, what: &str| {
                Error::setting(
                    setting,
                    text![
                        setting.subject(),
                        format!(" {what}: give "),
                        Setting::Bootstrap.number("K"),
                        " (K > 0) with it"
                    ],
                )
            };
            if spec.level.is_some() {
                return Err(needs(Setting::Level, "sets the bootstrap intervals' level"));
            }
            if spec.seed.is_some() {
                return Err(needs(Setting::Seed, "seeds the bootstrap's draws"));
            }
        }
        if let Some(level) = spec.level {
            crate::uncertainty::check_level(level)?;
        }
        for (setting, value) in [(Setting::Peak, spec.peak), (Setting::Final, spec.last)] {
            if let Some(v) = value.filter(|v| !(v.is_finite() && *v >= 0.0)) {
                return Err(Error::setting(
                    setting,
                    text![
                        setting.number(v),
                        ": a learning rate is a finite number ≥ 0"
                    ],
                ));
            }
        }
        Ok(())
    }

    fn run(spec: &CooldownStudySpec, fit: &ScheduleFit, ctx: &Ctx) -> Result<CooldownStudy> {
        let settings = spec.settings_for(fit);
        cooldown::check_settings(&settings)?;
        let bootstrap = spec.bootstrap(&ctx.interrupt);
        let replicates = bootstrap.as_ref().map_or(0, |b| b.replicates);
        let mut estimate = cost::study(&settings, replicates);
        if replicates > 0 {
            let curves = intervals::saved_curves(fit)?;
            estimate = estimate.plus(cost::bootstrap(fit, &curves, replicates));
        }
        estimate.check(ctx.work_budget())?;
        ctx.interrupt.check()?;
        // The replicates of the moving-block bootstrap of the fit's training curves (as
        // `schedule predict --bootstrap`); without one the study has no intervals and says so.
        let replicates = match &bootstrap {
            Some(boot) => {
                let curves = intervals::saved_curves(fit)?;
                intervals::bootstrap_fit(fit, &curves, boot)?.replicates
            }
            None => Vec::new(),
        };
        ctx.interrupt.check()?;
        cooldown::study(fit, &settings, &replicates)
    }
}
