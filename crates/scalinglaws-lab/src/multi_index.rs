//! Hierarchical multi-index targets and the target-agnostic spectral estimator: the setting of
//! the two-layer-network scaling-law seed paper, simulated exactly (seeded Monte Carlo over
//! fresh data), so that its claim that "the hierarchical features of the target are
//! sequentially learned through a cascade of phase transitions", each recovered by "a simple,
//! target-agnostic spectral estimator", becomes rows the engine can fit.
//!
//! # The setting
//!
//! Inputs x ~ N(0, I_d). A random orthonormal set w_1, …, w_k ∈ R^d (Gaussian vectors,
//! Gram–Schmidt, drawn afresh for every seed) and the target
//!
//! ```text
//! y = Σ_j a_j·He2(⟨w_j, x⟩) + σ·ε,   He2(z) = z² − 1,   ε ~ N(0, 1),
//! a_j = d^(−γ·(j−1))                 (a_1 = 1 > a_2 > … > a_k for γ > 0).
//! ```
//!
//! He2 is the second (probabilists') Hermite polynomial, so each index has information
//! exponent 2 (Ben Arous, Gheissari & Jagannath 2021, "Online stochastic gradient descent on
//! non-convex losses from high-dimensional inference", JMLR 22): the first Hermite moment
//! E[y x] vanishes and the second carries the whole subspace, E[y x xᵀ] = 2·Σ_j a_j w_j w_jᵀ
//! (by Isserlis, E[He2(z_j)·x xᵀ] = 2 w_j w_jᵀ). The label variance is
//! E[y²] = 2·Σ_j a_j² + σ².
//!
//! **Simplifications of the paper.** The paper treats a general class of hierarchical
//! multi-index targets and two-layer networks; we keep one clean instance: a sum of
//! orthogonal He2 ridges (no cross terms, no higher Hermite components), strengths decaying as
//! a power of d with a single exponent γ, and samples n = κ·d (the sample exponent ℓ = 1):
//! the hierarchy lives in the strengths, so direction j needs κ ∝ d^(2γ(j−1)) samples per
//! dimension, and the cascade is seen at a cost of O(n·d²) per seed.
//!
//! # The estimator
//!
//! The spectral estimator is the top-k eigenspace of M̂ = (1/n)·Σ_i y_i x_i x_iᵀ (largest
//! eigenvalues, signed: the planted spikes are positive). It uses neither g nor the strengths;
//! the seed paper interprets it as the small-learning-rate limit of gradient descent on the
//! first-layer weights. For each direction we report its overlap with the estimated subspace,
//! q_j = ‖P̂ w_j‖² ∈ [0, 1] (P̂ the projector on the top-k eigenvectors; a random k-subspace
//! gives E q_j = k/d). One seed's samples are nested: the estimate at κ uses the first κ·d
//! samples of the same stream, so each curve in κ is one path (common random numbers).
//!
//! # Random-matrix prediction (an approximation, reported beside the measurement)
//!
//! Away from span(W), M̂ acts like a Wigner matrix whose entries have variance E[y²]/n, i.e.
//! a semicircle of radius 2s with s² = E[y²]/κ; the direction w_j adds a spike of strength
//! θ_j = 2a_j. For a spiked Wigner matrix the top eigenvector detaches from the bulk above the
//! BBP threshold θ > s with squared overlap 1 − s²/θ² (Baik, Ben Arous & Péché 2005, "Phase
//! transition of the largest eigenvalue for nonnull complex sample covariance matrices", Ann.
//! Probab. 33:1643–1697; for the additive Wigner case, Péché 2006 and Capitaine, Donati-Martin
//! & Féral 2009). Hence the prediction
//!
//! ```text
//! q_j ≈ max(0, 1 − E[y²]/(4 a_j² κ)),   BBP threshold κ_j = E[y²]/(4 a_j²),
//! q_j = 1/2 at κ_j* = E[y²]/(2 a_j²)  ∝ d^(2γ(j−1)) for large d.
//! ```
//!
//! It ignores that y depends on x inside span(W) (the entries coupling w_j to the bulk have
//! variance E[y² z_j²]/n = (E[y²] + 8a_j²)/n, not E[y²]/n) and that (1/n)Σ y x xᵀ is a
//! weighted Wishart matrix, not a Wigner one, at κ of order 1; [`transitions`] reports the
//! measured crossing beside it and [`transition_exponents`] fits both against d. At the
//! defaults the measured κ_j* is 1.7 to 3.6 times the prediction (the prediction is
//! optimistic, most for direction 1); the exact threshold of this spectral method (in the
//! manner of Lu & Li 2017 and Mondelli & Montanari 2018 for single-index models) is not
//! implemented.
//!
//! What is exact is the large-κ limit: first-order perturbation of the top eigenvectors gives
//! 1 − q_j ≈ Σ_u ⟨u, (M̂ − M) w_j⟩²/(2a_j)² ≈ E[y² z_j²]/(4a_j²κ), with
//! E[y² z_j²] = E[y²] + 8a_j² (E[He2(z)² z²] = 10, E[He2(z_i)² z_j²] = 2 for i ≠ j), i.e.
//! q_j ≈ 1 − (E[y²] + 8a_j²)/(4a_j²κ) ([`asymptotic_overlap`]); at the defaults it matches
//! the measured overlaps to about 0.005 once q_j ≳ 0.9.
//!
//! Seed paper: the two-layer scaling-law paper ("a sharp theory of scaling laws for two-layer
//! neural networks trained on a class of hierarchical multi-index targets, in a genuinely
//! representation-limited regime … the hierarchical features of the target are sequentially
//! learned through a cascade of phase transitions … achieved by a simple, target-agnostic
//! spectral estimator").
//!
//! # Determinism
//!
//! Seed s at dimension d draws from `Rng::stream(seed, (d << 32) | s)`; seeds run in parallel
//! and their overlaps are summed in seed order, so rows are bit-identical for any thread count.

