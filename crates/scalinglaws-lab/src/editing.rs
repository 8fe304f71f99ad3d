//! Norm feedback in sequential locate-and-edit (L&E) model editing, in the cleanest linear
//! model that has it: one edited linear layer, a stream of rank-one ROME-style edits whose
//! target values are solved through the *current* layer, and Norm-Anchor Scaling (NAS), which
//! rescales each solved value to the original layer's norm. The simulator writes the weight
//! norm, the value norm and the retention of earlier edits per edit, for both variants, so the
//! seed paper's claims (roughly exponential norm growth without NAS, a longer editing horizon
//! with it) become rows the engine can fit (`exp_growth` on `weight_norm` against `edit`).
//!
//! # The setting
//!
//! A linear layer W ∈ R^{m×n} (the edited MLP projection) starts at W_0 with independent
//! N(0, 1/n) entries. Edit t = 1..T brings a key k_t ~ N(0, I_n) and a fresh direction u_t,
//! uniform on the unit sphere of R^m. Each edit has two steps.
//!
//! 1. **Solve the value vector** through the current layer: with o_t = W_{t−1} k_t,
//!    v_t = o_t + α·‖o_t‖·u_t. To overwrite an association whose current output has norm ‖o_t‖,
//!    the desired change must be comparable to ‖o_t‖ (α, the *feedback strength*, is its ratio),
//!    as when ROME / MEMIT optimise the value from the current hidden state: a larger layer
//!    gives a larger solved value. With NAS, v_t is rescaled to the original model's reference
//!    norm before the update: v_t ← v_t·‖W_0 k_t‖/‖v_t‖.
//! 2. **Rank-one least-squares update** (ROME): W_t = W_{t−1} + (v_t − W_{t−1}k_t)(C⁻¹k_t)ᵀ /
//!    (k_tᵀC⁻¹k_t). It is the smallest change in the metric ‖ΔW C^{1/2}‖_F that makes
//!    W_t k_t = v_t: minimising tr(ΔW C ΔWᵀ) subject to ΔW k = r (r = v − Wk) gives
//!    ΔW C = λkᵀ, i.e. ΔW = λ(C⁻¹k)ᵀ, and the constraint fixes λ = r/(kᵀC⁻¹k). It leaves
//!    W x unchanged for every x with kᵀC⁻¹x = 0 ([`rank_one_edit`] takes any C⁻¹k).
//!
//! **Where the feedback comes from.** With C = I, ‖W_t‖²_F = ‖W_{t−1}‖²_F + 2α‖o‖·uᵀo/‖k‖² +
//! α²‖o‖²/‖k‖². The middle term has mean 0 (u is symmetric) and k/‖k‖ is uniform on the
//! sphere, so E[‖o‖²/‖k‖²] = ‖W_{t−1}‖²_F/n and, exactly,
//! E‖W_t‖²_F = (1 + α²/n)^t·E‖W_0‖²_F = (1 + α²/n)^t·m: the solved values scale with the
//! weights and the weights grow by the values, an exponential loop with rate ½·ln(1 + α²/n)
//! per edit for the norm. Under NAS the new row of the update replaces W's action on k by a
//! value of the original norm: ‖W_t‖²_F = ‖W_{t−1}‖²_F + (‖W_0k‖² − ‖o‖²)/‖k‖², which pulls
//! ‖W‖_F back to ‖W_0‖_F: the loop is broken.
//!
//! **Why edits are forgotten.** Edit i moves the output at an older key k_j by
//! (v_i − W k_i)·k_iᵀk_j/‖k_i‖², an interference of size ≈ ‖v_i − W k_i‖/√n. Edit j is
//! *retained* at time t while ‖W_t k_j − v_j‖/‖v_j‖ < tolerance. Without NAS the residuals of
//! later edits grow exponentially while ‖v_j‖ stays fixed, so old edits drown; with NAS the
//! interference only accumulates diffusively (the capacity limit of a linear associative
//! memory, about tolerance²·n edits). Retention at edit t is the fraction of edits j < t
//! retained by W_t (1 at t = 1); the *editing horizon* is the first edit at which the mean
//! retention over seeds falls below the threshold. The drift column is the mean relative
//! change ‖W_t x − W_0 x‖/‖W_0 x‖ at random probe keys that were never edited: the general
//! capability that collapses.
//!
//! **Simplifications.** One linear layer instead of a transformer: keys do not pass through
//! edited layers (in MEMIT they do, which only strengthens the loop), and the value is a
//! closed-form target instead of a gradient-descent solve. Keys are isotropic, C = I: with
//! keys ~ N(0, C) and ROME's C⁻¹ update, the whitening W̃ = W C^{1/2}, k̃ = C^{−1/2}k maps
//! the run exactly onto C = I (W k = W̃ k̃, and the update is the minimum-norm one in W̃), so
//! retention is unchanged and ‖W‖_F becomes ‖W̃‖_F.
//!
//! # Measured
//!
//! At the defaults ([`EditingConfig::default`]: m = 64, n = 256, T = 300, α = 3, tolerance
//! 0.5, threshold 0.9, drift limit 1, 24 seeds, seed 0; 0.6 s on 2 cores) the fitted growth
//! rate of ln ‖W‖_F is 0.01733 per edit without NAS (theory ½·ln(1 + 9/256) = 0.01728;
//! ‖W_T‖/‖W_0‖ ≈ 180) and −2·10⁻⁶ with NAS (‖W_T‖/‖W_0‖ = 1.000). The retention horizon is
//! 39 edits without NAS and 51 with it (ratio 1.3 only: NAS's own horizon is the linear
//! memory's capacity, ≈ tolerance²·n/2 edits); the capability horizon (drift > 1) is 20 vs 252
//! (12.6×). The retention ratio grows with α and the tolerance: tolerance 1 gives 74 vs 256
//! (3.5×) at α = 3, 39 vs 220 (5.6×) at α = 5 and 20 vs 204 (10×) at α = 8, so the paper's
//! "more than 4×" is reproduced when the feedback is strong relative to the key dimension.
//!
//! # Determinism
//!
//! Seed s draws from `Rng::stream(seed, s)` (W_0, then per edit k_t and u_t; probe keys from a
//! stream of their own), the same numbers for both variants (common random numbers); (variant, seed) runs go in parallel,
//! are collected in order and averaged in seed order, so output is bit-identical for any thread
//! count.
//!
//! Seed paper: the norm-feedback paper ("Sequential Locate-and-Edit (L&E) model editing can
//! fail abruptly after many edits. We identify and formalize this failure as a positive
//! norm-feedback loop, in which solved value vectors and edited MLP weights progressively
//! amplify each other ... We propose Norm-Anchor Scaling (NAS) ... NAS extends the usable
//! editing horizon by more than 4×"). Meng, Bau, Andonian & Belinkov (2022), "Locating and
//! editing factual associations in GPT" (ROME, NeurIPS); Meng, Sharma, Andonian, Belinkov &
//! Bau (2023), "Mass-editing memory in a transformer" (MEMIT, ICLR).

