//! The spectral estimator on hierarchical multi-index targets: recovery at large n and chance
//! overlap at tiny n, the population moment E[y x xᵀ] = 2Σ a_j w_j w_jᵀ, the cascade of
//! transitions, determinism at any thread count, transition fitting, and refusals.

use scalinglaws::rng::Rng;
use scalinglaws_lab::multi_index::{
    empirical_moment, orthonormal_directions, spectral_recovery, transition_exponents, transitions,
    MultiIndexConfig, RecoveryRow, Transition,
};
use scalinglaws_lab::LabError;

fn setting_key(error: LabError) -> &'static str {
    match error {
        LabError::Setting { key, .. } => key,
    }
}

fn overlap_at(rows: &[RecoveryRow], dimension: usize, kappa_index: usize, direction: usize) -> f64 {
    let mut kappas: Vec<f64> = rows.iter().map(|r| r.kappa).collect();
    kappas.sort_by(|a, b| a.total_cmp(b));
    kappas.dedup_by(|a, b| a.to_bits() == b.to_bits());
    let kappa = kappas[kappa_index];
    rows.iter()
        .find(|r| {
            r.dimension == dimension
                && r.kappa.to_bits() == kappa.to_bits()
                && r.direction == direction
        })
        .map(|r| r.overlap)
        .expect("row present")
}

#[test]
fn one_strong_direction_is_recovered_at_large_n_and_not_at_tiny_n() {
    let config = MultiIndexConfig {
        dimensions: vec![32],
        kappas: vec![0.125, 100.0],
        directions: 1,
        strength_exponent: 0.0,
        noise: 0.0,
        seeds: 16,
        seed: 1,
    };
    let rows = spectral_recovery(&config).unwrap();
    assert_eq!(rows.len(), 2);
    let tiny = overlap_at(&rows, 32, 0, 1);
    let large = overlap_at(&rows, 32, 1, 1);
    assert!(large > 0.95, "overlap {large} at n = 100·d");
    // Chance level is k/d = 1/32 ≈ 0.03; n = 4 samples carry almost nothing.
    assert!(tiny < 0.15, "overlap {tiny} at n = 4");
    // The exact large-κ asymptote: 1 − (2 + 8)/(4·100) = 0.975; the spiked-Wigner
    // prediction 1 − 2/(4·100) = 0.995 is optimistic.
    assert!((rows[1].asymptotic_overlap - 0.975).abs() < 1e-12);
    assert!((rows[1].predicted_overlap - 0.995).abs() < 1e-12);
    assert!((large - rows[1].asymptotic_overlap).abs() < 0.01, "{large}");
}

#[test]
fn the_empirical_moment_converges_to_the_population_identity() {
    let d = 8;
    let strengths = [1.0, 0.5];
    let mut rng = Rng::stream(7, 0);
    let w = orthonormal_directions(&mut rng, d, 2);
    let m = empirical_moment(&mut rng, &w, &strengths, 0.3, 200_000).unwrap();
    let mut worst = 0.0f64;
    for p in 0..d {
        for q in 0..d {
            let expected: f64 = (0..2)
                .map(|j| 2.0 * strengths[j] * w[(p, j)] * w[(q, j)])
                .sum();
            worst = worst.max((m[(p, q)] - expected).abs());
        }
    }
    // Each entry's Monte Carlo standard error is about √(E[y² x_p² x_q²]/n) < 0.01.
    assert!(worst < 0.05, "largest deviation {worst}");
    assert!(empirical_moment(&mut rng, &w, &strengths, 0.0, 0).is_none());
    assert!(empirical_moment(&mut rng, &w, &[1.0], 0.0, 10).is_none());
}

fn cascade_config() -> MultiIndexConfig {
    MultiIndexConfig {
        dimensions: vec![32, 128],
        kappas: (-2..=10).map(|i| 2f64.powf(i as f64 / 2.0)).collect(),
        directions: 2,
        strength_exponent: 0.25,
        noise: 0.0,
        seeds: 8,
        seed: 11,
    }
}

