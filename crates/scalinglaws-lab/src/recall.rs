//! Associative recall (AR) through a linear hash into a fixed-size state: the setting of the
//! Mamba recall seed paper ("Mamba performs recall by implicitly learning linear hash functions
//! ... inspired by ... the Johnson–Lindenstrauss (JL) lemma, we develop a theoretical framework
//! for analyzing AR, which we term recall scaling laws ... given a model's state, context length,
//! and embedding dimensions, our theory predicts a lower bound on the largest vocabulary size
//! that can be perfectly recalled"). This module simulates that capacity exactly by seeded Monte
//! Carlo and computes a rigorous JL-style lower bound on it, so the claim "the bound is tight and
//! predictive" becomes a ratio the engine can fit across state sizes.
//!
//! # The setting
//!
//! - **Vocabulary.** V keys with random sign embeddings x_i ∈ {±1/√e}^e (unit norm, e the
//!   embedding dimension), drawn independently.
//! - **Linear hash.** P ∈ R^(d×e) with independent N(0, 1/d) entries; h(x) = P·x ∈ R^d, d the
//!   state size.
//! - **State and readout.** One channel of a selective state-space layer with no decay (Mamba's
//!   S6 with A = I, B_t = P·k_t, C_t = P·q_t): a context of L key–value pairs (k_j, v_j) with
//!   distinct keys and binary values v_j ∈ {±1} is stored as s = Σ_j h(k_j)·v_j ∈ R^d, and a query
//!   q = k_t reads y = ⟨h(q), s⟩ = ‖h(q)‖²·v_t + Σ_{j≠t} ⟨h(q), h(k_j)⟩·v_j; recall succeeds when
//!   sign(y) = v_t. (Values of several bits are several channels, each of this form.)
//! - **Perfect recall of a vocabulary.** Every key is recalled in every context of L distinct
//!   vocabulary keys under every value assignment. The worst context for query q holds the L − 1
//!   keys with the largest |⟨h(q), h(k)⟩| and signs that all oppose v_t, so perfect recall is
//!
//!   ```text
//!   for every key q:  ‖h(q)‖² > sum of the L − 1 largest |⟨h(q), h(k)⟩| over keys k ≠ q
//!   ```
//!
//!   (fewer terms when V < L). This is why the distractors are the **V − 1 vocabulary keys**, not
//!   the L − 1 keys of one sampled context: the abstract's quantity is the largest *vocabulary*
//!   that can be perfectly recalled, which is a guarantee over every context the vocabulary can
//!   form, while L sets how many interfering keys share the state.
//!
//! The condition is monotone in the vocabulary: adding a key only adds candidates to every top
//! list. So with keys drawn in sequence, one trial (one hash P, one key sequence) has an exact
//! capacity, the largest prefix V that is perfectly recalled, found by adding keys one at a time
//! until the first failure (exact, so no doubling or bisection is needed). Over `trials`
//! independent trials the Monte Carlo capacity at failure probability δ is the largest V that at
//! least a fraction 1 − δ of the trials recall perfectly (the ⌊δ·trials⌋-th smallest per-trial
//! capacity, 0-based); δ = 0 is the smallest.
//!
//! # The lower bound
//!
//! Fix a coherence slack μ ∈ [0, 1/(L − 1)). For unit x_q, x_k with c = ⟨x_q, x_k⟩, write
//! x_k = c·x_q + r with r ⟂ x_q, ‖r‖² = 1 − c². Then Px_q and Pr are independent Gaussian
//! vectors, so with g = √d·Px_q ~ N(0, I_d) and z ~ N(0, 1) independent of g,
//!
//! ```text
//! ⟨h(q), h(k)⟩ / ‖h(q)‖² = c + √(1 − c²)·T_qk/√d,   T_qk = z/√(‖g‖²/d) ~ Student t with d dof,
//! ```
//!
//! whatever c is. Recall is perfect when every |⟨h(q), h(k)⟩|/‖h(q)‖² < 1/(L − 1), which holds on
//! the events |c| ≤ μ for every pair and |T_qk| < s = √d·(1/(L − 1) − μ) for every ordered pair.
//! Hoeffding's inequality bounds the first per unordered pair by 2·exp(−e·μ²/2) (random signs),
//! the second is the exact two-sided t tail P(|T_d| ≥ s) = I_{d/(d+s²)}(d/2, 1/2). With
//! B(μ) = exp(−e·μ²/2) + P(|T_d| ≥ s), the union bound over ordered pairs gives
//!
//! ```text
//! P(recall of V keys is not perfect) ≤ V(V − 1)·B(μ),
//! ```
//!
//! and the bound V_lower(d, e, L, δ) is the largest V for which this is ≤ δ, maximised over a
//! grid of μ. The same inequality is solved **two ways**: in closed form (the positive root of
//! V² − V − δ/B = 0, floored) by [`jl_bound`], and numerically (doubling then bisection over
//! integers V, evaluating the inequality itself) by [`jl_bound_search`]; they agree to within
//! one key. As P(|T_d| ≥ s) ≈ (1 + s²/d)^(−d/2), the bound grows like
//! ln V_lower ≈ (d/4)·ln(1 + 1/(L − 1)²) for large e: an exponential recall scaling law in the
//! state size, with e entering through the coherence of random embeddings.
//!
//! This is the JL lemma (Johnson & Lindenstrauss 1984, "Extensions of Lipschitz mappings into a
//! Hilbert space", Contemporary Mathematics 26:189–206) specialised to the inner products recall
//! needs. Its textbook form, with Dasgupta & Gupta's constant (d ≥ 4·ln N/(ε²/2 − ε³/3) preserves
//! the squared distances of N points within 1 ± ε), bounds all inner products of unit vectors
//! within ε by polarisation over the V² vectors x_q and x_q ± x_k; recall then needs
//! 1 − ε > (L − 1)(μ + ε). [`dg_bound`] computes that classical bound too: it is valid but far
//! looser (ε must be below 1/L on every pair at once), which is why the rows' ratio uses the
//! direct bound.
//!
//! # Measured
//!
//! At [`RecallConfig::default`] (e = 1024, L = 2, 64 trials, δ = 0.1, seed 0; 3.5 s on 2 cores)
//! the Monte Carlo capacity against the bound is, for d = 8, 12, ..., 36: 2/2, 4/3, 12/6, 20/10,
//! 48/17, 94/29, 169/49, 375/81 (ratio 1.0 to 4.6, growing slowly with d); the classical
//! Dasgupta–Gupta bound is 1 throughout. Both grow exponentially in d, the bound with a somewhat
//! smaller rate, and the bound is below the capacity at every d. With L = 3 the bound is looser
//! (it replaces the sum of the two largest distractors by twice the largest).

