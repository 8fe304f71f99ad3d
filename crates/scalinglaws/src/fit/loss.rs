//! Robust losses with scipy's names and scaling (`scipy.optimize.least_squares`): for a
//! residual r and scale f, z = (r/f)² and the per-row cost is ½ f² ρ(z). With `huber` this is
//! exactly `scipy.special.huber(f, r)`, the objective of Hoffmann et al. 2022 and of Epoch's
//! replication. The objective of a fit is the weighted **sum** of these costs, never a mean.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossKind {
    Linear,
    Huber,
    SoftL1,
    Cauchy,
    Arctan,
}

impl LossKind {
    pub const ALL: [LossKind; 5] = [
        LossKind::Linear,
        LossKind::Huber,
        LossKind::SoftL1,
        LossKind::Cauchy,
        LossKind::Arctan,
    ];

    pub fn name(self) -> &'static str {
        match self {
            LossKind::Linear => "linear",
            LossKind::Huber => "huber",
            LossKind::SoftL1 => "soft_l1",
            LossKind::Cauchy => "cauchy",
            LossKind::Arctan => "arctan",
        }
    }

    pub fn from_name(name: &str) -> Option<LossKind> {
        LossKind::ALL.into_iter().find(|l| l.name() == name)
    }

    /// ρ(z), ρ'(z), ρ''(z).
    fn rho(self, z: f64) -> (f64, f64, f64) {
        match self {
            LossKind::Linear => (z, 1.0, 0.0),
            LossKind::Huber if z <= 1.0 => (z, 1.0, 0.0),
            LossKind::Huber => {
                let s = z.sqrt();
                (2.0 * s - 1.0, 1.0 / s, -0.5 / (s * z))
            }
            // 2(√(1+z) − 1) written as 2z/(√(1+z) + 1), and ln(1+z) as ln_1p: at a large
            // f_scale z is tiny and the plain forms cancel to a few digits (13 % off at
            // f_scale 1e5, exactly 0 from 1e8, where every start looked converged).
            LossKind::SoftL1 => {
                let t = 1.0 + z;
                let s = t.sqrt();
                (2.0 * z / (s + 1.0), 1.0 / s, -0.5 / (s * t))
            }
            LossKind::Cauchy => {
                let t = 1.0 + z;
                (z.ln_1p(), 1.0 / t, -1.0 / (t * t))
            }
            LossKind::Arctan => {
                let t = 1.0 + z * z;
                (z.atan(), 1.0 / t, -2.0 * z / (t * t))
            }
        }
    }
}

/// A loss with its scale (`f_scale`, Huber's delta).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Loss {
    pub kind: LossKind,
    pub f_scale: f64,
}

/// Cost of one residual and what the solvers need of it.
#[derive(Debug, Clone, Copy)]
pub struct CostTerms {
    pub cost: f64,
    /// d cost / d r
    pub d1: f64,
    /// d² cost / d r²
    pub d2: f64,
    /// Iteratively-reweighted-least-squares weight ρ'(z) (>= 0): the Gauss–Newton curvature.
    pub irls: f64,
}

impl Loss {
    #[inline]
    pub fn terms(&self, r: f64) -> CostTerms {
        let f = self.f_scale;
        // Closed forms of the two common losses (the general path below agrees with them).
        match self.kind {
            LossKind::Linear => {
                return CostTerms {
                    cost: 0.5 * r * r,
                    d1: r,
                    d2: 1.0,
                    irls: 1.0,
                }
            }
            LossKind::Huber if r.abs() <= f => {
                return CostTerms {
                    cost: 0.5 * r * r,
                    d1: r,
                    d2: 1.0,
                    irls: 1.0,
                }
            }
            LossKind::Huber => {
                let a = r.abs();
                return CostTerms {
                    cost: f * (a - 0.5 * f),
                    d1: f * r.signum(),
                    d2: 0.0,
                    irls: f / a,
                };
            }
            _ => {}
        }
        let z = (r / f) * (r / f);
        let (rho, d1, d2) = self.kind.rho(z);
        CostTerms {
            cost: 0.5 * f * f * rho,
            d1: d1 * r,
            d2: d1 + 2.0 * d2 * z,
            irls: d1,
        }
    }

    pub fn cost(&self, r: f64) -> f64 {
        self.terms(r).cost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huber_matches_scipy_special_huber() {
        let loss = Loss {
            kind: LossKind::Huber,
            f_scale: 1e-3,
        };
        // scipy.special.huber(delta, r) = r²/2 if |r| <= delta else delta (|r| - delta/2)
        assert!((loss.cost(5e-4) - 0.5 * 25e-8).abs() < 1e-20);
        assert!((loss.cost(-0.01) - 1e-3 * (0.01 - 5e-4)).abs() < 1e-18);
    }

    #[test]
    fn derivatives_match_central_differences() {
        for kind in LossKind::ALL {
            let loss = Loss { kind, f_scale: 0.3 };
            for r in [-1.7, -0.2, 0.05, 0.29, 0.31, 2.5] {
                let h = 1e-6;
                let t = loss.terms(r);
                let d1 = (loss.cost(r + h) - loss.cost(r - h)) / (2.0 * h);
                let d2 = (loss.terms(r + h).d1 - loss.terms(r - h).d1) / (2.0 * h);
                assert!((t.d1 - d1).abs() < 1e-7, "{kind:?} r={r}: {} vs {d1}", t.d1);
                assert!((t.d2 - d2).abs() < 1e-5, "{kind:?} r={r}: {} vs {d2}", t.d2);
            }
        }
    }

    #[test]
    fn soft_l1_and_cauchy_keep_their_digits_at_a_large_scale() {
        // At f_scale f ≫ |r| both are r²/2 to first order in (r/f)².
        for kind in [LossKind::SoftL1, LossKind::Cauchy] {
            for f in [1e5, 1e8, 1e12] {
                let loss = Loss { kind, f_scale: f };
                let r = 0.01;
                let cost = loss.terms(r).cost;
                assert!(
                    (cost / (0.5 * r * r) - 1.0).abs() < 1e-9,
                    "{kind:?} at f_scale {f}: cost {cost}"
                );
            }
        }
    }
}
