//! Muennighoff et al. 2023's runs with repeated data: parameters N, tokens D, unique tokens U,
//! final loss; the 182 runs the paper fits (`points_fit182_cell26.csv`) with its
//! data-constrained law.

use std::path::Path;

use super::{file, fit_data, read, StudySet};

pub fn load(folder: &Path) -> Result<Vec<StudySet>, String> {
    let table = read(&file(folder, "points_fit182_cell26.csv")?)?;
    let column = |name: &str| table.positive(name, "corpus").map_err(|e| e.to_string());
    let data = fit_data(
        vec![column("N")?, column("D")?, column("U")?],
        column("loss")?,
    );
    let rows = data.target.len();
    Ok(vec![StudySet {
        study: "datablations".into(),
        set: "fit182".into(),
        law: "data_constrained".into(),
        data,
        note: format!("{rows} runs, the paper's fitting set; none dropped"),
    }])
}
