//! Workflows in one shape: a [`Workflow`] is a serde `Request` (every setting as a face sends
//! it, with its one default), the `Spec` it becomes by `spec` (texts parsed, errors the
//! library's own; the command line builds the spec directly), `check` (every rule between
//! settings), an `Output` document, and a `run` on its [`Input`] (the runs as a prepared
//! table, a saved fit, or either when given) with a [`Ctx`] (the interrupt, the work budget, the progress). Each face runs
//! every workflow of [`for_each_workflow!`] the same way: the command line by one generic
//! runner, Python by one native entry and functions generated from the specs' JSON Schemas
//! (`schemars`), so a new setting is written once, in its request, and a new workflow in its own
//! file plus one line of the list. The older analyses of `job/` move here one by one (issue 49).

pub mod backtest;
pub mod compare;
pub mod compare_laws;
pub mod cooldown_study;
pub mod design;
pub mod downstream;
pub mod fit;
pub mod isoflop;
pub mod lr;
pub mod optimal;
pub mod predict;
pub mod qc;
pub mod schedule_compare;
pub mod schedule_cooldown;
pub mod schedule_fit;
pub mod schedule_optimize;
pub mod schedule_predict;
pub mod select;
pub mod sensitivity;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::analysis::schedule::ScheduleFit;
use crate::data::recipe::{Recipe, Table};
use crate::document::Document;
use crate::error::{Error, Result, Setting, Text};
use crate::interrupt::Interrupt;

/// What a run takes besides its spec and table: when to stop, how much work it may do, and
/// whom to tell how far it has come.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// Stops the run between steps ([`crate::Error::Interrupted`]).
    pub interrupt: Interrupt,
    /// The most work the run may do, in core-seconds ([`crate::work`]); None: the default.
    pub max_work: Option<f64>,
    /// Hears the steps done (a fit's bootstrap replicates), for a face's progress bar.
    pub progress: Progress,
}

/// Whom a run tells how many of its steps are done (a command line's progress bar); by
/// default no one.
#[derive(Clone, Default)]
pub struct Progress(Option<std::sync::Arc<dyn Fn(usize) + Send + Sync>>);

impl Progress {
    /// Tells `hear` each count of steps done.
    pub fn to(hear: impl Fn(usize) + Send + Sync + 'static) -> Progress {
        Progress(Some(std::sync::Arc::new(hear)))
    }

    /// `done` steps are done.
    pub fn done(&self, done: usize) {
        if let Some(hear) = &self.0 {
            hear(done);
        }
    }
}

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(heard)"
        } else {
            "Progress(none)"
        })
    }
}

impl Ctx {
    /// The most work the run may do, in core-seconds: the budget given, else the default.
    pub fn work_budget(&self) -> f64 {
        self.max_work.unwrap_or(crate::work::DEFAULT_MAX_WORK)
    }

    /// `settings` with this run's interrupt and, when given, its work budget: the fits a
    /// workflow runs stop and are bounded as the run is.
    pub fn apply(&self, settings: &mut crate::fit::FitSettings) {
        settings.interrupt = self.interrupt.clone();
        if let Some(max_work) = self.max_work {
            settings.max_work = max_work;
        }
    }
}

impl Default for Ctx {
    fn default() -> Self {
        Ctx {
            interrupt: Interrupt::new(),
            max_work: None,
            progress: Progress::default(),
        }
    }
}

/// What a workflow reads besides its spec; each face knows how to load each kind.
pub trait Input: Sync {
    /// `table` (the runs, read with the spec's recipe), `fit` (a saved fit), `schedule_fit`
    /// (a saved schedule fit), `optional_table` (runs if given), `optional_fit` (a saved fit
    /// if given) or `log_tables` (files of training logs, each read with the spec's recipe).
    const KIND: &'static str;
}

impl Input for Table {
    const KIND: &'static str = "table";
}

/// The runs, or none: a workflow that can also run before any run (`design` from a prior).
/// A face gives None when it is handed no runs, and refuses runs when the spec names no
/// recipe to read them with ([`design::unread_runs`]).
impl Input for Option<Table> {
    const KIND: &'static str = "optional_table";
}

/// A saved fit, or none: a workflow whose spec may name its own law instead (`optimal` of a
/// catalog law with published parameters; its run refuses both, [`optimal::unread_fit`]).
impl Input for Option<crate::uncertainty::FitRecord> {
    const KIND: &'static str = "optional_fit";
}

/// A saved fit (`predict`'s).
impl Input for crate::uncertainty::FitRecord {
    const KIND: &'static str = "fit";
}

impl Input for ScheduleFit {
    const KIND: &'static str = "schedule_fit";
}

/// A workflow: its spec, its input, its document.
pub trait Workflow {
    /// Its name: the document kind it writes, the command (`_` as `-`), the Python function.
    const NAME: &'static str;
    /// One line on what it answers (the command's help, the Python function's first line).
    const SUMMARY: &'static str;
    /// What a face sends, as it is written (its JSON Schema is the Python function's
    /// keywords); [`Workflow::spec`] makes it the spec.
    type Request: DeserializeOwned + JsonSchema;
    /// Every setting, parsed (the command line builds it directly from its arguments).
    type Spec: Sync;
    /// The request parsed (a recipe's texts, a law's name), its errors the library's own
    /// (a formula error stays one, and names its setting, in each face's words).
    fn spec(request: Self::Request) -> Result<Self::Spec>;
    /// What it gives: a document of kind [`Workflow::NAME`].
    type Output: Document + JsonSchema + Send;
    /// Every rule between settings that needs no data, checked before the data are read.
    fn check(_spec: &Self::Spec) -> Result<()> {
        Ok(())
    }
    /// What it reads.
    type Input: Input;
    /// Which columns feed it when its input is a table: read and prepared with this recipe.
    fn recipe(_spec: &Self::Spec) -> Option<&Recipe> {
        None
    }
    /// The workflow on its input (a table prepared with [`Workflow::recipe`]).
    fn run(spec: &Self::Spec, input: &Self::Input, ctx: &Ctx) -> Result<Self::Output>;
    /// The data an output was fitted to, which a face keeps beside the document and does not
    /// save (Python's `Fit` draws them, and its page backtests on them): `fit`'s; None for
    /// the rest.
    fn fitted(_output: &Self::Output) -> Option<&crate::fit::FitData> {
        None
    }
}