use nalgebra::{DMatrix, SymmetricEigen};
use rayon::prelude::*;
use scalinglaws::rng::Rng;

use crate::error::{LabError, Result};
use crate::progress::{silent, Counter, Progress};

/// Largest dimension d: one d×d matrix (32 MB at 2048) and its eigendecomposition per worker.
pub const MAX_DIMENSION: usize = 2048;

/// Most dimensions in one run.
pub const MAX_DIMENSIONS: usize = 32;

/// Most sample ratios κ in one run (each is one eigendecomposition per seed and dimension).
pub const MAX_KAPPAS: usize = 256;

/// Largest sample ratio κ = n/d.
pub const MAX_KAPPA: f64 = 1e6;

/// Most planted directions k (at most d, and at most this).
pub const MAX_DIRECTIONS: usize = 32;

/// Most seeds.
pub const MAX_SEEDS: usize = 100_000;

/// Largest strength exponent γ (a_j = d^(−γ(j−1))).
pub const MAX_STRENGTH_EXPONENT: f64 = 4.0;

/// Largest label-noise standard deviation σ.
pub const MAX_NOISE: f64 = 1e3;

/// Most multiply-adds Σ_d seeds·n_max(d)·d² of building M̂ in one call: a few thousand million
/// a second on 2 cores, so at most about a minute.
pub const MAX_WORK: f64 = 1e11;

/// Most eigendecomposition work Σ_d seeds·kappas·d³ in one call.
pub const MAX_EIGEN_WORK: f64 = 2e10;
/// Most samples drawn in one call, Σ_d seeds·n_max(d): at small d each costs ~40 ns whatever
/// its d², so ≤ ~20 s on 2 cores.
pub const MAX_SAMPLES: f64 = 1e9;
/// Most per-seed overlaps held before they are averaged: 200 MB.
pub const MAX_STORED: f64 = 2.5e7;

