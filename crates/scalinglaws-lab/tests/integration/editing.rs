//! The model-editing lab against what can be checked by hand: the rank-one edit is exact and
//! local in the C⁻¹ metric, standard editing's weight norm grows at the predicted exponential
//! rate while NAS's stays put, seeded runs are bit-identical at any thread count, and bad
//! settings are refused with their key.

use nalgebra::{DMatrix, DVector};
use scalinglaws::rng::Rng;
use scalinglaws_lab::editing::{
    editing, editing_csv, rank_one_edit, theory_growth_rate, EditingConfig, EditingRow, Variant,
    MAX_PROBES,
};
use scalinglaws_lab::LabError;

fn random_matrix(rng: &mut Rng, rows: usize, cols: usize) -> DMatrix<f64> {
    DMatrix::from_fn(rows, cols, |_, _| rng.normal())
}

fn random_vector(rng: &mut Rng, len: usize) -> DVector<f64> {
    DVector::from_fn(len, |_, _| rng.normal())
}

/// W' k = v to 1e-12 relative, and W' x = W x for x with (C⁻¹k)ᵀx = 0, for a random SPD C.
#[test]
fn rank_one_edit_is_exact_and_local_in_the_inverse_covariance_metric() {
    let mut rng = Rng::new(11);
    for _ in 0..20 {
        let (m, n) = (5, 8);
        let a = random_matrix(&mut rng, n, n);
        let c = &a * a.transpose() + DMatrix::identity(n, n) * 0.1;
        let cholesky = c.clone().cholesky().expect("SPD");
        let mut w = random_matrix(&mut rng, m, n) * 3.0;
        let w_before = w.clone();
        let key = random_vector(&mut rng, n);
        let c_inv_key = cholesky.solve(&key);
        let value = random_vector(&mut rng, m) * 10.0;
        rank_one_edit(&mut w, &key, &c_inv_key, &value).unwrap();
        let miss = (&w * &key - &value).norm() / value.norm();
        assert!(miss < 1e-12, "W'k misses v by {miss}");
        // x = y − k·(kᵀC⁻¹y)/(kᵀC⁻¹k) is C⁻¹-orthogonal to k.
        let y = random_vector(&mut rng, n);
        let x = &y - &key * (c_inv_key.dot(&y) / c_inv_key.dot(&key));
        assert!(c_inv_key.dot(&x).abs() < 1e-10 * x.norm() * c_inv_key.norm());
        let moved = (&w * &x - &w_before * &x).norm() / (&w_before * &x).norm();
        assert!(moved < 1e-12, "an orthogonal direction moved by {moved}");
        // And the change is rank one along the residual: W' − W = r (C⁻¹k)ᵀ/(kᵀC⁻¹k).
        let residual = &value - &w_before * &key;
        let expected = &residual * c_inv_key.transpose() / key.dot(&c_inv_key);
        assert!((&w - &w_before - expected).norm() < 1e-12 * w.norm());
    }
}

#[test]
fn rank_one_edit_refuses_a_zero_key() {
    let mut w = DMatrix::<f64>::zeros(3, 4);
    let zero = DVector::<f64>::zeros(4);
    let err = rank_one_edit(&mut w, &zero, &zero, &DVector::zeros(3)).unwrap_err();
    assert!(matches!(err, LabError::Setting { key: "key", .. }), "{err}");
}

fn log_norms(rows: &[EditingRow], variant: Variant) -> Vec<f64> {
    rows.iter()
        .filter(|r| r.variant == variant)
        .map(|r| r.log_weight_norm)
        .collect()
}

/// The default run: standard ln ‖W‖ grows linearly in t at ½·ln(1 + α²/n) (within 10 %),
/// NAS's growth rate is below a quarter of it in size and its norm stays within 25 % of ‖W_0‖.
#[test]
fn standard_norm_grows_exponentially_and_nas_stays_bounded() {
    let config = EditingConfig::default();
    let result = editing(&config).unwrap();
    let theory = theory_growth_rate(config.feedback, config.cols);
    assert!((result.theory_growth_rate - theory).abs() < 1e-15);
    let standard = result.summary(Variant::Standard).unwrap();
    let nas = result.summary(Variant::Nas).unwrap();
    let relative = (standard.growth_rate - theory).abs() / theory;
    assert!(
        relative < 0.1,
        "rate {} vs theory {theory}",
        standard.growth_rate
    );
    assert!(nas.growth_rate.abs() < 0.25 * standard.growth_rate);
    assert!(
        standard.final_norm_ratio > 20.0,
        "{}",
        standard.final_norm_ratio
    );
    assert!(
        (0.8..1.25).contains(&nas.final_norm_ratio),
        "{}",
        nas.final_norm_ratio
    );
    // Roughly exponential: ln ‖W‖ at T/2 is near the chord between edit 1 and T.
    let logs = log_norms(&result.rows, Variant::Standard);
    let (first, last, mid) = (logs[0], logs[logs.len() - 1], logs[logs.len() / 2]);
    let chord = 0.5 * (first + last);
    assert!(
        (mid - chord).abs() < 0.1 * (last - first),
        "{first} {mid} {last}"
    );
    // ‖W_0‖_F ≈ √m.
    let root_m = (config.rows as f64).sqrt();
    assert!((result.initial_weight_norm - root_m).abs() < 0.05 * root_m);
    // Values follow the weights without NAS and stay at the reference norm with it.
    let value = |v: Variant, t: usize| result.rows.iter().find(|r| r.variant == v && r.edit == t);
    let (early, late) = (
        value(Variant::Standard, 1),
        value(Variant::Standard, config.edits),
    );
    assert!(late.unwrap().value_norm > 20.0 * early.unwrap().value_norm);
    let nas_late = value(Variant::Nas, config.edits).unwrap().value_norm;
    assert!((nas_late - root_m).abs() < 0.25 * root_m, "{nas_late}");
}

