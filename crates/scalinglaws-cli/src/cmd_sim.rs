//! `scalinglaws sim`: runs one of the lab's simulators and writes its rows as a CSV dataset
//! (stdout, or a file written whole). The lab names a bad setting by its key; this command
//! words it as the option that sets it.

use anyhow::Result;
use scalinglaws_lab::editing::{editing, editing_csv, EditingConfig};
use scalinglaws_lab::multi_index::{spectral_recovery, MultiIndexConfig, RecoveryRow};
use scalinglaws_lab::nvfp4::{snr_experiment, SnrConfig, SnrRow};
use scalinglaws_lab::recall::{recall_capacity, RecallConfig, RecallRow};
use scalinglaws_lab::sgd::{
    data_scaling, log_spaced_steps, scaling_csv, sgd_csv, simulate, Optimizer, ScalingConfig,
    SgdConfig, Shape,
};
use scalinglaws_lab::LabError;

use crate::args::sim::{
    EditingArgs, MultiIndexArgs, Nvfp4Args, RecallArgs, SgdArgs, SgdScalingArgs, SimArgs, Simulator,
};
use crate::input_error;
use crate::output::{self, Destination};

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

fn run_nvfp4(args: &Nvfp4Args) -> Result<()> {
    let defaults = SnrConfig::default();
    let config = SnrConfig {
        dimensions: match args.dimensions.is_empty() {
            true => defaults.dimensions,
            false => args.dimensions.clone(),
        },
        pairs: args.pairs.unwrap_or(defaults.pairs),
        correlation: args.correlation.unwrap_or(defaults.correlation),
        seed: args.run.seed,
    };
    let rows = snr_experiment(&config).map_err(worded)?;
    let lines = rows.iter().map(|row| row.csv_line());
    write_csv(&args.run.output, SnrRow::csv_header(), lines)
}

fn run_sgd(args: &SgdArgs) -> Result<()> {
    let defaults = SgdConfig::default();
    let steps = args.steps.unwrap_or(defaults.lrs.len());
    if steps == 0 || steps > MAX_SIM_STEPS {
        return Err(input_error(format!(
            "--steps: {steps} is out of range; give 1 to {MAX_SIM_STEPS} steps"
        )));
    }
    let per_decade = args.per_decade.unwrap_or(4);
    if !(1..=MAX_PER_DECADE).contains(&per_decade) {
        return Err(input_error(format!(
            "--per-decade: {per_decade} is out of range; give 1 to {MAX_PER_DECADE}"
        )));
    }
    let config = SgdConfig {
        dimension: args.dimension.unwrap_or(defaults.dimension),
        a: args.a.unwrap_or(defaults.a),
        b: args.b.unwrap_or(defaults.b),
        noise: args.noise.unwrap_or(defaults.noise),
        batch: args.batch.unwrap_or(defaults.batch),
        lrs: vec![args.lr.unwrap_or(defaults.lrs[0]); steps],
        log_steps: log_spaced_steps(steps, per_decade),
        seeds: args.seeds.unwrap_or(defaults.seeds),
        seed: args.run.seed,
    };
    let optimizers = match args.optimizer.is_empty() {
        true => Optimizer::ALL.to_vec(),
        false => args
            .optimizer
            .iter()
            .map(|name| Optimizer::parse(name.trim()))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(worded)?,
    };
    let rows = simulate(&config, &optimizers).map_err(worded)?;
    output::write(&destination(&args.run.output), &sgd_csv(&rows))
}

fn run_editing(args: &EditingArgs) -> Result<()> {
    let defaults = EditingConfig::default();
    let config = EditingConfig {
        rows: args.rows.unwrap_or(defaults.rows),
        cols: args.cols.unwrap_or(defaults.cols),
        edits: args.edits.unwrap_or(defaults.edits),
        feedback: args.feedback.unwrap_or(defaults.feedback),
        tolerance: args.tolerance.unwrap_or(defaults.tolerance),
        threshold: args.threshold.unwrap_or(defaults.threshold),
        seeds: args.seeds.unwrap_or(defaults.seeds),
        seed: args.run.seed,
        ..defaults
    };
    let result = editing(&config).map_err(worded)?;
    output::write(&destination(&args.run.output), &editing_csv(&result.rows))
}