/// Samples per accumulated block: a block holds two d×BLOCK matrices (8 MB at d = 2048).
const BLOCK: usize = 256;

/// One spectral-recovery experiment. Rows come out per dimension (in the order given), then
/// per κ, then per direction.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiIndexConfig {
    /// Input dimensions d, each one sweep.
    pub dimensions: Vec<usize>,
    /// Sample ratios κ (n = round(κ·d), at least 1), strictly increasing, positive.
    pub kappas: Vec<f64>,
    /// k, the number of planted directions (1 ≤ k ≤ each d).
    pub directions: usize,
    /// γ ≥ 0: direction j has strength a_j = d^(−γ(j−1)).
    pub strength_exponent: f64,
    /// σ ≥ 0, the label noise's standard deviation.
    pub noise: f64,
    /// Independent runs (fresh directions and samples), at least 2 for the standard error.
    pub seeds: usize,
    pub seed: u64,
}

impl Default for MultiIndexConfig {
    /// d = 64, 128, 256; κ = 2^(i/2) for i = −2..=12 (0.5 to 64); k = 3; γ = 1/8 (at d = 256
    /// the strengths are 1, 1/2, 1/4); σ = 0; 16 seeds; seed 0: about 8 s on 2 busy cores
    /// (release build).
    fn default() -> Self {
        MultiIndexConfig {
            dimensions: vec![64, 128, 256],
            kappas: (-2..=12).map(|i| 2f64.powf(i as f64 / 2.0)).collect(),
            directions: 3,
            strength_exponent: 0.125,
            noise: 0.0,
            seeds: 16,
            seed: 0,
        }
    }
}

impl MultiIndexConfig {
    /// Refuses settings out of range or beyond the caps, naming the setting.
    pub fn validate(&self) -> Result<()> {
        self.validate_dimensions()?;
        self.validate_kappas()?;
        let k = self.directions;
        let smallest = self.dimensions.iter().copied().min().unwrap_or(0);
        if k == 0 || k > MAX_DIRECTIONS || k > smallest {
            return Err(LabError::setting(
                "directions",
                format!("{k} is out of range; give 1 to {MAX_DIRECTIONS}, at most the smallest dimension ({smallest})"),
            ));
        }
        let gamma = self.strength_exponent;
        if !(gamma.is_finite() && (0.0..=MAX_STRENGTH_EXPONENT).contains(&gamma)) {
            return Err(LabError::setting(
                "strength_exponent",
                format!("{gamma} is out of range; give a value in [0, {MAX_STRENGTH_EXPONENT}]"),
            ));
        }
        if !(self.noise.is_finite() && (0.0..=MAX_NOISE).contains(&self.noise)) {
            return Err(LabError::setting(
                "noise",
                format!(
                    "{} is out of range; give a value in [0, {MAX_NOISE}]",
                    self.noise
                ),
            ));
        }
        if self.seeds < 2 || self.seeds > MAX_SEEDS {
            return Err(LabError::setting(
                "seeds",
                format!("{} is out of range; give 2 to {MAX_SEEDS}", self.seeds),
            ));
        }
        self.validate_work()
    }

    fn validate_dimensions(&self) -> Result<()> {
        let dims = &self.dimensions;
        if dims.is_empty() || dims.len() > MAX_DIMENSIONS {
            return Err(LabError::setting(
                "dimensions",
                format!("{} given; give 1 to {MAX_DIMENSIONS}", dims.len()),
            ));
        }
        if let Some(d) = dims.iter().find(|&&d| !(2..=MAX_DIMENSION).contains(&d)) {
            return Err(LabError::setting(
                "dimensions",
                format!("{d} is out of range; each must be 2 to {MAX_DIMENSION}"),
            ));
        }
        crate::error::refuse_repeats("dimensions", "dimension", dims)?;
        Ok(())
    }

