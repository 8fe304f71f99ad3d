//! Loss curves under LR schedules (issue 10): the O(T) multi-power evaluation against the direct
//! sum and against the published 400M curves (golden file from an independent numpy script),
//! exact gradients against finite differences, the published R² on the real curves of Luo et
//! al. 2025 (testdata/multipower_law), recovery of known parameters, determinism, and the
//! optimised schedule against the standard ones.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use scalinglaws::analysis::schedule::optimize::{
    cooldown_table, final_loss, optimize, OptimizeSettings,
};
use scalinglaws::analysis::schedule::spec::Decay;
use scalinglaws::analysis::schedule::{
    fit_curves, fit_curves_until, multi_power, score, spec, Curve, CurveLaw, RunLog, ScheduleFit,
};
use scalinglaws::data::recipe::{Recipe, Table};
use scalinglaws::data::{Column, Dataset};
use scalinglaws::error::Setting;
use scalinglaws::job::schedule::SchedulePredictJob;
use scalinglaws::workflow::schedule_compare::{ScheduleCompare, ScheduleCompareSpec};
use scalinglaws::workflow::schedule_fit::{LogTable, LogTables, ScheduleFitWorkflow};
use scalinglaws::workflow::schedule_optimize::{ScheduleOptimize, ScheduleOptimizeSpec};
use scalinglaws::workflow::schedule_predict::{SchedulePredict, SchedulePredictSpec};
use scalinglaws::workflow::{Ctx, Workflow};
use scalinglaws::{Error, Interrupt};

use common::MULTI_POWER_RUNS as RUNS;

const PUBLISHED_400M: [f64; 7] = [
    2.37474466,
    0.65421216,
    0.42878731,
    523.42464371,
    2.02462735,
    0.59350493,
    0.63472457,
];

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/multipower_law")
}

/// The upstream per-step schedule of each of the 9 runs, as a spec.
fn spec_of(run: &str) -> String {
    let head = "peak=3e-4,warmup=2160";
    match run {
        "cosine_24000" => format!("cosine:{head},steps=24000,final=3e-5"),
        "cosine_72000" => format!("cosine:{head},steps=72000,final=3e-5"),
        "constant_24000" => format!("constant:{head},steps=24000"),
        "constant_72000" => format!("constant:{head},steps=72000"),
        "wsd_20000_24000" => {
            format!("wsd:{head},steps=24000,decay_start=20000,final=3e-5,decay=exp")
        }
        "wsdld_20000_24000" => {
            format!("wsd:{head},steps=24000,decay_start=20000,final=3e-5,decay=linear")
        }
        "wsdcon_3" => format!("step:{head},steps=16000,at=8000,factor=0.1"),
        "wsdcon_9" => format!("step:{head},steps=16000,at=8000,factor=0.3"),
        "wsdcon_18" => format!("step:{head},steps=16000,at=8000,factor=0.6"),
        other => panic!("unknown run {other}"),
    }
}

const TEST_RUNS: [&str; 6] = [
    "constant_72000",
    "cosine_72000",
    "wsd_20000_24000",
    "wsdld_20000_24000",
    "wsdcon_3",
    "wsdcon_18",
];

/// (steps, losses) of one upstream file.
fn read_log(size: &str, run: &str) -> (Vec<usize>, Vec<f64>, Vec<f64>) {
    let path = data_dir().join(format!("csv_{size}/{run}.csv"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (mut steps, mut lrs, mut loss) = (Vec::new(), Vec::new(), Vec::new());
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.trim().split(',').collect();
        steps.push(f[0].parse::<usize>().unwrap());
        lrs.push(f[1].parse::<f64>().unwrap());
        loss.push(f[2].parse::<f64>().unwrap());
    }
    (steps, lrs, loss)
}

/// The 9 runs of one size on their exact upstream schedules (rows past the schedule dropped,
/// as upstream drops step 24000 of 24000-step runs).
fn curves(size: &str) -> Vec<Curve> {
    RUNS.iter()
        .map(|run| {
            let lrs = spec::parse(&spec_of(run), None).unwrap().main.lrs;
            let (steps, _, loss) = read_log(size, run);
            let keep: Vec<usize> = (0..steps.len()).filter(|&i| steps[i] < lrs.len()).collect();
            Curve {
                run: run.to_string(),
                steps: keep.iter().map(|&i| steps[i]).collect(),
                loss: keep.iter().map(|&i| loss[i]).collect(),
                lrs,
            }
        })
        .collect()
}

fn golden() -> BTreeMap<String, Vec<(usize, f64)>> {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/multipower/published_400m.csv");
    let mut out: BTreeMap<String, Vec<(usize, f64)>> = BTreeMap::new();
    for line in std::fs::read_to_string(path).unwrap().lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        out.entry(f[0].to_string())
            .or_default()
            .push((f[1].parse().unwrap(), f[3].parse().unwrap()));
    }
    out
}

