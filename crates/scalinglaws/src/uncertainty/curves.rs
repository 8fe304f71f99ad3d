//! A fitted law along one variable, the others held: its value on a grid, the confidence band
//! of its mean and, beyond the data, the prediction interval of a new run where the fit's
//! calibration widens it. What a plot of a fit draws, computed here beside
//! [`predict_with_intervals`] so that the plot crate only draws values.

use super::intervals::{predict_with_intervals, PointPrediction};
use super::FitRecord;
use crate::error::Result;
use crate::fit::FitResult;

/// The points of a line through `at` along variable `x`: `at` with `x` set to each grid value.
pub fn points_along(at: &[f64], x: usize, grid: &[f64]) -> Vec<Vec<f64>> {
    grid.iter()
        .map(|&v| {
            let mut point = at.to_vec();
            point[x] = v;
            point
        })
        .collect()
}

/// The law's value along `x` through `at`: (grid value, value).
pub fn curve_along(
    result: &FitResult,
    at: &[f64],
    x: usize,
    grid: &[f64],
) -> Result<Vec<(f64, f64)>> {
    let values = result.predict(&points_along(at, x, grid))?;
    Ok(grid.iter().copied().zip(values).collect())
}

/// The intervals of a fit along one variable, as (grid value, low, high).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BandAlong {
    /// The confidence band of the law's mean, where the fit has one.
    pub mean: Vec<(f64, f64, f64)>,
    /// The calibrated prediction interval of a new run where it lies beyond the data, from the
    /// last point inside (so that it starts at the data's edge); empty when the fit's
    /// calibration did not widen it.
    pub calibrated: Vec<(f64, f64, f64)>,
}

/// The confidence band of the mean and the calibrated prediction interval beyond the data
/// along `x` through `at`, at `level`.
pub fn band_along(
    result: &FitRecord,
    at: &[f64],
    x: usize,
    grid: &[f64],
    level: f64,
) -> Result<BandAlong> {
    let (predicted, _) = predict_with_intervals(result, &points_along(at, x, grid), level)?;
    let mean = grid
        .iter()
        .zip(&predicted)
        .filter_map(|(&v, p)| p.ci.map(|[a, b]| (v, a, b)))
        .collect();
    Ok(BandAlong {
        mean,
        calibrated: calibrated_beyond(grid, &predicted),
    })
}

/// The calibrated prediction interval where it lies beyond the data, from the last point
/// inside.
fn calibrated_beyond(grid: &[f64], predicted: &[PointPrediction]) -> Vec<(f64, f64, f64)> {
    let beyond = |p: &PointPrediction| p.calibrated && p.distance_decades.is_some_and(|d| d > 0.0);
    let Some(start) = predicted.iter().position(beyond) else {
        return Vec::new();
    };
    grid.iter()
        .zip(predicted)
        .skip(start.saturating_sub(1))
        .filter(|(_, p)| p.calibrated)
        .filter_map(|(&v, p)| p.pi.map(|[a, b]| (v, a, b)))
        .collect()
}
