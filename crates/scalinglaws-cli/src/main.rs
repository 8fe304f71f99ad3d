//! The `scalinglaws` command: parses the command line once (clap derive, `args/`), turns the
//! arguments into the library's configuration (settings, data recipe, output targets;
//! `config/`), hands them to one subcommand, and maps whatever went wrong to a message on
//! stderr and an exit code: 0 success, 2 bad input or usage, 1 a fit that could not be done.

mod args;
mod cleanup;
#[cfg(test)]
mod cli_reference;
mod cmd_backtest;
mod cmd_compare;
mod cmd_compare_laws;
mod cmd_design;
mod cmd_downstream;
mod cmd_fit;
mod cmd_isoflop;
mod cmd_laws;
mod cmd_lr;
mod cmd_optimal;
mod cmd_plot;
mod cmd_predict;
mod cmd_qc;
mod cmd_report;
mod cmd_schedule;
mod cmd_schedule_predict;
mod cmd_schedule_study;
mod cmd_select;
mod cmd_sensitivity;
mod cmd_sim;
mod config;
mod figure;
mod input;
mod misplaced;
mod output;
mod preflight;
mod progress;
mod saved;
mod wording;
mod workflow;

use std::process::ExitCode;

use anyhow::Result;
use clap::{CommandFactory, FromArgMatches};

use crate::args::{Cli, Command};

/// A fit allocates many small, short-lived vectors (a start's columns, a step's model); with
/// glibc's allocator, allocation was a fifth of the instructions of a grouped fit of 10,000
/// learning curves (bench/results/fit_groups.txt has the before and after).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc 3 keeps freed memory for a second before it gives it back to the system (ten for
/// its arenas); a fit frees and makes buffers of megabytes at every step, so a million-row fit
/// held 80 to 110 MB more than it used (bench/results/million_rows.txt). Freed memory goes
/// back after 1 ms instead. Not at once (0): a search of many starts then spends as much time
/// in the kernel as in the fit (`bnsl:3` on 500 rows: 18.4 s user + 20.2 s system, 23.8 s
/// wall, against 13.5 + 0.02 s, 9.2 s at 1 ms), for 22 MB less at a million rows (235 against
/// 257 MB). MIMALLOC_PURGE_DELAY in the environment still decides when it is set.
fn return_freed_memory_soon() {
    // `mi_option_purge_delay` of mimalloc's `mi_option_t` (the same in its versions 2 and 3):
    // the mimalloc crate declares the setter only with its `extended` feature, a dependency more.
    const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
    extern "C" {
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: mimalloc's own setter of a plain option value, linked in with the allocator.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 1) };
    }
}

/// An error in what the user typed or named (arguments, files): exit code 2, like the
/// library's input errors.
#[derive(Debug)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// Shorthand for an [`InputError`] as an `anyhow::Error`.
pub fn input_error(message: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(InputError(message.into()))
}

fn main() -> ExitCode {
    return_freed_memory_soon();
    cleanup::install();
    let command = Cli::command();
    let matches = match command.clone().try_get_matches_from(std::env::args_os()) {
        Ok(matches) => matches,
        Err(error) => match misplaced::explain(&command, &error, &misplaced::argv()) {
            Some(message) => {
                eprintln!("error: {message}");
                return ExitCode::from(2);
            }
            None => error.exit(),
        },
    };
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit());
    // Outputs are checked (and their temporary files made) before any work.
    let outcome = preflight::check(&command, &matches).and_then(|()| run(cli));
    // Whatever was claimed and not written (an error, an output never used) goes.
    cleanup::remove_all();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", wording::describe(&error));
            ExitCode::from(exit_code(&error))
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    output::set_report_format(cli.format.into());
    match cli.command {
        Command::Laws(args) => cmd_laws::run(&config::destination(args.json.as_deref())),
        Command::Fit(args) => match config::fit_command(*args)? {
            config::FitCommand::One(config) => cmd_fit::run(&config),
            config::FitCommand::Groups(config) => cmd_fit::run_groups(&config),
        },
        Command::Predict(args) => cmd_predict::run(*args),
        Command::Optimal(args) => cmd_optimal::run(*args),
        Command::Isoflop(args) => cmd_isoflop::run(*args),
        Command::Downstream(args) => cmd_downstream::run(*args),
        Command::Design(args) => cmd_design::run(*args),
        Command::Backtest(args) => cmd_backtest::run(*args),
        Command::CompareLaws(args) => cmd_compare_laws::run(*args),
        Command::Select(args) => cmd_select::run(*args),
        Command::Sensitivity(args) => cmd_sensitivity::run(*args),
        Command::Qc(args) => cmd_qc::run(*args),
        Command::Compare(args) => cmd_compare::run(*args),
        Command::Lr(args) => cmd_lr::run(*args),
        Command::Schedule(args) => cmd_schedule::run(config::schedule_config(args)?),
        Command::Plot(args) => cmd_plot::run(&config::plot_config(args.kind)?),
        Command::Report(args) => {
            if cli.format == args::ReportFormat::Markdown {
                return Err(input_error(
                    "--format markdown: report writes a self-contained HTML page (-o); --format \
                     sets how printed reports are written: for the fit's report in markdown, \
                     run `fit` with --format markdown",
                ));
            }
            cmd_report::run(&config::report_config(*args)?)
        }
        Command::Sim(args) => cmd_sim::run(&args),
    }
}

/// 2 for anything the user can fix in their input, 1 for a fit that could not be done (and
/// for failures outside the user's input, such as a full disk), 130 for interrupted work.
fn exit_code(error: &anyhow::Error) -> u8 {
    for cause in error.chain() {
        if let Some(library) = cause.downcast_ref::<scalinglaws::Error>() {
            if library.is_interrupted() {
                return 130; // as a shell reports SIGINT
            }
            return if library.is_input_error() { 2 } else { 1 };
        }
        if cause.downcast_ref::<InputError>().is_some() {
            return 2;
        }
    }
    1
}