/// Refuses a key of a request (as JSON) that names no setting of `W`. serde ignores an unknown
/// key of a request that flattens its parts, so without this a misspelt setting, or one of
/// another workflow, would be dropped without a word.
pub fn refuse_unknown_settings<W: Workflow>(request: &serde_json::Value) -> Result<()> {
    let schema = schemars::schema_for!(W::Request);
    let known = schema.get("properties").and_then(|p| p.as_object());
    let is_known = |key: &&String| known.is_some_and(|k| k.contains_key(*key));
    let mut given = request
        .as_object()
        .into_iter()
        .flatten()
        .map(|(key, _)| key);
    match given.find(|key| !is_known(key)) {
        None => Ok(()),
        Some(key) => {
            let mut settings: Vec<&String> = known.into_iter().flatten().map(|(k, _)| k).collect();
            settings.sort();
            let listed: Vec<&str> = settings.iter().map(|k| k.as_str()).collect();
            Err(Error::settings(format!(
                "'{key}' is not a setting of {}; it takes {}",
                W::NAME,
                listed.join(", ")
            )))
        }
    }
}

/// Refuses the parts of a recipe that `workflow`, an analysis over a table that reads no
/// weights, counts or sweep, cannot use (weights, trials, exposure, swept columns), naming
/// the first one given and `why` it does not apply.
pub(crate) fn refuse_unused_recipe(recipe: &Recipe, workflow: &str, why: Text) -> Result<()> {
    let given = [
        (recipe.weights.is_some(), Setting::Weights),
        (recipe.trials.is_some(), Setting::Trials),
        (recipe.exposure.is_some(), Setting::Exposure),
        (!recipe.sweep.is_empty(), Setting::Sweep),
    ];
    match given.into_iter().find(|(given, _)| *given) {
        None => Ok(()),
        Some((_, setting)) => Err(Error::setting(
            setting,
            crate::text![format!("{workflow} does not use "), setting, ": ", why],
        )),
    }
}

/// Calls `$callback! { NAME => Type, ... }` with every workflow: the one list that the command
/// line's runner, Python's native entry and the Python generator read.
#[macro_export]
macro_rules! for_each_workflow {
    ($callback:ident) => {
        $callback! {
            fit => $crate::workflow::fit::FitWorkflow,
            sensitivity => $crate::workflow::sensitivity::Sensitivity,
            predict => $crate::workflow::predict::PredictWorkflow,
            cooldown_study => $crate::workflow::cooldown_study::CooldownStudyWorkflow,
            qc => $crate::workflow::qc::Qc,
            schedule_predict => $crate::workflow::schedule_predict::SchedulePredict,
            lr => $crate::workflow::lr::Lr,
            downstream => $crate::workflow::downstream::Downstream,
            backtest => $crate::workflow::backtest::BacktestWorkflow,
            isoflop => $crate::workflow::isoflop::IsoflopWorkflow,
            compare_laws => $crate::workflow::compare_laws::CompareLawsWorkflow,
            select => $crate::workflow::select::SelectWorkflow,
            compare => $crate::workflow::compare::CompareWorkflow,
            design => $crate::workflow::design::DesignWorkflow,
            optimal => $crate::workflow::optimal::OptimalWorkflow,
            schedule_cooldown => $crate::workflow::schedule_cooldown::ScheduleCooldown,
            schedule_fit => $crate::workflow::schedule_fit::ScheduleFitWorkflow,
            schedule_compare => $crate::workflow::schedule_compare::ScheduleCompare,
            schedule_optimize => $crate::workflow::schedule_optimize::ScheduleOptimize,
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! check_names {
        ($($name:ident => $workflow:ty),* $(,)?) => {
            $(assert_eq!(stringify!($name), <$workflow as Workflow>::NAME);
              assert_eq!(<<$workflow as Workflow>::Output as Document>::KIND, stringify!($name));)*
        };
    }

    /// A backtest request once flattened the whole fit request: its profiles, cluster and QC
    /// were read and dropped. Now they are no settings of it, and refused by name.
    #[test]
    fn a_key_that_names_no_setting_is_refused_by_name() {
        use backtest::BacktestWorkflow;
        let request = serde_json::json!({"target": "loss", "law": "chinchilla", "by": "C",
            "holdout_top": 1, "where": ["C > 1"], "family": null});
        assert!(refuse_unknown_settings::<BacktestWorkflow>(&request).is_ok());
        for key in ["profiles", "cluster", "qc", "holdout_tpo"] {
            let mut wrong = request.clone();
            wrong[key] = serde_json::json!(null);
            let error = refuse_unknown_settings::<BacktestWorkflow>(&wrong).unwrap_err();
            assert!(error
                .to_string()
                .contains(&format!("'{key}' is not a setting of backtest")));
        }
    }

    #[test]
    fn each_listed_name_is_its_workflows_name_and_document_kind() {
        for_each_workflow!(check_names);
    }
}
