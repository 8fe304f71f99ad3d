//! The driver: command-line arguments, the worker mode, and the summary of each target's run.

mod campaign;
mod limits;
mod supervisor;
mod worker;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use scalinglaws_fuzz::targets::scratch;
use scalinglaws_fuzz::Target;

use campaign::Plan;
use limits::CountingAllocator;
use supervisor::Limits;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator::new();

const USAGE: &str = "usage: scalinglaws-fuzz TARGET|all [--seconds S] [--runs N] [--seed N] \
[--corpus DIR]... [--crashes DIR] [--timeout-ms MS] [--memory-mb MB] [--minimize FILE]
targets: table, formula, recipe, schedule, fit_json (all: each in turn), selftest";

/// The crate's directory (corpus, regressions, crashes live under it).
fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

struct Options {
    targets: Vec<Target>,
    seconds: f64,
    runs: Option<u64>,
    seed: u64,
    corpus: Vec<PathBuf>,
    crashes: Option<PathBuf>,
    limits: Limits,
    minimize: Option<PathBuf>,
}

fn value<T: std::str::FromStr>(flag: &str, text: Option<String>) -> Result<T, String> {
    let text = text.ok_or_else(|| format!("{flag} needs a value"))?;
    text.parse()
        .map_err(|_| format!("{flag} '{text}': not a valid value"))
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let name = args.next().ok_or("no target given")?;
    let targets = match name.as_str() {
        "all" => Target::ALL.to_vec(),
        other => vec![Target::from_name(other).ok_or(format!("unknown target '{other}'"))?],
    };
    let mut options = Options {
        targets,
        seconds: 10.0,
        runs: None,
        seed: 0,
        corpus: Vec::new(),
        crashes: None,
        limits: Limits {
            timeout: Duration::from_millis(2000),
            memory_bytes: 1 << 30,
        },
        minimize: None,
    };
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--seconds" => options.seconds = value(&flag, args.next())?,
            "--runs" => options.runs = Some(value(&flag, args.next())?),
            "--seed" => options.seed = value(&flag, args.next())?,
            "--corpus" => options.corpus.push(value(&flag, args.next())?),
            "--crashes" => options.crashes = Some(value(&flag, args.next())?),
            "--timeout-ms" => {
                options.limits.timeout = Duration::from_millis(value(&flag, args.next())?)
            }
            "--memory-mb" => {
                let mb: usize = value(&flag, args.next())?;
                options.limits.memory_bytes = mb.saturating_mul(1 << 20);
            }
            "--minimize" => options.minimize = Some(value(&flag, args.next())?),
            other => return Err(format!("unknown option '{other}'")),
        }
    }
    Ok(options)
}

/// A target's plan: the committed corpus and regressions unless directories are given.
fn plan_for(target: Target, options: &Options) -> Plan {
    let corpus = if options.corpus.is_empty() {
        vec![
            crate_dir().join("corpus").join(target.name()),
            crate_dir().join("regressions").join(target.name()),
        ]
    } else {
        options.corpus.clone()
    };
    let crashes = options
        .crashes
        .clone()
        .unwrap_or_else(|| crate_dir().join("crashes"))
        .join(target.name());
    Plan {
        target,
        corpus,
        crashes,
        seconds: options.seconds,
        runs: options.runs,
        seed: options.seed,
        limits: options.limits,
    }
}

/// `--worker TARGET --memory-bytes N`: serve inputs (see `worker.rs`).
fn worker(mut args: impl Iterator<Item = String>) -> ExitCode {
    let target = args.next().and_then(|n| Target::from_name(&n));
    let memory = args.nth(1).and_then(|m| m.parse().ok());
    let (Some(target), Some(memory)) = (target, memory) else {
        eprintln!("scalinglaws-fuzz: bad worker arguments");
        return ExitCode::from(2);
    };
    ALLOCATOR.set_limit(memory);
    worker::serve(target);
    ExitCode::SUCCESS
}

fn minimize(options: &Options, file: &Path) -> ExitCode {
    match campaign::minimize(options.targets[0], options.limits, file) {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!(
                "scalinglaws-fuzz: cannot minimize {}: {error}",
                file.display()
            );
            ExitCode::from(2)
        }
    }
}

pub fn main() -> ExitCode {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().map(String::as_str) == Some("--worker") {
        args.next();
        return worker(args);
    }
    let options = match parse(args) {
        Ok(options) => options,
        Err(error) => {
            eprintln!("scalinglaws-fuzz: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let code = match &options.minimize {
        Some(file) => minimize(&options, file),
        None => fuzz(&options),
    };
    scratch::remove_directory();
    code
}

fn fuzz(options: &Options) -> ExitCode {
    let mut failed = false;
    for target in &options.targets {
        let summary = campaign::run(&plan_for(*target, options));
        let seconds = summary.elapsed.as_secs_f64();
        println!(
            "{}: {} executions in {seconds:.1} s ({:.0}/s), corpus {} -> {} entries, {} distinct failure{}",
            target.name(),
            summary.executions,
            summary.executions as f64 / seconds.max(1e-9),
            summary.corpus_start,
            summary.corpus_end,
            summary.failures.len(),
            if summary.failures.len() == 1 { "" } else { "s" },
        );
        for (key, (input, path)) in &summary.failures {
            println!("  {key}: {} bytes in {}", input.len(), path.display());
        }
        failed |= !summary.failures.is_empty();
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
