//! Recipe comparison on synthetic tracks with known answers (issue 6's acceptance):
//! - a known compute multiplier (track B's law is A's with N and D each worth √2 times as much,
//!   so B is worth 2× A's compute at every budget; 40 runs per track, 1 % noise, 200 bootstrap
//!   replicates) and a known recurrence exponent phi of the looped law per track over a shared
//!   backbone (40 runs per track, 100 replicates): each inside its reported 95 % interval in at
//!   least 90 % of 100 seeds;
//! - two Chinchilla tracks made with D*/N* of 8.4 and 20.8 at 1e21 FLOPs, both recovered within
//!   10 % (an IsoFLOP design of 84 runs per track at 0.3 % noise; see `ISOFLOP_NOISE`).
//!
//! The measured rates are printed (`cargo test --release --test integration tracks:: -- --nocapture`).

use scalinglaws::analysis::allocation::AllocationSettings;
use scalinglaws::analysis::tracks::{compare_tracks, Track, TrackSettings};
use scalinglaws::fit::{FitData, FitSettings};
use scalinglaws::law::catalog;
use scalinglaws::rng::Rng;
use scalinglaws::Law;

const NOISE: f64 = 0.01;

/// 8 sizes from 5e7 to 1.6e10, 5 token counts per size around 20 tokens per parameter.
fn chinchilla_track(label: &str, params: &[f64], rng: &mut Rng) -> Track {
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
            data.variables[0].push(n);
            data.variables[1].push(d);
            data.target
                .push(law.eval(params, &[n, d]) * (NOISE * rng.normal()).exp());
        }
    }
    Track {
        label: label.into(),
        data,
    }
}

fn settings(shared: &[&str], budgets: Vec<f64>, bootstrap: usize, seed: u64) -> TrackSettings {
    TrackSettings {
        fit: FitSettings::default(),
        shared: shared.iter().map(|s| s.to_string()).collect(),
        baseline: 0,
        allocation: AllocationSettings::at_budgets(budgets),
        bootstrap,
        seed,
        level: 0.95,
        cell_tolerance: 1e-3,
        calibration: None,
    }
}

const HOFFMANN: [f64; 5] = [1.69, 406.4, 0.34, 410.7, 0.28];

#[test]
fn a_known_compute_multiplier_is_inside_its_interval_in_90_percent_of_seeds() {
    let law = catalog::lookup("chinchilla").unwrap();
    let a = HOFFMANN;
    let s = 2f64.sqrt();
    let b = [a[0], a[1] * s.powf(-a[2]), a[2], a[3] * s.powf(-a[4]), a[4]];
    let budgets = vec![1e20, 1e22, 1e24];
    let mut covered = vec![0usize; budgets.len()];
    let mut widths = vec![0.0; budgets.len()];
    let seeds = 100;
    for seed in 0..seeds {
        let mut rng = Rng::stream(seed, 0);
        let tracks = [
            chinchilla_track("A", &a, &mut rng),
            chinchilla_track("B", &b, &mut rng),
        ];
        let result =
            compare_tracks(&law, &tracks, &settings(&[], budgets.clone(), 200, seed)).unwrap();
        for (i, at) in result.pairs[0].budgets.iter().enumerate() {
            let [lo, hi] = at.multiplier.ci.expect("an interval");
            covered[i] += usize::from(lo <= 2.0 && 2.0 <= hi);
            widths[i] += (hi / lo).ln() / seeds as f64;
        }
    }
    for (i, c) in budgets.iter().enumerate() {
        println!(
            "multiplier 2 at {c:e} FLOPs: inside the 95% interval in {}/{seeds} seeds (mean width ×{:.2})",
            covered[i],
            widths[i].exp()
        );
    }
    // The data reach 1.9e23 FLOPs: assert inside the data; 1e24 is an extrapolation.
    assert!(covered[0] >= 90 && covered[1] >= 90, "{covered:?}");
}

