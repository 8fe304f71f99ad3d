//! Issue 48, point 5: how often do the 95 % intervals of a default fit's parameters hold the
//! truth? Simulated Chinchilla grids (N log-spaced over 5e7–5e9, D over 1e9–1e11; 5×5, 5×10,
//! 10×10 and 12×20 runs) at Epoch-like truth E = 1.69, A = 406.4, α = 0.34, B = 410.7,
//! β = 0.28, each loss times exp(0.01·ε), ε standard normal, fitted with the default settings
//! (Huber, δ = 1e-3, log residuals). An interval is the tool's Wald interval value ± z·stderr
//! (z = Φ⁻¹(0.975), as `uncertainty::intervals` builds every delta-method interval) unless the
//! row says otherwise. Every covariance is computed at the same fit of each data set:
//!
//! - `sandwich`: H⁻¹BH⁻¹·n/(n − k) with the exact Hessian (the library's `sandwich`, the
//!   default until issue 48); `+ t` uses the t quantile with n − k degrees of freedom;
//!   `· Huber K²` multiplies it by Huber's (1981, §7.6) small-sample factor
//!   K = 1 + (k/n)·var(ψ')/mean(ψ')².
//! - `smoothed (bw), n/(n−k)`: the bread's ρ'' smoothed by a Gaussian kernel (Powell 1991) at
//!   Silverman's bandwidth (`silverman`) or Hall & Sheather's (quantreg's "ker": `hall-sheather`),
//!   with the plain meat·n/(n − k).
//! - `smoothed + HC3`: that bread with the HC3 meat; `smoothed_sandwich` is the library's
//!   (the default from issue 48 on), the same estimator.
//! - `bootstrap`: percentile intervals of 200 row-resampling replicates (25 and 50 runs only).
//! - `profile`: the library's profile-likelihood interval (25 runs only), its threshold scaled
//!   by the plain sandwich's Vⱼⱼ/(H⁻¹)ⱼⱼ (until issue 48) or by the smoothed sandwich's, with
//!   the smoothed bread for H.
//!
//! Printed per parameter: coverage, then the median and the mean interval width relative to
//! the true value. Deterministic (every draw from `scalinglaws::rng` streams by seed).
//!
//! Run: `cargo run --release -p scalinglaws --example param_coverage [SEEDS] [NOISE]`
//! (200 seeds by default; NOISE: `normal` (1 %, the default), `normal0.3`, `t3`, `outliers`;
//! bench/results/param_coverage.txt is its output).

use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;
use scalinglaws::fit::smoothed::{bandwidth, smoothed_curvature};
use scalinglaws::fit::{self, Covariance, FitData, FitResult, FitSettings, Problem};
use scalinglaws::law::catalog;
use scalinglaws::rng::Rng;
use scalinglaws::stats::{normal_quantile, quantile_sorted, t_quantile};
use scalinglaws::uncertainty::{self, bootstrap::attach, BootstrapOptions, FitRecord, Resampling};
use scalinglaws::Law;

const TRUTH: [f64; 5] = [1.69, 406.4, 0.34, 410.7, 0.28];
const NAMES: [&str; 5] = ["E", "A", "alpha", "B", "beta"];
const GRIDS: [(usize, usize); 4] = [(5, 5), (5, 10), (10, 10), (12, 20)];
const LEVEL: f64 = 0.95;
const REPLICATES: usize = 200;
/// Bootstrap and profile only up to this many runs (their cost grows with the rows).
const RESAMPLE_UP_TO: usize = 50;
const PROFILE_UP_TO: usize = 25;

#[derive(Clone, Copy, PartialEq)]
enum Noise {
    Normal,
    Small,
    StudentT,
    Outliers,
}

impl Noise {
    fn parse(text: &str) -> Noise {
        match text {
            "normal" => Noise::Normal,
            "normal0.3" => Noise::Small,
            "t3" => Noise::StudentT,
            "outliers" => Noise::Outliers,
            other => panic!("unknown noise '{other}': normal, normal0.3, t3 or outliers"),
        }
    }

