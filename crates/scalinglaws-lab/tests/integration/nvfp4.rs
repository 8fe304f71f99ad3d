//! NVFP4 emulation (codes, ties, saturation, block quantisation) and the dot-product SNR
//! experiment (determinism at any thread count, refusals, the direction of its effects).

use scalinglaws::rng::Rng;
use scalinglaws_lab::nvfp4::{
    decode_e2m1, decode_e4m3, encode_e2m1, encode_e4m3, quantize, snr_experiment,
    snr_experiment_with_progress, Nvfp4Tensor, SnrConfig, SnrRow, VectorCase, BLOCK, E4M3_NAN,
};
use scalinglaws_lab::LabError;

fn setting_key(error: LabError) -> &'static str {
    match error {
        LabError::Setting { key, .. } => key,
    }
}

#[test]
fn every_e2m1_code_round_trips() {
    for code in 0u8..16 {
        let value = decode_e2m1(code);
        assert_eq!(encode_e2m1(value), code, "code {code:#x} ({value})");
    }
    // ±0 keep their sign.
    assert_eq!(encode_e2m1(0.0), 0x0);
    assert_eq!(encode_e2m1(-0.0), 0x8);
}

#[test]
fn every_e4m3_code_but_nan_round_trips() {
    for code in 0u8..=255 {
        let value = decode_e4m3(code);
        if code & 0x7F == 0x7F {
            assert!(value.is_nan(), "code {code:#04x}");
            continue;
        }
        assert_eq!(encode_e4m3(value), code, "code {code:#04x} ({value})");
    }
    assert_eq!(encode_e4m3(f32::NAN), E4M3_NAN);
    assert_eq!(encode_e4m3(-0.0), 0x80);
}

#[test]
fn e2m1_ties_round_to_the_even_code() {
    // (value exactly halfway, the even neighbour it must round to)
    let ties: [(f32, f32); 7] = [
        (0.25, 0.0),
        (0.75, 1.0),
        (1.25, 1.0),
        (1.75, 2.0),
        (2.5, 2.0),
        (3.5, 4.0),
        (5.0, 4.0),
    ];
    for (tie, expected) in ties {
        for sign in [1.0f32, -1.0] {
            let code = encode_e2m1(sign * tie);
            assert_eq!(code & 1, 0, "{} gave the odd code {code:#x}", sign * tie);
            assert_eq!(
                decode_e2m1(code).to_bits(),
                (sign * expected).to_bits(),
                "{}",
                sign * tie
            );
        }
    }
    // Just off a tie, the nearer neighbour wins.
    assert_eq!(decode_e2m1(encode_e2m1(2.5001)).to_bits(), 3.0f32.to_bits());
    assert_eq!(decode_e2m1(encode_e2m1(4.9999)).to_bits(), 4.0f32.to_bits());
}

#[test]
fn e4m3_ties_round_to_the_even_code() {
    let sub = 2f32.powi(-9); // the subnormal spacing
                             // (value exactly halfway between two neighbours, the even-coded one it must round to)
    let ties: [(f32, f32); 9] = [
        (0.5 * sub, 0.0),       // 0 | smallest subnormal
        (1.5 * sub, 2.0 * sub), // subnormals 1 | 2
        (2.5 * sub, 2.0 * sub), // subnormals 2 | 3
        (7.5 * sub, 8.0 * sub), // largest subnormal | smallest normal 2⁻⁶
        (1.0625, 1.0),          // 1.000 | 1.001
        (1.1875, 1.25),         // 1.001 | 1.010
        (248.0, 256.0),         // 1.111·2⁷ | 2⁸: a carry into the next binade
        (400.0, 384.0),         // 1.100·2⁸ | 1.101·2⁸
        (432.0, 448.0),         // 1.101·2⁸ | 1.110·2⁸ (the maximum)
    ];
    for (tie, expected) in ties {
        for sign in [1.0f32, -1.0] {
            let code = encode_e4m3(sign * tie);
            assert_eq!(code & 1, 0, "{} gave the odd code {code:#04x}", sign * tie);
            assert_eq!(
                decode_e4m3(code).to_bits(),
                (sign * expected).to_bits(),
                "{}",
                sign * tie
            );
        }
    }
}

