//! Criterion benchmarks of the fitting engine on the Chinchilla data (Epoch protocol):
//! the default global search, Epoch's 4,500-start grid, a 1,000-replicate bootstrap (the full
//! search in every replicate), and one objective+gradient pass against a hand-written
//! closed-form gradient of the same law; a recipe comparison of two 40-run tracks with 200
//! bootstrap replicates each (the bundled examples/tracks data); the learning-rate analysis
//! of a synthetic 3,000-run sweep; and the default fit (with and without the rolling-origin
//! calibration the command line runs by default) of synthetic tables of 1e4, 1e5 and 1e6 rows
//! (`bench/million_rows.sh` times the same through the command line, with its peak memory);
//! and binomial fits of 10,000 rows (the likelihood families).

#[path = "../tests/integration/common/mod.rs"]
mod common;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use scalinglaws::analysis::allocation::AllocationSettings;
use scalinglaws::analysis::lr::{lr_analysis, LrSettings};
use scalinglaws::analysis::tracks::{compare_tracks, Track, TrackSettings};
use scalinglaws::data::Dataset;
use scalinglaws::fit::{fit, problem_for, FitData, FitSettings};
use scalinglaws::law::catalog;
use scalinglaws::uncertainty::{bootstrap, BootstrapOptions, Resampling};

/// Hand-written objective and gradient of Huber(1e-3) on log residuals of
/// E + A N^-alpha + B D^-beta, with ln N and ln D precomputed (the best a closed form can do).
fn closed_form(
    p: &[f64; 5],
    ln_n: &[f64],
    ln_d: &[f64],
    ln_y: &[f64],
    gradient: &mut [f64; 5],
) -> f64 {
    let [e, a, alpha, b, beta] = *p;
    let delta = 1e-3;
    *gradient = [0.0; 5];
    let mut value = 0.0;
    for i in 0..ln_y.len() {
        let pn = (-alpha * ln_n[i]).exp();
        let pd = (-beta * ln_d[i]).exp();
        let prediction = e + a * pn + b * pd;
        let r = prediction.ln() - ln_y[i];
        let (cost, d1) = if r.abs() <= delta {
            (0.5 * r * r, r)
        } else {
            (delta * (r.abs() - 0.5 * delta), delta * r.signum())
        };
        value += cost;
        let s = d1 / prediction;
        gradient[0] += s;
        gradient[1] += s * pn;
        gradient[2] -= s * a * pn * ln_n[i];
        gradient[3] += s * pd;
        gradient[4] -= s * b * pd * ln_d[i];
    }
    value
}

