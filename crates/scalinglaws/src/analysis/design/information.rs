//! The Fisher information of runs about the law's free parameters, in the coordinates the
//! design works in: log θ for a parameter bounded below by zero (a scale such as A or E, whose
//! uncertainty is relative), θ itself otherwise. A run at x adds j(x)·j(x)ᵀ/σ², j(x) the
//! gradient of the fitted-space prediction (log f in log space) from the law's tape, so the
//! information is exact for the law as written (Atkinson, Donev & Tobias 2007, "Optimum
//! Experimental Designs, with SAS", ch. 17 for nonlinear models). A weak normal prior keeps
//! directions no run informs finite.

use nalgebra::{DMatrix, DVector};

use crate::fit::Space;
use crate::law::Law;
use crate::rng::Rng;
use crate::uncertainty::intervals::gradient_at;

/// The free parameters and how each is moved.
#[derive(Debug, Clone)]
pub struct Coordinates {
    /// Law indices of the free parameters.
    pub free: Vec<usize>,
    /// Per free parameter: moved in log θ.
    pub log: Vec<bool>,
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl Coordinates {
    /// The free parameters of `law` (not in `fixed`) around `centre`.
    pub fn new(law: &Law, fixed: &dyn Fn(&str) -> bool, centre: &[f64]) -> Coordinates {
        let free: Vec<usize> = (0..law.params.len())
            .filter(|&i| !fixed(&law.params[i].name))
            .collect();
        let log = free
            .iter()
            .map(|&i| law.params[i].lower >= 0.0 && centre[i] > 0.0)
            .collect();
        Coordinates {
            lower: free.iter().map(|&i| law.params[i].lower).collect(),
            upper: free.iter().map(|&i| law.params[i].upper).collect(),
            free,
            log,
        }
    }

    pub fn len(&self) -> usize {
        self.free.len()
    }

    pub fn is_empty(&self) -> bool {
        self.free.is_empty()
    }

    /// ∂θ/∂φ of each free parameter at `theta`.
    fn scale(&self, theta: &[f64]) -> Vec<f64> {
        self.free
            .iter()
            .zip(&self.log)
            .map(|(&i, &log)| if log { theta[i] } else { 1.0 })
            .collect()
    }

    /// A law-space gradient (every parameter) as a gradient in φ (free parameters).
    pub fn project(&self, theta: &[f64], gradient: &[f64]) -> DVector<f64> {
        let scale = self.scale(theta);
        DVector::from_iterator(
            self.len(),
            self.free.iter().zip(&scale).map(|(&i, s)| gradient[i] * s),
        )
    }

    /// `centre` moved by `step` in φ; None outside the parameters' bounds.
    pub fn shifted(&self, centre: &[f64], step: &DVector<f64>) -> Option<Vec<f64>> {
        let mut theta = centre.to_vec();
        for (k, &i) in self.free.iter().enumerate() {
            let v = if self.log[k] {
                centre[i] * step[k].exp()
            } else {
                centre[i] + step[k]
            };
            if !(v.is_finite() && v >= self.lower[k] && v <= self.upper[k]) {
                return None;
            }
            theta[i] = v;
        }
        Some(theta)
    }
}

/// j(x): the gradient in φ of the fitted-space prediction at `point`, None where the law is
/// not finite (or not positive in log space).
pub fn row(
    law: &Law,
    space: Space,
    coords: &Coordinates,
    theta: &[f64],
    point: &[f64],
) -> Option<DVector<f64>> {
    let value = law.eval(theta, point);
    if !value.is_finite() || (space == Space::Log && value <= 0.0) {
        return None;
    }
    let mut gradient = gradient_at(law, theta, point);
    if space == Space::Log {
        gradient.iter_mut().for_each(|g| *g /= value);
    }
    let j = coords.project(theta, &gradient);
    j.iter().all(|v| v.is_finite()).then_some(j)
}

/// The information of `points` (each of weight wᵢ, 1 without `weights`) at `theta` with noise
/// `sigma`, plus the prior's (a diagonal of 1/sd² in φ); None when a point's row is not
/// finite.
#[allow(clippy::too_many_arguments)]
pub fn information(
    law: &Law,
    space: Space,
    coords: &Coordinates,
    theta: &[f64],
    points: &[Vec<f64>],
    weights: Option<&[f64]>,
    sigma: f64,
    prior_sd: &[f64],
) -> Option<DMatrix<f64>> {
    let p = coords.len();
    let mut info = DMatrix::from_fn(p, p, |a, b| {
        if a == b {
            1.0 / (prior_sd[a] * prior_sd[a])
        } else {
            0.0
        }
    });
    for (i, point) in points.iter().enumerate() {
        let j = row(law, space, coords, theta, point)?;
        let w = weights.map_or(1.0, |w| w[i]);
        info.ger(w / (sigma * sigma), &j, &j, 1.0);
    }
    info.iter().all(|v| v.is_finite()).then_some(info)
}

/// The inverse of a symmetric positive-definite matrix (None when it is not).
pub fn inverse(matrix: &DMatrix<f64>) -> Option<DMatrix<f64>> {
    let inverse = matrix.clone().cholesky()?.inverse();
    inverse.iter().all(|v| v.is_finite()).then_some(inverse)
}

/// A draw from N(0, covariance) in φ, by its Cholesky factor `lower`.
pub fn normal_step(lower: &DMatrix<f64>, rng: &mut Rng) -> DVector<f64> {
    let z = DVector::from_iterator(lower.nrows(), (0..lower.nrows()).map(|_| rng.normal()));
    lower * z
}

/// Sherman–Morrison: `m` ← (m⁻¹ + j·jᵀ/σ²)⁻¹.
pub fn add_run(m: &mut DMatrix<f64>, j: &DVector<f64>, sigma: f64) {
    let mj = &*m * j;
    let denominator = sigma * sigma + j.dot(&mj);
    m.ger(-1.0 / denominator, &mj, &mj, 1.0);
}
