//! Gemstones (McLeish et al. 2025): 22 models of many widths and depths, checkpoints of the
//! constant-LR ("hot") runs with their final loss. The paper's fitting file
//! `wandb_df_for_fitting_hot_477.jsonl`; step-0 rows (initialisation) are dropped and counted.

use std::path::Path;

use super::{file, fit_data, read, StudySet};

pub fn load(folder: &Path) -> Result<Vec<StudySet>, String> {
    let table = read(&file(
        folder,
        "wandb_dfs/wandb_df_for_fitting_hot_477.jsonl",
    )?)?;
    let step = table.numeric("step").map_err(|e| e.to_string())?;
    let keep: Vec<bool> = step.iter().map(|s| *s > 0.0).collect();
    let dropped = keep.iter().filter(|k| !**k).count();
    let table = table.filter(&keep);
    let column = |name: &str| table.positive(name, "corpus").map_err(|e| e.to_string());
    let data = fit_data(
        vec![column("params_active_precise")?, column("tokens")?],
        column("final_loss")?,
    );
    Ok(vec![StudySet {
        study: "gemstones".into(),
        set: "hot_477".into(),
        law: "chinchilla".into(),
        data,
        note: format!(
            "{} checkpoints; {dropped} step-0 rows dropped",
            step.len() - dropped
        ),
    }])
}
