//! Loss curves collected by ColPret for "A Hitchhiker's Guide to Scaling Law Estimation"
//! (Choshen, Zhang & Andreas 2024, arXiv:2410.11840; github.com/IBM/ColPret at 16f23bb), read
//! from the folder's `tidy_loss_curves.csv` (made by its `make_tidy.py` from ColPret's files; see
//! PROVENANCE.md). Each family is a different original study, so each is a study of its own here,
//! with one set (one loss kind) fitted with Chinchilla's law on checkpoints (N, D = tokens seen,
//! loss), as the guide fits scaling laws to intermediate checkpoints:
//!
//! - `hitchhiker_gpt3` / `val_loss`: GPT-3's training curves (Brown et al. 2020, Fig. 4.1),
//!   **digitised** by ColPret; 8 sizes, N = the nominal total parameters of the GPT-3 paper's
//!   Table 2.1, D = tokens (the digitised x is billions of tokens), loss = the validation loss
//!   on the deduplicated held-out split of the training distribution (`train_loss`, the same
//!   curves on training batches, is not used: one loss kind per family). The figure's points are
//!   stacked near-duplicates at the same x (curve thickness, ±0.01 nats): rows with the same
//!   (model, tokens) are averaged into one checkpoint.
//! - `hitchhiker_opt` / `val_ln_ppl`: OPT checkpoints of Xia et al. 2022 ("Training
//!   Trajectories of Language Models Across Scales", arXiv:2212.09803); 6 sizes, N from the model
//!   name, D = 10^`num_token` (the original column is log10 tokens), loss = ln(validation
//!   perplexity) (nats/token).
//! - `hitchhiker_pile_t5` / `eval_pile_r_denoiser`: EleutherAI's Pile-T5 (encoder-decoder,
//!   span corruption), parsed from the raw TensorBoard events (ColPret's aggregated `t5_pile.csv`
//!   is corrupted and not used); 4 sizes with exact parameter counts, loss = the in-loop eval
//!   loss per non-padding target token on `pile_r_denoiser`, D = step × 1e6 (ColPret's
//!   convention; the true tokens per step were not re-checked, a constant factor that Chinchilla's
//!   law absorbs in B).
//!
//! Skipped (fewer than 3 model sizes, so no size extrapolation to test): `olmo` (OLMo-1B and
//! OLMo-7B/7B-Twin-2T; its eval sets also differ between the sizes) and `k2` (K2-65B alone, with
//! spread-out token counts). Their rows are counted in every set's note.
//!
//! Per model curve, in this order: rows without a finite positive N, tokens or loss are dropped;
//! duplicate tokens are averaged; checkpoints before 10 % of the run's training (tokens below 0.1
//! × the model's last checkpoint, taken as the end of its run) are dropped, following the
//! guide's advice to leave out the earliest part of training; the curve is thinned to at most
//! [`MAX_CHECKPOINTS`] checkpoints nearest a log-spaced grid over its kept token range
//! (deterministic, first and last kept). Every drop is counted in the note.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{file, fit_data, read, StudySet};

/// At most this many checkpoints per model curve.
pub(super) const MAX_CHECKPOINTS: usize = 40;

/// Checkpoints before this fraction of a run's training are dropped.
pub(super) const EARLY_FRACTION: f64 = 0.1;

/// A family used here: its `family` label in the tidy file, the study id, the one loss kind
/// fitted, and the set name.
struct Family {
    family: &'static str,
    study: &'static str,
    loss_kind: &'static str,
    set: &'static str,
}

const FAMILIES: [Family; 3] = [
    Family {
        family: "gpt3",
        study: "hitchhiker_gpt3",
        loss_kind: "val_loss",
        set: "val_loss",
    },
    Family {
        family: "opt",
        study: "hitchhiker_opt",
        loss_kind: "val_ln_ppl",
        set: "val_ln_ppl",
    },
    Family {
        family: "pile_t5",
        study: "hitchhiker_pile_t5",
        loss_kind: "eval_pile_r_denoiser_per_target_token",
        set: "eval_pile_r_denoiser",
    },
];

/// A family needs this many distinct model sizes to be a set.
const MIN_SIZES: usize = 3;