/// Both horizons are reached at the defaults; NAS keeps edits at least as long, and keeps the
/// never-edited outputs (drift) intact more than 4× longer.
#[test]
fn nas_extends_the_horizons() {
    let config = EditingConfig::default();
    let result = editing(&config).unwrap();
    let standard = result.summary(Variant::Standard).unwrap();
    let nas = result.summary(Variant::Nas).unwrap();
    let (hs, hn) = (
        standard.horizon.unwrap(),
        nas.horizon.unwrap_or(config.edits + 1),
    );
    assert!(hn >= hs, "retention horizons {hs} (standard) vs {hn} (NAS)");
    assert!(result.horizon_ratio(config.edits).unwrap() >= 1.0);
    let cs = standard.capability_horizon.unwrap();
    let cn = nas.capability_horizon.unwrap_or(config.edits + 1);
    assert!(
        cn > 4 * cs,
        "capability horizons {cs} (standard) vs {cn} (NAS)"
    );
    // Retention starts at 1 and never exceeds 1.
    for row in &result.rows {
        assert!((0.0..=1.0).contains(&row.retention));
        assert!(row.relative_error >= 0.0 && row.drift >= 0.0);
    }
}

fn small_config() -> EditingConfig {
    EditingConfig {
        rows: 16,
        cols: 32,
        edits: 60,
        seeds: 6,
        feedback: 2.0,
        probes: 4,
        seed: 5,
        ..EditingConfig::default()
    }
}

#[test]
fn seeded_output_is_bit_identical_at_any_thread_count() {
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| editing(&small_config()).unwrap())
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(editing_csv(&one.rows), editing_csv(&two.rows));
    for (a, b) in one.summaries.iter().zip(&two.summaries) {
        assert_eq!(a.growth_rate.to_bits(), b.growth_rate.to_bits());
        assert_eq!(a.horizon, b.horizon);
        assert_eq!(a.capability_horizon, b.capability_horizon);
    }
    let other = editing(&EditingConfig {
        seed: 6,
        ..small_config()
    })
    .unwrap();
    assert_ne!(editing_csv(&one.rows), editing_csv(&other.rows));
}

#[test]
fn csv_has_one_line_per_variant_and_edit() {
    let config = small_config();
    let result = editing(&config).unwrap();
    let csv = editing_csv(&result.rows);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + 2 * config.edits);
    let columns = EditingRow::csv_header().split(',').count();
    assert_eq!(columns, 10);
    assert!(lines.iter().all(|l| l.split(',').count() == columns));
    assert!(lines[1].starts_with("standard,1,6,"));
    assert!(lines[1 + config.edits].starts_with("nas,1,6,"));
}

#[test]
fn bad_settings_are_refused_naming_the_key() {
    let base = small_config();
    let cases: Vec<(&str, EditingConfig)> = vec![
        (
            "rows",
            EditingConfig {
                rows: 0,
                ..base.clone()
            },
        ),
        (
            "cols",
            EditingConfig {
                cols: 1,
                ..base.clone()
            },
        ),
        (
            "edits",
            EditingConfig {
                edits: 1,
                ..base.clone()
            },
        ),
        (
            "seeds",
            EditingConfig {
                seeds: 1,
                ..base.clone()
            },
        ),
        (
            "probes",
            EditingConfig {
                probes: MAX_PROBES + 1,
                ..base.clone()
            },
        ),
        (
            "feedback",
            EditingConfig {
                feedback: f64::NAN,
                ..base.clone()
            },
        ),
        (
            "feedback",
            EditingConfig {
                feedback: 0.0,
                ..base.clone()
            },
        ),
        (
            "tolerance",
            EditingConfig {
                tolerance: -1.0,
                ..base.clone()
            },
        ),
        (
            "threshold",
            EditingConfig {
                threshold: 1.5,
                ..base.clone()
            },
        ),
        (
            "drift_limit",
            EditingConfig {
                drift_limit: f64::INFINITY,
                ..base.clone()
            },
        ),
        // ln ‖W‖ would grow by about 60,000·½·ln(1 + 100/32) ≈ 42,000.
        (
            "edits",
            EditingConfig {
                edits: 60_000,
                feedback: 10.0,
                ..base.clone()
            },
        ),
        // Within the growth cap but far beyond the work cap.
        (
            "seeds",
            EditingConfig {
                rows: 4096,
                cols: 4096,
                edits: 5_000,
                ..base.clone()
            },
        ),
    ];
    for (key, config) in cases {
        match editing(&config) {
            Err(LabError::Setting { key: got, message }) => {
                assert_eq!(got, key, "{message}");
                assert!(!message.is_empty());
            }
            Ok(_) => panic!("{key}: accepted"),
        }
    }
}
