//! `scalinglaws fit`: data + law + settings → a fitted law, as a human report on stdout and/or
//! a JSON result. It ties the pieces together: `input` prepares the data, the library fits,
//! and this file records in the result where every number came from (target, variables,
//! filters, derived columns) before writing it.

use std::io::IsTerminal;
use std::sync::Mutex;

use anyhow::{Context, Result};
use scalinglaws::error::Location;
use scalinglaws::fit::{self, FitData, FitResult, FitSettings, Heteroscedastic, LossKind};
use scalinglaws::law::catalog;
use scalinglaws::uncertainty::bootstrap::attach;
use scalinglaws::uncertainty::profile::profiled_param;
use scalinglaws::uncertainty::{
    bootstrap, calibrate, profile, BootstrapOptions, CalibrationOptions, Resampling,
};
use scalinglaws::{Error, Law};

use crate::input::{self, Table};
use crate::output::{self, Destination};
use crate::{input_error, FitConfig, LawChoice, UncertaintyConfig};
use scalinglaws_report::text as report;

pub fn run(config: &FitConfig) -> Result<()> {
    let result = fit_result(config)?;
    match &config.json {
        Some(Destination::Stdout) => output::write(&Destination::Stdout, &result.to_json()),
        Some(file) => {
            output::write(file, &result.to_json())?;
            output::print(&report::render(&result, &crate::wording::CommandLine))?;
            if let Destination::File(path) = file {
                eprintln!("wrote {}", path.display());
            }
            Ok(())
        }
        None => output::print(&report::render(&result, &crate::wording::CommandLine)),
    }
}

/// The whole fit, with the data provenance filled in and the asked-for intervals attached.
pub fn fit_result(config: &FitConfig) -> Result<FitResult> {
    Ok(fit_with_data(config)?.0)
}

/// [`fit_result`] with the law and the data it was fitted to (for plots).
pub fn fit_with_data(config: &FitConfig) -> Result<(FitResult, Law, FitData)> {
    let recipe = &config.recipe;
    let table = input::load(recipe)?;
    let law = build_law(&config.law, &table)?;
    let mut settings = config.settings.for_law(&config.law);
    let data = table.fit_data(&law, recipe, settings.space)?;
    if let Some(column) = &config.heteroscedastic {
        settings.heteroscedastic = Some(variance_model(&table, &law, &data, &settings, column)?);
    }
    check_enough_rows(&law, &settings, &table)?;
    // Check what the intervals need before the work starts.
    for name in &config.uncertainty.profiles {
        profiled_param(&law, &settings, name)?;
    }
    let resampling = match &config.uncertainty.cluster {
        None => Resampling::Rows,
        Some(column) => cluster_resampling(&table, column)?,
    };
    let mut result = fit::fit(&law, &data, &settings)?;
    if config.uncertainty.calibrate {
        let (by, scale) = table.scale(&law, &data, config.uncertainty.by.as_deref(), "--by")?;
        let options = CalibrationOptions {
            level: config.uncertainty.level,
            ..CalibrationOptions::default()
        };
        let calibration = calibrate(&law, &data, &by, &scale, &settings, &options)?;
        result.calibration = Some(calibration.require_rule());
    }
    add_uncertainty(
        &mut result,
        &law,
        &data,
        &settings,
        resampling,
        &config.uncertainty,
    )?;
    table.describe_fit(&mut result, &law, recipe);
    Ok((result, law, data))
}

/// The variance model `--heteroscedastic COLUMN` asks for, checked against the data.
fn variance_model(
    table: &Table,
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    column: &str,
) -> Result<Heteroscedastic> {
    if settings.loss != LossKind::Linear {
        return Err(input_error(format!(
            "--heteroscedastic {column}: the variance model sigma(x) = sigma0*(x/x0)^s is a Gaussian likelihood, so it needs --loss linear (got --loss {})",
            settings.loss.name()
        )));
    }
    Ok(table.heteroscedastic(law, data, column)?)
}

