//! The curve laws: loss as a function of the whole learning-rate schedule up to a step. Each
//! evaluates a curve in O(T) with exact gradients (checked against finite differences).
//!
//! - `multi_power` (Luo et al. 2025, arXiv:2503.12811): see [`super::multi_power`].
//! - `lr_annealing` (Tissue et al. 2024, "Scaling Law with Learning Rate Annealing",
//!   arXiv:2408.11029): L(t) = L0 + A·S1(t)^(−α) − C·S2(t), S2(t) = Σ_{i≤t} m_i,
//!   m_i = λ·m_{i−1} + (η_{i−1} − η_i) (annealing area with momentum λ, ≈ 0.999 in the paper).
//! - `power_area`: L(t) = L0 + A·S1(t)^(−α), the constant-LR case of both (Tissue et al. §3).
//! - `fsl`: the functional scaling law (Li et al. 2025, arXiv:2509.19189) in a form of ours (its
//!   fitting form could not be read here): see [`super::fsl`].
//!
//! S1(t) sums the learning rate over steps 0..=t, warmup included (the multi-power
//! reference's convention; the papers' S_W).

use serde::{Deserialize, Serialize};

use super::{fsl, multi_power};
use crate::error::{Error, Result};
use crate::fit::Bounds;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CurveLaw {
    MultiPower,
    LrAnnealing,
    PowerArea,
    Fsl,
}

/// Values at the requested steps and, when asked, d value / d parameter (rows × parameters).
pub struct Evaluation {
    pub values: Vec<f64>,
    pub gradient: Option<Vec<Vec<f64>>>,
}

impl From<multi_power::Curve> for Evaluation {
    fn from(c: multi_power::Curve) -> Self {
        Evaluation {
            values: c.values,
            gradient: c.gradient.map(|g| g.iter().map(|r| r.to_vec()).collect()),
        }
    }
}

impl CurveLaw {
    pub const ALL: [CurveLaw; 4] = [
        CurveLaw::MultiPower,
        CurveLaw::LrAnnealing,
        CurveLaw::PowerArea,
        CurveLaw::Fsl,
    ];

    pub fn from_name(name: &str) -> Result<CurveLaw> {
        CurveLaw::ALL
            .into_iter()
            .find(|law| law.name() == name)
            .ok_or_else(|| Error::UnknownLaw {
                name: name.to_string(),
                suggestion: Some("multi_power, lr_annealing, power_area or fsl".into()),
            })
    }

