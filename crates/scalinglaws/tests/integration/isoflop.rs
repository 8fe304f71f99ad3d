//! IsoFLOP analysis against Porian et al. 2024 (testdata/porian2024, MIT): with the default
//! shape (auto, which picks the local cubic on every configuration here), for each of the
//! fifteen analysis configurations, the exponent a of N* ∝ C^a from our per-budget minima must
//! match the published `n_exponent` within ±0.03, and within ±0.02 for at least 13 of them. A
//! plain five-point parabola per budget misses by up to 0.031 (measured here too).

use std::collections::BTreeMap;
use std::path::PathBuf;

use scalinglaws::analysis::isoflop::{isoflop, IsoflopData, IsoflopSettings, Shape};
use scalinglaws::data::Dataset;

fn porian(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/porian2024")
        .join(path)
}

const KEYS: [&str; 6] = [
    "dataset",
    "hparams",
    "warmup",
    "decay",
    "param_count",
    "val",
];

/// The IsoFLOP points of every configuration, keyed by its six labels.
fn configurations() -> BTreeMap<Vec<String>, IsoflopData> {
    let data = Dataset::read(&porian("isoflop_points.csv"), None).unwrap();
    let labels: Vec<Vec<String>> = KEYS.iter().map(|k| data.text(k).unwrap()).collect();
    let (c, n, loss) = (
        data.positive("flops", "test").unwrap(),
        data.positive("n", "test").unwrap(),
        data.positive("loss", "test").unwrap(),
    );
    let mut configs: BTreeMap<Vec<String>, IsoflopData> = BTreeMap::new();
    for row in 0..c.len() {
        let key: Vec<String> = labels.iter().map(|column| column[row].clone()).collect();
        let entry = configs.entry(key).or_insert_with(|| IsoflopData {
            compute: vec![],
            size: vec![],
            loss: vec![],
            tokens: None,
        });
        entry.compute.push(c[row]);
        entry.size.push(n[row]);
        entry.loss.push(loss[row]);
    }
    configs
}

fn published() -> BTreeMap<Vec<String>, f64> {
    let text = std::fs::read_to_string(porian("fit_results.json")).unwrap();
    let fits: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    fits.iter()
        .map(|f| {
            let key = KEYS
                .iter()
                .map(|k| f[k].as_str().unwrap().to_string())
                .collect();
            (key, f["basic"]["n_exponent"].as_f64().unwrap())
        })
        .collect()
}

fn misses(shape: Shape) -> Vec<(Vec<String>, f64)> {
    let expected = published();
    configurations()
        .into_iter()
        .map(|(key, data)| {
            let settings = IsoflopSettings {
                shape,
                ..IsoflopSettings::default()
            };
            let a = isoflop(&data, &settings).unwrap().n_star.unwrap().exponent;
            let miss = a - expected[&key];
            (key, miss)
        })
        .collect()
}

#[test]
fn exponents_match_porian_et_al() {
    let cubic = misses(Shape::Auto);
    assert_eq!(cubic.len(), 15);
    for (key, miss) in &cubic {
        println!("{key:?}: a − published = {miss:+.4}");
        assert!(miss.abs() <= 0.03, "{key:?}: a misses by {miss}");
    }
    let close = cubic.iter().filter(|(_, m)| m.abs() <= 0.02).count();
    assert!(close >= 13, "only {close} of 15 within 0.02");
    let worst = |m: &[(Vec<String>, f64)]| m.iter().map(|(_, x)| x.abs()).fold(0.0, f64::max);
    let parabola = misses(Shape::Parabola);
    println!(
        "worst miss: cubic {:.4}, five-point parabola {:.4}",
        worst(&cubic),
        worst(&parabola)
    );
    assert!(worst(&cubic) < worst(&parabola));
}

#[test]
fn bootstrap_intervals_contain_the_estimates_and_are_seeded() {
    let (_, data) = configurations().into_iter().next().unwrap();
    let settings = IsoflopSettings {
        bootstrap: 200,
        seed: 4,
        ..IsoflopSettings::default()
    };
    let first = isoflop(&data, &settings).unwrap();
    let again = isoflop(&data, &settings).unwrap();
    assert_eq!(first, again);
    let law = first.n_star.as_ref().unwrap();
    let [lo, hi] = law.ci.unwrap();
    assert!(
        lo < law.exponent && law.exponent < hi,
        "{lo} < {} < {hi}",
        law.exponent
    );
    for budget in first.budgets.iter().filter(|b| b.n.is_some()) {
        if let Some([lo, hi]) = budget.n_ci {
            let n = budget.n.unwrap();
            assert!(lo <= n * 1.5 && hi >= n / 1.5, "{lo:e} {n:e} {hi:e}");
        }
    }
}
