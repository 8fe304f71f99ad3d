//! The OLMo model ladder of Bhagia et al. 2024, "Establishing Task Scaling Laws via
//! Compute-Efficient Model Ladders" (arXiv:2412.04403; github.com/allenai/OLMo-ladder at
//! 67a3f44): OLMo-2-style ("peteish") models at 5 sizes × 5 token budgets (0.5, 1, 2, 5, 10 ×
//! 20 tokens per parameter), all with one recipe, and the two large runs the paper predicts from
//! the ladder. Read from `tidy_final_points.csv` (the last evaluation of each of the 41 W&B
//! exports, made by the folder's `make_tidy.py`; see PROVENANCE.md). One set, Chinchilla's law:
//!
//! - N = the non-embedding parameter count (`N_nonembed`, the constants `MODEL_PARAMS` of the
//!   repository's `src/scaling/utils.py`), which is the N the paper's step-1 fit uses; D = tokens
//!   seen at the end of the run.
//! - Loss = the C4 (`c4_en` validation) loss averaged over the last 5 evaluations
//!   (`loss_c4_en_last5mean`): the paper's step-1 target (`--moving_avg 5`). Only the final
//!   points: the ladder's LR decays to 10 % of peak over each run, so intermediate evaluations
//!   are not the losses of shorter runs.
//! - All 25 ladder runs are kept, including the 0.5×C runs and the 3B size that the paper's own
//!   fit (`configs/final.json`: 190M–1.3B × 1, 2, 5, 10 ×C) leaves out.
//! - Reruns: each size has a second 1×C run (`*-1xC-rerun.csv`, same config, final C4 loss
//!   within 0.001); the original run (the one in the paper's configs) is kept, the rerun dropped.
//! - Targets: the paper's two eval targets (`configs/final.json`), which share the recipe, data
//!   and C4 eval with the ladder, are kept: 13B-5T (`peteish13_eval_final.csv`, 5.0e12 tokens)
//!   and 7B-4T after its anneal (`peteish7_eval_anneal.csv`, 3.945e12 tokens, one row). The other
//!   target files are dropped: `peteish13_eval_full` repeats the 13B final row and
//!   `..._50k-150k` is an early window of the same run; `peteish7_eval_full` (3.88e12 tokens) and
//!   `..._170k-450k` are the 7B run before its anneal (LR not decayed, not a finished loss); the
//!   five `peteish7_medlr_*` files are a different 7B run (peak LR 6e-4, stopped at 490k steps).
//!
//! Every dropped row is counted in the note by reason.

use std::collections::BTreeMap;
use std::path::Path;

use super::colpret::scale_summary;
use super::{file, fit_data, read, StudySet};

/// The targets kept, by their file; every other `peteish*` file is dropped with a reason.
const TARGETS: [&str; 2] = [
    "ladder-runs/peteish13_eval_final.csv",
    "ladder-runs/peteish7_eval_anneal.csv",
];

pub fn load(folder: &Path) -> Result<Vec<StudySet>, String> {
    let table = read(&file(folder, "tidy_final_points.csv")?)?;
    let text = |name: &str| table.text(name).map_err(|e| e.to_string());
    let numeric = |name: &str| table.numeric_or_missing(name).map_err(|e| e.to_string());
    let (source, run_kind, rerun) = (text("source_file")?, text("run_kind")?, text("rerun")?);
    let (n, tokens, loss) = (
        numeric("N_nonembed")?,
        numeric("tokens")?,
        numeric("loss_c4_en_last5mean")?,
    );
    let mut dropped: BTreeMap<&str, usize> = BTreeMap::new();
    // (N, tokens) -> loss; the key order makes the output deterministic.
    let mut kept: BTreeMap<(u64, u64), f64> = BTreeMap::new();
    let (mut ladder, mut targets) = (0, 0);
    for row in 0..source.len() {
        let is_target = TARGETS.contains(&source[row].as_str());
        let reason = if run_kind[row] == "ladder" {
            (rerun[row] == "True").then_some("1xC reruns (original run kept)")
        } else if is_target {
            None
        } else if source[row].contains("medlr") {
            Some("7B medium-LR run (a different run)")
        } else if source[row].contains("peteish13") {
            Some("13B windows/duplicates of the kept final file")
        } else if source[row].contains("peteish7") {
            Some("7B pre-anneal files (not a finished loss)")
        } else {
            Some("unrecognised files")
        };
        if let Some(reason) = reason {
            *dropped.entry(reason).or_default() += 1;
            continue;
        }
        let ok = |v: f64| v.is_finite() && v > 0.0;
        if !(ok(n[row]) && ok(tokens[row]) && ok(loss[row])) {
            *dropped
                .entry("without a finite positive N, tokens or loss")
                .or_default() += 1;
            continue;
        }
        if kept
            .insert((n[row] as u64, tokens[row] as u64), loss[row])
            .is_some()
        {
            return Err(format!(
                "{}: two kept runs at N = {}, D = {}",
                source[row], n[row], tokens[row]
            ));
        }
        if is_target {
            targets += 1;
        } else {
            ladder += 1;
        }
    }
    let col_n: Vec<f64> = kept.keys().map(|k| k.0 as f64).collect();
    let col_d: Vec<f64> = kept.keys().map(|k| k.1 as f64).collect();
    let drops = dropped
        .iter()
        .map(|(reason, count)| format!("{count} {reason}"))
        .collect::<Vec<_>>()
        .join(", ");
    let note = format!(
        "{} final points read; kept {ladder} ladder runs + {targets} targets (13B-5T, 7B-4T annealed); dropped: {drops}; \
         N non-embedding, loss = C4 mean of last 5 evals; {}",
        source.len(),
        scale_summary(&col_n, &col_d),
    );
    Ok(vec![StudySet {
        study: "olmo_ladder".into(),
        set: "c4_final".into(),
        law: "chinchilla".into(),
        data: fit_data(vec![col_n, col_d], kept.values().copied().collect()),
        note,
    }])
}
