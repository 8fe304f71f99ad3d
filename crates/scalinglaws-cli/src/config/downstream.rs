//! `downstream`'s configuration: the arguments as the library's `DownstreamJob`.

use anyhow::Result;

use scalinglaws::analysis::downstream::{DownstreamSettings, Target};
use scalinglaws::data::recipe::Trials;
use scalinglaws::job::downstream::{ColumnOrValue, DownstreamJob};

use super::plot::plot_and_json;
use super::{level, recipe};
use crate::args::DownstreamArgs;
use crate::cmd_downstream;
use crate::input_error;

pub fn downstream_config(args: DownstreamArgs) -> Result<cmd_downstream::Config> {
    if args.at.is_empty() && args.holdout.is_empty() {
        return Err(input_error(
            "downstream needs targets: --at N=6.9e9,D=3e11 for a new model, or --holdout MODEL for a backtest",
        ));
    }
    if let Some(cut) = args.own_until.filter(|c| !(c.is_finite() && *c > 0.0)) {
        return Err(input_error(format!(
            "--own-until {cut}: give a positive token count, e.g. --own-until 2.7e10"
        )));
    }
    let at = args
        .at
        .iter()
        .map(|t| target(t))
        .collect::<Result<Vec<_>>>()?;
    let holdout: Vec<String> = args
        .holdout
        .iter()
        .flat_map(|h| h.split(','))
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .collect();
    let (plot, json) = plot_and_json(args.plot.as_deref(), args.json.as_deref())?;
    Ok(cmd_downstream::Config {
        recipe: recipe(args.data)?,
        job: DownstreamJob {
            model: args.model.trim().to_string(),
            task: args.task.trim().to_string(),
            size: args.size.trim().to_string(),
            tokens: args.tokens.trim().to_string(),
            loss: args.loss.map(|l| l.trim().to_string()),
            questions: args.trials.as_deref().map(questions).transpose()?,
            chance: args.chance.as_deref().map(chance).transpose()?,
            at,
            holdout,
            own_until: args.own_until,
            settings: DownstreamSettings {
                level: level(args.level)?,
                anchors: args.anchors,
                unseen: args.unseen,
                threads: args.threads,
                interrupt: Default::default(),
            },
        },
        plot,
        json,
    })
}

/// `N=6.9e9,D=3e11[,model=NAME]`.
fn target(text: &str) -> Result<Target> {
    let (mut n, mut d, mut model) = (None, None, None);
    for piece in text.split(',') {
        let Some((key, value)) = piece.split_once('=') else {
            return Err(input_error(format!(
                "--at '{text}': write N=6.9e9,D=3e11 (key=value pairs)"
            )));
        };
        let number = || {
            value
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0)
                .ok_or_else(|| {
                    input_error(format!(
                        "--at '{text}': {} must be a positive number, got '{}'",
                        key.trim(),
                        value.trim()
                    ))
                })
        };
        match key.trim() {
            "N" => n = Some(number()?),
            "D" => d = Some(number()?),
            "model" => model = Some(value.trim().to_string()),
            other => {
                return Err(input_error(format!(
                    "--at '{text}': unknown key '{other}'; use N, D and model"
                )))
            }
        }
    }
    let (Some(params), Some(tokens)) = (n, d) else {
        return Err(input_error(format!(
            "--at '{text}': give both N and D, e.g. N=6.9e9,D=3e11"
        )));
    };
    let model = model.unwrap_or_else(|| format!("N={params:e} D={tokens:e}"));
    Ok(Target {
        model,
        params,
        tokens,
    })
}

fn questions(text: &str) -> Result<Trials> {
    match text.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n >= 1.0 => Ok(Trials::Count(n)),
        Ok(n) => Err(input_error(format!(
            "--trials {n}: a task has at least one question"
        ))),
        Err(_) => Ok(Trials::Column(text.trim().to_string())),
    }
}

fn chance(text: &str) -> Result<ColumnOrValue> {
    match text.trim().parse::<f64>() {
        Ok(x) if (0.0..1.0).contains(&x) => Ok(ColumnOrValue::Value(x)),
        Ok(x) => Err(input_error(format!(
            "--chance {x}: a chance level lies in [0, 1), e.g. 0.25"
        ))),
        Err(_) => Ok(ColumnOrValue::Column(text.trim().to_string())),
    }
}
