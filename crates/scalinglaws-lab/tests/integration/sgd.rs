//! The SGD / signSGD lab against what can be checked by hand: the exact recursion against a
//! full-matrix recursion and a closed-form geometric sequence, against Monte Carlo, seeded runs
//! bit-identical at any thread count, bad settings refused with their key, and the claim's
//! direction at a small size.

use scalinglaws_lab::sgd::{
    data_scaling, log_spaced_steps, scaling_csv, sgd_csv, simulate, Optimizer, Regime,
    ScalingConfig, SgdConfig, SgdRow, Shape, MAX_SEEDS,
};
use scalinglaws_lab::LabError;

fn small_config() -> SgdConfig {
    SgdConfig {
        dimension: 32,
        a: 2.0,
        b: 1.5,
        noise: 0.5,
        batch: 1,
        lrs: vec![0.2; 300],
        log_steps: vec![0, 1, 10, 30, 100, 300],
        seeds: 10_000,
        seed: 7,
    }
}

fn rows_of(rows: &[SgdRow], optimizer: Optimizer) -> Vec<&SgdRow> {
    rows.iter().filter(|r| r.optimizer == optimizer).collect()
}

/// The exact expected risk agrees with the mean over 10,000 seeds within 2 % (and within 4
/// standard errors) at every logged step.
fn assert_exact_matches_monte_carlo(config: &SgdConfig, tolerance: f64) {
    let rows = simulate(config, &[Optimizer::SgdExact, Optimizer::SgdMc]).unwrap();
    let exact = rows_of(&rows, Optimizer::SgdExact);
    let mc = rows_of(&rows, Optimizer::SgdMc);
    assert_eq!(exact.len(), config.log_steps.len());
    for (e, m) in exact.iter().zip(&mc) {
        assert_eq!(e.step, m.step);
        let relative = (m.excess_risk - e.excess_risk).abs() / e.excess_risk;
        assert!(
            relative < tolerance,
            "step {}: exact {} vs Monte Carlo {} ± {}",
            e.step,
            e.excess_risk,
            m.excess_risk,
            m.stderr
        );
        assert!((m.excess_risk - e.excess_risk).abs() <= 4.0 * m.stderr + 1e-12);
        let relative_risk = (m.risk - e.risk).abs() / e.risk;
        assert!(relative_risk < tolerance);
    }
    // Step 0 is w_0 = 0 for every seed: the same excess risk ½·Σ i^(−b), no spread.
    assert!((mc[0].excess_risk - exact[0].excess_risk).abs() < 1e-12);
    assert!(mc[0].stderr < 1e-12);
}

#[test]
fn exact_recursion_matches_monte_carlo_at_batch_1() {
    assert_exact_matches_monte_carlo(&small_config(), 0.02);
}

#[test]
fn exact_recursion_matches_monte_carlo_with_a_batch_and_a_decaying_schedule() {
    // B = 4 exercises the 1/B terms; 2,500 seeds draw as many samples as 10,000 at B = 1.
    let config = SgdConfig {
        batch: 4,
        lrs: (0..200).map(|t| 0.6 * (1.0 - t as f64 / 200.0)).collect(),
        log_steps: vec![0, 5, 50, 200],
        seeds: 2_500,
        ..small_config()
    };
    assert_exact_matches_monte_carlo(&config, 0.03);
}

/// λ_i = i^(−a), w*_i = i^((a−b)/2).
fn spectrum_and_target(config: &SgdConfig) -> (Vec<f64>, Vec<f64>) {
    let index = |i: usize| (i + 1) as f64;
    let lambda = (0..config.dimension)
        .map(|i| index(i).powf(-config.a))
        .collect();
    let target = (0..config.dimension)
        .map(|i| index(i).powf(0.5 * (config.a - config.b)))
        .collect();
    (lambda, target)
}

