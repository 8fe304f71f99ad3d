//! SGD and signSGD on power-law linear regression: the setting of the signSGD functional
//! scaling law (FSL) seed paper, simulated exactly where that is possible and by seeded Monte
//! Carlo where it is not, so that its claim ("signSGD achieves better data-scaling efficiency in
//! hard-task regimes, while they perform similarly in easy-task regimes") becomes a number the
//! engine can fit, with intervals, from rows this module writes.
//!
//! # The setting
//!
//! Features x ∈ R^M with independent coordinates x_i ~ N(0, λ_i), spectrum λ_i = i^(−a)
//! (a > 1, the capacity exponent), labels y = ⟨w*, x⟩ + ε with ε ~ N(0, σ²), and a target whose
//! energy per mode is a power law, λ_i·(w*_i)² = i^(−b) (b > 1), i.e. w*_i = i^((a−b)/2) > 0
//! (the signs of w* do not matter: flipping coordinate i maps the problem, SGD and signSGD onto
//! themselves). H = E[x xᵀ] = diag(λ). One-pass online training from w_0 = 0 with batch size B
//! and a learning rate η_t per step (any finite, non-negative vector):
//!
//! - SGD: w ← w − η_t·g; signSGD: w ← w − η_t·sign(g) (coordinate-wise, sign(0) = 0);
//! - g = (1/B)·Σ_b x_b(⟨w, x_b⟩ − y_b), the mini-batch gradient of ½(⟨w,x⟩ − y)².
//!
//! The risk is R(w) = ½·E(⟨w,x⟩ − y)² = ½·Σ λ_i (w_i − w*_i)² + σ²/2; its excess over the
//! noise floor σ²/2 is reported too.
//!
//! **Hard and easy tasks.** We use the FSL papers' exponents: capacity β = a and source
//! exponent s = (b − 1)/a (with λ_i(w*_i)² = i^(−(1+sβ)) the signal left after intrinsic time
//! t = Σ η decays as t^(−s)). The task is *hard* when s < 1 − 1/β, i.e. b < a (the target has
//! infinite norm as M → ∞: ‖w*‖² = Σ i^(a−b)), and *easy* when s ≥ 1 − 1/β (b ≥ a), the phase
//! boundary of Li, Wang, Chen et al. (2026), "Optimal learning-rate schedules under functional
//! scaling laws" (arXiv, building on Li, Chen, Huang, Wang & Wu, "Functional scaling laws in
//! kernel regression", NeurIPS 2025, arXiv:2509.19189). In the hard regime SGD is limited by its
//! largest stable learning rate (the signal decays only as (η_max·T)^(−s)); signSGD's
//! curvature-aligned noise makes sign(g) act like a diag(H)^(−1/2) preconditioner, which learns
//! the signal faster.
//!
//! # SGD's expected risk exactly
//!
//! Let e = w − w* and S = E[e eᵀ]. For one step, g = (1/B)Σ_b x_b(x_bᵀe − ε_b) with fresh
//! samples independent of e, so E[g | e] = He and, by Isserlis' theorem for the Gaussian fourth
//! moment (Isserlis 1918, "On a formula for the product-moment coefficient of any order of a
//! normal frequency distribution in any number of variables", Biometrika 12:134–139),
//! E[x xᵀ A x xᵀ] = 2·H A H + tr(HA)·H for symmetric A. The B² pairs of the batch give
//! B(B−1) cross terms H e eᵀ H and B diagonal terms 2·He eᵀH + (eᵀHe)·H + σ²H, so
//!
//! ```text
//! E[g gᵀ] = (1 + 1/B)·H S H + ((tr(HS) + σ²)/B)·H,
//! S'      = S − η(HS + SH) + η²·[(1 + 1/B)·HSH + ((tr(HS) + σ²)/B)·H].
//! ```
//!
//! S_0 = w* w*ᵀ is a full matrix, but with H diagonal, (HS + SH)_ii = 2λ_i S_ii,
//! (HSH)_ii = λ_i² S_ii and tr(HS) = Σ_j λ_j S_jj, so the diagonal closes on itself:
//!
//! ```text
//! S'_ii = S_ii·(1 − 2ηλ_i + (1 + 1/B)η²λ_i²) + (η²λ_i/B)·(Σ_j λ_j S_jj + σ²),
//! ```
//!
//! and the expected risk ½·Σ λ_i S_ii + σ²/2 needs nothing else: an exact O(M)-per-step recursion (the
//! off-diagonals evolve too, but never feed back into the diagonal). For M = 1 it is the
//! geometric sequence S_t = q^t (S_0 − S_∞) + S_∞ with q = 1 − 2ηλ + (1 + 2/B)η²λ² and
//! S_∞ = η²λσ²/(B(1 − q)) (the 3 = 1 + 2/B at B = 1 is E x⁴ = 3λ²).
//!
//! # Monte Carlo
//!
//! SGD (to check the recursion) and signSGD (which has no closed form) are run over many seeds
//! in parallel, seed k drawing from its own stream `Rng::stream(seed, k)`; every seed's excess
//! risk at the logged steps is computed exactly from its w, and the per-seed values are summed in
//! seed order, so results are bit-identical for any thread count. Both optimizers see the same
//! samples for the same seed (common random numbers), which sharpens their comparison.
//!
//! # The claim as a number
//!
//! [`data_scaling`] tunes the (peak) learning rate of each optimizer over a grid at every
//! horizon T and fits the slope of log excess risk against log T: SGD from the exact recursion,
//! signSGD by Monte Carlo. At the defaults ([`ScalingConfig::hard`], [`ScalingConfig::easy`]:
//! a = 2, M = 512, σ = 0.5, T = 2^8..2^14, 12 seeds, seed 0) the measured slopes are, SGD vs
//! signSGD: constant learning rate, hard (b = 1.5) −0.295 vs −0.538 (±0.02), easy (b = 3)
//! −0.510 vs −0.678; linear decay to zero ([`Shape::Decay`] with fraction 1), hard −0.370 vs
//! −0.655, easy −0.628 vs −0.737. signSGD's advantage is about twice as large in the hard task
//! as in the easy one, but not zero in the easy one: with a constant rate SGD's tuned exponent
//! is (b − 1)/(a + b − 1) (0.5 here), below the (b − 1)/b a decaying schedule approaches. In
//! the hard task the exponents depend on M (the finite target steepens the late curve; at
//! M = 2048, constant rate: −0.26 vs −0.45).
//!
//! Seed paper: the signSGD functional-scaling-law paper ("We study signSGD in linear regression
//! with diagonal features and power-law spectra ... signSGD learns the signal faster but
//! exhibits slower noise forgetting ... signSGD achieves better data-scaling efficiency in
//! hard-task regimes, while they perform similarly in easy-task regimes"). See also Paquette,
//! Paquette, Xiao & Pennington (2024), "4+3 phases of compute-optimal neural scaling laws", and
//! Lin, Wu, Kakade, Bartlett & Lee (2024), "Scaling laws in linear regression".

use rayon::prelude::*;
use scalinglaws::rng::Rng;

