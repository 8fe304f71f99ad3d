//! Shared helpers of the integration tests: the bundled example datasets.
#![allow(dead_code)]

use std::path::PathBuf;

use scalinglaws::data::Dataset;
use scalinglaws::fit::FitData;

pub fn example(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(path)
}

/// Epoch AI's protocol on Hoffmann et al.'s Fig. 4 data: drop the 5 highest losses (240 rows
/// left), D = C / (6 N).
pub fn chinchilla_epoch() -> FitData {
    let data = Dataset::read(&example("chinchilla/chinchilla_epoch.csv"), None).unwrap();
    let n = data.positive("Model Size", "test").unwrap();
    let c = data.positive("Training FLOP", "test").unwrap();
    let loss = data.positive("loss", "test").unwrap();
    let mut order: Vec<usize> = (0..loss.len()).collect();
    order.sort_by(|&a, &b| loss[b].total_cmp(&loss[a]));
    let dropped = &order[..5];
    let keep: Vec<usize> = (0..loss.len()).filter(|i| !dropped.contains(i)).collect();
    FitData {
        variables: vec![
            keep.iter().map(|&i| n[i]).collect(),
            keep.iter().map(|&i| c[i] / (6.0 * n[i])).collect(),
        ],
        target: keep.iter().map(|&i| loss[i]).collect(),
        weights: None,
    }
}

/// Chinchilla's law at Epoch's published optimum.
pub fn epoch_prediction(n: f64, d: f64) -> f64 {
    1.81721 + 477.86 * n.powf(-0.347315) + 2142.56 * d.powf(-0.367153)
}