    fn validate_kappas(&self) -> Result<()> {
        let kappas = &self.kappas;
        if kappas.is_empty() || kappas.len() > MAX_KAPPAS {
            return Err(LabError::setting(
                "kappas",
                format!("{} given; give 1 to {MAX_KAPPAS}", kappas.len()),
            ));
        }
        if let Some(k) = kappas
            .iter()
            .find(|k| !(k.is_finite() && **k > 0.0 && **k <= MAX_KAPPA))
        {
            return Err(LabError::setting(
                "kappas",
                format!("{k} is out of range; each must be in (0, {MAX_KAPPA}]"),
            ));
        }
        if let Some(w) = kappas.windows(2).find(|w| w[1] <= w[0]) {
            return Err(LabError::setting(
                "kappas",
                format!(
                    "{} then {} is not increasing; give them strictly increasing",
                    w[0], w[1]
                ),
            ));
        }
        Ok(())
    }

    fn validate_work(&self) -> Result<()> {
        let kappa_max = self.kappas.last().copied().unwrap_or(0.0);
        let seeds = self.seeds as f64;
        let (mut work, mut eigen) = (0.0, 0.0);
        for &d in &self.dimensions {
            let d = d as f64;
            work += seeds * (kappa_max * d).round().max(1.0) * d * d;
            eigen += seeds * self.kappas.len() as f64 * d * d * d;
        }
        if work > MAX_WORK {
            return Err(LabError::setting(
                "seeds",
                format!("seeds × samples × d² = {work:.3e} multiply-adds, more than {MAX_WORK:.0e}; use fewer seeds, smaller kappas or smaller dimensions"),
            ));
        }
        let samples: f64 = self
            .dimensions
            .iter()
            .map(|&d| seeds * (kappa_max * d as f64).round().max(1.0))
            .sum();
        if samples > MAX_SAMPLES {
            return Err(LabError::setting(
                "seeds",
                format!("seeds × samples = {samples:.3e} draws, more than {MAX_SAMPLES:.0e}; use fewer seeds or smaller kappas"),
            ));
        }
        let stored = seeds * (self.kappas.len() * self.directions * self.dimensions.len()) as f64;
        if stored > MAX_STORED {
            return Err(LabError::setting(
                "seeds",
                format!("seeds × kappas × directions × dimensions = {stored:.3e} overlaps held, more than {MAX_STORED:.1e}; use fewer seeds or kappas"),
            ));
        }
        if eigen > MAX_EIGEN_WORK {
            return Err(LabError::setting(
                "seeds",
                format!("seeds × kappas × d³ = {eigen:.3e}, more than {MAX_EIGEN_WORK:.0e}; use fewer seeds, fewer kappas or smaller dimensions"),
            ));
        }
        Ok(())
    }

    /// The strengths a_j = d^(−γ(j−1)), j = 1..=k, at dimension `dimension`.
    pub fn strengths(&self, dimension: usize) -> Vec<f64> {
        (0..self.directions)
            .map(|j| (dimension as f64).powf(-self.strength_exponent * j as f64))
            .collect()
    }

    /// E[y²] = 2·Σ_j a_j² + σ² at dimension `dimension`.
    pub fn label_variance(&self, dimension: usize) -> f64 {
        2.0 * self.strengths(dimension).iter().map(|a| a * a).sum::<f64>() + self.noise * self.noise
    }
}

/// Samples n = round(κ·d), at least 1.
pub fn samples(kappa: f64, dimension: usize) -> usize {
    ((kappa * dimension as f64).round() as usize).max(1)
}

/// The spiked-Wigner prediction of q_j (module documentation): max(0, 1 − E[y²]/(4a²κ)).
pub fn predicted_overlap(label_variance: f64, strength: f64, kappa: f64) -> f64 {
    (1.0 - label_variance / (4.0 * strength * strength * kappa)).max(0.0)
}