#[test]
fn published_400m_curves_match_the_reference_to_1e_6() {
    let golden = golden();
    let mut worst: f64 = 0.0;
    for curve in curves("400") {
        let rows = &golden[&curve.run];
        let steps: Vec<usize> = rows.iter().map(|r| r.0).collect();
        assert_eq!(steps, curve.steps, "{}", curve.run);
        let ours = CurveLaw::MultiPower
            .evaluate(&PUBLISHED_400M, &curve.lrs, &steps, false)
            .values;
        for ((_, theirs), ours) in rows.iter().zip(&ours) {
            worst = worst.max((theirs - ours).abs());
        }
    }
    println!("published 400M: max |ours − reference| over 2,103 points = {worst:.3e}");
    assert!(worst < 1e-6, "max deviation {worst:e}");
}

#[test]
fn lattice_evaluation_matches_the_direct_sum() {
    // Schedules with warmup, smooth decay, a jump, decay to a tiny lr, and parameters away
    // from the published ones.
    let schedules = [
        "cosine:peak=3e-4,warmup=2160,steps=24000,final=3e-5",
        "wsd:peak=1e-3,warmup=100,steps=5000,decay_start=4000,final=1e-7,decay=linear",
        "step:peak=3e-4,warmup=0,steps=3000,at=1000/2000,factor=0.2",
    ];
    let params = [
        PUBLISHED_400M.to_vec(),
        vec![3.0, 0.4, 0.3, 50.0, 0.3, 1.7, 0.2],
        vec![2.0, 1.0, 0.8, 900.0, 20.0, 0.15, 1.3],
    ];
    let mut worst: f64 = 0.0;
    for text in schedules {
        let lrs = spec::parse(text, None).unwrap().main.lrs;
        let steps: Vec<usize> = (1..lrs.len()).step_by(97).chain([lrs.len() - 1]).collect();
        for p in &params {
            let fast = CurveLaw::MultiPower.evaluate(p, &lrs, &steps, false).values;
            for (&t, v) in steps.iter().zip(&fast) {
                let (direct, _) = multi_power::final_loss(p, &lrs[..=t], t);
                worst = worst.max((direct - v).abs() / direct.abs());
            }
        }
    }
    println!("lattice against direct sum: max relative error {worst:.3e}");
    assert!(worst < 1e-9, "max relative error {worst:e}");
}

fn finite_difference(f: impl Fn(&[f64]) -> f64, p: &[f64], i: usize) -> f64 {
    let h = 1e-6 * p[i].abs().max(1e-3);
    let mut up = p.to_vec();
    let mut down = p.to_vec();
    up[i] += h;
    down[i] -= h;
    (f(&up) - f(&down)) / (2.0 * h)
}

#[test]
fn parameter_gradients_match_finite_differences() {
    let lrs = spec::parse(
        "wsd:peak=3e-4,warmup=500,steps=6000,decay_start=4000,final=3e-5",
        None,
    )
    .unwrap()
    .main
    .lrs;
    let steps = [700usize, 3000, 4500, 5999];
    let cases: [(CurveLaw, Vec<f64>); 4] = [
        (CurveLaw::MultiPower, PUBLISHED_400M.to_vec()),
        (CurveLaw::LrAnnealing, vec![2.4, 0.6, 0.45, 300.0, 0.998]),
        (CurveLaw::PowerArea, vec![2.4, 0.6, 0.45]),
        (CurveLaw::Fsl, vec![2.4, 0.6, 0.45, 400.0, 150.0, 1.7]),
    ];
    for (law, p) in cases {
        let e = law.evaluate(&p, &lrs, &steps, true);
        let g = e.gradient.unwrap();
        for (row, _) in steps.iter().enumerate() {
            for (i, &exact) in g[row].iter().enumerate() {
                let f = |q: &[f64]| law.evaluate(q, &lrs, &steps, false).values[row];
                let fd = finite_difference(f, &p, i);
                let scale = fd.abs().max(exact.abs()).max(1e-8);
                assert!(
                    (fd - exact).abs() / scale < 1e-5,
                    "{} {} at step {}: exact {exact:e} fd {fd:e}",
                    law.name(),
                    law.params()[i],
                    steps[row]
                );
            }
        }
    }
}

#[test]
fn schedule_gradient_matches_finite_differences() {
    let mut lrs = spec::parse("cosine:peak=3e-4,warmup=50,steps=400,final=3e-5", None)
        .unwrap()
        .main
        .lrs;
    lrs[200] *= 1.3; // not monotone: every term of the gradient matters
    for law in CurveLaw::ALL {
        let p: Vec<f64> = match law {
            CurveLaw::MultiPower => PUBLISHED_400M.to_vec(),
            CurveLaw::LrAnnealing => vec![2.4, 0.6, 0.45, 300.0, 0.99],
            CurveLaw::PowerArea => vec![2.4, 0.6, 0.45],
            CurveLaw::Fsl => vec![2.4, 0.6, 0.45, 400.0, 150.0, 1.7],
        };
        let (_, grad) = scalinglaws::analysis::schedule::optimize::final_loss(law, &p, &lrs);
        for tau in [0usize, 1, 49, 50, 199, 200, 201, 399] {
            let f = |x: &[f64]| scalinglaws::analysis::schedule::optimize::final_loss(law, &p, x).0;
            let fd = finite_difference(f, &lrs, tau);
            let scale = fd.abs().max(grad[tau].abs()).max(1e-6);
            assert!(
                (fd - grad[tau]).abs() / scale < 1e-5,
                "{} τ={tau}: {} vs {fd}",
                law.name(),
                grad[tau]
            );
        }
    }
}