use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use scalinglaws::rng::Rng;
use scalinglaws::stats::beta_reg;

use crate::error::{LabError, Result};
use crate::progress::{silent, Counter, Progress};

/// Largest state size d.
pub const MAX_STATE: usize = 4096;
/// Largest embedding dimension e.
pub const MAX_EMBEDDING: usize = 1 << 16;
/// Largest context length L.
pub const MAX_CONTEXT: usize = 1024;
/// Most trials per state size.
pub const MAX_TRIALS: usize = 100_000;
/// Largest vocabulary a trial grows to (a trial that recalls all of it is censored there).
pub const MAX_VOCAB: usize = 1 << 16;
/// Most stored hashed-key coordinates of one trial (vocabulary × d): 8 bytes each, ≤ 128 MB.
pub const MAX_TRIAL_STORE: f64 = (1u64 << 24) as f64;
/// Most multiply-adds of a whole run in the worst case (every trial grows to `max_vocab`):
/// trials × Σ_d (max_vocab·d·e + max_vocab²·d/2 + 20·d·e), a sanity limit checked before the
/// run. Trials stop at their first failure, so real runs are usually far below it (the
/// default's worst case is 2e11; it runs in about 3 s); what a run may actually do is
/// [`MAX_RUN_WORK`], metered.
pub const MAX_WORK: f64 = 3e11;
/// Most multiply-adds a run may actually do, metered as trials grow: 1e11, about 50 s on 2
/// cores at the measured 1e9 a core-second (2 trials of d = e = 4,096 grown to 500 keys:
/// 1.8e10 in 18.2 CPU-s). [`MAX_WORK`] bounds the worst case before the run, but a trial whose
/// capacity passes the vocabulary cap reaches that worst case (2 trials at d = e = 4,096 and
/// 4,096 keys: 2e11, over 100 s), so a run that meters past this stops and is refused.
pub const MAX_RUN_WORK: u64 = 100_000_000_000;
/// The bounds are capped here (2^52, where f64 still holds every integer).
pub const BOUND_CAP: f64 = 4_503_599_627_370_496.0;
/// Grid points of μ over which the bounds are maximised.
const GRID: usize = 1000;