use crate::error::{LabError, Result};
use crate::progress::{silent, Counter, Progress};

/// Largest dimension M. The recursion and every Monte Carlo seed hold a few M-vectors; 2^20
/// is far beyond any spectrum the claim needs (the work caps below bind long before).
pub const MAX_DIMENSION: usize = 1 << 20;

/// Largest batch size: each step draws B·M normals.
pub const MAX_BATCH: usize = 1 << 16;

/// Most seeds of one Monte Carlo run: standard errors shrink as 1/√seeds, so a million seeds
/// already gives 0.1 % of the spread.
pub const MAX_SEEDS: usize = 1_000_000;

/// Most logged steps: each is one row per optimizer.
pub const MAX_LOG_STEPS: usize = 100_000;

/// Most steps of a schedule: the engine's own cap on a learning-rate schedule.
pub const MAX_STEPS: usize = scalinglaws::limits::MAX_SCHEDULE_STEPS;

/// Most steps a front end's run (or a data-scaling horizon) may ask for: its per-step learning
/// rates are held (80 MB at the cap) before the run's work is weighed against the caps above.
pub const MAX_RUN_STEPS: usize = 10_000_000;

/// Most logged steps per decade a front end may ask for: more than any plot can show.
pub const MAX_PER_DECADE: usize = 1_000;

/// Logged steps per decade by default: those of `SgdConfig::default()`'s `log_steps`.
pub const DEFAULT_PER_DECADE: usize = 4;

/// A constant-rate run of `steps` steps (None: the default run's) logged about `per_decade`
/// times a decade (None: [`DEFAULT_PER_DECADE`]): its `lrs` and `log_steps`. The one check of
/// both counts for every face; an error names `steps` or `per_decade`.
pub fn constant_run(
    lr: Option<f64>,
    steps: Option<usize>,
    per_decade: Option<usize>,
) -> Result<(Vec<f64>, Vec<usize>)> {
    let defaults = SgdConfig::default();
    let steps = steps.unwrap_or(defaults.lrs.len());
    if steps == 0 || steps > MAX_RUN_STEPS {
        return Err(LabError::setting(
            "steps",
            format!("{steps} is out of range; give 1 to {MAX_RUN_STEPS} steps"),
        ));
    }
    let per_decade = per_decade.unwrap_or(DEFAULT_PER_DECADE);
    if !(1..=MAX_PER_DECADE).contains(&per_decade) {
        return Err(LabError::setting(
            "per_decade",
            format!("{per_decade} is out of range; give 1 to {MAX_PER_DECADE}"),
        ));
    }
    let lr = lr.unwrap_or(defaults.lrs[0]);
    Ok((vec![lr; steps], log_spaced_steps(steps, per_decade)))
}

/// Refuses a data-scaling horizon longer than a run may take ([`MAX_RUN_STEPS`]; `horizons`).
pub fn check_horizons(horizons: &[usize]) -> Result<()> {
    match horizons.iter().max().filter(|&&h| h > MAX_RUN_STEPS) {
        Some(longest) => Err(LabError::setting(
            "horizons",
            format!("{longest} is more than the {MAX_RUN_STEPS} steps a run may take; use fewer"),
        )),
        None => Ok(()),
    }
}

/// Most coordinate-steps (M × steps) of the exact recursion in one call: about 1 ns each on
/// one core (measured), so ≤ ~10 s.
pub const MAX_EXACT_WORK: f64 = 1e10;

/// Most normals drawn (M × steps × batch × seeds, per Monte Carlo optimizer, summed) in one
/// call: 75–85 million a second on 2 busy cores (measured), so ≤ ~30 s.
pub const MAX_MONTE_CARLO_WORK: f64 = 2.5e9;

/// Most stored per-seed values (seeds × logged steps): 8 bytes each, so ≤ 80 MB.
pub const MAX_STORED_VALUES: f64 = 1e7;

/// Largest exponent a or b: λ_i = i^(−a) with a = 10 is already below 1e−30 from i = 1000.
pub const MAX_EXPONENT: f64 = 10.0;

/// Largest label-noise standard deviation σ (the target's first mode has energy 1).
pub const MAX_NOISE: f64 = 1e3;

/// Largest learning rate accepted (SGD diverges far below; signSGD moves every coordinate by
/// η per step, and w*_1 = 1).
pub const MAX_LR: f64 = 1e3;

/// Which simulation a row comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Optimizer {
    /// SGD's expected risk from the exact second-moment recursion (no Monte Carlo).
    SgdExact,
    /// SGD by Monte Carlo over seeds.
    SgdMc,
    /// signSGD by Monte Carlo over seeds.
    SignSgdMc,
}

impl Optimizer {
    pub const ALL: [Optimizer; 3] = [Optimizer::SgdExact, Optimizer::SgdMc, Optimizer::SignSgdMc];

    /// The name written in rows and accepted by [`Optimizer::parse`].
    pub fn name(self) -> &'static str {
        match self {
            Optimizer::SgdExact => "sgd_exact",
            Optimizer::SgdMc => "sgd_mc",
            Optimizer::SignSgdMc => "signsgd_mc",
        }
    }

    pub fn parse(text: &str) -> Result<Optimizer> {
        Optimizer::ALL
            .into_iter()
            .find(|o| o.name() == text)
            .ok_or_else(|| {
                LabError::setting(
                    "optimizer",
                    format!("unknown optimizer '{text}'; use sgd_exact, sgd_mc or signsgd_mc"),
                )
            })
    }

    fn is_monte_carlo(self) -> bool {
        self != Optimizer::SgdExact
    }
}

/// One simulation: the problem (dimension, exponents, noise), the training (batch, per-step
/// learning rates) and what is recorded (logged steps, Monte Carlo seeds).
#[derive(Debug, Clone, PartialEq)]
pub struct SgdConfig {
    /// M, the number of features.
    pub dimension: usize,
    /// Spectrum exponent: λ_i = i^(−a), a > 1.
    pub a: f64,
    /// Target exponent: λ_i·(w*_i)² = i^(−b), b > 1.
    pub b: f64,
    /// σ, the label noise's standard deviation.
    pub noise: f64,
    /// B, samples per step.
    pub batch: usize,
    /// η_t for steps t = 0..T−1 (T = lrs.len() steps, T·B samples).
    pub lrs: Vec<f64>,
    /// Steps after which the risk is recorded (0 = at w_0), strictly increasing, ≤ T.
    pub log_steps: Vec<usize>,
    /// Monte Carlo seeds (independent runs); at least 2 when a Monte Carlo optimizer is run.
    pub seeds: usize,
    /// The run's seed: seed k of the Monte Carlo draws from `Rng::stream(seed, k)`.
    pub seed: u64,
}

impl Default for SgdConfig {
    /// A small hard-task setting (a = 2, b = 1.5): M = 64, σ = 0.5, 1,000 steps of η = 0.2,
    /// logged at about 4 points per decade, 1,000 seeds.
    fn default() -> Self {
        SgdConfig {
            dimension: 64,
            a: 2.0,
            b: 1.5,
            noise: 0.5,
            batch: 1,
            lrs: vec![0.2; 1000],
            log_steps: log_spaced_steps(1000, DEFAULT_PER_DECADE),
            seeds: 1000,
            seed: 0,
        }
    }
}

