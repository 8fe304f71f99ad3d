//! `predict`'s configuration: the points as values by variable (checked against the fit's
//! law when the fit is read).

use anyhow::Result;

use super::values::named_lists;
use super::{destination, level};
use crate::args::PredictArgs;
use crate::cmd_predict;
use crate::input_error;

/// `predict`'s configuration.
pub fn predict_config(args: PredictArgs) -> Result<cmd_predict::Config> {
    let points = named_lists("predict", "VAR=VALUE, e.g. N=7e10", &args.points)?;
    for (name, values) in &points {
        if let Some(bad) = values.iter().find(|v| !v.is_finite()) {
            return Err(input_error(format!(
                "'{name}={bad}': {bad} is not a finite number"
            )));
        }
    }
    Ok(cmd_predict::Config {
        fit: args.fit,
        points,
        level: level("--level", args.level)?,
        json: destination(args.json.as_deref()),
    })
}