use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;
use scalinglaws::rng::Rng;

use crate::error::{LabError, Result};
use crate::progress::{silent, Counter, Progress};

/// Largest m or n of the layer.
pub const MAX_WIDTH: usize = 4096;
/// Most edits in one run.
pub const MAX_EDITS: usize = 100_000;
/// Most seeds.
pub const MAX_SEEDS: usize = 100_000;
/// Most probe keys per seed.
pub const MAX_PROBES: usize = 1024;
/// Most work units per call, summed over both variants and all seeds: per edit, (m + n)
/// for the update plus (m + n) per earlier edit and per probe (the retention and drift
/// bookkeeping). About 1–2 ns each, so ≤ ~60 s on 2 cores.
pub const MAX_WORK: f64 = 3e10;
/// Most values the traces of one call hold (five per edit, per variant and seed): 200 MB.
pub const MAX_STORED: f64 = 2.5e7;
/// Largest expected growth of ln ‖W‖_F without NAS, T·½·ln(1 + α²/n): keeps norms far from
/// overflow (e^300 ≈ 1e130).
pub const MAX_LOG_GROWTH: f64 = 300.0;
/// Largest feedback strength α.
pub const MAX_FEEDBACK: f64 = 1e3;

/// Mixed into the seed for the probe keys' stream, so probes never share draws with edits.
const PROBE_STREAM: u64 = 0x5eed_0f9e_0be5;