    pub fn name(self) -> &'static str {
        match self {
            CurveLaw::MultiPower => "multi_power",
            CurveLaw::LrAnnealing => "lr_annealing",
            CurveLaw::PowerArea => "power_area",
            CurveLaw::Fsl => "fsl",
        }
    }

    pub fn formula(self) -> &'static str {
        match self {
            CurveLaw::MultiPower => {
                "L0 + A*(S1+S_W)^-alpha - B*sum_k (lr_{k-1}-lr_k)*(1-(C*lr_k^-gamma*S_k+1)^-beta)"
            }
            CurveLaw::LrAnnealing => {
                "L0 + A*S1^-alpha - C*S2, S2 = sum_i m_i, m_i = lambda*m_{i-1} + (lr_{i-1}-lr_i)"
            }
            CurveLaw::PowerArea => "L0 + A*S1^-alpha",
            CurveLaw::Fsl => {
                "L0 + A*S1^-alpha + C*sum_k lr_k^2*(1+b*u_k)^-gamma, u_k = sum_{i=k..t} lr_i"
            }
        }
    }

    pub fn citation(self) -> &'static str {
        match self {
            CurveLaw::MultiPower => "Luo et al. 2025, A Multi-Power Law for Loss Curve Prediction Across Learning Rate Schedules (arXiv:2503.12811)",
            CurveLaw::LrAnnealing => "Tissue et al. 2024, Scaling Law with Learning Rate Annealing (arXiv:2408.11029)",
            CurveLaw::PowerArea => "power law in the learning-rate area S1 (constant-LR case of both)",
            CurveLaw::Fsl => "Li et al. 2025, Functional Scaling Laws in Kernel Regression: Loss Dynamics and Learning Rate Schedules (arXiv:2509.19189); the fitting form is ours (the papers' could not be read)",
        }
    }

    pub fn params(self) -> &'static [&'static str] {
        match self {
            CurveLaw::MultiPower => &multi_power::PARAMS,
            CurveLaw::LrAnnealing => &["L0", "A", "alpha", "C", "lambda"],
            CurveLaw::PowerArea => &["L0", "A", "alpha"],
            CurveLaw::Fsl => &fsl::PARAMS,
        }
    }

    /// The bounds of each parameter (the engine's [`Bounds`]).
    pub fn bounds(self) -> Vec<Bounds> {
        let positive = Bounds::between(0.0, f64::INFINITY);
        let exponent = Bounds::between(0.0, 5.0);
        let between = Bounds::between;
        match self {
            // C, β and γ are bounded so that degenerate limits (C → 0 with β → ∞, …), which a
            // single schedule cannot rule out, stop at a bound and are reported there.
            CurveLaw::MultiPower => vec![
                positive,
                positive,
                exponent,
                positive,
                between(1e-3, 1e3),
                between(1e-3, 5.0),
                between(1e-3, 3.0),
            ],
            CurveLaw::LrAnnealing => {
                vec![positive, positive, exponent, positive, between(0.0, 1.0)]
            }
            CurveLaw::PowerArea => vec![positive, positive, exponent],
            // b (1/lr-area) and γ bounded so the lattice stays finite; γ ≥ 1 keeps the
            // forgetting summable (see the module).
            CurveLaw::Fsl => vec![
                positive,
                positive,
                exponent,
                positive,
                between(1e-2, 1e5),
                between(1.0, 5.0),
            ],
        }
    }

    /// Checks the schedule can carry the law at these steps.
    pub fn check(self, lrs: &[f64], steps: &[usize]) -> std::result::Result<(), String> {
        match self {
            CurveLaw::MultiPower => multi_power::check(lrs, steps),
            _ => {
                let max = steps.iter().copied().max().unwrap_or(0);
                if max >= lrs.len() {
                    return Err(format!(
                        "step {max} lies beyond the schedule's {} steps",
                        lrs.len()
                    ));
                }
                let min = steps.iter().copied().min().unwrap_or(0);
                if lrs[..=min].iter().sum::<f64>() <= 0.0 {
                    return Err(format!("the schedule's area S1 is 0 at step {min}"));
                }
                Ok(())
            }
        }
    }

    /// The law at `steps` of the schedule `lrs`. Call [`CurveLaw::check`] first.
    pub fn evaluate(
        self,
        p: &[f64],
        lrs: &[f64],
        steps: &[usize],
        with_gradient: bool,
    ) -> Evaluation {
        match self {
            CurveLaw::MultiPower => multi_power::curve(p, lrs, steps, with_gradient).into(),
            CurveLaw::LrAnnealing | CurveLaw::PowerArea => {
                self.evaluate_running(p, lrs, steps, with_gradient)
            }
            CurveLaw::Fsl => fsl::curve(p, lrs, None, steps, with_gradient),
        }
    }

    /// The two laws whose terms are running sums: one pass over the steps.
    fn evaluate_running(
        self,
        p: &[f64],
        lrs: &[f64],
        steps: &[usize],
        with_gradient: bool,
    ) -> Evaluation {
        let annealing = self == CurveLaw::LrAnnealing;
        let (l0, a, alpha) = (p[0], p[1], p[2]);
        let (c, lambda) = if annealing { (p[3], p[4]) } else { (0.0, 0.0) };
        let last = steps.iter().copied().max().unwrap_or(0);
        // S1, S2 and dS2/dλ at every step up to the last requested.
        let mut area = Vec::with_capacity(last + 1);
        let mut s2 = Vec::with_capacity(last + 1);
        let mut s2_lambda = Vec::with_capacity(last + 1);
        let (mut sum1, mut momentum, mut d_momentum, mut sum2, mut d_sum2) =
            (0.0, 0.0, 0.0, 0.0, 0.0);
        for t in 0..=last {
            sum1 += lrs[t];
            if t > 0 && annealing {
                d_momentum = momentum + lambda * d_momentum;
                momentum = lambda * momentum + (lrs[t - 1] - lrs[t]);
                sum2 += momentum;
                d_sum2 += d_momentum;
            }
            area.push(sum1);
            s2.push(sum2);
            s2_lambda.push(d_sum2);
        }
        let values = steps
            .iter()
            .map(|&t| l0 + a * area[t].powf(-alpha) - c * s2[t])
            .collect();
        let gradient = with_gradient.then(|| {
            steps
                .iter()
                .map(|&t| {
                    let power = area[t].powf(-alpha);
                    let mut row = vec![1.0, power, -a * power * area[t].ln()];
                    if annealing {
                        row.extend([-s2[t], -c * s2_lambda[t]]);
                    }
                    row
                })
                .collect()
        });
        Evaluation { values, gradient }
    }

    /// A typical start for the search: values the papers report for LLM pre-training.
    pub fn default_start(self, floor: f64) -> Vec<f64> {
        match self {
            CurveLaw::MultiPower => vec![floor, 0.5, 0.5, 400.0, 2.0, 0.6, 0.6],
            CurveLaw::LrAnnealing => vec![floor, 0.5, 0.5, 400.0, 0.999],
            CurveLaw::PowerArea => vec![floor, 0.5, 0.5],
            CurveLaw::Fsl => vec![floor, 0.5, 0.5, 300.0, 100.0, 1.5],
        }
    }
}