fn fit_on_cosine(size: &str) -> ScheduleFit {
    fit_curves(
        CurveLaw::MultiPower,
        &curves(size),
        &["cosine_24000".to_string()],
        &[],
    )
    .unwrap()
}

const PUBLISHED: [(&str, [f64; 7], f64); 3] = [
    (
        "25",
        [
            3.04045406,
            0.52468604,
            0.50786857,
            363.78751622,
            2.06560812,
            0.58279013,
            0.64142257,
        ],
        0.9988,
    ),
    (
        "100",
        [
            2.6514477,
            0.60115152,
            0.45295811,
            437.9464276,
            2.13245612,
            0.59785199,
            0.65523644,
        ],
        0.9983,
    ),
    ("400", PUBLISHED_400M, 0.9978),
];

fn mean_test_r2(size: &str, params: &[f64]) -> f64 {
    let curves = curves(size);
    let r2: Vec<f64> = curves
        .iter()
        .filter(|c| TEST_RUNS.contains(&c.run.as_str()))
        .map(|c| score(CurveLaw::MultiPower, params, c, false).r2.unwrap())
        .collect();
    r2.iter().sum::<f64>() / r2.len() as f64
}

#[test]
fn published_parameters_reproduce_the_published_test_r2() {
    // Luo et al.'s README: mean R² over the six test schedules 0.9988 / 0.9983 / 0.9978.
    for (size, params, published) in PUBLISHED {
        let mean = mean_test_r2(size, &params);
        println!("{size}M published parameters: mean test R² {mean:.6} (paper {published})");
        assert!((mean - published).abs() < 6e-5, "{size}M: {mean}");
    }
}

#[test]
fn cosine_fit_reaches_a_lower_objective_than_the_published_fit() {
    // The global search on cosine_24000 alone: its training objective is below the published
    // parameters' (they are an early-stopped AdamW trajectory, not an optimum), and it still
    // predicts the other schedules; see the issue-10 note for why its test R² is lower.
    for (size, params, _) in PUBLISHED {
        let fit = fit_on_cosine(size);
        let cosine = curves(size)
            .into_iter()
            .find(|c| c.run == "cosine_24000")
            .unwrap();
        let loss = scalinglaws::fit::Loss {
            kind: scalinglaws::fit::LossKind::Huber,
            f_scale: 1e-3,
        };
        let predicted = CurveLaw::MultiPower
            .evaluate(&params, &cosine.lrs, &cosine.steps, false)
            .values;
        let published: f64 = predicted
            .iter()
            .zip(&cosine.loss)
            .map(|(p, y)| loss.cost(y.ln() - p.ln()))
            .sum();
        let mean = fit.mean_test_r2.unwrap();
        let p: Vec<String> = fit
            .params
            .iter()
            .map(|p| format!("{}={:.4}", p.name, p.value))
            .collect();
        println!(
            "{size}M: objective {:.4e} (published {published:.4e}); mean test R² {mean:.5} (published {:.5}); {}",
            fit.objective,
            mean_test_r2(size, &params),
            p.join(" ")
        );
        for r in &fit.runs {
            println!(
                "    {:18} train={:5} R²={:.5?} final_error={:+.4}%",
                r.run,
                r.train,
                r.r2,
                100.0 * r.final_error
            );
        }
        assert!(
            fit.objective < published,
            "{size}M: {} vs {published}",
            fit.objective
        );
        assert!(mean > 0.95, "{size}M: mean test R² {mean}");
        assert!(fit
            .runs
            .iter()
            .all(|r| r.train == (r.run == "cosine_24000")));
    }
}

