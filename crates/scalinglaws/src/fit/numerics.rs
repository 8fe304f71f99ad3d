//! Two numbers the fit's summaries share: the inverse of a curvature matrix scaled to unit
//! diagonal (every covariance) and R² (with the constant-target case it leaves out). Its own
//! file, below diagnostics.rs, smoothed.rs and variance.rs, which all use them: diagnostics
//! summarises with the smoothed sandwich, and the sandwich and the variance fit need the
//! inverse, so none names another for it.

use nalgebra::DMatrix;

pub(super) fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// The inverse of a symmetric positive-definite matrix, scaled to unit diagonal first (so that
/// parameters of very different sizes do not spoil the Cholesky factorisation).
pub(super) fn scaled_inverse(m: &DMatrix<f64>) -> Option<DMatrix<f64>> {
    let k = m.nrows();
    let scale: Vec<f64> = (0..k)
        .map(|i| m[(i, i)].abs().sqrt().max(f64::MIN_POSITIVE))
        .collect();
    let scaled = DMatrix::from_fn(k, k, |i, j| m[(i, j)] / (scale[i] * scale[j]));
    let inverse = nalgebra::Cholesky::new(scaled).map(|c| c.inverse())?;
    Some(DMatrix::from_fn(k, k, |i, j| {
        inverse[(i, j)] / (scale[i] * scale[j])
    }))
}

/// R² = 1 − SS_res/SS_tot in the fitted space; None when the target is the same in every row
/// of positive weight, where SS_tot is 0 (or rounding) and R² says nothing.
pub(super) fn r_squared(target: &[f64], weights: &[f64], ss_res: f64, ss_tot: f64) -> Option<f64> {
    match constant_target(target, weights) {
        Some(_) => None,
        None => finite(1.0 - ss_res / ss_tot),
    }
}

/// The one value of a target that is the same in every row of positive weight.
pub(super) fn constant_target(target: &[f64], weights: &[f64]) -> Option<f64> {
    let mut weighted = target
        .iter()
        .zip(weights)
        .filter(|(_, w)| **w > 0.0)
        .map(|(y, _)| *y);
    let first = weighted.next()?;
    weighted.all(|y| y == first).then_some(first)
}