/// With or without Norm-Anchor Scaling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Values solved through the current layer and used as they are.
    Standard,
    /// Values rescaled to the original layer's norm ‖W_0 k‖ before the update.
    Nas,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::Standard, Variant::Nas];

    /// The name written in rows.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Standard => "standard",
            Variant::Nas => "nas",
        }
    }
}

/// One run: the layer, the edit stream, the value solve and what counts as retained.
#[derive(Debug, Clone, PartialEq)]
pub struct EditingConfig {
    /// m, the layer's output dimension (the value's).
    pub rows: usize,
    /// n, the layer's input dimension (the key's).
    pub cols: usize,
    /// T, edits in sequence.
    pub edits: usize,
    /// Independent runs averaged per row (at least 2, for the standard errors).
    pub seeds: usize,
    /// α: the solved value's change is α times the current output's norm.
    pub feedback: f64,
    /// An edit is retained while its relative error is below this.
    pub tolerance: f64,
    /// The horizon is the first edit whose mean retention is below this.
    pub threshold: f64,
    /// Never-edited probe keys per seed, for the drift column.
    pub probes: usize,
    /// The capability horizon is the first edit whose mean drift exceeds this.
    pub drift_limit: f64,
    /// The run's seed.
    pub seed: u64,
}

impl Default for EditingConfig {
    /// m = 64, n = 256, 300 edits, α = 3, tolerance 0.5, threshold 0.9, 16 probes, 24 seeds,
    /// seed 0: about a second on 2 cores (release build).
    fn default() -> Self {
        EditingConfig {
            rows: 64,
            cols: 256,
            edits: 300,
            seeds: 24,
            feedback: 3.0,
            tolerance: 0.5,
            threshold: 0.9,
            probes: 16,
            drift_limit: 1.0,
            seed: 0,
        }
    }
}

fn out_of_range(key: &'static str, value: impl std::fmt::Display, range: &str) -> LabError {
    LabError::setting(key, format!("{value} is out of range; give {range}"))
}

impl EditingConfig {
    /// Refuses settings out of range or beyond the caps, naming the setting.
    pub fn validate(&self) -> Result<()> {
        if self.rows == 0 || self.rows > MAX_WIDTH {
            return Err(out_of_range(
                "rows",
                self.rows,
                &format!("1 to {MAX_WIDTH}"),
            ));
        }
        if self.cols < 2 || self.cols > MAX_WIDTH {
            return Err(out_of_range(
                "cols",
                self.cols,
                &format!("2 to {MAX_WIDTH}"),
            ));
        }
        if self.edits < 2 || self.edits > MAX_EDITS {
            return Err(out_of_range(
                "edits",
                self.edits,
                &format!("2 to {MAX_EDITS}"),
            ));
        }
        if self.seeds < 2 || self.seeds > MAX_SEEDS {
            return Err(out_of_range(
                "seeds",
                self.seeds,
                &format!("2 to {MAX_SEEDS}"),
            ));
        }
        if self.probes > MAX_PROBES {
            return Err(out_of_range(
                "probes",
                self.probes,
                &format!("0 to {MAX_PROBES}"),
            ));
        }
        if !(self.drift_limit.is_finite() && self.drift_limit > 0.0) {
            return Err(out_of_range(
                "drift_limit",
                self.drift_limit,
                "a finite value above 0",
            ));
        }
        let alpha = self.feedback;
        if !(alpha.is_finite() && alpha > 0.0 && alpha <= MAX_FEEDBACK) {
            return Err(out_of_range(
                "feedback",
                alpha,
                &format!("a value in (0, {MAX_FEEDBACK}]"),
            ));
        }
        if !(self.tolerance.is_finite() && self.tolerance > 0.0) {
            return Err(out_of_range(
                "tolerance",
                self.tolerance,
                "a finite value above 0",
            ));
        }
        if !(self.threshold.is_finite() && self.threshold > 0.0 && self.threshold <= 1.0) {
            return Err(out_of_range(
                "threshold",
                self.threshold,
                "a value in (0, 1]",
            ));
        }
        self.validate_caps()
    }

