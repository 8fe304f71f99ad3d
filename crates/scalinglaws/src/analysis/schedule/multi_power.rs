//! The multi-power law's annealing term in O(T) per curve, with exact gradients.
//!
//! Luo et al. 2025 ("A Multi-Power Law for Loss Curve Prediction Across Learning Rate
//! Schedules", arXiv:2503.12811):
//!   L(t) = L0 + A·S1(t)^(−α) − LD(t),  LD(t) = B·Σ_{k=1..t} d_k·G(a_k·u_k(t)),
//!   d_k = η_{k−1} − η_k,  a_k = C·η_k^(−γ),  u_k(t) = Σ_{τ=k..t} η_τ,  G(x) = 1 − (1+x)^(−β).
//! Evaluated directly that is O(t) per step, so O(T²) for a whole curve (the reference code's
//! loop). Here Σ_k d_k (1 + a_k u)^(−β) is written with the Gamma-function integral
//!   (1 + a u)^(−β) = a^(−β)/Γ(β) ∫ exp(βy − e^y/a) · exp(−e^y u) dy,
//! and the integral is taken by the trapezoid rule on one lattice y_j = j·h shared by every k.
//! Each node is then an exponentially decaying sum that a single pass over the steps updates:
//!   M_j(t) = e^(−r_j η_t) · (M_j(t−1) + d_t a_t^(−β) e^(−r_j/a_t)),   r_j = e^(y_j).
//! The integrand is analytic in the strip |Im y| < π/2, so with h = ln2/2 the trapezoid error
//! is below 1e-10 relative (Trefethen & Weideman 2014, "The exponentially convergent trapezoidal
//! rule", §5); the lattice stops where the integrand is below 1e-19 above, and below it the
//! remaining infinite geometric sums are added in closed form to first order in r·(1/a + u)
//! ≤ 1e-4. The cost is O(T·J) with J ≈ 60–80 nodes, linear in T; tests check it against the
//! direct sum to 1e-9. [`final_loss`] evaluates one step directly (O(t)) with the gradient with
//! respect to every learning rate, for schedule optimisation. The same lattice, driven by η_k²
//! with one rate a, evaluates the noise term of the functional scaling law ([`noise_sums`],
//! used by [`super::fsl`]). The pass reads the schedule in ranges ([`super::spec::Rates`]) and
//! holds only the lattice's sums, so its memory does not grow with the schedule; it can be
//! resumed from a copy, which is how cooldown branches share the steps before them
//! ([`branch_ends`]).

use rayon::prelude::*;

use super::spec::{for_each_range, Rates};
use crate::stats::ln_gamma;

/// Parameter order of the law.
pub const PARAMS: [&str; 7] = ["L0", "A", "alpha", "B", "C", "beta", "gamma"];

/// Lattice spacing: r_{j+2} = 2·r_j, so e^(−r_j x) follows by squaring.
const H: f64 = std::f64::consts::LN_2 / 2.0;
/// r·(1/a + u) at the lattice's lower end, below which the closed-form tail takes over.
const LOWER_REACH: f64 = 1e-4;
/// r/a at the lattice's upper end: (r/a)^β·e^(−r/a) < 1e-17 beyond.
const UPPER_REACH: f64 = 45.0;
/// Fresh exponentials every this many lattice nodes: a chain squares at most RESTART/2 times,
/// so its relative error stays below 2^(RESTART/2) ulp ≈ 2e-9 (a part of a typical lattice,
/// 30–40 nodes, needs only its two starting exponentials).
const RESTART: usize = 48;
/// Lattice nodes beyond which the parameters are taken as outside the law's range (a_max/a_min
/// and the area would span e^104).
const MAX_NODES: f64 = 300.0;

/// Values and (optionally) the gradient rows at each requested step.
pub struct Curve {
    pub values: Vec<f64>,
    /// d value / d parameter, in [`PARAMS`] order, one row per step.
    pub gradient: Option<Vec<[f64; 7]>>,
}

/// Checks the schedule can carry the law at the requested steps: positive learning rates after
/// step 0 and positive area at every requested step.
pub fn check(lrs: &[f64], steps: &[usize]) -> Result<(), String> {
    check_rates(lrs, steps)
}

