//! `report`'s configuration: the page's job (the fit's job and the level of the page's plots),
//! where the page goes, and the command as typed (the page's "reproduce" section).

use std::path::PathBuf;

use anyhow::Result;
use scalinglaws::job::{FitPage, ReportJob};

use super::{command_line, fit_config, FitConfig};
use crate::args::ReportArgs;
use crate::input;
use crate::input_error;
use crate::output::Destination;
use crate::progress::Progress;

/// Everything `report` needs: the file, the library's report job, where the page goes.
#[derive(Debug)]
pub struct ReportConfig {
    pub path: PathBuf,
    pub delimiter: Option<u8>,
    pub job: ReportJob,
    pub output: Destination,
    /// The command line, as typed, for the "reproduce" section.
    pub command: String,
    /// Where the page's fit goes as JSON (`--json`), as `fit --json` writes it.
    pub json: Option<Destination>,
}

impl ReportConfig {
    /// Reads the data and runs the job (fit, allocation, backtest), with a progress bar over
    /// the bootstrap.
    pub fn run(&self) -> Result<FitPage> {
        let table = input::read(&self.path, self.delimiter, &self.job.fit.recipe)?;
        let replicates = self.job.fit.uncertainty.bootstrap.unwrap_or(0);
        let bar = Progress::new("bootstrap", replicates);
        let page = self.job.run(&table, &|done| bar.update(done));
        bar.finish();
        Ok(page?)
    }
}

/// Refuses `--json -` beside a page or picture that goes to stdout too (`option` names the
/// page's option): the two would be mixed in one stream.
pub fn one_on_stdout(json: Option<&Destination>, page: &Destination, option: &str) -> Result<()> {
    if json == Some(&Destination::Stdout) && *page == Destination::Stdout {
        return Err(input_error(format!(
            "--json - and {option} - both write to stdout: give one of them a file, e.g. --json fit.json"
        )));
    }
    Ok(())
}

/// The fit's configuration as `fit` builds it; the page's plots at the fit's level.
pub fn report_config(args: ReportArgs) -> Result<ReportConfig> {
    let FitConfig {
        path,
        delimiter,
        job,
        json,
    } = fit_config(args.fit)?;
    let level = job.uncertainty.level;
    let output = Destination::parse(args.output.trim());
    one_on_stdout(json.as_ref(), &output, "-o")?;
    check_html(&output)?;
    Ok(ReportConfig {
        path,
        delimiter,
        job: ReportJob { fit: job, level },
        output,
        command: command_line(),
        json,
    })
}

/// The report is one HTML page: a file named for another format (`r.md`, `r.svg`) is refused
/// before the work, not written as HTML under that name.
fn check_html(output: &Destination) -> anyhow::Result<()> {
    let Destination::File(path) = output else {
        return Ok(());
    };
    let extension = path.extension().map(|e| e.to_string_lossy().to_lowercase());
    match extension.as_deref() {
        Some("html" | "htm") => Ok(()),
        _ => Err(crate::input_error(format!(
            "-o {}: the report is an HTML page; name the file .html (or give - for stdout)",
            path.display()
        ))),
    }
}
