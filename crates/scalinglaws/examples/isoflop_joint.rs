//! Measurement for issue 51 item 4: at the two largest budgets of each IsoFLOP study, held
//! out, how far is D* predicted from the smaller budgets by
//! (a) the default `isoflop` (a curve in ln N per budget, power law through the minima),
//! (b) the field's scipy recipe (a parabola in ln D through every run of a budget, a line
//!     through ln D* against ln C), and
//! (c) `--method auto`: the joint Chinchilla law (Hoffmann et al. 2022, Approach 3)
//!     on the window of the runs the backtest over the study's own budgets finds best, when it
//!     beats the per-budget minima there by more than a standard error, else the minima;
//! and by `joint` (that best window whatever the minima do) and Approach 3 on every run?
//! Studies: Porian et al. 2024's fifteen configurations (testdata/porian2024) and Chinchilla's
//! runs as digitised by Epoch AI (examples/chinchilla), binned to Hoffmann et al.'s nine
//! IsoFLOP budgets. Run `bash bench/isoflop_joint.sh`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use scalinglaws::analysis::isoflop::{
    isoflop, joint_forecast, BudgetPrediction, IsoflopData, IsoflopSettings, Method, Shape, Window,
};
use scalinglaws::data::Dataset;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct Study {
    name: String,
    data: IsoflopData,
    /// The paper's own per-budget optimum (C, N*, D*), where published.
    published: Vec<(f64, f64, f64)>,
}

const KEYS: [&str; 6] = [
    "dataset",
    "hparams",
    "warmup",
    "decay",
    "param_count",
    "val",
];

fn keyed(path: &str, columns: [&str; 3]) -> BTreeMap<Vec<String>, Vec<[f64; 4]>> {
    let data = Dataset::read(&root().join(path), None).unwrap();
    let labels: Vec<Vec<String>> = KEYS.iter().map(|k| data.text(k).unwrap()).collect();
    let flops = data.positive("flops", "bench").unwrap();
    let values: Vec<Vec<String>> = columns.iter().map(|c| data.text(c).unwrap()).collect();
    let mut out: BTreeMap<Vec<String>, Vec<[f64; 4]>> = BTreeMap::new();
    for row in 0..flops.len() {
        let v: Vec<f64> = values
            .iter()
            .map(|v| v[row].parse::<f64>().unwrap_or(f64::NAN))
            .collect();
        let key = labels.iter().map(|l| l[row].clone()).collect();
        out.entry(key)
            .or_default()
            .push([flops[row], v[0], v[1], v[2]]);
    }
    out
}

fn porian() -> Vec<Study> {
    let points = keyed("testdata/porian2024/isoflop_points.csv", ["n", "t", "loss"]);
    let optima = keyed("testdata/porian2024/optimal_pairs.csv", ["n", "t", "loss"]);
    points
        .into_iter()
        .map(|(key, rows)| Study {
            name: format!("porian {}", key.join("/")),
            data: IsoflopData {
                compute: rows.iter().map(|r| r[0]).collect(),
                size: rows.iter().map(|r| r[1]).collect(),
                loss: rows.iter().map(|r| r[3]).collect(),
                tokens: Some(rows.iter().map(|r| r[2]).collect()),
            },
            published: optima[&key]
                .iter()
                .filter(|o| o[1].is_finite() && o[2].is_finite())
                .map(|o| (o[0], o[1], o[2]))
                .collect(),
        })
        .collect()
}

/// Hoffmann et al.'s nine IsoFLOP budgets (Figure 3).
const CHINCHILLA_BUDGETS: [f64; 9] = [6e18, 1e19, 3e19, 6e19, 1e20, 3e20, 6e20, 1e21, 3e21];
/// A digitised run belongs to a budget within this many decades of it (the digitised compute
/// scatters by about ±0.05 decade around each budget; the budgets are 0.2–0.3 decade apart).
const CHINCHILLA_WINDOW: f64 = 0.1;

