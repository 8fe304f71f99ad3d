//! `lr`'s configuration, with the `--predict N=V,D=V` targets parsed.

use anyhow::{Context, Result};

use super::{destination, level, recipe, split_name};
use scalinglaws::job::lr::LrJob;

use crate::args::LrArgs;
use crate::cmd_lr;
use crate::input::{constant, split_top_level};
use crate::input_error;

pub fn lr_config(args: LrArgs) -> Result<cmd_lr::Config> {
    use scalinglaws::analysis::lr::LrSettings;
    if args.window == 0 {
        return Err(input_error(
            "--window 0: the parabola needs at least one LR on each side of the best, e.g. 2",
        ));
    }
    if !(args.max_rise > 0.0 && args.max_rise.is_finite()) {
        return Err(input_error(format!(
            "--max-rise {}: give a positive fraction, e.g. 0.1 for 10% above the best loss",
            args.max_rise
        )));
    }
    if args.noise.is_some_and(|s| !(s > 0.0 && s.is_finite())) {
        return Err(input_error(format!(
            "--noise {}: give the loss noise as a positive number, e.g. 0.01",
            args.noise.unwrap_or(f64::NAN)
        )));
    }
    if !(args.holdout > 0.0 && args.holdout < 1.0) {
        return Err(input_error(format!(
            "--holdout {}: give a fraction strictly between 0 and 1, e.g. 0.25",
            args.holdout
        )));
    }
    let job = LrJob {
        lr: args.lr.trim().to_string(),
        size: args.size.trim().to_string(),
        tokens: args.tokens.trim().to_string(),
        batch: args.batch.map(|b| b.trim().to_string()),
        settings: LrSettings {
            form: args.law.into(),
            method: args.method.into(),
            curvature: args.curvature.into(),
            half_window: args.window,
            max_rise: args.max_rise,
            noise: args.noise,
            level: level(args.level)?,
            targets: args
                .predict
                .iter()
                .map(|text| lr_target(text))
                .collect::<Result<_>>()?,
            holdout: args.holdout,
        },
    };
    Ok(cmd_lr::Config {
        recipe: recipe(args.data)?,
        job,
        json: destination(args.json.as_deref()),
    })
}

/// `N=V,D=V` (values may be constant expressions such as 7e9 or 20*7e9).
fn lr_target(text: &str) -> Result<(f64, f64)> {
    let form = "N=V,D=V, e.g. N=7e9,D=1.4e12";
    let mut n = None;
    let mut d = None;
    for piece in split_top_level(text) {
        let (name, value) = split_name("--predict", piece.trim(), form)?;
        let value = constant(text, value).context("--predict")?;
        if !(value > 0.0 && value.is_finite()) {
            return Err(input_error(format!(
                "--predict '{text}': {name} = {} is not a positive number",
                scalinglaws::error::short_number(value)
            )));
        }
        match name {
            "N" => n = Some(value),
            "D" => d = Some(value),
            other => {
                return Err(input_error(format!(
                    "--predict '{text}': '{other}' is neither N nor D; expected {form}"
                )))
            }
        }
    }
    match (n, d) {
        (Some(n), Some(d)) => Ok((n, d)),
        _ => Err(input_error(format!(
            "--predict '{text}': give both N and D, as {form}"
        ))),
    }
}
