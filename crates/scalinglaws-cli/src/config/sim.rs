//! `sim`'s configuration: each simulator's options as the lab's settings (the lab's own default
//! for every option left out), where the dataset and the figure go, and the lab's errors worded
//! as this command's options.

use anyhow::Result;
use scalinglaws_lab::editing::EditingConfig;
use scalinglaws_lab::multi_index::MultiIndexConfig;
use scalinglaws_lab::nvfp4::SnrConfig;
use scalinglaws_lab::recall::RecallConfig;
use scalinglaws_lab::sgd::{
    check_horizons, constant_run, Optimizer, ScalingConfig, SgdConfig, Shape,
};
use scalinglaws_lab::LabError;

use super::plot::picture;
use crate::args::sim::{
    EditingArgs, MultiIndexArgs, Nvfp4Args, RecallArgs, RunArgs, SgdArgs, SgdScalingArgs,
};
use crate::figure;
use crate::input_error;
use crate::output::Destination;

/// Where a simulation's dataset (CSV) and its figure (if asked for) go.
#[derive(Debug)]
pub struct SimOutputs {
    pub csv: Destination,
    pub plot: Option<figure::Output>,
}

/// `-o` (stdout by default) and `--plot`, refusing both on standard output and a figure of
/// no known format before the simulation runs.
pub fn sim_outputs(run: &RunArgs) -> Result<SimOutputs> {
    let csv = run
        .output
        .as_deref()
        .map_or(Destination::Stdout, |text| Destination::parse(text.trim()));
    let plot = run.plot.as_deref().map(picture);
    if let Some(output) = &plot {
        figure::check_format(output)?;
    }
    if csv == Destination::Stdout
        && plot
            .as_ref()
            .is_some_and(|p| p.destination == Destination::Stdout)
    {
        return Err(input_error(
            "--plot -: the dataset goes to standard output too (-o, by default); give -o PATH \
             for the dataset or --plot FILE for the figure",
        ));
    }
    Ok(SimOutputs { csv, plot })
}

/// `sim nvfp4`.
pub fn nvfp4_config(args: &Nvfp4Args) -> SnrConfig {
    let defaults = SnrConfig::default();
    SnrConfig {
        dimensions: match args.dimensions.is_empty() {
            true => defaults.dimensions,
            false => args.dimensions.clone(),
        },
        pairs: args.pairs.unwrap_or(defaults.pairs),
        correlation: args.correlation.unwrap_or(defaults.correlation),
        seed: args.run.seed,
        tensor_scale: !args.no_tensor_scale,
    }
}

/// `sim sgd`: the run and the optimizers (all three by default).
pub fn sgd_config(args: &SgdArgs) -> Result<(SgdConfig, Vec<Optimizer>)> {
    let defaults = SgdConfig::default();
    let (lrs, log_steps) = constant_run(args.lr, args.steps, args.per_decade).map_err(worded)?;
    let config = SgdConfig {
        dimension: args.dimension.unwrap_or(defaults.dimension),
        a: args.a.unwrap_or(defaults.a),
        b: args.b.unwrap_or(defaults.b),
        noise: args.noise.unwrap_or(defaults.noise),
        batch: args.batch.unwrap_or(defaults.batch),
        lrs,
        log_steps,
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
    Ok((config, optimizers))
}

/// `sim sgd-scaling`: the hard task's defaults, with `--a`/`--b` choosing another.
pub fn scaling_config(args: &SgdScalingArgs) -> Result<ScalingConfig> {
    let hard = ScalingConfig::hard();
    let mut config = ScalingConfig::new(args.a.unwrap_or(hard.a), args.b.unwrap_or(hard.b));
    config.dimension = args.dimension.unwrap_or(config.dimension);
    if !args.horizons.is_empty() {
        config.horizons = args.horizons.clone();
    }
    check_horizons(&config.horizons).map_err(worded)?;
    if let Some(fraction) = args.decay {
        config.shape = Shape::Decay { fraction };
    }
    config.seeds = args.seeds.unwrap_or(config.seeds);
    config.seed = args.run.seed;
    Ok(config)
}

/// `sim editing`.
pub fn editing_config(args: &EditingArgs) -> EditingConfig {
    let defaults = EditingConfig::default();
    EditingConfig {
        rows: args.rows.unwrap_or(defaults.rows),
        cols: args.cols.unwrap_or(defaults.cols),
        edits: args.edits.unwrap_or(defaults.edits),
        feedback: args.feedback.unwrap_or(defaults.feedback),
        tolerance: args.tolerance.unwrap_or(defaults.tolerance),
        threshold: args.threshold.unwrap_or(defaults.threshold),
        seeds: args.seeds.unwrap_or(defaults.seeds),
        seed: args.run.seed,
        ..defaults
    }
}

/// `sim multi-index`.
pub fn multi_index_config(args: &MultiIndexArgs) -> MultiIndexConfig {
    let defaults = MultiIndexConfig::default();
    MultiIndexConfig {
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
    }
}

/// `sim recall`.
pub fn recall_config(args: &RecallArgs) -> RecallConfig {
    let defaults = RecallConfig::default();
    RecallConfig {
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
    }
}

/// The lab's error with its setting worded as this command's option.
pub fn worded(error: LabError) -> anyhow::Error {
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
