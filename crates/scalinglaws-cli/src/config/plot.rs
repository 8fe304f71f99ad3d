//! `plot`'s configuration, one variant per kind of picture.

use anyhow::{Context, Result};
use scalinglaws::analysis::allocation::AllocationSettings;
use scalinglaws_report::plots::FrontierPicture;

use super::values::{held_values, number};
use super::{fit_config, one_on_stdout, recipe, FitConfig};
use crate::args::{PlotFrontierArgs, PlotIsoflopArgs, PlotKind, PlotOutputArgs};
use crate::cmd_plot;
use crate::figure;
use crate::input_error;
use crate::output::Destination;

fn plot_output(args: PlotOutputArgs) -> Result<figure::Output> {
    Ok(figure::Output {
        destination: Destination::parse(args.output.trim()),
        size: args.pixels.as_deref().map(parse_size).transpose()?,
        option: "-o",
    })
}

/// A picture's destination given as text (`schedule ... --plot FILE`), at the page's size.
pub fn picture(target: &str) -> figure::Output {
    figure::Output {
        destination: Destination::parse(target.trim()),
        size: None,
        option: "--plot",
    }
}

/// `--plot` and `--json` of a command that draws beside its JSON: at most one of them on
/// standard output (SVG and JSON in one stream would be neither).
pub fn plot_and_json(
    plot: Option<&str>,
    json: Option<&str>,
) -> Result<(Option<figure::Output>, Option<Destination>)> {
    let plot = plot.map(picture);
    let json = super::destination(json);
    if let Some(picture) = &plot {
        one_on_stdout(json.as_ref(), &picture.destination, "--plot")?;
    }
    Ok((plot, json))
}

/// `--pixels 1280x840`.
fn parse_size(text: &str) -> Result<(u32, u32)> {
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

/// `plot frontier`: the picture's budgets (`--from`, `--to`), `--flops` and `--set`, read into
/// the report crate's [`FrontierPicture`], whose rule (and defaults) they are.
fn frontier_settings(args: &PlotFrontierArgs) -> Result<AllocationSettings> {
    let picture = FrontierPicture {
        from: number("--from", &args.from)?,
        to: number("--to", &args.to)?,
        flops: args.flops.clone(),
        held: held_values(&args.held)?,
    };
    picture
        .budgets()
        .with_context(|| format!("--from {} --to {}", args.from, args.to))?;
    Ok(picture.settings()?)
}

/// A picture of a fit: the fit's configuration (its `--json` writes the fit beside the
/// picture) and where the picture goes, not both on stdout.
fn fit_and_picture(
    fit: crate::args::FitArgs,
    output: PlotOutputArgs,
) -> Result<(Box<FitConfig>, figure::Output)> {
    let fit = fit_config(fit)?;
    let output = plot_output(output)?;
    one_on_stdout(fit.json.as_ref(), &output.destination, "-o")?;
    Ok((Box::new(fit), output))
}

pub fn plot_config(kind: PlotKind) -> Result<cmd_plot::Config> {
    Ok(match kind {
        PlotKind::Fit(args) => {
            let args = *args;
            let (fit, output) = fit_and_picture(args.fit, args.output)?;
            cmd_plot::Config::Fit {
                fit,
                x: args.x.map(|x| x.trim().to_string()),
                output,
            }
        }
        PlotKind::Residuals(args) => {
            let args = *args;
            let (fit, output) = fit_and_picture(args.fit, args.output)?;
            cmd_plot::Config::Residuals { fit, output }
        }
        PlotKind::Frontier(args) => cmd_plot::Config::Frontier {
            settings: frontier_settings(&args)?,
            fit: args.fit,
            output: plot_output(args.output)?,
        },
        PlotKind::Bootstrap(args) => cmd_plot::Config::Bootstrap {
            fit: args.fit,
            output: plot_output(args.output)?,
        },
        PlotKind::Tracks(args) => {
            let args = *args;
            let (io, spec) = crate::cmd_compare::spec(args.compare)?;
            let output = plot_output(args.output)?;
            one_on_stdout(io.json.as_ref(), &output.destination, "-o")?;
            cmd_plot::Config::Tracks {
                compare: Box::new((io, spec)),
                output,
            }
        }
        PlotKind::Isoflop(args) => {
            let args = *args;
            let settings = isoflop_settings(&args)?;
            cmd_plot::Config::Isoflop {
                recipe: recipe(args.data)?,
                compute: args.compute.trim().to_string(),
                size: args.size.trim().to_string(),
                select: args
                    .select
                    .iter()
                    .map(|text| {
                        text.split_once('=')
                            .map(|(c, v)| (c.trim().to_string(), v.trim().to_string()))
                            .ok_or_else(|| {
                                input_error(format!(
                                    "--select '{text}': expected COLUMN=VALUE, e.g. dataset=rw"
                                ))
                            })
                    })
                    .collect::<Result<_>>()?,
                settings,
                output: plot_output(args.output)?,
            }
        }
    })
}

/// `plot isoflop`'s profile settings, checked by the library's rules before the runs are read.
fn isoflop_settings(
    args: &PlotIsoflopArgs,
) -> Result<scalinglaws::analysis::isoflop::IsoflopSettings> {
    let settings = scalinglaws::analysis::isoflop::IsoflopSettings {
        shape: scalinglaws::analysis::isoflop::Shape::parse(args.shape.trim())?,
        tolerance: args.tolerance,
        bootstrap: args.bootstrap,
        seed: args.seed,
        level: args.level,
        ..Default::default()
    };
    settings.check()?;
    Ok(settings)
}