/// Looped transformers (a 2026 study of their recurrence-equivalence exponent): N_once unique parameters plus N_rec shared ones run r
/// times count as N_once + r^phi·N_rec. Two tracks (phi 0.46 and 0.65, as with and without
/// hyperconnections) share the Chinchilla backbone; phi is per track.
fn looped_track(label: &str, phi: f64, rng: &mut Rng) -> Track {
    let law = catalog::lookup("looped").unwrap();
    let (e, a, alpha, b, beta) = HOFFMANN.into();
    let params = [e, a, phi, alpha, b, beta];
    let mut data = FitData {
        variables: vec![Vec::new(); 4],
        target: Vec::new(),
        weights: None,
        trials: None,
        exposure: None,
    };
    for i in 0..5 {
        for r in [1.0, 2.0, 4.0, 8.0] {
            for j in 0..2 {
                let n_rec = 4e7 * 10f64.powf(i as f64 * 0.5);
                let n_once = 0.2 * n_rec;
                let d = 2e9 * 10f64.powf(i as f64 * 0.4 + j as f64 * 0.5);
                let point = [n_once, r, n_rec, d];
                data.variables
                    .iter_mut()
                    .zip(point)
                    .for_each(|(c, v)| c.push(v));
                data.target
                    .push(law.eval(&params, &point) * (NOISE * rng.normal()).exp());
            }
        }
    }
    Track {
        label: label.into(),
        data,
    }
}

#[test]
fn a_known_phi_is_inside_its_interval_in_90_percent_of_seeds() {
    let law: Law = catalog::lookup("looped").unwrap();
    let phi_index = law.param_index("phi").unwrap();
    let truth = [0.46, 0.65];
    let mut covered = [0usize; 2];
    let mut difference_covered = 0;
    let seeds = 100;
    for seed in 0..seeds {
        let mut rng = Rng::stream(1000 + seed, 0);
        let tracks = [
            looped_track("plain", truth[0], &mut rng),
            looped_track("hyperconnections", truth[1], &mut rng),
        ];
        let shared = ["E", "A", "alpha", "B", "beta"];
        let result = compare_tracks(&law, &tracks, &settings(&shared, vec![], 100, seed)).unwrap();
        for (t, track) in result.tracks.iter().enumerate() {
            let [lo, hi] = track.params[phi_index].ci.unwrap();
            covered[t] += usize::from(lo <= truth[t] && truth[t] <= hi);
        }
        let (_, difference) = &result.pairs[0].differences[0];
        let [lo, hi] = difference.ci.unwrap();
        difference_covered += usize::from(lo <= 0.19 && 0.19 <= hi);
    }
    println!(
        "phi inside its 95% interval: {}/{seeds} (0.46), {}/{seeds} (0.65); the difference 0.19: {difference_covered}/{seeds}",
        covered[0], covered[1]
    );
    assert!(covered.iter().all(|c| *c >= 90), "{covered:?}");
}

/// B of Chinchilla's law chosen so that D*/N* = `ratio` at `budget` (the other constants
/// Hoffmann's): from N* = G·(C/6)^(β/(α+β)) and G = (αA/(βB))^(1/(α+β)).
fn with_ratio(ratio: f64, budget: f64) -> [f64; 5] {
    let [e, a, alpha, _, beta] = HOFFMANN;
    let base = budget / 6.0;
    let n = (base / ratio).sqrt();
    let g = n / base.powf(beta / (alpha + beta));
    [e, a, alpha, alpha * a / (beta * g.powf(alpha + beta)), beta]
}

/// An IsoFLOP design, as studies that report D*/N* run: 7 budgets from 1e18 to 1e21 FLOPs, 12
/// sizes each spanning 1 to 1,000 tokens per parameter (84 runs), with 0.3 % noise. D*/N* is a
/// ratio of two fitted scales and far less certain than the loss: with 40 runs at 1 % noise
/// its 95 % interval spans about ×2, and only with this design does a single dataset recover
/// it within 10 % most of the time (17 of 20 seeds, measured below).
const ISOFLOP_NOISE: f64 = 0.003;

fn isoflop_track(label: &str, params: &[f64], rng: &mut Rng) -> Track {
    let law = catalog::lookup("chinchilla").unwrap();
    let mut data = FitData {
        variables: vec![Vec::new(), Vec::new()],
        target: Vec::new(),
        weights: None,
        trials: None,
        exposure: None,
    };
    for k in 0..7 {
        let budget = 1e18 * 10f64.powf(k as f64 / 2.0);
        for j in 0..12 {
            let ratio = 10f64.powf(3.0 * j as f64 / 11.0);
            let n = (budget / (6.0 * ratio)).sqrt();
            let d = budget / (6.0 * n);
            data.variables[0].push(n);
            data.variables[1].push(d);
            data.target
                .push(law.eval(params, &[n, d]) * (ISOFLOP_NOISE * rng.normal()).exp());
        }
    }
    Track {
        label: label.into(),
        data,
    }
}