#[test]
fn values_above_the_maximum_saturate() {
    for v in [6.0f32, 6.5, 7.0, 100.0, f32::MAX, f32::INFINITY] {
        assert_eq!(encode_e2m1(v), 0x7, "{v}");
        assert_eq!(encode_e2m1(-v), 0xF, "{}", -v);
    }
    for v in [448.0f32, 463.9, 464.0, 480.0, 1e6, f32::INFINITY] {
        assert_eq!(encode_e4m3(v), 0x7E, "{v}");
        assert_eq!(encode_e4m3(-v), 0xFE, "{}", -v);
    }
}

/// Half the E2M1 spacing at magnitude `t` (in units of the block's step), plus what
/// saturation can add above 6.
fn e2m1_error_bound(t: f64) -> f64 {
    match t {
        t if t <= 2.0 => 0.25,
        t if t <= 4.0 => 0.5,
        t if t <= 6.0 => 1.0,
        t => (t - 6.0).max(1.0),
    }
}

fn gaussian(n: usize, seed: u64, scale: f64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| (scale * rng.normal()) as f32).collect()
}

#[test]
fn quantised_blocks_stay_within_the_rounding_bound() {
    // 70 values: four full blocks and a short one of 6; blocks at different magnitudes.
    let mut values = gaussian(70, 3, 1.0);
    for (i, v) in values.iter_mut().enumerate() {
        *v *= [1.0f32, 0.01, 30.0, 0.2, 5.0][i / BLOCK];
    }
    let tensor = Nvfp4Tensor::encode(&values).unwrap();
    assert_eq!(tensor.len(), 70);
    assert_eq!(tensor.block_scales().len(), 5);
    assert_eq!(tensor.packed_elements().len(), 35);
    let decoded = tensor.decode_exact();
    let tensor_scale = f64::from(tensor.tensor_scale());
    for (b, block) in values.chunks(BLOCK).enumerate() {
        let step = f64::from(decode_e4m3(tensor.block_scales()[b])) * tensor_scale;
        assert!(step > 0.0);
        let amax = block.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        for (k, &v) in block.iter().enumerate() {
            let i = b * BLOCK + k;
            let error = (decoded[i] - f64::from(v)).abs();
            let bound = e2m1_error_bound(f64::from(v.abs()) / step) * step * (1.0 + 1e-6);
            assert!(
                error <= bound,
                "element {i}: {v} → {} (bound {bound})",
                decoded[i]
            );
            if v.abs().to_bits() == amax.to_bits() {
                // The block's largest element maps to ±6 steps: the scale is amax/6 rounded
                // to E4M3, off by at most 1/16, and 6/(1 ± 1/16) rounds to 6.
                assert_eq!(
                    tensor.element_code(i).unwrap() & 0x7,
                    0x7,
                    "block {b}'s max"
                );
                let relative = (decoded[i].abs() - 6.0 * step).abs() / (6.0 * step);
                assert!(relative < 1e-12, "block {b}'s max decodes to 6 steps");
                assert!((decoded[i] - f64::from(v)).abs() <= f64::from(amax) / 15.0);
            }
        }
    }
    // quantize is the f32 rounding of the exact decode.
    let rounded = quantize(&values).unwrap();
    for (r, d) in rounded.iter().zip(&decoded) {
        assert_eq!(r.to_bits(), (*d as f32).to_bits());
    }
}

#[test]
fn the_tensor_maximum_is_exact_when_its_block_scale_is() {
    // amax = 2688 makes s_enc = 1; the max block's scale is 448, an exact E4M3 value.
    let mut values = vec![0.0f32; 32];
    values[5] = -2688.0;
    values[20] = 100.0;
    let q = quantize(&values).unwrap();
    assert_eq!(q[5].to_bits(), (-2688.0f32).to_bits());
    assert!((q[20] - 100.0).abs() <= 100.0 / 15.0);
}

