//! A saved schedule fit read back, and the prediction of a schedule's curve from it (the
//! `schedule_*` workflows fit, predict with intervals, compare, optimise and tabulate
//! cooldowns): the one place that reads a saved schedule fit, for the command line and Python
//! alike.

use serde::{Deserialize, Serialize};

use crate::analysis::schedule::intervals::saved_curves;
use crate::analysis::schedule::profile::ProfileSettings;
use crate::analysis::schedule::{cost, Rates};
use crate::analysis::schedule::{predict_rates, spec, Prediction, ScheduleFit};
use crate::error::{Error, Result};
use crate::interrupt::Interrupt;

impl ScheduleFit {
    /// A fit's JSON read back (as `schedule fit` writes it). The per-run scores are not needed
    /// to predict or optimise, and a score that was not finite (written as null) would not read
    /// back as a number, so they are left out.
    pub fn from_json(text: &str) -> Result<ScheduleFit> {
        let not_a_fit = |why: String| {
            Error::settings(format!(
                "not a schedule fit ({why}): give the JSON that schedule fit wrote"
            ))
        };
        let mut value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| not_a_fit(e.to_string()))?;
        match value.get("kind").and_then(|k| k.as_str()) {
            Some("schedule_fit") => {}
            Some(other) => return Err(not_a_fit(format!("its kind is '{other}'"))),
            None => return Err(not_a_fit("it has no kind".into())),
        }
        if let Some(object) = value.as_object_mut() {
            object.insert("runs".into(), serde_json::Value::Array(Vec::new()));
        }
        let fit: ScheduleFit =
            serde_json::from_value(value).map_err(|e| not_a_fit(e.to_string()))?;
        check_saved_params(&fit)?;
        Ok(fit)
    }
}

/// A saved schedule fit's parameters are its law's, in order, each finite and inside the law's
/// bounds (a held one only finite): a hand-edited or relabelled file is refused here, naming the key, rather than
/// misread (or indexed out of range) later.
fn check_saved_params(fit: &ScheduleFit) -> Result<()> {
    let names: Vec<&str> = fit.params.iter().map(|p| p.name.as_str()).collect();
    if names != fit.law.params() {
        return Err(Error::settings(format!(
            "not a consistent schedule fit: its parameters are {names:?}, but law '{}' has {:?}; \
             was the file edited? Restore it or fit again",
            fit.law.name(),
            fit.law.params()
        )));
    }
    for (param, bounds) in fit.params.iter().zip(fit.law.bounds()) {
        let key = format!("params ({}).value", param.name);
        // A held parameter is the value the user fixed, which the fit takes as given.
        let (lower, upper) = match fit.held.contains(&param.name) {
            true => (None, None),
            false => (bounds.lower, bounds.upper),
        };
        crate::fit::check_in_bounds(&key, param.value, lower, upper)?;
        if let Some(se) = param.se.filter(|se| !(*se >= 0.0 && se.is_finite())) {
            let key = format!("params ({}).se", param.name);
            return Err(crate::fit::edited(
                &key,
                se,
                "a finite standard error of 0 or more",
            ));
        }
    }
    Ok(())
}

/// `schedule predict`: a spec's curve (keys left out come from the fit's training run).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SchedulePredictJob {
    pub schedule: String,
    /// Report the curve every K steps (0: about 200 points).
    #[serde(default)]
    pub every: usize,
    /// Stops the passes over the schedule ([`Error::Interrupted`]).
    #[serde(skip)]
    pub interrupt: Interrupt,
}

impl SchedulePredictJob {
    pub fn run(&self, fit: &ScheduleFit) -> Result<Prediction> {
        self.run_within(fit, crate::work::DEFAULT_MAX_WORK)
    }

    /// [`Self::run`], refused before the curve when its estimate ([`cost::predictions`]) is
    /// over the budget `max_work`.
    pub fn run_within(&self, fit: &ScheduleFit, max_work: f64) -> Result<Prediction> {
        let mut parsed = spec::parse_rates(&self.schedule, Some(fit.defaults))?;
        crate::limits::check_curve_points(parsed.main.len(), self.every)?;
        cost::predictions(std::slice::from_ref(&parsed)).check(max_work)?;
        parsed.stop_on(&self.interrupt);
        let prediction = predict_rates(fit, &parsed, self.every);
        // A stopped pass predicted nothing: whatever it gave (or refused) is not the answer.
        self.interrupt.check()?;
        prediction
    }

    /// Refuses, before the schedule is written out or any refit, a curve of too many points or
    /// work over the budget `max_work`: the curve under the fit and each of `replicates`
    /// bootstrap replicates with their refits, or the refits of a `profile` band.
    pub fn check_intervals(
        &self,
        fit: &ScheduleFit,
        max_work: f64,
        replicates: usize,
        profile: Option<&ProfileSettings>,
    ) -> Result<()> {
        let lazy = spec::parse_rates(&self.schedule, Some(fit.defaults))?;
        crate::limits::check_curve_points(lazy.main.len(), self.every)?;
        let curves = saved_curves(fit)?;
        let mut estimate = cost::predictions(std::slice::from_ref(&lazy))
            .holding(cost::spec_steps(&lazy) * crate::work::BYTES_PER_SCHEDULE_STEP)
            .repeated(1.0 + replicates as f64, "curves", None);
        if replicates > 0 {
            estimate = estimate.plus(cost::bootstrap(fit, &curves, replicates));
        }
        if let Some(settings) = profile {
            estimate = estimate.plus(cost::profile(fit, &curves, settings));
        }
        estimate.check(max_work)
    }
}
