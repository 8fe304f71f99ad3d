//! `scalinglaws fit`: data + law + settings → a fitted law, as a human report on stdout and/or
//! a JSON result. It ties the pieces together: `input` prepares the data, the library fits,
//! and this file records in the result where every number came from (target, variables,
//! filters, derived columns) before writing it.

use anyhow::{Context, Result};
use scalinglaws::error::Location;
use scalinglaws::fit::result::DataSummary;
use scalinglaws::fit::{self, FitResult, Space};
use scalinglaws::law::catalog::{self, DefaultSpace};
use scalinglaws::{Error, Law};

use crate::input::{self, Table};
use crate::output::{self, Destination};
use crate::report;
use crate::{FitConfig, LawChoice};

pub fn run(config: &FitConfig) -> Result<()> {
    let result = fit_result(config)?;
    match &config.json {
        Some(Destination::Stdout) => output::write(&Destination::Stdout, &result.to_json()),
        Some(file) => {
            output::write(file, &result.to_json())?;
            output::print(&report::render(&result))?;
            if let Destination::File(path) = file {
                eprintln!("wrote {}", path.display());
            }
            Ok(())
        }
        None => output::print(&report::render(&result)),
    }
}

/// The whole fit, with the data provenance filled in.
pub fn fit_result(config: &FitConfig) -> Result<FitResult> {
    let recipe = &config.recipe;
    let table = input::load(recipe)?;
    let law = build_law(&config.law, &table)?;
    let space = config.space.unwrap_or(match &config.law {
        LawChoice::Catalog(name) => match catalog::entry(name).map(|e| e.default_space) {
            Some(DefaultSpace::Linear) => Space::Linear,
            _ => Space::Log,
        },
        LawChoice::Formula(_) => Space::Log,
    });
    let settings = fit::FitSettings {
        space,
        ..config.settings.clone()
    };
    let data = table.fit_data(&law, recipe, space)?;
    check_enough_rows(&law, &settings, &table)?;
    let mut result = fit::fit(&law, &data, &settings)?;
    result.target = table.describe(&recipe.target);
    result.variables = law
        .variables
        .iter()
        .map(|variable| (variable.clone(), table.describe(variable)))
        .collect();
    result.data = Some(DataSummary {
        source: table.dataset.source().to_string(),
        rows_read: table.rows_read,
        rows_filtered: table.rows_filtered,
        filters: recipe.filters.iter().map(|f| f.text.clone()).collect(),
        derived: recipe.derives.iter().map(|d| d.text.clone()).collect(),
    });
    Ok(result)
}

fn build_law(choice: &LawChoice, table: &Table) -> Result<Law> {
    match choice {
        LawChoice::Catalog(name) => Ok(catalog::lookup(name)?),
        LawChoice::Formula(text) => {
            let is_variable = |name: &str| table.resolve(name).is_some();
            Law::from_formula(text, &is_variable).context("--formula")
        }
    }
}

/// Fewer rows than free parameters cannot determine the fit: say so with the file's name.
fn check_enough_rows(law: &Law, settings: &fit::FitSettings, table: &Table) -> Result<()> {
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
        ),
        fix: "add rows, or hold parameters at known values with --fix NAME=VALUE".into(),
    }
    .into())
}