fn run_multi_index(args: &MultiIndexArgs) -> Result<()> {
    let defaults = MultiIndexConfig::default();
    let config = MultiIndexConfig {
        dimensions: match args.dimensions.is_empty() {
            true => defaults.dimensions.clone(),
            false => args.dimensions.clone(),
        },
        kappas: match args.kappas.is_empty() {
            true => defaults.kappas.clone(),
            false => args.kappas.clone(),
        },
        directions: args.directions.unwrap_or(defaults.directions),
        strength_exponent: args.strength_exponent.unwrap_or(defaults.strength_exponent),
        noise: args.noise.unwrap_or(defaults.noise),
        seeds: args.seeds.unwrap_or(defaults.seeds),
        seed: args.run.seed,
    };
    let rows = spectral_recovery(&config).map_err(worded)?;
    let lines = rows.iter().map(|row| row.csv_line());
    write_csv(&args.run.output, RecoveryRow::csv_header(), lines)
}

fn run_recall(args: &RecallArgs) -> Result<()> {
    let defaults = RecallConfig::default();
    let config = RecallConfig {
        state_sizes: match args.state_sizes.is_empty() {
            true => defaults.state_sizes.clone(),
            false => args.state_sizes.clone(),
        },
        embedding: args.embedding.unwrap_or(defaults.embedding),
        context: args.context.unwrap_or(defaults.context),
        trials: args.trials.unwrap_or(defaults.trials),
        delta: args.delta.unwrap_or(defaults.delta),
        max_vocab: args.max_vocab.unwrap_or(defaults.max_vocab),
        seed: args.run.seed,
    };
    let rows = recall_capacity(&config).map_err(worded)?;
    let lines = rows.iter().map(|row| row.csv_line());
    write_csv(&args.run.output, RecallRow::csv_header(), lines)
}

/// Steps of `sim sgd` at most: the per-step learning rates are held (80 MB at the cap) before
/// the lab weighs the run's work against its own caps.
const MAX_SIM_STEPS: usize = 10_000_000;

/// Logged steps per decade at most: more than any plot can show.
const MAX_PER_DECADE: usize = 1_000;

fn run_sgd_scaling(args: &SgdScalingArgs) -> Result<()> {
    let hard = ScalingConfig::hard();
    let mut config = ScalingConfig::new(args.a.unwrap_or(hard.a), args.b.unwrap_or(hard.b));
    config.dimension = args.dimension.unwrap_or(config.dimension);
    if !args.horizons.is_empty() {
        config.horizons = args.horizons.clone();
    }
    if let Some(&longest) = config.horizons.iter().max().filter(|&&h| h > MAX_SIM_STEPS) {
        return Err(input_error(format!(
            "--horizons: {longest} is more than the {MAX_SIM_STEPS} steps a run may take; use fewer"
        )));
    }
    if let Some(fraction) = args.decay {
        config.shape = Shape::Decay { fraction };
    }
    config.seeds = args.seeds.unwrap_or(config.seeds);
    config.seed = args.run.seed;
    let result = data_scaling(&config).map_err(worded)?;
    output::write(&destination(&args.run.output), &scaling_csv(&result.points))
}

/// Writes a header and its rows as one CSV text.
fn write_csv(
    output: &Option<String>,
    header: &str,
    lines: impl Iterator<Item = String>,
) -> Result<()> {
    let mut text = String::from(header);
    for line in lines {
        text.push('\n');
        text.push_str(&line);
    }
    output::write(&destination(output), &text)
}

fn destination(output: &Option<String>) -> Destination {
    output
        .as_deref()
        .map_or(Destination::Stdout, |text| Destination::parse(text.trim()))
}

/// The lab's error with its setting worded as this command's option.
fn worded(error: LabError) -> anyhow::Error {
    let LabError::Setting { key, message } = error;
    let option = match key {
        "lrs" => "--lr/--steps".to_string(),
        "log_steps" => "--per-decade".to_string(),
        "decay_fraction" => "--decay".to_string(),
        "sgd_lrs" | "signsgd_lrs" => format!("the learning-rate grid ({key})"),
        key => format!("--{}", key.replace('_', "-")),
    };
    input_error(format!("{option}: {message}"))
}