    /// The growth cap (norms far from overflow) and the work cap.
    fn validate_caps(&self) -> Result<()> {
        let alpha = self.feedback;
        let growth = self.edits as f64 * theory_growth_rate(alpha, self.cols);
        if growth > MAX_LOG_GROWTH {
            return Err(LabError::setting(
                "edits",
                format!(
                    "{} edits at feedback {alpha} would grow ln ‖W‖ by about {growth:.0}, more \
                     than {MAX_LOG_GROWTH}; use fewer edits, a smaller feedback or more cols",
                    self.edits
                ),
            ));
        }
        let work = self.work();
        if work > MAX_WORK {
            return Err(LabError::setting(
                "seeds",
                format!(
                    "about {work:.2e} work units, more than {MAX_WORK:.0e}; use fewer seeds, \
                     edits, probes or a smaller layer"
                ),
            ));
        }
        let stored = 10.0 * self.seeds as f64 * self.edits as f64;
        if stored > MAX_STORED {
            return Err(LabError::setting(
                "seeds",
                format!(
                    "seeds × edits × 10 = {stored:.2e} values held, more than {MAX_STORED:.1e}; \
                     use fewer seeds or edits"
                ),
            ));
        }
        Ok(())
    }

    fn work(&self) -> f64 {
        let (t, width) = (self.edits as f64, (self.rows + self.cols) as f64);
        let layer = (self.rows * self.cols) as f64;
        // Each edit also makes about six passes over the m×n layer (outputs, the residual, the
        // rank-one update, the norm), and each seed draws the layer (~20 per normal) and probes.
        let per_seed = width * t * (1.0 + t / 2.0 + self.probes as f64)
            + layer * (20.0 + 6.0 * t + self.probes as f64);
        2.0 * per_seed * self.seeds as f64
    }
}

/// The expected growth rate of ln ‖W‖_F per edit without NAS: ½·ln(1 + α²/n) (exact for
/// ln √E‖W‖²_F; see the module documentation).
pub fn theory_growth_rate(feedback: f64, cols: usize) -> f64 {
    0.5 * (feedback * feedback / cols as f64).ln_1p()
}

/// The rank-one least-squares (ROME) edit: W ← W + (v − W k)(C⁻¹k)ᵀ / (kᵀC⁻¹k), after which
/// W k = v; W x is unchanged for every x with (C⁻¹k)ᵀx = 0. `c_inv_key` is C⁻¹k (the key
/// itself for C = I). Refuses mismatched sizes and a non-positive or non-finite kᵀC⁻¹k.
pub fn rank_one_edit(
    w: &mut DMatrix<f64>,
    key: &DVector<f64>,
    c_inv_key: &DVector<f64>,
    value: &DVector<f64>,
) -> Result<()> {
    if key.len() != w.ncols() || c_inv_key.len() != w.ncols() {
        return Err(LabError::setting(
            "key",
            format!(
                "length {} does not match the layer's {} columns",
                key.len(),
                w.ncols()
            ),
        ));
    }
    if value.len() != w.nrows() {
        return Err(LabError::setting(
            "value",
            format!(
                "length {} does not match the layer's {} rows",
                value.len(),
                w.nrows()
            ),
        ));
    }
    let denominator = key.dot(c_inv_key);
    if !(denominator.is_finite() && denominator > 0.0) {
        return Err(LabError::setting(
            "key",
            format!("kᵀC⁻¹k = {denominator}; give a non-zero key and a positive-definite C"),
        ));
    }
    let residual = value - &*w * key;
    w.ger(1.0 / denominator, &residual, c_inv_key, 1.0);
    Ok(())
}

/// The solved value: v = o + α‖o‖u, rescaled to norm `anchor` when NAS gives one.
pub fn solve_value(
    output: &DVector<f64>,
    direction: &DVector<f64>,
    feedback: f64,
    anchor: Option<f64>,
) -> DVector<f64> {
    let value = output + direction * (feedback * output.norm());
    match anchor {
        Some(reference) if value.norm() > 0.0 => &value * (reference / value.norm()),
        _ => value,
    }
}

