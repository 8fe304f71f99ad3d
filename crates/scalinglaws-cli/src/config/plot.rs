//! `plot`'s configuration, one variant per kind of picture.

use anyhow::Result;

use super::{compare_config, fit_config, recipe};
use crate::args::{PlotKind, PlotOutputArgs};
use crate::input_error;
use crate::output::Destination;
use crate::{cmd_isoflop, cmd_plot};

fn plot_output(args: PlotOutputArgs) -> Result<cmd_plot::Output> {
    Ok(cmd_plot::Output {
        destination: Destination::parse(args.output.trim()),
        size: args
            .pixels
            .as_deref()
            .map(cmd_plot::parse_size)
            .transpose()?,
    })
}

pub fn plot_config(kind: PlotKind) -> Result<cmd_plot::Config> {
    Ok(match kind {
        PlotKind::Fit(args) => {
            let args = *args;
            cmd_plot::Config::Fit {
                fit: Box::new(fit_config(args.fit)?),
                x: args.x.map(|x| x.trim().to_string()),
                output: plot_output(args.output)?,
            }
        }
        PlotKind::Residuals(args) => {
            let args = *args;
            cmd_plot::Config::Residuals {
                fit: Box::new(fit_config(args.fit)?),
                output: plot_output(args.output)?,
            }
        }
        PlotKind::Frontier(args) => cmd_plot::Config::Frontier {
            fit: args.fit,
            from: args.from,
            to: args.to,
            flops: args.flops,
            held: args.held,
            output: plot_output(args.output)?,
        },
        PlotKind::Bootstrap(args) => cmd_plot::Config::Bootstrap {
            fit: args.fit,
            output: plot_output(args.output)?,
        },
        PlotKind::Tracks(args) => {
            let args = *args;
            cmd_plot::Config::Tracks {
                compare: Box::new(compare_config(args.compare)?),
                output: plot_output(args.output)?,
            }
        }
        PlotKind::Isoflop(args) => {
            let args = *args;
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
                settings: scalinglaws::analysis::isoflop::IsoflopSettings {
                    shape: cmd_isoflop::shape(args.shape.trim())?,
                    tolerance: args.tolerance,
                    bootstrap: args.bootstrap,
                    seed: 0,
                    level: 0.95,
                    ..Default::default()
                },
                output: plot_output(args.output)?,
            }
        }
    })
}