fn add_uncertainty(
    result: &mut FitResult,
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    resampling: Resampling,
    asked: &UncertaintyConfig,
) -> Result<()> {
    for name in &asked.profiles {
        match profile(law, data, settings, result, name, asked.level) {
            Ok(profile) => result.profiles.push(profile),
            // The fit stands; say why this interval is missing.
            Err(error) if !error.is_input_error() && !error.is_interrupted() => result
                .warnings
                .push(error.worded(&crate::wording::CommandLine)),
            Err(error) => return Err(error.into()),
        }
    }
    if let Some(replicates) = asked.bootstrap {
        let options = BootstrapOptions {
            replicates,
            level: asked.level,
            seed: settings.seed,
            resampling,
        };
        let bar = Progress::new("bootstrap", replicates);
        let summary = bootstrap(law, data, settings, result, &options, &|done| {
            bar.update(done)
        })?;
        bar.finish();
        attach(result, summary);
    }
    Ok(())
}

/// Resampling whole runs: each distinct label of `column` is one run.
fn cluster_resampling(table: &Table, column: &str) -> Result<Resampling> {
    Ok(Resampling::Clusters {
        column: column.to_string(),
        ids: table.run_ids(column, "--cluster")?,
    })
}

/// A progress bar on stderr, drawn only when stderr is a terminal.
pub struct Progress {
    label: &'static str,
    total: usize,
    shown: Option<Mutex<usize>>,
}

impl Progress {
    const WIDTH: usize = 30;

    pub fn new(label: &'static str, total: usize) -> Progress {
        Progress {
            label,
            total,
            shown: std::io::stderr()
                .is_terminal()
                .then(|| Mutex::new(usize::MAX)),
        }
    }

    pub fn update(&self, done: usize) {
        let Some(shown) = &self.shown else {
            return;
        };
        let filled = done * Self::WIDTH / self.total.max(1);
        let Ok(mut last) = shown.lock() else {
            return;
        };
        if *last == filled && done != self.total {
            return;
        }
        *last = filled;
        eprint!(
            "\r{} [{}{}] {done}/{}",
            self.label,
            "#".repeat(filled),
            " ".repeat(Self::WIDTH - filled),
            self.total
        );
    }

    pub fn finish(&self) {
        if self.shown.is_some() {
            eprint!("\r{}\r", " ".repeat(Self::WIDTH + self.label.len() + 30));
        }
    }
}

pub fn build_law(choice: &LawChoice, table: &Table) -> Result<Law> {
    match choice {
        LawChoice::Catalog(name) => Ok(catalog::lookup(name)?),
        LawChoice::Formula(text) => {
            let is_variable = |name: &str| table.resolve(name).is_some();
            Law::from_formula(text, &is_variable).context("--formula")
        }
    }
}

/// Fewer rows than free parameters cannot determine the fit: say so with the file's name.
pub fn check_enough_rows(law: &Law, settings: &FitSettings, table: &Table) -> Result<()> {
    let free: Vec<&str> = law
        .param_names()
        .into_iter()
        .filter(|name| !settings.fixed.contains_key(*name))
        .collect();
    let rows = table.dataset.n_rows();
    if free.is_empty() || rows >= free.len() {
        return Ok(());
    }
    let after = if table.rows_filtered > 0 {
        format!(
            " ({} read, {} removed by --where)",
            table.rows_read, table.rows_filtered
        )
    } else {
        String::new()
    };
    Err(Error::Data {
        location: Location {
            file: table.dataset.source().to_string(),
            row: None,
            line: None,
            column: None,
        },
        message: format!(
            "{rows} row{} to fit{after}, fewer than the {} free parameters ({})",
            if rows == 1 { "" } else { "s" },
            free.len(),
            free.join(", ")
        )
        .into(),
        fix: "add rows, or hold parameters at known values with --fix NAME=VALUE".into(),
    }
    .into())
}