fn benches(c: &mut Criterion) {
    let data: FitData = common::chinchilla_epoch();
    let law = catalog::lookup("chinchilla").unwrap();
    let default = FitSettings::default();
    c.bench_function("chinchilla_default_fit", |b| {
        b.iter(|| fit(&law, black_box(&data), &default).unwrap())
    });

    let grid = common::epoch_grid();
    let mut group = c.benchmark_group("slow");
    group.sample_size(10);
    group.bench_function("chinchilla_epoch_grid_4500", |b| {
        b.iter(|| fit(&law, black_box(&data), &grid).unwrap())
    });
    let base = fit(&law, &data, &default).unwrap();
    let options = BootstrapOptions {
        replicates: 1000,
        level: 0.95,
        seed: 0,
        resampling: Resampling::Rows,
    };
    group.bench_function("chinchilla_bootstrap_1000", |b| {
        b.iter(|| bootstrap(&law, black_box(&data), &default, &base, &options, &|_| {}).unwrap())
    });
    let tracks = two_tracks();
    let compare_settings = TrackSettings {
        fit: FitSettings::default(),
        shared: Vec::new(),
        baseline: 0,
        allocation: AllocationSettings::at_budgets(vec![1e20, 1e22, 1e24]),
        bootstrap: 200,
        seed: 0,
        level: 0.95,
        cell_tolerance: 1e-3,
        calibration: None,
    };
    // Issue 9's bound: the whole LR analysis of 3,000 runs (24 sizes × 25 horizons × 5 LRs)
    // in under a second.
    let sweep = common::lr::sweep_on(&common::lr::CURVED, 1, common::lr::SIGMA, (24, 25));
    assert_eq!(sweep.lr.len(), 3000);
    let lr_settings = LrSettings {
        targets: vec![(7e9, 1.4e12)],
        ..LrSettings::default()
    };
    group.bench_function("lr_analysis_3000_runs", |b| {
        b.iter(|| lr_analysis(black_box(&sweep), &lr_settings).unwrap())
    });
    group.bench_function("compare_two_tracks_bootstrap_200", |b| {
        b.iter(|| compare_tracks(&law, black_box(&tracks), &compare_settings).unwrap())
    });
    group.finish();

    let problem = problem_for(&law, &data, &default).unwrap();
    let p = [1.81721, 477.86, 0.347315, 2142.56, 0.367153];
    let mut scratch = problem.tape().scratch();
    let mut gradient = vec![0.0; 5];
    c.bench_function("objective_gradient_tape", |b| {
        b.iter(|| problem.value_and_gradient(black_box(&p), &mut scratch, &mut gradient))
    });
    let u = problem.internal(&p);
    c.bench_function("exact_hessian_pass", |b| {
        b.iter(|| problem.exact(black_box(&u)))
    });
    c.bench_function("gauss_newton_pass", |b| {
        b.iter(|| problem.gauss_newton(black_box(&u), &mut scratch))
    });
    c.bench_function("objective_pass", |b| {
        b.iter(|| problem.objective(black_box(&u), &mut scratch))
    });
    let ln_n: Vec<f64> = data.variables[0].iter().map(|v| v.ln()).collect();
    let ln_d: Vec<f64> = data.variables[1].iter().map(|v| v.ln()).collect();
    let ln_y: Vec<f64> = data.target.iter().map(|v| v.ln()).collect();
    let mut g5 = [0.0; 5];
    c.bench_function("objective_gradient_closed_form", |b| {
        b.iter(|| closed_form(black_box(&p), &ln_n, &ln_d, &ln_y, &mut g5))
    });
}

/// examples/tracks/two_recipes.csv as two tracks (columns recipe, N, D, loss).
fn two_tracks() -> Vec<Track> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/tracks/two_recipes.csv"
    );
    let data = Dataset::read(std::path::Path::new(path), None).unwrap();
    let recipe = data.text("recipe").unwrap();
    let (n, d, loss) = (
        data.numeric("N").unwrap(),
        data.numeric("D").unwrap(),
        data.numeric("loss").unwrap(),
    );
    ["baseline", "new"]
        .iter()
        .map(|label| {
            let rows: Vec<usize> = (0..recipe.len()).filter(|&r| recipe[r] == *label).collect();
            let pick = |c: &[f64]| rows.iter().map(|&r| c[r]).collect::<Vec<f64>>();
            Track {
                label: label.to_string(),
                data: FitData {
                    variables: vec![pick(&n), pick(&d)],
                    target: pick(&loss),
                    weights: None,
                    trials: None,
                    exposure: None,
                },
            }
        })
        .collect()
}

/// `fsl` parameters of the order of its fits on the 400M curves, [L0, A, α, C, b, γ].
const FSL: [f64; 6] = [2.4, 0.6, 0.45, 400.0, 150.0, 1.7];