    /// One log-space error: N(0, 0.01²); N(0, 0.003²); t₃ scaled to sd 0.01; or N(0, 0.01²)
    /// with 5 % of the rows at five times the scale.
    fn draw(self, rng: &mut Rng) -> f64 {
        match self {
            Noise::Normal => 0.01 * rng.normal(),
            Noise::Small => 0.003 * rng.normal(),
            Noise::StudentT => {
                let z = rng.normal();
                let chi2: f64 = (0..3).map(|_| rng.normal().powi(2)).sum();
                0.01 * z / (chi2 / 3.0).sqrt() / 3f64.sqrt()
            }
            Noise::Outliers => {
                let z = rng.normal();
                let scale = if rng.uniform() < 0.05 { 0.05 } else { 0.01 };
                scale * z
            }
        }
    }
}

fn log_space(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| (lo.ln() + (hi.ln() - lo.ln()) * i as f64 / (n - 1) as f64).exp())
        .collect()
}

fn chinchilla(n: f64, d: f64) -> f64 {
    TRUTH[0] + TRUTH[1] / n.powf(TRUTH[2]) + TRUTH[3] / d.powf(TRUTH[4])
}

fn simulate((grid_n, grid_d): (usize, usize), seed: u64, noise: Noise) -> FitData {
    let mut rng = Rng::stream(seed, (grid_n * 1000 + grid_d) as u64);
    let (mut ns, mut ds, mut losses) = (vec![], vec![], vec![]);
    for n in log_space(5e7, 5e9, grid_n) {
        for d in log_space(1e9, 1e11, grid_d) {
            ns.push(n);
            ds.push(d);
            losses.push(chinchilla(n, d) * noise.draw(&mut rng).exp());
        }
    }
    FitData {
        variables: vec![ns, ds],
        target: losses,
        weights: None,
        trials: None,
        exposure: None,
    }
}

/// What every candidate needs of one fit: the values, the standard errors of the library's
/// two robust covariances, and the residuals' pieces for the others.
struct Case {
    values: Vec<f64>,
    today: Vec<f64>,
    default: Vec<f64>,
    hessian: DMatrix<f64>,
    /// Rows × free parameters: ∇rᵢ.
    jacobian: DMatrix<f64>,
    /// ψ(rᵢ) = d cost/d r.
    psi: Vec<f64>,
    residuals: Vec<f64>,
    problem: Problem,
    fit: FitResult,
    /// The same fit with `covariance: sandwich` (today's profile scale).
    plain: FitResult,
    data: FitData,
}

fn stderrs(result: &FitResult) -> Vec<f64> {
    NAMES
        .iter()
        .map(|n| result.param(n).unwrap().stderr.unwrap_or(f64::NAN))
        .collect()
}