/// [`check`] on rates read in ranges.
pub fn check_rates<R: Rates + ?Sized>(lrs: &R, steps: &[usize]) -> Result<(), String> {
    let mut bad = None;
    for_each_range(lrs, 0, lrs.len(), |start, chunk| {
        if bad.is_none() {
            bad = (0..chunk.len())
                .find(|&i| start + i > 0 && !(chunk[i] > 0.0 && chunk[i].is_finite()))
                .map(|i| (start + i, chunk[i]));
        }
    });
    if let Some((k, lr)) = bad {
        return Err(format!(
            "the learning rate at step {k} is {lr}; the multi-power law needs it positive after step 0 \
             (it raises it to −γ): use a small final lr instead of 0"
        ));
    }
    let max = steps.iter().copied().max().unwrap_or(0);
    if max >= lrs.len() {
        return Err(format!(
            "step {max} lies beyond the schedule's {} steps",
            lrs.len()
        ));
    }
    let min = steps.iter().copied().min().unwrap_or(0);
    let mut area = 0.0;
    for_each_range(lrs, 0, min + 1, |_, chunk| {
        for &lr in chunk {
            area += lr;
        }
    });
    if area <= 0.0 {
        return Err(format!(
            "the schedule's area S1 is 0 at step {min}: no loss is predicted before any training"
        ));
    }
    Ok(())
}

#[derive(Clone)]
struct Lattice {
    /// r_j = e^(y_j)
    rates: Vec<f64>,
    y: Vec<f64>,
    /// h·e^(β y_j)
    weights: Vec<f64>,
    /// H_n = Σ_{j<0} h e^((β+n) y_j) for n = 0, 1, and their β-derivatives.
    tail: [f64; 2],
    tail_beta: [f64; 2],
}

impl Lattice {
    /// The first and last node index for the smallest and largest a_k and the largest area.
    fn range(a_min: f64, a_max: f64, area_max: f64) -> (i64, i64) {
        let w_max = 1.0 / a_min + area_max;
        let j_lo = ((LOWER_REACH / w_max).ln() / H).floor() as i64;
        let j_hi = ((UPPER_REACH * a_max).ln() / H).ceil() as i64;
        (j_lo, j_hi)
    }

    /// The lattice of nodes j·h for j in `j_lo..=j_hi`, with the tail below.
    fn new(beta: f64, j_lo: i64, j_hi: i64) -> Lattice {
        let y: Vec<f64> = (j_lo..=j_hi).map(|j| j as f64 * H).collect();
        let rates = y.iter().map(|y| y.exp()).collect();
        let weights = y.iter().map(|y| H * (beta * y).exp()).collect();
        let below = (j_lo - 1) as f64 * H;
        let mut tail = [0.0; 2];
        let mut tail_beta = [0.0; 2];
        for n in 0..2 {
            let p = beta + n as f64;
            let q = (-p * H).exp();
            tail[n] = H * (p * below).exp() / (1.0 - q);
            tail_beta[n] = tail[n] * (below - H * q / (1.0 - q));
        }
        Lattice {
            rates,
            y,
            weights,
            tail,
            tail_beta,
        }
    }

    /// The lattice in `n` contiguous parts of its nodes (the tail stays with each; only the
    /// first part's tail moments are read).
    fn split(&self, n: usize) -> Vec<Lattice> {
        let size = self.rates.len().div_ceil(n);
        (0..n)
            .map(|i| {
                let range =
                    (i * size).min(self.rates.len())..((i + 1) * size).min(self.rates.len());
                Lattice {
                    rates: self.rates[range.clone()].to_vec(),
                    y: self.y[range.clone()].to_vec(),
                    weights: self.weights[range].to_vec(),
                    ..self.clone()
                }
            })
            .collect()
    }

    /// e^(−r_j·x) for every node, by squaring chains restarted every [`RESTART`] nodes.
    fn decays(&self, x: f64, out: &mut [f64]) {
        for (j, slot) in out.iter_mut().enumerate() {
            *slot = if j % RESTART < 2 {
                (-self.rates[j] * x).exp()
            } else {
                0.0
            };
        }
        for j in 2..out.len() {
            if j % RESTART >= 2 {
                out[j] = out[j - 2] * out[j - 2];
            }
        }
    }
}

/// Running sums of one derivative direction: lattice nodes plus the closed-form tail's moments.
#[derive(Clone)]
struct Accumulator {
    nodes: Vec<f64>,
    /// Σ ω, Σ ω·c with c = 1/a − S(k−1), Σ ω/a.
    moments: [f64; 3],
}

impl Accumulator {
    fn new(j: usize) -> Self {
        Accumulator {
            nodes: vec![0.0; j],
            moments: [0.0; 3],
        }
    }

    fn add_moments(&mut self, moments: [f64; 3], weight: f64) {
        for (m, v) in self.moments.iter_mut().zip(moments) {
            *m += weight * v;
        }
    }

    /// Each node's sum times its decay, a sum decayed below the normal numbers taken as 0:
    /// such a sum weighs less than 1e-300 in any record (far below one unit in the last place
    /// of the law's value), and arithmetic on subnormal numbers is about 100 times slower (a
    /// constant run of 1e8 steps spent most of its time in them).
    fn decay(&mut self, decay: &[f64]) {
        for (m, e) in self.nodes.iter_mut().zip(decay) {
            let v = *m * e;
            *m = if v.abs() < f64::MIN_POSITIVE { 0.0 } else { v };
        }
    }