/// Steps 0, 1 and about `per_decade` (clamped to 1..=[`MAX_LOG_STEPS`]) log-spaced steps per
/// decade up to `steps` (included), without repeats: the usual `log_steps`.
pub fn log_spaced_steps(steps: usize, per_decade: usize) -> Vec<usize> {
    let mut out = vec![0];
    if steps == 0 {
        return out;
    }
    let per_decade = per_decade.clamp(1, MAX_LOG_STEPS) as f64;
    let count = ((steps as f64).log10() * per_decade).ceil() as usize;
    for k in 0..=count {
        let step = (10f64.powf(k as f64 / per_decade).round() as usize).min(steps);
        if step > *out.last().unwrap_or(&0) {
            out.push(step);
        }
    }
    if *out.last().unwrap_or(&0) != steps {
        out.push(steps);
    }
    out
}

/// The source exponent s = (b − 1)/a of the FSL papers (signal ∝ (intrinsic time)^(−s)).
pub fn source_exponent(a: f64, b: f64) -> f64 {
    (b - 1.0) / a
}

/// Hard or easy task, by the FSL phase boundary s = 1 − 1/a (i.e. b = a).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Regime {
    /// s < 1 − 1/a (b < a): SGD is limited by its largest stable learning rate.
    Hard,
    /// s ≥ 1 − 1/a (b ≥ a).
    Easy,
}

impl Regime {
    /// s < 1 − 1/a is b < a, compared as such (exact on the boundary).
    pub fn of(a: f64, b: f64) -> Regime {
        if b < a {
            Regime::Hard
        } else {
            Regime::Easy
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Regime::Hard => "hard",
            Regime::Easy => "easy",
        }
    }
}

fn check_exponent(key: &'static str, value: f64) -> Result<()> {
    if !value.is_finite() || value <= 1.0 || value > MAX_EXPONENT {
        return Err(LabError::setting(
            key,
            format!("{value} is out of range; give a number in (1, {MAX_EXPONENT}]"),
        ));
    }
    Ok(())
}

fn check_lrs(key: &'static str, lrs: &[f64]) -> Result<()> {
    if lrs.is_empty() || lrs.len() > MAX_STEPS {
        return Err(LabError::setting(
            key,
            format!(
                "{} learning rates; give between 1 and {MAX_STEPS} (one per step)",
                lrs.len()
            ),
        ));
    }
    if let Some((t, lr)) = lrs
        .iter()
        .enumerate()
        .find(|(_, lr)| !lr.is_finite() || **lr < 0.0 || **lr > MAX_LR)
    {
        return Err(LabError::setting(
            key,
            format!("the learning rate at step {t} is {lr}; give finite values in [0, {MAX_LR}]"),
        ));
    }
    Ok(())
}

fn check_log_steps(log_steps: &[usize], steps: usize) -> Result<()> {
    if log_steps.is_empty() || log_steps.len() > MAX_LOG_STEPS {
        return Err(LabError::setting(
            "log_steps",
            format!(
                "{} logged steps; give between 1 and {MAX_LOG_STEPS}",
                log_steps.len()
            ),
        ));
    }
    if let Some(w) = log_steps.windows(2).find(|w| w[1] <= w[0]) {
        return Err(LabError::setting(
            "log_steps",
            format!("{} follows {}; give strictly increasing steps", w[1], w[0]),
        ));
    }
    let last = log_steps[log_steps.len() - 1];
    if last > steps {
        return Err(LabError::setting(
            "log_steps",
            format!("step {last} is past the schedule's {steps} steps; log at most step {steps}"),
        ));
    }
    Ok(())
}

impl SgdConfig {
    /// Checks every setting (not the work caps, which depend on the optimizers run).
    pub fn validate(&self) -> Result<()> {
        if self.dimension == 0 || self.dimension > MAX_DIMENSION {
            return Err(LabError::setting(
                "dimension",
                format!(
                    "{} features; give between 1 and {MAX_DIMENSION}",
                    self.dimension
                ),
            ));
        }
        check_exponent("a", self.a)?;
        check_exponent("b", self.b)?;
        if !self.noise.is_finite() || self.noise < 0.0 || self.noise > MAX_NOISE {
            return Err(LabError::setting(
                "noise",
                format!(
                    "σ = {}; give a finite value in [0, {MAX_NOISE}]",
                    self.noise
                ),
            ));
        }
        if self.batch == 0 || self.batch > MAX_BATCH {
            return Err(LabError::setting(
                "batch",
                format!("batch {}; give between 1 and {MAX_BATCH}", self.batch),
            ));
        }
        check_lrs("lrs", &self.lrs)?;
        check_log_steps(&self.log_steps, self.lrs.len())?;
        if self.seeds > MAX_SEEDS {
            return Err(LabError::setting(
                "seeds",
                format!("{} seeds; give at most {MAX_SEEDS}", self.seeds),
            ));
        }
        Ok(())
    }

    /// Checks the settings and that running `which` stays within the work caps.
    fn validate_for(&self, which: &[Optimizer]) -> Result<()> {
        self.validate()?;
        let steps = self.lrs.len() as f64;
        let dimension = self.dimension as f64;
        if which.contains(&Optimizer::SgdExact) && dimension * steps > MAX_EXACT_WORK {
            return Err(LabError::setting(
                "dimension",
                format!(
                    "dimension × steps = {:.3e} exceeds {MAX_EXACT_WORK:.0e} for the exact \
                     recursion; use a smaller dimension or fewer steps",
                    dimension * steps
                ),
            ));
        }
        let monte_carlo = which.iter().filter(|o| o.is_monte_carlo()).count();
        if monte_carlo == 0 {
            return Ok(());
        }
        if self.seeds < 2 {
            return Err(LabError::setting(
                "seeds",
                format!(
                    "{} seeds; Monte Carlo needs at least 2 (for a standard error)",
                    self.seeds
                ),
            ));
        }
        let work = monte_carlo as f64 * dimension * steps * self.batch as f64 * self.seeds as f64;
        if work > MAX_MONTE_CARLO_WORK {
            return Err(LabError::setting(
                "seeds",
                format!(
                    "optimizers × dimension × steps × batch × seeds = {work:.3e} normals exceeds \
                     {MAX_MONTE_CARLO_WORK:.1e}; use fewer seeds or steps, a smaller dimension or \
                     batch"
                ),
            ));
        }
        let stored = self.seeds as f64 * self.log_steps.len() as f64;
        if stored > MAX_STORED_VALUES {
            return Err(LabError::setting(
                "seeds",
                format!(
                    "seeds × logged steps = {stored:.3e} exceeds {MAX_STORED_VALUES:.0e}; use \
                     fewer seeds or logged steps"
                ),
            ));
        }
        Ok(())
    }
}

/// The problem's fixed vectors: the spectrum, its square roots and the target.
#[derive(Debug, Clone)]
struct Problem {
    lambda: Vec<f64>,
    sqrt_lambda: Vec<f64>,
    target: Vec<f64>,
    noise: f64,
}

