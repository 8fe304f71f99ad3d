//! The fit as a workflow: a law fitted to the runs with its uncertainty (`scalinglaws fit`,
//! Python's `scalinglaws.fit`). Its spec is [`FitJob`] (the request every face sends,
//! [`FitRequest`], read once), its output the [`FitOutcome`]: the record is the document
//! (the JSON each face writes and saves); the data fitted stay beside it in memory, for Python's
//! pictures and page of the fit ([`Workflow::fitted`]), and are never saved. The steps
//! themselves (the law, QC, the sweep's frontier, the fit, the calibration, the profiles and
//! the bootstrap) are [`FitJob::run`]'s.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Serialize, Serializer};

use super::{Ctx, Workflow};
use crate::data::recipe::{Recipe, Table};
use crate::error::Result;
use crate::fit::FitData;
use crate::job::{FitJob, FitOutcome, FitRequest};

/// The workflow.
pub struct FitWorkflow;

impl Workflow for FitWorkflow {
    const NAME: &'static str = "fit";
    const SUMMARY: &'static str =
        "Fits a law (a catalog name, or a formula) to runs, with its uncertainty: bootstrap, profile-likelihood and calibrated prediction intervals";
    type Request = FitRequest;
    type Spec = FitJob;
    type Output = FitOutcome;
    type Input = Table;

    fn spec(request: FitRequest) -> Result<FitJob> {
        FitJob::try_from(request)
    }

    fn check(spec: &FitJob) -> Result<()> {
        spec.check()
    }

    fn recipe(spec: &FitJob) -> Option<&Recipe> {
        Some(&spec.recipe)
    }

    fn run(spec: &FitJob, table: &Table, ctx: &Ctx) -> Result<FitOutcome> {
        let mut job = spec.clone();
        ctx.apply(&mut job.settings.settings);
        job.run(table, &|done| ctx.progress.done(done))
    }

    fn fitted(outcome: &FitOutcome) -> Option<&FitData> {
        Some(&outcome.data)
    }
}

/// A fit's document is its record: the data fitted are not saved.
impl Serialize for FitOutcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        self.result.serialize(serializer)
    }
}

/// The fit's document is read by every face through its own class (Python's hand-written
/// `Fit`, with prediction and pictures), not generated from a schema: the schema names it.
impl JsonSchema for FitOutcome {
    fn schema_name() -> Cow<'static, str> {
        "Fit".into()
    }
    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        schemars::json_schema!({
            "title": "Fit",
            "type": "object",
            "description": "A fitted law: the document of kind `fit`."
        })
    }
}
