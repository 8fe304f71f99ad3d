//! What the schedule workflows cost before they run ([`crate::work`]): a curve law's work is
//! proportional to the steps of the schedules it is evaluated over, so every estimate here is
//! steps × a measured cost per step (the constants in [`crate::work`], each with what it was
//! measured on), times the refits or replicates that repeat it.

use super::cooldown::StudySettings;
use super::profile::{max_trials_per_trace, ProfileSettings};
use super::{Curve, LazySpec, Rates, ScheduleFit};
use crate::error::Setting;
use crate::work::{
    Estimate, BYTES_PER_SCHEDULE_STEP, SECONDS_PER_FIT_SCHEDULE_STEP,
    SECONDS_PER_PROFILE_SCHEDULE_STEP, SECONDS_PER_REFIT_SCHEDULE_STEP, SECONDS_PER_SCHEDULE_STEP,
};

/// Steps a prediction of `spec` evaluates the law over: its main schedule and each cooldown
/// branch's own steps.
pub fn spec_steps(spec: &LazySpec) -> f64 {
    let branches: f64 = spec.branches.iter().map(|b| b.len as f64).sum();
    spec.main.len() as f64 + branches
}

/// Predicting the curves of `specs` (their rates are computed on demand, so only the work is
/// counted).
pub fn predictions(specs: &[LazySpec]) -> Estimate {
    let steps: f64 = specs.iter().map(spec_steps).sum();
    let what = match specs.len() {
        1 => "schedule steps evaluated".to_string(),
        n => format!("schedule steps evaluated over the {n} schedules"),
    };
    Estimate::of(steps * SECONDS_PER_SCHEDULE_STEP, 0.0).described(
        steps,
        &what,
        Some(Setting::Schedule),
    )
}

/// Every step of the training runs' schedules (all runs when `train` is empty).
fn training_steps(curves: &[Curve], train: &[String]) -> f64 {
    curves
        .iter()
        .filter(|c| train.is_empty() || train.contains(&c.run))
        .map(|c| c.lrs.len() as f64)
        .sum()
}

/// One schedule fit of `curves` on the `train` runs.
pub fn fit(curves: &[Curve], train: &[String]) -> Estimate {
    let steps = training_steps(curves, train);
    Estimate::of(
        steps * SECONDS_PER_FIT_SCHEDULE_STEP,
        steps * BYTES_PER_SCHEDULE_STEP,
    )
    .described(
        steps,
        "steps of the training runs' schedules (each run to its last logged step)",
        Some(Setting::Train),
    )
}

/// `replicates` bootstrap refits of `fit` on its training curves.
pub fn bootstrap(fit: &ScheduleFit, curves: &[Curve], replicates: usize) -> Estimate {
    let steps = training_steps(curves, &fit.train);
    Estimate::of(
        steps * SECONDS_PER_REFIT_SCHEDULE_STEP,
        steps * BYTES_PER_SCHEDULE_STEP,
    )
    .described(steps, "steps of the training runs' schedules", None)
    .repeated(
        replicates as f64,
        "bootstrap replicates",
        Some(Setting::Bootstrap),
    )
}

/// A profile-likelihood band of `fit`: two traces of every free parameter, each at most
/// [`max_trials_per_trace`] refits, and as many again on the first halves of the training
/// curves when the band is calibrated.
pub fn profile(fit: &ScheduleFit, curves: &[Curve], settings: &ProfileSettings) -> Estimate {
    let steps = training_steps(curves, &fit.train);
    let free = fit.law.params().len().saturating_sub(fit.held.len()).max(1);
    let mut refits = (2 * free * max_trials_per_trace(settings)) as f64;
    if settings.calibrate {
        refits *= 1.5;
    }
    Estimate::of(
        steps * SECONDS_PER_PROFILE_SCHEDULE_STEP,
        steps * BYTES_PER_SCHEDULE_STEP,
    )
    .described(steps, "steps of the training runs' schedules", None)
    .repeated(
        refits,
        "profile refits (at most, over every free parameter's two traces)",
        None,
    )
}

/// A cooldown study: the cooldown and the cosine of every length written out and evaluated
/// under the fit and each of `replicates` replicates, and one constant run of the longest.
pub fn study(settings: &StudySettings, replicates: usize) -> Estimate {
    let total: f64 = settings.steps.iter().map(|&t| t as f64).sum();
    let longest = settings.steps.iter().copied().max().unwrap_or(0) as f64;
    let evaluations = 1.0 + replicates as f64;
    let seconds = (2.0 * total * evaluations + longest) * SECONDS_PER_SCHEDULE_STEP;
    let bytes = (2.0 * total + longest) * BYTES_PER_SCHEDULE_STEP;
    let mut estimate = Estimate::of(seconds, bytes).described(
        total,
        "steps over the training lengths",
        Some(Setting::Steps),
    );
    if replicates > 0 {
        estimate = estimate.described(
            2.0 * evaluations,
            "schedules evaluated at each (the cooldown and the cosine, under the fit and each replicate)",
            Some(Setting::Bootstrap),
        );
    }
    estimate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_study_of_a_hundred_million_steps_is_over_the_default_budget() {
        let mut settings = StudySettings {
            steps: vec![100_000_000],
            fraction: 0.2,
            decay: super::super::spec::Decay::Linear,
            peak: 3e-4,
            warmup: 100,
            last: 3e-5,
            level: 0.95,
        };
        let refusal = study(&settings, 0).check(crate::work::DEFAULT_MAX_WORK);
        assert!(refusal.is_err());
        settings.steps = vec![12_000, 24_000, 48_000, 96_000];
        assert!(study(&settings, 100)
            .check(crate::work::DEFAULT_MAX_WORK)
            .is_ok());
    }
}