#[test]
fn tokens_per_parameter_of_8_4_and_20_8_are_recovered_within_10_percent() {
    let law = catalog::lookup("chinchilla").unwrap();
    let budget = 1e21;
    let truth = [20.8, 8.4];
    let recovered = |seed: u64, bootstrap: usize| {
        let mut rng = Rng::stream(seed, 0);
        let tracks = [
            isoflop_track("euclidean", &with_ratio(truth[0], budget), &mut rng),
            isoflop_track("hyperbolic", &with_ratio(truth[1], budget), &mut rng),
        ];
        compare_tracks(&law, &tracks, &settings(&[], vec![budget], bootstrap, seed)).unwrap()
    };
    let result = recovered(7, 200);
    for (track, truth) in result.tracks.iter().zip(truth) {
        let a = &track.allocations[0];
        println!(
            "{}: D*/N* = {:.2} {:?} at {budget:e} (made with {truth})",
            track.track, a.tokens_per_param, a.ci["tokens_per_param"]
        );
        assert!(
            (a.tokens_per_param / truth - 1.0).abs() < 0.1,
            "{}",
            a.tokens_per_param
        );
    }
    // How often one dataset recovers both, over 20 more seeds.
    let both = (100..120)
        .filter(|seed| {
            let result = recovered(*seed, 0);
            result.tracks.iter().zip(truth).all(|(track, truth)| {
                (track.allocations[0].tokens_per_param / truth - 1.0).abs() < 0.1
            })
        })
        .count();
    println!("both ratios within 10 % in {both}/20 further seeds");
    assert!(both >= 15, "{both}/20");
}

/// Two objectives under data repetition (Muennighoff et al. 2023's law): everything shared but
/// the repetition constant R_D*, which the joint fit reads per objective (15.4 and 5).
#[test]
fn the_repetition_constant_is_read_per_objective() {
    let law = catalog::lookup("data_constrained").unwrap();
    let published = |name: &str, rd_star: f64| match name {
        "alpha" | "beta" => 0.3526596,
        "A" => 6.255414f64.exp(),
        "B" => 7.3049974f64.exp(),
        "E" => 0.6254804f64.exp(),
        "RN_star" => 5.309743,
        "RD_star" => rd_star,
        _ => f64::NAN,
    };
    let mut rng = Rng::stream(11, 0);
    let mut track = |label: &str, rd_star: f64| {
        let params: Vec<f64> = law
            .params
            .iter()
            .map(|p| published(&p.name, rd_star))
            .collect();
        let mut data = FitData {
            variables: vec![Vec::new(); 3],
            target: Vec::new(),
            weights: None,
            trials: None,
            exposure: None,
        };
        for i in 0..6 {
            let n = 1e8 * 10f64.powf(i as f64 * 0.4);
            for epochs in [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0] {
                for u in [1e9, 4e9] {
                    let point = [n, epochs * u, u];
                    data.variables
                        .iter_mut()
                        .zip(point)
                        .for_each(|(c, v)| c.push(v));
                    data.target
                        .push(law.eval(&params, &point) * (0.002 * rng.normal()).exp());
                }
            }
        }
        Track {
            label: label.into(),
            data,
        }
    };
    let tracks = [track("causal", 15.387756), track("denoising", 5.0)];
    let shared = ["alpha", "A", "beta", "B", "E", "RN_star"];
    let result = compare_tracks(&law, &tracks, &settings(&shared, vec![], 0, 0)).unwrap();
    let index = law.param_index("RD_star").unwrap();
    let rd: Vec<f64> = result
        .tracks
        .iter()
        .map(|t| t.params[index].value)
        .collect();
    println!(
        "R_D*: causal {:.2} (made with 15.39), denoising {:.2} (made with 5)",
        rd[0], rd[1]
    );
    assert!(
        (rd[0] / 15.387756 - 1.0).abs() < 0.2 && (rd[1] / 5.0 - 1.0).abs() < 0.2,
        "{rd:?}"
    );
}