#[test]
fn zeros_stay_zero_and_empty_is_empty() {
    let zeros = vec![0.0f32; 40];
    let q = quantize(&zeros).unwrap();
    assert_eq!(q.len(), 40);
    assert!(q.iter().all(|v| v.to_bits() == 0), "all-zero tensor: {q:?}");
    let tensor = Nvfp4Tensor::encode(&zeros).unwrap();
    assert!(tensor.block_scales().iter().all(|&c| c == 0));
    // An all-zero block inside a non-zero tensor decodes to zeros, not NaN.
    let mut mixed = vec![0.0f32; 48];
    mixed[40] = 3.0;
    let q = quantize(&mixed).unwrap();
    // ±0 exactly (the bits, sign aside, are all zero; NaN is not).
    assert!(q[..32].iter().all(|v| v.to_bits() & 0x7FFF_FFFF == 0));
    assert!(quantize(&[]).unwrap().is_empty());
}

#[test]
fn quantisation_commutes_with_sign() {
    let values = gaussian(100, 9, 2.0);
    let negated: Vec<f32> = values.iter().map(|v| -v).collect();
    let a = quantize(&values).unwrap();
    let b = quantize(&negated).unwrap();
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.to_bits(), (-y).to_bits());
    }
}

#[test]
fn non_finite_values_are_refused() {
    for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
        let values = [1.0, 2.0, bad];
        let error = quantize(&values).unwrap_err();
        assert!(error.to_string().contains("value 2"), "{error}");
        assert_eq!(setting_key(error), "values");
    }
}

fn small_config() -> SnrConfig {
    SnrConfig {
        dimensions: vec![20, 256],
        pairs: 40,
        correlation: 0.1,
        seed: 11,
        tensor_scale: true,
    }
}

fn in_pool(threads: usize, config: &SnrConfig) -> Vec<SnrRow> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| snr_experiment(config))
        .unwrap()
}

#[test]
fn the_snr_experiment_is_bit_identical_at_any_thread_count() {
    let config = small_config();
    let one = in_pool(1, &config);
    let two = in_pool(2, &config);
    assert_eq!(one.len(), 8);
    for (a, b) in one.iter().zip(&two) {
        assert_eq!(a.csv_line(), b.csv_line());
        assert_eq!(a.snr.to_bits(), b.snr.to_bits());
        assert_eq!(a.noise.to_bits(), b.noise.to_bits());
    }
    let other_seed = snr_experiment(&SnrConfig { seed: 12, ..config }).unwrap();
    assert_ne!(one[0].signal.to_bits(), other_seed[0].signal.to_bits());
}

#[test]
fn a_pair_draws_the_same_numbers_whatever_else_is_asked() {
    // Dimension 256 alone or after 20: a pair's stream depends on its dimension and number
    // only, so the rows are the same.
    let alone = snr_experiment(&SnrConfig {
        dimensions: vec![256],
        ..small_config()
    })
    .unwrap();
    let together = snr_experiment(&small_config()).unwrap();
    assert_eq!(alone[0].csv_line(), together[4].csv_line());
}

#[test]
fn rows_and_csv_are_well_formed() {
    let rows = snr_experiment(&small_config()).unwrap();
    let header_columns = SnrRow::csv_header().split(',').count();
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row.case, VectorCase::ALL[i % 4]);
        assert_eq!(row.dimension, [20, 256][i / 4]);
        assert_eq!(row.pairs, 40);
        assert!(row.snr.is_finite() && row.snr > 0.0);
        assert!(row.snr_stderr.is_finite() && row.snr_stderr > 0.0);
        assert!(row.signal > 0.0 && row.noise > 0.0);
        let line = row.csv_line();
        assert_eq!(line.split(',').count(), header_columns, "{line}");
        assert!(line.starts_with(&format!("{},{},", row.dimension, row.case.name())));
    }
    assert!(SnrRow::csv_header().starts_with("dimension,case,normalised,correlated,pairs,snr,"));
}

