//! Results read back from the files the commands write: a fit (`fit --json`, read by
//! `predict`, `optimal` and `plot frontier|bootstrap`) and a schedule fit (`schedule fit
//! --json`, read by the other `schedule` subcommands). Errors name the file.

use std::path::Path;

use anyhow::{Context, Result};
use scalinglaws::analysis::schedule::ScheduleFit;
use scalinglaws::uncertainty::FitRecord;
use scalinglaws::Law;

use crate::input_error;

/// A fit file read and checked against its law, with the law.
pub fn fit(path: &Path) -> Result<(FitRecord, Law)> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|error| input_error(format!("cannot read the fit '{shown}': {error}")))?;
    let result = FitRecord::from_json(&text).with_context(|| shown.clone())?;
    // The file's parameters must match its law.
    let law = result.law().with_context(|| shown.clone())?;
    Ok((result, law))
}

/// A schedule fit file read back.
pub fn schedule_fit(path: &Path) -> Result<ScheduleFit> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(ScheduleFit::from_json(&text).map_err(|e| e.within(path.display().to_string()))?)
}