/// One (variant, edit) averaged over seeds.
#[derive(Debug, Clone, PartialEq)]
pub struct EditingRow {
    pub variant: Variant,
    /// t = 1..T.
    pub edit: usize,
    pub seeds: usize,
    /// Mean over seeds of ‖W_t‖_F.
    pub weight_norm: f64,
    /// Mean over seeds of ln ‖W_t‖_F.
    pub log_weight_norm: f64,
    /// Mean over seeds of ‖v_t‖.
    pub value_norm: f64,
    /// Mean over seeds of the fraction of edits j < t retained by W_t.
    pub retention: f64,
    /// The retention's standard error over seeds.
    pub retention_stderr: f64,
    /// Mean over seeds and edits j < t of ‖W_t k_j − v_j‖/‖v_j‖ (0 at t = 1).
    pub relative_error: f64,
    /// Mean over seeds and probes of ‖W_t x − W_0 x‖/‖W_0 x‖ (0 without probes).
    pub drift: f64,
}

impl EditingRow {
    /// The dataset's header line (no newline).
    pub fn csv_header() -> &'static str {
        "variant,edit,seeds,weight_norm,log_weight_norm,value_norm,retention,retention_stderr,\
         relative_error,drift"
    }

    /// This row as a CSV line matching [`EditingRow::csv_header`] (no newline).
    pub fn csv_line(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{}",
            self.variant.name(),
            self.edit,
            self.seeds,
            self.weight_norm,
            self.log_weight_norm,
            self.value_norm,
            self.retention,
            self.retention_stderr,
            self.relative_error,
            self.drift
        )
    }
}

/// One variant's summary.
#[derive(Debug, Clone, PartialEq)]
pub struct VariantSummary {
    pub variant: Variant,
    /// First edit whose mean retention is below the threshold; `None` if none within T.
    pub horizon: Option<usize>,
    /// First edit whose mean drift exceeds the drift limit; `None` if none within T (or
    /// without probes).
    pub capability_horizon: Option<usize>,
    /// Least-squares slope of the seed-mean ln ‖W_t‖_F against t = 0..T.
    pub growth_rate: f64,
    /// Mean ‖W_T‖_F / ‖W_0‖_F over seeds.
    pub final_norm_ratio: f64,
}

/// Everything one run returns.
#[derive(Debug, Clone, PartialEq)]
pub struct EditingResult {
    /// Standard rows for t = 1..T, then NAS rows.
    pub rows: Vec<EditingRow>,
    /// Standard, then NAS.
    pub summaries: Vec<VariantSummary>,
    /// Mean ‖W_0‖_F over seeds (≈ √m).
    pub initial_weight_norm: f64,
    /// ½·ln(1 + α²/n), the expected growth rate without NAS.
    pub theory_growth_rate: f64,
}

impl EditingResult {
    /// The summary of `variant`.
    pub fn summary(&self, variant: Variant) -> Option<&VariantSummary> {
        self.summaries.iter().find(|s| s.variant == variant)
    }

    /// NAS's horizon over the standard one, counting a horizon not reached as T + 1 (so
    /// a lower bound then); `None` if the standard run never falls below the threshold.
    pub fn horizon_ratio(&self, edits: usize) -> Option<f64> {
        let standard = self.summary(Variant::Standard)?.horizon?;
        let nas = self.summary(Variant::Nas)?.horizon.unwrap_or(edits + 1);
        Some(nas as f64 / standard as f64)
    }
}

/// The whole dataset as CSV (header and one line per row, each ending in a newline).
pub fn editing_csv(rows: &[EditingRow]) -> String {
    let mut out = format!("{}\n", EditingRow::csv_header());
    for row in rows {
        out.push_str(&row.csv_line());
        out.push('\n');
    }
    out
}

/// Runs both variants over all seeds. Refuses settings out of range (see
/// [`EditingConfig::validate`]). Bit-identical at any thread count.
pub fn editing(config: &EditingConfig) -> Result<EditingResult> {
    editing_with_progress(config, &silent)
}

