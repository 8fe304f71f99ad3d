//! Real datasets for the extrapolation and selection studies: the bundled Chinchilla and
//! datablations examples, the published data in testdata/, and the unlicensed misfitting sweep
//! in ../shared (skipped, with the reason in the skip log, when absent).

use std::collections::BTreeMap;

use scalinglaws::data::Dataset;
use scalinglaws::fit::FitData;

pub fn compute(data: &FitData) -> Vec<f64> {
    data.variables[0]
        .iter()
        .zip(&data.variables[1])
        .map(|(n, d)| 6.0 * n * d)
        .collect()
}

pub fn chinchilla() -> (FitData, Vec<f64>) {
    let data = super::chinchilla_epoch();
    let scale = compute(&data);
    (data, scale)
}

pub fn datablations() -> (FitData, Vec<f64>) {
    let table = Dataset::read(
        &super::example("datablations/datablations_fit182.csv"),
        None,
    )
    .unwrap();
    let column = |name: &str| table.positive(name, "test").unwrap();
    let data = FitData {
        variables: vec![column("N"), column("D"), column("U")],
        target: column("loss"),
        weights: None,
        trials: None,
        exposure: None,
    };
    let scale = compute(&data);
    (data, scale)
}

/// The misfitting sweep's best-LR run of each (N, D) cell.
pub fn misfitting() -> Option<(FitData, Vec<f64>)> {
    let table = Dataset::read(
        &super::skip::shared(
            "lr_sweep_misfitting/lr_sweep_dense_tidy.csv",
            "the misfitting sweep's part",
        )?,
        None,
    )
    .ok()?;
    let (n, d, loss) = (
        table.numeric("N").unwrap(),
        table.numeric("D").unwrap(),
        table.numeric_or_missing("C4 Eval Loss").unwrap(),
    );
    let mut best: BTreeMap<(u64, u64), f64> = BTreeMap::new();
    for i in 0..n.len() {
        if !(loss[i].is_finite() && loss[i] > 0.0) {
            continue;
        }
        let key = (n[i] as u64, d[i] as u64);
        let entry = best.entry(key).or_insert(f64::INFINITY);
        *entry = entry.min(loss[i]);
    }
    let data = FitData {
        variables: vec![
            best.keys().map(|k| k.0 as f64).collect(),
            best.keys().map(|k| k.1 as f64).collect(),
        ],
        target: best.values().copied().collect(),
        weights: None,
        trials: None,
        exposure: None,
    };
    let scale = compute(&data);
    Some((data, scale))
}

/// Gemstones' final losses of the 22 models' checkpoints (step > 0).
pub fn gemstones() -> Option<(FitData, Vec<f64>)> {
    let path = super::testdata("gemstones/wandb_dfs/wandb_df_for_fitting_hot_477.jsonl");
    let table = Dataset::read(&path, None).ok()?;
    let step = table.numeric("step").unwrap();
    let keep: Vec<bool> = step.iter().map(|s| *s > 0.0).collect();
    let table = table.filter(&keep);
    let data = FitData {
        variables: vec![
            table.positive("params_active_precise", "test").unwrap(),
            table.positive("tokens", "test").unwrap(),
        ],
        target: table.positive("final_loss", "test").unwrap(),
        weights: None,
        trials: None,
        exposure: None,
    };
    let scale = compute(&data);
    Some((data, scale))
}

/// Porian et al.'s IsoFLOP points, one dataset per configuration.
pub fn porian() -> Option<Vec<(String, FitData, Vec<f64>)>> {
    let table = Dataset::read(&super::testdata("porian2024/isoflop_points.csv"), None).ok()?;
    let keys = [
        "dataset",
        "hparams",
        "warmup",
        "decay",
        "param_count",
        "val",
    ];
    let labels: Vec<Vec<String>> = keys.iter().map(|k| table.text(k).unwrap()).collect();
    let (c, n, t, loss) = (
        table.positive("flops", "test").unwrap(),
        table.positive("n", "test").unwrap(),
        table.positive("t", "test").unwrap(),
        table.positive("loss", "test").unwrap(),
    );
    let mut configs: BTreeMap<String, (FitData, Vec<f64>)> = BTreeMap::new();
    for row in 0..c.len() {
        let key: Vec<&str> = labels.iter().map(|l| l[row].as_str()).collect();
        let (data, scale) = configs.entry(key.join("/")).or_insert_with(|| {
            (
                FitData {
                    variables: vec![vec![], vec![]],
                    target: vec![],
                    weights: None,
                    trials: None,
                    exposure: None,
                },
                vec![],
            )
        });
        data.variables[0].push(n[row]);
        data.variables[1].push(t[row]);
        data.target.push(loss[row]);
        scale.push(c[row]);
    }
    Some(configs.into_iter().map(|(k, (d, s))| (k, d, s)).collect())
}

/// Every dataset beyond the bundled examples that is present, as (name, data in N and D,
/// compute): the misfitting sweep's best-LR runs, Gemstones, and each Porian et al.
/// configuration.
pub fn shared_datasets() -> Vec<(String, FitData, Vec<f64>)> {
    let mut all = Vec::new();
    if let Some((data, scale)) = misfitting() {
        all.push(("misfitting best LR".to_string(), data, scale));
    }
    if let Some((data, scale)) = gemstones() {
        all.push(("gemstones".to_string(), data, scale));
    }
    if let Some(configs) = porian() {
        all.extend(
            configs
                .into_iter()
                .map(|(k, d, s)| (format!("porian {k}"), d, s)),
        );
    }
    all
}
