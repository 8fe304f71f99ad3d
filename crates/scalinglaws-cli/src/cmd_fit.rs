//! `scalinglaws fit`: runs the fit job (`scalinglaws::job::FitJob`, which the Python package
//! runs too) and chooses the outputs: the human report on stdout and/or the JSON result.

use anyhow::Result;

use crate::config::FitConfig;
use crate::output::{self, Destination};
use scalinglaws_report::text as report;

pub fn run(config: &FitConfig) -> Result<()> {
    let result = config.run()?.result;
    let text = || report::render(&result, scalinglaws::data::recipe::Dialect::Cli);
    match &config.json {
        Some(Destination::Stdout) => output::write(&Destination::Stdout, &result.to_json()),
        Some(file) => {
            output::write(file, &result.to_json())?;
            output::print(&text())?;
            if let Destination::File(path) = file {
                eprintln!("wrote {}", path.display());
            }
            Ok(())
        }
        None => output::print(&text()),
    }
}
