//! Cerebras-GPT (Dey et al. 2023, "Cerebras-GPT: Open Compute-Optimal Language Models Trained on
//! the Cerebras Wafer-Scale Cluster", arXiv:2304.03208) and the Pythia models it evaluated the same
//! way (Biderman et al. 2023), read from `tidy_zero_shot_table.csv`: the paper's 0-shot table as
//! carried by the Cerebras Model Zoo README (commit 244523a), with each model's Pile test
//! cross-entropy (nats/token) and training FLOPs (2 significant digits, as printed); see
//! PROVENANCE.md. Also read: `tidy_training_table.csv` (the standard models' tokens per parameter).
//!
//! Law: `power_offset` in x = training FLOPs (the table's column), E + A x^-α, which is the
//! paper's own law L(C) = (C/C0)^-a + E (its Fig. 1), rather than Chinchilla's: every
//! Cerebras-GPT model was trained to exactly 20 tokens per parameter (the training table), so N
//! and D are collinear and the N and D terms of Chinchilla's law cannot be told apart; Pythia's
//! models all saw the same ~300B tokens (D fixed) and the table gives no tokens per row. There is
//! no independent N/D split in either study.
//!
//! Sets (one final loss per model, no curves):
//! - study `cerebras_gpt`: `standard` (7 sizes, 111M–13B) and `mup` (the 5 µP models, 111M–2.7B,
//!   the same token budgets).
//! - study `pythia_pile` (a different original study, GPT-NeoX tokenizer, so per-token losses are
//!   not on Cerebras' token basis): `pythia` and `pythia_deduped` (8 sizes each, 70M–12B). The
//!   deduped 1.4B (1.889) is worse than the deduped 1B (1.858): a real non-monotonicity of the
//!   table, kept.
//!
//! Not used, counted in the notes: GPT-NeoX-20B and GPT-J-6B (single reference models of other
//! studies) and the 6 OPT rows (no Pile loss). The FLOPs of the README's training table
//! (2.5e18…2.1e22) follow another counting convention than the eval table's (2.6e18…2.3e22); the
//! eval table's, which the paper's law is fitted to, are used for every family.

use std::collections::BTreeMap;
use std::path::Path;

use super::{file, fit_data, read, StudySet};

/// The families used: table label, study id, set name.
const FAMILIES: [(&str, &str, &str); 4] = [
    ("Cerebras", "cerebras_gpt", "standard"),
    ("Cerebras muP", "cerebras_gpt", "mup"),
    ("Pythia", "pythia_pile", "pythia"),
    ("Pythia deduped", "pythia_pile", "pythia_deduped"),
];

/// A family needs this many models with a loss to be a set.
const MIN_ROWS: usize = 4;

pub fn load(folder: &Path) -> Result<Vec<StudySet>, String> {
    let table = read(&file(folder, "tidy_zero_shot_table.csv")?)?;
    let training = read(&file(folder, "tidy_training_table.csv")?)?;
    let per_param = training
        .positive("tokens_per_param", "corpus")
        .map_err(|e| e.to_string())?;
    let (tpp_low, tpp_high) = per_param
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(*v), hi.max(*v))
        });
    let text = |name: &str| table.text(name).map_err(|e| e.to_string());
    let numeric = |name: &str| table.numeric_or_missing(name).map_err(|e| e.to_string());
    let family = text("family")?;
    let (flops, loss, n) = (
        numeric("train_flops")?,
        numeric("pile_test_xent")?,
        numeric("N_params_nominal")?,
    );
    let ok = |v: f64| v.is_finite() && v > 0.0;

    // Rows of families not used, by family, for the notes.
    let mut unused: BTreeMap<&str, usize> = BTreeMap::new();
    for label in &family {
        if FAMILIES.iter().all(|f| f.0 != label) {
            *unused.entry(label.as_str()).or_default() += 1;
        }
    }
    let unused_note = unused
        .iter()
        .map(|(label, count)| format!("{count} {label}"))
        .collect::<Vec<_>>()
        .join(", ");

    let mut sets = Vec::new();
    for (label, study, set) in FAMILIES {
        let mut rows: BTreeMap<(u64, u64), f64> = BTreeMap::new();
        let (mut read_rows, mut invalid) = (0, 0);
        for row in 0..family.len() {
            if family[row] != label {
                continue;
            }
            read_rows += 1;
            if !(ok(flops[row]) && ok(loss[row]) && ok(n[row])) {
                invalid += 1;
                continue;
            }
            // (FLOPs, N) as bits (monotone for positive floats) orders the rows by compute; the
            // table has one row per model.
            if rows
                .insert((flops[row].to_bits(), n[row].to_bits()), loss[row])
                .is_some()
            {
                return Err(format!("{label}: two rows at {} FLOPs", flops[row]));
            }
        }
        if rows.len() < MIN_ROWS {
            continue;
        }
        let x: Vec<f64> = rows.keys().map(|k| f64::from_bits(k.0)).collect();
        let tokens = if study == "cerebras_gpt" {
            let tpp = if tpp_low == tpp_high {
                format!("{tpp_low}")
            } else {
                format!("{tpp_low}–{tpp_high}")
            };
            format!("{tpp} tokens/param for every model of the training table, so N and D are collinear")
        } else {
            "all ~300B tokens (D fixed)".to_string()
        };
        let note = format!(
            "{read_rows} {label} rows read, {invalid} without a finite positive loss or FLOPs dropped; \
             x = training FLOPs {:.1e}–{:.1e} ({:.2} decades), {} sizes; {tokens}; \
             rows of the table not used: {unused_note}",
            x[0],
            x[x.len() - 1],
            (x[x.len() - 1] / x[0]).log10(),
            rows.len(),
        );
        sets.push(StudySet {
            study: study.into(),
            set: set.into(),
            law: "power_offset".into(),
            data: fit_data(vec![x], rows.values().copied().collect()),
            note,
        });
    }
    Ok(sets)
}