#[test]
fn known_parameters_are_recovered_from_noise_free_curves() {
    let truth = [2.5, 0.7, 0.45, 400.0, 1.5, 0.55, 0.6];
    let runs = [
        (
            "cosine",
            "cosine:peak=3e-4,warmup=200,steps=6000,final=3e-5",
        ),
        (
            "wsd",
            "wsd:peak=3e-4,warmup=200,steps=6000,decay_start=4800,final=3e-5",
        ),
    ];
    let curves: Vec<Curve> = runs
        .iter()
        .map(|(name, text)| {
            let lrs = spec::parse(text, None).unwrap().main.lrs;
            let steps: Vec<usize> = (256..6000).step_by(64).collect();
            let loss = CurveLaw::MultiPower
                .evaluate(&truth, &lrs, &steps, false)
                .values;
            Curve {
                run: name.to_string(),
                lrs,
                steps,
                loss,
            }
        })
        .collect();
    let fit = fit_curves(CurveLaw::MultiPower, &curves, &[], &[]).unwrap();
    // Compare predictions (the parameters trade off): a held-out constant run to 24000 steps.
    let held = spec::parse("constant:peak=3e-4,warmup=200,steps=12000", None)
        .unwrap()
        .main
        .lrs;
    let steps = [3000usize, 11999];
    let want = CurveLaw::MultiPower
        .evaluate(&truth, &held, &steps, false)
        .values;
    let got = CurveLaw::MultiPower
        .evaluate(&fit.values(), &held, &steps, false)
        .values;
    for (w, g) in want.iter().zip(&got) {
        assert!((w - g).abs() < 1e-4, "held-out prediction {g} vs truth {w}");
    }
    assert!(fit.objective < 1e-10, "objective {}", fit.objective);
}

#[test]
fn seeded_fits_are_bit_identical() {
    let a = serde_json::to_string(&fit_on_cosine("25")).unwrap();
    let b = serde_json::to_string(&fit_on_cosine("25")).unwrap();
    assert_eq!(a, b);
}

#[test]
fn rebuilt_log_schedule_matches_the_upstream_schedule() {
    // The CSV's lr column interpolated between logged steps, with the 2160-step warmup rebuilt.
    let (steps, lrs, loss) = read_log("400", "wsd_20000_24000");
    let logs = [RunLog {
        run: "wsd".into(),
        steps: steps.iter().map(|&s| s as f64).collect(),
        lrs,
        loss,
        locations: (0..steps.len())
            .map(|i| scalinglaws::error::Location {
                file: "x".into(),
                row: Some(i + 1),
                line: None,
                column: None,
            })
            .collect(),
    }];
    let rebuilt = scalinglaws::analysis::schedule::curves_from_logs(&logs, 2160).unwrap();
    let exact = spec::parse(&spec_of("wsd_20000_24000"), None)
        .unwrap()
        .main
        .lrs;
    let r = &rebuilt[0];
    for s in [0usize, 1, 2159, 5000, 19968] {
        assert!(
            (r.lrs[s] - exact[s]).abs() < 1e-15,
            "step {s}: {} vs {}",
            r.lrs[s],
            exact[s]
        );
    }
    let a = CurveLaw::MultiPower
        .evaluate(&PUBLISHED_400M, &r.lrs, &r.steps, false)
        .values;
    let b = CurveLaw::MultiPower
        .evaluate(&PUBLISHED_400M, &exact, &r.steps, false)
        .values;
    let worst = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    println!("wsd 400M: rebuilt-from-log schedule against exact: max |Δloss| {worst:.2e}");
    assert!(worst < 2e-3);
}

#[test]
fn optimised_schedule_beats_cosine_wsd_and_constant() {
    // With the published 400M parameters (the paper's §5 setting).
    let (fit, settings) = published_400m_setting();
    let best = optimize(&fit, &settings, &Default::default()).unwrap();
    let best_baseline = best
        .baselines
        .iter()
        .map(|b| b.final_loss)
        .fold(f64::INFINITY, f64::min);
    println!(
        "optimised: final loss {:.5} vs best baseline {:.5} ({}); gain {:.2e}; stable until {}, decay over {} steps, final lr {:.2e}; {} iterations",
        best.final_loss, best_baseline, best.best_baseline, best.gain, best.stable_until, best.decay_steps, best.final_lr, best.iterations
    );
    // The optimiser starts at the best baseline, so "no worse than it" cannot fail. Instead: it
    // must beat a brute-force search over WSD schedules (the baselines' family, on a finer grid
    // of decay starts, shapes and final rates: all inside the constraint set) by a margin, which
    // a no-op optimiser (the best baseline) or a wrong gradient would miss.
    let grid_best = best_wsd_on_a_grid(&fit, &settings);
    println!(
        "brute force: best WSD on the grid {:.5} ({}); optimised {:.5}",
        grid_best.0, grid_best.1, best.final_loss
    );
    assert!(
        grid_best.0 < best_baseline,
        "the grid holds the baselines' WSD schedules and more"
    );
    assert!(
        best.final_loss < grid_best.0 - 1e-3,
        "optimised {} is not 1e-3 below the best WSD on the grid {}",
        best.final_loss,
        grid_best.0
    );
    assert!((best.gain - (best_baseline - best.final_loss)).abs() < 1e-12);
    // The constraint set holds.
    let lrs = &best.lrs;
    assert_eq!(lrs.len(), 24000);
    for w in lrs[2160..].windows(2) {
        assert!(w[1] <= w[0] + 1e-18);
    }
    assert!(lrs[2160..].iter().all(|&lr| (3e-6..=3e-4).contains(&lr)));
    // WSD-like: a long stable phase then a decay in the last part.
    assert!(
        best.stable_until > 12000 && best.stable_until < 23000,
        "stable until {}",
        best.stable_until
    );
}

