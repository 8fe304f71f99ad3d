//! `predict`'s configuration.

use anyhow::Result;

use super::{destination, level};
use crate::args::PredictArgs;
use crate::cmd_predict;

/// `predict`'s configuration.
pub fn predict_config(args: PredictArgs) -> Result<cmd_predict::Config> {
    Ok(cmd_predict::Config {
        fit: args.fit,
        points: args.points,
        level: level("--level", args.level)?,
        json: destination(args.json.as_deref()),
    })
}
