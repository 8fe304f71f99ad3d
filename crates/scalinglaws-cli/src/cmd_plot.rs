//! `scalinglaws plot KIND`: the pictures of a fit (data and curves, residuals) from the data and
//! the fit options, and of a saved fit (compute-optimal frontier, bootstrap distributions), as
//! SVG or PNG by the output's extension (`-` for SVG on stdout).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use scalinglaws::analysis::allocation::{AllocationSettings, Flops};
use scalinglaws::analysis::isoflop::{isoflop, IsoflopData, IsoflopSettings};
use scalinglaws_plot::kinds::{
    bootstrap_page, fit_page, frontier_page, isoflop_page, residuals_page, tracks_page,
};
use scalinglaws_plot::Page;

use crate::cmd_optimal::held_values;
use crate::cmd_predict::load_fit;
use crate::config::FitConfig;
use crate::input::{self, Recipe};
use crate::input_error;
use crate::output::{self, Destination};
use scalinglaws::job::FitOutcome;

/// Where the picture goes and how large it is.
#[derive(Debug)]
pub struct Output {
    pub destination: Destination,
    pub size: Option<(u32, u32)>,
}

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
        from: String,
        to: String,
        flops: String,
        held: Vec<String>,
        output: Output,
    },
    Bootstrap {
        fit: PathBuf,
        output: Output,
    },
    Tracks {
        compare: Box<crate::cmd_compare::Config>,
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
            let FitOutcome { result, law, data } = fit.run()?;
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
            (page, output)
        }
        Config::Residuals { fit, output } => {
            let FitOutcome { result, law, data } = fit.run()?;
            (residuals_page(&law, &result, &data)?, output)
        }
        Config::Frontier {
            fit,
            from,
            to,
            flops,
            held,
            output,
        } => {
            let (result, law) = load_fit(fit)?;
            let from = input::constant(from, from).context("--from")?;
            let to = input::constant(to, to).context("--to")?;
            if !(from > 0.0 && to > from && to.is_finite()) {
                return Err(input_error(format!(
                    "--from {from:e} --to {to:e}: give budgets with 0 < from < to"
                )));
            }
            let budgets = (0..41)
                .map(|i| (from.ln() + (to.ln() - from.ln()) * i as f64 / 40.0).exp())
                .collect();
            let settings = AllocationSettings {
                flops: Flops::parse(flops).context("--flops")?,
                held: held_values(held)?,
                ..AllocationSettings::at_budgets(budgets)
            };
            (frontier_page(&law, &result, &settings)?, output)
        }
        Config::Bootstrap { fit, output } => {
            let (result, _) = load_fit(fit)?;
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
            let data = isoflop_data(recipe, compute, size, select)?;
            let result = isoflop(&data, settings)?;
            (isoflop_page(&data, &result), output)
        }
    };
    write(&page, output)
}

/// The tracks' runs and compute-optimal losses over the whole range of the data and beyond.
fn tracks(config: &crate::cmd_compare::Config) -> Result<Page> {
    let flops = Flops::parse(&config.flops).context("--flops")?;
    let (comparison, tracks, law) = crate::cmd_compare::compare(config, true)?;
    // The title gives the multiplier at the largest --budget, as `compare` reports it.
    let headline = crate::cmd_compare::given_budgets(config)?
        .into_iter()
        .reduce(f64::max);
    Ok(tracks_page(
        &law,
        &comparison,
        &tracks,
        &|n, d| flops.at(n, d),
        headline,
    )?)
}

/// The runs of one IsoFLOP study: the rows whose `select` columns read the given values.
fn isoflop_data(
    recipe: &Recipe,
    compute: &str,
    size: &str,
    select: &[(String, String)],
) -> Result<IsoflopData> {
    let table = input::load(recipe)?;
    let mut keep = vec![true; table.dataset.n_rows()];
    for (column, value) in select {
        let labels = table.labels(column, "--select")?;
        for (kept, label) in keep.iter_mut().zip(&labels) {
            *kept &= label == value;
        }
    }
    if !keep.iter().any(|k| *k) {
        return Err(input_error("--select: no run matches every selection"));
    }
    let why = "IsoFLOP profiles are drawn on log axes";
    let pick = |values: Vec<f64>| -> Vec<f64> {
        values
            .into_iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(v, _)| v)
            .collect()
    };
    Ok(IsoflopData {
        compute: pick(table.positive_values(compute, "--compute", why)?),
        size: pick(table.positive_values(size, "--size", why)?),
        loss: pick(table.positive_values(&recipe.target, "--target", why)?),
        tokens: None,
    })
}

pub fn write(page: &Page, output: &Output) -> Result<()> {
    let size = output.size.unwrap_or_else(|| page.default_size());
    match &output.destination {
        Destination::Stdout => output::write(&Destination::Stdout, &scalinglaws_plot::svg(page, size)?),
        Destination::File(path) => match extension(path).as_deref() {
            // Either format says where it went (on stderr), as `report` does.
            Some("svg") => {
                output::write(&output.destination, &scalinglaws_plot::svg(page, size)?)?;
                eprintln!("wrote {}", path.display());
                Ok(())
            }
            Some("png") => {
                let bytes = png_bytes(page, size)?;
                output::write_file(path, &bytes)?;
                eprintln!("wrote {}", path.display());
                Ok(())
            }
            _ => Err(input_error(format!(
                "-o {}: the picture's format comes from the extension: .svg or .png (or - for SVG on stdout)",
                path.display()
            ))),
        },
    }
}

fn extension(path: &Path) -> Option<String> {
    path.extension().map(|e| e.to_string_lossy().to_lowercase())
}

/// The PNG's bytes (drawn to a private temporary file, then written whole by the caller).
fn png_bytes(page: &Page, size: (u32, u32)) -> Result<Vec<u8>> {
    let temporary = std::env::temp_dir().join(format!(
        "scalinglaws-plot-{}-{}.png",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    let drawn = scalinglaws_plot::png(page, size, &temporary);
    let bytes = drawn
        .map_err(anyhow::Error::from)
        .and_then(|()| std::fs::read(&temporary).context("reading the drawn PNG"));
    let _ = std::fs::remove_file(&temporary);
    bytes
}

/// `--pixels 1280x840`.
pub fn parse_size(text: &str) -> Result<(u32, u32)> {
    let parsed = text
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.trim().parse::<u32>().ok()?, h.trim().parse::<u32>().ok()?)))
        .filter(|(w, h)| (100..=10_000).contains(w) && (100..=10_000).contains(h));
    parsed.ok_or_else(|| {
        input_error(format!(
            "--pixels '{text}': give WIDTHxHEIGHT in pixels, each 100 to 10000, e.g. 1280x840"
        ))
    })
}