/// The lowest final loss over WSD schedules with the decay starting at 5%, 10%, ..., 60% of
/// the post-warmup steps from the end, linear or exponential, to 1, 2, 5, 10 or 30 × the floor.
fn best_wsd_on_a_grid(fit: &ScheduleFit, s: &OptimizeSettings) -> (f64, String) {
    let head = format!("peak={},warmup={},steps={}", s.peak, s.warmup, s.steps);
    let mut best = (f64::INFINITY, String::new());
    for percent in (5..=60).step_by(5) {
        let start = s.steps - (s.steps - s.warmup) * percent / 100;
        for decay in ["exp", "linear"] {
            for factor in [1.0, 2.0, 5.0, 10.0, 30.0] {
                let text = format!(
                    "wsd:{head},decay_start={start},final={:e},decay={decay}",
                    s.floor * factor
                );
                let lrs = spec::parse(&text, None).unwrap().main.lrs;
                let (loss, _) = final_loss(fit.law, &fit.values(), &lrs);
                if loss < best.0 {
                    best = (loss, text);
                }
            }
        }
    }
    best
}

/// WSD shapes: warmup (as the specs build it), the peak until `start`, a decay of `len` steps
/// to `last` by `decay` (reaching `last` at step start + len − 1), then `last` to the end.
fn wsd_shape(
    warmup_and_peak: &[f64],
    start: usize,
    len: usize,
    last: f64,
    decay: Decay,
) -> Vec<f64> {
    let peak = warmup_and_peak[warmup_and_peak.len() - 1];
    let mut lrs = warmup_and_peak.to_vec();
    for s in start..lrs.len() {
        lrs[s] = if s < start + len {
            decay.at((s - start + 1) as f64 / len as f64, peak, last)
        } else {
            last
        };
    }
    lrs
}

/// The multi-power law's final loss, summed directly over the steps whose learning rate
/// changes (d_k = 0 on the stable phase adds nothing): an evaluation independent of the
/// library's, and fast enough for thousands of WSD shapes.
fn direct_final_loss(p: &[f64], lrs: &[f64]) -> f64 {
    let t = lrs.len() - 1;
    let mut u = lrs[t];
    let mut drop = 0.0;
    for k in (1..=t).rev() {
        let d = lrs[k - 1] - lrs[k];
        if d.abs() > 0.0 {
            let g = 1.0 - (1.0 + p[4] * lrs[k].powf(-p[6]) * u).powf(-p[5]);
            drop += d * g;
        }
        u += lrs[k - 1];
    }
    p[0] + p[1] * u.powf(-p[2]) - p[3] * drop
}

/// The best WSD shape by brute force: a grid over (decay start, decay length, final lr, decay
/// form) every 1,000 steps, then a pattern search from the grid's best of each form down to
/// single steps and 0.5 % in the final lr. Returns (final loss, description).
fn brute_force_wsd(p: &[f64], s: &OptimizeSettings) -> (f64, String) {
    let base = spec::parse(
        &format!(
            "constant:peak={},warmup={},steps={}",
            s.peak, s.warmup, s.steps
        ),
        None,
    )
    .unwrap()
    .main
    .lrs;
    let eval = |start: usize, len: usize, ln_last: f64, decay: Decay| -> f64 {
        let last = ln_last.exp().clamp(s.floor, s.peak);
        if start < s.warmup || len == 0 || start + len > s.steps {
            return f64::INFINITY;
        }
        direct_final_loss(p, &wsd_shape(&base, start, len, last, decay))
    };
    let mut best = (f64::INFINITY, String::new());
    for decay in [Decay::Linear, Decay::Exp, Decay::Cosine] {
        let mut point = (0usize, 0usize, 0.0f64);
        let mut value = f64::INFINITY;
        for start in (s.warmup..s.steps).step_by(1000) {
            for len in (1000..=s.steps - start).step_by(1000) {
                for factor in [1.0f64, 2.0, 5.0, 10.0, 30.0] {
                    let v = eval(start, len, (s.floor * factor).ln(), decay);
                    if v < value {
                        (value, point) = (v, (start, len, (s.floor * factor).ln()));
                    }
                }
            }
        }
        // Pattern search: try ± each coordinate's step, halve the steps when none improves.
        let (mut step, mut ln_step) = (512usize, 0.5f64);
        while step >= 1 || ln_step >= 0.005 {
            let (st, le, ln) = point;
            let moves = [
                (st + step, le, ln),
                (st.saturating_sub(step), le, ln),
                (st, le + step, ln),
                (st, le.saturating_sub(step), ln),
                (st + step, le.saturating_sub(step), ln),
                (st.saturating_sub(step), le + step, ln),
                (st, le, ln + ln_step),
                (st, le, ln - ln_step),
            ];
            let found = moves
                .iter()
                .map(|&(a, b, c)| (eval(a, b, c, decay), (a, b, c)))
                .min_by(|x, y| x.0.total_cmp(&y.0))
                .unwrap();
            if found.0 < value {
                (value, point) = found;
            } else if step == 0 && ln_step < 0.005 {
                break;
            } else {
                step /= 2;
                ln_step /= 2.0;
            }
        }
        let text = format!(
            "decay {} from step {} over {} steps to {:.3e}",
            decay.name(),
            point.0,
            point.1,
            point.2.exp().clamp(s.floor, s.peak)
        );
        println!("brute force, {}: {value:.6} ({text})", decay.name());
        if value < best.0 {
            best = (value, text);
        }
    }
    best
}