/// Multi-power curves: one evaluation (all logged points, every 128 steps) at T = 1e4, 1e5, 1e6
/// steps (linear in T), and one fit of a 24,000-step cosine curve (synthetic, noise-free).
fn schedule_benches(c: &mut Criterion) {
    use scalinglaws::analysis::schedule::{fit_curves, spec, Curve, CurveLaw};
    let p = [
        2.37474466,
        0.65421216,
        0.42878731,
        523.42464371,
        2.02462735,
        0.59350493,
        0.63472457,
    ];
    let mut group = c.benchmark_group("schedule");
    group.sample_size(10);
    for t in [10_000usize, 100_000, 1_000_000] {
        let text = format!("cosine:peak=3e-4,warmup={},steps={t},final=3e-5", t / 10);
        let lrs = spec::parse(&text, None).unwrap().main.lrs;
        let steps: Vec<usize> = (t / 10..t).step_by(128).collect();
        group.bench_function(format!("multi_power_curve_T{t}"), |b| {
            b.iter(|| CurveLaw::MultiPower.evaluate(&p, black_box(&lrs), &steps, false))
        });
        group.bench_function(format!("multi_power_curve_gradient_T{t}"), |b| {
            b.iter(|| CurveLaw::MultiPower.evaluate(&p, black_box(&lrs), &steps, true))
        });
        group.bench_function(format!("fsl_curve_gradient_T{t}"), |b| {
            b.iter(|| CurveLaw::Fsl.evaluate(&FSL, black_box(&lrs), &steps, true))
        });
    }
    let lrs = spec::parse("cosine:peak=3e-4,warmup=2160,steps=24000,final=3e-5", None)
        .unwrap()
        .main
        .lrs;
    let steps: Vec<usize> = (2160..24000).step_by(128).collect();
    let loss = CurveLaw::MultiPower
        .evaluate(&p, &lrs, &steps, false)
        .values;
    let curves = vec![Curve {
        run: "cosine".into(),
        lrs,
        steps,
        loss,
    }];
    group.bench_function("multi_power_fit_cosine_24000", |b| {
        b.iter(|| fit_curves(CurveLaw::MultiPower, black_box(&curves), &[], &[]).unwrap())
    });
    let real = vec![real_cosine_400m()];
    group.bench_function("multi_power_fit_cosine_24000_real_400m", |b| {
        b.iter(|| fit_curves(CurveLaw::MultiPower, black_box(&real), &[], &[]).unwrap())
    });
    // The functional scaling law (ours, see analysis::schedule::fsl) on the same schedule.
    let fsl_curves: Vec<Curve> = curves
        .iter()
        .map(|c| Curve {
            loss: CurveLaw::Fsl.evaluate(&FSL, &c.lrs, &c.steps, false).values,
            ..c.clone()
        })
        .collect();
    group.bench_function("fsl_fit_cosine_24000", |b| {
        b.iter(|| fit_curves(CurveLaw::Fsl, black_box(&fsl_curves), &[], &[]).unwrap())
    });
    group.bench_function("fsl_fit_cosine_24000_real_400m", |b| {
        b.iter(|| fit_curves(CurveLaw::Fsl, black_box(&real), &[], &[]).unwrap())
    });
    group.finish();
}

/// The 400M cosine_24000 curve of Luo et al. 2025 (examples/schedule, MIT) on its exact
/// schedule.
fn real_cosine_400m() -> scalinglaws::analysis::schedule::Curve {
    use scalinglaws::analysis::schedule::spec;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/schedule/runs_400m.csv"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let (mut steps, mut loss) = (Vec::new(), Vec::new());
    for line in text
        .lines()
        .skip(1)
        .filter(|l| l.starts_with("cosine_24000,"))
    {
        let fields: Vec<&str> = line.split(',').collect();
        steps.push(fields[1].parse().unwrap());
        loss.push(fields[3].parse().unwrap());
    }
    let text = "cosine:peak=3e-4,warmup=2160,steps=24000,final=3e-5";
    let lrs = spec::parse(text, None).unwrap().main.lrs;
    scalinglaws::analysis::schedule::Curve {
        run: "cosine_24000".into(),
        lrs,
        steps,
        loss,
    }
}

