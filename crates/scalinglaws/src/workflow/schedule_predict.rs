//! The loss curve a saved schedule fit predicts for a schedule spec, with prediction intervals
//! when asked: a moving-block bootstrap of the fit's training curves (Künsch 1989; the
//! computation is `analysis::schedule::intervals`) or the fit's profile-likelihood band
//! (`analysis::schedule::profile`), each with its measured coverage of the fit's held-out
//! runs. Every default and rule of the prediction's settings is here, once: the command line's
//! `schedule predict` and Python's `schedule_predict` only build this spec.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Workflow};
use crate::analysis::schedule::intervals::{
    predict_with_intervals, BootstrapSettings, Calibration, Coverage, CurveBand, IntervalPrediction,
};
use crate::analysis::schedule::profile::{
    predict_with_profile, ProfilePrediction, ProfileSettings, ProfileSummary,
};
use crate::analysis::schedule::{spec, Prediction, ScheduleFit};
use crate::document::Document;
use crate::error::{Error, Result, Setting};
use crate::job::schedule::SchedulePredictJob;
use crate::text;
use crate::uncertainty::DEFAULT_LEVEL;

/// The workflow.
pub struct SchedulePredict;

/// How the prediction intervals are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IntervalMethod {
    /// Refits of block-resampled copies of the training curves (needs `bootstrap`).
    Bootstrap,
    /// The envelope of every refit the training curves do not reject by a likelihood-ratio
    /// test, widened by a factor measured on their later halves (deterministic).
    Profile,
}

/// The prediction's settings; the schedule's keys left out are taken from the fit.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SchedulePredictSpec {
    /// The schedule, KIND:KEY=VALUE,... (e.g. `cosine:peak=3e-4,warmup=2160,steps=24000,final=3e-5`;
    /// kinds: constant, cosine, wsd, step, cooldowns); keys left out take the fit's training
    /// run's values.
    pub schedule: String,
    /// Report the curve every K steps (0: about 200 points).
    #[serde(default)]
    pub every: usize,
    /// Bootstrap replicates of the fit's training curves for prediction intervals of each
    /// logged point (0: none).
    #[serde(default)]
    pub bootstrap: usize,
    /// How the prediction intervals are made (None: by the bootstrap when replicates are
    /// given, else no intervals).
    #[serde(default)]
    pub interval: Option<IntervalMethod>,
    /// Level of the prediction intervals (None: 0.95); needs intervals.
    #[serde(default)]
    pub level: Option<f64>,
    /// Seed of the bootstrap's draws (None: 0); needs a bootstrap.
    #[serde(default)]
    pub seed: Option<u64>,
}

impl SchedulePredictSpec {
    /// The method of the intervals asked for (None: the curve alone).
    pub fn method(&self) -> Option<IntervalMethod> {
        match (self.interval, self.bootstrap) {
            (Some(method), _) => Some(method),
            (None, 0) => None,
            (None, _) => Some(IntervalMethod::Bootstrap),
        }
    }

    fn level(&self) -> f64 {
        self.level.unwrap_or(DEFAULT_LEVEL)
    }
}

/// How the bootstrap's band was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BootstrapBand {
    /// Replicates refitted (those that failed left out).
    pub replicates: usize,
    /// Replicates whose refit failed.
    pub failed: usize,
    /// Replicates whose refit did not converge.
    pub not_converged: usize,
    /// Logged steps per resampled block.
    pub block: usize,
    /// Seed of the draws.
    pub seed: u64,
    /// Standard deviation of the training curves' log residuals.
    pub residual_sd: f64,
    /// The widening measured on the training curves' later halves (None: the bootstrap's own
    /// intervals).
    pub calibration: Option<Calibration>,
}

/// The predicted curve, with its prediction intervals when they were asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SchedulePrediction {
    /// The curve.
    #[serde(flatten)]
    pub curve: Prediction,
    /// The prediction intervals at each sampled step (absent without intervals).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band: Option<CurveBand>,
    /// The intervals' coverage of each held-out run's logged points (absent without
    /// intervals; empty when the fit trained on every run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_out: Option<Vec<Coverage>>,
    /// How the bootstrap's intervals were made (present under the bootstrap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bootstrap: Option<BootstrapBand>,
    /// How the profile band's threshold was set (present under the profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfileSummary>,
}

impl Document for SchedulePrediction {
    const KIND: &'static str = "schedule_predict";
}

impl From<Prediction> for SchedulePrediction {
    fn from(curve: Prediction) -> Self {
        SchedulePrediction {
            curve,
            band: None,
            held_out: None,
            bootstrap: None,
            profile: None,
        }
    }
}

