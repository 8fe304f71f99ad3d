//! Porian et al. 2024's IsoFLOP points under 15 training configurations (dataset,
//! hyperparameters, warm-up, decay, parameter count, validation): one set per configuration,
//! n and t as N and D, Chinchilla's law.

use std::collections::BTreeMap;
use std::path::Path;

use super::{file, fit_data, read, StudySet};

pub fn load(folder: &Path) -> Result<Vec<StudySet>, String> {
    let table = read(&file(folder, "isoflop_points.csv")?)?;
    let keys = [
        "dataset",
        "hparams",
        "warmup",
        "decay",
        "param_count",
        "val",
    ];
    let labels: Vec<Vec<String>> = keys
        .iter()
        .map(|k| table.text(k).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let column = |name: &str| table.positive(name, "corpus").map_err(|e| e.to_string());
    let (n, t, loss) = (column("n")?, column("t")?, column("loss")?);
    let mut configs: BTreeMap<String, [Vec<f64>; 3]> = BTreeMap::new();
    for row in 0..loss.len() {
        let key: Vec<&str> = labels.iter().map(|l| l[row].as_str()).collect();
        let entry = configs.entry(key.join("/")).or_default();
        entry[0].push(n[row]);
        entry[1].push(t[row]);
        entry[2].push(loss[row]);
    }
    Ok(configs
        .into_iter()
        .map(|(set, [n, t, loss])| StudySet {
            study: "porian2024".into(),
            note: format!(
                "{} IsoFLOP points of this configuration; none dropped",
                loss.len()
            ),
            set,
            law: "chinchilla".into(),
            data: fit_data(vec![n, t], loss),
        })
        .collect())
}