impl Problem {
    fn new(config: &SgdConfig) -> Problem {
        let index = |i: usize| (i + 1) as f64;
        let lambda: Vec<f64> = (0..config.dimension)
            .map(|i| index(i).powf(-config.a))
            .collect();
        Problem {
            sqrt_lambda: lambda.iter().map(|l| l.sqrt()).collect(),
            target: (0..config.dimension)
                .map(|i| index(i).powf(0.5 * (config.a - config.b)))
                .collect(),
            lambda,
            noise: config.noise,
        }
    }

    fn floor(&self) -> f64 {
        0.5 * self.noise * self.noise
    }

    /// ½·Σ λ_i e_i², the excess risk of error vector e (+∞ once e has diverged).
    fn excess(&self, error: &[f64]) -> f64 {
        let value: f64 = self.lambda.iter().zip(error).map(|(l, e)| l * e * e).sum();
        finite_or_infinity(0.5 * value)
    }
}

/// One recorded point: the (mean) risk of one optimizer after `step` steps.
#[derive(Debug, Clone, PartialEq)]
pub struct SgdRow {
    pub optimizer: Optimizer,
    pub step: usize,
    /// E[R(w_step)] (exact or the mean over seeds).
    pub risk: f64,
    /// risk − σ²/2.
    pub excess_risk: f64,
    /// Standard error of the mean over seeds (0 for the exact recursion).
    pub stderr: f64,
    /// Monte Carlo seeds averaged (0 for the exact recursion).
    pub seeds: usize,
}

/// The CSV header of [`SgdRow`]s.
pub const SGD_CSV_HEADER: &str = "optimizer,step,risk,excess_risk,stderr,seeds";

impl SgdRow {
    /// The row as a CSV line (no newline), numbers in Rust's shortest round-trip form.
    pub fn csv_line(&self) -> String {
        format!(
            "{},{},{},{},{},{}",
            self.optimizer.name(),
            self.step,
            self.risk,
            self.excess_risk,
            self.stderr,
            self.seeds
        )
    }
}

/// Each optimizer whose risk stopped being finite, with the first logged step where it did:
/// the rate is past the optimizer's stable range, and its rows say `inf` (or `NaN`) from there.
pub fn divergences(rows: &[SgdRow]) -> Vec<(Optimizer, usize)> {
    let mut found: Vec<(Optimizer, usize)> = Vec::new();
    for row in rows.iter().filter(|r| !r.risk.is_finite()) {
        if !found.iter().any(|(o, _)| *o == row.optimizer) {
            found.push((row.optimizer, row.step));
        }
    }
    found
}

/// Rows as a CSV document: the header, then one line per row, each ending in a newline.
pub fn sgd_csv(rows: &[SgdRow]) -> String {
    let mut out = String::with_capacity(64 * (rows.len() + 1));
    out.push_str(SGD_CSV_HEADER);
    out.push('\n');
    for row in rows {
        out.push_str(&row.csv_line());
        out.push('\n');
    }
    out
}

/// Runs each optimizer of `which` (in that order, repeats ignored) on `config` and returns its
/// rows, one per logged step. Refuses bad settings and runs beyond the work caps.
pub fn simulate(config: &SgdConfig, which: &[Optimizer]) -> Result<Vec<SgdRow>> {
    simulate_with_progress(config, which, &silent)
}

/// How much more a Monte Carlo seed's step costs than a step of the exact recursion (per
/// coordinate and sample: two normals and the updates against one multiply-add), roughly: it
/// weighs the two in the progress reported, and nothing else.
const MONTE_CARLO_COST: usize = 16;

/// The progress units of one run of `optimizer` on `config`: steps for the exact recursion,
/// steps × batch × [`MONTE_CARLO_COST`] per Monte Carlo seed (the dimension, common to both,
/// left out).
fn work_units(config: &SgdConfig, optimizer: Optimizer) -> usize {
    let steps = config.lrs.len();
    match optimizer {
        Optimizer::SgdExact => steps,
        _ => config.seeds * seed_units(config),
    }
}

fn seed_units(config: &SgdConfig) -> usize {
    config.lrs.len() * config.batch * MONTE_CARLO_COST
}

/// [`simulate`], telling `progress` the work done: the exact recursion as one unit per step,
/// each Monte Carlo seed as its steps × batch weighted by its cost.
pub fn simulate_with_progress(
    config: &SgdConfig,
    which: &[Optimizer],
    progress: Progress<'_>,
) -> Result<Vec<SgdRow>> {
    let optimizers = distinct(which)?;
    config.validate_for(&optimizers)?;
    let total = optimizers.iter().map(|&o| work_units(config, o)).sum();
    let counter = Counter::new(progress, total);
    let rows = run_optimizers(config, &optimizers, &counter);
    counter.finish();
    Ok(rows)
}

/// `which` without repeats, in order; refuses an empty list.
fn distinct(which: &[Optimizer]) -> Result<Vec<Optimizer>> {
    let mut optimizers: Vec<Optimizer> = Vec::new();
    for &o in which {
        if !optimizers.contains(&o) {
            optimizers.push(o);
        }
    }
    if optimizers.is_empty() {
        return Err(LabError::setting(
            "optimizer",
            "no optimizer asked for; give sgd_exact, sgd_mc and/or signsgd_mc",
        ));
    }
    Ok(optimizers)
}

/// The rows of each optimizer (validated settings), reporting the work to `counter`.
fn run_optimizers(config: &SgdConfig, optimizers: &[Optimizer], counter: &Counter) -> Vec<SgdRow> {
    let problem = Problem::new(config);
    let mut rows = Vec::new();
    for &optimizer in optimizers {
        match optimizer {
            Optimizer::SgdExact => {
                rows.extend(sgd_exact(config, &problem));
                counter.add(work_units(config, optimizer));
            }
            _ => rows.extend(monte_carlo(config, &problem, optimizer, counter)),
        }
    }
    rows
}

/// SGD's expected excess risk at each logged step, by the exact diagonal recursion of the
/// module doc. `problem` must come from `config`.
fn sgd_exact(config: &SgdConfig, problem: &Problem) -> Vec<SgdRow> {
    let inverse_batch = 1.0 / config.batch as f64;
    // S_ii = E[e_i²], e_0 = −w*.
    let mut second: Vec<f64> = problem.target.iter().map(|w| w * w).collect();
    let mut trace: f64 = weighted_sum(&problem.lambda, &second); // tr(HS) = Σ λ_i S_ii
    let noise_var = problem.noise * problem.noise;
    let mut excess = Vec::with_capacity(config.log_steps.len());
    let mut logs = config.log_steps.iter().peekable();
    for step in 0..=config.lrs.len() {
        if logs.peek() == Some(&&step) {
            logs.next();
            excess.push(finite_or_infinity(0.5 * trace));
        }
        if step == config.lrs.len() || logs.peek().is_none() {
            break;
        }
        let eta = config.lrs[step];
        let injected = eta * eta * inverse_batch * (trace + noise_var);
        let curvature = (1.0 + inverse_batch) * eta * eta;
        let mut next_trace = 0.0;
        for (s, &l) in second.iter_mut().zip(&problem.lambda) {
            *s = *s * (1.0 - 2.0 * eta * l + curvature * l * l) + injected * l;
            next_trace += l * *s;
        }
        trace = next_trace;
    }
    let floor = problem.floor();
    config
        .log_steps
        .iter()
        .zip(excess)
        .map(|(&step, excess_risk)| SgdRow {
            optimizer: Optimizer::SgdExact,
            step,
            risk: excess_risk + floor,
            excess_risk,
            stderr: 0.0,
            seeds: 0,
        })
        .collect()
}