/// The exact large-κ asymptote of q_j (module documentation):
/// max(0, 1 − (E[y²] + 8a²)/(4a²κ)), first order in 1/κ.
pub fn asymptotic_overlap(label_variance: f64, strength: f64, kappa: f64) -> f64 {
    let a2 = strength * strength;
    (1.0 - (label_variance + 8.0 * a2) / (4.0 * a2 * kappa)).max(0.0)
}

/// One (dimension, κ, direction) of [`spectral_recovery`].
#[derive(Debug, Clone, PartialEq)]
pub struct RecoveryRow {
    pub dimension: usize,
    pub kappa: f64,
    pub samples: usize,
    /// j, 1-based: direction 1 is the strongest.
    pub direction: usize,
    /// a_j.
    pub strength: f64,
    /// E[y²] = 2Σa² + σ², the scale of the estimator's noise.
    pub label_variance: f64,
    /// Mean over seeds of q_j = ‖P̂ w_j‖².
    pub overlap: f64,
    /// Its standard error over seeds.
    pub overlap_stderr: f64,
    pub seeds: usize,
    /// The spiked-Wigner (BBP) prediction of q_j, [`predicted_overlap`].
    pub predicted_overlap: f64,
    /// The exact large-κ asymptote of q_j, [`asymptotic_overlap`].
    pub asymptotic_overlap: f64,
}

impl RecoveryRow {
    /// The dataset's header line (no newline).
    pub fn csv_header() -> &'static str {
        "dimension,kappa,samples,direction,strength,label_variance,overlap,overlap_stderr,seeds,predicted_overlap,asymptotic_overlap"
    }

    /// This row as a CSV line matching [`RecoveryRow::csv_header`] (no newline); numbers in
    /// Rust's shortest form that reads back to the same f64.
    pub fn csv_line(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{}",
            self.dimension,
            self.kappa,
            self.samples,
            self.direction,
            self.strength,
            self.label_variance,
            self.overlap,
            self.overlap_stderr,
            self.seeds,
            self.predicted_overlap,
            self.asymptotic_overlap
        )
    }
}

/// The spectral estimator's overlaps for every dimension, κ and direction (see
/// [`RecoveryRow`]). Refuses settings out of range ([`MultiIndexConfig::validate`]). Parallel
/// over seeds; bit-identical at any thread count.
pub fn spectral_recovery(config: &MultiIndexConfig) -> Result<Vec<RecoveryRow>> {
    spectral_recovery_with_progress(config, &silent)
}

/// [`spectral_recovery`], telling `progress` the seeds finished at each dimension, each
/// weighted by its work (samples × d² for M̂ plus κ's × d³ for the eigendecompositions).
pub fn spectral_recovery_with_progress(
    config: &MultiIndexConfig,
    progress: Progress<'_>,
) -> Result<Vec<RecoveryRow>> {
    config.validate()?;
    let k = config.directions;
    let seed_work = |d: usize| {
        let n = samples(config.kappas.last().copied().unwrap_or(1.0), d);
        n * d * d + config.kappas.len() * d * d * d
    };
    let total = config
        .dimensions
        .iter()
        .map(|&d| seed_work(d))
        .sum::<usize>()
        * config.seeds;
    let counter = Counter::new(progress, total);
    let mut rows = Vec::with_capacity(config.dimensions.len() * config.kappas.len() * k);
    for &d in &config.dimensions {
        let per_seed: Vec<Vec<Vec<f64>>> = (0..config.seeds)
            .into_par_iter()
            .map(|s| {
                let overlaps = seed_overlaps(config, d, s);
                counter.add(seed_work(d));
                overlaps
            })
            .collect();
        let strengths = config.strengths(d);
        let variance = config.label_variance(d);
        for (i, &kappa) in config.kappas.iter().enumerate() {
            for (j, &strength) in strengths.iter().enumerate() {
                let values: Vec<f64> = per_seed.iter().map(|seed| seed[i][j]).collect();
                let (overlap, overlap_stderr) = mean_and_stderr(&values);
                rows.push(RecoveryRow {
                    dimension: d,
                    kappa,
                    samples: samples(kappa, d),
                    direction: j + 1,
                    strength,
                    label_variance: variance,
                    overlap,
                    overlap_stderr,
                    seeds: config.seeds,
                    predicted_overlap: predicted_overlap(variance, strength, kappa),
                    asymptotic_overlap: asymptotic_overlap(variance, strength, kappa),
                });
            }
        }
    }
    counter.finish();
    Ok(rows)
}

