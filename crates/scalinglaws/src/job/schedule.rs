//! Schedule jobs: fit a curve law to logged runs, and predict from a saved fit (comparing,
//! optimising and tabulating cooldowns are the workflows `schedule_*`). The one place that
//! groups a table's rows into run logs and that reads a saved schedule fit back, for the
//! command line and Python alike.

use serde::{Deserialize, Serialize};

use crate::analysis::schedule::intervals::saved_curves;
use crate::analysis::schedule::profile::ProfileSettings;
use crate::analysis::schedule::{cost, Rates};
use crate::analysis::schedule::{
    curves_from_logs, fit_curves_until, predict_rates, spec, Curve, CurveLaw, Prediction, RunLog,
    ScheduleFit,
};
use crate::data::recipe::Table;
use crate::error::{Error, Result, Setting};
use crate::interrupt::Interrupt;

/// `schedule fit`: the columns of the logs, the law, the training runs and the held
/// parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduleFitJob {
    /// The column naming each row's run (None: every row of a table is one run).
    #[serde(default)]
    pub run: Option<String>,
    pub step: String,
    pub lr: String,
    pub target: String,
    pub law: CurveLaw,
    /// The runs to fit on (empty: all); the others are scored only.
    #[serde(default)]
    pub train: Vec<String>,
    /// Linear warmup steps before the first logged step.
    #[serde(default)]
    pub warmup: usize,
    /// Parameters held at values.
    #[serde(default)]
    pub fix: Vec<(String, f64)>,
    /// Stops the fit at its search's next evaluation of the law ([`Error::Interrupted`]).
    #[serde(skip)]
    pub interrupt: Interrupt,
}

/// A schedule fit with the curves it was fitted to (for plots).
#[derive(Debug, Clone)]
pub struct FittedCurves {
    pub fit: ScheduleFit,
    pub curves: Vec<Curve>,
}

impl ScheduleFitJob {
    /// One log per distinct value of the run column, in order of first appearance (without a
    /// run column, the whole table is one run named `whole_run`); every row keeps its location
    /// (the file or DataFrame and its 1-based row) for the library's messages.
    pub fn logs(&self, table: &Table, whole_run: &str) -> Result<Vec<RunLog>> {
        let steps = table.values(&self.step, Setting::Step)?;
        let lrs = table.values(&self.lr, Setting::Lr)?;
        let loss = table.values(&self.target, Setting::Target)?;
        let labels = match &self.run {
            Some(column) => table.labels(column, Setting::Run)?,
            None => vec![whole_run.to_string(); steps.len()],
        };
        if steps.is_empty() {
            return Err(Error::settings(format!(
                "{}: no rows to fit",
                table.dataset.source()
            )));
        }
        let mut logs: Vec<RunLog> = Vec::new();
        let mut index: std::collections::HashMap<&str, usize> = Default::default();
        for (row, run) in labels.iter().enumerate() {
            let slot = *index.entry(run.as_str()).or_insert_with(|| {
                logs.push(RunLog {
                    run: run.clone(),
                    steps: Vec::new(),
                    lrs: Vec::new(),
                    loss: Vec::new(),
                    locations: Vec::new(),
                });
                logs.len() - 1
            });
            let log = &mut logs[slot];
            log.steps.push(steps[row]);
            log.lrs.push(lrs[row]);
            log.loss.push(loss[row]);
            log.locations.push(table.dataset.location(row, None));
        }
        Ok(logs)
    }

    /// Fits the law to the logs' curves and scores every run.
    pub fn run(&self, logs: &[RunLog]) -> Result<FittedCurves> {
        self.run_within(logs, crate::work::DEFAULT_MAX_WORK)
    }

    /// [`Self::run`], refused before the fit when its estimate ([`cost::fit`]) is over the
    /// budget `max_work`.
    pub fn run_within(&self, logs: &[RunLog], max_work: f64) -> Result<FittedCurves> {
        let curves = curves_from_logs(logs, self.warmup)?;
        cost::fit(&curves, &self.train).check(max_work)?;
        let fit = fit_curves_until(self.law, &curves, &self.train, &self.fix, &self.interrupt)?;
        Ok(FittedCurves { fit, curves })
    }
}

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
