//! Recipe comparison on synthetic tracks with known multipliers, shared parameters and seeds.

use super::*;
use crate::law::catalog;

fn chinchilla_track(label: &str, params: [f64; 5], noise: f64, seed: u64) -> Track {
    let mut rng = crate::rng::Rng::new(seed);
    let law = catalog::lookup("chinchilla").unwrap();
    let mut data = FitData {
        variables: vec![Vec::new(), Vec::new()],
        target: Vec::new(),
        weights: None,
        trials: None,
        exposure: None,
    };
    for i in 0..8 {
        for j in 0..5 {
            let n = 5e7 * 10f64.powf(i as f64 * 2.5 / 7.0);
            let d = 20.0 * n * 10f64.powf((j as f64 - 2.0) * 0.4);
            let loss = law.eval(&params, &[n, d]) * (noise * rng.normal()).exp();
            data.variables[0].push(n);
            data.variables[1].push(d);
            data.target.push(loss);
        }
    }
    Track {
        label: label.into(),
        data,
    }
}

fn settings(shared: &[&str], bootstrap: usize) -> TrackSettings {
    TrackSettings {
        fit: FitSettings::default(),
        shared: shared.iter().map(|s| s.to_string()).collect(),
        baseline: 0,
        allocation: AllocationSettings::at_budgets(vec![1e20, 1e22]),
        bootstrap,
        seed: 1,
        level: 0.95,
        cell_tolerance: 1e-3,
        calibration: None,
    }
}

/// B is A with N and D each worth √2 times as much: B is worth twice A's compute at every
/// budget, and wins every shared cell.
#[test]
fn a_known_compute_multiplier_is_recovered_without_noise() {
    let a = [1.69, 406.4, 0.34, 410.7, 0.28];
    let s = 2f64.sqrt();
    let b = [a[0], a[1] * s.powf(-a[2]), a[2], a[3] * s.powf(-a[4]), a[4]];
    let tracks = [
        chinchilla_track("A", a, 0.0, 1),
        chinchilla_track("B", b, 0.0, 1),
    ];
    let result = compare_tracks(
        &catalog::lookup("chinchilla").unwrap(),
        &tracks,
        &settings(&[], 0),
    )
    .unwrap();
    let pair = &result.pairs[0];
    for at in &pair.budgets {
        let m = at.multiplier.value.unwrap();
        assert!((m - 2.0).abs() < 1e-3, "multiplier {m} at {:e}", at.budget);
        let mirror = at.track_needs.value.unwrap();
        assert!((mirror - 0.5).abs() < 1e-3, "track needs {mirror}");
        assert!(at.gap.value.unwrap() < 0.0);
    }
    assert_eq!(pair.cells.shared, 40);
    assert_eq!(pair.cells.track_wins, 40);
    assert!(pair.crossover.is_none());
}

/// Sharing every parameter but E: the joint fit recovers both tracks' offsets and the
/// common exponents, and the difference of E gets an interval.
#[test]
fn a_joint_fit_shares_the_named_parameters() {
    let a = [1.69, 406.4, 0.34, 410.7, 0.28];
    let b = [1.79, 406.4, 0.34, 410.7, 0.28];
    let tracks = [
        chinchilla_track("A", a, 0.002, 2),
        chinchilla_track("B", b, 0.002, 3),
    ];
    let law = catalog::lookup("chinchilla").unwrap();
    let result =
        compare_tracks(&law, &tracks, &settings(&["A", "alpha", "B", "beta"], 40)).unwrap();
    let e_a = result.tracks[0].params[0].value;
    let e_b = result.tracks[1].params[0].value;
    assert!(
        (e_a - 1.69).abs() < 0.05 && (e_b - 1.79).abs() < 0.05,
        "{e_a} {e_b}"
    );
    let alpha_a = &result.tracks[0].params[2];
    let alpha_b = &result.tracks[1].params[2];
    assert!(alpha_a.shared && alpha_a.value == alpha_b.value);
    let (name, difference) = &result.pairs[0].differences[0];
    assert_eq!(name, "E");
    let [lo, hi] = difference.ci.unwrap();
    assert!(lo < 0.1 && 0.1 < hi, "[{lo}, {hi}]");
    assert_eq!(result.pairs[0].differences.len(), 1);
}

#[test]
fn bad_comparisons_are_refused() {
    let law = catalog::lookup("chinchilla").unwrap();
    let a = [1.69, 406.4, 0.34, 410.7, 0.28];
    let one = [chinchilla_track("A", a, 0.0, 1)];
    assert!(compare_tracks(&law, &one, &settings(&[], 0)).is_err());
    let two = [
        chinchilla_track("A", a, 0.0, 1),
        chinchilla_track("B", a, 0.0, 2),
    ];
    let error = compare_tracks(&law, &two, &settings(&["gamma"], 0)).unwrap_err();
    assert!(error.to_string().contains("gamma"), "{error}");
    let all = ["E", "A", "alpha", "B", "beta"];
    assert!(compare_tracks(&law, &two, &settings(&all, 0)).is_err());
}
