//! `scalinglaws fit`: runs the library's fit workflow (`scalinglaws::workflow::fit`, which the
//! Python package runs too) by the one runner: the report on stdout and/or the JSON. With
//! `--group`, the grouped job (`GroupedFitJob`) and its outputs: a JSON Lines record per group
//! and a CSV table with a row per group, each written whole or not at all.

use anyhow::Result;
use scalinglaws::workflow::fit::FitWorkflow;

use crate::config::{FitConfig, GroupsConfig};
use crate::output::{self, Destination};
use crate::workflow::{self, Io};
use scalinglaws_report::analyses::groups;

/// Runs the library's fit workflow on the file, a progress bar over its bootstrap (finished
/// before the report prints); says on stderr where the JSON went.
pub fn run(config: &FitConfig) -> Result<()> {
    let io = Io {
        path: config.path.clone(),
        delimiter: config.delimiter,
        json: config.json.clone(),
    };
    let (ctx, bar) = config.bootstrap_bar();
    let ran = workflow::run_drawing::<FitWorkflow>(&io, &config.job, &ctx, |_, _| {
        bar.finish();
        Ok(())
    });
    bar.finish();
    ran?;
    if let Some(Destination::File(path)) = &config.json {
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// Fits every group and writes the JSON Lines and the table (the table on stdout when neither
/// is asked for).
pub fn run_groups(config: &GroupsConfig) -> Result<()> {
    let fits = config.run()?;
    let table = match (&config.json, &config.table) {
        (None, None) => Some(&Destination::Stdout),
        (_, table) => table.as_ref(),
    };
    if let Some(json) = &config.json {
        write_with(json, &|out| groups::write_json_lines(&fits, out))?;
    }
    if let Some(table) = table {
        write_with(table, &|out| {
            groups::write_table(&fits, &config.job.groups, out)
        })?;
    }
    use scalinglaws::job::GroupStatus;
    let count = |status: GroupStatus| fits.iter().filter(|f| f.status == status).count();
    let failed = count(GroupStatus::Failed);
    if failed > 0 {
        eprintln!(
            "{failed} of {} groups could not be fitted (status \"failed\", with the reason)",
            fits.len()
        );
    }
    let unconverged = count(GroupStatus::Unconverged);
    if unconverged > 0 {
        eprintln!(
            "{unconverged} of {} groups were fitted but their search did not converge (status \"unconverged\", with the reason): read them as unfinished",
            fits.len()
        );
    }
    // The process ends next, and the system takes the memory back at once; freeing a hundred
    // thousand fits one allocation at a time would take longer than writing them.
    std::mem::forget(fits);
    Ok(())
}

/// Streams `fill`'s output to stdout (a closed pipe ends it quietly), or to a file written
/// whole or not at all.
fn write_with(
    destination: &Destination,
    fill: &dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<()> {
    match destination {
        Destination::Stdout => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let written = fill(&mut out).and_then(|()| std::io::Write::flush(&mut out));
            match written {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
                _ => Ok(()),
            }
        }
        Destination::File(path) => output::write_file_with(path, |file| {
            let handle = std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(file)?;
            let mut out = std::io::BufWriter::new(handle);
            fill(&mut out)?;
            std::io::Write::flush(&mut out)?;
            Ok(())
        }),
    }
}