/// One capacity run: state sizes, embedding dimension, context length and the Monte Carlo.
#[derive(Debug, Clone, PartialEq)]
pub struct RecallConfig {
    /// State sizes d, one row each, in the order given.
    pub state_sizes: Vec<usize>,
    /// Embedding dimension e.
    pub embedding: usize,
    /// Context length L (≥ 2: the query's pair and at least one distractor).
    pub context: usize,
    /// Independent trials (hash and key sequence) per state size.
    pub trials: usize,
    /// δ: the capacity is the vocabulary recalled perfectly in at least 1 − δ of the trials, and
    /// the bound holds with probability at least 1 − δ. In [0, 1).
    pub delta: f64,
    /// Largest vocabulary a trial grows to.
    pub max_vocab: usize,
    /// Trial k uses streams `Rng::stream(seed, 2k)` (the hash) and `2k + 1` (the keys), the
    /// same at every state size (common random numbers: P's first d rows are the hash at d).
    pub seed: u64,
}

impl Default for RecallConfig {
    /// e = 1024, L = 2, d = 8..36, 64 trials, δ = 0.1, vocabularies up to 4,096, seed 0.
    fn default() -> Self {
        RecallConfig {
            state_sizes: vec![8, 12, 16, 20, 24, 28, 32, 36],
            embedding: 1024,
            context: 2,
            trials: 64,
            delta: 0.1,
            max_vocab: 4096,
            seed: 0,
        }
    }
}

fn check_range(key: &'static str, value: usize, low: usize, high: usize) -> Result<()> {
    if value < low || value > high {
        return Err(LabError::setting(
            key,
            format!("{value} is out of range; give between {low} and {high}"),
        ));
    }
    Ok(())
}

impl RecallConfig {
    /// Checks every setting and the memory and work caps.
    pub fn validate(&self) -> Result<()> {
        if self.state_sizes.is_empty() || self.state_sizes.len() > 256 {
            return Err(LabError::setting(
                "state_sizes",
                format!(
                    "{} state sizes; give between 1 and 256",
                    self.state_sizes.len()
                ),
            ));
        }
        for &d in &self.state_sizes {
            check_range("state_sizes", d, 1, MAX_STATE)?;
        }
        check_range("embedding", self.embedding, 1, MAX_EMBEDDING)?;
        check_range("context", self.context, 2, MAX_CONTEXT)?;
        check_range("trials", self.trials, 1, MAX_TRIALS)?;
        check_range("max_vocab", self.max_vocab, 2, MAX_VOCAB)?;
        if !(self.delta.is_finite() && self.delta > 0.0 && self.delta < 1.0) {
            return Err(LabError::setting(
                "delta",
                format!("δ = {}; give a failure probability in (0, 1)", self.delta),
            ));
        }
        crate::error::refuse_repeats("state_sizes", "state size", &self.state_sizes)?;
        let vocab = self.max_vocab as f64;
        let largest = self.state_sizes.iter().copied().max().unwrap_or(1) as f64;
        if vocab * largest > MAX_TRIAL_STORE {
            return Err(LabError::setting(
                "max_vocab",
                format!(
                    "max_vocab × largest state size = {:.3e} exceeds {MAX_TRIAL_STORE:.3e}; \
                     use a smaller vocabulary cap or state",
                    vocab * largest
                ),
            ));
        }
        // Each trial draws the d×e hash (about 20 multiply-adds a normal) and holds it.
        let hash = largest * self.embedding as f64;
        if hash > MAX_TRIAL_STORE {
            return Err(LabError::setting(
                "embedding",
                format!(
                    "embedding × largest state size = {hash:.3e} exceeds {MAX_TRIAL_STORE:.3e} \
                     (the hash held by each trial); use a smaller embedding or state"
                ),
            ));
        }
        let per_d = |d: f64| {
            vocab * d * self.embedding as f64
                + vocab * vocab * d / 2.0
                + 20.0 * d * self.embedding as f64
        };
        let work = self.trials as f64
            * self
                .state_sizes
                .iter()
                .map(|&d| per_d(d as f64))
                .sum::<f64>();
        if work > MAX_WORK {
            return Err(LabError::setting(
                "trials",
                format!(
                    "worst-case work {work:.3e} multiply-adds exceeds {MAX_WORK:.0e}; use fewer \
                     trials or state sizes, a smaller embedding or vocabulary cap"
                ),
            ));
        }
        Ok(())
    }
}

