//! Nezhurina et al. 2025, "Scaling Laws for Robust Comparison of Open Foundation Language-Vision
//! Models and Datasets" (NeurIPS 2025, arXiv:2506.04598; data LAION-AI/scaling-laws-for-comparison,
//! no licence): contrastive CLIP and contrastive + captioning MaMMUT, 11 ViTs each (S/M/B/L, patch
//! 14/16/32) on DataComp-1.4B at 11 samples-seen scales (1.28M–3.07B), with sweeps over batch
//! size, learning rate and warm-up.
//!
//! Read: `tidy_runs.csv` (the provenance's flattening of `segmentation_results.parquet`: one row
//! per trained run, its final checkpoint). The main results table with ImageNet zero-shot accuracy
//! is not in the snapshot, so the target is the ADE20K segmentation error `ade20k_miou_error` =
//! 1 − mIoU, the quantity the paper fits on this file (Fig. 8, `scripts/fig8_segmentation.sh`:
//! Pareto-frontier fit, MaMMUT against CLIP). The training losses are not used:
//! `train_contrastive_loss` rises with the batch size (InfoNCE chance level ln B), which is swept
//! 700-fold and confounded with scale, so a minimum per cell would pick small batches; and
//! `train_caption_loss` exists for MaMMUT only, so the two families would not be compared on one
//! quantity.
//!
//! Sets: one per family (`clip`, `mammut`), on the frontier: the lowest error of each
//! (architecture, samples seen) cell across the sweep (the paper's Pareto selection); N =
//! `model_mparams` × 1e6 (image + text towers), D = `samples_seen`. Patch sizes 14, 16 and 32 of
//! one width share N (e.g. S: 62.2M, 62.3M, 63.1M) but not the compute a sample; all are kept,
//! since on this target their frontier errors at one (size, D) differ by a median 1.8 % (patch 32
//! the worst), small against the N and D effects. Rows whose error is not in (0, 1) are dropped
//! and counted. Note for the fits: at the smallest budgets (1.28M, 3.07M samples) the errors sit
//! near 0.9 and the larger models are worse (undertrained), and some cells hold one run only
//! (no sweep), so the frontier is uneven in how well each cell was tuned.

use std::collections::BTreeMap;
use std::path::Path;

use super::{file, fit_data, read, StudySet};

const STUDY: &str = "clip_mammut_nezhurina2025";

pub fn load(folder: &Path) -> Result<Vec<StudySet>, String> {
    let table = read(&file(folder, "tidy_runs.csv")?)?;
    let text = |name: &str| table.text(name).map_err(|e| e.to_string());
    let positive = |name: &str| table.positive(name, "corpus").map_err(|e| e.to_string());
    let (family, model) = (text("namespace")?, text("model_simple")?);
    let (mparams, samples) = (positive("model_mparams")?, positive("samples_seen")?);
    let error = table
        .numeric_or_missing("ade20k_miou_error")
        .map_err(|e| e.to_string())?;

    /// The frontier run of a cell: its error and N, and how many runs the cell held.
    struct Cell {
        error: f64,
        n: f64,
        runs: usize,
    }
    let mut families: BTreeMap<String, BTreeMap<(String, u64), Cell>> = BTreeMap::new();
    let mut bad: BTreeMap<String, usize> = BTreeMap::new();
    for i in 0..error.len() {
        if !(error[i].is_finite() && error[i] > 0.0 && error[i] < 1.0) {
            *bad.entry(family[i].clone()).or_default() += 1;
            continue;
        }
        let cell = families
            .entry(family[i].clone())
            .or_default()
            .entry((model[i].clone(), samples[i] as u64))
            .or_insert(Cell {
                error: f64::INFINITY,
                n: 0.0,
                runs: 0,
            });
        cell.runs += 1;
        if error[i] < cell.error {
            cell.error = error[i];
            cell.n = mparams[i] * 1e6;
        }
    }
    Ok(families
        .into_iter()
        .map(|(name, cells)| {
            let runs: usize = cells.values().map(|c| c.runs).sum();
            let models: std::collections::BTreeSet<&str> =
                cells.keys().map(|k| k.0.as_str()).collect();
            let swept = cells.values().filter(|c| c.runs > 1).count();
            let note = format!(
                "{runs} final runs, {} without an error in (0, 1) dropped; the lowest ADE20K \
                 error (1 - mIoU) of each of {} (architecture, samples seen) cells ({} \
                 architectures; {swept} cells with a sweep, {} with one run): {} runs off the \
                 frontier; N = model params, D = samples seen",
                bad.get(&name).copied().unwrap_or(0),
                cells.len(),
                models.len(),
                cells.len() - swept,
                runs - cells.len(),
            );
            let data = fit_data(
                vec![
                    cells.values().map(|c| c.n).collect(),
                    cells.keys().map(|k| k.1 as f64).collect(),
                ],
                cells.values().map(|c| c.error).collect(),
            );
            StudySet {
                study: STUDY.into(),
                set: name,
                law: "chinchilla".into(),
                data,
                note,
            }
        })
        .collect())
}
