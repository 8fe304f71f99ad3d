//! The learning-rate sweep of the "misfitting" study: 1–5 peak learning rates per (N, D) cell
//! with C4 eval losses. The law is fitted to the frontier: the best learning rate's loss in each
//! cell (rows without a finite loss, diverged runs, are counted and dropped).

use std::collections::BTreeMap;
use std::path::Path;

use super::{file, fit_data, read, StudySet};

pub fn load(folder: &Path) -> Result<Vec<StudySet>, String> {
    let table = read(&file(folder, "lr_sweep_dense_tidy.csv")?)?;
    let numeric = |name: &str| table.numeric(name).map_err(|e| e.to_string());
    let (n, d) = (numeric("N")?, numeric("D")?);
    let loss = table
        .numeric_or_missing("C4 Eval Loss")
        .map_err(|e| e.to_string())?;
    let mut best: BTreeMap<(u64, u64), f64> = BTreeMap::new();
    let mut dropped = 0;
    for i in 0..n.len() {
        if !(loss[i].is_finite() && loss[i] > 0.0) {
            dropped += 1;
            continue;
        }
        let entry = best
            .entry((n[i] as u64, d[i] as u64))
            .or_insert(f64::INFINITY);
        *entry = entry.min(loss[i]);
    }
    let data = fit_data(
        vec![
            best.keys().map(|k| k.0 as f64).collect(),
            best.keys().map(|k| k.1 as f64).collect(),
        ],
        best.values().copied().collect(),
    );
    Ok(vec![StudySet {
        study: "lr_sweep_misfitting".into(),
        set: "best_lr".into(),
        law: "chinchilla".into(),
        data,
        note: format!(
            "{} runs, {dropped} without a finite loss dropped; the best learning rate of each of {} (N, D) cells",
            n.len(),
            best.len()
        ),
    }])
}
