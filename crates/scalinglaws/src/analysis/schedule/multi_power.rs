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
//! used by [`super::fsl`]).

use rayon::prelude::*;

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
    if let Some(k) = lrs
        .iter()
        .skip(1)
        .position(|&lr| !(lr > 0.0 && lr.is_finite()))
    {
        return Err(format!(
            "the learning rate at step {} is {}; the multi-power law needs it positive after step 0 \
             (it raises it to −γ): use a small final lr instead of 0",
            k + 1,
            lrs[k + 1]
        ));
    }
    let mut area = 0.0;
    let mut last = 0;
    let max = steps.iter().copied().max().unwrap_or(0);
    if max >= lrs.len() {
        return Err(format!(
            "step {max} lies beyond the schedule's {} steps",
            lrs.len()
        ));
    }
    let min = steps.iter().copied().min().unwrap_or(0);
    for (t, &lr) in lrs.iter().enumerate().take(min + 1) {
        area += lr;
        last = t;
    }
    if area <= 0.0 {
        return Err(format!(
            "the schedule's area S1 is 0 at step {last}: no loss is predicted before any training"
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
    fn new(beta: f64, a_min: f64, a_max: f64, area_max: f64) -> Lattice {
        let w_max = 1.0 / a_min + area_max;
        let j_lo = ((LOWER_REACH / w_max).ln() / H).floor() as i64;
        let j_hi = ((UPPER_REACH * a_max).ln() / H).ceil() as i64;
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

    fn decay(&mut self, decay: &[f64]) {
        for (m, e) in self.nodes.iter_mut().zip(decay) {
            *m *= e;
        }
    }

    /// Σ_j weight_j·M_j.
    fn nodes_dot(&self, weights: &[f64]) -> f64 {
        self.nodes.iter().zip(weights).map(|(m, w)| m * w).sum()
    }
}

/// Σ_k d_k (1 + a_k u_k(t))^(−β) and its derivatives, by the lattice.
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
pub(super) fn noise_sums(
    a: f64,
    beta: f64,
    lrs: &[f64],
    widths: Option<&[f64]>,
    steps: &[usize],
    with_gradient: bool,
) -> Option<Vec<[f64; 3]>> {
    let p = [0.0, 0.0, 0.0, 1.0, a, beta, 0.0];
    let (records, lattice, order) =
        pass(&p, lrs, widths, steps, with_gradient, Drive::SquaredRates)?;
    let mut out = vec![[0.0; 3]; steps.len()];
    for (record, &i) in records.iter().zip(&order) {
        if steps[i] > 0 {
            let inv_gamma = (-ln_gamma(beta)).exp();
            let [f, d_beta, d_log_a, _] = kernel_sum(&lattice, record, beta);
            out[i] = [f * inv_gamma, d_beta * inv_gamma, d_log_a * inv_gamma];
        }
    }
    Some(out)
}

/// One pass of the lattice (in [`PARTS`] run in parallel) over the steps up to the last
/// requested: the summed record at each requested step, in the order of `order` (the requested
/// steps sorted), with the lattice for assembling them.
fn pass(
    p: &[f64],
    lrs: &[f64],
    widths: Option<&[f64]>,
    steps: &[usize],
    with_gradient: bool,
    drive: Drive,
) -> Option<(Vec<Record>, Lattice, Vec<usize>)> {
    let [_, _, _, _, c, beta, gamma] = [p[0], p[1], p[2], p[3], p[4], p[5], p[6]];
    let mut order: Vec<usize> = (0..steps.len()).collect();
    order.sort_by_key(|&i| steps[i]);
    let sorted: Vec<usize> = order.iter().map(|&i| steps[i]).collect();
    let last = sorted.last().copied().unwrap_or(0);
    let width = |k: usize| widths.map_or(1.0, |w| w[k]);
    let (a_min, a_max) = match drive {
        Drive::Decrements => rate_range(lrs, last, c, gamma),
        Drive::SquaredRates => (c, c),
    };
    let area_max: f64 = (0..=last).map(|k| width(k) * lrs[k]).sum();
    if !lattice_is_reasonable(beta, a_min, a_max, area_max) {
        return None;
    }
    let lattice = Lattice::new(beta, a_min, a_max, area_max);
    let terms = terms(p, lrs, widths, last, drive);
    let parts: Vec<Vec<Record>> = lattice
        .split(PARTS)
        .par_iter()
        .map(|part| run_pass(part, beta, &terms, lrs, widths, &sorted, with_gradient))
        .collect();
    let records = (0..order.len())
        .map(|o| {
            let mut record = parts[0][o];
            for part in &parts[1..] {
                for (total, n) in record.nodes.iter_mut().zip(part[o].nodes) {
                    *total += n;
                }
            }
            record
        })
        .collect();
    Some((records, lattice, order))
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

/// One pass over the steps with one part of the lattice, recording at each requested step.
fn run_pass(
    lattice: &Lattice,
    beta: f64,
    terms: &[Option<Term>],
    lrs: &[f64],
    widths: Option<&[f64]>,
    sorted_steps: &[usize],
    with_gradient: bool,
) -> Vec<Record> {
    let width = |k: usize| widths.map_or(1.0, |w| w[k]);
    let nj = lattice.rates.len();
    let derivative_nodes = if with_gradient { nj } else { 0 };
    let mut sums = Sums {
        value: Accumulator::new(nj),
        beta: Accumulator::new(derivative_nodes),
        log_a: Accumulator::new(derivative_nodes),
        gamma: Accumulator::new(derivative_nodes),
    };
    let weighted_y: Vec<f64> = lattice
        .weights
        .iter()
        .zip(&lattice.y)
        .map(|(w, y)| w * y)
        .collect();
    let (mut decay, mut inject) = (vec![0.0; nj], vec![0.0; nj]);
    let mut decay_area = f64::NAN;
    let mut records = Vec::with_capacity(sorted_steps.len());
    let mut area = width(0) * lrs[0];
    let mut next = 0;
    let mut record = |t: usize, area: f64, sums: &Sums, records: &mut Vec<Record>| {
        while next < sorted_steps.len() && sorted_steps[next] == t {
            records.push(Record {
                area,
                lr: lrs[t],
                nodes: [
                    sums.value.nodes_dot(&lattice.weights),
                    if with_gradient {
                        sums.value.nodes_dot(&weighted_y)
                    } else {
                        0.0
                    },
                    sums.beta.nodes_dot(&lattice.weights),
                    sums.log_a.nodes_dot(&lattice.weights),
                    sums.gamma.nodes_dot(&lattice.weights),
                ],
                moments: [
                    sums.value.moments,
                    sums.beta.moments,
                    sums.log_a.moments,
                    sums.gamma.moments,
                ],
            });
            next += 1;
        }
    };
    record(0, area, &sums, &mut records);
    let last = sorted_steps.last().copied().unwrap_or(0);
    for t in 1..=last {
        if let Some(term) = &terms[t] {
            lattice.decays(1.0 / term.a, &mut inject);
            add_term(&mut sums, lattice, &inject, term, beta, with_gradient);
        }
        let block_area = width(t) * lrs[t];
        area += block_area;
        if block_area != decay_area {
            lattice.decays(block_area, &mut decay);
            decay_area = block_area;
        }
        sums.value.decay(&decay);
        if with_gradient {
            sums.beta.decay(&decay);
            sums.log_a.decay(&decay);
            sums.gamma.decay(&decay);
        }
        record(t, area, &sums, &mut records);
    }
    records
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

/// The smallest and largest a_k = C·η_k^(−γ) among the terms up to `last`.
fn rate_range(lrs: &[f64], last: usize, c: f64, gamma: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for k in 1..=last {
        if lrs[k - 1] != lrs[k] {
            lo = lo.min(lrs[k]);
            hi = hi.max(lrs[k]);
        }
    }
    if !lo.is_finite() {
        return (1.0, 1.0); // no term: any lattice will do
    }
    (c * hi.powf(-gamma), c * lo.powf(-gamma))
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

/// The annealing term of every step up to `last` (None where the learning rate does not
/// change), computed once for all lattice parts; the transcendentals run in parallel.
fn terms(
    p: &[f64],
    lrs: &[f64],
    widths: Option<&[f64]>,
    last: usize,
    drive: Drive,
) -> Vec<Option<Term>> {
    let (ln_c, beta, gamma) = (p[4].ln(), p[5], p[6]);
    let mut before = vec![0.0; last + 1];
    let mut area = widths.map_or(1.0, |w| w[0]) * lrs[0];
    for t in 1..=last {
        before[t] = area;
        area += widths.map_or(1.0, |w| w[t]) * lrs[t];
    }
    (0..last + 1)
        .into_par_iter()
        .with_min_len(1024)
        .map(|t| {
            let d = match (t, drive) {
                (0, _) => 0.0,
                (_, Drive::Decrements) => lrs[t - 1] - lrs[t],
                (_, Drive::SquaredRates) => widths.map_or(1.0, |w| w[t]) * lrs[t] * lrs[t],
            };
            (d != 0.0).then(|| {
                // The noise drive's rate is one constant (γ = 0): ln η is not needed.
                let ln_lr = match drive {
                    Drive::Decrements => lrs[t].ln(),
                    Drive::SquaredRates => 0.0,
                };
                let ln_a = ln_c - gamma * ln_lr;
                Term {
                    omega: d * (-beta * ln_a).exp(),
                    a: ln_a.exp(),
                    ln_a,
                    ln_lr,
                    area_before: before[t],
                }
            })
        })
        .collect()
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
