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

/// Tracks with their own copies of A and B: each row of the joint problem depends on the three
/// shared parameters and its track's two copies, and evaluates as many operations whatever the
/// number of tracks (what keeps the joint fit's cost quadratic in tracks, not quartic).
#[test]
fn a_joint_problem_is_row_sparse_whatever_the_number_of_tracks() {
    let law = catalog::lookup("chinchilla").unwrap();
    let shared: Vec<String> = ["E", "alpha", "beta"].map(String::from).to_vec();
    let evaluated_per_row = |count: usize| {
        let a = [1.69, 406.4, 0.34, 410.7, 0.28];
        let tracks: Vec<Track> = (0..count)
            .map(|t| chinchilla_track(&format!("T{t}"), a, 0.01, t as u64))
            .collect();
        let (joint, _) = joint::joint_law(&law, &shared, count).unwrap();
        let (data, _) = joint::joint_data(&tracks);
        let problem = crate::fit::problem_for(&joint, &data, &FitSettings::default()).unwrap();
        let groups = problem.row_groups().expect("row-sparse");
        assert_eq!(groups.width, law.params.len());
        assert_eq!(groups.runs.len(), count);
        let ops = problem.tape().n_ops();
        let planned = groups.runs[count - 1].ops.per_row();
        let evaluated = groups.runs[count - 1]
            .steps
            .iter()
            .filter(|s| **s == crate::law::tape::Step::Eval)
            .count();
        assert!(
            planned < evaluated && evaluated < ops,
            "{planned}, {evaluated} of {ops}"
        );
        planned
    };
    assert_eq!(evaluated_per_row(3), evaluated_per_row(12));
}

/// The row-sparse exact Hessian of a joint problem is the dense one, and its run-by-run
/// Jacobian sweep the whole-column one.
#[test]
fn the_row_sparse_hessian_is_the_dense_one() {
    let law = catalog::lookup("chinchilla").unwrap();
    let a = [1.69, 406.4, 0.34, 410.7, 0.28];
    let tracks: Vec<Track> = (0..4)
        .map(|t| chinchilla_track(&format!("T{t}"), a, 0.01, t as u64))
        .collect();
    let shared: Vec<String> = ["alpha", "beta"].map(String::from).to_vec();
    let (joint, _) = joint::joint_law(&law, &shared, tracks.len()).unwrap();
    let (data, _) = joint::joint_data(&tracks);
    let problem = crate::fit::problem_for(&joint, &data, &FitSettings::default()).unwrap();
    let p: Vec<f64> = joint
        .param_names()
        .iter()
        .enumerate()
        .map(|(i, name)| match name.split("__").next().unwrap() {
            "E" => 1.5 + 0.01 * i as f64,
            "alpha" => 0.3,
            "beta" => 0.25,
            _ => 300.0 + 10.0 * i as f64,
        })
        .collect();
    let sparse = problem.exact_natural(&p).unwrap();
    let dense = problem.exact_dense(&p).unwrap();
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1e-300);
    assert!(close(sparse.value, dense.value));
    assert!(sparse
        .gradient
        .iter()
        .zip(dense.gradient.iter())
        .all(|(x, y)| close(*x, *y)));
    assert!(sparse
        .curvature
        .iter()
        .zip(dense.curvature.iter())
        .all(|(x, y)| close(*x, *y)));
    let tape = problem.tape();
    let runs: Vec<_> = problem
        .row_groups()
        .unwrap()
        .runs
        .iter()
        .map(|run| (run.rows.clone(), &run.ops))
        .collect();
    let mut scratch = tape.scratch();
    let (value, jacobian) = tape.jacobian_columns(&p, &mut scratch);
    let (value, jacobian) = (value.to_vec(), jacobian.to_vec());
    let (planned_value, planned) =
        tape.jacobian_columns_planned(&p, 0..tape.n_rows(), &runs, &mut scratch);
    assert!(value.iter().zip(planned_value).all(|(x, y)| close(*x, *y)));
    assert_eq!(jacobian.len(), planned.len());
    assert!(jacobian.iter().zip(planned).all(|(x, y)| close(*x, *y)));
}