/// Mean and standard error (sample standard deviation / √m), summed in order.
fn mean_and_stderr(values: &[f64]) -> (f64, f64) {
    let m = values.len() as f64;
    let mean = values.iter().sum::<f64>() / m;
    if values.len() < 2 {
        return (mean, 0.0);
    }
    let ss = values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>();
    (mean, (ss / (m - 1.0) / m).sqrt())
}

/// One seed at one dimension: q_j for every κ (outer) and direction (inner).
fn seed_overlaps(config: &MultiIndexConfig, d: usize, s: usize) -> Vec<Vec<f64>> {
    let mut rng = Rng::stream(config.seed, ((d as u64) << 32) | s as u64);
    let w = orthonormal_directions(&mut rng, d, config.directions);
    let strengths = config.strengths(d);
    let mut sum = DMatrix::<f64>::zeros(d, d);
    let mut done = 0;
    let mut out = Vec::with_capacity(config.kappas.len());
    for &kappa in &config.kappas {
        let n = samples(kappa, d);
        while done < n {
            let b = BLOCK.min(n - done);
            accumulate_block(&mut rng, &w, &strengths, config.noise, b, &mut sum);
            done += b;
        }
        out.push(top_overlaps(&(&sum / n as f64), &w));
    }
    out
}

/// k orthonormal columns in R^d: Gaussian vectors, Gram–Schmidt (twice, for accuracy).
/// Requires k ≤ d (validated); a Gaussian set is independent with probability 1.
pub fn orthonormal_directions(rng: &mut Rng, d: usize, k: usize) -> DMatrix<f64> {
    let mut w = DMatrix::<f64>::from_fn(d, k, |_, _| rng.normal());
    for j in 0..k {
        for _ in 0..2 {
            for i in 0..j {
                let dot = w.column(i).dot(&w.column(j));
                let previous = w.column(i).clone_owned();
                w.column_mut(j).axpy(-dot, &previous, 1.0);
            }
        }
        let norm = w.column(j).norm();
        w.column_mut(j).unscale_mut(norm);
    }
    w
}

/// M̂ = (1/n)·Σ_i y_i x_i x_iᵀ over n fresh samples of the target with directions `w` (d × k,
/// orthonormal columns) and strengths `strengths` (length k), drawn from `rng` exactly as
/// [`spectral_recovery`] draws them. Returns None when n = 0 or the lengths disagree.
pub fn empirical_moment(
    rng: &mut Rng,
    w: &DMatrix<f64>,
    strengths: &[f64],
    noise: f64,
    n: usize,
) -> Option<DMatrix<f64>> {
    if n == 0 || strengths.len() != w.ncols() {
        return None;
    }
    let d = w.nrows();
    let mut sum = DMatrix::<f64>::zeros(d, d);
    let mut done = 0;
    while done < n {
        let b = BLOCK.min(n - done);
        accumulate_block(rng, w, strengths, noise, b, &mut sum);
        done += b;
    }
    Some(sum / n as f64)
}