/// [`editing`], telling `progress` the (variant, seed) runs finished out of 2 × seeds.
pub fn editing_with_progress(
    config: &EditingConfig,
    progress: Progress<'_>,
) -> Result<EditingResult> {
    config.validate()?;
    let tasks: Vec<(Variant, usize)> = Variant::ALL
        .iter()
        .flat_map(|&v| (0..config.seeds).map(move |s| (v, s)))
        .collect();
    let counter = Counter::new(progress, tasks.len());
    let traces = tasks
        .into_par_iter()
        .map(|(variant, s)| {
            let trace = run_seed(config, variant, s);
            counter.add(1);
            trace
        })
        .collect::<Result<Vec<_>>>()?;
    counter.finish();
    let (standard, nas) = traces.split_at(config.seeds);
    let mut rows = Vec::with_capacity(2 * config.edits);
    let mut summaries = Vec::with_capacity(2);
    for (variant, group) in [(Variant::Standard, standard), (Variant::Nas, nas)] {
        let variant_rows = aggregate(config, variant, group);
        summaries.push(summarise(config, variant, group, &variant_rows));
        rows.extend(variant_rows);
    }
    let initial = mean(standard.iter().map(|t| t.weight_norm[0]));
    Ok(EditingResult {
        rows,
        summaries,
        initial_weight_norm: initial,
        theory_growth_rate: theory_growth_rate(config.feedback, config.cols),
    })
}

/// One seed's run: per-edit measurements (index t − 1 for edit t; `weight_norm` from t = 0).
#[derive(Debug, Clone)]
struct Trace {
    weight_norm: Vec<f64>,
    value_norm: Vec<f64>,
    retention: Vec<f64>,
    relative_error: Vec<f64>,
    drift: Vec<f64>,
}

fn normal_vector(rng: &mut Rng, len: usize) -> DVector<f64> {
    DVector::from_iterator(len, (0..len).map(|_| rng.normal()))
}

/// Runs one seed. Residuals of earlier edits and probe outputs are kept up to date by the
/// rank-one updates themselves (r_j += Δ·(k̃ᵀk_j)), O((m + n)·t) per edit instead of m·n·t.
fn run_seed(config: &EditingConfig, variant: Variant, seed_index: usize) -> Result<Trace> {
    let (m, n, t_max) = (config.rows, config.cols, config.edits);
    let mut rng = Rng::stream(config.seed, seed_index as u64);
    let scale = 1.0 / (n as f64).sqrt();
    let mut w = DMatrix::from_fn(m, n, |_, _| rng.normal() * scale);
    let mut edits: Vec<(DVector<f64>, DVector<f64>, f64)> = Vec::with_capacity(t_max);
    let probe_keys: Vec<DVector<f64>> = {
        let mut probe_rng = Rng::stream(config.seed ^ PROBE_STREAM, seed_index as u64);
        (0..config.probes)
            .map(|_| normal_vector(&mut probe_rng, n))
            .collect()
    };
    let probe_base: Vec<DVector<f64>> = probe_keys.iter().map(|x| &w * x).collect();
    let mut probe_now = probe_base.clone();
    let mut trace = Trace {
        weight_norm: vec![w.norm()],
        value_norm: Vec::with_capacity(t_max),
        retention: Vec::with_capacity(t_max),
        relative_error: Vec::with_capacity(t_max),
        drift: Vec::with_capacity(t_max),
    };
    let w0 = w.clone();
    for _ in 0..t_max {
        let key = normal_vector(&mut rng, n);
        let mut direction = normal_vector(&mut rng, m);
        direction /= direction.norm().max(f64::MIN_POSITIVE);
        let output = &w * &key;
        let anchor = (variant == Variant::Nas).then(|| (&w0 * &key).norm());
        let value = solve_value(&output, &direction, config.feedback, anchor);
        let change = (&value - &output) / key.norm_squared();
        rank_one_edit(&mut w, &key, &key, &value)?;
        for (old_key, residual, _) in edits.iter_mut() {
            residual.axpy(key.dot(old_key), &change, 1.0);
        }
        for (x, y) in probe_keys.iter().zip(probe_now.iter_mut()) {
            y.axpy(key.dot(x), &change, 1.0);
        }
        trace.value_norm.push(value.norm());
        record(
            config,
            &mut trace,
            &edits,
            &probe_base,
            &probe_now,
            w.norm(),
        );
        let residual = &w * &key - &value;
        let value_norm = value.norm();
        edits.push((key, residual, value_norm));
    }
    Ok(trace)
}