#[test]
fn optimiser_is_within_1e_4_of_a_brute_force_search_over_wsd_shapes() {
    // The optimiser starts from the best of its baselines (constant, cosine and six WSD
    // schedules), so "no worse than the baselines" holds by construction. This brute force
    // searches a larger family it does not start from: every WSD shape (decay start, decay
    // length, final lr from the floor up, linear, exponential or cosine decay), on the
    // published 400M parameters (Luo et al. 2025's src/config.py; the paper's §5 setting:
    // 24,000 steps, peak 3e-4, 2,160 warmup steps). Every such shape lies in the optimiser's
    // constraint set, so its optimum must be no worse, up to 1e-4 absolute in the predicted
    // loss (nats/token). Absolute, because a user compares the losses themselves; 1e-4 is
    // 4e-5 relative at the loss of 2.69 here and under a twentieth of the 2.7e-3 by which the
    // optimum beats the best WSD shape, so an optimiser stopped short of it, or following a
    // wrong gradient, fails. The losing direction is the only one tested: the optimum is not
    // a WSD shape, so being far below the brute force is the expected outcome, not an error.
    let (fit, settings) = published_400m_setting();
    // The independent evaluation agrees with the library's.
    let wsd = spec::parse(&spec_of("wsd_20000_24000"), None)
        .unwrap()
        .main
        .lrs;
    let (library, _) = final_loss(CurveLaw::MultiPower, &PUBLISHED_400M, &wsd);
    let direct = direct_final_loss(&PUBLISHED_400M, &wsd);
    assert!((library - direct).abs() < 1e-12, "{library} vs {direct}");
    let optimised = optimize(&fit, &settings, &Default::default()).unwrap();
    let (brute, shape) = brute_force_wsd(&PUBLISHED_400M, &settings);
    println!(
        "optimiser {:.6} vs brute-force WSD {brute:.6} ({shape}): optimiser − brute force = {:.2e}",
        optimised.final_loss,
        optimised.final_loss - brute
    );
    assert!(
        optimised.final_loss <= brute + 1e-4,
        "the optimiser's {} loses to the brute force's {brute} ({shape})",
        optimised.final_loss
    );
}

#[test]
fn lr_annealing_follows_its_definition() {
    // Tissue et al. 2024 (arXiv:2408.11029): L(s) = L0 + A·S1^(−α) − C·S2, S2 = Σ_{i≤s} m_i,
    // m_i = λ·m_{i−1} + (η_{i−1} − η_i). No published number could be checked: the sources
    // this project can reach hold only the paper's abstract and first page (v1 and v2), which
    // give the form but no fitted parameters, curve values or R², and its runs are not among
    // the shared data. What is checked instead is the definition, three ways: the running
    // sums against the momentum recursion written out term by term, the closed form
    // S2 = Σ_k d_k·(1 − λ^(s−k+1))/(1 − λ) that the schedule optimiser differentiates, and the
    // λ = 0 case, where S2 is the learning rate annealed so far, η_0 − η_s.
    let lrs = spec::parse(&spec_of("wsd_20000_24000"), None)
        .unwrap()
        .main
        .lrs;
    let t = lrs.len() - 1;
    for (lambda, without_momentum) in [(0.0, true), (0.9, false), (0.999, false)] {
        let p = [2.4, 0.6, 0.45, 1.5, lambda];
        let (mut m, mut s2) = (0.0, 0.0);
        for i in 1..=t {
            m = lambda * m + (lrs[i - 1] - lrs[i]);
            s2 += m;
        }
        let area: f64 = lrs.iter().sum();
        let want = p[0] + p[1] * area.powf(-p[2]) - p[3] * s2;
        let got = CurveLaw::LrAnnealing.evaluate(&p, &lrs, &[t], false).values[0];
        let (closed, _) = final_loss(CurveLaw::LrAnnealing, &p, &lrs);
        assert!((got - want).abs() < 1e-12, "λ = {lambda}: {got} vs {want}");
        assert!(
            (closed - want).abs() < 1e-12,
            "λ = {lambda}: {closed} vs {want}"
        );
        if without_momentum {
            assert!((s2 - (lrs[0] - lrs[t])).abs() < 1e-15, "{s2}");
        }
    }
}