/// Draws b samples (x, then the label noise) and adds Σ y x xᵀ over them to `sum`.
fn accumulate_block(
    rng: &mut Rng,
    w: &DMatrix<f64>,
    strengths: &[f64],
    noise: f64,
    b: usize,
    sum: &mut DMatrix<f64>,
) {
    let d = w.nrows();
    let x = DMatrix::<f64>::from_fn(d, b, |_, _| rng.normal());
    let z = w.tr_mul(&x); // k × b: z_ji = ⟨w_j, x_i⟩
    let mut weighted = x.clone();
    for i in 0..b {
        let signal: f64 = strengths
            .iter()
            .enumerate()
            .map(|(j, a)| a * (z[(j, i)] * z[(j, i)] - 1.0))
            .sum();
        let y = signal + noise * rng.normal();
        weighted.column_mut(i).scale_mut(y);
    }
    sum.gemm(1.0, &x, &weighted.transpose(), 1.0);
}

/// q_j = ‖P̂ w_j‖² for the projector P̂ on the eigenvectors of the k largest eigenvalues of
/// `m` (symmetrised first; ties broken by index).
fn top_overlaps(m: &DMatrix<f64>, w: &DMatrix<f64>) -> Vec<f64> {
    let k = w.ncols();
    let symmetric = (m + m.transpose()) * 0.5;
    let eigen = SymmetricEigen::new(symmetric);
    let mut order: Vec<usize> = (0..eigen.eigenvalues.len()).collect();
    order.sort_by(|&a, &b| {
        eigen.eigenvalues[b]
            .total_cmp(&eigen.eigenvalues[a])
            .then(a.cmp(&b))
    });
    (0..k)
        .map(|j| {
            order[..k.min(order.len())]
                .iter()
                .map(|&e| {
                    let c = eigen.eigenvectors.column(e).dot(&w.column(j));
                    c * c
                })
                .sum()
        })
        .collect()
}

/// Where direction j's mean overlap first crosses 1/2 at one dimension, beside the
/// spiked-Wigner prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    pub direction: usize,
    pub dimension: usize,
    pub strength: f64,
    /// κ where the measured overlap first reaches 1/2 (linear in q between the bracketing κ's,
    /// geometric in κ).
    pub kappa: f64,
    /// The prediction E[y²]/(2a_j²) of the same point.
    pub predicted_kappa: f64,
    /// The BBP threshold E[y²]/(4a_j²), where the prediction leaves 0.
    pub bbp_kappa: f64,
}

/// Each (dimension, direction)'s first upward crossing of overlap 1/2, ordered by dimension
/// (first appearance) then direction. A curve that starts at or above 1/2, or never reaches
/// it, gives no transition.
pub fn transitions(rows: &[RecoveryRow]) -> Vec<Transition> {
    let mut keys: Vec<(usize, usize)> = Vec::new();
    for row in rows {
        if !keys.contains(&(row.dimension, row.direction)) {
            keys.push((row.dimension, row.direction));
        }
    }
    let mut dims: Vec<usize> = Vec::new();
    keys.iter().for_each(|(d, _)| {
        if !dims.contains(d) {
            dims.push(*d)
        }
    });
    keys.sort_by_key(|(d, j)| (dims.iter().position(|x| x == d), *j));
    keys.into_iter()
        .filter_map(|(d, j)| {
            let mut curve: Vec<&RecoveryRow> = rows
                .iter()
                .filter(|r| r.dimension == d && r.direction == j)
                .collect();
            curve.sort_by(|a, b| a.kappa.total_cmp(&b.kappa));
            crossing(&curve)
        })
        .collect()
}

fn crossing(curve: &[&RecoveryRow]) -> Option<Transition> {
    let first = curve.first()?;
    if !(first.overlap < 0.5) {
        return None;
    }
    let i = curve.windows(2).position(|w| w[1].overlap >= 0.5)?;
    let (lo, hi) = (curve[i], curve[i + 1]);
    let t = (0.5 - lo.overlap) / (hi.overlap - lo.overlap);
    let kappa = (lo.kappa.ln() + t * (hi.kappa.ln() - lo.kappa.ln())).exp();
    let a2 = hi.strength * hi.strength;
    Some(Transition {
        direction: hi.direction,
        dimension: hi.dimension,
        strength: hi.strength,
        kappa,
        predicted_kappa: hi.label_variance / (2.0 * a2),
        bbp_kappa: hi.label_variance / (4.0 * a2),
    })
}