/// Chinchilla's runs (Epoch AI's digitisation, the 5 highest losses dropped as Epoch does),
/// each assigned to the nearest of the nine budgets within the window; D = C/(6N) from the
/// run's own digitised compute.
fn chinchilla() -> (Study, usize) {
    let data = Dataset::read(
        &root().join("examples/chinchilla/chinchilla_epoch.csv"),
        None,
    )
    .unwrap();
    let n = data.positive("Model Size", "bench").unwrap();
    let c = data.positive("Training FLOP", "bench").unwrap();
    let loss = data.positive("loss", "bench").unwrap();
    let mut order: Vec<usize> = (0..loss.len()).collect();
    order.sort_by(|&a, &b| loss[b].total_cmp(&loss[a]));
    let dropped = &order[..5];
    let mut study = IsoflopData {
        compute: vec![],
        size: vec![],
        loss: vec![],
        tokens: Some(vec![]),
    };
    let mut outside = 0;
    for i in (0..loss.len()).filter(|i| !dropped.contains(i)) {
        let nearest = CHINCHILLA_BUDGETS
            .iter()
            .copied()
            .min_by(|a, b| {
                (c[i] / a)
                    .log10()
                    .abs()
                    .total_cmp(&(c[i] / b).log10().abs())
            })
            .unwrap();
        if (c[i] / nearest).log10().abs() > CHINCHILLA_WINDOW {
            outside += 1;
            continue;
        }
        study.compute.push(nearest);
        study.size.push(n[i]);
        study.loss.push(loss[i]);
        study.tokens.as_mut().unwrap().push(c[i] / (6.0 * n[i]));
    }
    let name = "chinchilla (Epoch digitisation, 9 budgets)".to_string();
    (
        Study {
            name,
            data: study,
            published: Vec::new(),
        },
        outside,
    )
}

/// The runs of the budgets below `cut` (relative tolerance 1e-3).
fn below(data: &IsoflopData, cut: f64) -> IsoflopData {
    let keep: Vec<usize> = (0..data.compute.len())
        .filter(|&r| data.compute[r] < cut * 0.999)
        .collect();
    let pick = |c: &[f64]| keep.iter().map(|&r| c[r]).collect::<Vec<f64>>();
    IsoflopData {
        compute: pick(&data.compute),
        size: pick(&data.size),
        loss: pick(&data.loss),
        tokens: data.tokens.as_deref().map(pick),
    }
}

/// N and D swapped: `isoflop` then fits its curves in ln D.
fn swapped(data: &IsoflopData) -> IsoflopData {
    IsoflopData {
        size: data.tokens.clone().unwrap(),
        tokens: Some(data.size.clone()),
        ..data.clone()
    }
}

/// (N*, D*, D* interval) per target, None where the method gives none.
type Predicted = Vec<Option<(f64, f64, Option<[f64; 2]>)>>;

fn from_predictions(predictions: &[BudgetPrediction], targets: usize, in_d: bool) -> Predicted {
    if predictions.len() != targets {
        return vec![None; targets];
    }
    predictions
        .iter()
        .map(|p| {
            Some(if in_d {
                (p.d.value, p.n.value, p.n.interval)
            } else {
                (p.n.value, p.d.value, p.d.interval)
            })
        })
        .collect()
}

/// The scipy recipe: a parabola in ln D through every run of a budget, a line through the
/// vertices in ln C (no intervals: the recipe gives none).
fn method_b(train: &IsoflopData, targets: &[f64]) -> Predicted {
    let settings = IsoflopSettings {
        shape: Shape::ParabolaAll,
        predict_at: targets.to_vec(),
        method: Method::Profiles,
        calibrate: false,
        ..IsoflopSettings::default()
    };
    match isoflop(&swapped(train), &settings) {
        Ok(r) => from_predictions(&r.predictions, targets.len(), true)
            .into_iter()
            .map(|p| p.map(|(n, d, _)| (n, d, None)))
            .collect(),
        Err(_) => vec![None; targets.len()],
    }
}

/// `isoflop` by `method`: (a) is `profiles`, (c) `auto`.
fn by_method(train: &IsoflopData, targets: &[f64], replicates: usize, method: Method) -> Predicted {
    let settings = IsoflopSettings {
        bootstrap: replicates,
        predict_at: targets.to_vec(),
        method,
        ..IsoflopSettings::default()
    };
    match isoflop(train, &settings) {
        Ok(r) => from_predictions(&r.predictions, targets.len(), false),
        Err(e) => {
            eprintln!("{}: {e}", method.name());
            vec![None; targets.len()]
        }
    }
}

/// The joint law on a fixed window, no intervals (approach 3 on every run).
fn fixed_window(train: &IsoflopData, targets: &[f64], window: Window) -> Predicted {
    match joint_forecast(train, window, targets, &IsoflopSettings::default()) {
        Ok((_, p)) => from_predictions(&p, targets.len(), false),
        Err(_) => vec![None; targets.len()],
    }
}

