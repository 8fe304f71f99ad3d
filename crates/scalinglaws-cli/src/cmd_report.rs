//! `scalinglaws report`: runs the report job (the fit, its allocation and backtest) and writes
//! the fit's page with the HTML exporter (one self-contained page: inline SVG and CSS, no
//! scripts, no network).

use anyhow::Result;
use scalinglaws_report::html::FitPageReport;
use scalinglaws_report::{export, Format};

use crate::config::ReportConfig;
use crate::output::{self, Destination};

pub fn run(config: &ReportConfig) -> Result<()> {
    let page = config.run()?;
    let report = FitPageReport {
        page: &page,
        command: &config.command,
        wording: &crate::wording::CommandLine,
    };
    output::write(&config.output, &export(&report, Format::Html)?)?;
    if let Destination::File(path) = &config.output {
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
