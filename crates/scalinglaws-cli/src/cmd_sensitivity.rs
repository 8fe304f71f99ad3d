//! `scalinglaws sensitivity`: how far the prediction at a point moves when each scale group is
//! left out of the fit (`scalinglaws::workflow::sensitivity`). The arguments are `fit`'s, a
//! required `--by` and the point; this file only turns them into the workflow's spec.

use std::collections::BTreeMap;

use anyhow::Result;
use clap::Args;
use scalinglaws::workflow::sensitivity::{Sensitivity, SensitivitySpec};

use crate::args::{DataArgs, FitArgs, LawArgs, SettingsArgs, SweepArgs};
use crate::config::{destination, fit_config};
use crate::input_error;
use crate::workflow::{run as run_workflow, Io};

#[derive(Debug, Args)]
pub struct SensitivityArgs {
    #[command(flatten)]
    pub data: DataArgs,

    #[command(flatten)]
    pub sweep: SweepArgs,

    #[command(flatten)]
    pub law: LawArgs,

    #[command(flatten)]
    pub settings: SettingsArgs,

    /// The column that orders scale (e.g. compute): its scale groups are left out one at a
    /// time (and it orders the calibration of the full fit's prediction interval).
    #[arg(long, value_name = "COLUMN")]
    pub by: String,

    /// The point to predict at, one law variable per flag: --at N=7e10 --at D=1.4e12.
    #[arg(long, value_name = "NAME=VALUE", required = true)]
    pub at: Vec<String>,

    /// Refuse a point more than D decades beyond the largest run (in the law's own scale).
    #[arg(long = "max-decades", value_name = "D")]
    pub max_decades: Option<f64>,

    /// Bootstrap replicates of the full fit for its intervals (0: none).
    #[arg(long, value_name = "K")]
    pub bootstrap: Option<usize>,

    /// Level of the full fit's prediction interval.
    #[arg(long, value_name = "P", default_value_t = scalinglaws::uncertainty::DEFAULT_LEVEL)]
    pub level: f64,

    /// Keep the full fit's own prediction interval beyond the data (no calibration).
    #[arg(long = "no-calibration")]
    pub no_calibration: bool,

    /// Write the result as JSON to PATH (the report still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}

pub fn run(args: SensitivityArgs) -> Result<()> {
    let at = point(&args.at)?;
    let fit = fit_config(FitArgs {
        data: args.data,
        sweep: args.sweep,
        law: args.law,
        settings: args.settings,
        bootstrap: args.bootstrap,
        cluster: None,
        level: args.level,
        profiles: Vec::new(),
        by: Some(args.by.clone()),
        no_calibration: args.no_calibration,
        heteroscedastic: None,
        qc: None,
        json: None,
    })?;
    let io = Io {
        path: fit.path,
        delimiter: fit.delimiter,
        json: destination(args.json.as_deref()),
    };
    let spec = SensitivitySpec {
        fit: fit.job,
        by: args.by.trim().to_string(),
        at,
        max_decades: args.max_decades,
    };
    run_workflow::<Sensitivity>(&io, &spec, &scalinglaws::workflow::Ctx::default())
}

/// `--at NAME=VALUE` flags as the point.
fn point(flags: &[String]) -> Result<BTreeMap<String, f64>> {
    let mut at = BTreeMap::new();
    for flag in flags {
        let parsed = flag
            .split_once('=')
            .and_then(|(name, value)| Some((name.trim(), value.trim().parse::<f64>().ok()?)));
        let Some((name, value)) = parsed else {
            return Err(input_error(format!(
                "--at '{flag}': give NAME=VALUE with a number, e.g. --at N=7e10"
            )));
        };
        if at.insert(name.to_string(), value).is_some() {
            return Err(input_error(format!(
                "--at {name} is given twice: give each variable once"
            )));
        }
    }
    Ok(at)
}