    /// Σ_j weight_j·M_j.
    fn nodes_dot(&self, weights: &[f64]) -> f64 {
        self.nodes.iter().zip(weights).map(|(m, w)| m * w).sum()
    }
}

/// Σ_k d_k (1 + a_k u_k(t))^(−β) and its derivatives, by the lattice.
#[derive(Clone)]
struct Sums {
    value: Accumulator,
    /// weights −ln a_k (the β-derivative of a_k^(−β))
    beta: Accumulator,
    /// weights ∂/∂ln a_k of each term
    log_a: Accumulator,
    /// weights −ln η_k · ∂/∂ln a_k
    gamma: Accumulator,
}

/// What one pass over the steps records at a requested step: its area and learning rate, the
/// node sums of its part of the lattice, and the tail moments (the same in every part).
#[derive(Clone, Copy, Default)]
struct Record {
    area: f64,
    lr: f64,
    /// Σ w_j M_j, Σ w_j y_j M_j, Σ w_j Mβ_j, Σ w_j Ma_j, Σ w_j Mγ_j
    nodes: [f64; 5],
    /// tail moments of the value, β, ln a and γ accumulators
    moments: [[f64; 3]; 4],
}

/// The lattice is split in this many parts, run in parallel and summed in a fixed order (so
/// the result does not depend on the thread count).
const PARTS: usize = 2;

/// The law at the given steps (any order); `p` in [`PARAMS`] order. Call [`check`] first.
pub fn curve(p: &[f64], lrs: &[f64], steps: &[usize], with_gradient: bool) -> Curve {
    curve_in_blocks(p, lrs, None, steps, with_gradient)
}

/// The law at the given steps (any order) of rates read on demand (no per-step array is held:
/// memory is O(steps requested), time one pass up to the last). Values as [`curve`]'s.
pub fn curve_of<R: Rates + ?Sized>(p: &[f64], lrs: &R, steps: &[usize]) -> Vec<f64> {
    match pass(p, lrs, None, steps, false, Drive::Decrements) {
        Some((records, lattice, order)) => {
            let lr0 = lrs.at(0);
            let mut values = vec![0.0; steps.len()];
            for (record, &i) in records.iter().zip(&order) {
                values[i] = assemble(p, &lattice, record, lr0, steps[i] == 0).0;
            }
            values
        }
        None => vec![f64::NAN; steps.len()],
    }
}

/// The law on a schedule of blocks: entry k holds `widths[k]` steps at learning rate `lrs[k]`
/// (area widths[k]·lrs[k]; the decrement between blocks is lumped at the block's start);
/// `steps` index blocks. With no widths every block is one step: the law exactly.
pub fn curve_in_blocks(
    p: &[f64],
    lrs: &[f64],
    widths: Option<&[f64]>,
    steps: &[usize],
    with_gradient: bool,
) -> Curve {
    let (records, lattice, order) =
        match pass(p, lrs, widths, steps, with_gradient, Drive::Decrements) {
            Some(done) => done,
            None => {
                // Parameters far outside any fit's range (the search probes them): no value.
                return Curve {
                    values: vec![f64::NAN; steps.len()],
                    gradient: with_gradient.then(|| vec![[f64::NAN; 7]; steps.len()]),
                };
            }
        };
    let mut values = vec![0.0; steps.len()];
    let mut gradient = with_gradient.then(|| vec![[0.0; 7]; steps.len()]);
    for (record, &i) in records.iter().zip(&order) {
        let (value, row) = assemble(p, &lattice, record, lrs[0], steps[i] == 0);
        values[i] = value;
        if let Some(g) = gradient.as_mut() {
            g[i] = row;
        }
    }
    Curve { values, gradient }
}

/// What the lattice's terms are driven by: the multi-power law's decrements
/// d_k = η_{k−1} − η_k, or the squared learning rates d_k = w_k·η_k² of a noise term (the
/// functional scaling law, [`super::fsl`]; its rates a_k are one constant, so γ = 0 there).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Drive {
    Decrements,
    SquaredRates,
}

/// K(t) = Σ_{k=1..t} d_k·(1 + a·u_k(t))^(−β) with d_k = w_k·η_k² (w_k the block widths) and
/// one rate a, at `steps` (any order), with its derivatives: [K, ∂K/∂β, ∂K/∂ln a] per step
/// (zeros at step 0). None where the lattice would be unreasonable (parameters far outside any
/// fit's range).
pub(super) fn noise_sums<R: Rates + ?Sized>(
    a: f64,
    beta: f64,
    lrs: &R,
    widths: Option<&[f64]>,
    steps: &[usize],
    with_gradient: bool,
) -> Option<Vec<[f64; 3]>> {
    let p = noise_params(a, beta);
    let (records, lattice, order) =
        pass(&p, lrs, widths, steps, with_gradient, Drive::SquaredRates)?;
    let mut out = vec![[0.0; 3]; steps.len()];
    for (record, &i) in records.iter().zip(&order) {
        if steps[i] > 0 {
            out[i] = noise_of(&lattice, record, beta);
        }
    }
    Some(out)
}

