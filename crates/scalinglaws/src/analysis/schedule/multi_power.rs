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
//! respect to every learning rate, for schedule optimisation.

use crate::uncertainty::dist::ln_gamma;

/// Parameter order of the law.
pub const PARAMS: [&str; 7] = ["L0", "A", "alpha", "B", "C", "beta", "gamma"];

/// Lattice spacing: r_{j+2} = 2·r_j, so e^(−r_j x) follows by squaring.
const H: f64 = std::f64::consts::LN_2 / 2.0;
/// r·(1/a + u) at the lattice's lower end, below which the closed-form tail takes over.
const LOWER_REACH: f64 = 1e-4;
/// r/a at the lattice's upper end: (r/a)^β·e^(−r/a) < 1e-17 beyond.
const UPPER_REACH: f64 = 45.0;
/// Fresh exponentials every this many lattice nodes (error growth 2^(RESTART/2) ulp).
const RESTART: usize = 16;
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

/// The law at the given steps (any order); `p` in [`PARAMS`] order. Call [`check`] first.
pub fn curve(p: &[f64], lrs: &[f64], steps: &[usize], with_gradient: bool) -> Curve {
    let [l0, a, alpha, b, c, beta, gamma] = [p[0], p[1], p[2], p[3], p[4], p[5], p[6]];
    let mut order: Vec<usize> = (0..steps.len()).collect();
    order.sort_by_key(|&i| steps[i]);
    let last = steps.iter().copied().max().unwrap_or(0);
    let (a_min, a_max) = rate_range(lrs, last, c, gamma);
    let area_max: f64 = lrs[..=last].iter().sum();
    if !lattice_is_reasonable(beta, a_min, a_max, area_max) {
        // Parameters far outside any fit's range (the search probes them): no value.
        return Curve {
            values: vec![f64::NAN; steps.len()],
            gradient: with_gradient.then(|| vec![[f64::NAN; 7]; steps.len()]),
        };
    }
    let lattice = Lattice::new(beta, a_min, a_max, area_max);
    let nj = lattice.rates.len();
    let mut sums = Sums {
        value: Accumulator::new(nj),
        beta: Accumulator::new(if with_gradient { nj } else { 0 }),
        log_a: Accumulator::new(if with_gradient { nj } else { 0 }),
        gamma: Accumulator::new(if with_gradient { nj } else { 0 }),
    };
    let mut decay = vec![0.0; nj];
    let mut inject = vec![0.0; nj];
    let mut decay_lr = f64::NAN;
    let ln_gamma_beta = ln_gamma(beta);
    let inv_gamma = (-ln_gamma_beta).exp();
    let psi = digamma(beta);
    let mut values = vec![0.0; steps.len()];
    let mut gradient = with_gradient.then(|| vec![[0.0; 7]; steps.len()]);
    let weighted_y: Vec<f64> = if with_gradient {
        lattice
            .weights
            .iter()
            .zip(&lattice.y)
            .map(|(w, y)| w * y)
            .collect()
    } else {
        Vec::new()
    };
    let mut next = 0;
    let mut area = lrs[0];
    while next < order.len() && steps[order[next]] == 0 {
        // No annealing term yet: L0 + A·S1^(−α) (check() ensures S1 > 0).
        let i = order[next];
        let power = area.powf(-alpha);
        values[i] = l0 + a * power;
        if let Some(g) = gradient.as_mut() {
            g[i] = [1.0, power, -a * power * area.ln(), 0.0, 0.0, 0.0, 0.0];
        }
        next += 1;
    }
    for t in 1..=last {
        let lr = lrs[t];
        let d = lrs[t - 1] - lr;
        if d != 0.0 {
            let a_t = c * lr.powf(-gamma);
            let omega = d * a_t.powf(-beta);
            lattice.decays(1.0 / a_t, &mut inject);
            add_term(
                &mut sums,
                &lattice,
                &inject,
                omega,
                a_t,
                lr,
                area,
                beta,
                with_gradient,
            );
        }
        area += lr;
        if lr != decay_lr {
            lattice.decays(lr, &mut decay);
            decay_lr = lr;
        }
        decay_all(&mut sums, &decay, with_gradient);
        while next < order.len() && steps[order[next]] == t {
            let i = order[next];
            let f = read(&sums.value, &lattice, area, &lattice.weights);
            let ld = b * ((lrs[0] - lr) - f * inv_gamma);
            let power = area.powf(-alpha);
            values[i] = l0 + a * power - ld;
            if let Some(g) = gradient.as_mut() {
                let lower = area_tail(&sums.value.moments, &lattice.tail_beta, area);
                let d_beta = -psi * f + read(&sums.value, &lattice, area, &weighted_y)
                    - read_tail(&sums.value.moments, &lattice, area)
                    + lower
                    + read(&sums.beta, &lattice, area, &lattice.weights);
                let d_log_c = read_scaled(&sums.log_a, &lattice, area, beta);
                let d_gamma = read_scaled(&sums.gamma, &lattice, area, beta);
                g[i] = [
                    1.0,
                    power,
                    -a * power * area.ln(),
                    -((lrs[0] - lr) - f * inv_gamma),
                    b * inv_gamma * d_log_c / c,
                    b * inv_gamma * d_beta,
                    b * inv_gamma * d_gamma,
                ];
            }
            next += 1;
        }
    }
    Curve { values, gradient }
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

#[allow(clippy::too_many_arguments)]
fn add_term(
    sums: &mut Sums,
    lattice: &Lattice,
    inject: &[f64],
    omega: f64,
    a_t: f64,
    lr: f64,
    area_before: f64,
    beta: f64,
    with_gradient: bool,
) {
    let c_k = 1.0 / a_t - area_before;
    let moments = [omega, omega * c_k, omega / a_t];
    add_moments(&mut sums.value, moments, 1.0);
    for (m, e) in sums.value.nodes.iter_mut().zip(inject) {
        *m += omega * e;
    }
    if !with_gradient {
        return;
    }
    let ln_a = a_t.ln();
    let ln_lr = lr.ln();
    add_moments(&mut sums.beta, moments, -ln_a);
    add_moments(&mut sums.log_a, moments, 1.0);
    add_moments(&mut sums.gamma, moments, -ln_lr);
    let inv_a = 1.0 / a_t;
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

fn add_moments(acc: &mut Accumulator, moments: [f64; 3], weight: f64) {
    for (m, v) in acc.moments.iter_mut().zip(moments) {
        *m += weight * v;
    }
}

fn decay_all(sums: &mut Sums, decay: &[f64], with_gradient: bool) {
    let scale = |nodes: &mut [f64]| {
        for (m, e) in nodes.iter_mut().zip(decay) {
            *m *= e;
        }
    };
    scale(&mut sums.value.nodes);
    if with_gradient {
        scale(&mut sums.beta.nodes);
        scale(&mut sums.log_a.nodes);
        scale(&mut sums.gamma.nodes);
    }
}

/// Σ_j weight_j·M_j + the closed-form tail H0·Σω − H1·Σω(c + S).
fn read(acc: &Accumulator, lattice: &Lattice, area: f64, weights: &[f64]) -> f64 {
    let nodes: f64 = acc.nodes.iter().zip(weights).map(|(m, w)| m * w).sum();
    nodes + read_tail(&acc.moments, lattice, area)
}

fn read_tail(moments: &[f64; 3], lattice: &Lattice, area: f64) -> f64 {
    area_tail(moments, &lattice.tail, area)
}

fn area_tail(moments: &[f64; 3], tail: &[f64; 2], area: f64) -> f64 {
    tail[0] * moments[0] - tail[1] * (moments[1] + area * moments[0])
}

/// The ∂/∂ln a direction: lattice nodes carry their own weights; the tail's derivative is
/// Σ ω·[−β(H0 − H1 w) + H1/a].
fn read_scaled(acc: &Accumulator, lattice: &Lattice, area: f64, beta: f64) -> f64 {
    let nodes: f64 = acc
        .nodes
        .iter()
        .zip(&lattice.weights)
        .map(|(m, w)| m * w)
        .sum();
    nodes - beta * read_tail(&acc.moments, lattice, area) + lattice.tail[1] * acc.moments[2]
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