/// One state size: the Monte Carlo capacity against the bounds.
#[derive(Debug, Clone, PartialEq)]
pub struct RecallRow {
    pub state_size: usize,
    pub embedding: usize,
    pub context: usize,
    pub trials: usize,
    pub delta: f64,
    /// Largest vocabulary recalled perfectly in at least 1 − δ of the trials.
    pub capacity_mc: usize,
    /// Median per-trial capacity.
    pub capacity_median: f64,
    /// Trials that recalled the whole `max_vocab` (their capacity is only known to be ≥ it).
    pub censored: usize,
    /// The direct JL-style lower bound ([`jl_bound`]).
    pub capacity_bound: f64,
    /// The classical Dasgupta–Gupta JL bound ([`dg_bound`]).
    pub capacity_dg: f64,
    /// capacity_mc / capacity_bound (infinite when the bound is below 1).
    pub ratio: f64,
}

impl RecallRow {
    pub fn csv_header() -> &'static str {
        "state_size,embedding,context,trials,delta,capacity_mc,capacity_median,censored,\
         capacity_bound,capacity_dg,ratio"
    }

    /// This row as a CSV line matching [`RecallRow::csv_header`] (no newline); numbers are
    /// written in Rust's shortest form that reads back to the same f64.
    pub fn csv_line(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{},{},{},{}",
            self.state_size,
            self.embedding,
            self.context,
            self.trials,
            self.delta,
            self.capacity_mc,
            self.capacity_median,
            self.censored,
            self.capacity_bound,
            self.capacity_dg,
            self.ratio
        )
    }
}

/// The Monte Carlo capacity and the bounds at every state size, rows in the order given.
/// Refuses settings out of range (naming the key); bit-identical for any thread count.
pub fn recall_capacity(config: &RecallConfig) -> Result<Vec<RecallRow>> {
    recall_capacity_with_progress(config, &silent)
}

/// [`recall_capacity`], telling `progress` the trials finished, each weighted by the work of a
/// trial that grows to the lower bound's vocabulary at its state size (a trial's own capacity is
/// not known before it runs; the bound is within a few times of it).
pub fn recall_capacity_with_progress(
    config: &RecallConfig,
    progress: Progress<'_>,
) -> Result<Vec<RecallRow>> {
    config.validate()?;
    let (e, l, delta) = (config.embedding, config.context, config.delta);
    let bounds = config
        .state_sizes
        .iter()
        .map(|&d| jl_bound(d, e, l, delta))
        .collect::<Result<Vec<f64>>>()?;
    let trial_work = |d: usize, bound: f64| {
        let v = bound.clamp(2.0, config.max_vocab as f64);
        let (d, e) = (d as f64, e as f64);
        (v * d * e + v * v * d / 2.0 + 20.0 * d * e) as usize
    };
    let total = config
        .state_sizes
        .iter()
        .zip(&bounds)
        .map(|(&d, &b)| trial_work(d, b) * config.trials)
        .sum();
    let counter = Counter::new(progress, total);
    let meter = AtomicU64::new(0);
    let mut rows = Vec::with_capacity(config.state_sizes.len());
    for (&d, &capacity_bound) in config.state_sizes.iter().zip(&bounds) {
        let capacities: Option<Vec<usize>> = (0..config.trials)
            .into_par_iter()
            .map(|k| {
                let trial = Trial {
                    d,
                    e,
                    l,
                    max_vocab: config.max_vocab,
                };
                let capacity = trial_capacity(&trial, config.seed, k as u64, &meter);
                counter.add(trial_work(d, capacity_bound));
                capacity
            })
            .collect();
        let Some(capacities) = capacities else {
            counter.finish();
            return Err(over_run_work(d));
        };
        rows.push(summarise(config, d, capacities, capacity_bound)?);
    }
    counter.finish();
    Ok(rows)
}