/// The multi-power parameters whose lattice pass is the noise term with rate `a`, exponent β.
fn noise_params(a: f64, beta: f64) -> [f64; 7] {
    [0.0, 0.0, 0.0, 1.0, a, beta, 0.0]
}

/// [K, ∂K/∂β, ∂K/∂ln a] of the noise term from a summed record.
fn noise_of(lattice: &Lattice, record: &Record, beta: f64) -> [f64; 3] {
    let inv_gamma = (-ln_gamma(beta)).exp();
    let [f, d_beta, d_log_a, _] = kernel_sum(lattice, record, beta);
    [f * inv_gamma, d_beta * inv_gamma, d_log_a * inv_gamma]
}

/// What fixes the lattice of a pass up to a step: the smallest and largest a_k of its terms
/// and its area (the lattice's nodes are j·h for j in a range these give).
#[derive(Clone, Copy)]
struct Span {
    lo: f64,
    hi: f64,
    area: f64,
    /// η at the last step read (for the next decrement).
    last_lr: f64,
    steps: usize,
}

impl Span {
    fn new() -> Span {
        Span {
            lo: f64::INFINITY,
            hi: 0.0,
            area: 0.0,
            last_lr: f64::NAN,
            steps: 0,
        }
    }

    /// Takes in the next steps' rates (`widths` indexed from the first of them).
    fn extend(&mut self, lrs: &[f64], widths: Option<&[f64]>) {
        for (i, &lr) in lrs.iter().enumerate() {
            if self.steps > 0 && self.last_lr != lr {
                self.lo = self.lo.min(lr);
                self.hi = self.hi.max(lr);
            }
            self.area += widths.map_or(1.0, |w| w[i]) * lr;
            self.last_lr = lr;
            self.steps += 1;
        }
    }

    /// The lattice's (first, last) node index for these parameters; None where it would be
    /// unreasonable.
    fn nodes(&self, p: &[f64], drive: Drive) -> Option<(i64, i64)> {
        let (c, beta, gamma) = (p[4], p[5], p[6]);
        let (a_min, a_max) = match drive {
            Drive::Decrements if !self.lo.is_finite() => (1.0, 1.0), // no term: any lattice
            Drive::Decrements => (c * self.hi.powf(-gamma), c * self.lo.powf(-gamma)),
            Drive::SquaredRates => (c, c),
        };
        if !lattice_is_reasonable(beta, a_min, a_max, self.area) {
            return None;
        }
        Some(Lattice::range(a_min, a_max, self.area))
    }
}

/// One pass of the lattice (in [`PARTS`] run in parallel) over the steps up to the last
/// requested: the summed record at each requested step, in the order of `order` (the requested
/// steps sorted), with the lattice for assembling them. The rates are read in ranges of
/// [`CHUNK`] steps, twice (the lattice's span, then the pass): nothing per step is held.
fn pass<R: Rates + ?Sized>(
    p: &[f64],
    lrs: &R,
    widths: Option<&[f64]>,
    steps: &[usize],
    with_gradient: bool,
    drive: Drive,
) -> Option<(Vec<Record>, Lattice, Vec<usize>)> {
    let mut order: Vec<usize> = (0..steps.len()).collect();
    order.sort_by_key(|&i| steps[i]);
    let sorted: Vec<usize> = order.iter().map(|&i| steps[i]).collect();
    let last = sorted.last().copied().unwrap_or(0);
    let mut span = Span::new();
    for_each_range(lrs, 0, last + 1, |start, chunk| {
        span.extend(chunk, widths.map(|w| &w[start..]))
    });
    let (j_lo, j_hi) = span.nodes(p, drive)?;
    let lattice = Lattice::new(p[5], j_lo, j_hi);
    let mut walker = Walker::new(p, &lattice, drive, with_gradient);
    let mut records = Vec::with_capacity(sorted.len());
    walker.walk(lrs, widths, last + 1, &sorted, &mut records);
    Some((records, lattice, order))
}