fn weighted_sum(weights: &[f64], values: &[f64]) -> f64 {
    weights.iter().zip(values).map(|(w, v)| w * v).sum()
}

fn finite_or_infinity(value: f64) -> f64 {
    if value.is_finite() {
        value
    } else {
        f64::INFINITY
    }
}

/// Mean excess risk over seeds at each logged step, with standard errors. Each seed's values
/// are computed in parallel and summed in seed order: bit-identical for any thread count.
fn monte_carlo(
    config: &SgdConfig,
    problem: &Problem,
    optimizer: Optimizer,
    counter: &Counter,
) -> Vec<SgdRow> {
    let units = seed_units(config);
    let per_seed: Vec<Vec<f64>> = (0..config.seeds)
        .into_par_iter()
        .map(|k| {
            let values = run_seed(config, problem, optimizer, k as u64);
            counter.add(units);
            values
        })
        .collect();
    let n = config.seeds as f64;
    let floor = problem.floor();
    (0..config.log_steps.len())
        .map(|j| {
            let mean = per_seed.iter().map(|v| v[j]).sum::<f64>() / n;
            let stderr = if mean.is_finite() {
                let squares = per_seed.iter().map(|v| (v[j] - mean).powi(2)).sum::<f64>();
                (squares / (n - 1.0) / n).sqrt()
            } else {
                f64::INFINITY
            };
            SgdRow {
                optimizer,
                step: config.log_steps[j],
                risk: mean + floor,
                excess_risk: mean,
                stderr,
                seeds: config.seeds,
            }
        })
        .collect()
}

/// One seed's run of `optimizer`: the excess risk at each logged step. Sample by sample it
/// draws x_1..x_M then ε from `Rng::stream(config.seed, index)`, the same samples for SGD and
/// signSGD.
fn run_seed(config: &SgdConfig, problem: &Problem, optimizer: Optimizer, index: u64) -> Vec<f64> {
    let mut rng = Rng::stream(config.seed, index);
    let dimension = problem.lambda.len();
    let mut error: Vec<f64> = problem.target.iter().map(|w| -w).collect();
    let mut sample = vec![0.0; dimension];
    let mut gradient = vec![0.0; dimension];
    let mut excess = Vec::with_capacity(config.log_steps.len());
    let mut logs = config.log_steps.iter().peekable();
    for step in 0..=config.lrs.len() {
        if logs.peek() == Some(&&step) {
            logs.next();
            excess.push(problem.excess(&error));
        }
        if step == config.lrs.len() || logs.peek().is_none() {
            break;
        }
        gradient.iter_mut().for_each(|g| *g = 0.0);
        for _ in 0..config.batch {
            let residual = draw_sample(&mut rng, problem, &error, &mut sample);
            for (g, x) in gradient.iter_mut().zip(&sample) {
                *g += x * residual;
            }
        }
        let eta = config.lrs[step];
        match optimizer {
            Optimizer::SignSgdMc => {
                for (e, g) in error.iter_mut().zip(&gradient) {
                    *e -= eta * sign(*g);
                }
            }
            _ => {
                let scale = eta / config.batch as f64;
                for (e, g) in error.iter_mut().zip(&gradient) {
                    *e -= scale * g;
                }
            }
        }
    }
    excess
}

/// Draws one sample x (into `sample`) and ε; returns the residual ⟨w, x⟩ − y = ⟨e, x⟩ − ε.
fn draw_sample(rng: &mut Rng, problem: &Problem, error: &[f64], sample: &mut [f64]) -> f64 {
    let mut residual = 0.0;
    for ((x, s), e) in sample.iter_mut().zip(&problem.sqrt_lambda).zip(error) {
        *x = s * rng.normal();
        residual += *x * e;
    }
    residual - problem.noise * rng.normal()
}

/// sign(v) with sign(0) = 0 (and sign(NaN) = 0: a diverged run stays diverged through its
/// excess risk, which is +∞).
fn sign(value: f64) -> f64 {
    if value > 0.0 {
        1.0
    } else if value < 0.0 {
        -1.0
    } else {
        0.0
    }
}

// ---------------------------------------------------------------------------------------------
// The claim as a number: data-scaling exponents of tuned SGD and signSGD.
// ---------------------------------------------------------------------------------------------

/// The shape of the learning-rate schedule of length T whose peak [`data_scaling`] tunes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// η_t = peak for every step.
    Constant,
    /// Stable then linear decay (warmup-stable-decay without warmup): η_t = peak for the first
    /// T − D steps, D = round(fraction·T) ≥ 1, then peak·(T − t)/D, down to peak/D at the last
    /// step. `fraction` = 1 is a plain linear decay.
    Decay { fraction: f64 },
}

impl Shape {
    fn check(self) -> Result<()> {
        if let Shape::Decay { fraction } = self {
            if !fraction.is_finite() || fraction <= 0.0 || fraction > 1.0 {
                return Err(LabError::setting(
                    "decay_fraction",
                    format!("{fraction}; give the decayed fraction of the run in (0, 1]"),
                ));
            }
        }
        Ok(())
    }

    pub fn name(self) -> String {
        match self {
            Shape::Constant => "constant".to_string(),
            Shape::Decay { fraction } => format!("decay:{fraction}"),
        }
    }
}

/// The per-step learning rates of `shape` at `peak` over `steps` steps.
pub fn schedule(shape: Shape, peak: f64, steps: usize) -> Vec<f64> {
    match shape {
        Shape::Constant => vec![peak; steps],
        Shape::Decay { fraction } => {
            let decay = ((fraction * steps as f64).round() as usize).clamp(1, steps.max(1));
            let start = steps.saturating_sub(decay);
            (0..steps)
                .map(|t| {
                    if t < start {
                        peak
                    } else {
                        peak * (steps - t) as f64 / decay as f64
                    }
                })
                .collect()
        }
    }
}

/// A data-scaling measurement: the problem, the horizons T (samples = T·batch), the schedule
/// shape and each optimizer's grid of peak learning rates.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingConfig {
    pub dimension: usize,
    pub a: f64,
    pub b: f64,
    pub noise: f64,
    pub batch: usize,
    /// Training lengths T, strictly increasing, at least 3.
    pub horizons: Vec<usize>,
    pub shape: Shape,
    /// Peak learning rates tried for SGD (exact recursion; every value at every horizon).
    pub sgd_lrs: Vec<f64>,
    /// Peak learning rates tried for signSGD (Monte Carlo), strictly decreasing: the whole grid
    /// at the first horizon, then a search outward from the previous horizon's best.
    pub signsgd_lrs: Vec<f64>,
    /// Monte Carlo seeds per (horizon, learning rate) of signSGD.
    pub seeds: usize,
    pub seed: u64,
}

