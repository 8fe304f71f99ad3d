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

use super::spec::{for_each_range, Rates};
use super::{fsl, multi_power, Evaluation};
use crate::error::{Error, Result};
use crate::fit::Bounds;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CurveLaw {
    MultiPower,
    LrAnnealing,
    PowerArea,
    Fsl,
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
        self.check_rates(lrs, steps)
    }

    /// [`CurveLaw::check`] on rates read in ranges.
    pub fn check_rates<R: Rates + ?Sized>(
        self,
        lrs: &R,
        steps: &[usize],
    ) -> std::result::Result<(), String> {
        match self {
            CurveLaw::MultiPower => multi_power::check_rates(lrs, steps),
            _ => {
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
                    area += chunk.iter().sum::<f64>()
                });
                if area <= 0.0 {
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

    /// The law's values at `steps` (any order) of rates read on demand: the values
    /// [`CurveLaw::evaluate`] gives, with memory O(steps requested) whatever the schedule's
    /// length. Call [`CurveLaw::check_rates`] first.
    pub fn values_of<R: Rates + ?Sized>(self, p: &[f64], lrs: &R, steps: &[usize]) -> Vec<f64> {
        match self {
            CurveLaw::MultiPower => multi_power::curve_of(p, lrs, steps),
            CurveLaw::LrAnnealing | CurveLaw::PowerArea => {
                self.evaluate_running(p, lrs, steps, false).values
            }
            CurveLaw::Fsl => fsl::curve(p, lrs, None, steps, false).values,
        }
    }

    /// The law at the end of each branch of a family sharing `main`: branch i is `main` before
    /// `branches[i].0` and its own rates from there to its last step `branches[i].1` (the
    /// value [`CurveLaw::values_of`] gives on the branch alone). The branches share the steps
    /// before them: time O(main + Σ branch lengths) (the lattice laws: a pass of `main` per
    /// lattice their spans need, a few), memory O(branches).
    pub fn branch_ends(
        self,
        p: &[f64],
        main: &dyn Rates,
        branches: &[(usize, usize, &dyn Rates)],
    ) -> Vec<f64> {
        match self {
            CurveLaw::MultiPower => multi_power::branch_ends(p, main, branches, None),
            CurveLaw::LrAnnealing | CurveLaw::PowerArea => running_ends(self, p, main, branches)
                .iter()
                .map(|r| r.value(p))
                .collect(),
            CurveLaw::Fsl => {
                let noise = multi_power::branch_ends(p, main, branches, Some((p[4], p[5])));
                running_ends(self, p, main, branches)
                    .iter()
                    .zip(noise)
                    .map(|(r, k)| fsl::value_at(p, r.sum1, k))
                    .collect()
            }
        }
    }

    /// The two laws whose terms are running sums: one pass over the steps.
    fn evaluate_running<R: Rates + ?Sized>(
        self,
        p: &[f64],
        lrs: &R,
        steps: &[usize],
        with_gradient: bool,
    ) -> Evaluation {
        let annealing = self == CurveLaw::LrAnnealing;
        let (a, alpha) = (p[1], p[2]);
        let c = if annealing { p[3] } else { 0.0 };
        let mut order: Vec<usize> = (0..steps.len()).collect();
        order.sort_by_key(|&i| steps[i]);
        let last = steps.iter().copied().max().unwrap_or(0);
        // S1, S2 and dS2/dλ at every requested step.
        let mut at = vec![Running::new(self, p); steps.len()];
        let mut state = Running::new(self, p);
        let mut next = 0;
        for_each_range(lrs, 0, last + 1, |start, chunk| {
            for (i, &lr) in chunk.iter().enumerate() {
                state.step(lr);
                while next < order.len() && steps[order[next]] == start + i {
                    at[order[next]] = state;
                    next += 1;
                }
            }
        });
        let values = at.iter().map(|r| r.value(p)).collect();
        let gradient = with_gradient.then(|| {
            at.iter()
                .map(|r| {
                    let power = r.sum1.powf(-alpha);
                    let mut row = vec![1.0, power, -a * power * r.sum1.ln()];
                    if annealing {
                        row.extend([-r.sum2, -c * r.d_sum2]);
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

/// The running sums of `lr_annealing` and `power_area` after some steps: S1, the momentum of
/// the decrements, S2 and their λ-derivatives.
#[derive(Clone, Copy)]
struct Running {
    annealing: bool,
    lambda: f64,
    steps: usize,
    last_lr: f64,
    sum1: f64,
    momentum: f64,
    d_momentum: f64,
    sum2: f64,
    d_sum2: f64,
}

impl Running {
    fn new(law: CurveLaw, p: &[f64]) -> Running {
        let annealing = law == CurveLaw::LrAnnealing;
        Running {
            annealing,
            lambda: if annealing { p[4] } else { 0.0 },
            steps: 0,
            last_lr: 0.0,
            sum1: 0.0,
            momentum: 0.0,
            d_momentum: 0.0,
            sum2: 0.0,
            d_sum2: 0.0,
        }
    }

    fn step(&mut self, lr: f64) {
        self.sum1 += lr;
        if self.steps > 0 && self.annealing {
            self.d_momentum = self.momentum + self.lambda * self.d_momentum;
            self.momentum = self.lambda * self.momentum + (self.last_lr - lr);
            self.sum2 += self.momentum;
            self.d_sum2 += self.d_momentum;
        }
        self.last_lr = lr;
        self.steps += 1;
    }

    /// L0 + A·S1^(−α) − C·S2 (C = 0 for `power_area`).
    fn value(&self, p: &[f64]) -> f64 {
        let c = if self.annealing { p[3] } else { 0.0 };
        p[0] + p[1] * self.sum1.powf(-p[2]) - c * self.sum2
    }
}

/// The running sums at the end of each branch (see [`CurveLaw::branch_ends`]): one pass of
/// `main`, each branch continuing a copy from its start.
fn running_ends(
    law: CurveLaw,
    p: &[f64],
    main: &dyn Rates,
    branches: &[(usize, usize, &dyn Rates)],
) -> Vec<Running> {
    let mut by_start: Vec<usize> = (0..branches.len()).collect();
    by_start.sort_by_key(|&i| branches[i].0);
    let mut ends = vec![Running::new(law, p); branches.len()];
    let mut state = Running::new(law, p);
    for i in by_start {
        let (start, end, rates) = branches[i];
        for_each_range(main, state.steps, start, |_, chunk| {
            chunk.iter().for_each(|&lr| state.step(lr))
        });
        let mut own = state;
        for_each_range(rates, start, end + 1, |_, chunk| {
            chunk.iter().for_each(|&lr| own.step(lr))
        });
        ends[i] = own;
    }
    ends
}