/// Appends retention, relative error, drift and the weight norm after one edit.
fn record(
    config: &EditingConfig,
    trace: &mut Trace,
    edits: &[(DVector<f64>, DVector<f64>, f64)],
    probe_base: &[DVector<f64>],
    probe_now: &[DVector<f64>],
    weight_norm: f64,
) {
    let errors: Vec<f64> = edits
        .iter()
        .map(|(_, residual, norm)| residual.norm() / norm.max(f64::MIN_POSITIVE))
        .collect();
    let (retention, relative_error) = if errors.is_empty() {
        (1.0, 0.0)
    } else {
        let kept = errors.iter().filter(|&&e| e < config.tolerance).count();
        (
            kept as f64 / errors.len() as f64,
            mean(errors.iter().copied()),
        )
    };
    let drift = if probe_base.is_empty() {
        0.0
    } else {
        mean(
            probe_base
                .iter()
                .zip(probe_now)
                .map(|(base, now)| (now - base).norm() / base.norm().max(f64::MIN_POSITIVE)),
        )
    };
    trace.retention.push(retention);
    trace.relative_error.push(relative_error);
    trace.drift.push(drift);
    trace.weight_norm.push(weight_norm);
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, count) = values.fold((0.0, 0usize), |(s, c), v| (s + v, c + 1));
    if count == 0 {
        0.0
    } else {
        sum / count as f64
    }
}

/// Mean and standard error of the mean (0 for fewer than 2 values).
fn mean_stderr(values: &[f64]) -> (f64, f64) {
    let mu = mean(values.iter().copied());
    if values.len() < 2 {
        return (mu, 0.0);
    }
    let var = values.iter().map(|v| (v - mu).powi(2)).sum::<f64>() / (values.len() - 1) as f64;
    (mu, (var / values.len() as f64).sqrt())
}

/// Seed-averaged rows for edits 1..T, in seed order.
fn aggregate(config: &EditingConfig, variant: Variant, traces: &[Trace]) -> Vec<EditingRow> {
    (0..config.edits)
        .map(|i| {
            let retention: Vec<f64> = traces.iter().map(|t| t.retention[i]).collect();
            let (retention, retention_stderr) = mean_stderr(&retention);
            EditingRow {
                variant,
                edit: i + 1,
                seeds: traces.len(),
                weight_norm: mean(traces.iter().map(|t| t.weight_norm[i + 1])),
                log_weight_norm: mean(traces.iter().map(|t| t.weight_norm[i + 1].ln())),
                value_norm: mean(traces.iter().map(|t| t.value_norm[i])),
                retention,
                retention_stderr,
                relative_error: mean(traces.iter().map(|t| t.relative_error[i])),
                drift: mean(traces.iter().map(|t| t.drift[i])),
            }
        })
        .collect()
}

/// The horizon, the fitted growth rate of ln ‖W‖_F and the final norm ratio.
fn summarise(
    config: &EditingConfig,
    variant: Variant,
    traces: &[Trace],
    rows: &[EditingRow],
) -> VariantSummary {
    let horizon = rows
        .iter()
        .find(|r| r.retention < config.threshold)
        .map(|r| r.edit);
    let capability_horizon = rows
        .iter()
        .find(|r| r.drift > config.drift_limit)
        .map(|r| r.edit);
    let log_norms: Vec<f64> = (0..=config.edits)
        .map(|t| mean(traces.iter().map(|tr| tr.weight_norm[t].ln())))
        .collect();
    let final_norm_ratio = mean(
        traces
            .iter()
            .map(|tr| tr.weight_norm[config.edits] / tr.weight_norm[0]),
    );
    VariantSummary {
        variant,
        horizon,
        capability_horizon,
        growth_rate: least_squares_slope(&log_norms),
        final_norm_ratio,
    }
}