/// N = 10^U(7,10), D = 10^U(9,12), loss = (1.69 + 406.4/N^0.34 + 410.7/D^0.28)·e^(0.01·z),
/// seeded: the table of `bench/million_rows.sh` (another generator, the same law and noise).
fn synthetic_rows(rows: usize) -> FitData {
    let mut rng = scalinglaws::rng::Rng::new(21);
    let mut data = FitData {
        variables: vec![Vec::with_capacity(rows), Vec::with_capacity(rows)],
        target: Vec::with_capacity(rows),
        weights: None,
        trials: None,
        exposure: None,
    };
    for _ in 0..rows {
        let n = 10f64.powf(7.0 + 3.0 * rng.uniform());
        let d = 10f64.powf(9.0 + 3.0 * rng.uniform());
        let loss =
            (1.69 + 406.4 / n.powf(0.34) + 410.7 / d.powf(0.28)) * (0.01 * rng.normal()).exp();
        data.variables[0].push(n);
        data.variables[1].push(d);
        data.target.push(loss);
    }
    data
}

/// Issue 21's scale: the default fit of 1e4, 1e5 and 1e6 rows, alone and with the default
/// calibration (five rolling origins by compute 6·N·D, each a fit of its own).
fn rows_benches(c: &mut Criterion) {
    use scalinglaws::uncertainty::{calibrate, CalibrationOptions};
    let law = catalog::lookup("chinchilla").unwrap();
    let settings = FitSettings::default();
    let mut group = c.benchmark_group("rows");
    group.sample_size(10);
    for rows in [10_000usize, 100_000, 1_000_000] {
        let data = synthetic_rows(rows);
        let compute: Vec<f64> = data.variables[0]
            .iter()
            .zip(&data.variables[1])
            .map(|(n, d)| 6.0 * n * d)
            .collect();
        group.bench_function(format!("chinchilla_fit_{rows}_rows"), |b| {
            b.iter(|| fit(&law, black_box(&data), &settings).unwrap())
        });
        group.bench_function(format!("chinchilla_fit_calibrated_{rows}_rows"), |b| {
            b.iter(|| {
                let result = fit(&law, black_box(&data), &settings).unwrap();
                let options = CalibrationOptions::default();
                let calibration =
                    calibrate(&law, &data, "C", &compute, &settings, &options).unwrap();
                (result, calibration)
            })
        });
    }
    group.finish();
}

/// Issue 22's target: a binomial fit of 10,000 rows (accuracies out of 100..10,000 trials),
/// the logistic GLM `sigmoid(a + b*log(x))` and the bounded sigmoid with floor and ceiling.
fn family_benches(c: &mut Criterion) {
    use scalinglaws::fit::{Family, FamilyKind, Space};
    let mut rng = scalinglaws::rng::Rng::new(22);
    let rows = 10_000;
    let (mut x, mut acc, mut trials) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..rows {
        let compute = 1e18 * 10f64.powf(4.0 * i as f64 / (rows - 1) as f64);
        let n = [100.0, 1_000.0, 10_000.0][i % 3];
        let p = 0.25 + 0.65 / (1.0 + (-1.5 * (compute.ln() - 46.0)).exp());
        // A normal approximation of the binomial draw is enough for timing.
        let k = (n * p + (n * p * (1.0 - p)).sqrt() * rng.normal())
            .round()
            .clamp(0.0, n);
        x.push(compute);
        acc.push(k / n);
        trials.push(n);
    }
    let data = FitData {
        variables: vec![x],
        target: acc,
        weights: None,
        trials: Some(trials),
        exposure: None,
    };
    let settings = FitSettings {
        family: Some(Family::new(FamilyKind::Binomial)),
        space: Space::Linear,
        ..FitSettings::default()
    };
    let glm = scalinglaws::Law::from_formula("sigmoid(a + b*log(C))", &|v| v == "C").unwrap();
    let bounded = catalog::lookup("bounded_sigmoid").unwrap();
    let mut group = c.benchmark_group("families");
    group.sample_size(20);
    group.bench_function("binomial_logistic_10000_rows", |b| {
        b.iter(|| fit(&glm, black_box(&data), &settings).unwrap())
    });
    group.bench_function("binomial_bounded_sigmoid_10000_rows", |b| {
        b.iter(|| fit(&bounded, black_box(&data), &settings).unwrap())
    });
    group.finish();
}

criterion_group!(
    fit_benches,
    benches,
    schedule_benches,
    rows_benches,
    family_benches
);
criterion_main!(fit_benches);
