//! `scalinglaws report`: runs the report job (the fit, its allocation and backtest) and writes
//! the fit's page with the HTML exporter (one self-contained page: inline SVG and CSS, no
//! scripts, no network); with `--json`, the page's fit as `fit --json` writes it.

use anyhow::Result;
use scalinglaws_report::analyses::fit::FitPageReport;
use scalinglaws_report::analyses::fit::FitReport;
use scalinglaws_report::{export, Format};

use crate::config::ReportConfig;
use crate::output::{self, Destination};

pub fn run(config: &ReportConfig) -> Result<()> {
    let page = config.run()?;
    let report = FitPageReport {
        page: &page,
        command: &config.command,
    };
    output::write(
        &config.output,
        &export(&report, Format::Html, &crate::wording::CommandLine)?,
    )?;
    if let Destination::File(path) = &config.output {
        eprintln!("wrote {}", path.display());
    }
    if let Some(json) = &config.json {
        let fit = FitReport {
            result: &page.outcome.result,
        };
        output::write(
            json,
            &export(&fit, Format::Json, &crate::wording::CommandLine)?,
        )?;
        if let Destination::File(path) = json {
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(())
}
