//! `scalinglaws plot KIND`: the pictures of a fit (data and curves, residuals) from the data and
//! the fit options, and of a saved fit (compute-optimal frontier, bootstrap distributions), as
//! SVG or PNG by the output's extension (`-` for SVG on stdout). A picture of a fit or of tracks
//! writes, with `--json`, the JSON of what it shows: the fit as `fit --json` writes it, the
//! comparison it draws as `compare --json` writes one.

use std::path::PathBuf;

use anyhow::Result;
use scalinglaws::analysis::allocation::{optimal, AllocationSettings};
use scalinglaws::analysis::isoflop::IsoflopSettings;
use scalinglaws_plot::Page;
use scalinglaws_report::plots::{
    bootstrap_page, fit_page, frontier_page, isoflop_figure, residuals_page, tracks_figure,
    tracks_spec, IsoflopColumns,
};

use crate::config::FitConfig;
use crate::figure::{self, Output};
use crate::input::{self, Recipe};
use crate::input_error;
use crate::output::{self, Destination};
use crate::saved;
use crate::workflow::Io;
use scalinglaws::analysis::allocation::allocation_from_fit;
use scalinglaws::job::FitOutcome;
use scalinglaws::uncertainty::FitRecord;
use scalinglaws::workflow::compare::CompareSpec;
use scalinglaws_report::analyses::fit::FitReport;
use scalinglaws_report::{export, Format, Report};

#[derive(Debug)]
pub enum Config {
    Fit {
        fit: Box<FitConfig>,
        x: Option<String>,
        output: Output,
    },
    Residuals {
        fit: Box<FitConfig>,
        output: Output,
    },
    Frontier {
        fit: PathBuf,
        /// The budgets along the x axis, the FLOPs formula and the held variables.
        settings: AllocationSettings,
        output: Output,
    },
    Bootstrap {
        fit: PathBuf,
        output: Output,
    },
    Tracks {
        /// Where the runs come from and the comparison's document goes, and its spec.
        compare: Box<(Io, CompareSpec)>,
        output: Output,
    },
    Isoflop {
        recipe: Recipe,
        compute: String,
        size: String,
        select: Vec<(String, String)>,
        settings: IsoflopSettings,
        output: Output,
    },
}

pub fn run(config: &Config) -> Result<()> {
    let (page, output) = match config {
        Config::Fit { fit, x, output } => {
            let FitOutcome {
                result, law, data, ..
            } = fit.run()?;
            let index = match x {
                None => 0,
                Some(name) => law.variable_index(name).ok_or_else(|| {
                    input_error(format!(
                        "--x {name}: not a variable of the law; its variables are {}",
                        law.variables.join(", ")
                    ))
                })?,
            };
            let page = fit_page(&law, &result, &data, index, fit.job.uncertainty.level)?;
            save_fit(fit.json.as_ref(), &result)?;
            (page, output)
        }
        Config::Residuals { fit, output } => {
            let FitOutcome {
                result, law, data, ..
            } = fit.run()?;
            let page = residuals_page(&law, &result, &data)?;
            save_fit(fit.json.as_ref(), &result)?;
            (page, output)
        }
        Config::Frontier {
            fit,
            settings,
            output,
        } => {
            let (result, law) = saved::fit(fit)?;
            // The fit's bootstrap draws give the bands, at the bootstrap's level.
            let settings = allocation_from_fit(settings.clone(), Some(&result), None);
            let frontier = optimal(&law, &result.param_values(), &settings)?;
            (frontier_page(&frontier), output)
        }
        Config::Bootstrap { fit, output } => {
            let (result, _) = saved::fit(fit)?;
            (bootstrap_page(&result)?, output)
        }
        Config::Tracks { compare, output } => (tracks(compare)?, output),
        Config::Isoflop {
            recipe,
            compute,
            size,
            select,
            settings,
            output,
        } => {
            let table = input::load(recipe)?;
            let columns = IsoflopColumns {
                compute,
                size,
                target: &recipe.recipe.target,
            };
            (isoflop_figure(&table, columns, select, settings)?, output)
        }
    };
    figure::write(&page, output)
}

/// Writes the JSON of what a picture shows to `--json`'s destination, if any (naming a file on
/// stderr, as the picture's is).
fn save_json<R: Report>(json: Option<&Destination>, report: &R) -> Result<()> {
    let Some(destination) = json else {
        return Ok(());
    };
    output::write(
        destination,
        &export(report, Format::Json, &crate::wording::CommandLine)?,
    )?;
    if let Destination::File(path) = destination {
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// The fit's JSON, as `fit --json` writes it.
fn save_fit(json: Option<&Destination>, result: &FitRecord) -> Result<()> {
    let report = FitReport { result };
    save_json(json, &report)
}

/// The tracks' runs and compute-optimal losses over the whole range of the data and beyond;
/// `--json` gets the comparison the picture draws (at its budgets and the `--budget` values), as
/// `compare --json` writes one.
fn tracks((io, spec): &(Io, CompareSpec)) -> Result<Page> {
    let spec = tracks_spec(spec);
    spec.check()?;
    let table = input::read(&io.path, io.delimiter, &spec.recipe)?;
    let (page, result) = tracks_figure(&spec, &table)?;
    save_json(io.json.as_ref(), &result)?;
    Ok(page)
}
