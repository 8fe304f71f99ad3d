//! `fit`'s configuration (and the fit of `report`'s): data, law, settings and the uncertainty
//! asked for.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Result;
use scalinglaws::job::{FitJob, FitOutcome, GroupedFitJob, UncertaintySettings};
use scalinglaws::workflow::fit::FitWorkflow;
use scalinglaws::workflow::{Ctx, Workflow};

use super::{destination, law_choice, level, recipe, replicates, settings_config};
use crate::args::{FitArgs, FitCommandArgs};
use crate::input;
use crate::input_error;
use crate::output::Destination;
use crate::progress::Progress;

/// Everything `fit` needs, parsed and checked as far as can be done without the data: the
/// file, the library's fit job, and where the JSON goes.
#[derive(Debug)]
pub struct FitConfig {
    pub path: PathBuf,
    pub delimiter: Option<u8>,
    pub job: FitJob,
    pub json: Option<Destination>,
}

impl FitConfig {
    /// Reads the data and runs the library's fit workflow, with a progress bar over the
    /// bootstrap (for the commands that draw the fit).
    pub fn run(&self) -> Result<FitOutcome> {
        FitWorkflow::check(&self.job)?;
        let table = input::read(&self.path, self.delimiter, &self.job.recipe)?;
        let (ctx, bar) = self.bootstrap_bar();
        let outcome = FitWorkflow::run(&self.job, &table, &ctx);
        bar.finish();
        Ok(outcome?)
    }

    /// A run's context whose progress moves a bar over the bootstrap's replicates, and the bar
    /// (to finish before a report prints).
    pub fn bootstrap_bar(&self) -> (Ctx, Arc<Progress>) {
        let replicates = self.job.uncertainty.bootstrap.unwrap_or(0);
        let bar = Arc::new(Progress::new("bootstrap", replicates));
        let heard = Arc::clone(&bar);
        let ctx = Ctx {
            progress: scalinglaws::workflow::Progress::to(move |done| heard.update(done)),
            ..Ctx::default()
        };
        (ctx, bar)
    }
}

/// What `fit` runs: one fit, or one per group.
#[derive(Debug)]
pub enum FitCommand {
    One(Box<FitConfig>),
    Groups(Box<GroupsConfig>),
}

/// Everything `fit --group` needs: the file, the grouped job, and where the JSON Lines and
/// the table go (the table on stdout when neither is given).
#[derive(Debug)]
pub struct GroupsConfig {
    pub path: PathBuf,
    pub delimiter: Option<u8>,
    pub job: GroupedFitJob,
    pub json: Option<Destination>,
    pub table: Option<Destination>,
}

impl GroupsConfig {
    /// Reads the data and fits every group, with a progress bar over the groups once the
    /// fits take longer than a second.
    pub fn run(&self) -> Result<Vec<scalinglaws::job::GroupFit>> {
        self.job.check()?;
        let table = input::read(&self.path, self.delimiter, &self.job.fit.recipe)?;
        let bar = Progress::delayed("groups");
        let fits = self
            .job
            .run(&table, &|done, total| bar.update_of(done, total));
        bar.finish();
        Ok(fits?)
    }
}

/// `fit`'s configuration: one fit, or with `--group` one per group (calibration beyond the
/// data is then off unless `--by` asks for it, which the grouped job refuses).
pub fn fit_command(args: FitCommandArgs) -> Result<FitCommand> {
    if args.groups.is_empty() {
        return Ok(FitCommand::One(Box::new(fit_config(args.fit)?)));
    }
    if crate::output::report_format() != scalinglaws_report::Format::Text {
        return Err(input_error(
            "--format: fit --group writes a CSV table (--table) and JSON Lines (--json), not a report; drop --format",
        ));
    }
    let config = fit_config(args.fit)?;
    let table = args.table.as_deref().map(|t| Destination::parse(t.trim()));
    if config.json == Some(Destination::Stdout) && table == Some(Destination::Stdout) {
        return Err(input_error(
            "--json - and --table - both write to standard output; send one of them to a file",
        ));
    }
    let groups = args.groups.iter().map(|g| g.trim().to_string()).collect();
    Ok(FitCommand::Groups(Box::new(GroupsConfig {
        path: config.path,
        delimiter: config.delimiter,
        // The command line cannot ask a grouped fit to calibrate (only `--by` can).
        job: GroupedFitJob::new(config.job, groups, None),
        json: config.json,
        table,
    })))
}

pub fn fit_config(args: FitArgs) -> Result<FitConfig> {
    let mut data = recipe(args.data)?;
    data.recipe.sweep = args.sweep.columns();
    let seed = args.settings.seed.unwrap_or(0);
    let mut settings = settings_config(args.settings, Some(&mut data.recipe))?;
    settings.heteroscedastic = args.heteroscedastic.map(|c| c.trim().to_string());
    let uncertainty = UncertaintySettings {
        bootstrap: replicates(args.bootstrap),
        cluster: args.cluster.map(|c| c.trim().to_string()),
        level: level(args.level)?,
        profiles: args.profiles.iter().map(|p| p.trim().to_string()).collect(),
        calibrate: !args.no_calibration,
        by: args.by.map(|b| b.trim().to_string()),
        seed,
    };
    Ok(FitConfig {
        path: data.path,
        delimiter: data.delimiter,
        job: FitJob {
            recipe: data.recipe,
            law: law_choice(args.law)?,
            settings,
            uncertainty,
            qc: match args.qc.as_deref() {
                None => Default::default(),
                Some(name) => scalinglaws::job::qc::QcMode::from_name(name)?,
            },
        },
        json: destination(args.json.as_deref()),
    })
}

/// Refuses a parameter both held by `--fix` and given bounds or start values by `option`
/// (`--bound`, `--grid`): a fixed parameter is not fitted, so the other would be ignored (and a
/// value outside its bounds contradicts them). Both are echoed as typed.
pub fn refuse_fixed_and(fixes: &[String], others: &[String], option: &str) -> Result<()> {
    let name = |text: &str| {
        text.split_once('=')
            .map(|(name, _)| name.trim().to_string())
    };
    for fix in fixes {
        let Some(fixed) = name(fix) else { continue };
        if let Some(other) = others.iter().find(|o| name(o).as_deref() == Some(&fixed)) {
            return Err(input_error(format!(
                "--fix '{fix}' and {option} '{other}' both set {fixed}: a fixed parameter is not \
                 fitted, so {option} would not act; drop one of them"
            )));
        }
    }
    Ok(())
}
