//! `optimal`'s configuration: the law and its parameters (a saved fit's, or a catalog law's
//! published ones, looked up here), and the allocation asked for, every number parsed.

use anyhow::{Context, Result};
use scalinglaws::analysis::allocation::{AllocationSettings, Flops, Formula};

use super::values::{budget_values, held_values, numbers, optional_number};
use super::{destination, level, LawSpec};
use crate::args::OptimalArgs;
use crate::cmd_optimal::{self, Source};
use crate::input_error;

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
    let budgets = budget_values(&args.budgets)?;
    let target_losses = numbers("--target-loss", &args.target_losses)?;
    if budgets.is_empty() == target_losses.is_empty() {
        return Err(input_error(
            "give the budgets to allocate (--budget C) or the losses to reach at least compute (--target-loss L), one of the two",
        ));
    }
    let held = held_values(&args.held)?;
    let mut allowed: Vec<&str> = vec!["N"];
    allowed.extend(held.keys().map(String::as_str));
    let total_params = args
        .total_params
        .as_deref()
        .map(|text| {
            Formula::parse(text, &allowed, "the total-parameters formula").context("--total-params")
        })
        .transpose()?;
    let settings = AllocationSettings {
        budgets,
        target_losses,
        flops: Flops::parse(&args.flops).context("--flops")?,
        total_params,
        inference_tokens: optional_number("--inference-tokens", args.inference_tokens.as_deref())?
            .unwrap_or(0.0),
        max_params: optional_number("--max-params", args.max_params.as_deref())?,
        max_active: optional_number("--max-active", args.max_active.as_deref())?,
        max_tokens: optional_number("--max-tokens", args.max_tokens.as_deref())?,
        held,
        ..AllocationSettings::at_budgets(Vec::new())
    };
    Ok(cmd_optimal::Config {
        source,
        settings,
        level: args.level.map(|l| level("--level", l)).transpose()?,
        json: destination(args.json.as_deref()),
    })
}
