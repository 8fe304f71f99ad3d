//! Clark et al. 2022, "Unified Scaling Laws for Routed Language Models" (ICML 2022,
//! arXiv:2202.01169; data google-deepmind/scaling_laws_for_routing, CC-BY 4.0): dense and routed
//! (Hash, S-Base, RL-R) decoder-only transformers on MassiveText, all trained for the same
//! ~250k steps.
//!
//! Read: `tidy_final_step.csv` (the provenance's table of the last evaluation of each of the 223
//! `hyper_id`s, the points the paper's laws are fitted to). Target: `loss_validation` (held-out
//! MassiveText, nats/token, the loss of the paper's laws). N = `dense_parameter_count` (the
//! parameters one token sees, the paper's N; not `total_parameter_count`). D = the run's final
//! step × 524,288 tokens per step. Neither the data nor the provenance give tokens per step; the
//! figure is the paper's setup (~130B tokens over 250k steps: 256 sequences of 2048 tokens =
//! 2^19 a step), not re-checked against the paper here, and `flops_per_step` agrees with it to
//! 6–15 % (2^19 tokens × forward FLOPs per token: 2N, attention 4·layers·2048·d_attn, a
//! 32k-entry embedding).
//!
//! Sets: the dense baselines (`num_experts` = 1, `flop_increase` = 1) as one set, and the routed
//! runs with k = 1 and every other block routed, one set per (router type, expert count E): at a
//! fixed E the paper's law log L = a log N + b log Ê + c log N log Ê + d is a power law in N, so a
//! Chinchilla-form law in (N, D) describes one E, while pooling expert counts needs E as a
//! variable. A configuration needs at least 4 distinct N to be a set; the others (k = 2 or 4,
//! routing frequencies 1/12 to 1, the widened-FFN dense controls: 1–3 runs at one or two sizes
//! each) are dropped and counted. Runs sharing a configuration and N are averaged (the 130M
//! dense model exists only as seeds 1, 2, 3, no seed 42, so its three seeds are averaged; the
//! paper's notebook filters `seed == 42` and so silently loses that size).
//!
//! Law: every run has the same step budget, so within a set D is one value (to 0.4 %; two runs
//! stop at 248k and 250k steps): a Chinchilla law's B·D^-β is not separable from E, and the
//! sets scale N alone (5–6 sizes, 16.5M–1.31B, 1.9 decades). So each set is fitted with the
//! saturating power law in x = N (`power_offset`, the paper's per-E law with an irreducible
//! term), whose scale, N, measures decades as 6·N·D would at one D. Intermediate evaluations would
//! give a D sweep but lie on one learning-rate schedule run for the full 250k steps (undocumented
//! in the provenance), not on runs trained to that D, so they are not used.

use std::collections::BTreeMap;
use std::path::Path;

use super::{file, fit_data, read, StudySet};

const STUDY: &str = "routing_clark2022";
/// 256 sequences × 2048 tokens (the paper's ~130B tokens over 250k steps).
const TOKENS_PER_STEP: f64 = 524_288.0;
/// Fewest distinct N for a configuration to be a set.
const MIN_SIZES: usize = 4;

/// A training configuration: router, expert count, k, routing frequency, FFN widening.
type Config = (String, u64, u64, String, u64);

pub fn load(folder: &Path) -> Result<Vec<StudySet>, String> {
    let table = read(&file(folder, "tidy_final_step.csv")?)?;
    let text = |name: &str| table.text(name).map_err(|e| e.to_string());
    let numeric = |name: &str| table.numeric(name).map_err(|e| e.to_string());
    let positive = |name: &str| table.positive(name, "corpus").map_err(|e| e.to_string());
    let (router, frequency) = (text("router_type")?, text("routing_frequency")?);
    let (experts, k, widening) = (
        numeric("num_experts")?,
        numeric("k")?,
        numeric("flop_increase")?,
    );
    let (n, step) = (positive("dense_parameter_count")?, positive("step")?);
    let loss = table
        .numeric_or_missing("loss_validation")
        .map_err(|e| e.to_string())?;

    // Per configuration, per N: the (D, loss) of each run.
    type Runs = BTreeMap<u64, Vec<(f64, f64)>>;
    let mut configs: BTreeMap<Config, Runs> = BTreeMap::new();
    let mut no_loss = 0;
    for i in 0..loss.len() {
        if !(loss[i].is_finite() && loss[i] > 0.0) {
            no_loss += 1;
            continue;
        }
        let config = (
            router[i].clone(),
            experts[i] as u64,
            k[i] as u64,
            frequency[i].clone(),
            widening[i] as u64,
        );
        configs
            .entry(config)
            .or_default()
            .entry(n[i] as u64)
            .or_default()
            .push((step[i] * TOKENS_PER_STEP, loss[i]));
    }
    let (kept, few): (Vec<_>, Vec<_>) = configs
        .into_iter()
        .partition(|(_, runs)| runs.len() >= MIN_SIZES);
    let few_runs: usize = few
        .iter()
        .map(|(_, runs)| runs.values().map(Vec::len).sum::<usize>())
        .sum();
    let study_note = format!(
        "study: {} runs; {few_runs} in {} configurations with fewer than {MIN_SIZES} sizes \
         (k > 1, routing frequency other than 1/2, widened dense FFN) and {no_loss} without a \
         finite loss dropped",
        loss.len(),
        few.len()
    );

    Ok(kept
        .into_iter()
        .map(|((router, experts, k, frequency, widening), runs)| {
            let default = k == 1 && frequency == "0.5" && widening == 1;
            let mut set = if router == "Dense" {
                "dense".to_string()
            } else {
                format!("{router}/E{experts}")
            };
            if !default {
                set.push_str(&format!("/k{k}/rf{frequency}/ffn{widening}"));
            }
            let runs_read: usize = runs.values().map(Vec::len).sum();
            let mean = |values: &[(f64, f64)], pick: fn(&(f64, f64)) -> f64| {
                values.iter().map(pick).sum::<f64>() / values.len() as f64
            };
            let sizes: Vec<f64> = runs.keys().map(|&n| n as f64).collect();
            let losses: Vec<f64> = runs.values().map(|r| mean(r, |p| p.1)).collect();
            let note = format!(
                "{runs_read} final-step runs{} at {} sizes ({} replicates averaged); \
                 power_offset in x = N = dense_parameter_count (one token budget for every \
                 run, so a D term is not separable from E); loss_validation; {study_note}",
                if router == "Dense" {
                    ""
                } else {
                    " (k = 1, every other block routed)"
                },
                runs.len(),
                runs_read - runs.len(),
            );
            StudySet {
                study: STUDY.into(),
                set,
                law: "power_offset".into(),
                data: fit_data(vec![sizes], losses),
                note,
            }
        })
        .collect())
}