fn case(law: &Law, data: FitData) -> Option<Case> {
    let settings = FitSettings::default();
    let fit = fit::fit(law, &data, &settings).ok()?;
    let today = FitSettings {
        covariance: Covariance::Sandwich,
        ..settings.clone()
    };
    let plain = fit::fit(law, &data, &today).ok()?;
    let problem = fit::problem_for(law, &data, &settings).ok()?;
    let values = fit.param_values();
    let hessian = problem.exact_natural(&values)?.curvature;
    let (jacobian, psi) = problem.residual_jacobian(&values);
    let residuals = problem.residuals(&values);
    Some(Case {
        today: stderrs(&plain),
        default: stderrs(&fit),
        values,
        hessian,
        jacobian,
        psi,
        residuals,
        problem,
        fit,
        plain,
        data,
    })
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Bandwidth {
    Silverman,
    HallSheather,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Candidate {
    Today,
    TodayT,
    TodayHuberK,
    Smoothed(Bandwidth),
    SmoothedT,
    SmoothedHc3T,
    Default,
    Bootstrap,
    ProfileToday,
    Profile,
}

impl Candidate {
    const ALL: [Candidate; 11] = [
        Candidate::Today,
        Candidate::TodayT,
        Candidate::TodayHuberK,
        Candidate::Smoothed(Bandwidth::Silverman),
        Candidate::SmoothedT,
        Candidate::Smoothed(Bandwidth::HallSheather),
        Candidate::SmoothedHc3T,
        Candidate::Default,
        Candidate::Bootstrap,
        Candidate::ProfileToday,
        Candidate::Profile,
    ];

    fn label(self) -> &'static str {
        match self {
            Candidate::Today => "sandwich (today)",
            Candidate::TodayT => "sandwich + t(n-k)",
            Candidate::TodayHuberK => "sandwich · Huber K²",
            Candidate::Smoothed(Bandwidth::Silverman) => "smoothed (silverman), n/(n-k)",
            Candidate::SmoothedT => "  the same + t(n-k)",
            Candidate::Smoothed(Bandwidth::HallSheather) => "smoothed (hall-sheather), n/(n-k)",
            Candidate::SmoothedHc3T => "smoothed + HC3 + t(n-k)",
            Candidate::Default => "smoothed_sandwich (new default)",
            Candidate::Bootstrap => "bootstrap percentile (200)",
            Candidate::ProfileToday => "profile (sandwich's scale)",
            Candidate::Profile => "profile (smoothed_sandwich's)",
        }
    }
}

fn outer_sum(jacobian: &DMatrix<f64>, weights: &[f64]) -> DMatrix<f64> {
    let k = jacobian.ncols();
    let mut sum = DMatrix::zeros(k, k);
    for (i, w) in weights.iter().enumerate() {
        let row: DVector<f64> = jacobian.row(i).transpose();
        sum += &row * row.transpose() * *w;
    }
    sum
}

fn sandwich(bread: &DMatrix<f64>, meat: &DMatrix<f64>, factor: f64) -> Option<Vec<f64>> {
    let inverse = bread.clone().try_inverse()?;
    let covariance = &inverse * meat * &inverse * factor;
    Some(
        (0..bread.nrows())
            .map(|i| covariance[(i, i)].sqrt())
            .collect(),
    )
}

/// Hall & Sheather's (1988) bandwidth at the median in probability, turned into residual units
/// as quantreg's `summary.rq(se = "ker")` does: (Φ⁻¹(½ + h) − Φ⁻¹(½ − h))·min(sd, IQR/1.34).
fn hall_sheather(residuals: &[f64]) -> f64 {
    let n = residuals.len() as f64;
    let phi0 = 1.0 / (2.0 * std::f64::consts::PI).sqrt();
    let z = normal_quantile(0.5 + LEVEL / 2.0);
    let h = n.powf(-1.0 / 3.0) * z.powf(2.0 / 3.0) * (1.5 * phi0 * phi0).powf(1.0 / 3.0);
    let sd = (residuals.iter().map(|r| r * r).sum::<f64>() / (n - 1.0)).sqrt();
    let mut sorted = residuals.to_vec();
    sorted.sort_by(f64::total_cmp);
    let iqr = (quantile_sorted(&sorted, 0.75) - quantile_sorted(&sorted, 0.25)) / 1.34;
    (normal_quantile(0.5 + h) - normal_quantile(0.5 - h)) * sd.min(iqr)
}

/// The bread with each row's ρ'' smoothed at `bandwidth`.
fn smoothed_bread(case: &Case, bandwidth: f64) -> DMatrix<f64> {
    let loss = case.problem.loss();
    let shift: Vec<f64> = case
        .residuals
        .iter()
        .map(|&r| smoothed_curvature(loss, r, bandwidth) - loss.terms(r).d2)
        .collect();
    &case.hessian + outer_sum(&case.jacobian, &shift)
}

fn hc3_meat(case: &Case) -> Option<DMatrix<f64>> {
    let normal_inverse = outer_sum(&case.jacobian, &vec![1.0; case.psi.len()]).try_inverse()?;
    let weights: Vec<f64> = (0..case.psi.len())
        .map(|i| {
            let row: DVector<f64> = case.jacobian.row(i).transpose();
            let lever = (row.transpose() * &normal_inverse * &row)[(0, 0)];
            (case.psi[i] / (1.0 - lever)).powi(2)
        })
        .collect();
    Some(outer_sum(&case.jacobian, &weights))
}

/// Standard errors and the quantile of a covariance candidate.
fn wald(candidate: Candidate, case: &Case) -> Option<(Vec<f64>, f64)> {
    let (n, k) = (case.residuals.len(), case.values.len());
    let factor = n as f64 / (n - k) as f64;
    let z = normal_quantile(0.5 + LEVEL / 2.0);
    let t = t_quantile(0.5 + LEVEL / 2.0, (n - k) as f64);
    let squares: Vec<f64> = case.psi.iter().map(|p| p * p).collect();
    let meat = outer_sum(&case.jacobian, &squares);
    let silverman = bandwidth(&case.residuals, &vec![1.0; n], k)?;
    match candidate {
        Candidate::Today => Some((case.today.clone(), z)),
        Candidate::TodayT => Some((case.today.clone(), t)),
        Candidate::TodayHuberK => {
            let delta = case.problem.loss().f_scale;
            let m = case.residuals.iter().filter(|r| r.abs() <= delta).count() as f64 / n as f64;
            let huber_k = 1.0 + k as f64 / n as f64 * (1.0 - m) / m;
            Some((case.today.iter().map(|s| s * huber_k).collect(), z))
        }
        Candidate::Smoothed(Bandwidth::Silverman) => Some((
            sandwich(&smoothed_bread(case, silverman), &meat, factor)?,
            z,
        )),
        Candidate::SmoothedT => Some((
            sandwich(&smoothed_bread(case, silverman), &meat, factor)?,
            t,
        )),
        Candidate::Smoothed(Bandwidth::HallSheather) => {
            let bread = smoothed_bread(case, hall_sheather(&case.residuals));
            Some((sandwich(&bread, &meat, factor)?, z))
        }
        Candidate::SmoothedHc3T => Some((
            sandwich(&smoothed_bread(case, silverman), &hc3_meat(case)?, 1.0)?,
            t,
        )),
        Candidate::Default => Some((case.default.clone(), z)),
        Candidate::Bootstrap | Candidate::Profile | Candidate::ProfileToday => None,
    }
}

fn bootstrap_intervals(law: &Law, case: &Case, seed: u64) -> Option<Vec<[f64; 2]>> {
    let options = BootstrapOptions {
        replicates: REPLICATES,
        level: LEVEL,
        seed,
        resampling: Resampling::Rows,
    };
    let settings = FitSettings::default();
    let summary =
        uncertainty::bootstrap(law, &case.data, &settings, &case.fit, &options, &|_| {}).ok()?;
    let mut record = FitRecord::from(case.fit.clone());
    attach(&mut record, summary);
    NAMES.iter().map(|n| record.param(n)?.ci).collect()
}

fn profile_intervals(law: &Law, case: &Case, fit: &FitResult) -> Option<Vec<[f64; 2]>> {
    let settings = FitSettings {
        covariance: fit.settings.covariance,
        ..FitSettings::default()
    };
    NAMES
        .iter()
        .map(|name| {
            let profile =
                uncertainty::profile(law, &case.data, &settings, fit, name, LEVEL).ok()?;
            Some([
                profile.ci[0].unwrap_or(f64::NEG_INFINITY),
                profile.ci[1].unwrap_or(f64::INFINITY),
            ])
        })
        .collect()
}

fn intervals(candidate: Candidate, law: &Law, case: &Case, seed: u64) -> Option<Vec<[f64; 2]>> {
    let runs = case.residuals.len();
    match candidate {
        Candidate::Bootstrap if runs <= RESAMPLE_UP_TO => bootstrap_intervals(law, case, seed),
        Candidate::Profile if runs <= PROFILE_UP_TO => profile_intervals(law, case, &case.fit),
        Candidate::ProfileToday if runs <= PROFILE_UP_TO => {
            profile_intervals(law, case, &case.plain)
        }
        Candidate::Bootstrap | Candidate::Profile | Candidate::ProfileToday => None,
        _ => {
            let (se, q) = wald(candidate, case)?;
            let out: Vec<[f64; 2]> = (0..5)
                .map(|i| [case.values[i] - q * se[i], case.values[i] + q * se[i]])
                .collect();
            out.iter().flatten().all(|v| v.is_finite()).then_some(out)
        }
    }
}

/// Coverage, median and mean relative width per parameter, and the number of data sets.
fn summarize(all: &[Option<Vec<[f64; 2]>>]) -> Option<([f64; 5], [f64; 5], [f64; 5], usize)> {
    let done: Vec<&Vec<[f64; 2]>> = all.iter().flatten().collect();
    if done.is_empty() {
        return None;
    }
    let (mut cover, mut median, mut mean) = ([0.0; 5], [0.0; 5], [0.0; 5]);
    for i in 0..5 {
        let held = done
            .iter()
            .filter(|v| v[i][0] <= TRUTH[i] && TRUTH[i] <= v[i][1]);
        cover[i] = held.count() as f64 / done.len() as f64;
        let mut widths: Vec<f64> = done
            .iter()
            .map(|v| (v[i][1] - v[i][0]) / TRUTH[i])
            .collect();
        widths.sort_by(f64::total_cmp);
        median[i] = quantile_sorted(&widths, 0.5);
        mean[i] = widths.iter().sum::<f64>() / widths.len() as f64;
    }
    Some((cover, median, mean, done.len()))
}

fn row(label: &str, values: &[f64; 5], digits: usize, sets: usize) -> String {
    let cells: String = values.iter().map(|v| format!("{v:>9.digits$}")).collect();
    format!("  {label:<36}{cells}  {sets:>4}")
}

fn report(grid: (usize, usize), results: &[(Candidate, Vec<Option<Vec<[f64; 2]>>>)]) {
    let runs = grid.0 * grid.1;
    let header: String = NAMES.iter().map(|n| format!("{n:>9}")).collect();
    println!("\n{runs} runs ({}×{} grid)", grid.0, grid.1);
    for (title, part) in [
        ("coverage", 0),
        ("median width / truth", 1),
        ("mean width / truth", 2),
    ] {
        println!("  {title:<36}{header}  sets");
        for (candidate, all) in results {
            let Some(summary) = summarize(all) else {
                continue;
            };
            let (values, digits) = match part {
                0 => (summary.0, 3),
                1 => (summary.1, 3),
                _ => (summary.2, 3),
            };
            println!("{}", row(candidate.label(), &values, digits, summary.3));
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seeds: u64 = args
        .get(1)
        .map_or(200, |s| s.parse().expect("SEEDS: a count"));
    let noise = Noise::parse(args.get(2).map_or("normal", String::as_str));
    let law = catalog::lookup("chinchilla").unwrap();
    println!(
        "95 % intervals of Chinchilla's parameters from the default fit \
         (Huber δ = 1e-3, log residuals),"
    );
    println!(
        "{seeds} simulated data sets per grid, noise {}",
        args.get(2).map_or("normal", String::as_str)
    );
    for grid in GRIDS {
        let cases: Vec<(u64, Option<Case>)> = (0..seeds)
            .into_par_iter()
            .map(|seed| (seed, case(&law, simulate(grid, seed, noise))))
            .collect();
        let failed = cases.iter().filter(|(_, c)| c.is_none()).count();
        let results: Vec<(Candidate, Vec<Option<Vec<[f64; 2]>>>)> = Candidate::ALL
            .iter()
            .map(|&candidate| {
                let all = cases
                    .par_iter()
                    .map(|(seed, c)| {
                        c.as_ref()
                            .and_then(|c| intervals(candidate, &law, c, *seed))
                    })
                    .collect();
                (candidate, all)
            })
            .collect();
        report(grid, &results);
        if failed > 0 {
            println!("  ({failed} fits failed)");
        }
    }
}
