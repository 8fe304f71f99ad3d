//! `optimal`'s configuration: the law and its parameters (a saved fit's, or a catalog law's
//! published ones, looked up here), and the allocation asked for as the library's
//! `OptimalJob`: the numbers parsed here, the FLOPs and total-parameters formulas (and the
//! choice of budgets or target losses) checked by the job's own request.

use anyhow::Result;
use scalinglaws::job::{OptimalJob, OptimalRequest};

use super::values::{budget_values, held_values, numbers, optional_number};
use super::{destination, level, LawSpec};
use crate::args::OptimalArgs;
use crate::cmd_optimal::{self, Source};

/// `optimal`'s configuration.
pub fn optimal_config(args: OptimalArgs) -> Result<cmd_optimal::Config> {
    let source = match (args.fit, args.law) {
        (Some(path), _) => Source::Fit(path),
        (None, Some(text)) => {
            let (law, params) = LawSpec::published(&text)?;
            Source::Published { law, params }
        }
        (None, None) => unreachable!("clap requires FIT.json or --law"),
    };
    let request = OptimalRequest {
        budgets: budget_values(&args.budgets)?,
        target_losses: numbers("--target-loss", &args.target_losses)?,
        flops: args.flops,
        held: held_values(&args.held)?,
        total_params: args.total_params,
        inference_tokens: optional_number("--inference-tokens", args.inference_tokens.as_deref())?
            .unwrap_or(0.0),
        max_params: optional_number("--max-params", args.max_params.as_deref())?,
        max_active: optional_number("--max-active", args.max_active.as_deref())?,
        max_tokens: optional_number("--max-tokens", args.max_tokens.as_deref())?,
        level: args.level.map(level).transpose()?,
    };
    Ok(cmd_optimal::Config {
        source,
        job: OptimalJob::try_from(request)?,
        json: destination(args.json.as_deref()),
    })
}
