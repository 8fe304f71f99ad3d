//! `scalinglaws report`: fits, then writes the HTML page of `scalinglaws_report::html` (one
//! self-contained page: inline SVG and CSS, no scripts, no network).

use anyhow::Result;
use scalinglaws_report::html;

use crate::config::FitConfig;
use crate::output::{self, Destination};
use scalinglaws::job::FitOutcome;

#[derive(Debug)]
pub struct Config {
    pub fit: FitConfig,
    pub output: Destination,
    /// The command line, as typed, for the "reproduce" section.
    pub command: String,
}

pub fn run(config: &Config) -> Result<()> {
    let FitOutcome { result, law, data } = config.fit.run()?;
    let html = html::page(
        &result,
        &law,
        &data,
        config.fit.job.uncertainty.level,
        &config.command,
    );
    output::write(&config.output, &html)?;
    if let Destination::File(path) = &config.output {
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