/// Each budget's own minimum: (budget, N*, D*) from the parabola through every run of it in
/// ln N (Hoffmann et al.'s approach 2 on that budget alone).
fn own_minima(data: &IsoflopData) -> Vec<(f64, f64, f64)> {
    let settings = IsoflopSettings {
        shape: Shape::ParabolaAll,
        ..IsoflopSettings::default()
    };
    let result = isoflop(data, &settings).unwrap();
    result
        .budgets
        .iter()
        .filter_map(|b| Some((b.budget, b.n?, b.d?)))
        .collect()
}

/// The methods compared: (a), (b), (c), then `joint` (the best window, never the minima)
/// and approach 3 on every run.
fn columns() -> Vec<String> {
    [
        "a: profiles (per-budget minima; the default)",
        "b: scipy parabola in ln D",
        "c: auto (best joint window if > 1 s.e. better)",
        "joint: the best joint window by the backtest",
        "approach 3: the joint law on every run",
    ]
    .map(String::from)
    .to_vec()
}

fn predict_all(train: &IsoflopData, targets: &[f64], replicates: usize) -> Vec<Predicted> {
    let all = Window {
        budgets: None,
        half: None,
    };
    vec![
        by_method(train, targets, replicates, Method::Profiles),
        method_b(train, targets),
        by_method(train, targets, replicates, Method::Auto),
        by_method(train, targets, replicates, Method::Joint),
        fixed_window(train, targets, all),
    ]
}

#[derive(Default, Clone)]
struct Score {
    d: Vec<f64>,
    n: Vec<f64>,
    covered: Vec<bool>,
    /// ln(hi/lo) of the D* intervals.
    widths: Vec<f64>,
    /// |ln D* error| at each held-out budget with a truth, None where the method gave none.
    by_target: Vec<Option<f64>>,
}

impl Score {
    fn mean(v: &[f64]) -> f64 {
        v.iter().sum::<f64>() / v.len().max(1) as f64
    }
    fn coverage(&self) -> String {
        match self.covered.len() {
            0 => "-".into(),
            n => format!("{}/{n}", self.covered.iter().filter(|c| **c).count()),
        }
    }
}

/// Scores of every column at the held-out budgets against `truth` (C, N*, D*).
fn score(predicted: &[Predicted], targets: &[f64], truth: &[(f64, f64, f64)]) -> Vec<Score> {
    let mut out = vec![Score::default(); predicted.len()];
    for (t, &c) in targets.iter().enumerate() {
        let Some(&(_, n_true, d_true)) = truth.iter().find(|x| (x.0 / c - 1.0).abs() < 1e-2) else {
            continue;
        };
        for (m, p) in predicted.iter().enumerate() {
            let error = p[t].map(|(_, d, _)| (d.ln() - d_true.ln()).abs());
            out[m].by_target.push(error);
            let Some((n, d, ci)) = p[t] else { continue };
            out[m].d.push((d.ln() - d_true.ln()).abs());
            out[m].n.push((n.ln() - n_true.ln()).abs());
            if let Some([lo, hi]) = ci {
                out[m].covered.push(lo <= d_true && d_true <= hi);
                out[m].widths.push((hi / lo).ln());
            }
        }
    }
    out
}

// ---- Synthetic studies (the generator of tests/integration/isoflop_forecast.rs) ----------

const HOFFMANN: (f64, f64, f64, f64, f64) = (1.69, 406.4, 0.34, 410.7, 0.28);

fn true_n_star(c: f64) -> f64 {
    let (_, a, alpha, b, beta) = HOFFMANN;
    let g = (alpha * a / (beta * b)).powf(1.0 / (alpha + beta));
    g * (c / 6.0).powf(beta / (alpha + beta))
}

