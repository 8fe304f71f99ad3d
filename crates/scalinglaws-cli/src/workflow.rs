//! The one runner of the library's workflows (`scalinglaws::workflow`): a command's file turns
//! its arguments into the workflow's spec (syntax only), and this reads the runs with the
//! spec's recipe, runs the workflow, prints its report and writes its document.

use std::path::PathBuf;

use anyhow::Result;
use scalinglaws::workflow::{Ctx, Workflow};
use scalinglaws_report::Report;

use crate::input;
use crate::output::{self, Destination};

/// Where a workflow's runs come from, and where its document goes.
#[derive(Debug)]
pub struct Io {
    pub path: PathBuf,
    pub delimiter: Option<u8>,
    pub json: Option<Destination>,
}

/// Reads the runs, runs `W` with `spec`, prints the report and writes the document.
pub fn run<W: Workflow>(io: &Io, spec: &W::Spec) -> Result<()>
where
    W::Output: Report<Json = W::Output>,
{
    W::check(spec)?;
    let table = input::read(&io.path, io.delimiter, W::recipe(spec))?;
    let output = W::run(spec, &table, &Ctx::default())?;
    output::emit(io.json.as_ref(), &output)
}