impl ScalingConfig {
    /// The defaults for exponents a, b: M = 512, σ = 0.5, batch 1, T = 2^8..2^14, constant
    /// learning rate, SGD peaks 2^(−k/2) (k = 0..20), signSGD peaks 0.25·2^(−k) (k = 0..10),
    /// 12 seeds. About 10 s on 2 cores.
    pub fn new(a: f64, b: f64) -> ScalingConfig {
        ScalingConfig {
            dimension: 512,
            a,
            b,
            noise: 0.5,
            batch: 1,
            horizons: (8..=14).map(|k| 1usize << k).collect(),
            shape: Shape::Constant,
            sgd_lrs: (0..=20).map(|k| 0.5f64.powf(0.5 * k as f64)).collect(),
            signsgd_lrs: (0..=10).map(|k| 0.25 * 0.5f64.powi(k)).collect(),
            seeds: 12,
            seed: 0,
        }
    }

    /// The hard-task default: a = 2, b = 1.5 (s = 0.25 < 1 − 1/a = 0.5).
    pub fn hard() -> ScalingConfig {
        ScalingConfig::new(2.0, 1.5)
    }

    /// The easy-task default: a = 2, b = 3 (s = 1 ≥ 0.5).
    pub fn easy() -> ScalingConfig {
        ScalingConfig::new(2.0, 3.0)
    }

    /// The progress units of the whole measurement: every SGD grid value at every horizon, and
    /// signSGD's whole grid at the first horizon and three values at each later one.
    fn estimated_work(&self) -> usize {
        let signsgd_run = self.seeds * self.batch * MONTE_CARLO_COST;
        self.horizons
            .iter()
            .enumerate()
            .map(|(i, &h)| {
                let sign = if i == 0 { self.signsgd_lrs.len() } else { 3 };
                h * (self.sgd_lrs.len() + sign * signsgd_run)
            })
            .sum()
    }

    /// The simulation of one (horizon, peak) pair (log step = the horizon).
    fn run_config(&self, horizon: usize, peak: f64) -> SgdConfig {
        SgdConfig {
            dimension: self.dimension,
            a: self.a,
            b: self.b,
            noise: self.noise,
            batch: self.batch,
            lrs: schedule(self.shape, peak, horizon),
            log_steps: vec![horizon],
            seeds: self.seeds,
            seed: self.seed,
        }
    }
}

/// Most horizons or grid learning rates of one measurement.
pub const MAX_GRID: usize = 1000;

fn check_grid(key: &'static str, grid: &[f64]) -> Result<()> {
    if grid.is_empty() || grid.len() > MAX_GRID {
        return Err(LabError::setting(
            key,
            format!(
                "{} learning rates; give between 1 and {MAX_GRID}",
                grid.len()
            ),
        ));
    }
    if let Some(lr) = grid
        .iter()
        .find(|lr| !lr.is_finite() || **lr <= 0.0 || **lr > MAX_LR)
    {
        return Err(LabError::setting(
            key,
            format!("learning rate {lr}; give finite values in (0, {MAX_LR}]"),
        ));
    }
    if let Some(w) = grid.windows(2).find(|w| w[1] >= w[0]) {
        return Err(LabError::setting(
            key,
            format!(
                "{} follows {}; give strictly decreasing learning rates",
                w[1], w[0]
            ),
        ));
    }
    Ok(())
}

impl ScalingConfig {
    /// Checks every setting and that the whole measurement stays within the work caps
    /// (counting every grid value at every horizon).
    pub fn validate(&self) -> Result<()> {
        self.shape.check()?;
        let horizons = &self.horizons;
        if horizons.len() < 3 || horizons.len() > MAX_GRID {
            return Err(LabError::setting(
                "horizons",
                format!(
                    "{} horizons; give between 3 and {MAX_GRID} (a slope and its error)",
                    horizons.len()
                ),
            ));
        }
        if horizons[0] == 0 {
            return Err(LabError::setting(
                "horizons",
                "a horizon of 0 steps; give T ≥ 1",
            ));
        }
        if let Some(w) = horizons.windows(2).find(|w| w[1] <= w[0]) {
            return Err(LabError::setting(
                "horizons",
                format!(
                    "{} follows {}; give strictly increasing horizons",
                    w[1], w[0]
                ),
            ));
        }
        check_grid("sgd_lrs", &self.sgd_lrs)?;
        check_grid("signsgd_lrs", &self.signsgd_lrs)?;
        let last = horizons[horizons.len() - 1];
        if last > MAX_STEPS {
            return Err(LabError::setting(
                "horizons",
                format!("a horizon of {last} steps; give at most {MAX_STEPS}"),
            ));
        }
        // A one-step run checks the problem's settings (dimension, a, b, noise, batch, seeds).
        self.run_config(1, self.sgd_lrs[0])
            .validate_for(&[Optimizer::SgdExact, Optimizer::SignSgdMc])?;
        let total_steps: f64 = horizons.iter().map(|&t| t as f64).sum();
        let exact = self.dimension as f64 * total_steps * self.sgd_lrs.len() as f64;
        if exact > MAX_EXACT_WORK {
            return Err(LabError::setting(
                "sgd_lrs",
                format!(
                    "dimension × Σ horizons × SGD learning rates = {exact:.3e} exceeds \
                     {MAX_EXACT_WORK:.0e}; use fewer learning rates or horizons"
                ),
            ));
        }
        let monte_carlo = exact
            * (self.batch * self.seeds) as f64
            * (self.signsgd_lrs.len() as f64 / self.sgd_lrs.len() as f64);
        if monte_carlo > MAX_MONTE_CARLO_WORK {
            return Err(LabError::setting(
                "seeds",
                format!(
                    "dimension × Σ horizons × batch × seeds × signSGD learning rates = \
                     {monte_carlo:.3e} normals exceeds {MAX_MONTE_CARLO_WORK:.1e}; use fewer \
                     seeds, learning rates or horizons, or a smaller dimension"
                ),
            ));
        }
        Ok(())
    }
}

/// The tuned end-of-training excess risk of one optimizer at one horizon.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingPoint {
    /// [`Optimizer::SgdExact`] or [`Optimizer::SignSgdMc`].
    pub optimizer: Optimizer,
    /// T, the steps (T·batch samples).
    pub horizon: usize,
    /// The best peak learning rate of the grid.
    pub lr: f64,
    pub excess_risk: f64,
    /// Standard error over seeds (0 for SGD's exact recursion).
    pub stderr: f64,
    pub seeds: usize,
    /// The best learning rate is the grid's first or last: widen the grid to be sure.
    pub lr_at_grid_edge: bool,
}