/// ½·tr(HS) after each step of the full-matrix recursion
/// S' = S − η(HS + SH) + η²[(1 + 1/B)·HSH + ((tr(HS) + σ²)/B)·H], S_0 = w* w*ᵀ.
fn full_matrix_excess(config: &SgdConfig) -> Vec<f64> {
    let (lambda, target) = spectrum_and_target(config);
    let m = config.dimension;
    let inverse_batch = 1.0 / config.batch as f64;
    let mut s: Vec<Vec<f64>> = (0..m)
        .map(|i| (0..m).map(|j| target[i] * target[j]).collect())
        .collect();
    let trace = |s: &Vec<Vec<f64>>| (0..m).map(|i| lambda[i] * s[i][i]).sum::<f64>();
    let mut out = vec![0.5 * trace(&s)];
    for &eta in &config.lrs {
        let injected = eta * eta * inverse_batch * (trace(&s) + config.noise * config.noise);
        let next: Vec<Vec<f64>> = (0..m)
            .map(|i| {
                (0..m)
                    .map(|j| {
                        let (li, lj) = (lambda[i], lambda[j]);
                        let mut v = s[i][j] - eta * (li + lj) * s[i][j]
                            + eta * eta * (1.0 + inverse_batch) * li * lj * s[i][j];
                        if i == j {
                            v += injected * li;
                        }
                        v
                    })
                    .collect()
            })
            .collect();
        s = next;
        out.push(0.5 * trace(&s));
    }
    out
}

#[test]
fn diagonal_recursion_equals_the_full_matrix_recursion() {
    let config = SgdConfig {
        dimension: 6,
        a: 1.7,
        b: 1.2,
        noise: 0.3,
        batch: 3,
        lrs: (0..40).map(|t| 0.3 / (1.0 + 0.05 * t as f64)).collect(),
        log_steps: (0..=40).collect(),
        seeds: 0,
        seed: 0,
    };
    let rows = simulate(&config, &[Optimizer::SgdExact]).unwrap();
    let full = full_matrix_excess(&config);
    for (row, expected) in rows.iter().zip(&full) {
        assert!(
            (row.excess_risk - expected).abs() <= 1e-13 * expected,
            "step {}: {} vs {}",
            row.step,
            row.excess_risk,
            expected
        );
    }
}

#[test]
fn one_dimension_is_a_geometric_sequence() {
    // M = 1: λ = 1 and w* = 1 for any a, b. S_t = q^t (S_0 − S_∞) + S_∞ with
    // q = 1 − 2η + (1 + 2/B)η², S_∞ = η²σ²/(B(1 − q)); the excess risk is S_t/2.
    for batch in [1usize, 3] {
        let (eta, sigma) = (0.1, 0.7);
        let config = SgdConfig {
            dimension: 1,
            a: 3.0,
            b: 1.1,
            noise: sigma,
            batch,
            lrs: vec![eta; 60],
            log_steps: vec![0, 1, 2, 7, 60],
            seeds: 0,
            seed: 0,
        };
        let rows = simulate(&config, &[Optimizer::SgdExact]).unwrap();
        let b = batch as f64;
        let q = 1.0 - 2.0 * eta + (1.0 + 2.0 / b) * eta * eta;
        let limit = eta * eta * sigma * sigma / (b * (1.0 - q));
        for row in &rows {
            let s_t = q.powi(row.step as i32) * (1.0 - limit) + limit;
            assert!(
                (row.excess_risk - 0.5 * s_t).abs() <= 1e-14,
                "B = {batch}, step {}: {} vs {}",
                row.step,
                row.excess_risk,
                0.5 * s_t
            );
            assert!((row.risk - row.excess_risk - 0.5 * sigma * sigma).abs() <= 1e-15);
            assert_eq!((row.seeds, row.stderr.to_bits()), (0, 0f64.to_bits()));
        }
    }
}

fn in_pool<T: Send>(threads: usize, job: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(job)
}

#[test]
fn seeded_monte_carlo_is_bit_identical_for_1_and_2_threads() {
    let config = SgdConfig {
        dimension: 16,
        lrs: vec![0.05; 200],
        log_steps: log_spaced_steps(200, 3),
        seeds: 64,
        batch: 2,
        ..small_config()
    };
    let which = [Optimizer::SgdMc, Optimizer::SignSgdMc];
    let one = in_pool(1, || simulate(&config, &which).unwrap());
    let two = in_pool(2, || simulate(&config, &which).unwrap());
    assert_eq!(one.len(), 2 * config.log_steps.len());
    let bits = |rows: &[SgdRow]| {
        rows.iter()
            .map(|r| (r.step, r.risk.to_bits(), r.stderr.to_bits()))
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&one), bits(&two));
    assert_eq!(sgd_csv(&one), sgd_csv(&two));
    // Another seed gives other numbers.
    let other = simulate(&SgdConfig { seed: 8, ..config }, &which).unwrap();
    assert_ne!(bits(&one), bits(&other));
}

