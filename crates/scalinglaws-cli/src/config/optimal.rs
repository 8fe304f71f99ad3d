//! `optimal`'s configuration.

use anyhow::Result;

use super::{destination, level};
use crate::args::OptimalArgs;
use crate::cmd_optimal;

/// `optimal`'s configuration.
pub fn optimal_config(args: OptimalArgs) -> Result<cmd_optimal::Config> {
    Ok(cmd_optimal::Config {
        source: match (args.fit, args.law) {
            (Some(path), _) => cmd_optimal::Source::Fit(path),
            (None, Some(law)) => cmd_optimal::Source::Published(law),
            (None, None) => unreachable!("clap requires FIT.json or --law"),
        },
        budgets: args.budgets,
        target_losses: args.target_losses,
        flops: args.flops,
        held: args.held,
        total_params: args.total_params,
        max_params: args.max_params,
        max_active: args.max_active,
        max_tokens: args.max_tokens,
        inference_tokens: args.inference_tokens,
        level: args.level.map(|l| level("--level", l)).transpose()?,
        json: destination(args.json.as_deref()),
    })
}