/// The least-squares slope of y_t against t = 0..len − 1 (0 for fewer than 2 points).
pub fn least_squares_slope(y: &[f64]) -> f64 {
    if y.len() < 2 {
        return 0.0;
    }
    let t_mean = (y.len() - 1) as f64 / 2.0;
    let y_mean = mean(y.iter().copied());
    let (mut num, mut den) = (0.0, 0.0);
    for (t, v) in y.iter().enumerate() {
        let dt = t as f64 - t_mean;
        num += dt * (v - y_mean);
        den += dt * dt;
    }
    num / den
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slope_of_a_line_is_its_slope() {
        let y: Vec<f64> = (0..10).map(|t| 2.0 - 0.25 * t as f64).collect();
        assert!((least_squares_slope(&y) + 0.25).abs() < 1e-12);
        assert!(least_squares_slope(&[1.0]).abs() < 1e-300);
    }

    #[test]
    fn nas_value_has_the_anchor_norm_and_standard_has_the_feedback_norm() {
        let output = DVector::from_vec(vec![3.0, 4.0, 0.0]);
        let direction = DVector::from_vec(vec![0.0, 0.0, 1.0]);
        let standard = solve_value(&output, &direction, 2.0, None);
        // ‖o + 2·5·u‖ = √(25 + 100).
        assert!((standard.norm() - 125f64.sqrt()).abs() < 1e-12);
        let nas = solve_value(&output, &direction, 2.0, Some(0.5));
        assert!((nas.norm() - 0.5).abs() < 1e-12);
    }

    #[test]
    fn edit_refuses_mismatched_and_zero_keys() {
        let mut w = DMatrix::<f64>::zeros(2, 3);
        let zero = DVector::<f64>::zeros(3);
        let value = DVector::<f64>::zeros(2);
        let err = rank_one_edit(&mut w, &zero, &zero, &value).unwrap_err();
        assert!(matches!(err, LabError::Setting { key: "key", .. }));
        let short = DVector::<f64>::zeros(2);
        let err = rank_one_edit(&mut w, &short, &short, &value).unwrap_err();
        assert!(matches!(err, LabError::Setting { key: "key", .. }));
        let key = DVector::from_vec(vec![1.0, 0.0, 0.0]);
        let err = rank_one_edit(&mut w, &key, &key, &zero).unwrap_err();
        assert!(matches!(err, LabError::Setting { key: "value", .. }));
    }

    /// The incremental residual bookkeeping against W_t k_j − v_j computed directly, with the
    /// same draws as `run_seed`.
    #[test]
    fn incremental_retention_matches_direct_computation() {
        let config = EditingConfig {
            rows: 6,
            cols: 9,
            edits: 25,
            feedback: 2.0,
            probes: 0,
            ..EditingConfig::default()
        };
        for variant in Variant::ALL {
            let trace = run_seed(&config, variant, 3).unwrap();
            let (m, n) = (config.rows, config.cols);
            let mut rng = Rng::stream(config.seed, 3);
            let scale = 1.0 / (n as f64).sqrt();
            let mut w = DMatrix::from_fn(m, n, |_, _| rng.normal() * scale);
            let w0 = w.clone();
            let mut done: Vec<(DVector<f64>, DVector<f64>)> = Vec::new();
            for t in 0..config.edits {
                let key = normal_vector(&mut rng, n);
                let mut direction = normal_vector(&mut rng, m);
                direction /= direction.norm();
                let anchor = (variant == Variant::Nas).then(|| (&w0 * &key).norm());
                let value = solve_value(&(&w * &key), &direction, config.feedback, anchor);
                rank_one_edit(&mut w, &key, &key, &value).unwrap();
                let errors: Vec<f64> = done
                    .iter()
                    .map(|(k, v)| (&w * k - v).norm() / v.norm())
                    .collect();
                let direct = mean(errors.iter().copied());
                let got = trace.relative_error[t];
                assert!(
                    (got - direct).abs() <= 1e-9 * direct.max(1.0),
                    "{t}: {got} vs {direct}"
                );
                assert!((trace.weight_norm[t + 1] - w.norm()).abs() <= 1e-12 * w.norm());
                done.push((key, value));
            }
        }
    }

    #[test]
    fn default_is_valid_and_work_is_bounded() {
        let config = EditingConfig::default();
        config.validate().unwrap();
        assert!(config.work() < MAX_WORK / 10.0);
    }
}