/// Least-squares fit of ln(excess risk) = intercept + slope·ln(T) over one optimizer's points.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingFit {
    pub optimizer: Optimizer,
    /// The data-scaling exponent: excess risk ∝ T^slope (negative when it falls).
    pub slope: f64,
    /// The slope's standard error from the fit's residuals.
    pub slope_stderr: f64,
    pub intercept: f64,
}

/// A data-scaling measurement's result.
#[derive(Debug, Clone, PartialEq)]
pub struct DataScaling {
    pub regime: Regime,
    /// s = (b − 1)/a.
    pub source_exponent: f64,
    /// SGD's points (one per horizon), then signSGD's.
    pub points: Vec<ScalingPoint>,
    /// SGD's fit, then signSGD's.
    pub fits: Vec<ScalingFit>,
}

/// The CSV header of [`ScalingPoint`]s.
pub const SCALING_CSV_HEADER: &str =
    "optimizer,horizon,lr,excess_risk,stderr,seeds,lr_at_grid_edge";

/// Points as a CSV document (header, one line per point, newline-terminated).
pub fn scaling_csv(points: &[ScalingPoint]) -> String {
    let mut out = String::from(SCALING_CSV_HEADER);
    out.push('\n');
    for p in points {
        out.push_str(&format!(
            "{},{},{},{},{},{},{}\n",
            p.optimizer.name(),
            p.horizon,
            p.lr,
            p.excess_risk,
            p.stderr,
            p.seeds,
            p.lr_at_grid_edge
        ));
    }
    out
}

/// Measures the data-scaling exponents of SGD (exact expected risk) and signSGD (Monte Carlo)
/// with the peak learning rate tuned per optimizer and horizon over its grid (the grid value of
/// least mean excess risk at the end of training; signSGD's minimum over noisy means is biased
/// slightly low), and fits the slope of ln excess risk against ln T for each.
pub fn data_scaling(config: &ScalingConfig) -> Result<DataScaling> {
    data_scaling_with_progress(config, &silent)
}

/// [`data_scaling`], telling `progress` the simulations' work in the units of
/// [`simulate_with_progress`]. The total is an estimate (signSGD's search may try more or fewer
/// learning rates than the three per horizon it assumes after the first) that grows if it falls
/// short.
pub fn data_scaling_with_progress(
    config: &ScalingConfig,
    progress: Progress<'_>,
) -> Result<DataScaling> {
    config.validate()?;
    let counter = Counter::new(progress, config.estimated_work());
    let mut points = tune(
        config,
        (Optimizer::SgdExact, &config.sgd_lrs, "sgd_lrs"),
        &counter,
    )?;
    points.extend(tune(
        config,
        (Optimizer::SignSgdMc, &config.signsgd_lrs, "signsgd_lrs"),
        &counter,
    )?);
    counter.finish();
    let fits = [Optimizer::SgdExact, Optimizer::SignSgdMc]
        .into_iter()
        .map(|optimizer| {
            let mine: Vec<&ScalingPoint> =
                points.iter().filter(|p| p.optimizer == optimizer).collect();
            let x: Vec<f64> = mine.iter().map(|p| (p.horizon as f64).ln()).collect();
            let y: Vec<f64> = mine.iter().map(|p| p.excess_risk.ln()).collect();
            let (slope, slope_stderr, intercept) = least_squares(&x, &y);
            ScalingFit {
                optimizer,
                slope,
                slope_stderr,
                intercept,
            }
        })
        .collect();
    Ok(DataScaling {
        regime: Regime::of(config.a, config.b),
        source_exponent: source_exponent(config.a, config.b),
        points,
        fits,
    })
}