/// The value at the end of each branch of a family of schedules that share a main schedule:
/// branch i follows `main` before `branches[i].0` and its own rates from there to its end,
/// `branches[i].1` (at most `main`'s length; a branch equal to `main` gives `main`'s curve).
/// Each value is the one [`curve_of`] gives on the branch alone (the lattice a pass uses is
/// fixed by the schedule up to the step, so branches that share a lattice share one pass of
/// the main schedule and each adds only its own steps): time O(lattices × main + Σ branch
/// lengths), memory O(branches).
pub fn branch_ends(
    p: &[f64],
    main: &dyn Rates,
    branches: &[(usize, usize, &dyn Rates)],
    drive_noise: Option<(f64, f64)>,
) -> Vec<f64> {
    let (params, drive) = match drive_noise {
        Some((a, beta)) => (noise_params(a, beta).to_vec(), Drive::SquaredRates),
        None => (p.to_vec(), Drive::Decrements),
    };
    let keys = branch_lattices(&params, main, branches, drive);
    let mut values = vec![f64::NAN; branches.len()];
    let mut groups: Vec<(i64, i64)> = keys.iter().flatten().copied().collect();
    groups.sort();
    groups.dedup();
    let lr0 = main.at(0);
    for (j_lo, j_hi) in groups {
        let members: Vec<usize> = (0..branches.len())
            .filter(|&i| keys[i] == Some((j_lo, j_hi)))
            .collect();
        let lattice = Lattice::new(params[5], j_lo, j_hi);
        let mut walker = Walker::new(&params, &lattice, drive, false);
        let mut by_start = members.clone();
        by_start.sort_by_key(|&i| branches[i].0);
        for i in by_start {
            let (start, end, rates) = branches[i];
            walker.walk(main, None, start, &[], &mut Vec::new());
            let mut branch = walker.clone();
            let mut record = Vec::with_capacity(1);
            branch.walk_from(rates, start, end + 1, &[end], &mut record);
            // (No record when a stopped walk ended before the branch's end: no value.)
            let Some(record) = record.first() else {
                continue;
            };
            values[i] = match drive {
                Drive::Decrements => assemble(p, &lattice, record, lr0, end == 0).0,
                Drive::SquaredRates if end == 0 => 0.0,
                Drive::SquaredRates => noise_of(&lattice, record, params[5])[0],
            };
        }
    }
    values
}

/// The lattice of each branch's pass up to its end (None where it would be unreasonable), by
/// one pass over the main schedule and each branch's own steps.
fn branch_lattices(
    p: &[f64],
    main: &dyn Rates,
    branches: &[(usize, usize, &dyn Rates)],
    drive: Drive,
) -> Vec<Option<(i64, i64)>> {
    let mut by_start: Vec<usize> = (0..branches.len()).collect();
    by_start.sort_by_key(|&i| branches[i].0);
    let mut keys = vec![None; branches.len()];
    let mut span = Span::new();
    for i in by_start {
        let (start, end, rates) = branches[i];
        for_each_range(main, span.steps, start, |_, chunk| span.extend(chunk, None));
        let mut own = span;
        for_each_range(rates, start, end + 1, |_, chunk| own.extend(chunk, None));
        keys[i] = own.nodes(p, drive);
    }
    keys
}
/// Γ(β)·Σ_k d_k (1 + a_k u_k)^(−β) and the derivatives of that sum (times Γ(β)) with respect
/// to β, ln C and γ (a_k = C·η_k^(−γ)) from a summed record.
fn kernel_sum(lattice: &Lattice, r: &Record, beta: f64) -> [f64; 4] {
    let tail = |m: &[f64; 3], h: &[f64; 2]| h[0] * m[0] - h[1] * (m[1] + r.area * m[0]);
    let [value_m, beta_m, log_a_m, gamma_m] = &r.moments;
    let f = r.nodes[0] + tail(value_m, &lattice.tail);
    let d_beta = -digamma(beta) * f
        + r.nodes[1]
        + tail(value_m, &lattice.tail_beta)
        + r.nodes[2]
        + tail(beta_m, &lattice.tail);
    // ∂/∂ln a of the tail: Σ ω·[−β(H0 − H1 w) + H1/a].
    let scaled =
        |nodes: f64, m: &[f64; 3]| nodes - beta * tail(m, &lattice.tail) + lattice.tail[1] * m[2];
    [
        f,
        d_beta,
        scaled(r.nodes[3], log_a_m),
        scaled(r.nodes[4], gamma_m),
    ]
}

/// The law and its gradient at one requested step from the summed record.
fn assemble(p: &[f64], lattice: &Lattice, r: &Record, lr0: f64, first: bool) -> (f64, [f64; 7]) {
    let [l0, a, alpha, b, c, beta, _] = [p[0], p[1], p[2], p[3], p[4], p[5], p[6]];
    let power = r.area.powf(-alpha);
    let d_alpha = -a * power * r.area.ln();
    if first {
        // No annealing term at step 0: L0 + A·S1^(−α).
        return (l0 + a * power, [1.0, power, d_alpha, 0.0, 0.0, 0.0, 0.0]);
    }
    let inv_gamma = (-ln_gamma(beta)).exp();
    let [f, d_beta, d_log_c, d_gamma] = kernel_sum(lattice, r, beta);
    let drop = (lr0 - r.lr) - f * inv_gamma;
    (
        l0 + a * power - b * drop,
        [
            1.0,
            power,
            d_alpha,
            -drop,
            b * inv_gamma * d_log_c / c,
            b * inv_gamma * d_beta,
            b * inv_gamma * d_gamma,
        ],
    )
}

