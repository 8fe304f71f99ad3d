//! `scalinglaws sim`: runs one of the lab's simulators and writes its rows as a CSV dataset
//! (stdout, or a file written whole) and, with `--plot`, its figure (`scalinglaws_lab::figures`
//! chooses what it shows). A run longer than a second shows a progress bar on a terminal. The
//! lab names a bad setting by its key; `config/sim.rs` words it as the option that sets it.

use anyhow::Result;
use scalinglaws_lab::editing::{editing_csv, editing_with_progress};
use scalinglaws_lab::figures as lab;
use scalinglaws_lab::multi_index::{spectral_recovery_with_progress, RecoveryRow};
use scalinglaws_lab::nvfp4::{snr_experiment_with_progress, SnrRow};
use scalinglaws_lab::recall::{recall_capacity_with_progress, RecallRow};
use scalinglaws_lab::sgd::{
    data_scaling_with_progress, divergences, scaling_csv, sgd_csv, simulate_with_progress,
};
use scalinglaws_plot::Page;

use crate::args::sim::{
    EditingArgs, MultiIndexArgs, Nvfp4Args, RecallArgs, SgdArgs, SgdScalingArgs, SimArgs, Simulator,
};
use crate::config::sim::{
    editing_config, multi_index_config, nvfp4_config, recall_config, scaling_config, sgd_config,
    sim_outputs, worded, SimOutputs,
};
use crate::figure;
use crate::input_error;
use crate::output;
use crate::progress::Progress;

pub fn run(args: &SimArgs) -> Result<()> {
    if output::report_format() != scalinglaws_report::Format::Text {
        return Err(input_error(
            "--format: sim writes a CSV dataset (-o), not a report; drop --format",
        ));
    }
    match &args.simulator {
        Simulator::Nvfp4(args) => run_nvfp4(args),
        Simulator::Sgd(args) => run_sgd(args),
        Simulator::SgdScaling(args) => run_sgd_scaling(args),
        Simulator::Editing(args) => run_editing(args),
        Simulator::MultiIndex(args) => run_multi_index(args),
        Simulator::Recall(args) => run_recall(args),
    }
}

/// Runs `work` with a progress bar labelled `label`, shown once it has run a second (and only
/// on a terminal), hearing the lab's `(done, total)`.
fn with_bar<T>(label: &'static str, work: impl FnOnce(&(dyn Fn(usize, usize) + Sync)) -> T) -> T {
    let bar = Progress::delayed_percent(label);
    let result = work(&|done, total| bar.update_to(done, total));
    bar.finish();
    result
}

/// Writes the dataset, then the figure (drawn only when asked for).
fn finish(outputs: &SimOutputs, csv: &str, page: impl FnOnce() -> Page) -> Result<()> {
    output::write(&outputs.csv, csv)?;
    match &outputs.plot {
        Some(target) => figure::write(&page(), target),
        None => Ok(()),
    }
}

/// A header and its rows as one CSV text.
fn csv_text(header: &str, lines: impl Iterator<Item = String>) -> String {
    let mut text = String::from(header);
    for line in lines {
        text.push('\n');
        text.push_str(&line);
    }
    text
}

fn run_nvfp4(args: &Nvfp4Args) -> Result<()> {
    let outputs = sim_outputs(&args.run)?;
    let config = nvfp4_config(args);
    let rows = with_bar("nvfp4", |p| snr_experiment_with_progress(&config, p)).map_err(worded)?;
    let csv = csv_text(SnrRow::csv_header(), rows.iter().map(SnrRow::csv_line));
    finish(&outputs, &csv, || lab::snr_page(&config, &rows))
}

fn run_sgd(args: &SgdArgs) -> Result<()> {
    let outputs = sim_outputs(&args.run)?;
    let (config, optimizers) = sgd_config(args)?;
    let rows =
        with_bar("sgd", |p| simulate_with_progress(&config, &optimizers, p)).map_err(worded)?;
    for (optimizer, step) in divergences(&rows) {
        eprintln!(
            "warning: {} diverged: its risk is not finite from step {step} on (written as inf \
             or NaN); the learning rate is past its stable range: lower --lr",
            optimizer.name()
        );
    }
    finish(&outputs, &sgd_csv(&rows), || lab::sgd_page(&config, &rows))
}

fn run_sgd_scaling(args: &SgdScalingArgs) -> Result<()> {
    let outputs = sim_outputs(&args.run)?;
    let config = scaling_config(args)?;
    let result =
        with_bar("sgd-scaling", |p| data_scaling_with_progress(&config, p)).map_err(worded)?;
    finish(&outputs, &scaling_csv(&result.points), || {
        lab::data_scaling_page(&config, &result)
    })
}

fn run_editing(args: &EditingArgs) -> Result<()> {
    let outputs = sim_outputs(&args.run)?;
    let config = editing_config(args);
    let result = with_bar("editing", |p| editing_with_progress(&config, p)).map_err(worded)?;
    finish(&outputs, &editing_csv(&result.rows), || {
        lab::editing_page(&config, &result)
    })
}

fn run_multi_index(args: &MultiIndexArgs) -> Result<()> {
    let outputs = sim_outputs(&args.run)?;
    let config = multi_index_config(args);
    let rows = with_bar("multi-index", |p| {
        spectral_recovery_with_progress(&config, p)
    })
    .map_err(worded)?;
    let csv = csv_text(
        RecoveryRow::csv_header(),
        rows.iter().map(RecoveryRow::csv_line),
    );
    finish(&outputs, &csv, || lab::cascade_page(&config, &rows))
}

fn run_recall(args: &RecallArgs) -> Result<()> {
    let outputs = sim_outputs(&args.run)?;
    let config = recall_config(args);
    let rows = with_bar("recall", |p| recall_capacity_with_progress(&config, p)).map_err(worded)?;
    let csv = csv_text(
        RecallRow::csv_header(),
        rows.iter().map(RecallRow::csv_line),
    );
    finish(&outputs, &csv, || lab::recall_page(&config, &rows))
}
