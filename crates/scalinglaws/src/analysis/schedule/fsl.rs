//! The functional scaling law (FSL) as a curve law: a signal-learning term in the schedule's
//! intrinsic time plus a noise term that integrates the schedule against a forgetting kernel.
//!
//! Source. Li, Chen, Huang, Wang, Wu 2025, "Functional Scaling Laws in Kernel Regression: Loss
//! Dynamics and Learning Rate Schedules" (arXiv:2509.19189, NeurIPS 2025) introduce the FSL:
//! for SGD on power-law kernel regression, with intrinsic time T(t) = ∫₀ᵗ η(τ) dτ (the
//! cumulative learning rate), the loss is a signal term decaying as a power of T plus a noise
//! term in which "the schedule's influence enters through a simple convolutional functional"
//! (their abstract); they use it "as a surrogate model for fitting and predicting loss
//! trajectories" of 0.1B–1B LLMs. Li, Wang, Chen, Zhao, Zheng, Wu 2026 ("Optimal Learning-Rate
//! Schedules under Functional Scaling Laws", arXiv:2602.06797, COLT 2026) state that within
//! FSL "loss dynamics are governed by two exponents: a source exponent s > 0 controlling the
//! rate of signal learning, and a capacity exponent β > 1 determining the rate of noise
//! forgetting". The signSGD seed paper extends the FSL to signSGD with the same two components.
//!
//! What could not be found. Only the abstracts (and summaries) of these papers are reachable
//! here; neither the FSL's equation nor the parameterisation the papers fit to LLM loss curves
//! could be read. The form below is therefore OURS, built from the abstracts' description, and
//! every choice in it is ours:
//!
//!   L(t) = L0 + A·S1(t)^(−α) + C·N(t),
//!   N(t) = Σ_{k=1..t} η_k²·(1 + b·u_k(t))^(−γ),   u_k(t) = Σ_{τ=k..t} η_τ,
//!
//! - intrinsic time is S1(t) = Σ_{τ≤t} η_τ, warmup included (the convention of the other laws);
//! - the signal term is a pure power of S1 with its own exponent α (the papers' source
//!   exponent enters through it; no offset);
//! - the noise term: the SGD noise a step injects has variance ∝ η_k², i.e. η_k per unit of
//!   intrinsic time η_k dT, and it is forgotten with the intrinsic time elapsed since, through
//!   the power-law kernel K(u) = (1 + b·u)^(−γ) with a free scale b (in 1/lr-area units) and a
//!   free exponent γ ∈ [1, 5] (γ > 1 makes the forgetting summable, so a constant learning
//!   rate η gives a noise plateau C·η/(b(γ − 1)) that falls when η is lowered: the mechanism by
//!   which decay lowers the loss). The elapsed time includes the step's own η_k (the
//!   discretisation of the multi-power law's u_k, so its lattice applies unchanged), and the
//!   sum starts at step 1 like the multi-power law's.
//!
//! Evaluation. (1 + b·u)^(−γ) = b^(−γ)/Γ(γ) ∫ exp(γy − e^y/b)·exp(−e^y u) dy is the
//! multi-power law's Gamma-function integral with one rate a = b, so N(t) and its derivatives
//! come from that module's lattice of decaying running sums ([`super::multi_power`], driven by
//! η_k² instead of the decrements): O(T·J) per curve with exact gradients, checked against the
//! direct O(T²) sum and finite differences in the tests. [`final_loss`] sums one step directly
//! with the gradient with respect to every learning rate (schedule optimisation).

use super::multi_power;
use super::spec::{for_each_range, Rates};
use super::Evaluation;

/// Parameter order of the law.
pub const PARAMS: [&str; 6] = ["L0", "A", "alpha", "C", "b", "gamma"];

