//! Criterion benchmark of one design step (issue 24's budget: 10 s on 2 cores): Chinchilla's
//! law fitted to a 3 × 3 seed grid at ≤ 1e18 FLOPs (Epoch AI's parameters, 1 % noise), about
//! 1,000 candidate runs, 32 parameter draws, a batch of 8 runs within 1e21 FLOPs, and the 200
//! simulated refits that check the expected widths of the compute-optimal loss and D*/N* at
//! 1e23 FLOPs.

use std::collections::BTreeMap;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use scalinglaws::analysis::allocation::Flops;
use scalinglaws::analysis::design::{
    design, Candidates, DesignSettings, Knowledge, Quantity, Target,
};
use scalinglaws::fit::{self, FitData, FitSettings, LossKind};
use scalinglaws::law::catalog;
use scalinglaws::rng::Rng;

fn knowledge() -> Knowledge {
    let law = catalog::lookup("chinchilla").unwrap();
    let theta = [1.81721, 477.86, 2142.56, 0.347315, 0.367153];
    let theta: Vec<f64> = law
        .params
        .iter()
        .map(|p| {
            theta[["E", "A", "B", "alpha", "beta"]
                .iter()
                .position(|n| *n == p.name)
                .unwrap()]
        })
        .collect();
    let mut rng = Rng::new(1);
    let mut data = FitData {
        variables: vec![Vec::new(), Vec::new()],
        target: Vec::new(),
        weights: None,
        trials: None,
        exposure: None,
    };
    for &n in &[1e7, 3e7, 1e8] {
        for &d in &[2e8, 6e8, 1.6e9] {
            data.variables[0].push(n);
            data.variables[1].push(d);
            data.target
                .push(law.eval(&theta, &[n, d]) * (0.01 * rng.normal()).exp());
        }
    }
    let settings = FitSettings {
        loss: LossKind::Linear,
        ..FitSettings::default()
    };
    let result = fit::fit(&law, &data, &settings).unwrap();
    Knowledge::from_fit(law, settings, data, &result, None).unwrap()
}

/// N from 1e7 to 1e11 and D from 1e8 to 1e13 at 14 per decade, 2 to 500 tokens per parameter,
/// at most 1e21 FLOPs: 1,069 candidates.
fn candidates() -> Candidates {
    let (mut points, mut cost) = (Vec::new(), Vec::new());
    for i in 0..=56 {
        for j in 0..=70 {
            let (n, d) = (
                10f64.powf(7.0 + i as f64 / 14.0),
                10f64.powf(8.0 + j as f64 / 14.0),
            );
            if 6.0 * n * d <= 1e21 && (2.0..=500.0).contains(&(d / n)) {
                points.push(vec![n, d]);
                cost.push(6.0 * n * d);
            }
        }
    }
    Candidates { points, cost }
}

fn benches(c: &mut Criterion) {
    let knowledge = knowledge();
    let candidates = candidates();
    eprintln!("{} candidates", candidates.points.len());
    let settings = DesignSettings {
        targets: [Quantity::OptimalLoss, Quantity::TokensPerParam]
            .into_iter()
            .map(|quantity| Target::AtBudget {
                quantity,
                budget: 1e23,
                held: BTreeMap::new(),
            })
            .collect(),
        runs: 8,
        spend: Some(1e21),
        flops: Flops::standard(),
        draws: 32,
        simulations: 200,
        rounds: 1,
        level: 0.95,
        seed: 0,
    };
    let mut group = c.benchmark_group("design");
    group.sample_size(10);
    group.bench_function("step_1000_candidates_200_refits", |b| {
        b.iter(|| black_box(design(&knowledge, &candidates, &settings, None).unwrap()))
    });
    group.finish();
}

criterion_group!(design_benches, benches);
criterion_main!(design_benches);