impl From<IntervalPrediction> for SchedulePrediction {
    fn from(r: IntervalPrediction) -> Self {
        SchedulePrediction {
            curve: r.prediction,
            band: Some(r.band),
            held_out: Some(r.held_out),
            bootstrap: Some(BootstrapBand {
                replicates: r.replicates,
                failed: r.failed,
                not_converged: r.not_converged,
                block: r.block,
                seed: r.seed,
                residual_sd: r.residual_sd,
                calibration: r.calibration,
            }),
            profile: None,
        }
    }
}

impl From<ProfilePrediction> for SchedulePrediction {
    fn from(r: ProfilePrediction) -> Self {
        SchedulePrediction {
            curve: r.prediction,
            band: Some(r.band),
            held_out: Some(r.held_out),
            bootstrap: None,
            profile: Some(r.profile),
        }
    }
}

impl SchedulePrediction {
    /// Covered points over all held-out points (None without intervals or held-out runs).
    pub fn held_out_coverage(&self) -> Option<f64> {
        Coverage::pooled(self.held_out.as_deref()?)
    }
}

impl Workflow for SchedulePredict {
    const NAME: &'static str = "schedule_predict";
    const SUMMARY: &'static str =
        "The loss curve a schedule fit predicts for a schedule, with prediction intervals when asked";
    type Request = SchedulePredictSpec;
    type Spec = SchedulePredictSpec;

    fn spec(request: SchedulePredictSpec) -> Result<SchedulePredictSpec> {
        Ok(request)
    }
    type Output = SchedulePrediction;
    type Input = ScheduleFit;

    fn check(spec: &SchedulePredictSpec) -> Result<()> {
        if spec.bootstrap == 0 && spec.seed.is_some() {
            return Err(Error::setting(
                Setting::Seed,
                text![
                    Setting::Seed.subject(),
                    " seeds the bootstrap's draws: give ",
                    Setting::Bootstrap.number("K"),
                    " (K > 0) with it"
                ],
            ));
        }
        match (spec.interval, spec.bootstrap) {
            (Some(IntervalMethod::Bootstrap), 0) => Err(Error::setting(
                Setting::Interval,
                text![
                    Setting::Interval.text("bootstrap"),
                    " needs ",
                    Setting::Bootstrap.number("K"),
                    " (the refits), e.g. ",
                    Setting::Bootstrap.number(200)
                ],
            )),
            (Some(IntervalMethod::Profile), 1..) => Err(Error::setting(
                Setting::Interval,
                text![
                    Setting::Interval.text("profile"),
                    " refits no resampled copies: leave out ",
                    Setting::Bootstrap.named()
                ],
            )),
            (None, 0) if spec.level.is_some() => Err(Error::setting(
                Setting::Level,
                text![
                    Setting::Level.subject(),
                    " sets the prediction intervals' level: give ",
                    Setting::Bootstrap.number("K"),
                    " or ",
                    Setting::Interval.text("profile"),
                    " with it"
                ],
            )),
            _ => spec.level.map_or(Ok(()), crate::uncertainty::check_level),
        }
    }

    fn run(spec: &SchedulePredictSpec, fit: &ScheduleFit, ctx: &Ctx) -> Result<SchedulePrediction> {
        let max_work = ctx.work_budget();
        let job = SchedulePredictJob {
            schedule: spec.schedule.clone(),
            every: spec.every,
            interrupt: ctx.interrupt.clone(),
        };
        let Some(method) = spec.method() else {
            return job.run_within(fit, max_work).map(SchedulePrediction::from);
        };
        let profile = ProfileSettings {
            level: spec.level(),
            ..ProfileSettings::default()
        };
        match method {
            IntervalMethod::Bootstrap => {
                job.check_intervals(fit, max_work, spec.bootstrap, None)?
            }
            IntervalMethod::Profile => job.check_intervals(fit, max_work, 0, Some(&profile))?,
        }
        let parsed = spec::parse(&spec.schedule, Some(fit.defaults))?;
        let prediction = match method {
            IntervalMethod::Bootstrap => {
                let settings = BootstrapSettings {
                    replicates: spec.bootstrap,
                    block: None,
                    seed: spec.seed.unwrap_or(0),
                    level: spec.level(),
                    stop: ctx.interrupt.clone(),
                };
                predict_with_intervals(fit, &parsed, spec.every, &settings)?.into()
            }
            IntervalMethod::Profile => {
                predict_with_profile(fit, &parsed, spec.every, &profile)?.into()
            }
        };
        ctx.interrupt.check()?;
        Ok(prediction)
    }
}
