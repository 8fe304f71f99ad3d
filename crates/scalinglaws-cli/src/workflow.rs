//! The one runner of the library's workflows (`scalinglaws::workflow`): a command's file turns
//! its arguments into the workflow's spec (syntax only), and this checks the spec, loads the
//! input (the runs, read with the spec's recipe, or a saved fit; either may be absent for a
//! workflow that can run without), runs the workflow, prints its
//! report and writes its document.

use std::path::PathBuf;

use anyhow::{anyhow, Result};
use scalinglaws::analysis::schedule::ScheduleFit;
use scalinglaws::data::recipe::{Recipe, Table};
use scalinglaws::uncertainty::FitRecord;
use scalinglaws::workflow::{Ctx, Workflow};
use scalinglaws_report::Report;

use crate::input;
use crate::output::{self, Destination};

/// Where a workflow's input comes from (a file of runs, or a saved fit), and where its
/// document goes.
#[derive(Debug)]
pub struct Io {
    /// The input's path (empty: none given, for an input that may be absent).
    pub path: PathBuf,
    pub delimiter: Option<u8>,
    pub json: Option<Destination>,
}

/// How the command line loads each kind of input.
pub trait Load: Sized {
    fn load(io: &Io, recipe: Option<&Recipe>) -> Result<Self>;
}

impl Load for Table {
    fn load(io: &Io, recipe: Option<&Recipe>) -> Result<Table> {
        let recipe = recipe.ok_or_else(|| anyhow!("a workflow over runs names no recipe"))?;
        input::read(&io.path, io.delimiter, recipe)
    }
}

/// The runs when DATA is given (a design before any run reads none); runs given to a spec
/// that reads none are refused in the library's words.
impl Load for Option<Table> {
    fn load(io: &Io, recipe: Option<&Recipe>) -> Result<Option<Table>> {
        match (io.path.as_os_str().is_empty(), recipe) {
            (true, _) => Ok(None),
            (false, None) => Err(scalinglaws::workflow::design::unread_runs().into()),
            (false, Some(recipe)) => Ok(Some(input::read(&io.path, io.delimiter, recipe)?)),
        }
    }
}

/// The fit when FIT.json is given (a spec may name its own law instead; the workflow's run
/// refuses both, in the library's words).
impl Load for Option<FitRecord> {
    fn load(io: &Io, _recipe: Option<&Recipe>) -> Result<Option<FitRecord>> {
        match io.path.as_os_str().is_empty() {
            true => Ok(None),
            false => Ok(Some(crate::saved::fit(&io.path)?.0)),
        }
    }
}

/// A saved fit, read back with its law (whose parameters must match the file's).
impl Load for FitRecord {
    fn load(io: &Io, _recipe: Option<&Recipe>) -> Result<FitRecord> {
        Ok(crate::saved::fit(&io.path)?.0)
    }
}

impl Load for ScheduleFit {
    fn load(io: &Io, _recipe: Option<&Recipe>) -> Result<ScheduleFit> {
        crate::saved::schedule_fit(&io.path)
    }
}

/// Checks `spec`, loads the input, runs `W`, prints the report and writes the document.
pub fn run<W: Workflow>(io: &Io, spec: &W::Spec, ctx: &Ctx) -> Result<()>
where
    W::Input: Load,
    W::Output: Report<Json = W::Output>,
{
    run_drawing::<W>(io, spec, ctx, |_, _| Ok(()))
}

/// [`run`], with `draw` given the input and the document before the report is printed (the
/// figure a command draws from them, which may take standard output).
pub fn run_drawing<W: Workflow>(
    io: &Io,
    spec: &W::Spec,
    ctx: &Ctx,
    draw: impl FnOnce(&W::Input, &W::Output) -> Result<()>,
) -> Result<()>
where
    W::Input: Load,
    W::Output: Report<Json = W::Output>,
{
    W::check(spec)?;
    let input = W::Input::load(io, W::recipe(spec))?;
    run_loaded::<W>(&input, spec, ctx, io.json.as_ref(), draw)
}

/// Runs `W` on an input the command loaded itself (several files of logs; the caller checks
/// `spec` before loading), draws, prints the report and writes the document to `json`.
pub fn run_loaded<W: Workflow>(
    input: &W::Input,
    spec: &W::Spec,
    ctx: &Ctx,
    json: Option<&Destination>,
    draw: impl FnOnce(&W::Input, &W::Output) -> Result<()>,
) -> Result<()>
where
    W::Output: Report<Json = W::Output>,
{
    let output = W::run(spec, input, ctx)?;
    draw(input, &output)?;
    output::emit(json, &output)
}