/// 7 budgets half a decade apart from 1e18 FLOPs, `runs` sizes per budget log-evenly over
/// ±`range`× around N* shifted by `shift(i)` in ln units, ln-loss noise `noise`.
fn synthetic(seed: u64, runs: usize, range: f64, noise: f64, centre: usize) -> Study {
    let (e, a, alpha, b, beta) = HOFFMANN;
    let mut rng = scalinglaws::rng::Rng::stream(seed, 17);
    let mut data = IsoflopData {
        compute: vec![],
        size: vec![],
        loss: vec![],
        tokens: Some(vec![]),
    };
    let span = range.ln();
    for i in 0..7 {
        let c = 1e18 * 10f64.powf(0.5 * i as f64);
        let shift = match centre {
            0 => 0.0,
            1 => (2.0 * rng.uniform() - 1.0) * 0.5 * span,
            _ => (i as f64 / 6.0 - 0.5) * span,
        };
        for j in 0..runs {
            let offset = -span + 2.0 * span * j as f64 / (runs - 1) as f64;
            let n = true_n_star(c) * (shift + offset).exp();
            let d = c / (6.0 * n);
            data.compute.push(c);
            data.size.push(n);
            data.tokens.as_mut().unwrap().push(d);
            let loss = e + a * n.powf(-alpha) + b * d.powf(-beta);
            data.loss.push(loss * (noise * rng.normal()).exp());
        }
    }
    let published = [2.5f64, 3.0]
        .map(|x| {
            let c = 1e18 * 10f64.powf(x);
            (c, true_n_star(c), c / (6.0 * true_n_star(c)))
        })
        .to_vec();
    Study {
        name: format!("synthetic centre {centre} noise {noise} runs {runs} range {range}"),
        data,
        published,
    }
}

fn synthetic_studies(seeds: u64) -> Vec<Study> {
    let mut out = Vec::new();
    for centre in 0..3 {
        for noise in [0.001, 0.003, 0.01] {
            for runs in [5, 8, 12] {
                for range in [2.0, 4.0, 8.0, 16.0] {
                    for seed in 0..seeds {
                        let tag = seed * 1000 + runs as u64 * 37 + range as u64;
                        out.push(synthetic(tag, runs, range, noise, centre));
                    }
                }
            }
        }
    }
    out
}