/// One pass of the lattice over a schedule, step by step: the running sums of each part of the
/// lattice, resumable (a clone continues from where it stands, which is how branches share the
/// steps before them).
#[derive(Clone)]
struct Walker {
    parts: Vec<PartWalk>,
    ln_c: f64,
    beta: f64,
    gamma: f64,
    drive: Drive,
    with_gradient: bool,
    /// Steps taken so far.
    steps: usize,
    /// The area through the last step taken, and its learning rate.
    area: f64,
    last_lr: f64,
}

/// The next steps' block areas, terms, areas through each and rates.
type ChunkSteps<'a> = (&'a [f64], &'a [Option<Term>], &'a [f64], &'a [f64]);

/// One part of the lattice with its running sums.
#[derive(Clone)]
struct PartWalk {
    lattice: Lattice,
    sums: Sums,
    weighted_y: Vec<f64>,
    decay: Vec<f64>,
    inject: Vec<f64>,
    decay_area: f64,
}

impl Walker {
    fn new(p: &[f64], lattice: &Lattice, drive: Drive, with_gradient: bool) -> Walker {
        let parts = lattice
            .split(PARTS)
            .into_iter()
            .map(|part| PartWalk::new(part, with_gradient))
            .collect();
        Walker {
            parts,
            ln_c: p[4].ln(),
            beta: p[5],
            gamma: p[6],
            drive,
            with_gradient,
            steps: 0,
            area: 0.0,
            last_lr: f64::NAN,
        }
    }

    /// Takes the steps from where it stands up to `end` of `lrs`, recording at the steps of
    /// `sorted` in that range (`widths` indexed like `lrs`).
    fn walk<R: Rates + ?Sized>(
        &mut self,
        lrs: &R,
        widths: Option<&[f64]>,
        end: usize,
        sorted: &[usize],
        records: &mut Vec<Record>,
    ) {
        let from = self.steps;
        self.walk_widths(lrs, widths, from, end, sorted, records);
    }

    /// [`Walker::walk`] from step `from` (where it stands) with one-step blocks.
    fn walk_from<R: Rates + ?Sized>(
        &mut self,
        lrs: &R,
        from: usize,
        end: usize,
        sorted: &[usize],
        records: &mut Vec<Record>,
    ) {
        self.walk_widths(lrs, None, from, end, sorted, records);
    }

    fn walk_widths<R: Rates + ?Sized>(
        &mut self,
        lrs: &R,
        widths: Option<&[f64]>,
        from: usize,
        end: usize,
        sorted: &[usize],
        records: &mut Vec<Record>,
    ) {
        debug_assert_eq!(from, self.steps);
        let mut next = sorted.partition_point(|&s| s < from);
        for_each_range(lrs, from, end, |start, chunk| {
            let stop = sorted[next..].partition_point(|&s| s < start + chunk.len()) + next;
            self.chunk(
                chunk,
                widths.map(|w| &w[start..]),
                &sorted[next..stop],
                records,
            );
            next = stop;
        });
    }

    /// The next steps (their rates and widths), recording at `wanted` (sorted, inside them).
    fn chunk(
        &mut self,
        lrs: &[f64],
        widths: Option<&[f64]>,
        wanted: &[usize],
        records: &mut Vec<Record>,
    ) {
        let first = self.steps;
        let (terms, blocks, areas) = self.terms(lrs, widths);
        let (beta, with_gradient) = (self.beta, self.with_gradient);
        let run = |part: &mut PartWalk| {
            part.run(
                first,
                (&blocks, &terms, &areas, lrs),
                wanted,
                beta,
                with_gradient,
            )
        };
        let parts: Vec<Vec<Record>> = if lrs.len() >= 1024 {
            self.parts.par_iter_mut().map(run).collect()
        } else {
            self.parts.iter_mut().map(run).collect()
        };
        for o in 0..wanted.len() {
            let mut record = parts[0][o];
            for part in &parts[1..] {
                for (total, n) in record.nodes.iter_mut().zip(part[o].nodes) {
                    *total += n;
                }
            }
            records.push(record);
        }
    }