#[test]
fn signsgd_moves_every_coordinate_by_the_learning_rate() {
    // With w_0 = 0 and one step of η, e_1 = −w* − η·sign(g) coordinate-wise: every seed's
    // excess risk is ½·Σ λ_i (w*_i ± η)², so the mean lies between the two extremes.
    let config = SgdConfig {
        dimension: 4,
        lrs: vec![0.25],
        log_steps: vec![1],
        seeds: 100,
        ..small_config()
    };
    let (lambda, target) = spectrum_and_target(&config);
    let extreme = |sign: f64| -> f64 {
        0.5 * lambda
            .iter()
            .zip(&target)
            .map(|(l, w)| l * (w + sign * 0.25).powi(2))
            .sum::<f64>()
    };
    let rows = simulate(&config, &[Optimizer::SignSgdMc]).unwrap();
    assert!(rows[0].excess_risk > extreme(-1.0) && rows[0].excess_risk < extreme(1.0));
}

fn setting_key(error: LabError) -> &'static str {
    match error {
        LabError::Setting { key, .. } => key,
    }
}

type Mutation<T> = Box<dyn Fn(&mut T)>;

#[test]
fn bad_settings_are_refused_with_their_key() {
    let good = SgdConfig {
        seeds: 10,
        ..small_config()
    };
    let cases: Vec<(&str, Mutation<SgdConfig>)> = vec![
        ("dimension", Box::new(|c| c.dimension = 0)),
        ("dimension", Box::new(|c| c.dimension = usize::MAX)),
        ("a", Box::new(|c| c.a = f64::NAN)),
        ("a", Box::new(|c| c.a = 1.0)),
        ("a", Box::new(|c| c.a = 1e9)),
        ("b", Box::new(|c| c.b = f64::INFINITY)),
        ("b", Box::new(|c| c.b = -2.0)),
        ("noise", Box::new(|c| c.noise = -0.1)),
        ("noise", Box::new(|c| c.noise = f64::NAN)),
        ("batch", Box::new(|c| c.batch = 0)),
        ("batch", Box::new(|c| c.batch = usize::MAX)),
        ("lrs", Box::new(|c| c.lrs = vec![])),
        ("lrs", Box::new(|c| c.lrs[3] = f64::NAN)),
        ("lrs", Box::new(|c| c.lrs[0] = -0.1)),
        ("lrs", Box::new(|c| c.lrs[9] = 1e300)),
        ("log_steps", Box::new(|c| c.log_steps = vec![])),
        ("log_steps", Box::new(|c| c.log_steps = vec![0, 10, 10])),
        ("log_steps", Box::new(|c| c.log_steps = vec![0, 301])),
        ("seeds", Box::new(|c| c.seeds = 1)),
        ("seeds", Box::new(|c| c.seeds = MAX_SEEDS + 1)),
        // 2 optimizers × 32 × 300 steps × 1e6 seeds = 1.9e10 normals: past the work cap.
        ("seeds", Box::new(|c| c.seeds = MAX_SEEDS)),
        // 1e5 seeds × 1,001 logged steps: past the stored values' cap (little work).
        (
            "seeds",
            Box::new(|c| {
                (c.dimension, c.seeds, c.lrs) = (1, 100_000, vec![0.1; 1000]);
                c.log_steps = (0..=1000).collect();
            }),
        ),
    ];
    for (key, mutate) in cases {
        let mut config = good.clone();
        mutate(&mut config);
        let error = simulate(&config, &Optimizer::ALL).expect_err(key);
        assert_eq!(setting_key(error.clone()), key, "{error}");
        assert!(error.to_string().starts_with(key));
    }
    // The exact recursion alone needs no seeds, but has its own work cap (2^20 × 1e5 steps).
    let exact_only = SgdConfig {
        seeds: 0,
        ..good.clone()
    };
    assert!(simulate(&exact_only, &[Optimizer::SgdExact]).is_ok());
    let huge = SgdConfig {
        dimension: 1 << 20,
        lrs: vec![0.1; 100_000],
        ..exact_only
    };
    let error = simulate(&huge, &[Optimizer::SgdExact]).unwrap_err();
    assert_eq!(setting_key(error), "dimension");
    // No optimizer at all, or an unknown one, is refused.
    assert_eq!(setting_key(simulate(&good, &[]).unwrap_err()), "optimizer");
    let unknown = Optimizer::parse("adam").unwrap_err();
    assert!(unknown.to_string().contains("adam"));
    assert_eq!(setting_key(unknown), "optimizer");
}