#[test]
fn correlated_products_raise_the_snr_more_at_larger_dimension() {
    // The paper's mechanism in its plainest form: with ρ = 0.3 the dot product's mean grows
    // like d, so the correlated/independent SNR ratio grows with d (≈ 1 + dρ²/(1+ρ²)).
    let config = SnrConfig {
        dimensions: vec![16, 512],
        pairs: 60,
        correlation: 0.3,
        seed: 5,
        tensor_scale: true,
    };
    let rows = snr_experiment(&config).unwrap();
    let gain = |d: usize, case: VectorCase| {
        let at = |c: VectorCase| {
            rows.iter()
                .find(|r| r.dimension == d && r.case == c)
                .unwrap()
        };
        at(case).snr / at(VectorCase::GaussianIndependent).snr
    };
    let small = gain(16, VectorCase::GaussianCorrelated);
    let large = gain(512, VectorCase::GaussianCorrelated);
    assert!(
        large > 5.0 * small,
        "gain at d=16: {small}, at d=512: {large}"
    );
    assert!(gain(512, VectorCase::SphereCorrelated) > 5.0 * gain(16, VectorCase::SphereCorrelated));
}

#[test]
fn block_scales_alone_use_a_tensor_scale_of_one() {
    let values = gaussian(100, 3, 1.0);
    let alone = Nvfp4Tensor::encode_block_scaled(&values).unwrap();
    assert_eq!(alone.tensor_scale().to_bits(), 1f32.to_bits());
    assert_eq!(alone.block_scales().len(), 7);
    // Each block's scale is E4M3(amax / 6) by itself, and each value decodes to its code times
    // that scale, exactly.
    let decoded = alone.decode_exact();
    for (b, block) in values.chunks(BLOCK).enumerate() {
        let amax = block.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let code = alone.block_scales()[b];
        assert_eq!(code, encode_e4m3(amax * (1.0 / 6.0)), "block {b}");
        let scale = f64::from(decode_e4m3(code));
        for k in 0..block.len() {
            let index = b * BLOCK + k;
            let element = f64::from(decode_e2m1(alone.element_code(index).unwrap()));
            assert_eq!(decoded[index].to_bits(), (element * scale).to_bits());
        }
    }
    // With the tensor scale (the recipe) the same values get another one.
    let scaled = Nvfp4Tensor::encode_with(&values, true).unwrap();
    assert_eq!(scaled, Nvfp4Tensor::encode(&values).unwrap());
    assert_ne!(scaled.tensor_scale().to_bits(), 1f32.to_bits());
    // Tiny values underflow the E4M3 block scale without a tensor scale: they decode to 0.
    let tiny = vec![1e-4f32; 16];
    assert!(Nvfp4Tensor::encode_block_scaled(&tiny)
        .unwrap()
        .decode_exact()
        .iter()
        .all(|v| *v == 0.0));
    assert!(Nvfp4Tensor::encode(&tiny).unwrap().decode_exact()[0] > 0.0);
}

#[test]
fn without_the_tensor_scale_normalised_vectors_lose_snr_at_large_dimension() {
    // Standard vectors (|x| ~ 1) keep their block scales in E4M3's normal range, so the tensor
    // scale barely matters; unit vectors at d = 8192 (|x| ~ 0.011) need block scales near
    // 2⁻⁸, in E4M3's subnormal range, where they are coarse.
    let config = |tensor_scale| SnrConfig {
        dimensions: vec![64, 8192],
        pairs: 100,
        correlation: 0.05,
        seed: 2,
        tensor_scale,
    };
    let with = snr_experiment(&config(true)).unwrap();
    let without = snr_experiment(&config(false)).unwrap();
    let ratio = |d: usize, case: VectorCase| {
        let snr = |rows: &[SnrRow]| {
            let row = rows.iter().find(|r| r.dimension == d && r.case == case);
            row.unwrap().snr
        };
        snr(&without) / snr(&with)
    };
    for d in [64, 8192] {
        let standard = ratio(d, VectorCase::GaussianIndependent);
        assert!(
            (0.8..1.25).contains(&standard),
            "standard, d = {d}: {standard}"
        );
    }
    let small = ratio(64, VectorCase::SphereCorrelated);
    let large = ratio(8192, VectorCase::SphereCorrelated);
    assert!((0.8..1.25).contains(&small), "normalised, d = 64: {small}");
    assert!(large < 0.6, "normalised, d = 8192: {large}");
}