#[test]
fn the_directions_are_learned_one_after_another() {
    let config = cascade_config();
    let rows = spectral_recovery(&config).unwrap();
    assert_eq!(rows.len(), 2 * config.kappas.len() * 2);
    let found = transitions(&rows);
    for &d in &config.dimensions {
        let at = |j: usize| found.iter().find(|t| t.dimension == d && t.direction == j);
        let (first, second) = (at(1).expect("direction 1"), at(2).expect("direction 2"));
        assert!(
            first.kappa < second.kappa,
            "d = {d}: {first:?} vs {second:?}"
        );
        // The spiked-Wigner prediction is optimistic, but within a factor 5.
        for t in [first, second] {
            let ratio = t.kappa / t.predicted_kappa;
            assert!((1.0..5.0).contains(&ratio), "{t:?}");
            assert!(t.bbp_kappa < t.predicted_kappa);
        }
    }
    // Direction 2's transition moves out with d (a_2 = d^(−1/4): predicted slope near 1/2).
    let exponents = transition_exponents(&found);
    let second = exponents
        .iter()
        .find(|e| e.direction == 2)
        .expect("exponent");
    assert!(second.exponent > 0.1, "{second:?}");
    assert!(second.predicted_exponent > 0.3 && second.predicted_exponent < 0.5);
    // At the largest κ (32), the exact large-κ asymptote holds for direction 1.
    for r in rows.iter().filter(|r| r.direction == 1 && r.kappa > 31.0) {
        assert!((r.overlap - r.asymptotic_overlap).abs() < 0.02, "{r:?}");
    }
    // Every overlap is a squared norm of a projection of a unit vector.
    assert!(rows.iter().all(|r| (0.0..=1.0 + 1e-9).contains(&r.overlap)));
}

#[test]
fn rows_are_bit_identical_at_one_and_two_threads() {
    let mut config = cascade_config();
    config.dimensions = vec![24];
    config.kappas = vec![0.5, 2.0, 8.0];
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| spectral_recovery(&config).unwrap())
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one.len(), two.len());
    for (a, b) in one.iter().zip(&two) {
        assert_eq!(a.csv_line(), b.csv_line());
        assert_eq!(a.overlap.to_bits(), b.overlap.to_bits());
        assert_eq!(a.overlap_stderr.to_bits(), b.overlap_stderr.to_bits());
    }
    let header_columns = RecoveryRow::csv_header().split(',').count();
    assert!(one
        .iter()
        .all(|r| r.csv_line().split(',').count() == header_columns));
}

fn row(kappa: f64, overlap: f64) -> RecoveryRow {
    RecoveryRow {
        dimension: 10,
        kappa,
        samples: (kappa * 10.0) as usize,
        direction: 1,
        strength: 1.0,
        label_variance: 2.0,
        overlap,
        overlap_stderr: 0.0,
        seeds: 2,
        predicted_overlap: 0.0,
        asymptotic_overlap: 0.0,
    }
}

#[test]
fn a_transition_is_interpolated_in_log_kappa() {
    let rows = vec![row(4.0, 0.6), row(1.0, 0.1), row(2.0, 0.3)];
    let found = transitions(&rows);
    assert_eq!(found.len(), 1);
    let t: &Transition = &found[0];
    // Between κ = 2 (0.3) and κ = 4 (0.6): two thirds of the way in ln κ.
    let expected = (2f64.ln() + (2.0 / 3.0) * 2f64.ln()).exp();
    assert!((t.kappa - expected).abs() < 1e-12, "{t:?}");
    assert!((t.predicted_kappa - 1.0).abs() < 1e-12 && (t.bbp_kappa - 0.5).abs() < 1e-12);
    // Starting above 1/2, or never reaching it, is no transition.
    assert!(transitions(&[row(1.0, 0.7), row(2.0, 0.9)]).is_empty());
    assert!(transitions(&[row(1.0, 0.1), row(2.0, 0.2)]).is_empty());
    assert!(transition_exponents(&found).is_empty());
}