fn main() {
    let replicates: usize = std::env::var("REPLICATES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let mut studies = porian();
    let (chin, outside) = chinchilla();
    println!(
        "Chinchilla: {} runs on the nine budgets; {outside} digitised runs more than {CHINCHILLA_WINDOW} decade from every budget left out",
        chin.data.loss.len()
    );
    let without_largest = Study {
        name: "chinchilla, 3e21 (no interior minimum) dropped".into(),
        data: below(&chin.data, 3e21),
        published: Vec::new(),
    };
    studies.push(chin);
    studies.push(without_largest);
    let seeds: u64 = std::env::var("SYNTHETIC_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    studies.extend(synthetic_studies(seeds));
    println!("bootstrap replicates {replicates}; the 2 largest budgets of each study held out, predicted from the others");
    println!("truth P: the paper's own per-budget optimum (Porian et al.'s optimal_pairs.csv)");
    println!("truth O: the held-out budget's own minimum, a parabola in ln N through its runs");
    println!();
    println!(
        "{:46} {:5} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7}  {:>6} {:>6}  window of (c)",
        "study", "truth", "a lnD", "b lnD", "c lnD", "a lnN", "b lnN", "c lnN", "cov a", "cov c"
    );
    let started = std::time::Instant::now();
    let names = columns();
    let mut totals: BTreeMap<(&str, &str), Vec<Score>> = BTreeMap::new();
    let mut per_study: BTreeMap<(&str, &str), Vec<Vec<Vec<Option<f64>>>>> = BTreeMap::new();
    for study in &studies {
        let mut budgets: Vec<f64> = study.data.compute.clone();
        budgets.sort_by(f64::total_cmp);
        budgets.dedup_by(|a, b| (*a / *b - 1.0).abs() < 1e-3);
        let cut = budgets[budgets.len() - 2];
        let train = below(&study.data, cut);
        let targets = budgets[budgets.len() - 2..].to_vec();
        let predicted = predict_all(&train, &targets, replicates);
        let chosen = chosen(&train, &targets);
        let own = own_minima(&study.data);
        let family = if study.name.starts_with("synthetic") {
            "Synthetic (Hoffmann et al.'s law; truth P = the law's own optimum)"
        } else if study.name.starts_with("porian") {
            "Porian (15 configurations)"
        } else if study.name.contains("dropped") {
            "Chinchilla, 8 budgets (3e21 dropped)"
        } else {
            "Chinchilla, 9 budgets"
        };
        for (label, truth) in [("P", &study.published), ("O", &own)] {
            let scores = score(&predicted, &targets, truth);
            if scores[0].d.is_empty() {
                continue;
            }
            let total = totals
                .entry((family, label))
                .or_insert_with(|| vec![Score::default(); names.len()]);
            let errors = scores.iter().map(|s| s.by_target.clone()).collect();
            per_study.entry((family, label)).or_default().push(errors);
            for (t, s) in total.iter_mut().zip(scores.clone()) {
                t.d.extend(s.d);
                t.n.extend(s.n);
                t.covered.extend(s.covered);
                t.widths.extend(s.widths);
            }
            if family.starts_with("Synthetic") {
                continue;
            }
            println!(
                "{:46} {:5} {:7.4} {:7.4} {:7.4} {:7.4} {:7.4} {:7.4}  {:>6} {:>6}  {chosen}",
                study.name,
                label,
                Score::mean(&scores[0].d),
                Score::mean(&scores[1].d),
                Score::mean(&scores[2].d),
                Score::mean(&scores[0].n),
                Score::mean(&scores[1].n),
                Score::mean(&scores[2].n),
                scores[0].coverage(),
                scores[2].coverage(),
            );
        }
    }
    println!();
    println!(
        "wall time of the studies: {:.0} s",
        started.elapsed().as_secs_f64()
    );
    for (key, scores) in &totals {
        let (family, label) = key;
        println!();
        println!(
            "{family}, truth {label}: mean |ln error| over {} held-out budgets",
            scores[0].d.len()
        );
        println!(
            "  {:62} {:>8} {:>8} {:>15} {:>9}",
            "method", "D*", "N*", "D* cover", "width ×"
        );
        for (name, s) in names.iter().zip(scores) {
            let cover = match s.covered.len() {
                0 => "-".to_string(),
                n => {
                    let k = s.covered.iter().filter(|c| **c).count();
                    format!("{:.3} ({k}/{n})", k as f64 / n as f64)
                }
            };
            let width = match s.widths.len() {
                0 => "-".to_string(),
                _ => format!("{:.3}", Score::mean(&s.widths).exp()),
            };
            println!(
                "  {:62} {:8.4} {:8.4} {:>15} {:>9}",
                name,
                Score::mean(&s.d),
                Score::mean(&s.n),
                cover,
                width
            );
        }
        print_differences(&names, per_study.get(key).map_or(&[][..], Vec::as_slice));
    }
}

/// Each method's |ln D* error| minus the per-budget minima's (a), paired budget by budget:
/// per study the mean over the held-out budgets both predicted, then the mean over studies
/// (weighted equally) with its standard error over studies (a study's held-out budgets share
/// its runs, so the study, not the budget, is the independent unit). `studies[s][m][t]` is
/// method m's error at target t of study s.
fn print_differences(names: &[String], studies: &[Vec<Vec<Option<f64>>>]) {
    if studies.len() < 2 {
        return;
    }
    println!("  paired: D* error minus (a)'s over the budgets both predicted, per study, then mean ± standard error over studies");
    for (m, name) in names.iter().enumerate().skip(1) {
        let diffs: Vec<f64> = studies
            .iter()
            .filter_map(|study| {
                let pairs: Vec<f64> = study[m]
                    .iter()
                    .zip(&study[0])
                    .filter_map(|(e, a)| Some((*e)? - (*a)?))
                    .collect();
                (!pairs.is_empty()).then(|| Score::mean(&pairs))
            })
            .collect();
        let k = diffs.len();
        if k < 2 {
            continue;
        }
        let mean = Score::mean(&diffs);
        let var = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (k - 1) as f64;
        println!(
            "    {:60} {:+8.4} ± {:.4} ({k} studies)",
            name,
            mean,
            (var / k as f64).sqrt()
        );
    }
}

/// What `auto` chose on `train`, in a few words.
fn chosen(train: &IsoflopData, targets: &[f64]) -> String {
    let settings = IsoflopSettings {
        predict_at: targets.to_vec(),
        method: Method::Auto,
        calibrate: false,
        ..IsoflopSettings::default()
    };
    match isoflop(train, &settings).ok().and_then(|r| r.method_choice) {
        Some(choice) => match choice.chosen {
            scalinglaws::analysis::isoflop::Candidate::Profiles => "profiles".into(),
            scalinglaws::analysis::isoflop::Candidate::Joint(w) => format!(
                "joint {}/{}",
                w.budgets.map_or("all".into(), |b| b.to_string()),
                w.half.map_or("all".into(), |h| h.to_string())
            ),
        },
        None => "-".into(),
    }
}