    /// The annealing term of each of the next steps (None where the learning rate does not
    /// change), each step's block area and the area through it; the transcendentals run in
    /// parallel.
    #[allow(clippy::type_complexity)]
    fn terms(
        &mut self,
        lrs: &[f64],
        widths: Option<&[f64]>,
    ) -> (Vec<Option<Term>>, Vec<f64>, Vec<f64>) {
        let first = self.steps;
        let mut before = Vec::with_capacity(lrs.len());
        let mut blocks = Vec::with_capacity(lrs.len());
        let mut areas = Vec::with_capacity(lrs.len());
        for (i, &lr) in lrs.iter().enumerate() {
            let block = widths.map_or(1.0, |w| w[i]) * lr;
            before.push(self.area);
            self.area = if first + i == 0 {
                block
            } else {
                self.area + block
            };
            blocks.push(block);
            areas.push(self.area);
        }
        let (ln_c, beta, gamma, drive) = (self.ln_c, self.beta, self.gamma, self.drive);
        let previous = self.last_lr;
        let term = |i: usize| {
            let t = first + i;
            let lr = lrs[i];
            let d = match (t, drive) {
                (0, _) => 0.0,
                (_, Drive::Decrements) => (if i == 0 { previous } else { lrs[i - 1] }) - lr,
                (_, Drive::SquaredRates) => widths.map_or(1.0, |w| w[i]) * lr * lr,
            };
            (d != 0.0).then(|| {
                // The noise drive's rate is one constant (γ = 0): ln η is not needed.
                let ln_lr = match drive {
                    Drive::Decrements => lr.ln(),
                    Drive::SquaredRates => 0.0,
                };
                let ln_a = ln_c - gamma * ln_lr;
                Term {
                    omega: d * (-beta * ln_a).exp(),
                    a: ln_a.exp(),
                    ln_a,
                    ln_lr,
                    area_before: before[i],
                }
            })
        };
        let terms = if lrs.len() >= 1024 {
            (0..lrs.len())
                .into_par_iter()
                .with_min_len(1024)
                .map(term)
                .collect()
        } else {
            (0..lrs.len()).map(term).collect()
        };
        self.steps += lrs.len();
        self.last_lr = *lrs.last().unwrap_or(&previous);
        (terms, blocks, areas)
    }
}

impl PartWalk {
    fn new(lattice: Lattice, with_gradient: bool) -> PartWalk {
        let nj = lattice.rates.len();
        let derivative_nodes = if with_gradient { nj } else { 0 };
        let weighted_y = lattice
            .weights
            .iter()
            .zip(&lattice.y)
            .map(|(w, y)| w * y)
            .collect();
        PartWalk {
            sums: Sums {
                value: Accumulator::new(nj),
                beta: Accumulator::new(derivative_nodes),
                log_a: Accumulator::new(derivative_nodes),
                gamma: Accumulator::new(derivative_nodes),
            },
            weighted_y,
            decay: vec![0.0; nj],
            inject: vec![0.0; nj],
            decay_area: f64::NAN,
            lattice,
        }
    }

    /// Steps `first..first + lrs.len()` with their blocks' areas, terms, the area through
    /// each step and its rate, recording at `wanted`.
    fn run(
        &mut self,
        first: usize,
        (blocks, terms, areas, lrs): ChunkSteps<'_>,
        wanted: &[usize],
        beta: f64,
        with_gradient: bool,
    ) -> Vec<Record> {
        let mut records = Vec::with_capacity(wanted.len());
        let mut next = 0;
        for i in 0..blocks.len() {
            let t = first + i;
            if t > 0 {
                if let Some(term) = &terms[i] {
                    self.lattice.decays(1.0 / term.a, &mut self.inject);
                    add_term(
                        &mut self.sums,
                        &self.lattice,
                        &self.inject,
                        term,
                        beta,
                        with_gradient,
                    );
                }
                if blocks[i] != self.decay_area {
                    self.lattice.decays(blocks[i], &mut self.decay);
                    self.decay_area = blocks[i];
                }
                self.sums.value.decay(&self.decay);
                if with_gradient {
                    self.sums.beta.decay(&self.decay);
                    self.sums.log_a.decay(&self.decay);
                    self.sums.gamma.decay(&self.decay);
                }
            }
            while next < wanted.len() && wanted[next] == t {
                records.push(self.record(areas[i], lrs[i], with_gradient));
                next += 1;
            }
        }
        records
    }

    /// The record of the sums as they stand.
    fn record(&self, area: f64, lr: f64, with_gradient: bool) -> Record {
        let (sums, weights) = (&self.sums, &self.lattice.weights);
        Record {
            area,
            lr,
            nodes: [
                sums.value.nodes_dot(weights),
                if with_gradient {
                    sums.value.nodes_dot(&self.weighted_y)
                } else {
                    0.0
                },
                sums.beta.nodes_dot(weights),
                sums.log_a.nodes_dot(weights),
                sums.gamma.nodes_dot(weights),
            ],
            moments: [
                sums.value.moments,
                sums.beta.moments,
                sums.log_a.moments,
                sums.gamma.moments,
            ],
        }
    }
}

/// At most [`MAX_NODES`] lattice nodes, and finite inputs.
fn lattice_is_reasonable(beta: f64, a_min: f64, a_max: f64, area_max: f64) -> bool {
    let finite = [beta, a_min, a_max, area_max]
        .iter()
        .all(|v| v.is_finite() && *v > 0.0);
    finite
        && ((UPPER_REACH * a_max).ln() - (LOWER_REACH / (1.0 / a_min + area_max)).ln()) / H
            < MAX_NODES
}

