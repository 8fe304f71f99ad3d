//! Issue 24's simulation study: does a designed batch buy more certainty at the target scale
//! per FLOP than the layouts labs use today?
//!
//! Three truths: Chinchilla at Epoch AI's optimum (fitted with `chinchilla`), the
//! data-constrained law at Muennighoff et al. 2023's published fit with 2e10 unique tokens
//! (fitted with `data_constrained`), and a misspecified one: Chinchilla whose N term breaks
//! to a shallower exponent above 1e9 parameters (a broken power law, Caballero et al. 2022;
//! fitted with `chinchilla`, which cannot follow it). Every campaign starts from the same
//! 3 × 3 seed grid at ≤ 1e18 FLOPs with 1 % noise in log loss, then spends the same FLOPs on
//! one of: a log-uniform 4 × 4 N × D grid, IsoFLOP curves at 5 budgets (5 sizes each), or the
//! batch `design` chooses (at most 16 runs) on the seed fit. The law is refitted on the seed
//! and the new runs, and the widths of the 95 % intervals (delta method on the fit's
//! covariance) of the compute-optimal loss at 1e23 FLOPs and of D*/N* there are recorded,
//! with whether each interval holds the truth.
//!
//! Run: `cargo run --release -p scalinglaws --example design_study [SEEDS] [SPEND]`
//! (100 seeds and 1e21 FLOPs by default; bench/results/design_study.txt is its output).

use std::collections::BTreeMap;

use rayon::prelude::*;
use scalinglaws::analysis::allocation::Flops;
use scalinglaws::analysis::design::{
    design, Candidates, DesignSettings, Knowledge, Quantity, Target,
};
use scalinglaws::fit::{self, FitData, FitSettings};
use scalinglaws::law::catalog;
use scalinglaws::rng::Rng;
use scalinglaws::Law;

