//! `scalinglaws optimal`: the compute-optimal model size and token count of a saved fit (or of
//! a catalog law with published parameters) at one or more training budgets, or the cheapest
//! allocation that reaches a target loss; under caps on memory, active parameters and data, and
//! with expected inference tokens. The workflow, its defaults and its rules are the library's
//! (`scalinglaws::workflow::optimal`); this file holds the arguments and turns them into its
//! spec (the numbers and lists as typed, `NAME[P=V,...]` for a law with its parameters).

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use scalinglaws::interrupt::Interrupt;
use scalinglaws::workflow::compare::DEFAULT_FLOPS;
use scalinglaws::workflow::optimal::{flops, total_params, GivenLaw, OptimalJob, OptimalWorkflow};
use scalinglaws::workflow::Ctx;

use crate::config::values::{budget_values, held_values, numbers, optional_number};
use crate::config::{destination, LawSpec};
use crate::workflow::{run as run_workflow, Io};

#[derive(Debug, Args)]
pub struct OptimalArgs {
    /// A fit written by `scalinglaws fit --json PATH` (of a law with variables N and D).
    #[arg(
        value_name = "FIT.json",
        required_unless_present = "law",
        conflicts_with = "law"
    )]
    pub fit: Option<PathBuf>,

    /// Instead of a fit: a catalog law with every parameter given, e.g.
    /// "chinchilla[E=1.82,A=482,alpha=0.348,B=2085,beta=0.366]".
    #[arg(long, value_name = "NAME[P=V,...]")]
    pub law: Option<String>,

    /// Training budgets in FLOPs: 5.88e23, or a list 1e21,1e22,1e23 (repeatable).
    #[arg(long = "budget", value_name = "C[,C2,...]", allow_hyphen_values = true)]
    pub budgets: Vec<String>,

    /// Instead of budgets: losses to reach with the least compute (repeatable).
    #[arg(
        long = "target-loss",
        value_name = "L[,L2,...]",
        allow_hyphen_values = true,
        conflicts_with = "budgets"
    )]
    pub target_losses: Vec<String>,

    /// Training FLOPs as a formula of N and D.
    #[arg(long, value_name = "FORMULA", default_value = DEFAULT_FLOPS)]
    pub flops: String,

    /// Hold another variable of the law at a value, e.g. unique tokens U=25e9; several values
    /// (E=1,8,64) are optimised over (repeatable).
    #[arg(long = "set", value_name = "VAR=V[,V2,...]")]
    pub held: Vec<String>,

    /// Total parameters as a formula of N and the --set variables [default: N], e.g.
    /// "N*(4+9*E)/13" for Switch-style MoE layers without embeddings.
    #[arg(long = "total-params", value_name = "FORMULA")]
    pub total_params: Option<String>,

    /// Cap on the total parameters (what fits in memory).
    #[arg(long = "max-params", value_name = "P")]
    pub max_params: Option<String>,

    /// Cap on N, the parameters each token passes through (inference cost per token).
    #[arg(long = "max-active", value_name = "P")]
    pub max_active: Option<String>,

    /// Cap on the training tokens D (e.g. the unique data available).
    #[arg(long = "max-tokens", value_name = "U")]
    pub max_tokens: Option<String>,

    /// Tokens the model will serve over its life, costing 2·N per token (Sardana et al.
    /// 2024): a budget then covers training and inference, and a target loss is reached at the
    /// least lifetime compute.
    #[arg(
        long = "inference-tokens",
        value_name = "T",
        allow_hyphen_values = true
    )]
    pub inference_tokens: Option<String>,

    /// Level of the intervals [default: the fit's bootstrap level, else its calibration's,
    /// else 0.95].
    #[arg(long, value_name = "P")]
    pub level: Option<f64>,

    /// Write the allocations as JSON to PATH (the table still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}

pub fn run(args: OptimalArgs) -> Result<()> {
    if args.fit.as_ref().is_some_and(|p| p.as_os_str().is_empty()) {
        return Err(crate::input_error(
            "FIT.json '': give the path of a saved fit",
        ));
    }
    let given = match &args.law {
        Some(text) => {
            let (law, params) = LawSpec::published(text)?;
            Some(GivenLaw { law, params })
        }
        None => None,
    };
    let held = held_values(&args.held)?;
    let spec = OptimalJob {
        given,
        budgets: budget_values(&args.budgets)?,
        target_losses: numbers("--target-loss", &args.target_losses)?,
        flops: flops(&args.flops)?,
        total_params: total_params(args.total_params.as_deref(), &held)?,
        held,
        inference_tokens: optional_number("--inference-tokens", args.inference_tokens.as_deref())?
            .unwrap_or(0.0),
        max_params: optional_number("--max-params", args.max_params.as_deref())?,
        max_active: optional_number("--max-active", args.max_active.as_deref())?,
        max_tokens: optional_number("--max-tokens", args.max_tokens.as_deref())?,
        level: args.level,
        interrupt: Interrupt::default(),
    };
    let io = Io {
        path: args.fit.unwrap_or_default(),
        delimiter: None,
        json: destination(args.json.as_deref()),
    };
    run_workflow::<OptimalWorkflow>(&io, &spec, &Ctx::default())
}
