//! `predict`'s configuration: the points as values by variable and the level, as the
//! library's `PredictJob` (which checks the points against the fit's law when it runs).

use anyhow::Result;
use scalinglaws::job::PredictJob;

use super::values::named_lists;
use super::{destination, level};
use crate::args::PredictArgs;
use crate::cmd_predict;

/// `predict`'s configuration.
pub fn predict_config(args: PredictArgs) -> Result<cmd_predict::Config> {
    let points = named_lists("predict", "VAR=VALUE, e.g. N=7e10", &args.points)?;
    Ok(cmd_predict::Config {
        fit: args.fit,
        job: PredictJob {
            points,
            level: level(args.level)?,
        },
        json: destination(args.json.as_deref()),
    })
}