/// The least-squares slope of ln κ_j* against ln d for one direction.
#[derive(Debug, Clone, PartialEq)]
pub struct TransitionExponent {
    pub direction: usize,
    /// Dimensions with a transition (at least 2).
    pub dimensions: usize,
    /// Measured slope of ln κ_j* (overlap 1/2) against ln d.
    pub exponent: f64,
    /// The same slope of the predicted E[y²]/(2a_j²) over the same dimensions (tends to
    /// 2γ(j−1) for large d).
    pub predicted_exponent: f64,
}

/// Per direction (ascending), the fitted transition exponents; directions with fewer than two
/// distinct dimensions are left out.
pub fn transition_exponents(transitions: &[Transition]) -> Vec<TransitionExponent> {
    let mut directions: Vec<usize> = transitions.iter().map(|t| t.direction).collect();
    directions.sort_unstable();
    directions.dedup();
    directions
        .into_iter()
        .filter_map(|j| {
            let ts: Vec<&Transition> = transitions.iter().filter(|t| t.direction == j).collect();
            let x: Vec<f64> = ts.iter().map(|t| (t.dimension as f64).ln()).collect();
            let measured: Vec<f64> = ts.iter().map(|t| t.kappa.ln()).collect();
            let predicted: Vec<f64> = ts.iter().map(|t| t.predicted_kappa.ln()).collect();
            Some(TransitionExponent {
                direction: j,
                dimensions: ts.len(),
                exponent: slope(&x, &measured)?,
                predicted_exponent: slope(&x, &predicted)?,
            })
        })
        .collect()
}

/// Least-squares slope of y on x; None when x has no spread.
fn slope(x: &[f64], y: &[f64]) -> Option<f64> {
    let m = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / m, y.iter().sum::<f64>() / m);
    let sxx: f64 = x.iter().map(|a| (a - mx) * (a - mx)).sum();
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let s = sxy / sxx;
    (x.len() >= 2 && sxx > 0.0 && s.is_finite()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_are_orthonormal() {
        let mut rng = Rng::stream(3, 0);
        let w = orthonormal_directions(&mut rng, 20, 5);
        let gram = w.tr_mul(&w);
        for i in 0..5 {
            for j in 0..5 {
                let expected = if i == j { 1.0 } else { 0.0 };
                assert!((gram[(i, j)] - expected).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn prediction_and_slope_are_as_documented() {
        // E[y²] = 2, a = 1: q = 1 − 1/(2κ); 1/2 at κ = 1, 0 at the BBP κ = 1/2.
        assert!((predicted_overlap(2.0, 1.0, 1.0) - 0.5).abs() < 1e-15);
        assert!(predicted_overlap(2.0, 1.0, 0.25).abs() < 1e-15);
        let x = [0.0, 1.0, 2.0];
        assert!((slope(&x, &[1.0, 3.0, 5.0]).unwrap() - 2.0).abs() < 1e-12);
        assert!(slope(&[1.0, 1.0], &[0.0, 1.0]).is_none());
    }

    #[test]
    fn stderr_of_constant_values_is_zero() {
        let (mean, se) = mean_and_stderr(&[0.25, 0.25, 0.25]);
        assert!((mean - 0.25).abs() < 1e-15 && se.abs() < 1e-15);
    }

    #[test]
    fn default_config_is_valid_and_in_budget() {
        let c = MultiIndexConfig::default();
        assert!(c.validate().is_ok());
        let s = c.strengths(256);
        assert!((s[1] - 0.5).abs() < 1e-12 && (s[2] - 0.25).abs() < 1e-12);
    }
}