#[test]
fn cooldowns_gain_over_the_constant_run() {
    let fit = fit_on_cosine("400");
    let rows = cooldown_table(
        &fit,
        3e-4,
        2160,
        &[8000, 16000],
        &[500, 2000],
        Decay::Linear,
        3e-6,
    )
    .unwrap();
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert!(r.gain > 0.0, "{r:?}");
        assert_eq!(r.end_step, r.start + r.length - 1);
    }
}

#[test]
fn a_saved_fit_reads_back_including_the_old_termination_names() {
    use scalinglaws::fit::solver::Termination;
    let fit = fit_on_cosine("400");
    let mut value = serde_json::to_value(&fit).unwrap();
    let read = ScheduleFit::from_json(&value.to_string()).unwrap();
    assert_eq!(read.params, fit.params);
    assert_eq!(read.termination, fit.termination);
    assert!(read.runs.is_empty(), "the per-run scores are not read back");
    // Before the engine's Termination, fits wrote its Debug name in lowercase.
    value["termination"] = "maxiterations".into();
    let read = ScheduleFit::from_json(&value.to_string()).unwrap();
    assert_eq!(read.termination, Termination::MaxIterations);
    value["kind"] = "fit".into();
    let error = ScheduleFit::from_json(&value.to_string()).unwrap_err();
    assert!(error.to_string().contains("its kind is 'fit'"), "{error}");
    assert!(ScheduleFit::from_json("{}").is_err());
}

/// The published 400M parameters (Luo et al. 2025's src/config.py) in a fit of the 400M
/// cosine run, and the paper's §5 optimisation setting: 24,000 steps, peak 3e-4, 2,160 warmup
/// steps, floor 3e-6.
/// A set token stops the fit, a prediction (a long one, a family of cooldowns) and the
/// optimiser with `Error::Interrupted`; an untouched one changes nothing.
#[test]
fn an_interrupt_stops_the_fit_the_predictions_and_the_optimiser() {
    let stopped = Interrupt::new();
    stopped.interrupt();
    let curves = curves("400");
    let fitted = fit_curves_until(CurveLaw::MultiPower, &curves, &[], &[], &stopped);
    assert!(matches!(fitted, Err(Error::Interrupted)), "{fitted:?}");
    let (fit, settings) = published_400m_setting();
    for schedule in [
        "cosine:steps=50000000",
        "cooldowns:steps=2000000,every=20000,len=20000",
    ] {
        let mut job = SchedulePredictJob {
            schedule: schedule.into(),
            every: 0,
            interrupt: stopped.clone(),
        };
        assert!(
            matches!(job.run(&fit), Err(Error::Interrupted)),
            "{schedule}"
        );
        if schedule.starts_with("cooldowns") {
            job.interrupt = Interrupt::new();
            assert!(job.run(&fit).is_ok());
        }
    }
    let compare = ScheduleCompareSpec {
        schedules: vec!["cosine:steps=50000000".into(), "constant".into()],
        every: 1_000_000,
    };
    let ctx = Ctx {
        interrupt: stopped.clone(),
        ..Ctx::default()
    };
    let compared = ScheduleCompare::run(&compare, &fit, &ctx);
    assert!(matches!(compared, Err(Error::Interrupted)), "{compared:?}");
    let optimised = optimize(&fit, &settings, &stopped);
    assert!(matches!(optimised, Err(Error::Interrupted)));
    let spec = ScheduleOptimizeSpec {
        steps: Some(settings.steps),
        peak: Some(settings.peak),
        warmup: Some(settings.warmup),
        floor: Some(settings.floor),
        max_iterations: settings.max_iterations,
        whole_schedule: true,
    };
    let whole = ScheduleOptimize::run(&spec, &fit, &Default::default()).unwrap();
    let direct = optimize(&fit, &settings, &Interrupt::new()).unwrap();
    assert_eq!(whole.lr.as_deref(), Some(direct.lrs.as_slice()));
    assert_eq!(whole.result, direct);
}

