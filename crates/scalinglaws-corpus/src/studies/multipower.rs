//! Loss curves of Luo et al. 2025, "A Multi-Power Law for Loss Curve Prediction Across Learning
//! Rate Schedules" (arXiv:2503.12811; upstream author commit 8da9f19 of
//! github.com/thu-yao-01-luo/MultiPowerLaw, via the fork Morphorxz/dlt25-final; see
//! PROVENANCE.md): training loss (nats/token) logged every 128 steps for models of 25M, 100M and
//! 400M parameters under 9 LR schedules, in `csv_<size>/<schedule>.csv` (`step, lr, loss`).
//!
//! One set, Chinchilla's law on the checkpoints of the constant-LR run (peak 3e-4 after 2160
//! warm-up steps, held to step 72000: `constant_72000.csv`), the only schedule whose checkpoints
//! are all at the same LR and so comparable along the curve:
//! - N = the nominal size of the folder name (25e6, 100e6, 400e6). PROVENANCE.md gives only these
//!   labels, not exact parameter counts nor whether embeddings are counted.
//! - D = the optimizer **step**. PROVENANCE.md does not give the tokens per step (batch size ×
//!   sequence length), so D is in steps: a constant factor on D that Chinchilla's law absorbs
//!   in B (fits and predictions are unchanged); only 6·N·D as an absolute compute is off by that
//!   unknown factor (its span in decades is right).
//! - Checkpoints before 10 % of training (step < 7200 of 72000) are dropped; each size's curve is
//!   thinned to at most [`MAX_CHECKPOINTS`] checkpoints nearest a log-spaced grid (deterministic),
//!   as the ColPret curves are, so that the dense late logging does not dominate the fit.
//! - `constant_24000.csv` is dropped whole: the same schedule stopped at 24000 steps, a repeat of
//!   the first third of `constant_72000` (losses within ~0.001), which would double count. The
//!   other 7 schedules (cosine, WSD, two-stage) are not used: their LR decays, so their
//!   checkpoints are not points of one constant-LR curve (the WSD/two-stage files also repeat the
//!   constant_72000 prefix before their decay).
//!
//! Every dropped row is counted in the note.

use std::path::Path;

use super::colpret::{log_thin, scale_summary, EARLY_FRACTION, MAX_CHECKPOINTS};
use super::{file, fit_data, read, StudySet};

/// Folder suffix and nominal parameter count of each model.
const SIZES: [(&str, f64); 3] = [("25", 25e6), ("100", 100e6), ("400", 400e6)];

/// The run used and its length in steps.
const RUN: &str = "constant_72000.csv";
const RUN_STEPS: f64 = 72000.0;

pub fn load(folder: &Path) -> Result<Vec<StudySet>, String> {
    let (mut col_n, mut col_d, mut col_loss) = (Vec::new(), Vec::new(), Vec::new());
    let (mut read_rows, mut invalid, mut early, mut thinned) = (0, 0, 0, 0);
    let (mut repeat_rows, mut other_rows, mut other_files) = (0, 0, 0);
    for (suffix, n) in SIZES {
        let sub = folder.join(format!("csv_{suffix}"));
        let table = read(&file(&sub, RUN)?)?;
        let numeric = |name: &str| table.numeric_or_missing(name).map_err(|e| e.to_string());
        let (step, loss) = (numeric("step")?, numeric("loss")?);
        read_rows += step.len();
        let mut points: Vec<(f64, f64)> = Vec::new();
        for (s, l) in step.iter().zip(&loss) {
            if !(s.is_finite() && *s > 0.0 && l.is_finite() && *l > 0.0) {
                invalid += 1;
            } else if *s < EARLY_FRACTION * RUN_STEPS {
                early += 1;
            } else {
                points.push((*s, *l));
            }
        }
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        if points.windows(2).any(|w| w[0].0 == w[1].0) {
            return Err(format!("{}: a step appears twice", sub.join(RUN).display()));
        }
        let chosen = log_thin(
            &points.iter().map(|p| p.0).collect::<Vec<_>>(),
            MAX_CHECKPOINTS,
        );
        thinned += points.len() - chosen.len();
        for i in chosen {
            col_n.push(n);
            col_d.push(points[i].0);
            col_loss.push(points[i].1);
        }
        // The other schedule files of this size: counted, not used.
        let mut names: Vec<String> = std::fs::read_dir(&sub)
            .map_err(|e| format!("{}: {e}", sub.display()))?
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".csv") && name != RUN)
            .collect();
        names.sort();
        for name in names {
            let rows = read(&sub.join(&name))?.n_rows();
            if name == "constant_24000.csv" {
                repeat_rows += rows;
            } else {
                other_rows += rows;
                other_files += 1;
            }
        }
    }
    let note = format!(
        "{read_rows} checkpoints of {RUN} read (3 sizes); {invalid} without a finite positive step or loss; \
         {early} before 10% of training (step < {}) dropped; {thinned} thinned out (≤{MAX_CHECKPOINTS} log-spaced per size); \
         {} kept; N nominal, D = optimizer steps (tokens per step not in the provenance); {}; \
         not used: {repeat_rows} rows of constant_24000 (repeat of the same schedule), \
         {other_rows} rows of {other_files} decaying-LR schedule files",
        EARLY_FRACTION * RUN_STEPS,
        col_loss.len(),
        scale_summary(&col_n, &col_d),
    );
    Ok(vec![StudySet {
        study: "multipower_law".into(),
        set: "constant_72000".into(),
        law: "chinchilla".into(),
        data: fit_data(vec![col_n, col_d], col_loss),
        note,
    }])
}