/// The law at `steps` (any order) of a schedule of blocks (`widths[k]` steps at `lrs[k]`; None:
/// one step each); `p` in [`PARAMS`] order. NaN where the parameters are far outside any fit's
/// range. Call [`super::law::CurveLaw::check`] first.
pub fn curve<R: Rates + ?Sized>(
    p: &[f64],
    lrs: &R,
    widths: Option<&[f64]>,
    steps: &[usize],
    with_gradient: bool,
) -> Evaluation {
    let [_, a, alpha, c, b, gamma] = [p[0], p[1], p[2], p[3], p[4], p[5]];
    let Some(sums) = multi_power::noise_sums(b, gamma, lrs, widths, steps, with_gradient) else {
        return Evaluation {
            values: vec![f64::NAN; steps.len()],
            gradient: with_gradient.then(|| vec![vec![f64::NAN; PARAMS.len()]; steps.len()]),
        };
    };
    let area = areas_at(lrs, widths, steps);
    let values = area
        .iter()
        .zip(&sums)
        .map(|(&s1, s)| value_at(p, s1, s[0]))
        .collect();
    let gradient = with_gradient.then(|| {
        area.iter()
            .zip(&sums)
            .map(|(&s1, &[noise, d_gamma, d_log_b])| {
                let power = s1.powf(-alpha);
                vec![
                    1.0,
                    power,
                    -a * power * s1.ln(),
                    noise,
                    c * d_log_b / b,
                    c * d_gamma,
                ]
            })
            .collect()
    });
    Evaluation { values, gradient }
}

/// L0 + A·S1^(−α) + C·K from the area S1 and the noise sum K.
pub(super) fn value_at(p: &[f64], area: f64, noise: f64) -> f64 {
    p[0] + p[1] * area.powf(-p[2]) + p[3] * noise
}

/// The area S1 (Σ widths·rates) through each of `steps` (any order), in one pass.
fn areas_at<R: Rates + ?Sized>(lrs: &R, widths: Option<&[f64]>, steps: &[usize]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..steps.len()).collect();
    order.sort_by_key(|&i| steps[i]);
    let last = steps.iter().copied().max().unwrap_or(0);
    let mut out = vec![0.0; steps.len()];
    let (mut sum, mut next) = (0.0, 0);
    for_each_range(lrs, 0, last + 1, |start, chunk| {
        for (i, lr) in chunk.iter().enumerate() {
            sum += widths.map_or(1.0, |w| w[start + i]) * lr;
            while next < order.len() && steps[order[next]] == start + i {
                out[order[next]] = sum;
                next += 1;
            }
        }
    });
    out
}

