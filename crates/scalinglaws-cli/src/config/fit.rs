//! `fit`'s (and `report`'s) configuration: data, law, settings and the uncertainty asked for.

use anyhow::Result;

use super::{command_line, destination, law_choice, level, recipe, replicates, settings_config};
use super::{LawChoice, SettingsConfig};
use crate::args::{FitArgs, ReportArgs};
use crate::cmd_report;
use crate::input::Recipe;
use crate::output::Destination;

/// Uncertainty asked of `fit`.
#[derive(Debug, Clone)]
pub struct UncertaintyConfig {
    pub bootstrap: Option<usize>,
    pub cluster: Option<String>,
    pub level: f64,
    pub profiles: Vec<String>,
    /// Calibrate prediction intervals beyond the data, ordering scale by `by`.
    pub calibrate: bool,
    pub by: Option<String>,
}

/// Everything `fit` needs, parsed and checked as far as can be done without the data.
#[derive(Debug)]
pub struct FitConfig {
    pub recipe: Recipe,
    pub law: LawChoice,
    pub settings: SettingsConfig,
    pub uncertainty: UncertaintyConfig,
    /// The column the residual scale varies with (`--heteroscedastic`).
    pub heteroscedastic: Option<String>,
    pub json: Option<Destination>,
}

pub fn fit_config(args: FitArgs) -> Result<FitConfig> {
    Ok(FitConfig {
        recipe: recipe(args.data)?,
        law: law_choice(args.law)?,
        settings: settings_config(args.settings)?,
        uncertainty: UncertaintyConfig {
            bootstrap: replicates(args.bootstrap)?,
            cluster: args.cluster.map(|c| c.trim().to_string()),
            level: level("--level", args.level)?,
            profiles: args.profiles.iter().map(|p| p.trim().to_string()).collect(),
            calibrate: !args.no_calibration,
            by: args.by.map(|b| b.trim().to_string()),
        },
        heteroscedastic: args.heteroscedastic.map(|c| c.trim().to_string()),
        json: destination(args.json.as_deref()),
    })
}

/// `report`'s configuration: the fit's, the page's destination and the command as typed.
pub fn report_config(args: ReportArgs) -> Result<cmd_report::Config> {
    Ok(cmd_report::Config {
        fit: fit_config(args.fit)?,
        output: Destination::parse(args.output.trim()),
        command: command_line(),
    })
}