/// The row of state size `d` from its trials' capacities and its lower bound.
fn summarise(
    config: &RecallConfig,
    d: usize,
    mut capacities: Vec<usize>,
    capacity_bound: f64,
) -> Result<RecallRow> {
    let (e, l, delta) = (config.embedding, config.context, config.delta);
    capacities.sort_unstable();
    let index = ((delta * config.trials as f64).floor() as usize).min(config.trials - 1);
    let capacity_mc = capacities[index];
    let n = capacities.len();
    let capacity_median = if n % 2 == 1 {
        capacities[n / 2] as f64
    } else {
        (capacities[n / 2 - 1] + capacities[n / 2]) as f64 / 2.0
    };
    let ratio = if capacity_bound >= 1.0 {
        capacity_mc as f64 / capacity_bound
    } else {
        f64::INFINITY
    };
    Ok(RecallRow {
        state_size: d,
        embedding: e,
        context: l,
        trials: config.trials,
        delta,
        capacity_mc,
        capacity_median,
        censored: capacities
            .iter()
            .filter(|&&c| c >= config.max_vocab)
            .count(),
        capacity_bound,
        capacity_dg: dg_bound(d, e, l, delta)?,
        ratio,
    })
}

/// The refusal of a run that metered past [`MAX_RUN_WORK`] (deterministic: the trials' work
/// is, so whether their sum passes the cap does not depend on the threads).
fn over_run_work(d: usize) -> LabError {
    LabError::setting(
        "max_vocab",
        format!(
            "the trials grew past {MAX_RUN_WORK:.0e} multiply-adds (about a minute of work) by \
             state size {d}: their capacity reaches the vocabulary cap; use a smaller vocabulary \
             cap, fewer trials or state sizes, or a smaller embedding"
        ),
    )
}

/// One trial's sizes: state d, embedding e, context L, vocabulary cap.
struct Trial {
    d: usize,
    e: usize,
    l: usize,
    max_vocab: usize,
}

