//! Chinchilla's approach 1 (the envelope of training curves) against Gemstones (McLeish et al.
//! 2025, testdata/gemstones, MIT): on the 22 models' dense "hot" checkpoints
//! (`wandb_df_for_fitting_hot_477.jsonl`, step > 0) with the authors' FLOPs count, the lower
//! convex hull gives their shipped exponents N* ∝ C^0.49938 and D* ∝ C^0.48099
//! (`parameters/approach_1_linear_regression_{params,tokens}.json`).

use std::path::PathBuf;

use scalinglaws::analysis::envelope::{envelope, EnvelopeData, EnvelopeMethod, EnvelopeSettings};
use scalinglaws::data::Dataset;

fn gemstones(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/gemstones")
        .join(path)
}

/// FLOPs per token of a Gemstones model (`flops_per_token_gqa` in the authors'
/// `plotters/plotting_utils.py`: GQA with 2 queries per group, head size 128, GEGLU MLP of 4×
/// width, sequence 2048, vocabulary 50304, flash-attention backward).
fn flops_per_token(width: f64, depth: f64) -> f64 {
    let (s, head, vocab) = (2048.0, 128.0, 50304.0);
    let q = width / head;
    let kv = 2.0 * q / 2.0;
    let mut attention = 2.0 * s * (q + kv) * width * head + 3.5 * s * (q + kv / 2.0) * head;
    let kq_logits = s * s * head * q;
    let softmax = 3.0 * s * s * q;
    let softmax_q_red = 2.0 * s * s * head * q;
    let final_linear = 2.0 * s * width * head * q;
    let attn_bwd =
        (2.0 * attention + 2.5 * (kq_logits + softmax + softmax_q_red) + 2.0 * final_linear)
            * depth;
    attention += kq_logits + softmax + softmax_q_red + final_linear;
    let ffw = 4.0 * width;
    let dense = 6.0 * s * width * ffw + 10.0 * s * ffw + 2.0 * width * s;
    let rmsnorm = 14.0 * width * s;
    let final_rms = 7.0 * width * s;
    let logits = 2.0 * s * width * vocab;
    let nonattn_bwd = 2.0 * (depth * (dense + rmsnorm) + final_rms + logits);
    let forward = depth * (attention + dense + rmsnorm) + final_rms + logits;
    (forward + attn_bwd + nonattn_bwd) / s
}

fn checkpoints() -> EnvelopeData {
    let data = Dataset::read(
        &gemstones("wandb_dfs/wandb_df_for_fitting_hot_477.jsonl"),
        None,
    )
    .unwrap();
    let step = data.numeric("step").unwrap();
    let keep: Vec<bool> = step.iter().map(|s| *s > 0.0).collect();
    let data = data.filter(&keep);
    let (width, depth) = (
        data.numeric("width").unwrap(),
        data.numeric("depth").unwrap(),
    );
    let tokens = data.positive("tokens", "test").unwrap();
    let compute = (0..tokens.len())
        .map(|i| flops_per_token(width[i], depth[i]) * tokens[i])
        .collect();
    EnvelopeData {
        compute,
        size: data.positive("params_active_precise", "test").unwrap(),
        loss: data.positive("final_loss", "test").unwrap(),
        tokens: Some(tokens),
        run: Some(data.text("run_name").unwrap()),
    }
}

#[test]
fn the_hull_reproduces_gemstones_approach_1_exponents() {
    let data = checkpoints();
    let settings = EnvelopeSettings {
        method: EnvelopeMethod::Hull,
        bootstrap: 200,
        seed: 0,
        level: 0.95,
        interrupt: Default::default(),
    };
    let result = envelope(&data, &settings).unwrap();
    let (a, b) = (result.n_star.unwrap(), result.d_star.unwrap());
    println!(
        "Gemstones hull: {} checkpoints of {} runs, {} hull points; a = {:.8} {:?} (published 0.49938), b = {:.8} {:?} (published 0.48099)",
        result.checkpoints,
        result.runs,
        result.points.len(),
        a.exponent,
        a.ci,
        b.exponent,
        b.ci
    );
    assert!(
        (a.exponent - 0.499380216082636).abs() < 1e-6,
        "a = {}",
        a.exponent
    );
    assert!(
        (b.exponent - 0.4809888232129201).abs() < 1e-6,
        "b = {}",
        b.exponent
    );
    let [lo, hi] = a.ci.unwrap();
    assert!(lo < a.exponent && a.exponent < hi);
}

#[test]
fn the_grid_envelope_agrees_with_the_hull_on_gemstones() {
    let data = checkpoints();
    let settings = EnvelopeSettings {
        method: EnvelopeMethod::Grid(1500),
        bootstrap: 0,
        seed: 0,
        level: 0.95,
        interrupt: Default::default(),
    };
    let result = envelope(&data, &settings).unwrap();
    let a = result.n_star.unwrap().exponent;
    println!(
        "Gemstones grid (1500 budgets): {} points, a = {a:.5}",
        result.points.len()
    );
    assert!((a - 0.499380216082636).abs() < 0.1, "a = {a}");
}

/// The README's `--derive` for Gemstones' compute is the authors' count expanded: FLOPs per token
/// = 90·L·W² + 21855.75·L·W + 301845·W for width W and depth L, exactly.
#[test]
fn the_readmes_flops_expression_is_the_authors_count() {
    for width in [
        256.0, 512.0, 768.0, 1024.0, 1280.0, 1536.0, 1792.0, 2048.0, 2560.0, 3072.0,
    ] {
        for depth in [1.0, 7.0, 11.0, 28.0, 50.0, 80.0] {
            let expanded =
                90.0 * depth * width * width + 21855.75 * depth * width + 301845.0 * width;
            let authors = flops_per_token(width, depth);
            assert!(
                ((expanded - authors) / authors).abs() < 1e-12,
                "W = {width}, L = {depth}: {expanded} against {authors}"
            );
        }
    }
}