/// One annealing term: ω = d·a^(−β), its a = C·η^(−γ) with logs, and the area before its step.
#[derive(Clone, Copy)]
struct Term {
    omega: f64,
    a: f64,
    ln_a: f64,
    ln_lr: f64,
    area_before: f64,
}

fn add_term(
    sums: &mut Sums,
    lattice: &Lattice,
    inject: &[f64],
    term: &Term,
    beta: f64,
    with_gradient: bool,
) {
    let Term {
        omega,
        a,
        ln_a,
        ln_lr,
        area_before,
    } = *term;
    let moments = [omega, omega * (1.0 / a - area_before), omega / a];
    sums.value.add_moments(moments, 1.0);
    for (m, e) in sums.value.nodes.iter_mut().zip(inject) {
        *m += omega * e;
    }
    if !with_gradient {
        return;
    }
    let inv_a = 1.0 / a;
    sums.beta.add_moments(moments, -ln_a);
    sums.log_a.add_moments(moments, 1.0);
    sums.gamma.add_moments(moments, -ln_lr);
    let nodes = sums
        .beta
        .nodes
        .iter_mut()
        .zip(&mut sums.log_a.nodes)
        .zip(&mut sums.gamma.nodes);
    for (((b, la), g), (e, r)) in nodes.zip(inject.iter().zip(&lattice.rates)) {
        let base = omega * e;
        let da = base * (r * inv_a - beta);
        *b -= base * ln_a;
        *la += da;
        *g -= da * ln_lr;
    }
}

/// ψ(x) for x > 0: recurrence up to x ≥ 6, then the asymptotic series (error < 1e-13).
pub fn digamma(mut x: f64) -> f64 {
    let mut result = 0.0;
    while x < 6.0 {
        result -= 1.0 / x;
        x += 1.0;
    }
    let inv = 1.0 / x;
    let inv2 = inv * inv;
    result + x.ln()
        - 0.5 * inv
        - inv2
            * (1.0 / 12.0
                - inv2 * (1.0 / 120.0 - inv2 * (1.0 / 252.0 - inv2 * (1.0 / 240.0 - inv2 / 132.0))))
}

/// The law at one step, summed directly: value and d value / d lr_τ for every τ ≤ t (the
/// gradient with respect to the schedule). O(t).
pub fn final_loss(p: &[f64], lrs: &[f64], t: usize) -> (f64, Vec<f64>) {
    let [l0, a, alpha, b, c, beta, gamma] = [p[0], p[1], p[2], p[3], p[4], p[5], p[6]];
    let area: f64 = lrs[..=t].iter().sum();
    // u_k = Σ_{τ=k..t} η_τ, walking k down from t.
    let mut u = vec![0.0; t + 2];
    for k in (1..=t).rev() {
        u[k] = u[k + 1] + lrs[k];
    }
    let mut f = vec![0.0; t + 2];
    let mut df = vec![0.0; t + 2]; // f'(z)·a_k at each k
    let mut drop = 0.0;
    for k in 1..=t {
        let a_k = c * lrs[k].powf(-gamma);
        let z = 1.0 + a_k * u[k];
        let fk = z.powf(-beta);
        f[k] = fk;
        df[k] = -beta * fk / z * a_k;
        drop += (lrs[k - 1] - lrs[k]) * (1.0 - fk);
    }
    let value = l0 + a * area.powf(-alpha) - b * drop;
    // d value/d η_τ: area term, the two decrements touching τ, a_τ, and every u_k with k ≤ τ.
    let d_area = -alpha * a * area.powf(-alpha - 1.0);
    let mut grad = vec![0.0; t + 1];
    let mut prefix = 0.0; // Σ_{k ≤ τ} d_k·f'(z_k)·a_k
    for tau in 0..=t {
        let mut d_drop = 0.0;
        if tau >= 1 {
            let d_k = lrs[tau - 1] - lrs[tau];
            prefix += d_k * df[tau];
            // d_τ = η_{τ−1} − η_τ: −(1 − f_τ); a_τ: d_τ·(−f'(z)·z_a)·(−γ a/η)
            d_drop -= 1.0 - f[tau];
            d_drop += d_k * df[tau] * u[tau] * gamma / lrs[tau];
        }
        if tau < t {
            d_drop += 1.0 - f[tau + 1]; // d_{τ+1} = η_τ − η_{τ+1}
        }
        d_drop -= prefix; // −Σ_{k≤τ} d_k f'(z_k) a_k (u_k grows with η_τ; G = 1 − f)
        grad[tau] = d_area - b * d_drop;
    }
    (value, grad)
}