#[test]
fn progress_is_reported_in_elements_and_changes_nothing() {
    let heard = std::sync::Mutex::new(Vec::new());
    let listen = |done: usize, total: usize| heard.lock().unwrap().push((done, total));
    let rows = snr_experiment_with_progress(&small_config(), &listen).unwrap();
    let plain = snr_experiment(&small_config()).unwrap();
    assert_eq!(rows, plain);
    let heard = heard.into_inner().unwrap();
    let total = (20 + 256) * 40;
    assert!(heard
        .windows(2)
        .all(|w| w[0].0 < w[1].0 || w[1] == (total, total)));
    assert_eq!(heard.last(), Some(&(total, total)));
    assert!(heard.iter().all(|&(done, t)| t == total && done <= total));
}

#[test]
fn absurd_settings_are_refused_by_name() {
    let base = small_config();
    let cases: Vec<(SnrConfig, &str)> = vec![
        (
            SnrConfig {
                dimensions: vec![],
                ..base.clone()
            },
            "dimensions",
        ),
        (
            SnrConfig {
                dimensions: vec![0],
                ..base.clone()
            },
            "dimensions",
        ),
        (
            SnrConfig {
                dimensions: vec![1 << 20],
                ..base.clone()
            },
            "dimensions",
        ),
        (
            SnrConfig {
                dimensions: vec![64, 64],
                ..base.clone()
            },
            "dimensions",
        ),
        (
            SnrConfig {
                dimensions: (1..=100).collect(),
                ..base.clone()
            },
            "dimensions",
        ),
        (
            SnrConfig {
                pairs: 0,
                ..base.clone()
            },
            "pairs",
        ),
        (
            SnrConfig {
                pairs: 1,
                ..base.clone()
            },
            "pairs",
        ),
        (
            SnrConfig {
                pairs: usize::MAX,
                ..base.clone()
            },
            "pairs",
        ),
        (
            SnrConfig {
                dimensions: vec![65_536, 32_768],
                pairs: 1_000_000,
                ..base.clone()
            },
            "pairs",
        ),
        (
            SnrConfig {
                correlation: 1.0,
                ..base.clone()
            },
            "correlation",
        ),
        (
            SnrConfig {
                correlation: -0.1,
                ..base.clone()
            },
            "correlation",
        ),
        (
            SnrConfig {
                correlation: f64::NAN,
                ..base.clone()
            },
            "correlation",
        ),
    ];
    for (config, key) in cases {
        let error = snr_experiment(&config).unwrap_err();
        assert_eq!(setting_key(error.clone()), key, "{config:?}: {error}");
        assert!(!error.to_string().is_empty());
    }
    assert!(SnrConfig::default().validate().is_ok());
}

/// The default experiment's table (about 10 s on 2 cores in release):
/// `cargo run --release -p scalinglaws-lab --example lab_tables -- nvfp4`.
// An experiment, not a test: run by this crate's `examples/lab_tables.rs`.
#[allow(dead_code)]
pub fn print_the_default_snr_table() {
    let start = std::time::Instant::now();
    let rows = snr_experiment(&SnrConfig::default()).unwrap();
    println!("{}", SnrRow::csv_header());
    for row in &rows {
        println!("{}", row.csv_line());
    }
    println!("# {:.1} s", start.elapsed().as_secs_f64());
}