/// The exact capacity of one trial: keys are added one at a time until the first vocabulary
/// that is not perfectly recalled; returns the size before it (or `max_vocab`), or None when
/// the run's metered work passes [`MAX_RUN_WORK`].
fn trial_capacity(trial: &Trial, seed: u64, k: u64, meter: &AtomicU64) -> Option<usize> {
    let &Trial { d, e, l, max_vocab } = trial;
    let mut hash_rng = Rng::stream(seed, 2 * k);
    // Row-major, unscaled: the hash at d is the first d rows (scaled by 1/√(d·e) with the signs).
    let p: Vec<f64> = (0..d * e).map(|_| hash_rng.normal()).collect();
    let scale = 1.0 / ((d * e) as f64).sqrt();
    let mut key_rng = Rng::stream(seed, 2 * k + 1);
    let keep = l - 1;
    let mut hashes: Vec<f64> = Vec::with_capacity(max_vocab.min(1024) * d);
    let mut norms: Vec<f64> = Vec::new();
    let mut tops: Vec<Vec<f64>> = Vec::new();
    let mut signs = vec![0.0; e];
    let mut scores = Vec::new();
    for n in 0..max_vocab {
        let work = (d * e + n * d) as u64;
        if meter.fetch_add(work, Ordering::Relaxed) + work > MAX_RUN_WORK {
            return None;
        }
        for chunk in signs.chunks_mut(64) {
            let bits = key_rng.next_u64();
            for (i, s) in chunk.iter_mut().enumerate() {
                *s = if (bits >> i) & 1 == 1 { 1.0 } else { -1.0 };
            }
        }
        let h: Vec<f64> = p
            .chunks(e)
            .map(|row| scale * row.iter().zip(&signs).map(|(a, b)| a * b).sum::<f64>())
            .collect();
        scores.clear();
        scores.extend(hashes.chunks(d).map(|other| dot(&h, other).abs()));
        let mut top = Vec::with_capacity(keep + 1);
        let mut failed = false;
        for (j, &s) in scores.iter().enumerate() {
            push_top(&mut top, s, keep);
            if push_top(&mut tops[j], s, keep) && tops[j].iter().sum::<f64>() >= norms[j] {
                failed = true;
            }
        }
        let norm = dot(&h, &h);
        if failed || top.iter().sum::<f64>() >= norm {
            return Some(n);
        }
        hashes.extend_from_slice(&h);
        norms.push(norm);
        tops.push(top);
    }
    Some(max_vocab)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Keeps the `keep` largest values of `top` (sorted descending); true when `value` entered.
fn push_top(top: &mut Vec<f64>, value: f64, keep: usize) -> bool {
    if top.len() == keep && top.last().is_some_and(|&last| value <= last) {
        return false;
    }
    let at = top.iter().position(|&x| value > x).unwrap_or(top.len());
    top.insert(at, value);
    top.truncate(keep);
    true
}

fn check_bound_inputs(d: usize, e: usize, l: usize, delta: f64) -> Result<()> {
    check_range("state_sizes", d, 1, MAX_STATE)?;
    check_range("embedding", e, 1, MAX_EMBEDDING)?;
    check_range("context", l, 2, MAX_CONTEXT)?;
    if !delta.is_finite() || delta <= 0.0 || delta >= 1.0 {
        return Err(LabError::setting(
            "delta",
            format!("δ = {delta}; the bound needs a failure probability in (0, 1)"),
        ));
    }
    Ok(())
}

/// The per-ordered-pair failure probability B(μ) of the union bound (module doc), or None
/// where μ leaves no margin (μ ∉ [0, 1/(L − 1))).
pub fn pair_failure(d: usize, e: usize, l: usize, mu: f64) -> Option<f64> {
    let (df, ef) = (d as f64, e as f64);
    let margin = 1.0 / (l - 1) as f64 - mu;
    if !(mu >= 0.0 && margin > 0.0) {
        return None;
    }
    let s = df.sqrt() * margin;
    let t_tail = beta_reg(df / 2.0, 0.5, df / (df + s * s));
    let coherence = (-ef * mu * mu / 2.0).exp();
    let pair = coherence + t_tail;
    pair.is_finite().then_some(pair)
}

/// Largest V with V(V − 1)·B ≤ δ, in closed form (the positive root of V² − V − δ/B, floored).
fn largest_closed(pair: f64, delta: f64) -> f64 {
    if pair <= 0.0 {
        return BOUND_CAP;
    }
    let root = (1.0 + (1.0 + 4.0 * delta / pair).sqrt()) / 2.0;
    root.floor().clamp(1.0, BOUND_CAP)
}

/// Largest V with V(V − 1)·B ≤ δ, by doubling then bisection on the inequality itself.
fn largest_search(pair: f64, delta: f64) -> f64 {
    let ok = |v: f64| v * (v - 1.0) * pair <= delta;
    let mut low = 1.0;
    while low < BOUND_CAP && ok((2.0 * low).min(BOUND_CAP)) {
        low = (2.0 * low).min(BOUND_CAP);
    }
    if low >= BOUND_CAP {
        return BOUND_CAP;
    }
    let mut high = 2.0 * low; // fails
    while high - low > 1.0 {
        let mid = ((low + high) / 2.0).floor();
        if ok(mid) {
            low = mid;
        } else {
            high = mid;
        }
    }
    low
}

/// Maximises `largest` over the μ grid.
fn maximise(d: usize, e: usize, l: usize, delta: f64, largest: fn(f64, f64) -> f64) -> f64 {
    let mu_max = 1.0 / (l - 1) as f64;
    (0..GRID)
        .filter_map(|j| pair_failure(d, e, l, mu_max * j as f64 / GRID as f64))
        .map(|pair| largest(pair, delta))
        .fold(0.0, f64::max)
}

/// The JL-style lower bound V_lower(d, e, L, δ) (module doc), from the closed-form root.
pub fn jl_bound(d: usize, e: usize, l: usize, delta: f64) -> Result<f64> {
    check_bound_inputs(d, e, l, delta)?;
    Ok(maximise(d, e, l, delta, largest_closed))
}

/// The same bound as [`jl_bound`], solving the inequality numerically over integers V.
pub fn jl_bound_search(d: usize, e: usize, l: usize, delta: f64) -> Result<f64> {
    check_bound_inputs(d, e, l, delta)?;
    Ok(maximise(d, e, l, delta, largest_search))
}

/// The classical JL bound with Dasgupta & Gupta's constant: the largest V such that, for some
/// ε and μ with 1 − ε > (L − 1)(μ + ε), 2V²·exp(−d(ε²/2 − ε³/3)/2) + V(V − 1)·exp(−eμ²/2) ≤ δ
/// (every inner product of the V keys within ε by polarisation over x_q and x_q ± x_k).
pub fn dg_bound(d: usize, e: usize, l: usize, delta: f64) -> Result<f64> {
    check_bound_inputs(d, e, l, delta)?;
    let (df, ef, others) = (d as f64, e as f64, (l - 1) as f64);
    let mut best: f64 = 1.0; // one key has no distractor
    for i in 1..GRID {
        let eps = i as f64 / (GRID as f64 * l as f64); // ε < 1/L
        let mu_max = (1.0 - eps) / others - eps;
        for j in 1..GRID {
            let mu = mu_max * j as f64 / GRID as f64;
            let jl = 2.0 * (-df * (eps * eps / 2.0 - eps * eps * eps / 3.0) / 2.0).exp();
            let coherence = (-ef * mu * mu / 2.0).exp();
            // V²·(jl + coherence) ≥ the failure sum; solve V² ≤ δ/(jl + coherence).
            let v = (delta / (jl + coherence)).sqrt().floor().min(BOUND_CAP);
            best = best.max(v);
        }
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_lists_keep_the_largest() {
        let mut top = Vec::new();
        for v in [0.1, 0.5, 0.3, 0.9, 0.2] {
            push_top(&mut top, v, 2);
        }
        assert_eq!(top, vec![0.9, 0.5]);
        assert!(!push_top(&mut top, 0.4, 2));
    }

    /// A trial stops (None) once the run's metered work would pass the cap, and meters what
    /// it does: d·e per key hashed plus n·d for the n earlier keys it is compared with.
    #[test]
    fn trials_meter_their_work_and_stop_at_the_cap() {
        let trial = Trial {
            d: 8,
            e: 64,
            l: 2,
            max_vocab: 4,
        };
        let meter = AtomicU64::new(0);
        let capacity = trial_capacity(&trial, 0, 0, &meter).unwrap();
        let keys = (capacity + 1).min(4) as u64;
        let expected = keys * 8 * 64 + 8 * keys * (keys - 1) / 2;
        assert_eq!(meter.load(Ordering::Relaxed), expected);
        let full = AtomicU64::new(MAX_RUN_WORK - 8 * 64 + 1);
        assert_eq!(trial_capacity(&trial, 0, 0, &full), None);
        assert!(over_run_work(8).to_string().contains("max_vocab"));
    }

    #[test]
    fn closed_form_and_search_agree_on_single_terms() {
        for (pair, delta) in [
            (1e-6, 0.1),
            (1e-9, 0.05),
            (0.2, 0.1),
            (0.7, 0.5),
            (1e-30, 0.1),
        ] {
            let c = largest_closed(pair, delta);
            let s = largest_search(pair, delta);
            assert!((c - s).abs() <= 1.0f64.max(1e-12 * c), "{pair}: {c} vs {s}");
        }
        // One key has no distractor: always recalled.
        assert_eq!(largest_closed(1.0, 0.1).to_bits(), 1f64.to_bits());
    }

    #[test]
    fn bound_grows_with_state_size() {
        let small = jl_bound(64, 4096, 3, 0.1).unwrap();
        let large = jl_bound(128, 4096, 3, 0.1).unwrap();
        assert!(large > small, "{small} vs {large}");
    }
}
