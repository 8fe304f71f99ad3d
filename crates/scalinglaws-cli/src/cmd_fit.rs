//! `scalinglaws fit`: runs the fit job (`scalinglaws::job::FitJob`, which the Python package
//! runs too) and chooses the outputs: the human report on stdout and/or the JSON result.

use anyhow::Result;
use scalinglaws::uncertainty::FitRecord;

use crate::config::FitConfig;
use crate::output::{self, Destination};
use scalinglaws_report::analyses::fit::FitReport;
use scalinglaws_report::{export, Format};

pub fn run(config: &FitConfig) -> Result<()> {
    let result = config.run()?.result;
    match &config.json {
        Some(Destination::Stdout) => output::write(
            &Destination::Stdout,
            &export(&report(&result), Format::Json)?,
        ),
        Some(file) => {
            output::write(file, &export(&report(&result), Format::Json)?)?;
            output::print_report(&report(&result))?;
            if let Destination::File(path) = file {
                eprintln!("wrote {}", path.display());
            }
            Ok(())
        }
        None => output::print_report(&report(&result)),
    }
}

/// The fit's report, its hints worded for the command line.
fn report(result: &FitRecord) -> FitReport<'_> {
    FitReport {
        result,
        wording: &crate::wording::CommandLine,
    }
}