/// One optimizer's tuned point at every horizon. SGD (cheap and exact) tries its whole grid
/// every time; signSGD tries its whole grid at the first horizon and then searches outward from
/// the previous horizon's best (the best peak falls as T grows).
fn tune(
    config: &ScalingConfig,
    (optimizer, grid, key): (Optimizer, &[f64], &'static str),
    counter: &Counter,
) -> Result<Vec<ScalingPoint>> {
    let mut previous: Option<usize> = None;
    let mut points = Vec::with_capacity(config.horizons.len());
    for &horizon in &config.horizons {
        let window = match (optimizer, previous) {
            (Optimizer::SignSgdMc, Some(p)) => (p.saturating_sub(1), (p + 1).min(grid.len() - 1)),
            _ => (0, grid.len() - 1),
        };
        let evaluate = |k: usize| -> Result<(f64, f64)> {
            let run = config.run_config(horizon, grid[k]);
            run.validate_for(&[optimizer])?;
            let rows = run_optimizers(&run, &[optimizer], counter);
            Ok(rows
                .first()
                .map_or((f64::INFINITY, 0.0), |r| (r.excess_risk, r.stderr)))
        };
        let (best, (excess_risk, stderr)) = search_grid(grid.len(), window, evaluate)?;
        if !(excess_risk.is_finite() && excess_risk > 0.0) {
            return Err(LabError::setting(
                key,
                format!(
                    "every learning rate tried gives an excess risk of {excess_risk} at horizon \
                     {horizon}; give smaller learning rates"
                ),
            ));
        }
        previous = Some(best);
        points.push(ScalingPoint {
            optimizer,
            horizon,
            lr: grid[best],
            excess_risk,
            stderr,
            seeds: if optimizer.is_monte_carlo() {
                config.seeds
            } else {
                0
            },
            lr_at_grid_edge: best == 0 || best == grid.len() - 1,
        });
    }
    Ok(points)
}

/// The grid index of least value: evaluates indices lo..=hi of `window`, then extends the
/// window by one index at a time on whichever side holds the current best, until the best is
/// inside the window or at the grid's end. NaN counts as +∞.
fn search_grid(
    len: usize,
    window: (usize, usize),
    mut evaluate: impl FnMut(usize) -> Result<(f64, f64)>,
) -> Result<(usize, (f64, f64))> {
    let key = |v: (f64, f64)| if v.0.is_nan() { f64::INFINITY } else { v.0 };
    let (mut lo, mut hi) = window;
    let mut values: Vec<Option<(f64, f64)>> = vec![None; len];
    for (k, value) in values.iter_mut().enumerate().take(hi + 1).skip(lo) {
        *value = Some(evaluate(k)?);
    }
    loop {
        let best = (lo..=hi).filter_map(|k| values[k].map(|v| (k, v))).fold(
            None::<(usize, (f64, f64))>,
            |acc, (k, v)| match acc {
                Some((_, a)) if key(a) <= key(v) => acc,
                _ => Some((k, v)),
            },
        );
        let Some((index, value)) = best else {
            return Ok((lo, (f64::INFINITY, 0.0)));
        };
        if index == lo && lo > 0 {
            lo -= 1;
            values[lo] = Some(evaluate(lo)?);
        } else if index == hi && hi + 1 < len {
            hi += 1;
            values[hi] = Some(evaluate(hi)?);
        } else {
            return Ok((index, value));
        }
    }
}

/// Ordinary least squares y = intercept + slope·x: (slope, slope's standard error, intercept).
/// The standard error needs at least 3 points (NaN otherwise).
fn least_squares(x: &[f64], y: &[f64]) -> (f64, f64, f64) {
    let n = x.len() as f64;
    let mean_x = x.iter().sum::<f64>() / n;
    let mean_y = y.iter().sum::<f64>() / n;
    let sxx: f64 = x.iter().map(|v| (v - mean_x).powi(2)).sum();
    let sxy: f64 = x
        .iter()
        .zip(y)
        .map(|(a, b)| (a - mean_x) * (b - mean_y))
        .sum();
    let slope = sxy / sxx;
    let intercept = mean_y - slope * mean_x;
    let residuals: f64 = x
        .iter()
        .zip(y)
        .map(|(a, b)| (b - intercept - slope * a).powi(2))
        .sum();
    let stderr = (residuals / (n - 2.0) / sxx).sqrt();
    (slope, stderr, intercept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_front_ends_counts_are_checked_here_and_default_to_the_default_run() {
        let key = |r: Result<(Vec<f64>, Vec<usize>)>| match r {
            Err(LabError::Setting { key, .. }) => key,
            Ok(_) => "accepted",
        };
        assert_eq!(key(constant_run(None, Some(0), None)), "steps");
        assert_eq!(
            key(constant_run(None, Some(MAX_RUN_STEPS + 1), None)),
            "steps"
        );
        assert_eq!(key(constant_run(None, None, Some(0))), "per_decade");
        assert_eq!(
            key(constant_run(None, None, Some(MAX_PER_DECADE + 1))),
            "per_decade"
        );
        let (lrs, log_steps) = constant_run(None, None, None).unwrap();
        let default = SgdConfig::default();
        assert_eq!(lrs.len(), default.lrs.len());
        assert_eq!(log_steps, default.log_steps);
        assert!(check_horizons(&[10, MAX_RUN_STEPS]).is_ok());
        assert!(check_horizons(&[MAX_RUN_STEPS + 1]).is_err());
    }

    #[test]
    fn log_spaced_steps_start_at_zero_end_at_steps_and_increase() {
        assert_eq!(log_spaced_steps(0, 4), vec![0]);
        assert_eq!(log_spaced_steps(1, 4), vec![0, 1]);
        assert_eq!(log_spaced_steps(100, 2), vec![0, 1, 3, 10, 32, 100]);
        let steps = log_spaced_steps(1234, 5);
        assert_eq!(steps.last(), Some(&1234));
        assert!(steps.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            log_spaced_steps(10, usize::MAX),
            (0..=10).collect::<Vec<_>>()
        );
    }

    #[test]
    fn schedules_have_their_shape() {
        // Exactly representable values: bit comparisons are the point.
        let bits = |v: Vec<f64>| v.into_iter().map(f64::to_bits).collect::<Vec<_>>();
        assert_eq!(bits(schedule(Shape::Constant, 0.5, 3)), bits(vec![0.5; 3]));
        // Linear decay over all 4 steps: peak·(4 − t)/4.
        assert_eq!(
            bits(schedule(Shape::Decay { fraction: 1.0 }, 1.0, 4)),
            bits(vec![1.0, 0.75, 0.5, 0.25])
        );
        // Stable for 2 steps, then decay over the last 2.
        assert_eq!(
            bits(schedule(Shape::Decay { fraction: 0.5 }, 2.0, 4)),
            bits(vec![2.0, 2.0, 2.0, 1.0])
        );
        assert!(schedule(Shape::Decay { fraction: 1e-9 }, 1.0, 5)
            .iter()
            .all(|&lr| lr > 0.0));
        assert!(Shape::Decay { fraction: 0.0 }.check().is_err());
        assert!(Shape::Decay { fraction: f64::NAN }.check().is_err());
    }

    #[test]
    fn regimes_follow_the_fsl_boundary() {
        assert_eq!(Regime::of(2.0, 1.5), Regime::Hard);
        assert_eq!(Regime::of(2.0, 3.0), Regime::Easy);
        // On the boundary b = a the task counts as easy (s = 1 − 1/a).
        assert_eq!(Regime::of(2.0, 2.0), Regime::Easy);
        assert!((source_exponent(2.0, 1.5) - 0.25).abs() < 1e-15);
    }

    #[test]
    fn sign_of_zero_is_zero() {
        assert_eq!(sign(0.0).to_bits(), 0f64.to_bits());
        assert_eq!(sign(-0.0).to_bits(), 0f64.to_bits());
        assert_eq!(sign(f64::NAN).to_bits(), 0f64.to_bits());
        assert_eq!(sign(-3.0).to_bits(), (-1f64).to_bits());
        assert_eq!(sign(1e-300).to_bits(), 1f64.to_bits());
    }

    #[test]
    fn least_squares_recovers_a_line() {
        let x = [0.0, 1.0, 2.0, 3.0];
        let y: Vec<f64> = x.iter().map(|v| 1.5 - 0.25 * v).collect();
        let (slope, stderr, intercept) = least_squares(&x, &y);
        assert!((slope + 0.25).abs() < 1e-12);
        assert!((intercept - 1.5).abs() < 1e-12);
        assert!(stderr < 1e-7);
    }

    #[test]
    fn grid_search_walks_to_the_minimum_and_evaluates_little() {
        let values = [5.0, 4.0, 3.0, 2.0, 1.0, 2.0, 3.0, 4.0];
        let mut calls = Vec::new();
        let (best, (value, _)) = search_grid(values.len(), (1, 2), |k| {
            calls.push(k);
            Ok((values[k], 0.0))
        })
        .unwrap();
        assert_eq!(best, 4);
        assert!((value - 1.0).abs() < 1e-15);
        assert_eq!(calls, vec![1, 2, 3, 4, 5]);
        // NaN counts as +∞; a minimum at the grid's end stops there.
        let (best, _) = search_grid(3, (0, 2), |k| Ok(([f64::NAN, 2.0, 1.0][k], 0.0))).unwrap();
        assert_eq!(best, 2);
    }

    #[test]
    fn exact_recursion_of_a_diverging_rate_reports_infinity() {
        let config = SgdConfig {
            lrs: vec![50.0; 400],
            log_steps: vec![0, 400],
            ..SgdConfig::default()
        };
        let rows = simulate(&config, &[Optimizer::SgdExact, Optimizer::SgdMc]).unwrap();
        assert!(rows.iter().all(|r| !r.risk.is_nan()));
        assert!(rows
            .iter()
            .filter(|r| r.step == 400)
            .all(|r| r.risk.is_infinite() && r.risk > 0.0));
    }

    #[test]
    fn csv_rows_have_the_header_columns() {
        let row = SgdRow {
            optimizer: Optimizer::SignSgdMc,
            step: 10,
            risk: 0.25,
            excess_risk: 0.125,
            stderr: 0.5,
            seeds: 3,
        };
        assert_eq!(row.csv_line(), "signsgd_mc,10,0.25,0.125,0.5,3");
        let text = sgd_csv(&[row]);
        assert_eq!(
            text,
            format!("{SGD_CSV_HEADER}\nsignsgd_mc,10,0.25,0.125,0.5,3\n")
        );
        for o in Optimizer::ALL {
            assert_eq!(Optimizer::parse(o.name()), Ok(o));
        }
    }
}