/// The law at step `t`, summed directly (O(t)): its value and d value / d η_τ for every τ ≤ t
/// (the gradient with respect to the schedule).
pub fn final_loss(p: &[f64], lrs: &[f64], t: usize) -> (f64, Vec<f64>) {
    let [l0, a, alpha, c, b, gamma] = [p[0], p[1], p[2], p[3], p[4], p[5]];
    let area: f64 = lrs[..=t].iter().sum();
    // u_k = Σ_{τ=k..t} η_τ, walking k down from t.
    let mut u = vec![0.0; t + 2];
    for k in (1..=t).rev() {
        u[k] = u[k + 1] + lrs[k];
    }
    let mut kernel = vec![0.0; t + 1];
    let mut slope = vec![0.0; t + 1]; // η_k²·K'(u_k)
    let mut noise = 0.0;
    for k in 1..=t {
        let z = 1.0 + b * u[k];
        kernel[k] = z.powf(-gamma);
        slope[k] = -gamma * b * kernel[k] / z * lrs[k] * lrs[k];
        noise += lrs[k] * lrs[k] * kernel[k];
    }
    let value = l0 + a * area.powf(-alpha) + c * noise;
    let d_area = -alpha * a * area.powf(-alpha - 1.0);
    let mut prefix = 0.0; // Σ_{k≤τ} η_k²·K'(u_k): every u_k with k ≤ τ grows with η_τ
    let grad = (0..=t)
        .map(|tau| {
            let mut d_noise = 0.0;
            if tau >= 1 {
                prefix += slope[tau];
                d_noise = 2.0 * lrs[tau] * kernel[tau] + prefix;
            }
            d_area + c * d_noise
        })
        .collect();
    (value, grad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(n: usize) -> Vec<f64> {
        // Warmup, stable, then a linear cooldown to a tenth.
        (0..n)
            .map(|t| {
                let peak = 3e-4;
                if t < 50 {
                    peak * t as f64 / 50.0
                } else if t < 3 * n / 4 {
                    peak
                } else {
                    let x = (t - 3 * n / 4) as f64 / (n - 3 * n / 4) as f64;
                    peak * (1.0 - 0.9 * x)
                }
            })
            .collect()
    }

    const P: [f64; 6] = [2.5, 0.6, 0.45, 300.0, 80.0, 1.6];

    #[test]
    fn lattice_matches_the_direct_sum() {
        let lrs = schedule(3000);
        let steps: Vec<usize> = (1..3000).step_by(97).collect();
        let e = curve(&P, &lrs, None, &steps, false);
        for (&t, &v) in steps.iter().zip(&e.values) {
            let (direct, _) = final_loss(&P, &lrs[..=t], t);
            assert!(
                (v - direct).abs() <= 1e-10 * direct.abs(),
                "step {t}: {v} vs {direct}"
            );
        }
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let lrs = schedule(1200);
        let steps = [1, 2, 7, 400, 899, 1199];
        let e = curve(&P, &lrs, None, &steps, true);
        let g = e.gradient.unwrap();
        for j in 0..P.len() {
            let h = 1e-6 * P[j].abs();
            let (mut up, mut down) = (P, P);
            up[j] += h;
            down[j] -= h;
            let vu = curve(&up, &lrs, None, &steps, false).values;
            let vd = curve(&down, &lrs, None, &steps, false).values;
            for i in 0..steps.len() {
                let fd = (vu[i] - vd[i]) / (2.0 * h);
                assert!(
                    (g[i][j] - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
                    "param {} step {}: {} vs {}",
                    PARAMS[j],
                    steps[i],
                    g[i][j],
                    fd
                );
            }
        }
    }

    #[test]
    fn schedule_gradient_matches_finite_differences() {
        let lrs = schedule(400);
        let t = lrs.len() - 1;
        let (_, grad) = final_loss(&P, &lrs, t);
        for tau in [0, 1, 30, 200, 320, 399] {
            let h = 1e-9;
            let (mut up, mut down) = (lrs.clone(), lrs.clone());
            up[tau] += h;
            down[tau] -= h;
            let fd = (final_loss(&P, &up, t).0 - final_loss(&P, &down, t).0) / (2.0 * h);
            assert!(
                (grad[tau] - fd).abs() <= 1e-5 * (1.0 + fd.abs()),
                "τ = {tau}: {} vs {fd}",
                grad[tau]
            );
        }
    }

    #[test]
    fn blocks_of_one_step_are_the_law() {
        let lrs = schedule(800);
        let steps = [10, 500, 799];
        let ones = vec![1.0; lrs.len()];
        let a = curve(&P, &lrs, None, &steps, false).values;
        let b = curve(&P, &lrs, Some(&ones), &steps, false).values;
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() <= 1e-14 * x.abs());
        }
    }

    #[test]
    fn constant_rate_noise_reaches_its_plateau() {
        // Σ η²(1 + b·u)^(−γ) → η/(b(γ − 1)) as t → ∞ at a constant η (u spaced by η).
        let eta = 1e-3;
        let (b, gamma) = (10.0, 2.0);
        let lrs = vec![eta; 400_000];
        let p = [0.0, 0.0, 0.5, 1.0, b, gamma];
        let e = curve(&p, &lrs, None, &[399_999], false);
        let plateau = eta / (b * (gamma - 1.0));
        let noise = e.values[0];
        assert!(
            (noise - plateau).abs() < 0.02 * plateau,
            "{noise} vs {plateau}"
        );
    }
}