pub fn load(folder: &Path) -> Result<Vec<StudySet>, String> {
    let table = read(&file(folder, "tidy_loss_curves.csv")?)?;
    let text = |name: &str| table.text(name).map_err(|e| e.to_string());
    let numeric = |name: &str| table.numeric_or_missing(name).map_err(|e| e.to_string());
    let (family, model, kind) = (text("family")?, text("model")?, text("loss_kind")?);
    let (n, tokens, loss) = (numeric("N_params")?, numeric("tokens")?, numeric("loss")?);

    // The families not used here, with their rows and sizes, for every set's note.
    let mut unused: BTreeMap<&str, (usize, BTreeSet<u64>)> = BTreeMap::new();
    for row in 0..family.len() {
        if FAMILIES.iter().all(|f| f.family != family[row]) {
            let entry = unused.entry(family[row].as_str()).or_default();
            entry.0 += 1;
            if n[row].is_finite() {
                entry.1.insert(n[row] as u64);
            }
        }
    }
    let unused_note = unused
        .iter()
        .map(|(name, (rows, sizes))| format!("{name}: {rows} rows, {} sizes", sizes.len()))
        .collect::<Vec<_>>()
        .join("; ");

    let mut sets = Vec::new();
    for f in &FAMILIES {
        let mut read_rows = 0;
        let mut other_kind = 0;
        let mut invalid = 0;
        // model (by size, then name) -> tokens (as bits: monotone for positive floats) -> losses
        let mut curves: BTreeMap<(u64, String), BTreeMap<u64, Vec<f64>>> = BTreeMap::new();
        for row in 0..family.len() {
            if family[row] != f.family {
                continue;
            }
            read_rows += 1;
            if kind[row] != f.loss_kind {
                other_kind += 1;
                continue;
            }
            let ok = |v: f64| v.is_finite() && v > 0.0;
            if !(ok(n[row]) && ok(tokens[row]) && ok(loss[row])) {
                invalid += 1;
                continue;
            }
            curves
                .entry((n[row] as u64, model[row].clone()))
                .or_default()
                .entry(tokens[row].to_bits())
                .or_default()
                .push(loss[row]);
        }
        let sizes: BTreeSet<u64> = curves.keys().map(|(size, _)| *size).collect();
        if sizes.len() < MIN_SIZES {
            continue;
        }
        let mut merged = 0;
        let mut early = 0;
        let mut thinned = 0;
        let (mut col_n, mut col_d, mut col_loss) = (Vec::new(), Vec::new(), Vec::new());
        for ((size, _), curve) in &curves {
            let points: Vec<(f64, f64)> = curve
                .iter()
                .map(|(bits, losses)| {
                    merged += losses.len() - 1;
                    (
                        f64::from_bits(*bits),
                        losses.iter().sum::<f64>() / losses.len() as f64,
                    )
                })
                .collect();
            let last = points.last().map_or(0.0, |p| p.0);
            let kept: Vec<(f64, f64)> = points
                .iter()
                .copied()
                .filter(|p| p.0 >= EARLY_FRACTION * last)
                .collect();
            early += points.len() - kept.len();
            let chosen = log_thin(
                &kept.iter().map(|p| p.0).collect::<Vec<_>>(),
                MAX_CHECKPOINTS,
            );
            thinned += kept.len() - chosen.len();
            for i in chosen {
                col_n.push(*size as f64);
                col_d.push(kept[i].0);
                col_loss.push(kept[i].1);
            }
        }
        let note = format!(
            "{read_rows} {} rows read; {other_kind} of other loss kinds not used; {invalid} without a finite positive N, tokens or loss; \
             {merged} duplicate (model, tokens) rows averaged; {early} checkpoints before 10% of the run dropped; \
             {thinned} thinned out (≤{MAX_CHECKPOINTS} log-spaced per model); {} checkpoints kept; {}; \
             families not used (<{MIN_SIZES} sizes): {unused_note}",
            f.family,
            col_loss.len(),
            scale_summary(&col_n, &col_d),
        );
        sets.push(StudySet {
            study: f.study.into(),
            set: f.set.into(),
            law: "chinchilla".into(),
            data: fit_data(vec![col_n, col_d], col_loss),
            note,
        });
    }
    Ok(sets)
}

/// Indices of at most `max` of the increasing positive `x`: for each point of a grid of `max`
/// log-spaced values from the first to the last x, the nearest x (in log; ties to the lower
/// index), without repeats. Keeps everything when there are `max` or fewer.
pub(super) fn log_thin(x: &[f64], max: usize) -> Vec<usize> {
    if x.len() <= max {
        return (0..x.len()).collect();
    }
    let max = max.max(2);
    let logs: Vec<f64> = x.iter().map(|v| v.ln()).collect();
    let (first, last) = (logs[0], logs[logs.len() - 1]);
    let mut chosen = BTreeSet::new();
    let mut at = 0;
    for k in 0..max {
        let target = first + (last - first) * k as f64 / (max - 1) as f64;
        // The grid increases, so the nearest index never moves back.
        while at + 1 < logs.len() && (logs[at + 1] - target).abs() < (logs[at] - target).abs() {
            at += 1;
        }
        chosen.insert(at);
    }
    chosen.into_iter().collect()
}

/// "6ND a–b (c decades), k distinct N": the compute-equivalent span of a set.
pub(super) fn scale_summary(n: &[f64], d: &[f64]) -> String {
    let compute: Vec<f64> = n.iter().zip(d).map(|(n, d)| 6.0 * n * d).collect();
    let low = compute.iter().copied().fold(f64::INFINITY, f64::min);
    let high = compute.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sizes: BTreeSet<u64> = n.iter().map(|v| v.to_bits()).collect();
    format!(
        "6ND {low:.2e}–{high:.2e} ({:.2} decades), {} distinct N",
        (high / low).log10(),
        sizes.len()
    )
}