const NOISE: f64 = 0.01;
const BUDGET: f64 = 1e23;
const UNIQUE: f64 = 2e9;
const RUNS: usize = 16;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Truth {
    Chinchilla,
    DataConstrained,
    Broken,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Strategy {
    Grid,
    Isoflop,
    Design,
    DesignHalf,
    TwoRounds,
    Oracle,
}

fn epoch(law: &Law) -> Vec<f64> {
    let value = |name: &str| match name {
        "E" => 1.81721,
        "A" => 477.86,
        "B" => 2142.56,
        "alpha" => 0.347315,
        "beta" => 0.367153,
        _ => unreachable!(),
    };
    law.params.iter().map(|p| value(&p.name)).collect()
}

fn muennighoff(law: &Law) -> Vec<f64> {
    let value = |name: &str| match name {
        "alpha" | "beta" => 0.3526596,
        "A" => 6.255414f64.exp(),
        "B" => 7.3049974f64.exp(),
        "E" => 0.6254804f64.exp(),
        "RN_star" => 5.309743,
        "RD_star" => 15.387756,
        _ => unreachable!(),
    };
    law.params.iter().map(|p| value(&p.name)).collect()
}

impl Truth {
    fn law(self) -> Law {
        catalog::lookup(match self {
            Truth::DataConstrained => "data_constrained",
            _ => "chinchilla",
        })
        .unwrap()
    }

    /// The true mean loss at (N, D).
    fn loss(self, law: &Law, n: f64, d: f64) -> f64 {
        match self {
            Truth::Chinchilla => law.eval(&epoch(law), &[n, d]),
            Truth::DataConstrained => law.eval(&muennighoff(law), &[n, d, UNIQUE]),
            Truth::Broken => {
                let (e, a, b, alpha, beta) = (1.81721, 477.86, 2142.56, 0.347315, 0.367153);
                let (break_at, alpha2, sharpness) = (1e9, 0.25, 0.3);
                let bend = (1.0 + (n / break_at).powf(1.0 / sharpness))
                    .powf(-(alpha2 - alpha) * sharpness);
                e + a * n.powf(-alpha) * bend + b * d.powf(-beta)
            }
        }
    }

    /// The point of the fitted law's variables for a run.
    fn point(self, n: f64, d: f64) -> Vec<f64> {
        match self {
            Truth::DataConstrained => vec![n, d, UNIQUE],
            _ => vec![n, d],
        }
    }

    fn held(self) -> BTreeMap<String, f64> {
        match self {
            Truth::DataConstrained => BTreeMap::from([("U".to_string(), UNIQUE)]),
            _ => BTreeMap::new(),
        }
    }

    /// The true compute-optimal loss at `BUDGET` and D*/N* there (a golden-section search in
    /// log N along 6·N·D = C, refined to 1e-12).
    fn targets(self, law: &Law) -> [f64; 2] {
        let f = |log_n: f64| {
            let n = 10f64.powf(log_n);
            self.loss(law, n, BUDGET / (6.0 * n))
        };
        let (mut lo, mut hi) = (6.0, 14.0);
        let ratio = (5f64.sqrt() - 1.0) / 2.0;
        for _ in 0..200 {
            let a = hi - ratio * (hi - lo);
            let b = lo + ratio * (hi - lo);
            if f(a) < f(b) {
                hi = b;
            } else {
                lo = a;
            }
        }
        let n = 10f64.powf((lo + hi) / 2.0);
        [f((lo + hi) / 2.0), BUDGET / (6.0 * n) / n]
    }
}

fn targets(truth: Truth) -> Vec<Target> {
    [Quantity::OptimalLoss, Quantity::TokensPerParam]
        .into_iter()
        .map(|quantity| Target::AtBudget {
            quantity,
            budget: BUDGET,
            held: truth.held(),
        })
        .collect()
}

/// Runs at (N, D) with outcomes drawn from the truth.
fn observe(truth: Truth, law: &Law, runs: &[(f64, f64)], rng: &mut Rng, data: &mut FitData) {
    for &(n, d) in runs {
        for (column, v) in data.variables.iter_mut().zip(truth.point(n, d)) {
            column.push(v);
        }
        data.target
            .push(truth.loss(law, n, d) * (NOISE * rng.normal()).exp());
    }
}

fn seed_runs() -> Vec<(f64, f64)> {
    let mut runs = Vec::new();
    for &n in &[1e7, 3e7, 1e8] {
        for &d in &[2e8, 6e8, 1.6e9] {
            runs.push((n, d));
        }
    }
    runs
}

/// The N × D grid, scaled (its largest N and D together) to cost `spend` in all.
fn grid_runs(spend: f64) -> Vec<(f64, f64)> {
    let make = |top: f64| {
        let mut runs = Vec::new();
        for i in 0..4 {
            for j in 0..4 {
                let n = 10f64.powf(7.0 + (top.log10() - 7.0) * i as f64 / 3.0);
                let d = 10f64.powf(
                    2e8f64.log10() + ((20.0 * top).log10() - 2e8f64.log10()) * j as f64 / 3.0,
                );
                runs.push((n, d));
            }
        }
        runs
    };
    scaled(spend, make)
}

/// IsoFLOP curves at 5 budgets two decades apart in all, 5 sizes each (half a decade either
/// side of 20 tokens per parameter), scaled to cost `spend` in all.
fn isoflop_runs(spend: f64) -> Vec<(f64, f64)> {
    let make = |top: f64| {
        let mut runs = Vec::new();
        for k in 0..5 {
            let c = top * 10f64.powf(-2.0 + 0.5 * k as f64);
            let centre = (c / 6.0 / 20.0).sqrt();
            for i in 0..5 {
                let n = centre * 10f64.powf(-0.5 + 0.25 * i as f64);
                runs.push((n, c / (6.0 * n)));
            }
        }
        runs
    };
    scaled(spend, make)
}

/// `make(top)` with `top` bisected (in log) until its runs cost `spend`.
fn scaled(spend: f64, make: impl Fn(f64) -> Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    let cost = |runs: &[(f64, f64)]| runs.iter().map(|(n, d)| 6.0 * n * d).sum::<f64>();
    let (mut lo, mut hi) = (1.0f64, 30.0f64);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if cost(&make(10f64.powf(mid))) > spend {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    make(10f64.powf(lo))
}

/// Candidates: N from 1e7 to 1e11 and D from 1e8 to 1e13, 8 per decade, 2 to 500 tokens per
/// parameter.
fn candidates(truth: Truth, spend: f64) -> Candidates {
    let (mut points, mut cost) = (Vec::new(), Vec::new());
    for i in 0..=32 {
        for j in 0..=40 {
            let n = 10f64.powf(7.0 + i as f64 / 8.0);
            let d = 10f64.powf(8.0 + j as f64 / 8.0);
            let c = 6.0 * n * d;
            if c <= spend && (2.0..=500.0).contains(&(d / n)) {
                points.push(truth.point(n, d));
                cost.push(c);
            }
        }
    }
    Candidates { points, cost }
}

fn designed_runs(
    truth: Truth,
    law: &Law,
    seed_data: &FitData,
    spend: f64,
    runs: usize,
    seed: u64,
) -> Option<Vec<(f64, f64)>> {
    let settings = fit_settings();
    let seed_fit = fit::fit(law, seed_data, &settings).ok()?;
    let knowledge =
        Knowledge::from_fit(law.clone(), settings, seed_data.clone(), &seed_fit, None).ok()?;
    let candidates = candidates(truth, spend);
    let design_settings = DesignSettings {
        targets: targets(truth),
        runs,
        spend: Some(spend),
        flops: Flops::standard(),
        draws: 16,
        simulations: 0,
        rounds: 1,
        level: 0.95,
        seed,
    };
    let result = design(&knowledge, &candidates, &design_settings, None).ok()?;
    let chosen: Vec<(f64, f64)> = result
        .runs
        .iter()
        .map(|r| (r.point["N"], r.point["D"]))
        .collect();
    (!chosen.is_empty()).then_some(chosen)
}

/// The batch the design would choose if it knew the true parameters (one draw, the truth;
/// the seed runs' information at the truth): what no design from data can beat, in the
/// information's terms. None for the misspecified truth, which no parameters of the law are.
fn oracle_runs(
    truth: Truth,
    law: &Law,
    seed_data: &FitData,
    spend: f64,
) -> Option<Vec<(f64, f64)>> {
    let centre = match truth {
        Truth::Chinchilla => epoch(law),
        Truth::DataConstrained => muennighoff(law),
        Truth::Broken => return None,
    };
    let free = law.params.len();
    let knowledge = Knowledge {
        law: law.clone(),
        settings: fit_settings(),
        data: seed_data.clone(),
        centre,
        noise: NOISE,
        prior_sd: vec![scalinglaws::analysis::design::WEAK_PRIOR_SD; free],
    };
    let design_settings = DesignSettings {
        targets: targets(truth),
        runs: RUNS,
        spend: Some(spend),
        flops: Flops::standard(),
        draws: 1,
        simulations: 0,
        rounds: 1,
        level: 0.95,
        seed: 0,
    };
    let result = design(
        &knowledge,
        &candidates(truth, spend),
        &design_settings,
        None,
    )
    .ok()?;
    Some(
        result
            .runs
            .iter()
            .map(|r| (r.point["N"], r.point["D"]))
            .collect(),
    )
}

/// One campaign: (widths, covered) of the two targets, None when a fit fails.
fn campaign(
    truth: Truth,
    strategy: Strategy,
    spend: f64,
    seed: u64,
) -> Option<([f64; 2], [bool; 2])> {
    let law = truth.law();
    let mut rng = Rng::stream(seed, 0);
    let empty = vec![Vec::new(); law.variables.len()];
    let mut data = FitData {
        variables: empty,
        target: Vec::new(),
        weights: None,
        trials: None,
        exposure: None,
    };
    observe(truth, &law, &seed_runs(), &mut rng, &mut data);
    let new_runs = match strategy {
        Strategy::Grid => grid_runs(spend),
        Strategy::Isoflop => isoflop_runs(spend),
        Strategy::Design => designed_runs(truth, &law, &data, spend, RUNS, seed)?,
        Strategy::DesignHalf => designed_runs(truth, &law, &data, spend / 2.0, RUNS, seed)?,
        Strategy::Oracle => oracle_runs(truth, &law, &data, spend)?,
        Strategy::TwoRounds => {
            let first = designed_runs(truth, &law, &data, spend / 2.0, RUNS / 2, seed)?;
            observe(truth, &law, &first, &mut Rng::stream(seed, 2), &mut data);
            designed_runs(truth, &law, &data, spend / 2.0, RUNS / 2, seed + 1_000_000)?
        }
    };
    let mut outcome_rng = Rng::stream(seed, 1);
    observe(truth, &law, &new_runs, &mut outcome_rng, &mut data);
    let result = fit::fit(&law, &data, &fit_settings()).ok()?;
    let targets = targets(truth);
    let widths = scalinglaws::analysis::design::simulate::widths_of(
        &law,
        &result,
        &targets,
        &Flops::standard(),
        0.95,
    )?;
    let params = result.param_values();
    let truths = truth.targets(&law);
    let mut covered = [false; 2];
    for t in 0..2 {
        let value = targets[t].value(&law, &Flops::standard(), &params)?;
        covered[t] = (value - truths[t]).abs() <= widths[t] / 2.0;
    }
    Some(([widths[0] / truths[0], widths[1] / truths[1]], covered))
}

/// Least squares on log loss: the noise is Gaussian in log loss, so its covariance is the
/// one the delta method needs (the field's Huber δ = 1e-3 is nearly an L1 fit at 1 % noise,
/// whose sandwich covariance is unreliable at these sizes).
fn fit_settings() -> FitSettings {
    FitSettings {
        loss: scalinglaws::fit::LossKind::Linear,
        ..FitSettings::default()
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seeds: u64 = args.get(1).map_or(100, |s| s.parse().unwrap());
    let spend: f64 = args.get(2).map_or(1e21, |s| s.parse().unwrap());
    println!("# design_study: {seeds} seeds, spend {spend:e} FLOPs after a 3 x 3 seed grid at <= 1e18, noise {NOISE} in log loss");
    println!("# widths: median width of the 95 % interval relative to the true value; coverage: share of intervals holding the truth");
    println!(
        "{:<17} {:<12} {:>6} {:>12} {:>10} {:>12} {:>10}",
        "truth", "strategy", "fits", "L* width", "L* cover", "D/N width", "D/N cover"
    );
    for truth in [Truth::Chinchilla, Truth::DataConstrained, Truth::Broken] {
        for strategy in [
            Strategy::Grid,
            Strategy::Isoflop,
            Strategy::Design,
            Strategy::DesignHalf,
            Strategy::TwoRounds,
            Strategy::Oracle,
        ] {
            let results: Vec<Option<([f64; 2], [bool; 2])>> = (0..seeds)
                .into_par_iter()
                .map(|s| campaign(truth, strategy, spend, s))
                .collect();
            let done: Vec<&([f64; 2], [bool; 2])> = results.iter().flatten().collect();
            let k = done.len() as f64;
            let width = |t: usize| median(done.iter().map(|r| r.0[t]).collect());
            let cover = |t: usize| done.iter().filter(|r| r.1[t]).count() as f64 / k;
            println!(
                "{:<17} {:<12} {:>6} {:>12.4} {:>10.3} {:>12.4} {:>10.3}",
                format!("{truth:?}"),
                format!("{strategy:?}"),
                done.len(),
                width(0),
                cover(0),
                width(1),
                cover(1)
            );
        }
    }
}
