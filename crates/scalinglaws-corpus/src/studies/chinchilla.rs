//! Hoffmann et al. 2022's Figure 4 runs as digitised by Epoch AI (Besiroglu et al. 2024): model
//! size N, training FLOPs C and loss. Epoch's protocol, as in DESIGN.md: the 5 highest losses
//! dropped (the unconverged smallest runs), D = C/(6N), Chinchilla's law.

use std::path::Path;

use super::{file, fit_data, read, StudySet};

pub fn load(folder: &Path) -> Result<Vec<StudySet>, String> {
    let table = read(&file(folder, "svg_extracted_data.csv")?)?;
    let column = |name: &str| table.positive(name, "corpus").map_err(|e| e.to_string());
    let (n, c, loss) = (
        column("Model Size")?,
        column("Training FLOP")?,
        column("loss")?,
    );
    let mut order: Vec<usize> = (0..loss.len()).collect();
    order.sort_by(|&a, &b| loss[b].total_cmp(&loss[a]));
    let dropped = &order[..5.min(order.len())];
    let keep: Vec<usize> = (0..loss.len()).filter(|i| !dropped.contains(i)).collect();
    let data = fit_data(
        vec![
            keep.iter().map(|&i| n[i]).collect(),
            keep.iter().map(|&i| c[i] / (6.0 * n[i])).collect(),
        ],
        keep.iter().map(|&i| loss[i]).collect(),
    );
    Ok(vec![StudySet {
        study: "chinchilla_epoch".into(),
        set: "all".into(),
        law: "chinchilla".into(),
        data,
        note: format!(
            "{} runs read; the 5 highest losses dropped (Epoch's protocol); D = C/(6N)",
            loss.len()
        ),
    }])
}