#[test]
fn bad_scaling_settings_are_refused_with_their_key() {
    let cases: Vec<(&str, Mutation<ScalingConfig>)> = vec![
        ("horizons", Box::new(|c| c.horizons = vec![8, 16])),
        ("horizons", Box::new(|c| c.horizons = vec![8, 16, 16])),
        ("horizons", Box::new(|c| c.horizons = vec![0, 8, 16])),
        (
            "horizons",
            Box::new(|c| c.horizons = vec![8, 16, usize::MAX]),
        ),
        ("sgd_lrs", Box::new(|c| c.sgd_lrs = vec![0.1, 0.2])),
        ("sgd_lrs", Box::new(|c| c.sgd_lrs = vec![])),
        ("signsgd_lrs", Box::new(|c| c.signsgd_lrs = vec![0.1, 0.0])),
        ("signsgd_lrs", Box::new(|c| c.signsgd_lrs = vec![f64::NAN])),
        (
            "decay_fraction",
            Box::new(|c| c.shape = Shape::Decay { fraction: 1.5 }),
        ),
        ("seeds", Box::new(|c| c.seeds = 1)),
        // Counted as if every learning rate ran at every horizon: past the work cap.
        ("seeds", Box::new(|c| c.seeds = 100_000)),
        ("a", Box::new(|c| c.a = 0.5)),
        ("b", Box::new(|c| c.b = 11.0)),
        ("dimension", Box::new(|c| c.dimension = 0)),
        ("noise", Box::new(|c| c.noise = f64::INFINITY)),
        ("batch", Box::new(|c| c.batch = 0)),
    ];
    for (key, mutate) in cases {
        let mut config = ScalingConfig::hard();
        mutate(&mut config);
        let error = data_scaling(&config).expect_err(key);
        assert_eq!(setting_key(error.clone()), key, "{error}");
    }
    assert!(ScalingConfig::hard().validate().is_ok());
    assert!(ScalingConfig::easy().validate().is_ok());
}

/// A small hard-task measurement (M = 128, T = 2^7..2^11): tuned signSGD's excess risk falls
/// faster with T than tuned SGD's, as the seed paper claims.
#[test]
fn signsgd_scales_better_in_a_small_hard_task() {
    let config = ScalingConfig {
        dimension: 128,
        horizons: (7..=11).map(|k| 1usize << k).collect(),
        seeds: 8,
        ..ScalingConfig::hard()
    };
    let result = data_scaling(&config).unwrap();
    assert_eq!(result.regime, Regime::Hard);
    assert!((result.source_exponent - 0.25).abs() < 1e-15);
    assert_eq!(result.points.len(), 2 * config.horizons.len());
    let slope = |o: Optimizer| result.fits.iter().find(|f| f.optimizer == o).unwrap().slope;
    let (sgd, sign) = (slope(Optimizer::SgdExact), slope(Optimizer::SignSgdMc));
    assert!(sgd < -0.1 && sign < sgd - 0.1, "SGD {sgd}, signSGD {sign}");
    assert!(result.points.iter().all(|p| !p.lr_at_grid_edge));
    let csv = scaling_csv(&result.points);
    assert_eq!(csv.lines().count(), 1 + result.points.len());
    assert!(csv.starts_with("optimizer,horizon,lr,excess_risk,stderr,seeds,lr_at_grid_edge\n"));
}
