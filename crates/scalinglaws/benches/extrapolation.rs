//! Criterion benchmarks of the extrapolation machinery on the 240-run Chinchilla data (Epoch
//! protocol): the calibration of a fit's prediction intervals by 5 rolling-origin backtests
//! (no bootstrap; issue budget 100 ms), the default fit with the cross-study prior's intervals at
//! three points (issue 48's budget: 60 ms), and `select` over 4 candidate laws (each fitted, its
//! 5 rolling origins fitted and calibrated, BIC, stacking; budget 1 s), and with a fifth,
//! 7-parameter law added.

#[path = "../tests/integration/common/mod.rs"]
mod common;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use scalinglaws::analysis::law_comparison::Candidate;
use scalinglaws::analysis::selection::{select, SelectionOptions};
use scalinglaws::fit::{FitData, FitSettings};
use scalinglaws::law::{catalog, Law};
use scalinglaws::uncertainty::{calibrate, CalibrationOptions};

fn formula(text: &str) -> Law {
    Law::from_formula(text, &|name| name == "N" || name == "D").unwrap()
}

/// The README's four candidates: Chinchilla's law, its tied-exponent form, a law without an
/// irreducible term (formulas in N, D), and the over-training law in N and M = D/N.
fn four_candidates(data: &FitData) -> Vec<Candidate> {
    let candidate = |label: &str, law: Law, data: FitData| Candidate {
        label: label.into(),
        law,
        settings: FitSettings::default(),
        data,
    };
    let multiplier: Vec<f64> = data.variables[0]
        .iter()
        .zip(&data.variables[1])
        .map(|(n, d)| d / n)
        .collect();
    let with_m = FitData {
        variables: vec![data.variables[0].clone(), multiplier],
        ..data.clone()
    };
    vec![
        candidate(
            "chinchilla",
            catalog::lookup("chinchilla").unwrap(),
            data.clone(),
        ),
        candidate("tied", formula("E + A*N^-eta + B*D^-eta"), data.clone()),
        candidate("no_floor", formula("A*N^-alpha + B*D^-beta"), data.clone()),
        candidate(
            "overtraining",
            catalog::lookup("overtraining").unwrap(),
            with_m,
        ),
    ]
}

/// A fifth candidate with 7 parameters (Chinchilla plus an N·D interaction), whose global
/// search is the slow part of a selection.
fn interaction(data: &FitData) -> Candidate {
    Candidate {
        label: "interaction".into(),
        law: formula("E + A*N^-alpha + B*D^-beta + G*(N*D)^-gamma"),
        settings: FitSettings::default(),
        data: data.clone(),
    }
}

fn benches(c: &mut Criterion) {
    let (data, scale) = common::real::chinchilla();
    let law = catalog::lookup("chinchilla").unwrap();
    let settings = FitSettings::default();
    let options = CalibrationOptions::default();
    let mut group = c.benchmark_group("extrapolation");
    group.sample_size(10);
    group.bench_function("chinchilla_calibration_5_origins", |b| {
        b.iter(|| calibrate(&law, black_box(&data), "C", &scale, &settings, &options).unwrap())
    });
    // Issue 48's budget (60 ms): the default fit of the bundled example with the intervals a
    // user gets, the cross-study prior updated by the fit's 5 rolling origins, at the README's
    // two points beyond the data and one below it.
    let points = vec![vec![7e10, 1.4e12], vec![1e12, 2e13], vec![1e8, 1e9]];
    group.bench_function("chinchilla_default_fit_with_prior_intervals", |b| {
        b.iter(|| {
            let fitted = scalinglaws::fit::fit(&law, black_box(&data), &settings).unwrap();
            let mut record = scalinglaws::uncertainty::FitRecord::from(fitted);
            let calibration = calibrate(&law, &data, "C", &scale, &settings, &options).unwrap();
            record.calibration = Some(calibration.require_rule());
            scalinglaws::uncertainty::predict_with_intervals(&record, &points, 0.95).unwrap()
        })
    });
    let candidates = four_candidates(&data);
    group.bench_function("chinchilla_select_4_laws", |b| {
        b.iter(|| {
            select(
                black_box(&candidates),
                "C",
                &scale,
                &SelectionOptions::default(),
            )
            .unwrap()
        })
    });
    let mut five = candidates.clone();
    five.push(interaction(&data));
    group.bench_function("chinchilla_select_5_laws_with_interaction", |b| {
        b.iter(|| select(black_box(&five), "C", &scale, &SelectionOptions::default()).unwrap())
    });
    group.finish();
}

criterion_group!(extrapolation, benches);
criterion_main!(extrapolation);