#[test]
fn bad_settings_are_refused_by_name() {
    let base = MultiIndexConfig::default();
    let cases: Vec<(&str, MultiIndexConfig)> = vec![
        (
            "dimensions",
            MultiIndexConfig {
                dimensions: vec![],
                ..base.clone()
            },
        ),
        (
            "dimensions",
            MultiIndexConfig {
                dimensions: vec![1],
                ..base.clone()
            },
        ),
        (
            "dimensions",
            MultiIndexConfig {
                dimensions: vec![64, 64],
                ..base.clone()
            },
        ),
        (
            "dimensions",
            MultiIndexConfig {
                dimensions: vec![1 << 20],
                ..base.clone()
            },
        ),
        (
            "kappas",
            MultiIndexConfig {
                kappas: vec![],
                ..base.clone()
            },
        ),
        (
            "kappas",
            MultiIndexConfig {
                kappas: vec![1.0, f64::NAN],
                ..base.clone()
            },
        ),
        (
            "kappas",
            MultiIndexConfig {
                kappas: vec![-1.0],
                ..base.clone()
            },
        ),
        (
            "kappas",
            MultiIndexConfig {
                kappas: vec![2.0, 1.0],
                ..base.clone()
            },
        ),
        (
            "directions",
            MultiIndexConfig {
                directions: 0,
                ..base.clone()
            },
        ),
        (
            "directions",
            MultiIndexConfig {
                directions: 65,
                ..base.clone()
            },
        ),
        (
            "strength_exponent",
            MultiIndexConfig {
                strength_exponent: -0.1,
                ..base.clone()
            },
        ),
        (
            "strength_exponent",
            MultiIndexConfig {
                strength_exponent: f64::INFINITY,
                ..base.clone()
            },
        ),
        (
            "noise",
            MultiIndexConfig {
                noise: f64::NAN,
                ..base.clone()
            },
        ),
        (
            "noise",
            MultiIndexConfig {
                noise: -1.0,
                ..base.clone()
            },
        ),
        (
            "seeds",
            MultiIndexConfig {
                seeds: 1,
                ..base.clone()
            },
        ),
        (
            "seeds",
            MultiIndexConfig {
                seeds: 10_000,
                ..base.clone()
            },
        ),
        (
            "seeds",
            MultiIndexConfig {
                dimensions: vec![2048],
                kappas: vec![1.0, 2.0, 3.0],
                seeds: 1000,
                ..base.clone()
            },
        ),
    ];
    for (key, config) in cases {
        let error = spectral_recovery(&config).expect_err(key);
        assert_eq!(setting_key(error), key, "{config:?}");
    }
}

/// The default cascade as a table (about 10 s on 2 cores: `cargo run --release -p scalinglaws-lab --example lab_tables -- multi_index`).
// An experiment, not a test: run by this crate's `examples/lab_tables.rs`.
#[allow(dead_code)]
pub fn print_the_default_cascade() {
    let config = MultiIndexConfig::default();
    let start = std::time::Instant::now();
    let rows = spectral_recovery(&config).unwrap();
    println!("elapsed {:.2} s", start.elapsed().as_secs_f64());
    for r in &rows {
        println!(
            "d={} kappa={:.3} j={} a={:.3} q={:.3}±{:.3} wigner={:.3} asymptote={:.3}",
            r.dimension,
            r.kappa,
            r.direction,
            r.strength,
            r.overlap,
            r.overlap_stderr,
            r.predicted_overlap,
            r.asymptotic_overlap
        );
    }
    let found = transitions(&rows);
    for t in &found {
        println!("{t:?}");
    }
    for e in transition_exponents(&found) {
        println!("{e:?}");
    }
}