/// The `schedule_predict` workflow: without intervals its document is the job's curve, key for
/// key (so `schedule predict --json` writes what it wrote before it was a workflow); each rule
/// between its settings names the setting it refuses, before any fit is read.
#[test]
fn the_schedule_predict_workflow_is_the_jobs_curve_and_checks_its_settings() {
    let (fit, _) = published_400m_setting();
    let spec = |json: &str| -> SchedulePredictSpec { serde_json::from_str(json).unwrap() };
    let plain = spec(r#"{"schedule": "cosine", "every": 1000}"#);
    SchedulePredict::check(&plain).unwrap();
    let document = SchedulePredict::run(&plain, &fit, &Ctx::default()).unwrap();
    let job = SchedulePredictJob {
        schedule: "cosine".into(),
        every: 1000,
        interrupt: Interrupt::new(),
    };
    assert_eq!(
        serde_json::to_value(&document).unwrap(),
        serde_json::to_value(job.run(&fit).unwrap()).unwrap()
    );
    for (json, key) in [
        (r#"{"schedule": "cosine", "seed": 1}"#, Setting::Seed),
        (
            r#"{"schedule": "cosine", "bootstrap": 0, "interval": "profile", "seed": 1}"#,
            Setting::Seed,
        ),
        (
            r#"{"schedule": "cosine", "interval": "bootstrap"}"#,
            Setting::Interval,
        ),
        (
            r#"{"schedule": "cosine", "interval": "profile", "bootstrap": 20}"#,
            Setting::Interval,
        ),
        (r#"{"schedule": "cosine", "level": 0.9}"#, Setting::Level),
        (
            r#"{"schedule": "cosine", "bootstrap": 20, "level": 1.5}"#,
            Setting::Level,
        ),
        (
            r#"{"schedule": "cosine", "interval": "profile", "level": 1.5}"#,
            Setting::Level,
        ),
    ] {
        let refused = SchedulePredict::check(&spec(json)).unwrap_err();
        assert_eq!(refused.key(), Some(key), "{json}: {refused:?}");
    }
}

fn published_400m_setting() -> (ScheduleFit, OptimizeSettings) {
    let mut fit = fit_on_cosine("400");
    for (p, v) in fit.params.iter_mut().zip(PUBLISHED_400M) {
        p.value = v;
    }
    let settings = OptimizeSettings {
        steps: 24000,
        peak: 3e-4,
        warmup: 2160,
        floor: 3e-6,
        max_iterations: 400,
    };
    (fit, settings)
}

/// Logs of two runs in one table (`source` names it), each logged every 100 steps: a constant
/// learning rate and a linear decay, losses falling with the learning-rate area.
fn two_run_logs(source: &str) -> Table {
    let (mut runs, mut steps, mut lrs, mut loss) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for run in ["constant", "decay"] {
        let mut area = 0.0;
        for step in 0..2000_usize {
            let lr = match run {
                "constant" => 3e-4,
                _ => 3e-4 * (1.0 - step as f64 / 2000.0) + 3e-6,
            };
            area += lr;
            if step % 100 == 99 {
                runs.push(run.to_string());
                steps.push(step as f64);
                lrs.push(lr);
                loss.push(2.5 + 0.5 * area.powf(-0.3));
            }
        }
    }
    let columns = vec![
        ("run".to_string(), Column::Text(runs)),
        ("step".to_string(), Column::Numeric(steps)),
        ("lr".to_string(), Column::Numeric(lrs)),
        ("loss".to_string(), Column::Numeric(loss)),
    ];
    let recipe = Recipe {
        target: "loss".into(),
        ..Recipe::default()
    };
    Table::prepare(Dataset::from_columns(source, columns).unwrap(), &recipe).unwrap()
}

/// The `schedule_fit` workflow: a run column splits a table's rows into runs; without one a
/// file is one run named by its stem and a table held in memory is refused naming `run`; a
/// held parameter the law lacks is refused by `check`, before the logs are read; the document
/// names its files; a budget too small refuses the fit before it starts.
#[test]
fn the_schedule_fit_workflow_names_its_runs_and_its_files() {
    let spec = |json: &str| ScheduleFitWorkflow::spec(serde_json::from_str(json).unwrap()).unwrap();
    let by_column = spec(r#"{"run": "run", "law": "power_area"}"#);
    let file = LogTables(vec![LogTable::from_file(
        two_run_logs("logs/two_runs.csv"),
        std::path::Path::new("logs/two_runs.csv"),
    )]);
    let runs: Vec<String> = by_column
        .logs(&file)
        .unwrap()
        .into_iter()
        .map(|l| l.run)
        .collect();
    assert_eq!(runs, ["constant", "decay"]);
    let fit = ScheduleFitWorkflow::run(&by_column, &file, &Ctx::default()).unwrap();
    assert_eq!(fit.data, ["logs/two_runs.csv"]);
    assert_eq!(fit.runs.len(), 2);
    let by_file = spec(r#"{"law": "power_area"}"#);
    let one: Vec<String> = by_file
        .logs(&file)
        .unwrap()
        .into_iter()
        .map(|l| l.run)
        .collect();
    assert_eq!(one, ["two_runs"]);
    let memory = LogTables(vec![LogTable {
        table: two_run_logs("the DataFrame"),
        name: None,
    }]);
    let unnamed = by_file.logs(&memory).unwrap_err();
    assert_eq!(unnamed.key(), Some(Setting::Run), "{unnamed}");
    let held = spec(r#"{"run": "run", "fix": {"gamma9": 1.0}}"#);
    let refused = ScheduleFitWorkflow::check(&held).unwrap_err();
    assert_eq!(refused.key(), Some(Setting::Fix), "{refused}");
    let poor = Ctx {
        max_work: Some(1e-9),
        ..Ctx::default()
    };
    let over = ScheduleFitWorkflow::run(&by_column, &file, &poor).unwrap_err();
    assert_eq!(over.key(), Some(Setting::MaxWork), "{over}");
}
